//! How a run's metric rows are stored: one `run_curves` row per run, metric and split
//! (a curve), holding its points in the order they were recorded, instead of one row
//! per point (migration 0008). A first scan of 600 framework runs wrote 2,000,000 rows
//! before; it now writes about 1,200.
//!
//! `points` is text: `step:value` pairs separated by commas, the step empty when the
//! value has none (`100:1.9,200:1.5,:1.2`). Values are written so they read back to
//! the same bits (Rust's shortest round-trip form here; SQLite's `quote()` and
//! PostgreSQL's float text in the migration that converted the old rows), so nothing a
//! reader sees changes. `n` is the number of points, checked on every read.

use attest_store::{Db, DbConnection};
use sqlx::Row;

use crate::discover::Metric;

/// One curve: the points of one metric on one split of one run, in recorded order.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve<'a> {
    /// Metric name.
    pub metric: &'a str,
    /// Split (`""` when unlabelled).
    pub split: &'a str,
    /// How many points.
    pub n: usize,
    /// The points as stored (`step:value,…`).
    pub points: String,
}

/// A run's metric rows as curves: grouped by metric and split, each curve's points in
/// the order of `metrics`, the curves in the order their first point appears.
pub fn curves(metrics: &[Metric]) -> Vec<Curve<'_>> {
    let mut out: Vec<Curve<'_>> = Vec::new();
    // Few curves per run: a linear search beats hashing, and the last curve touched
    // is tried first (rows of one curve usually come together).
    let mut last = 0;
    for m in metrics {
        let split = m.split.as_deref().unwrap_or("");
        let i = if out.get(last).is_some_and(|c| c.metric == m.metric && c.split == split) {
            last
        } else if let Some(i) = out.iter().position(|c| c.metric == m.metric && c.split == split) {
            i
        } else {
            out.push(Curve { metric: &m.metric, split, n: 0, points: String::new() });
            out.len() - 1
        };
        last = i;
        let c = &mut out[i];
        if c.n > 0 {
            c.points.push(',');
        }
        push_point(&mut c.points, m.step, m.value);
        c.n += 1;
    }
    out
}

fn push_point(out: &mut String, step: Option<i64>, value: f64) {
    use std::fmt::Write;
    if let Some(s) = step {
        let _ = write!(out, "{s}");
    }
    out.push(':');
    // `{:?}` is the shortest text that reads back to the same f64 (with an exponent
    // for very large or small values).
    let _ = write!(out, "{value:?}");
}

fn damaged(why: String) -> sqlx::Error {
    sqlx::Error::Decode(why.into())
}

/// The points of a stored curve, `(step, value)` in recorded order. Text that does
/// not parse, or holds other than `n` points, is a damaged database.
pub fn points(text: &str, n: i64) -> Result<Vec<(Option<i64>, f64)>, sqlx::Error> {
    let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
    if !text.is_empty() {
        for p in text.split(',') {
            let parsed = p.split_once(':').and_then(|(s, v)| {
                let step = if s.is_empty() { None } else { Some(s.parse::<i64>().ok()?) };
                Some((step, v.parse::<f64>().ok()?))
            });
            out.push(parsed.ok_or_else(|| damaged(format!("run_curves: unreadable point '{p}'")))?);
        }
    }
    if out.len() as i64 != n {
        return Err(damaged(format!("run_curves: {} points stored, {n} expected", out.len())));
    }
    Ok(out)
}

/// One `run_curves` row read back as metric rows: `run_id, metric, split, n, points`
/// from column `at` on.
pub(crate) fn metrics_of(row: &attest_store::DbRow, at: usize) -> Result<(i64, Vec<Metric>), sqlx::Error> {
    let run_id: i64 = row.try_get(at)?;
    let metric: String = row.try_get(at + 1)?;
    let split: String = row.try_get(at + 2)?;
    let n: i64 = row.try_get(at + 3)?;
    let text: String = row.try_get(at + 4)?;
    let split = (!split.is_empty()).then_some(split);
    let rows = points(&text, n)?
        .into_iter()
        .map(|(step, value)| Metric { metric: metric.clone(), value, step, split: split.clone() })
        .collect();
    Ok((run_id, rows))
}

