//! Reading a feed's bytes from the web or the local disk, politely and within limits.
//!
//! Only `http://`, `https://`, `file://` and plain local paths are accepted. Web reads
//! (cargo feature `fetch`, on by default; through `ureq` with rustls) send the
//! validators of the last answer (`If-None-Match`, `If-Modified-Since`) so an
//! unchanged feed costs a 304 and nothing else, follow at most
//! [`FetchOptions::max_redirects`] redirects, give up after
//! [`FetchOptions::timeout`] end to end (a server that never finishes sending is cut
//! off there), and refuse a body over [`FetchOptions::max_bytes`] without reading past
//! the cap. Local files follow the same size cap, and their modification time plays
//! the part of `Last-Modified`.

use std::io::Read;
use std::time::Duration;

pub use attest_archive::address::{FetchError, Location, Validators, locate};

/// Limits and identity for fetching.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// End-to-end limit for one fetch, redirects and body included.
    pub timeout: Duration,
    /// Limit for establishing a connection.
    pub connect_timeout: Duration,
    /// Largest body accepted, in bytes (after decompression).
    pub max_bytes: u64,
    /// Most redirects followed.
    pub max_redirects: u32,
    /// Whether `file://` urls and local paths may be read.
    pub allow_local: bool,
    /// The User-Agent sent.
    pub user_agent: String,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_bytes: 10 * 1024 * 1024,
            max_redirects: 5,
            allow_local: true,
            user_agent: format!("attest-feed/{} (+local research feed reader)", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// What a fetch found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// The source says nothing changed since the validators were issued.
    NotModified,
    /// A full answer.
    Body(Body),
}

/// A full answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// The bytes, undecoded (feed-rs reads the encoding from the XML prolog).
    pub bytes: Vec<u8>,
    /// Validators to send next time.
    pub validators: Validators,
}

/// A reusable fetcher: options plus (with the `fetch` feature) one HTTP agent whose
/// connections are reused across feeds. Cheap to clone.
#[derive(Clone)]
pub struct Fetcher {
    opts: FetchOptions,
    #[cfg(feature = "fetch")]
    agent: ureq::Agent,
}

impl std::fmt::Debug for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fetcher").field("opts", &self.opts).finish()
    }
}

