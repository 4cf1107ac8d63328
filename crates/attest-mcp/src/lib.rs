//! attest-mcp
