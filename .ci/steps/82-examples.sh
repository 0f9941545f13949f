#!/usr/bin/env bash
# The C and C++ rope examples, built with the README's plain compiler lines
# against target/release/libxpbd.a (gcc and clang, warnings as errors) and
# run: each checks its own output and exits non-zero on a mismatch.
set -euo pipefail
command -v clang >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang >/dev/null; }
cargo c-lib
dir=target/ci-examples
mkdir -p "$dir"
strict="-Wall -Wextra -Wpedantic -Werror"
for cc in gcc clang; do
    $cc -std=c99 $strict -Iinclude examples/c/rope.c target/release/libxpbd.a -Wl,--gc-sections -o "$dir/rope_c_$cc"
    "$dir/rope_c_$cc" > "$dir/rope_c_$cc.txt"
done
for cxx in g++ clang++; do
    $cxx -std=c++11 $strict -Iinclude examples/cpp/rope.cpp target/release/libxpbd.a -Wl,--gc-sections -o "$dir/rope_cpp_$cxx"
    "$dir/rope_cpp_$cxx" > "$dir/rope_cpp_$cxx.txt"
done
# The same program from both compilers prints the same thing.
cmp "$dir/rope_c_gcc.txt" "$dir/rope_c_clang.txt"
cmp "$dir/rope_cpp_g++.txt" "$dir/rope_cpp_clang++.txt"
cat "$dir/rope_c_gcc.txt" "$dir/rope_cpp_g++.txt"
