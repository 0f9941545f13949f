#!/usr/bin/env bash
# The bare-metal test program (examples/firmware) on an emulated Cortex-M4F:
# golden figures (f64, f32), rejection checks, and the bit-identity hash
# scenario, under qemu-system-arm -machine mps2-an386 with semihosting.
# `cargo qemu-test` exits non-zero (QEMU's exit status) when any check fails.
set -euo pipefail
bash .ci/apt-install.sh qemu-system-arm
rustup target add thumbv7em-none-eabihf
cargo qemu-test 2>&1 | tee target/qemu-test.log
grep -qx '[0-9]* passed, 0 failed' target/qemu-test.log
