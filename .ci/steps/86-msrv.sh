#!/usr/bin/env bash
# The MSRV stated in Cargo.toml (`rust-version`) really builds the library:
# the host rlib, the C archive (`cargo c-lib`) and the Cortex-M4F rlib.
# Only the library: the dev-dependencies (proptest) need a newer Rust, and
# `--lib` with `--locked` keeps cargo from resolving or building them.
# Built in target/msrv so the stable artifacts are left alone.
set -euo pipefail
msrv=$(sed -n 's/^rust-version = "\([0-9.]*\)"$/\1/p' Cargo.toml)
[ -n "$msrv" ] || { echo "no rust-version in Cargo.toml"; exit 1; }
rustup toolchain install "$msrv" --profile minimal --target thumbv7em-none-eabihf >/dev/null 2>&1 \
    || rustup toolchain install "$msrv" --profile minimal --target thumbv7em-none-eabihf
export CARGO_TARGET_DIR=target/msrv
cargo "+$msrv" check -p xpbd --lib --locked
cargo "+$msrv" check -p xpbd --lib --locked --target thumbv7em-none-eabihf
cargo "+$msrv" c-lib --locked
test -f target/msrv/release/libxpbd.a
echo "MSRV $msrv ($(rustc "+$msrv" --version)): library, C archive and Cortex-M4F check build"
