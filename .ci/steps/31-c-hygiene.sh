#!/usr/bin/env bash
# Symbol hygiene of the C archive (tools/c-lib.sh, docs/install.md):
#  1. the host and Cortex-M4F archives export only the xpbd_* functions of
#     include/xpbd.h (bare metal: plus compiler-rt's __* helpers), and need
#     nothing but the C library's memory functions;
#  2. one C program links libxpbd.a together with a second, std-based Rust
#     static library (built here from .ci/fixtures/two-rust), in both link
#     orders, with and without --gc-sections, and runs: the raw archive of
#     `cargo c-lib` fails that link (shown, not required);
#  3. the C test program runs against the localised archive, and the C
#     firmware example against the localised Cortex-M4F archive under QEMU.
set -euo pipefail
bash .ci/apt-install.sh clang qemu-system-arm binutils >/dev/null
rustup target add thumbv7em-none-eabihf >/dev/null 2>&1
rustup component add llvm-tools >/dev/null 2>&1 || true
dir=target/ci-hygiene
rm -rf "$dir" && mkdir -p "$dir"
tools/c-lib.sh > "$dir/host.log" 2>&1 || { cat "$dir/host.log"; exit 1; }
tools/c-lib.sh --target thumbv7em-none-eabihf > "$dir/m4.log" 2>&1 || { cat "$dir/m4.log"; exit 1; }
host=target/release/c/libxpbd.a
m4=target/thumbv7em-none-eabihf/release/c/libxpbd.a
nm="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/llvm-nm"

# 1. Exports and imports.
globals() { "$nm" --defined-only --extern-only "$1" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u; }
grep -o 'xpbd_[a-z0-9_]*(' include/xpbd.h | tr -d '(' | sort -u > "$dir/header.txt"
globals "$host" > "$dir/host-globals.txt"
if ! cmp -s "$dir/header.txt" "$dir/host-globals.txt"; then
    echo "libxpbd.a exports differ from the header's functions (< header, > archive):"
    diff "$dir/header.txt" "$dir/host-globals.txt" || true; exit 1
fi
globals "$m4" | grep -v '^__' > "$dir/m4-globals.txt" || true
cmp "$dir/header.txt" "$dir/m4-globals.txt"
"$nm" --undefined-only "$host" 2>/dev/null | awk 'NF == 2 { print $2 }' | sort -u > "$dir/host-undefined.txt"
extra=$(grep -vxE 'memcpy|memmove|memset|memcmp|bcmp' "$dir/host-undefined.txt" || true)
[ -z "$extra" ] || { echo "the localised libxpbd.a needs: $extra"; exit 1; }
echo "global symbols: raw archive $(globals target/release/libxpbd.a | wc -l), localised $(wc -l < "$dir/host-globals.txt") (the header's $(wc -l < "$dir/header.txt") functions); Cortex-M4F: raw $(globals target/thumbv7em-none-eabihf/release/libxpbd.a | wc -l), localised $(globals "$m4" | wc -l) (with compiler-rt's helpers)"
echo "sizes: raw $(stat -c %s target/release/libxpbd.a) B, localised $(stat -c %s "$host") B; needs: $(tr '\n' ' ' < "$dir/host-undefined.txt")"

# 2. A second, std-based Rust static library in the same C program.
other=$dir/other
mkdir -p "$other/src"
cp .ci/fixtures/two-rust/other_lib.rs "$other/src/lib.rs"
printf '[package]\nname = "other_rust"\nversion = "0.0.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["staticlib"]\n\n[workspace]\n' > "$other/Cargo.toml"
cargo build -q --release --offline --manifest-path "$other/Cargo.toml" --target-dir "$other/target"
otherlib=$other/target/release/libother_rust.a
std_libs="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
cc -std=c99 -Wall -Wextra -Werror -Iinclude -c .ci/fixtures/two-rust/main.c -o "$dir/main.o"
for gc in "" "-Wl,--gc-sections"; do
    cc "$dir/main.o" "$host" "$otherlib" $gc $std_libs -o "$dir/two_a"
    cc "$dir/main.o" "$otherlib" "$host" $gc $std_libs -o "$dir/two_b"
    "$dir/two_a"
    "$dir/two_b"
done
if cc "$dir/main.o" target/release/libxpbd.a "$otherlib" $std_libs -o "$dir/two_raw" 2> "$dir/raw.log"; then
    echo "(the raw archive of cargo c-lib linked too, with this toolchain)"
else
    echo "the raw archive of cargo c-lib does not link beside it: $(grep -m1 -o 'multiple definition of `[^'"'"']*' "$dir/raw.log" || head -1 "$dir/raw.log")"
fi

# 2b. The rlib route (docs/install.md): an engine's own Rust staticlib that
#     depends on xpbd exports xpbd's C functions itself; the C test program
#     runs against it.
engine=$dir/engine
mkdir -p "$engine/src"
printf '[package]\nname = "engine_rust"\nversion = "0.0.0"\nedition = "2021"\n\n[lib]\ncrate-type = ["staticlib"]\n\n[dependencies]\nxpbd = { path = "%s" }\n\n[workspace]\n' "$(pwd)" > "$engine/Cargo.toml"
printf '//! The engine'"'"'s Rust component; depending on xpbd brings its C ABI along.\nuse xpbd as _;\n\n#[no_mangle]\npub extern "C" fn engine_rust_hello() -> usize {\n    String::from("hello").len()\n}\n' > "$engine/src/lib.rs"
cp Cargo.lock "$engine/Cargo.lock"
cargo build -q --release --offline --manifest-path "$engine/Cargo.toml" --target-dir "$engine/target"
cc -std=c99 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -DXPBD_TEST_STANDALONE \
    -Iinclude ffi-tests/c/*.c "$engine/target/release/libengine_rust.a" $std_libs -o "$dir/rlib_c_tests"
echo "rlib route: $("$dir/rlib_c_tests" | tail -1)"

# 3. The C test program on the localised archive (no --gc-sections needed),
#    and the C firmware on the localised Cortex-M4F archive.
cc -std=c99 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -DXPBD_TEST_STANDALONE \
    -Iinclude ffi-tests/c/*.c "$host" -lm -o "$dir/xpbd_c_tests"
"$dir/xpbd_c_tests" | tail -1
lld="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld"
clang --target=thumbv7em-none-eabihf -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16 \
    -ffreestanding -fno-builtin -nostdlib -O2 -std=c99 -Wall -Wextra -Wpedantic -Werror \
    -Iinclude -c examples/c-firmware/rope_m4.c -o "$dir/rope_m4.o"
"$lld" -flavor gnu -T examples/c-firmware/link.ld --gc-sections "$dir/rope_m4.o" "$m4" -o "$dir/rope_m4.elf"
timeout 120 qemu-system-arm -machine mps2-an386 -cpu cortex-m4 -nographic \
    -semihosting-config enable=on,target=native -kernel "$dir/rope_m4.elf" | tail -1
echo "symbol hygiene: only xpbd_* exported; two Rust libraries in one C program: ok"
