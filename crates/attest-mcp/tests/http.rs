//! Streamable HTTP behaviour, against an in-process server on loopback.

mod common;

use std::time::Duration;

use attest_mcp::HttpOptions;
use common::*;
use http_body_util::BodyExt;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const V_OLD: &str = "2025-06-18";
const V_NEW: &str = "2025-11-25";
const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;

#[tokio::test]
async fn an_idle_session_expires_but_one_with_an_open_stream_does_not() {
    let idle = Duration::from_secs(1);
    let server = start(HttpOptions { idle, ..HttpOptions::default() }).await;
    let quiet = session(server.addr, V_OLD, &[]).await;
    let listening = session(server.addr, V_OLD, &[]).await;
    let stream = open(
        server.addr,
        "GET",
        &[("accept", "text/event-stream"), ("mcp-session-id", &listening), ("mcp-protocol-version", V_OLD)],
        "",
    )
    .await;
    assert_eq!(stream.status(), 200);

    // Wait, without touching it, until the quiet session is gone.
    let mut gone = false;
    for _ in 0..20 {
        tokio::time::sleep(idle * 2).await;
        let r = call(server.addr, &quiet, V_OLD, LIST, &[]).await;
        if r.status == 404 {
            gone = true;
            break;
        }
    }
    assert!(gone, "the idle session never expired");
    // The listening session has been idle just as long, with its stream open.
    let r = call(server.addr, &listening, V_OLD, LIST, &[]).await;
    assert_eq!(r.status, 200, "{r:?}");
    assert!(!tool_names(&r).is_empty());
    drop(stream);
}

#[tokio::test]
async fn origins_are_checked_against_the_allow_list() {
    let opts = HttpOptions { origins: vec!["https://app.example.com".into()], ..HttpOptions::default() };
    let server = start(opts).await;
    let init = init_body(V_OLD);
    for (origin, expect) in [
        (None, 200),
        (Some("http://localhost:5173"), 200),
        (Some("http://127.0.0.1"), 200),
        (Some("https://[::1]:9000"), 200),
        (Some("https://app.example.com"), 200),
        (Some("https://app.example.com:8443"), 403),
        (Some("null"), 403),
        (Some("http://evil.example.com"), 403),
        (Some("http://localhost.evil.example.com"), 403),
    ] {
        let mut h = POST_HEADERS.to_vec();
        if let Some(o) = origin {
            h.push(("origin", o));
        }
        let r = send(server.addr, "POST", &h, &init).await;
        assert_eq!(r.status, expect, "origin {origin:?}: {r:?}");
    }
}

#[tokio::test]
async fn any_loopback_address_passes_the_host_check() {
    let server = start_on("127.0.0.2:0", HttpOptions::default()).await;
    let init = init_body(V_OLD);
    let r = send(server.addr, "POST", POST_HEADERS, &init).await;
    assert_eq!(r.status, 200, "{r:?}");
    for host in ["localhost:1234", "[::1]:80", "127.9.9.9"] {
        let mut h = POST_HEADERS.to_vec();
        h.push(("host", host));
        assert_eq!(send(server.addr, "POST", &h, &init).await.status, 200, "{host}");
    }
    let mut h = POST_HEADERS.to_vec();
    h.push(("host", "evil.example.com"));
    assert_eq!(send(server.addr, "POST", &h, &init).await.status, 403);
}

#[tokio::test]
async fn delete_ends_a_session_with_204_then_404() {
    let server = start(HttpOptions::default()).await;
    let sid = session(server.addr, V_OLD, &[]).await;
    let h = [("mcp-session-id", sid.as_str()), ("mcp-protocol-version", V_OLD)];
    let r = send(server.addr, "DELETE", &h, "").await;
    assert_eq!(r.status, 204, "{r:?}");
    let r = send(server.addr, "DELETE", &h, "").await;
    assert_eq!(r.status, 404, "{r:?}");
    assert_eq!(call(server.addr, &sid, V_OLD, LIST, &[]).await.status, 404);
}

