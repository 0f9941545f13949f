#!/usr/bin/env bash
# Formatting, clippy with -D warnings (the library's clippy restriction lints
# deny every panic source: unwrap, expect, panic!, indexing, arithmetic
# overflow), and rustdoc with warnings as errors.
set -euo pipefail
cargo fmt --all --check
(cd examples/firmware && cargo fmt --check)
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p xpbd
