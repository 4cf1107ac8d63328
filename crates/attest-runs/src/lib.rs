//! attest-runs
