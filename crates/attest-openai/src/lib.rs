//! JSON over HTTP for web services, and the embedding client for an OpenAI-compatible
//! `/embeddings` endpoint (Ollama, llama.cpp's server, vLLM, OpenAI itself).
//!
//! [`JsonClient`] is the small, reusable part: GET or POST JSON with an end-to-end
//! timeout, a cap on the body, http(s) addresses only, and an optional bearer key read
//! from an environment variable by the caller. [`HttpEmbedder`] implements
//! [`attest_archive::rank::Embedder`] on top of it: batched requests, vectors put back in input
//! order, validated (one per text, finite, all of one length, at least `EMBED_DIMS`
//! long when that is set, truncated to it Matryoshka-style) and normalised to unit
//! length. Every failure is an [`EmbedError`] with a one-line reason; ranking turns it
//! into "embedding server unavailable (…): ranked by words only", never into an error.
//!
//! [`embed_service_from_env`] builds the archive's embedding service from the
//! environment. This crate is the one place a JSON web client lives: the feed (for
//! `feed.research`, the chat tagger and embeddings) and the knowledge surface (for
//! embeddings only) link it; the provenance and symbolic surfaces never do.

#![warn(missing_docs)]

use std::time::Duration;

use serde_json::{Value, json};

use attest_archive::embed::EmbedService;
use attest_archive::rank::{EmbedError, EmbedKind, Embedder};

/// Limits of one [`JsonClient`].
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// End-to-end limit for one request, body included.
    pub timeout: Duration,
    /// Limit for establishing a connection.
    pub connect_timeout: Duration,
    /// Largest answer accepted, in bytes (after decompression).
    pub max_bytes: u64,
    /// The User-Agent sent.
    pub user_agent: String,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            timeout: Duration::from_secs(15),
            connect_timeout: Duration::from_secs(3),
            max_bytes: 8 * 1024 * 1024,
            user_agent: format!("attest-feed/{} (+local research feed reader)", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// Why a JSON request failed. Messages are one line and name the address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpError {
    /// Not an http(s) address.
    #[error("'{0}' is not an http(s) address")]
    BadUrl(String),
    /// No answer within the timeout.
    #[error("{url} did not answer within {secs} s")]
    Timeout {
        /// The address.
        url: String,
        /// The limit in seconds.
        secs: u64,
    },
    /// A non-success status.
    #[error("{url} answered HTTP {status}{detail}")]
    Status {
        /// The address.
        url: String,
        /// The status code.
        status: u16,
        /// The start of the body (`: …`), when there was one.
        detail: String,
    },
    /// The answer was larger than the cap.
    #[error("{url} sent more than {limit_kb} KB; refusing the answer")]
    TooLarge {
        /// The address.
        url: String,
        /// The cap in kilobytes.
        limit_kb: u64,
    },
    /// The answer was not JSON.
    #[error("{url} did not send JSON: {reason}")]
    NotJson {
        /// The address.
        url: String,
        /// The parser's complaint.
        reason: String,
    },
    /// Connection-level failure (DNS, refused, TLS, protocol).
    #[error("cannot reach {url}: {reason}")]
    Transport {
        /// The address.
        url: String,
        /// What went wrong.
        reason: String,
    },
}

/// Check that an address is http(s) and parse it.
pub fn web_url(url: &str) -> Result<url::Url, HttpError> {
    match url::Url::parse(url.trim()) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(u),
        _ => Err(HttpError::BadUrl(attest_archive::clean::collapse_ws(url).chars().take(200).collect())),
    }
}

/// A blocking JSON client with limits; one connection pool, cheap to clone. Call it
/// from a blocking thread (`tokio::task::spawn_blocking`) in async code.
#[derive(Clone)]
pub struct JsonClient {
    agent: ureq::Agent,
    opts: HttpOptions,
    bearer: Option<String>,
}

impl std::fmt::Debug for JsonClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("JsonClient").field("opts", &self.opts).field("bearer", &self.bearer.is_some()).finish()
    }
}

