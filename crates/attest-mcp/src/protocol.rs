//! Checks on an incoming JSON-RPC message before rmcp sees it, so that anything
//! rmcp would drop, misreport or answer with the wrong code gets a proper JSON-RPC
//! error instead: -32700 for bytes that are not JSON, -32600 for JSON that is not a
//! JSON-RPC message, -32602 for a known method with unusable params.

use rmcp::model::ClientJsonRpcMessage;
use serde_json::{Value, json};

/// The revisions served over Streamable HTTP (see specs/mcp.md, "Protocol versions").
pub const HTTP_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The first revision without `initialize` (stateless over HTTP).
const STATELESS_SINCE: &str = "2026-07-28";
/// JSON-RPC: the bytes are not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the JSON is not a valid request.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the params do not fit the method.
pub const INVALID_PARAMS: i64 = -32602;
/// MCP: the requested protocol revision is not supported.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// Where a message arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// One process per client: every revision works.
    Stdio,
    /// Streamable HTTP: revisions up to 2025-11-25 only.
    Http,
}

/// A message refused before it reached rmcp, and the error to answer with.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    /// The request's id, or null when none could be recovered.
    pub id: Value,
    /// The JSON-RPC error code.
    pub code: i64,
    /// What was wrong.
    pub message: String,
    /// Extra data for the client.
    pub data: Option<Value>,
}

impl Rejection {
    fn new(id: Value, code: i64, message: impl Into<String>) -> Rejection {
        Rejection { id, code, message: message.into(), data: None }
    }

    /// The JSON-RPC error response.
    pub fn to_json(&self) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(d) = &self.data {
            error["data"] = d.clone();
        }
        json!({"jsonrpc": "2.0", "id": self.id, "error": error})
    }

    /// The HTTP status to send it with: 400 when the message itself is malformed,
    /// 200 when it is a well-formed request the server answers with an error.
    pub fn http_status(&self) -> axum::http::StatusCode {
        match self.code {
            PARSE_ERROR | INVALID_REQUEST | UNSUPPORTED_PROTOCOL_VERSION => axum::http::StatusCode::BAD_REQUEST,
            _ => axum::http::StatusCode::OK,
        }
    }
}

fn is_id(v: &Value) -> bool {
    v.is_string() || v.is_i64() || v.is_u64()
}

/// Check one message (the bytes of a POST body or a stdio line).
pub fn check(bytes: &[u8], transport: Transport) -> Result<(), Rejection> {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            let id = recover_id(bytes).unwrap_or(Value::Null);
            return Err(Rejection::new(id, PARSE_ERROR, format!("Parse error: {e}")));
        }
    };
    check_value(&value, transport)
}

/// Check one decoded message.
pub fn check_value(value: &Value, transport: Transport) -> Result<(), Rejection> {
    let Some(obj) = value.as_object() else {
        return Err(Rejection::new(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: expected one JSON-RPC message object (batches are not supported)",
        ));
    };
    let id = obj.get("id").filter(|v| is_id(v)).cloned();
    let reply_id = id.clone().unwrap_or(Value::Null);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Rejection::new(reply_id, INVALID_REQUEST, "Invalid Request: \"jsonrpc\" must be \"2.0\""));
    }
    let method = obj.get("method").and_then(Value::as_str);
    if obj.contains_key("id") && id.is_none() {
        return Err(Rejection::new(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: \"id\" must be a string or an integer",
        ));
    }
    if let (Some(method), Some(id)) = (method, &id) {
        if transport == Transport::Http {
            if method == "server/discover" {
                return Err(Rejection::new(
                    id.clone(),
                    METHOD_NOT_FOUND,
                    "Method not found: server/discover. Over HTTP this server speaks MCP revisions up to 2025-11-25; start with initialize.",
                ));
            }
            if let Some(v) = obj
                .get("params")
                .and_then(|p| p.pointer("/_meta/io.modelcontextprotocol~1protocolVersion"))
                .and_then(Value::as_str)
                && v >= STATELESS_SINCE
            {
                let mut r = Rejection::new(
                    id.clone(),
                    UNSUPPORTED_PROTOCOL_VERSION,
                    "Unsupported protocol version: over HTTP this server speaks revisions up to 2025-11-25; start with initialize",
                );
                r.data = Some(json!({"requested": v, "supported": HTTP_VERSIONS}));
                return Err(r);
            }
        }
        if method == "tools/call" {
            check_call_params(obj.get("params")).map_err(|m| Rejection::new(id.clone(), INVALID_PARAMS, m))?;
        }
    }
    if method.is_none() && !obj.contains_key("result") && !obj.contains_key("error") {
        return Err(Rejection::new(
            reply_id,
            INVALID_REQUEST,
            "Invalid Request: no \"method\", \"result\" or \"error\"",
        ));
    }
    if let Err(e) = serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        return Err(match (method, id) {
            (Some(m), Some(id)) => Rejection::new(
                id,
                INVALID_PARAMS,
                format!("Invalid params for {}: {e}", attest_core::text::clip(m, 80)),
            ),
            _ => Rejection::new(reply_id, INVALID_REQUEST, format!("Invalid Request: {e}")),
        });
    }
    Ok(())
}

