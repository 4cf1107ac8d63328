//! Embeddings for ranking: the archive's side ([`attest_archive::embed`]: stored
//! vectors, the service and its back-off) and, here, the HTTP embedder the environment
//! names.

#[cfg(not(feature = "fetch"))]
use std::sync::Arc;

pub use attest_archive::embed::*;
#[cfg(not(feature = "fetch"))]
use attest_archive::rank::{EmbedError, EmbedKind, Embedder};

/// The service named by the environment (`EMBED_BASE_URL`, `EMBED_MODEL`,
/// `EMBED_API_KEY`, `EMBED_DIMS`, `EMBED_TIMEOUT`, read through `get`), or `None`
/// when `EMBED_BASE_URL` is unset. In a build without the `fetch` feature a
/// configured server is reported unavailable on every ranking.
pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Option<EmbedService> {
    #[cfg(feature = "fetch")]
    {
        attest_openai::embed_service_from_env(get)
    }
    #[cfg(not(feature = "fetch"))]
    {
        let base = get("EMBED_BASE_URL").filter(|v| !v.trim().is_empty())?;
        Some(EmbedService::new(Arc::new(NoHttp(base)), "none"))
    }
}

/// Stand-in when the build cannot reach the web.
#[cfg(not(feature = "fetch"))]
struct NoHttp(String);

#[cfg(not(feature = "fetch"))]
impl Embedder for NoHttp {
    fn embed(&self, _: &[String], _: EmbedKind) -> std::result::Result<Vec<Vec<f32>>, EmbedError> {
        Err(EmbedError("this build has no HTTP client (built without the `fetch` feature)".into()))
    }

    fn describe(&self) -> String {
        format!("embeddings at {}", self.0)
    }
}
