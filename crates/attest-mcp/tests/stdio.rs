//! The stdio transport answers input it cannot decode instead of dropping it.

mod common;

use std::collections::HashMap;

use common::GUARD;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test]
async fn undecodable_lines_get_errors_when_their_id_is_known() {
    let (served, _) = common::served();
    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(attest_mcp::serve_io(served, server_in, server_out));

    let writer = tokio::spawn(async move {
        let mut lines: Vec<Vec<u8>> = vec![
            common::init_body("2025-06-18").into_bytes(),
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"feed.ask","arguments":{{"q":{}{}}}}}}}"#,
                "[".repeat(400),
                "]".repeat(400)
            )
            .into_bytes(),
        ];
        let mut bad_utf8 = br#"{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"feed."#.to_vec();
        bad_utf8.extend_from_slice(&[0xc3, 0x28]);
        bad_utf8.extend_from_slice(br#""}}"#);
        lines.push(bad_utf8);
        lines.push(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"\ud800"}}"#.to_vec());
        lines.push(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":["feed.ask"]}}"#.to_vec());
        lines.push(b"hello, no id here".to_vec());
        let mut long =
            br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"feed.ask","arguments":{"q":""#.to_vec();
        long.resize(long.len() + attest_mcp::STDIO_MAX_LINE + 10, b'a');
        long.extend_from_slice(br#""}}}"#);
        lines.push(long);
        lines.push(br#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#.to_vec());
        for l in lines {
            to_server.write_all(&l).await.unwrap();
            to_server.write_all(b"\n").await.unwrap();
        }
        to_server
    });

    let mut replies: HashMap<String, Value> = HashMap::new();
    let mut reader = BufReader::new(from_server).lines();
    while !["0", "1", "\"u\"", "3", "4", "5", "6"].iter().all(|k| replies.contains_key(*k)) {
        let line = tokio::time::timeout(GUARD, reader.next_line()).await.expect("a reply in time").unwrap();
        let Some(line) = line else { break };
        let v: Value = serde_json::from_str(&line).unwrap();
        replies.insert(v["id"].to_string(), v);
    }
    let code = |k: &str| replies.get(k).map(|v| v["error"]["code"].clone()).unwrap_or(Value::Null);
    assert!(replies["0"]["result"].is_object());
    assert_eq!(code("1"), -32700);
    assert_eq!(code("\"u\""), -32700);
    assert_eq!(code("3"), -32700);
    assert_eq!(code("4"), -32602);
    assert_eq!(code("5"), -32600);
    assert!(replies["6"]["result"].is_object(), "{:?}", replies["6"]);
    assert!(!replies.contains_key("null"), "a reply with no id: {:?}", replies.get("null"));

    drop(writer.await.unwrap());
    tokio::time::timeout(GUARD, server).await.expect("the server ends at end of input").unwrap().unwrap();
}