const CURVE_BINDS: usize = 5;
/// Curves per `INSERT` (each may be long text; the bind count stays small, see
/// `scan::MAX_BINDS`).
const CURVES_PER_INSERT: usize = 20;

/// Write the metric rows of runs as curves (after deleting what they held, when they
/// held anything): `(run id, its rows)`.
pub async fn insert(conn: &mut DbConnection, runs: &[(i64, &[Metric])]) -> Result<(), sqlx::Error> {
    let rows: Vec<(i64, Curve<'_>)> =
        runs.iter().flat_map(|(id, ms)| curves(ms).into_iter().map(move |c| (*id, c))).collect();
    for chunk in rows.chunks(CURVES_PER_INSERT) {
        let sql = format!(
            "INSERT INTO run_curves (run_id, metric, split, n, points) VALUES {}",
            attest_store::values_list(chunk.len(), CURVE_BINDS)
        );
        let mut q = sqlx::query::<Db>(&sql);
        for (id, c) in chunk {
            q = q.bind(*id).bind(c.metric).bind(c.split).bind(c.n as i64).bind(c.points.as_str());
        }
        q.execute(&mut *conn).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(metric: &str, value: f64, step: Option<i64>, split: Option<&str>) -> Metric {
        Metric { metric: metric.into(), value, step, split: split.map(str::to_string) }
    }

    #[test]
    fn curves_group_by_metric_and_split_and_read_back_exactly() {
        let rows = vec![
            m("loss", 1.9, Some(100), Some("train")),
            m("loss", 2.1, Some(100), Some("val")),
            m("loss", 0.1 + 0.2, Some(200), Some("train")),
            m("acc", 1e-300, None, None),
            m("loss", -0.0, Some(-3), Some("train")),
            m("acc", 1.7976931348623157e308, Some(i64::MAX), None),
            m("acc", f64::MIN_POSITIVE / 3.0, Some(i64::MIN), None),
        ];
        let cs = curves(&rows);
        let keys: Vec<(&str, &str, usize)> = cs.iter().map(|c| (c.metric, c.split, c.n)).collect();
        assert_eq!(keys, [("loss", "train", 3), ("loss", "val", 1), ("acc", "", 3)]);
        assert_eq!(cs[1].points, "100:2.1");
        let mut back = Vec::new();
        for c in &cs {
            for (step, value) in points(&c.points, c.n as i64).unwrap() {
                back.push(m(c.metric, value, step, (!c.split.is_empty()).then_some(c.split)));
            }
        }
        let order = [0, 2, 4, 1, 3, 5, 6];
        for (b, i) in back.iter().zip(order) {
            assert_eq!((&b.metric, b.step, &b.split), (&rows[i].metric, rows[i].step, &rows[i].split));
            assert_eq!(b.value.to_bits(), rows[i].value.to_bits(), "{} read back as {}", rows[i].value, b.value);
        }
    }

    #[test]
    fn damaged_points_are_refused() {
        assert_eq!(points("", 0).unwrap(), []);
        assert_eq!(points(":1.5,2:9e-7", 2).unwrap(), [(None, 1.5), (Some(2), 9e-7)]);
        // The forms the migration writes: SQLite's quote(), PostgreSQL's float text.
        assert_eq!(points("1:2.0,2:1.0e-07,3:Infinity,4:9.0e+999", 4).unwrap()[..2], [(Some(1), 2.0), (Some(2), 1e-7)]);
        assert!(points("1:2.0", 2).is_err());
        assert!(points("1:x", 1).is_err());
        assert!(points("12", 1).is_err());
        assert!(points("a:1", 1).is_err());
    }
}
