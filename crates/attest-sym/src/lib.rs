//! attest-sym
