//! The one part of ranking that reads the store: [`ReaderData`], a reader's candidates
//! and rated items loaded from the [`crate::FeedStore`] and indexed once, to rank with
//! the pure model in [`crate::rank`].

use std::collections::HashSet;
use std::sync::Arc;

use super::{Corpus, Embeddings, RankItem, RankOptions, Ranking, ReaderModel};
use crate::model::Click;

/// What ranking needs for one reader, read from the store: the candidates (unrated
/// items published since the window start, or the whole archive) and the reader's
/// rated items, indexed together so the classifier can train on the rated ones and
/// term statistics cover both. The index holds its items newest first (ties: higher
/// id first) whichever of them are rated, so the same items always give the same
/// index, and a rating among them changes only `clicks` and `candidates`
/// ([`ReaderData::reload_ratings`]).
#[derive(Debug, Clone)]
pub struct ReaderData {
    /// The index over candidates and rated items (shared by reloads that keep it).
    pub corpus: Arc<Corpus>,
    /// The reader's clicks, every source.
    pub clicks: Vec<Click>,
    /// Ids of the candidates (rank these with [`RankOptions::only`]).
    pub candidates: HashSet<i64>,
}

impl ReaderData {
    /// Read a reader's candidates and clicks. `since` is a [`crate::model::stamp`];
    /// `None` ranks the whole archive.
    pub async fn load(store: &crate::FeedStore, reader_id: i64, since: Option<&str>) -> crate::Result<ReaderData> {
        let candidates = store.items_for_ranking(reader_id, since).await?;
        let rated = store.clicked_items(reader_id).await?;
        let ids: HashSet<i64> = candidates.iter().map(|i| i.id).collect();
        let clicks: Vec<Click> = rated.iter().map(|(_, c)| c.clone()).collect();
        let mut items: Vec<RankItem> =
            candidates.iter().chain(rated.iter().map(|(i, _)| i)).map(RankItem::from).collect();
        items.sort_by(|a, b| b.published.cmp(&a.published).then(b.id.cmp(&a.id)));
        Ok(ReaderData { corpus: Arc::new(Corpus::build(items)), clicks, candidates: ids })
    }

    /// After the reader's ratings changed (and nothing else): read the clicks again
    /// and keep this index when it still holds exactly the window's items plus the
    /// rated ones, which is what [`ReaderData::load`] would index. `since` must be
    /// the one this data was loaded with. `None` when the index no longer fits (an
    /// item rated outside the window, or a rating removed from one): load afresh.
    pub async fn reload_ratings(
        &self,
        store: &crate::FeedStore,
        reader_id: i64,
        since: Option<&str>,
    ) -> crate::Result<Option<ReaderData>> {
        let clicks = store.clicks(reader_id).await?;
        if clicks.iter().any(|c| self.corpus.position(c.item_id).is_none()) {
            return Ok(None);
        }
        let clicked: HashSet<i64> = clicks.iter().map(|c| c.item_id).collect();
        // The same test as the store's `published >= since` (byte order of the stamps).
        let in_window = |it: &RankItem| since.is_none_or(|s| it.published.as_deref().is_some_and(|p| p >= s));
        if self.corpus.items().iter().any(|it| !in_window(it) && !clicked.contains(&it.id)) {
            return Ok(None);
        }
        let candidates = self
            .corpus
            .items()
            .iter()
            .filter(|it| in_window(it) && !clicked.contains(&it.id))
            .map(|it| it.id)
            .collect();
        Ok(Some(ReaderData { corpus: Arc::clone(&self.corpus), clicks, candidates }))
    }

    /// Rank the candidates for a reader with these interests, best `limit` first.
    pub fn rank(&self, interests: &str, limit: usize, embeddings: &Embeddings) -> (ReaderModel, Ranking) {
        let model = ReaderModel::fit(&self.corpus, interests, &self.clicks);
        let ranking = self.rank_with(&model, limit, embeddings);
        (model, ranking)
    }

    /// Rank the candidates with a model already fitted on this data, best `limit` first.
    pub fn rank_with(&self, model: &ReaderModel, limit: usize, embeddings: &Embeddings) -> Ranking {
        let opts = RankOptions { exclude_clicked: true, only: Some(self.candidates.clone()), limit: Some(limit) };
        model.rank(&self.corpus, &opts, embeddings)
    }
}
