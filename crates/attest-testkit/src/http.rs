//! A loopback HTTP/1.1 server for tests: each connection is read as one request and
//! answered by a function, on its own thread, then closed. Enough for a feed fetcher,
//! an embedding or chat endpoint, or a research API, with no network and no
//! dependency; not a web server.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the handler sees it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path and query, as sent (`/v1/embeddings`, `/feed.xml?x=1`).
    pub target: String,
    /// Header names lower-cased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body (read up to `Content-Length`).
    pub body: Vec<u8>,
}

impl Request {
    /// A header's value, by lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// How to answer.
pub enum Reply {
    /// A whole answer: status line text (`200 OK`), content type, body.
    Full(&'static str, &'static str, Vec<u8>),
    /// Write whatever you like to the socket (endless bodies, stalls, lies about
    /// length).
    Raw(Box<dyn FnOnce(&mut TcpStream) + Send>),
}

impl Reply {
    /// `200 OK` with a JSON body.
    pub fn json(value: &serde_json::Value) -> Reply {
        Reply::Full("200 OK", "application/json", value.to_string().into_bytes())
    }

    /// `200 OK` with `content_type` and `body`.
    pub fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Full("200 OK", content_type, body.into())
    }

    /// A status with a short plain-text body.
    pub fn status(status: &'static str) -> Reply {
        Reply::Full(status, "text/plain", status.as_bytes().to_vec())
    }
}

/// A running server. It lives as long as the test process; requests are recorded.
pub struct Server {
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub url: String,
    seen: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// The requests answered so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Serve `handler` on a fresh loopback port.
pub fn serve<F>(handler: F) -> Server
where
    F: Fn(&Request) -> Reply + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let url = format!("http://{}", listener.local_addr().expect("local address"));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let handler = Arc::new(handler);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (handler, log) = (Arc::clone(&handler), Arc::clone(&log));
            std::thread::spawn(move || answer(stream, &*handler, &log));
        }
    });
    Server { url, seen }
}

/// A `http://127.0.0.1:PORT` address where nothing listens (bound, then released).
pub fn closed_port_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    format!("http://{}", listener.local_addr().expect("local address"))
}

fn answer(stream: TcpStream, handler: &(dyn Fn(&Request) -> Reply + Send + Sync), log: &Mutex<Vec<Request>>) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let Ok(read_half) = stream.try_clone() else { return };
    let mut reader = BufReader::new(read_half);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("GET").to_string();
    let target = parts.next().unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let request = Request { method, target, headers, body };
    let reply = handler(&request);
    log.lock().unwrap_or_else(|e| e.into_inner()).push(request);
    let mut out = stream;
    match reply {
        Reply::Full(status, content_type, body) => {
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = out.write_all(head.as_bytes()).and_then(|_| out.write_all(&body));
        }
        Reply::Raw(write) => write(&mut out),
    }
}
