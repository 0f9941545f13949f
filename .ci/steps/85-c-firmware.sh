#!/usr/bin/env bash
# The C firmware path of the README: examples/c-firmware/rope_m4.c, compiled
# by clang for Cortex-M4F (hard float), linked by rust-lld against the
# thumbv7em-none-eabihf libxpbd.a with no C library, run under QEMU
# (mps2-an386). The program checks its own figures and exits through
# semihosting: 0 = pass.
set -euo pipefail
need=""
command -v clang >/dev/null || need="$need clang"
command -v qemu-system-arm >/dev/null || need="$need qemu-system-arm"
if [ -n "$need" ]; then bash .ci/apt-install.sh $need >/dev/null; fi
cargo c-lib --target thumbv7em-none-eabihf
dir=target/ci-c-firmware
mkdir -p "$dir"
lld="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld"
clang --target=thumbv7em-none-eabihf -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16 \
    -ffreestanding -fno-builtin -nostdlib -O2 -std=c99 -Wall -Wextra -Wpedantic -Werror \
    -Iinclude -c examples/c-firmware/rope_m4.c -o "$dir/rope_m4.o"
"$lld" -flavor gnu -T examples/c-firmware/link.ld --gc-sections "$dir/rope_m4.o" \
    target/thumbv7em-none-eabihf/release/libxpbd.a -o "$dir/rope_m4.elf"
timeout 120 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
    -semihosting-config enable=on,target=native -kernel "$dir/rope_m4.elf"
echo "C firmware: rope checked on Cortex-M4F under QEMU ($(stat -c %s "$dir/rope_m4.elf") byte ELF)"
