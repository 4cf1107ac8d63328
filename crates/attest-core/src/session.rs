//! Which client session a tool call is answering.
//!
//! A server runs one catalogue for every client it serves; a few tools keep a little
//! state per conversation (the feed remembers the item it last showed, so "useful" with
//! no item id rates that one; the symbolic surface queues each session's calls on its
//! own lane). The MCP server sets the session for the duration of each call
//! ([`scope`]), and a tool reads it with [`current`]. Outside any session (the command
//! line, a test calling a catalogue directly) there is none.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

thread_local! {
    static CURRENT: Cell<Option<u64>> = const { Cell::new(None) };
}

/// The session the call being answered runs for (`None` outside one).
pub fn current() -> Option<u64> {
    CURRENT.with(Cell::get)
}

/// Run `fut` as session `id`: set around every poll, so it holds on whichever thread
/// polls the future (work the future spawns elsewhere does not see it).
pub fn scope<F: Future>(id: u64, fut: F) -> Scoped<F> {
    Scoped { id, fut: Box::pin(fut) }
}

/// A future run for one session; see [`scope`].
pub struct Scoped<F> {
    id: u64,
    fut: Pin<Box<F>>,
}

impl<F: Future> Future for Scoped<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        /// Puts the previous session back, also when the poll panics.
        struct Restore(Option<u64>);
        impl Drop for Restore {
            fn drop(&mut self) {
                CURRENT.with(|c| c.set(self.0));
            }
        }
        let _restore = Restore(CURRENT.with(|c| c.replace(Some(self.id))));
        self.fut.as_mut().poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_holds_during_its_polls_only() {
        assert_eq!(current(), None);
        let f = scope(7, async { current() });
        let mut f = std::pin::pin!(f);
        let mut cx = Context::from_waker(std::task::Waker::noop());
        assert_eq!(f.as_mut().poll(&mut cx), Poll::Ready(Some(7)));
        assert_eq!(current(), None);
        let nested = scope(1, async { (current(), scope(2, async { current() }).await, current()) });
        let mut nested = std::pin::pin!(nested);
        assert_eq!(nested.as_mut().poll(&mut cx), Poll::Ready((Some(1), Some(2), Some(1))));
    }
}
