//! The stdio transport, with every input line checked before rmcp reads it.
//!
//! rmcp drops a line it cannot decode (invalid UTF-8, JSON nested too deep, a lone
//! surrogate, an over-long line) without a reply, and a client waiting on that id
//! hangs. Here each line is checked first ([`crate::protocol::check`]): a line that
//! fails gets a JSON-RPC error when its id can be recovered, and is logged and
//! dropped otherwise.

use anyhow::Context as _;
use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::Sender;

use crate::protocol::{self, Rejection, Transport};
use crate::server::Served;

/// Longest line accepted (bytes, newline excluded).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

pub(crate) async fn serve_stdio(served: Served) -> anyhow::Result<()> {
    serve_io(served, tokio::io::stdin(), tokio::io::stdout()).await
}

/// Serve one session over any byte pipe pair (stdin/stdout in production).
pub async fn serve_io<R, W>(served: Served, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (from_rmcp, mut to_rmcp) = tokio::io::split(ours);
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<u8>>(64);

    // One writer owns the output, so rmcp's lines and ours never interleave.
    let writer = tokio::spawn(async move {
        let mut out = output;
        while let Some(line) = rx.recv().await {
            out.write_all(&line).await?;
            out.flush().await?;
        }
        Ok::<_, std::io::Error>(())
    });
    let relay_tx = tx.clone();
    let relay = tokio::spawn(async move {
        let mut r = BufReader::new(from_rmcp);
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if relay_tx.send(line).await.is_err() {
                        break;
                    }
                }
            }
        }
    });
    let pump = tokio::spawn(async move {
        pump(input, &mut to_rmcp, &tx).await;
        let _ = to_rmcp.shutdown().await;
    });

    let result = async {
        let running = served.session().serve(theirs).await.context("MCP handshake failed")?;
        running.waiting().await.context("MCP session ended abnormally")?;
        Ok::<_, anyhow::Error>(())
    }
    .await;
    pump.abort();
    let _ = pump.await;
    let _ = relay.await;
    let _ = writer.await;
    result
}

async fn pump<R, W>(input: R, to_rmcp: &mut W, replies: &Sender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut r = BufReader::with_capacity(64 * 1024, input);
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    loop {
        let buf = match r.fill_buf().await {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read standard input");
                return;
            }
        };
        if buf.is_empty() {
            if !line.is_empty() && !too_long {
                let _ = handle(&line, to_rmcp, replies).await;
            }
            return;
        }
        let (take, complete) = match buf.iter().position(|b| *b == b'\n') {
            Some(p) => (p + 1, true),
            None => (buf.len(), false),
        };
        if !too_long {
            if line.len() + take > MAX_LINE + 1 {
                too_long = true;
                let room = (MAX_LINE + 1).saturating_sub(line.len());
                line.extend_from_slice(&buf[..room.min(take)]);
            } else {
                line.extend_from_slice(&buf[..take]);
            }
        }
        r.consume(take);
        if complete {
            let ok = if too_long {
                let id = protocol::recover_id(&line).unwrap_or(serde_json::Value::Null);
                reply(
                    Rejection {
                        id,
                        code: protocol::INVALID_REQUEST,
                        message: format!("Invalid Request: message longer than {MAX_LINE} bytes"),
                        data: None,
                    },
                    replies,
                )
                .await
            } else {
                handle(&line, to_rmcp, replies).await
            };
            if !ok {
                return;
            }
            line.clear();
            too_long = false;
        }
    }
}

/// Pass a good line to rmcp, answer a bad one. `false` when the session is gone.
async fn handle<W: AsyncWrite + Unpin>(line: &[u8], to_rmcp: &mut W, replies: &Sender<Vec<u8>>) -> bool {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    let body = &line[..end];
    if body.iter().all(u8::is_ascii_whitespace) {
        return true;
    }
    match protocol::check(body, Transport::Stdio) {
        Ok(()) => to_rmcp.write_all(body).await.is_ok() && to_rmcp.write_all(b"\n").await.is_ok(),
        Err(rejection) => reply(rejection, replies).await,
    }
}

async fn reply(rejection: Rejection, replies: &Sender<Vec<u8>>) -> bool {
    if rejection.id.is_null() {
        tracing::warn!(code = rejection.code, reason = %rejection.message, "dropped an input line with no recoverable id");
        return true;
    }
    let mut out = rejection.to_json().to_string().into_bytes();
    out.push(b'\n');
    replies.send(out).await.is_ok()
}
