//! Open a ledger, scan a research root, and print a comparison with its caveats.
//!
//! ```sh
//! cargo run -p attest-runs --example compare                         # examples/workspace, every family
//! cargo run -p attest-runs --example compare -- path/to/root kdalpha  # one family
//! ```
//! Set `ATTEST_METRIC_DIRECTIONS` to a metric-direction file to rank metrics attest
//! cannot know the direction of (e.g. `examples/metric_directions.toml`).

use std::ops::ControlFlow;
use std::path::PathBuf;

use attest_core::text::fmt_g;
use attest_runs::LedgerError;
use attest_runs::ledger::{Ledger, LedgerOptions};
use attest_store::Store;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().unwrap_or_else(|| "examples/workspace".into()));
    let only = args.next();
    let opts = LedgerOptions {
        metric_directions: std::env::var_os("ATTEST_METRIC_DIRECTIONS").map(PathBuf::from),
        root: Some(root.clone()),
    };
    // A throwaway in-memory database: nothing is left behind.
    let ledger = Ledger::new(Store::open_in_memory().await?, opts);
    let report = ledger.scan(&root, None, |_| ControlFlow::Continue(())).await?;
    println!("scan: {}", report.message);
    for e in &report.empty {
        println!("  {}: {}", e.project, e.diagnostic);
    }
    let families = ledger.families(None).await?;
    for f in families.iter().filter(|f| only.as_deref().is_none_or(|o| o == f.family)) {
        println!();
        match ledger.compare(&f.family, None, Some(&f.project)).await {
            Ok(c) => {
                println!("{}/{} ranked by {} ({}):", c.project, c.family, c.metric, c.direction);
                for (i, a) in c.arms.iter().enumerate() {
                    let value = a.value.map(fmt_g).unwrap_or_else(|| "-".into());
                    let sd = a.sd.map(|s| format!(" ± {}", fmt_g(s))).unwrap_or_default();
                    let n = a.n.map(|n| format!("  n={n}")).unwrap_or_default();
                    println!("  {:>2}. {:<28} {value}{sd}{n}", i + 1, a.name);
                }
                for cav in &c.caveats {
                    println!("  caveat: {cav}");
                }
            }
            Err(LedgerError::Refused(why)) => println!("{}/{}: refused: {why}", f.project, f.family),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}
