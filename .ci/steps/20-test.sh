#!/usr/bin/env bash
# The README's test command: Rust unit, integration, property and doc tests,
# the C test program through the C ABI, and the header-is-current check.
set -euo pipefail
cargo test --workspace