impl Fetcher {
    /// A fetcher with these limits.
    pub fn new(opts: FetchOptions) -> Fetcher {
        #[cfg(feature = "fetch")]
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(opts.timeout))
            .timeout_connect(Some(opts.connect_timeout))
            .max_redirects(opts.max_redirects)
            .http_status_as_error(false)
            .user_agent(opts.user_agent.as_str())
            .build()
            .into();
        Fetcher {
            #[cfg(feature = "fetch")]
            agent,
            opts,
        }
    }

    /// The limits in force.
    pub fn options(&self) -> &FetchOptions {
        &self.opts
    }

    /// Fetch `url`, blocking the calling thread. Use [`Fetcher::fetch`] from async code.
    pub fn fetch_blocking(&self, url: &str, validators: &Validators) -> Result<Fetched, FetchError> {
        match locate(url, self.opts.allow_local)? {
            Location::File(path) => self.read_file(url, &path, validators),
            Location::Web(web) => self.get(url, &web, validators),
        }
    }

    /// Fetch `url` on a blocking thread.
    pub async fn fetch(&self, url: &str, validators: &Validators) -> Result<Fetched, FetchError> {
        let me = self.clone();
        let (u, v) = (url.to_string(), validators.clone());
        match tokio::task::spawn_blocking(move || me.fetch_blocking(&u, &v)).await {
            Ok(r) => r,
            Err(e) => Err(FetchError::Transport { url: url.into(), reason: format!("fetch task failed: {e}") }),
        }
    }

    fn too_large(&self, url: &str) -> FetchError {
        FetchError::TooLarge { url: url.into(), limit_mb: self.opts.max_bytes.div_ceil(1024 * 1024) }
    }

    fn read_file(&self, url: &str, path: &std::path::Path, validators: &Validators) -> Result<Fetched, FetchError> {
        let file_err = |e: std::io::Error| {
            let mut reason = e.to_string();
            if e.kind() == std::io::ErrorKind::NotFound && !url.contains("://") && !url.starts_with(['/', '.']) {
                reason.push_str(" (for a web address, start it with https://)");
            }
            FetchError::File { url: url.into(), reason }
        };
        let meta = std::fs::metadata(path).map_err(file_err)?;
        if !meta.is_file() {
            return Err(FetchError::File { url: url.into(), reason: "not a regular file".into() });
        }
        if meta.len() > self.opts.max_bytes {
            return Err(self.too_large(url));
        }
        let mtime = meta
            .modified()
            .ok()
            .map(|t| crate::model::stamp(time::OffsetDateTime::from(t)))
            .map(|s| format!("mtime:{s}:{}", meta.len()));
        if mtime.is_some() && mtime == validators.last_modified {
            return Ok(Fetched::NotModified);
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        std::fs::File::open(path)
            .and_then(|f| f.take(self.opts.max_bytes + 1).read_to_end(&mut bytes))
            .map_err(file_err)?;
        if bytes.len() as u64 > self.opts.max_bytes {
            return Err(self.too_large(url));
        }
        Ok(Fetched::Body(Body { bytes, validators: Validators { etag: None, last_modified: mtime } }))
    }

    #[cfg(not(feature = "fetch"))]
    fn get(&self, url: &str, _web: &str, _validators: &Validators) -> Result<Fetched, FetchError> {
        Err(FetchError::NoWeb(url.into()))
    }

    #[cfg(feature = "fetch")]
    fn get(&self, url: &str, web: &str, validators: &Validators) -> Result<Fetched, FetchError> {
        let mut req = self.agent.get(web);
        if let Some(e) = &validators.etag {
            req = req.header("If-None-Match", e.as_str());
        }
        if let Some(m) = &validators.last_modified {
            req = req.header("If-Modified-Since", m.as_str());
        }
        let mut resp = req.call().map_err(|e| self.map_err(url, e))?;
        let status = resp.status().as_u16();
        if status == 304 {
            return Ok(Fetched::NotModified);
        }
        if !(200..300).contains(&status) {
            return Err(FetchError::Status { url: url.into(), status });
        }
        let header = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        let got = Validators { etag: header("etag"), last_modified: header("last-modified") };
        let declared = header("content-length").and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|n| n > self.opts.max_bytes) {
            return Err(self.too_large(url));
        }
        let bytes =
            resp.body_mut().with_config().limit(self.opts.max_bytes).read_to_vec().map_err(|e| self.map_err(url, e))?;
        Ok(Fetched::Body(Body { bytes, validators: got }))
    }

    #[cfg(feature = "fetch")]
    fn map_err(&self, url: &str, e: ureq::Error) -> FetchError {
        let timeout = || FetchError::Timeout { url: url.into(), secs: self.opts.timeout.as_secs().max(1) };
        match e {
            ureq::Error::Timeout(_) => timeout(),
            ureq::Error::BodyExceedsLimit(_) => self.too_large(url),
            ureq::Error::TooManyRedirects => {
                FetchError::TooManyRedirects { url: url.into(), limit: self.opts.max_redirects }
            }
            ureq::Error::Io(io)
                if matches!(io.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock) =>
            {
                timeout()
            }
            ureq::Error::StatusCode(status) => FetchError::Status { url: url.into(), status },
            other => FetchError::Transport { url: url.into(), reason: other.to_string() },
        }
    }
}

impl Default for Fetcher {
    fn default() -> Self {
        Fetcher::new(FetchOptions::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_addresses() {
        assert_eq!(
            locate("https://example.org/feed", false).unwrap(),
            Location::Web("https://example.org/feed".into())
        );
        assert_eq!(locate("file:///tmp/a.xml", true).unwrap(), Location::File("/tmp/a.xml".into()));
        assert_eq!(locate("./a.xml", true).unwrap(), Location::File("./a.xml".into()));
        assert!(matches!(locate("ftp://example.org/f", true), Err(FetchError::Unsupported { .. })));
        assert!(matches!(locate("javascript:alert(1)", true), Err(FetchError::Unsupported { .. })));
        assert!(matches!(locate("/tmp/a.xml", false), Err(FetchError::LocalNotAllowed(_))));
    }

    #[test]
    fn local_files_are_capped_and_conditional() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.xml");
        std::fs::write(&p, vec![b'x'; 2048]).unwrap();
        let f = Fetcher::new(FetchOptions { max_bytes: 1024, ..FetchOptions::default() });
        let err = f.fetch_blocking(p.to_str().unwrap(), &Validators::default()).unwrap_err();
        assert!(err.to_string().contains("limit"), "{err}");
        let f = Fetcher::default();
        let Fetched::Body(b) = f.fetch_blocking(p.to_str().unwrap(), &Validators::default()).unwrap() else {
            panic!("expected a body")
        };
        assert_eq!(b.bytes.len(), 2048);
        assert_eq!(f.fetch_blocking(p.to_str().unwrap(), &b.validators).unwrap(), Fetched::NotModified);
        let missing = f.fetch_blocking("example.org/feed.xml", &Validators::default()).unwrap_err();
        assert!(missing.to_string().contains("https://"), "{missing}");
    }
}