#[tokio::test]
async fn bearer_is_case_insensitive_and_401_says_how_to_authenticate() {
    let server = start(HttpOptions { token: Some("s3cret".into()), ..HttpOptions::default() }).await;
    let init = init_body(V_OLD);
    let r = send(server.addr, "POST", POST_HEADERS, &init).await;
    assert_eq!(r.status, 401);
    assert!(r.header("www-authenticate").is_some_and(|v| v.starts_with("Bearer")), "{r:?}");
    let mut h = POST_HEADERS.to_vec();
    h.push(("authorization", "Bearer wrong"));
    let r = send(server.addr, "POST", &h, &init).await;
    assert_eq!(r.status, 401);
    assert!(r.header("www-authenticate").is_some_and(|v| v.starts_with("Bearer")));
    for auth in ["Bearer s3cret", "bearer s3cret", "BEARER  s3cret"] {
        let mut h = POST_HEADERS.to_vec();
        h.push(("authorization", auth));
        assert_eq!(send(server.addr, "POST", &h, &init).await.status, 200, "{auth}");
    }
}

#[tokio::test]
async fn malformed_json_is_a_parse_error_and_bad_call_params_are_invalid_params() {
    let server = start(HttpOptions::default()).await;
    let r = send(server.addr, "POST", POST_HEADERS, "{\"jsonrpc\": \"2.0\", \"id\": 1, ").await;
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.messages()[0]["error"]["code"], -32700);

    let sid = session(server.addr, V_OLD, &[]).await;
    let bad = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":42}}"#;
    let r = call(server.addr, &sid, V_OLD, bad, &[]).await;
    let m = &r.messages()[0];
    assert_eq!(m["id"], 5, "{r:?}");
    assert_eq!(m["error"]["code"], -32602, "{r:?}");
    let bad = r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"feed.list","arguments":[1,2]}}"#;
    let r = call(server.addr, &sid, V_OLD, bad, &[]).await;
    assert_eq!(r.messages()[0]["error"]["code"], -32602, "{r:?}");
    // The session goes on.
    let r = call(server.addr, &sid, V_OLD, LIST, &[]).await;
    assert_eq!(r.status, 200);
}

#[tokio::test]
async fn priming_events_go_only_to_revisions_that_define_them() {
    let server = start(HttpOptions::default()).await;
    let old = session(server.addr, V_OLD, &[]).await;
    let r = call(server.addr, &old, V_OLD, LIST, &[]).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.empty_events(), 0, "{}", r.body);
    assert!(!tool_names(&r).is_empty());

    let new = session(server.addr, V_NEW, &[]).await;
    let r = call(server.addr, &new, V_NEW, LIST, &[]).await;
    assert_eq!(r.status, 200);
    assert!(r.empty_events() >= 1, "{}", r.body);
    assert!(!tool_names(&r).is_empty());
    // The session's event stream opens with one too.
    let mut events = open(
        server.addr,
        "GET",
        &[("accept", "text/event-stream"), ("mcp-session-id", &new), ("mcp-protocol-version", V_NEW)],
        "",
    )
    .await
    .into_body();
    let mut first = String::new();
    while !first.contains("\n\n") {
        let frame = tokio::time::timeout(GUARD, events.frame()).await.expect("an event in time");
        let Some(Ok(frame)) = frame else { break };
        if let Some(d) = frame.data_ref() {
            first.push_str(&String::from_utf8_lossy(d));
        }
    }
    assert!(first.contains("retry:"), "{first}");
    assert!(!first.contains('{'), "the first event carried a message: {first}");
}

#[tokio::test]
async fn discover_is_declined_so_clients_use_initialize_and_disclosure_works() {
    let server = start(HttpOptions::default()).await;
    let discover = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let r = send(server.addr, "POST", POST_HEADERS, discover).await;
    assert_eq!(r.messages()[0]["error"]["code"], -32601, "{r:?}");
    let stateless = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let r = send(server.addr, "POST", POST_HEADERS, stateless).await;
    assert_eq!(r.status, 400);
    assert_eq!(r.messages()[0]["error"]["code"], -32022);
    assert_eq!(r.messages()[0]["error"]["data"]["supported"][3], "2025-11-25");

    for version in ["2025-03-26", V_OLD, V_NEW, "2026-07-28"] {
        let sid = session(server.addr, version, &[]).await;
        let v = if version == "2026-07-28" { V_NEW } else { version };
        let before = tool_names(&call(server.addr, &sid, v, LIST, &[]).await);
        let mut events = open(
            server.addr,
            "GET",
            &[("accept", "text/event-stream"), ("mcp-session-id", &sid), ("mcp-protocol-version", v)],
            "",
        )
        .await
        .into_body();
        assert_eq!(before, ["feed.ask", "feed.tools"], "{version}");
        let r = call(
            server.addr,
            &sid,
            v,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"feed.tools","arguments":{}}}"#,
            &[],
        )
        .await;
        // list_changed arrives on the call's stream or on the session's event stream.
        let mut seen = r.body.contains("notifications/tools/list_changed");
        let mut text = String::new();
        while !seen {
            let frame = tokio::time::timeout(GUARD, events.frame()).await.expect("an event in time");
            let Some(Ok(frame)) = frame else { break };
            if let Some(d) = frame.data_ref() {
                text.push_str(&String::from_utf8_lossy(d));
            }
            seen = text.contains("notifications/tools/list_changed");
        }
        assert!(seen, "{version}: no list_changed");
        let after = tool_names(&call(server.addr, &sid, v, LIST, &[]).await);
        assert_eq!(after.len(), 4, "{version}: {after:?}");
    }
}

