//! Who may use the pages, and which writes are genuine.
//!
//! - **Address.** [`crate::serve`] refuses a non-loopback address unless a token is
//!   set (`ATTEST_HTTP_TOKEN`), as `attest serve --http` does.
//! - **Token.** With a token, every request must carry it: `Authorization: Bearer …`,
//!   or the `attest_token` cookie a browser gets by opening any page once with
//!   `?token=…` (the address is then reloaded without it).
//! - **Host.** On a loopback address without a token, the `Host` header must name a
//!   loopback host, so a page on another site cannot reach this server through DNS
//!   rebinding.
//! - **Writes.** Every write is a POST that must come from this origin (its `Origin`,
//!   or else its `Referer`, names this server's host) and carry the session's CSRF
//!   token: a keyed hash of the session cookie under a secret drawn when the server
//!   started. Anything else is answered 403 before anything is read or written.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

use crate::AppState;

/// The session cookie: random, HttpOnly, SameSite=Strict.
pub const SESSION_COOKIE: &str = "attest_session";
/// The cookie holding the token a browser presented once with `?token=`.
pub const TOKEN_COOKIE: &str = "attest_token";
/// The cookie remembering the last reader a browser opened.
pub const READER_COOKIE: &str = "attest_reader";

/// The server's secrets.
pub struct Gate {
    /// Required on every request when set.
    pub token: Option<String>,
    /// Whether `Host` must be a loopback name.
    pub check_host: bool,
    /// The key of the CSRF hashes.
    secret: [u8; 32],
}

impl Gate {
    /// A gate with a fresh secret.
    pub fn new(token: Option<String>, check_host: bool) -> anyhow::Result<Gate> {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).map_err(|e| anyhow::anyhow!("no random source for the CSRF secret: {e}"))?;
        Ok(Gate { token, check_host, secret })
    }

    /// The CSRF token of a session.
    pub fn csrf(&self, session: &str) -> String {
        blake3::keyed_hash(&self.secret, session.as_bytes()).to_hex().to_string()
    }

    /// Whether `given` is the CSRF token of `session`.
    pub fn csrf_ok(&self, session: &str, given: &str) -> bool {
        constant_time_eq(self.csrf(session).as_bytes(), given.as_bytes())
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A random session id.
fn new_session() -> String {
    let mut b = [0u8; 16];
    // A failed random source leaves zeros; the keyed hash still depends on the secret,
    // which `Gate::new` refused to start without.
    let _ = getrandom::fill(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A cookie's value from the request headers.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
}

/// The request's session id (set by [`gate`] when the browser had none).
#[derive(Debug, Clone)]
pub struct Session(pub String);

/// `localhost` or a loopback address.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(v4)) => v4.is_loopback(),
        Ok(std::net::IpAddr::V6(v6)) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
        Err(_) => false,
    }
}

fn plain(status: StatusCode, body: &'static str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

/// Token, Host, and the session cookie, for every request.
pub async fn gate(State(app): State<AppState>, mut req: Request, next: Next) -> Response {
    let g = &app.gate;
    if let Some(token) = &g.token {
        let bearer = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(s, _)| s.eq_ignore_ascii_case("bearer"))
            .map(|(_, c)| c.trim().to_string());
        let from_cookie = cookie(req.headers(), TOKEN_COOKIE).map(str::to_string);
        let from_query =
            req.uri().query().and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("token=")).map(str::to_string));
        let ok = |t: &Option<String>| t.as_deref().is_some_and(|t| constant_time_eq(t.as_bytes(), token.as_bytes()));
        if ok(&from_query) && req.method() == axum::http::Method::GET {
            // Remember it in a cookie and reload without it in the address bar.
            let rest: Vec<&str> =
                req.uri().query().unwrap_or("").split('&').filter(|kv| !kv.starts_with("token=")).collect();
            let target = if rest.iter().all(|s| s.is_empty()) {
                req.uri().path().to_string()
            } else {
                format!("{}?{}", req.uri().path(), rest.join("&"))
            };
            let mut r = Redirect::to(&target).into_response();
            if let Ok(v) = HeaderValue::from_str(&format!("{TOKEN_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"))
            {
                r.headers_mut().append(header::SET_COOKIE, v);
            }
            return r;
        }
        if !(ok(&bearer) || ok(&from_cookie)) {
            return plain(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: open this page once with ?token=<ATTEST_HTTP_TOKEN>, or send Authorization: Bearer <ATTEST_HTTP_TOKEN>",
            );
        }
    }
    if g.check_host {
        let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).map(host_of);
        match host {
            Some(h) if is_loopback_host(&h) => {}
            Some(_) => return plain(StatusCode::FORBIDDEN, "Forbidden: Host header is not a loopback name"),
            None => return plain(StatusCode::BAD_REQUEST, "Bad Request: missing Host header"),
        }
    }
    let existing = cookie(req.headers(), SESSION_COOKIE)
        .filter(|s| s.len() == 32 && s.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_string);
    let fresh = existing.is_none();
    let session = existing.unwrap_or_else(new_session);
    req.extensions_mut().insert(Session(session.clone()));
    let mut resp = next.run(req).await;
    if fresh
        && let Ok(v) = HeaderValue::from_str(&format!("{SESSION_COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/"))
    {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    resp.headers_mut().insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    resp.headers_mut().insert("x-frame-options", HeaderValue::from_static("DENY"));
    resp.headers_mut().insert("referrer-policy", HeaderValue::from_static("same-origin"));
    resp
}

