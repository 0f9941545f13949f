#!/usr/bin/env bash
# Rust documentation: rustdoc with warnings as errors for the whole
# workspace (broken links, missing docs: the crate denies missing_docs) and
# for the Cortex-M4F target; the doc examples run as doctests (README's Rust
# example included, through `ReadmeDoctests`).
set -euo pipefail
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p xpbd --target thumbv7em-none-eabihf
cargo test --doc -p xpbd 2>&1 | tee target/doctests.txt | tail -3
grep -q "test result: ok" target/doctests.txt
