# attest tasks. `just --list` shows them.

# Run the whole test suite (what CI runs).
test:
    cargo test --workspace

# Install the surface binaries and the CLI into ~/.cargo/bin.
install:
    cargo install --locked --path bins/attest
    cargo install --locked --path bins/attest-provenance
    cargo install --locked --path bins/attest-symbolic
    cargo install --locked --path bins/attest-feed
    cargo install --locked --path bins/attest-knowledge

# The demo on the bundled example workspace.
demo:
    cargo run --release --bin attest -- demo

# Benchmarks (criterion) and the whole-process figures.
bench:
    cargo bench --workspace
    scripts/bench-process.sh

# Everything CI does.
ci:
    .ci/run