/// The host part of a `Host` header or an origin's authority (no port, no brackets).
fn host_of(authority: &str) -> String {
    let a = authority.trim();
    if let Some(rest) = a.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("").to_ascii_lowercase();
    }
    a.rsplit_once(':').filter(|(_, p)| p.bytes().all(|b| b.is_ascii_digit())).map_or(a, |(h, _)| h).to_ascii_lowercase()
}

/// Why a write is refused, or `None` when it may go ahead: it must come from this
/// origin and carry the session's CSRF token.
pub fn refuse_write(g: &Gate, headers: &HeaderMap, session: &Session, csrf: Option<&str>) -> Option<&'static str> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).map(|h| h.trim().to_ascii_lowercase());
    let same = |url: &str| -> bool {
        let Some(rest) = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://")) else { return false };
        let authority = rest.split('/').next().unwrap_or("").to_ascii_lowercase();
        host.as_deref() == Some(authority.as_str())
    };
    let origin = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok());
    let referer = headers.get(header::REFERER).and_then(|v| v.to_str().ok());
    match (origin, referer) {
        (Some(o), _) if !same(o) => {
            return Some("This form was sent from another site (its Origin is not this server).");
        }
        (None, Some(r)) if !same(r) => {
            return Some("This form was sent from another site (its Referer is not this server).");
        }
        _ => {}
    }
    match csrf {
        Some(t) if g.csrf_ok(&session.0, t) => None,
        Some(_) => {
            Some("The form's security token does not match this browser session: reload the page and try again.")
        }
        None => Some("The form carries no security token: reload the page and use its buttons."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn a_write_must_be_same_origin_and_carry_the_sessions_token() {
        let g = Gate::new(None, true).unwrap();
        let s = Session("0123456789abcdef0123456789abcdef".into());
        let t = g.csrf(&s.0);
        let here = [("host", "127.0.0.1:8899"), ("origin", "http://127.0.0.1:8899")];
        assert_eq!(refuse_write(&g, &headers(&here), &s, Some(&t)), None);
        // No Origin and no Referer (a script, not a browser): the token alone decides.
        assert_eq!(refuse_write(&g, &headers(&[("host", "127.0.0.1:8899")]), &s, Some(&t)), None);
        type Case<'a> = (&'a [(&'static str, &'a str)], Option<&'a str>);
        let cases: [Case; 5] = [
            (&[("host", "127.0.0.1:8899"), ("origin", "http://evil.example")], Some(&t)),
            (&[("host", "127.0.0.1:8899"), ("origin", "http://127.0.0.1:9000")], Some(&t)),
            (&[("host", "127.0.0.1:8899"), ("origin", "null")], Some(&t)),
            (&[("host", "127.0.0.1:8899"), ("referer", "https://evil.example/page")], Some(&t)),
            (&here, None),
        ];
        for (h, token) in cases {
            assert!(refuse_write(&g, &headers(h), &s, token).is_some(), "{h:?} {token:?}");
        }
        let other = Session("ffffffffffffffffffffffffffffffff".into());
        assert!(refuse_write(&g, &headers(&here), &other, Some(&t)).is_some());
        // Another server (another secret) gives the same session another token.
        assert_ne!(Gate::new(None, true).unwrap().csrf(&s.0), t);
    }

    #[test]
    fn hosts_and_cookies_are_read_as_browsers_send_them() {
        assert_eq!(host_of("127.0.0.1:8899"), "127.0.0.1");
        assert_eq!(host_of("[::1]:8899"), "::1");
        assert_eq!(host_of("LocalHost"), "localhost");
        assert!(is_loopback_host("localhost") && is_loopback_host("127.8.0.1") && is_loopback_host("::1"));
        assert!(!is_loopback_host("evil.example") && !is_loopback_host("10.0.0.1"));
        let h = headers(&[("cookie", "a=1; attest_session=abc ; attest_reader=bo")]);
        assert_eq!(cookie(&h, SESSION_COOKIE), Some("abc"));
        assert_eq!(cookie(&h, READER_COOKIE), Some("bo"));
        assert_eq!(cookie(&h, "missing"), None);
    }
}
