#!/usr/bin/env bash
# A Rust firmware crate that depends on xpbd and brings its own panic
# handler must build for Cortex-M4F (thumbv7em-none-eabihf).
set -euo pipefail
(cd examples/firmware && cargo build --release --locked)
