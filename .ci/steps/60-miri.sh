#!/usr/bin/env bash
# Miri: the crate's tests (unit, integration incl. tests/ffi_rust.rs with
# null, aliased, raw-parts and uninitialised pointers, proptests with 4 cases
# each under Miri, doc tests) and the shared scenarios (checks and the hash
# scenario through the C ABI) run in the interpreter, which reports any
# undefined behaviour. libm is used without its `arch` feature (inline asm).
set -euo pipefail
rustup run nightly rustc --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
rustup +nightly component add miri rust-src
cargo +nightly miri setup
cargo +nightly miri test -p xpbd -p xpbd-scenarios
