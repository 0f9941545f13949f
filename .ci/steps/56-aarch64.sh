#!/usr/bin/env bash
# The same bits on a third ISA, AArch64 (under qemu-user), where the colored
# kernel is the portable chunked one (x86-64 runs SSE2 lanes, Cortex-M4F a
# plain per-link loop): the scenario hashes of step 55 (every part, the
# colored cloth included) and the crate's kernel, golden-figure and C-ABI
# tests. Also compiles the library for wasm32 with simd128 (the other
# target of the portable kernel; nothing runs there). Without simd128 the
# browser demo's step (83) builds it, as the C ABI's wasm32 cdylib, and
# runs it.
set -euo pipefail
need=""
command -v aarch64-linux-gnu-gcc >/dev/null || need="$need gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
command -v qemu-aarch64 >/dev/null || need="$need qemu-user"
if [ -n "$need" ]; then bash .ci/apt-install.sh $need >/dev/null; fi
rustup target add aarch64-unknown-linux-gnu wasm32-unknown-unknown
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
t=aarch64-unknown-linux-gnu
cargo test --locked --release --target "$t" -p xpbd-scenarios -- --nocapture
# colored_isa with its smaller scene list (XPBD_SMALL_SCENES) under emulation.
XPBD_SMALL_SCENES=1 cargo test --locked --release --target "$t" -p xpbd --lib --test colored --test colored_neighbours --test colored_isa \
    --test seed_figures --test lifecycle --test ffi_rust --test ffi_system_rust --test fp_environment
# The colored frame's links on the NEON kernel, and the SoA frame
# (colored_step's soa_frame module): the sequential bits.
XPBD_SMALL_SCENES=1 cargo test --locked --release --target "$t" -p xpbd --test colored_step -- every_link_kernel \
    soa_frame
RUSTFLAGS="-C target-feature=+simd128" cargo build --locked --release --lib --target wasm32-unknown-unknown \
    --target-dir target/wasm-simd128
echo "aarch64: scenario hashes and kernel tests pass; wasm32 with simd128 builds"