impl JsonClient {
    /// A client with these limits, sending `Authorization: Bearer <key>` when a key is
    /// given (an empty key counts as none).
    pub fn new(opts: HttpOptions, bearer: Option<String>) -> JsonClient {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(opts.timeout))
            .timeout_connect(Some(opts.connect_timeout.min(opts.timeout)))
            .max_redirects(3)
            .http_status_as_error(false)
            .user_agent(opts.user_agent.as_str())
            .build()
            .into();
        JsonClient { agent, opts, bearer: bearer.filter(|k| !k.trim().is_empty()) }
    }

    /// The limits in force.
    pub fn options(&self) -> &HttpOptions {
        &self.opts
    }

    /// POST `body` as JSON and parse the JSON answer.
    pub fn post_json(&self, url: &str, body: &Value) -> Result<Value, HttpError> {
        let u = web_url(url)?;
        let mut req = self.agent.post(u.as_str()).header("Content-Type", "application/json");
        req = req.header("Accept", "application/json");
        if let Some(k) = &self.bearer {
            req = req.header("Authorization", format!("Bearer {}", k.trim()));
        }
        let bytes = serde_json::to_vec(body).unwrap_or_default();
        let resp = req.send(&bytes[..]).map_err(|e| self.map_err(url, e))?;
        let bytes = self.read(url, resp)?;
        parse_json(url, &bytes)
    }

    /// GET an address and return the body's bytes.
    pub fn get_bytes(&self, url: &str) -> Result<Vec<u8>, HttpError> {
        let u = web_url(url)?;
        let mut req = self.agent.get(u.as_str());
        if let Some(k) = &self.bearer {
            req = req.header("Authorization", format!("Bearer {}", k.trim()));
        }
        let resp = req.call().map_err(|e| self.map_err(url, e))?;
        self.read(url, resp)
    }

    /// GET an address and parse the JSON answer.
    pub fn get_json(&self, url: &str) -> Result<Value, HttpError> {
        let bytes = self.get_bytes(url)?;
        parse_json(url, &bytes)
    }

    fn read(&self, url: &str, mut resp: ureq::http::Response<ureq::Body>) -> Result<Vec<u8>, HttpError> {
        let status = resp.status().as_u16();
        let declared = resp
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.opts.max_bytes) {
            return Err(self.too_large(url));
        }
        let bytes =
            resp.body_mut().with_config().limit(self.opts.max_bytes).read_to_vec().map_err(|e| self.map_err(url, e))?;
        if !(200..300).contains(&status) {
            let text = String::from_utf8_lossy(&bytes);
            let text = attest_archive::clean::collapse_ws(&text);
            let detail = if text.is_empty() { String::new() } else { format!(": {}", clip(&text, 160)) };
            return Err(HttpError::Status { url: url.into(), status, detail });
        }
        Ok(bytes)
    }

    fn too_large(&self, url: &str) -> HttpError {
        HttpError::TooLarge { url: url.into(), limit_kb: self.opts.max_bytes.div_ceil(1024) }
    }

    fn map_err(&self, url: &str, e: ureq::Error) -> HttpError {
        let timeout = || HttpError::Timeout { url: url.into(), secs: self.opts.timeout.as_secs().max(1) };
        match e {
            ureq::Error::Timeout(_) => timeout(),
            ureq::Error::BodyExceedsLimit(_) => self.too_large(url),
            ureq::Error::Io(io)
                if matches!(io.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) =>
            {
                timeout()
            }
            ureq::Error::StatusCode(status) => HttpError::Status { url: url.into(), status, detail: String::new() },
            other => HttpError::Transport { url: url.into(), reason: clip(&other.to_string(), 200) },
        }
    }
}

fn parse_json(url: &str, bytes: &[u8]) -> Result<Value, HttpError> {
    serde_json::from_slice(bytes).map_err(|e| HttpError::NotJson { url: url.into(), reason: clip(&e.to_string(), 120) })
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}…", s.chars().take(n).collect::<String>()) }
}

// ---------------------------------------------------------------------------------
// Embeddings

/// The default model, as the original (`embeddinggemma`, served by Ollama).
pub const DEFAULT_EMBED_MODEL: &str = "embeddinggemma";
/// Texts per `/embeddings` request.
pub const EMBED_BATCH: usize = 32;
/// Default limit for one embedding request, in seconds (`EMBED_TIMEOUT` changes it).
pub const EMBED_TIMEOUT_SECS: u64 = 10;

/// Where and how to embed, from the environment (see [`EmbedConfig::from_env`]).
#[derive(Clone, PartialEq, Eq)]
pub struct EmbedConfig {
    /// The API base, e.g. `http://localhost:11434/v1`; requests go to `{base}/embeddings`.
    pub base_url: String,
    /// The model name sent with each request.
    pub model: String,
    /// The bearer key, if the server needs one.
    pub api_key: Option<String>,
    /// Keep only the first `dims` components (Matryoshka truncation); a model answering
    /// fewer is an error, never zero-padded.
    pub dims: Option<usize>,
    /// Limit for one request.
    pub timeout: Duration,
}

