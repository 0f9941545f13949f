#!/usr/bin/env bash
# Toolchain pieces CI needs: rustfmt, clippy, llvm-tools (llvm-nm), and the
# Cortex-M4F target for the firmware and the bare-metal archive.
set -euo pipefail
rustup component add rustfmt clippy llvm-tools
rustup target add thumbv7em-none-eabihf
