#!/usr/bin/env bash
# The C and C++ examples (3D rope and cloth; the C soft body and attachments), built with the README's plain compiler lines
# against target/release/libxpbd.a (gcc and clang, warnings as errors) and
# run: each checks its own output and exits non-zero on a mismatch.
set -euo pipefail
command -v clang >/dev/null || bash .ci/apt-install.sh clang >/dev/null
cargo c-lib
dir=target/ci-examples
mkdir -p "$dir"
strict="-Wall -Wextra -Wpedantic -Werror"
for ex in rope cloth; do
    for cc in gcc clang; do
        $cc -std=c99 $strict -Iinclude examples/c/$ex.c target/release/libxpbd.a -Wl,--gc-sections -o "$dir/${ex}_c_$cc"
        "$dir/${ex}_c_$cc" > "$dir/${ex}_c_$cc.txt"
    done
    # rope.cpp: xpbd.h alone, C++11; cloth.cpp: include/xpbd.hpp, C++17.
    if [ "$ex" = cloth ]; then std=c++17; else std=c++11; fi
    for cxx in g++ clang++; do
        $cxx -std=$std $strict -Iinclude examples/cpp/$ex.cpp target/release/libxpbd.a -Wl,--gc-sections -o "$dir/${ex}_cpp_$cxx"
        "$dir/${ex}_cpp_$cxx" > "$dir/${ex}_cpp_$cxx.txt"
    done
    # The same program from both compilers prints the same thing.
    cmp "$dir/${ex}_c_gcc.txt" "$dir/${ex}_c_clang.txt"
    cmp "$dir/${ex}_cpp_g++.txt" "$dir/${ex}_cpp_clang++.txt"
    cat "$dir/${ex}_c_gcc.txt" "$dir/${ex}_cpp_g++.txt"
done
# The C soft body (a tet block through xpbd_build_tet_block3, stepped by
# xpbd_world3_step with a groups block): C only, no fused multiply-add in its
# volume sums.
for cc in gcc clang; do
    $cc -std=c99 $strict -ffp-contract=off -Iinclude examples/c/soft_body.c target/release/libxpbd.a -Wl,--gc-sections -o "$dir/soft_body_c_$cc"
    "$dir/soft_body_c_$cc" > "$dir/soft_body_c_$cc.txt"
done
cmp "$dir/soft_body_c_gcc.txt" "$dir/soft_body_c_clang.txt"
cat "$dir/soft_body_c_gcc.txt"
# The C attachments example (a rope whirled on a moving attachment with its
# force read back, a sheet torn apart by two columns of attachments): C only,
# its own libm calls (sin, cos, sqrt), no fused multiply-add.
for cc in gcc clang; do
    $cc -std=c99 $strict -ffp-contract=off -Iinclude examples/c/attach.c target/release/libxpbd.a -Wl,--gc-sections -lm -o "$dir/attach_c_$cc"
    "$dir/attach_c_$cc" > "$dir/attach_c_$cc.txt"
done
cmp "$dir/attach_c_gcc.txt" "$dir/attach_c_clang.txt"
cat "$dir/attach_c_gcc.txt"
