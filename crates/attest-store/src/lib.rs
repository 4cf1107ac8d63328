//! attest-store
