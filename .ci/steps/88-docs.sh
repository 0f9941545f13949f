#!/usr/bin/env bash
# Rust documentation: rustdoc with warnings as errors for the whole
# workspace (broken links, missing docs: the crate denies missing_docs) and
# for the Cortex-M4F target. The doc examples run as doctests (README's Rust
# example included, through `ReadmeDoctests`) in step 20: `cargo test
# --workspace` runs them (this step ran them a second time until
# 2026-12-07; CI time).
set -euo pipefail
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p xpbd --target thumbv7em-none-eabihf
