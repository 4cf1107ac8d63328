// `sqlx::migrate!` embeds `migrations/` at compile time; rebuild when a migration is
// added or edited, not only when a Rust file changes.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
