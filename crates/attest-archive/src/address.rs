//! Feed addresses as the archive keeps them: where an address points ([`locate`]),
//! the validators of the last answer, and why reading one failed ([`FetchError`]).
//! The reading itself (HTTP, files, limits) is the feed crate's `fetch`; the archive
//! needs only to classify and normalise the addresses it stores.

use std::path::PathBuf;

/// The validators of the last full answer, sent back to ask "has it changed?".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    /// The ETag the server gave.
    pub etag: Option<String>,
    /// The Last-Modified the server gave (or a local file's modification time).
    pub last_modified: Option<String>,
}

/// Where a feed address points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A web address (http or https).
    Web(String),
    /// A file on this machine.
    File(PathBuf),
}

/// Why a fetch failed. Each message names the address and what to do.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// A scheme other than http(s) or file.
    #[error("'{url}' uses {scheme}: only http(s) addresses and local files can be read")]
    Unsupported {
        /// The address.
        url: String,
        /// Its scheme.
        scheme: String,
    },
    /// Local files are not allowed in this context.
    #[error("'{0}' is a local file, and reading local files is turned off here; give an http(s) address")]
    LocalNotAllowed(String),
    /// The web is not compiled in.
    #[error("'{0}' is a web address, but this build reads only local files (built without the `fetch` feature)")]
    NoWeb(String),
    /// A local file could not be read.
    #[error("cannot read '{url}': {reason}")]
    File {
        /// The address.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The body is larger than the cap.
    #[error("'{url}' is larger than the {limit_mb} MB limit for one feed; refusing it (nothing was stored)")]
    TooLarge {
        /// The address.
        url: String,
        /// The cap in megabytes.
        limit_mb: u64,
    },
    /// The fetch took longer than the timeout.
    #[error("'{url}' did not finish within {secs} s; the server may be down or sending endlessly")]
    Timeout {
        /// The address.
        url: String,
        /// The limit in seconds.
        secs: u64,
    },
    /// A non-success HTTP status.
    #[error("'{url}' answered HTTP {status}")]
    Status {
        /// The address.
        url: String,
        /// The status code.
        status: u16,
    },
    /// Too many redirects.
    #[error("'{url}' redirected more than {limit} times; giving up")]
    TooManyRedirects {
        /// The address.
        url: String,
        /// The limit.
        limit: u32,
    },
    /// Connection-level failure (DNS, refused, TLS, protocol).
    #[error("cannot fetch '{url}': {reason}")]
    Transport {
        /// The address.
        url: String,
        /// What went wrong.
        reason: String,
    },
}

/// Classify a feed address. Web addresses must be http(s); `file://` urls and plain
/// paths are local files (refused unless `allow_local`).
pub fn locate(url: &str, allow_local: bool) -> Result<Location, FetchError> {
    let trimmed = url.trim();
    let local =
        |p: PathBuf| if allow_local { Ok(Location::File(p)) } else { Err(FetchError::LocalNotAllowed(url.into())) };
    match url::Url::parse(trimmed) {
        Ok(u) => match u.scheme() {
            "http" | "https" => Ok(Location::Web(u.to_string())),
            "file" => match u.to_file_path() {
                Ok(p) => local(p),
                Err(()) => Err(FetchError::File { url: url.into(), reason: "not a local file path".into() }),
            },
            // A one-letter "scheme" is a Windows drive letter.
            s if s.len() == 1 => local(PathBuf::from(trimmed)),
            s => Err(FetchError::Unsupported { url: url.into(), scheme: s.to_string() }),
        },
        Err(_) => local(PathBuf::from(trimmed)),
    }
}
