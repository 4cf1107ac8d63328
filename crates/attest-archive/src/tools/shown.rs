//! What each client session was last shown: the items of the last answer that showed
//! items (`feed.list`, `feed.search`, `feed.digest`, `feed.read`, `feed.explain`,
//! `feed.rate`), so a reply with no item id ("useful", "tell me more") can be about the
//! item the person just saw.
//!
//! Kept per session ([`attest_core::session::current`]: one MCP session each; the
//! command line and in-process callers, which have none, share the process's own
//! entry), in memory, for the last [`MAX_SESSIONS`] sessions. Never written to the
//! database: it is conversation state, not archive state.

use std::collections::HashMap;
use std::sync::Mutex;

/// Sessions remembered at most; the one shown longest ago is forgotten first.
pub const MAX_SESSIONS: usize = 256;
/// Items of one answer remembered at most (a digest shows up to 27).
const MAX_ITEMS: usize = 32;

/// What one session was last shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The tool that showed them.
    pub tool: &'static str,
    /// The reader they were shown for.
    pub reader: String,
    /// The items, in the order shown: (id, title).
    pub items: Vec<(i64, String)>,
}

impl Shown {
    /// The one item shown, when the answer showed exactly one.
    pub fn single(&self) -> Option<i64> {
        match self.items.as_slice() {
            [(id, _)] => Some(*id),
            _ => None,
        }
    }
}

/// Per session (`None`: callers outside any), when it was last shown something (a
/// counter, for eviction) and what.
type BySession = HashMap<Option<u64>, (u64, Shown)>;

/// The memory: a use counter and what each session was shown.
#[derive(Debug, Default)]
pub(crate) struct ShownMemory {
    inner: Mutex<(u64, BySession)>,
}

impl ShownMemory {
    /// Remember what the current session was shown; an answer that showed nothing
    /// leaves the memory as it was.
    pub(crate) fn remember(&self, tool: &'static str, reader: &str, items: Vec<(i64, String)>) {
        if items.is_empty() {
            return;
        }
        let mut items = items;
        items.truncate(MAX_ITEMS);
        let session = attest_core::session::current();
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (clock, map) = &mut *g;
        *clock += 1;
        if !map.contains_key(&session)
            && map.len() >= MAX_SESSIONS
            && let Some(oldest) = map.iter().min_by_key(|(_, (t, _))| *t).map(|(k, _)| *k)
        {
            map.remove(&oldest);
        }
        map.insert(session, (*clock, Shown { tool, reader: reader.to_string(), items }));
    }

    /// What the current session was last shown.
    pub(crate) fn last(&self) -> Option<Shown> {
        let session = attest_core::session::current();
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.1.get(&session).map(|(_, s)| s.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<F: std::future::Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        loop {
            if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    #[test]
    fn each_session_has_its_own_last_answer_and_the_oldest_is_forgotten() {
        let m = ShownMemory::default();
        let show = |s: u64, id: i64| {
            block(attest_core::session::scope(s, async { m.remember("t", "r", vec![(id, "x".into())]) }))
        };
        let last = |s: u64| block(attest_core::session::scope(s, async { m.last().and_then(|l| l.single()) }));
        show(1, 10);
        show(2, 20);
        assert_eq!((last(1), last(2), last(3)), (Some(10), Some(20), None));
        assert_eq!(m.last(), None, "outside a session nothing was shown");
        block(attest_core::session::scope(1, async { m.remember("t", "r", Vec::new()) }));
        assert_eq!(last(1), Some(10), "an answer that showed nothing changes nothing");
        for s in 3..=(MAX_SESSIONS as u64 + 1) {
            show(s, s as i64);
        }
        assert_eq!(last(1), None, "the session shown longest ago is forgotten first");
        assert_eq!(last(2), Some(20));
    }
}