impl std::fmt::Debug for EmbedConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("dims", &self.dims)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl EmbedConfig {
    /// Read the embedding settings through `get` (pass `std::env::var(..).ok()`), a
    /// pure function: `EMBED_BASE_URL` (required: `None` without it), `EMBED_MODEL`
    /// (default `embeddinggemma`), `EMBED_API_KEY` (optional bearer key),
    /// `EMBED_DIMS` (optional truncation), `EMBED_TIMEOUT` (seconds, 1–120, default 10).
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Option<EmbedConfig> {
        let get = |k: &str| get(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let base_url = get("EMBED_BASE_URL")?.trim_end_matches('/').to_string();
        Some(EmbedConfig {
            base_url,
            model: get("EMBED_MODEL").unwrap_or_else(|| DEFAULT_EMBED_MODEL.to_string()),
            api_key: get("EMBED_API_KEY"),
            dims: get("EMBED_DIMS").and_then(|v| v.parse::<usize>().ok()).filter(|d| (1..=65_536).contains(d)),
            timeout: Duration::from_secs(
                get("EMBED_TIMEOUT").and_then(|v| v.parse::<u64>().ok()).unwrap_or(EMBED_TIMEOUT_SECS).clamp(1, 120),
            ),
        })
    }

    /// What stored vectors are keyed by: the model and the truncation. Vectors of
    /// another model (or size) are never mixed in.
    pub fn key(&self) -> String {
        match self.dims {
            Some(d) => format!("{}@{d}", self.model),
            None => self.model.clone(),
        }
    }
}

/// An [`Embedder`] over an OpenAI-compatible `/embeddings` endpoint.
#[derive(Debug, Clone)]
pub struct HttpEmbedder {
    client: JsonClient,
    config: EmbedConfig,
    endpoint: String,
}

impl HttpEmbedder {
    /// A client for this configuration (nothing is contacted yet).
    pub fn new(config: EmbedConfig) -> HttpEmbedder {
        let opts = HttpOptions {
            timeout: config.timeout,
            connect_timeout: Duration::from_secs(2).min(config.timeout),
            max_bytes: 64 * 1024 * 1024,
            ..HttpOptions::default()
        };
        let client = JsonClient::new(opts, config.api_key.clone());
        let endpoint = format!("{}/embeddings", config.base_url);
        HttpEmbedder { client, config, endpoint }
    }

    /// The configuration in force.
    pub fn config(&self) -> &EmbedConfig {
        &self.config
    }

    fn batch(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let body = json!({ "model": self.config.model, "input": texts });
        let answer = self.client.post_json(&self.endpoint, &body).map_err(|e| EmbedError(e.to_string()))?;
        parse_embeddings(&answer, texts.len(), self.config.dims)
    }
}

/// The original's asymmetric prompts (`embeddinggemma`): queries and documents are
/// embedded differently. Documents arrive already as `title: … | text: …`
/// ([`attest_archive::embed::document_text`]).
fn prompt(text: &str, kind: EmbedKind) -> String {
    match kind {
        EmbedKind::Query => format!("task: search result | query: {text}"),
        EmbedKind::Document => text.to_string(),
    }
}

impl Embedder for HttpEmbedder {
    fn embed(&self, texts: &[String], kind: EmbedKind) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(EMBED_BATCH) {
            let prompted: Vec<String> = chunk.iter().map(|t| prompt(t, kind)).collect();
            out.extend(self.batch(&prompted)?);
        }
        if let (Some(a), Some(b)) = (out.first(), out.last())
            && a.len() != b.len()
        {
            return Err(EmbedError(format!(
                "{} answered vectors of {} and {} dimensions in one call",
                self.endpoint,
                a.len(),
                b.len()
            )));
        }
        Ok(out)
    }

    fn describe(&self) -> String {
        format!("{} at {}", self.config.model, self.config.base_url)
    }
}

