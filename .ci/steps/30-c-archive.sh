#!/usr/bin/env bash
# Builds the C static library exactly as the README says, checks its
# undefined symbols, and links and runs the C test program against it with
# the README's link line, so the artifact C users get is what is tested.
set -euo pipefail
# The build requirements README.md and docs/install.md state
# (.ci/figures.sh): the MSRV of Cargo.toml (built by step 86) and the CMake
# minimum of CMakeLists.txt.
msrv=$(sed -n 's/^rust-version = "\([0-9.]*\)"$/\1/p' Cargo.toml)
cmake_min=$(sed -n 's/^cmake_minimum_required(VERSION \([0-9.]*\)).*/\1/p' CMakeLists.txt)
bash .ci/figures.sh README.md 'Rust ≥ #' "$msrv" README.md 'Rust version is \*\*#\*\*' "$msrv" \
    docs/install.md 'Rust ≥ #' "$msrv" docs/install.md '`CMakeLists.txt` \(CMake ≥ #\)' "$cmake_min"
cargo c-lib
cargo c-lib --target thumbv7em-none-eabihf
test -f target/release/libxpbd.a
test -f target/thumbv7em-none-eabihf/release/libxpbd.a

nm="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/llvm-nm"
# Symbols some archive member needs that no member defines: what the C
# program's link must provide. Allowed: the C library's memory functions
# only (rust_eh_personality, which precompiled core's and compiler_builtins'
# unwind tables name, is defined weakly by the archive itself: src/ffi/mod.rs).
"$nm" --undefined-only target/release/libxpbd.a 2>/dev/null | awk 'NF==2 {print $2}' | sort -u > target/c-undefined.txt
"$nm" --defined-only target/release/libxpbd.a 2>/dev/null | awk 'NF==3 {print $3}' | sort -u > target/c-defined.txt
extra=$(comm -23 target/c-undefined.txt target/c-defined.txt | grep -vxE 'memcpy|memmove|memset|memcmp|bcmp' || true)
if [ -n "$extra" ]; then
    echo "libxpbd.a needs symbols the README does not list:"; echo "$extra"; exit 1
fi
echo "undefined symbols of libxpbd.a: $(comm -23 target/c-undefined.txt target/c-defined.txt | tr '\n' ' ')"

# The README's link line, then the C test program standalone.
mkdir -p target/c
cc -std=c99 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -DXPBD_TEST_STANDALONE \
    -Iinclude ffi-tests/c/*.c target/release/libxpbd.a -Wl,--gc-sections -o target/c/xpbd_c_tests
./target/c/xpbd_c_tests

# A C program calling fmod, sin, sqrt and floor: the archive's weak copies
# from compiler_builtins are found before -lm, and their members' unwind
# tables name rust_eh_personality. Linked with the documented flags, with and
# without -Wl,--gc-sections, and run: it checks fmod's exact results.
cc -std=c99 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -Iinclude ffi-tests/link/math.c \
    target/release/libxpbd.a -Wl,--gc-sections -lm -o target/c/math_raw
./target/c/math_raw
cc -std=c99 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -Iinclude ffi-tests/link/math.c \
    target/release/libxpbd.a -lm -o target/c/math_raw_nogc
./target/c/math_raw_nogc

# The header on its own, as C99 and as C++11, warnings as errors.
printf '#include "xpbd.h"\nint main(void) { return xpbd_status_str(0) == 0; }\n' > target/c/header_only.c
cc -std=c99 -Wall -Wextra -Wpedantic -Werror -Iinclude -c target/c/header_only.c -o target/c/header_only_c.o
c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -Iinclude -x c++ -c target/c/header_only.c -o target/c/header_only_cpp.o