#[tokio::test]
async fn slow_header_senders_are_disconnected() {
    let opts = HttpOptions { header_timeout: Duration::from_millis(200), ..HttpOptions::default() };
    let server = start(opts).await;
    let mut s = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").await.unwrap();
    let mut buf = [0u8; 256];
    // The server closes the connection (it may first answer 408); it never waits forever.
    let closed = tokio::time::timeout(GUARD, async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => continue,
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "a connection that never finished its headers stayed open");
    // Real clients are still served.
    assert_eq!(send(server.addr, "POST", POST_HEADERS, &init_body(V_OLD)).await.status, 200);
}

#[tokio::test]
async fn connections_beyond_the_limit_are_closed() {
    let opts = HttpOptions { max_connections: 2, header_timeout: Duration::from_secs(3600), ..HttpOptions::default() };
    let server = start(opts).await;
    let _a = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let _b = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let mut c = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let mut buf = [0u8; 16];
    let r = tokio::time::timeout(GUARD, c.read(&mut buf)).await.expect("closed in time");
    assert!(matches!(r, Ok(0) | Err(_)), "{r:?}");
}

#[tokio::test]
async fn shutdown_lets_the_call_in_flight_finish() {
    let mut server = start(HttpOptions::default()).await;
    let sid = session(server.addr, V_OLD, &[]).await;
    let addr = server.addr;
    let sid2 = sid.clone();
    let started = server.slow.started.clone();
    let notified = started.notified();
    let in_flight = tokio::spawn(async move {
        call(
            addr,
            &sid2,
            V_OLD,
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"feed.slow","arguments":{}}}"#,
            &[],
        )
        .await
    });
    tokio::time::timeout(GUARD, notified).await.expect("the slow call started");
    server.stop.take().unwrap().send(()).unwrap();
    // New calls are refused while the server drains.
    let mut refused = false;
    for _ in 0..2000 {
        match tokio::net::TcpStream::connect(addr).await {
            Err(_) => {
                refused = true;
                break;
            }
            Ok(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
    assert!(refused, "the listener stayed open after shutdown");
    server.slow.release.add_permits(1);
    let r = tokio::time::timeout(GUARD, in_flight).await.expect("in time").unwrap();
    let msgs = r.messages();
    let result = msgs.iter().find(|m| m["id"] == 9).expect("the call was answered");
    assert_eq!(result["result"]["structuredContent"]["answer"], json!("finished"), "{msgs:?}");
    tokio::time::timeout(GUARD, server.done).await.expect("the server stopped").unwrap().unwrap();
}

#[tokio::test]
async fn a_call_in_flight_keeps_its_session_alive() {
    let idle = Duration::from_millis(500);
    let server = start(HttpOptions { idle, ..HttpOptions::default() }).await;
    let sid = session(server.addr, V_OLD, &[]).await;
    let (addr, sid2) = (server.addr, sid.clone());
    let notified = server.slow.started.notified();
    let in_flight = tokio::spawn(async move {
        call(addr, &sid2, V_OLD, r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"feed.slow"}}"#, &[])
            .await
    });
    tokio::time::timeout(GUARD, notified).await.expect("the slow call started");
    // Many idle periods pass while the call runs.
    tokio::time::sleep(idle * 4).await;
    server.slow.release.add_permits(1);
    let r = tokio::time::timeout(GUARD, in_flight).await.expect("in time").unwrap();
    // Had the session been closed mid-call, its stream would have ended unanswered.
    assert!(r.messages().iter().any(|m| m["id"] == 3 && m["result"].is_object()), "{r:?}");
}
