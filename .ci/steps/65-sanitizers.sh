#!/usr/bin/env bash
# Sanitizers on the C test program (ffi-tests/c):
# 1. AddressSanitizer + UndefinedBehaviorSanitizer: clang
#    -fsanitize=address,undefined against a static library built on nightly
#    with -Zsanitizer=address, so ASan also checks the accesses made inside
#    the Rust code.
# 2. valgrind memcheck on the program built with cc against the release
#    archive users get (`cargo c-lib`).
# Both must be clean. A negative control per tool
# (ffi-tests/sanitizers/negative.c) must be caught inside xpbd, so a clean
# run means the tool was looking.
set -euo pipefail
bash .ci/apt-install.sh clang libclang-rt-14-dev valgrind
rustup run nightly rustc --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
mkdir -p target/sanitizers
out=target/sanitizers

# 1. ASan + UBSan. The archive goes to its own target dir: RUSTFLAGS differ.
RUSTFLAGS="-Zsanitizer=address" cargo +nightly c-lib --target x86_64-unknown-linux-gnu --target-dir target/asan
asan_lib=target/asan/x86_64-unknown-linux-gnu/release/libxpbd.a
llvm_nm="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/llvm-nm"
"$llvm_nm" "$asan_lib" > "$out/asan-archive.nm" 2>/dev/null || true
grep -q '__asan_' "$out/asan-archive.nm" || { echo "archive is not ASan-instrumented"; exit 1; }
cflags=(-std=c99 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
        -ffp-contract=off -Wall -Wextra -Wpedantic -Werror -Iinclude)
clang "${cflags[@]}" -DXPBD_TEST_STANDALONE ffi-tests/c/*.c "$asan_lib" -Wl,--gc-sections -o "$out/c_tests_asan"
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
"$out/c_tests_asan"
echo "ASan+UBSan: C test program clean"
clang "${cflags[@]}" ffi-tests/sanitizers/negative.c "$asan_lib" -Wl,--gc-sections -o "$out/negative_asan"
if "$out/negative_asan" oob > "$out/negative_asan.log" 2>&1; then
    echo "negative control: ASan missed an out-of-bounds read"; exit 1
fi
grep -q 'heap-buffer-overflow' "$out/negative_asan.log"
grep -q '#0 .* in xpbd_distance_solve' "$out/negative_asan.log" ||
    { cat "$out/negative_asan.log"; echo "negative control: overflow not seen inside xpbd"; exit 1; }
echo "ASan negative control: out-of-bounds read caught inside xpbd_distance_solve"

# 2. valgrind on the release archive.
cargo c-lib
cc -std=c99 -g -ffp-contract=off -Wall -Wextra -Wpedantic -Werror -Iinclude -DXPBD_TEST_STANDALONE \
    ffi-tests/c/*.c target/release/libxpbd.a -Wl,--gc-sections -o "$out/c_tests"
XPBD_TEST_NO_MXCSR=1 valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=all "$out/c_tests"
echo "valgrind: C test program clean"
cc -std=c99 -g -ffp-contract=off -Iinclude ffi-tests/sanitizers/negative.c target/release/libxpbd.a \
    -Wl,--gc-sections -o "$out/negative"
status=0
valgrind -q --error-exitcode=99 "$out/negative" uninit > "$out/negative_valgrind.log" 2>&1 || status=$?
if [ "$status" -ne 99 ] || ! grep -q 'uninitialised value.*' "$out/negative_valgrind.log" ||
    ! grep -A1 'uninitialised' "$out/negative_valgrind.log" | grep -q 'xpbd_distance_solve'; then
    cat "$out/negative_valgrind.log"; echo "negative control: valgrind missed the uninitialised read"; exit 1
fi
echo "valgrind negative control: uninitialised read caught inside xpbd_distance_solve"