/// Read an OpenAI-style embeddings answer (`{"data": [{"index": 0, "embedding": […]}, …]}`):
/// exactly `n` vectors, put in `index` order, finite, all of one length (at least
/// `dims` when given, then cut to it), each normalised to unit length.
pub fn parse_embeddings(answer: &Value, n: usize, dims: Option<usize>) -> Result<Vec<Vec<f32>>, EmbedError> {
    let bad = |why: String| Err(EmbedError(format!("unexpected embeddings answer: {why}")));
    let Some(data) = answer.get("data").and_then(Value::as_array) else {
        let msg = answer
            .get("error")
            .map(|e| e.get("message").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| e.to_string()));
        return match msg {
            Some(m) => Err(EmbedError(format!("the server said: {}", clip(&m, 160)))),
            None => bad("no 'data' list".into()),
        };
    };
    if data.len() != n {
        return bad(format!("{} vectors for {n} texts", data.len()));
    }
    let mut slots: Vec<Option<Vec<f32>>> = vec![None; n];
    for (pos, d) in data.iter().enumerate() {
        let idx = d.get("index").and_then(Value::as_u64).map(|i| i as usize).unwrap_or(pos);
        let Some(vals) = d.get("embedding").and_then(Value::as_array) else {
            return bad(format!("entry {pos} has no 'embedding' list"));
        };
        let mut v = Vec::with_capacity(vals.len());
        for x in vals {
            match x.as_f64() {
                Some(f) if f.is_finite() => v.push(f as f32),
                _ => return bad(format!("entry {pos} holds a value that is not a finite number")),
            }
        }
        if idx >= n || slots[idx].is_some() {
            return bad(format!("entry {pos} has index {idx}"));
        }
        slots[idx] = Some(v);
    }
    let mut out: Vec<Vec<f32>> = slots.into_iter().map(|s| s.unwrap_or_default()).collect();
    let len = out.first().map_or(0, Vec::len);
    if len == 0 {
        return bad("empty vectors".into());
    }
    if let Some(other) = out.iter().map(Vec::len).find(|&l| l != len) {
        return bad(format!("vectors of {len} and {other} dimensions"));
    }
    if let Some(d) = dims {
        if len < d {
            return Err(EmbedError(format!(
                "the model answers {len}-dimensional vectors, fewer than EMBED_DIMS={d}; lower EMBED_DIMS or unset it"
            )));
        }
        out.iter_mut().for_each(|v| v.truncate(d));
    }
    for v in &mut out {
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return bad("a zero vector".into());
        }
        v.iter_mut().for_each(|x| *x /= norm);
    }
    Ok(out)
}

/// The embedding service the environment names (`EMBED_BASE_URL`, `EMBED_MODEL`,
/// `EMBED_API_KEY`, `EMBED_DIMS`, `EMBED_TIMEOUT`, read through `get`), or `None` when
/// `EMBED_BASE_URL` is unset.
pub fn embed_service_from_env(get: impl Fn(&str) -> Option<String>) -> Option<EmbedService> {
    let config = EmbedConfig::from_env(get)?;
    let key = config.key();
    Some(EmbedService::new(std::sync::Arc::new(HttpEmbedder::new(config)), key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_needs_a_base_url_and_reads_the_rest() {
        assert_eq!(EmbedConfig::from_env(|_| None), None);
        let env = |k: &str| match k {
            "EMBED_BASE_URL" => Some("http://localhost:11434/v1/".to_string()),
            "EMBED_DIMS" => Some("256".into()),
            "EMBED_TIMEOUT" => Some("999".into()),
            _ => None,
        };
        let c = EmbedConfig::from_env(env).unwrap();
        assert_eq!(c.base_url, "http://localhost:11434/v1");
        assert_eq!(c.model, DEFAULT_EMBED_MODEL);
        assert_eq!(c.dims, Some(256));
        assert_eq!(c.timeout, Duration::from_secs(120));
        assert_eq!(c.key(), "embeddinggemma@256");
        assert!(!format!("{c:?}").contains("secret"));
    }

    #[test]
    fn answers_are_validated_ordered_and_normalised() {
        let a = json!({"data": [{"index": 1, "embedding": [0.0, 2.0]}, {"index": 0, "embedding": [3.0, 4.0]}]});
        let v = parse_embeddings(&a, 2, None).unwrap();
        assert_eq!(v, vec![vec![0.6, 0.8], vec![0.0, 1.0]]);
        let cut = parse_embeddings(&json!({"data": [{"embedding": [3.0, 4.0, 9.0]}]}), 1, Some(2)).unwrap();
        assert_eq!(cut, vec![vec![0.6, 0.8]]);
        for (bad, n, dims, why) in [
            (json!({"data": [{"embedding": [1.0]}]}), 2, None, "1 vectors for 2"),
            (json!({"data": [{"embedding": [1.0]}, {"embedding": [1.0, 2.0]}]}), 2, None, "dimensions"),
            (json!({"data": [{"embedding": [1.0]}]}), 1, Some(4), "fewer than EMBED_DIMS=4"),
            (json!({"data": [{"embedding": ["x"]}]}), 1, None, "finite number"),
            (json!({"data": [{"embedding": [0.0, 0.0]}]}), 1, None, "zero vector"),
            (json!({"error": {"message": "model 'x' not found"}}), 1, None, "model 'x' not found"),
            (json!({"object": "list"}), 1, None, "no 'data'"),
        ] {
            let e = parse_embeddings(&bad, n, dims).unwrap_err();
            assert!(e.0.contains(why), "{why}: {e}");
        }
    }

    #[test]
    fn only_web_addresses() {
        assert!(web_url("https://api.crossref.org/works").is_ok());
        assert!(matches!(web_url("file:///etc/passwd"), Err(HttpError::BadUrl(_))));
        assert!(matches!(web_url("localhost:11434"), Err(HttpError::BadUrl(_))));
    }
}
