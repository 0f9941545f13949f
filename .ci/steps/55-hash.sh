#!/usr/bin/env bash
# The bit-identity scenario on x86-64 with optimizations (step 20 ran it in
# the debug profile; step 50 ran it on the emulated Cortex-M4F at opt-level
# "s"): all three must give the constants pinned in scenarios/src/hash.rs.
set -euo pipefail
cargo test -p xpbd-scenarios --release --locked -- --nocapture