fn check_call_params(params: Option<&Value>) -> Result<(), String> {
    let Some(p) = params.and_then(Value::as_object) else {
        return Err("Invalid params for tools/call: params must be an object with \"name\" and \"arguments\"".into());
    };
    if !p.get("name").is_some_and(Value::is_string) {
        return Err("Invalid params for tools/call: \"name\" must be a string".into());
    }
    match p.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err("Invalid params for tools/call: \"arguments\" must be an object".into()),
    }
}

/// The top-level `"id"` of a message that does not parse (too deep, invalid UTF-8,
/// truncated), found by scanning: a string or integer at nesting depth one.
pub fn recover_id(bytes: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut i = 0usize;
    let n = bytes.len();
    while i < n {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < n && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 1 && bytes.get(start..i) == Some(b"id".as_slice()) {
                    let mut j = i + 1;
                    while j < n && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if bytes.get(j) != Some(&b':') {
                        i += 1;
                        continue;
                    }
                    j += 1;
                    while j < n && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    let rest = &bytes[j..];
                    let end = if rest.first() == Some(&b'"') {
                        let mut k = 1;
                        while k < rest.len() && rest[k] != b'"' {
                            if rest[k] == b'\\' {
                                k += 1;
                            }
                            k += 1;
                        }
                        (k + 1).min(rest.len())
                    } else {
                        rest.iter().position(|c| !(c.is_ascii_digit() || *c == b'-')).unwrap_or(rest.len())
                    };
                    let candidate: Option<Value> = std::str::from_utf8(&rest[..end])
                        .ok()
                        .filter(|s| s.len() <= 200)
                        .and_then(|s| serde_json::from_str(s).ok());
                    return candidate.filter(is_id);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(bytes: &str, t: Transport) -> (Value, i64) {
        let r = check(bytes.as_bytes(), t).unwrap_err();
        (r.id, r.code)
    }

    #[test]
    fn good_messages_pass() {
        for m in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x.y","arguments":{"n":1}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"no/such/method"}"#,
        ] {
            assert_eq!(check(m.as_bytes(), Transport::Http), Ok(()), "{m}");
        }
    }

    #[test]
    fn bad_messages_get_the_right_code() {
        assert_eq!(code("{not json", Transport::Http), (Value::Null, PARSE_ERROR));
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, Transport::Http),
            (Value::Null, INVALID_REQUEST)
        );
        assert_eq!(code(r#"{"id":1,"method":"ping"}"#, Transport::Http), (json!(1), INVALID_REQUEST));
        for params in ["", r#","params":[]"#, r#","params":{"name":5}"#, r#","params":{"name":"a","arguments":[1]}"#] {
            let m = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call"{params}}}"#);
            assert_eq!(code(&m, Transport::Stdio), (json!(7), INVALID_PARAMS), "{m}");
        }
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":8,"method":"server/discover"}"#, Transport::Http),
            (json!(8), METHOD_NOT_FOUND)
        );
        let modern = r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert_eq!(code(modern, Transport::Http), (json!(9), UNSUPPORTED_PROTOCOL_VERSION));
    }

    #[test]
    fn ids_are_recovered_from_undecodable_input() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{}{}}}"#,
            "[".repeat(500),
            "]".repeat(500)
        );
        assert_eq!(code(&deep, Transport::Stdio), (json!(42), PARSE_ERROR));
        let mut bad_utf8 = br#"{"jsonrpc":"2.0","id":"q-1","method":"tools/call","params":{"name":""#.to_vec();
        bad_utf8.extend_from_slice(&[0xff, 0xfe]);
        bad_utf8.extend_from_slice(br#""}}"#);
        let r = check(&bad_utf8, Transport::Stdio).unwrap_err();
        assert_eq!((r.id, r.code), (json!("q-1"), PARSE_ERROR));
        assert_eq!(recover_id(br#"{"params":{"id":5},"id":6"#), Some(json!(6)));
        assert_eq!(recover_id(br#"{"params":{"id":5}"#), None);
        assert_eq!(recover_id(b"\xff\xfe"), None);
    }
}
