#!/usr/bin/env bash
# No panic path: the exported C functions cannot reach a panic in the release
# static library.
#
# A C program whose main does nothing is linked against target/release/
# libxpbd.a with -Wl,--gc-sections and -Wl,--undefined=<fn> for every
# function declared in include/xpbd.h: the linker keeps exactly the code
# reachable from the exported functions. If any of it could panic, core's
# panic machinery (core::panicking::*, the panic handler rust_begin_unwind,
# unwrap_failed, bounds-check failures, ...) would be kept with it and named
# in the program's symbol table. The check fails if any such symbol is there,
# and also if an exported function is missing from the program (the header
# and the archive must agree). As a control, the same pattern must match in
# the archive itself, which does contain core's panic machinery.
# The same check for the Cortex-M4F image runs in step 75 (code size).
set -euo pipefail
cargo c-lib
lib=target/release/libxpbd.a
out=target/no-panic
mkdir -p "$out"
nm="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin/llvm-nm"
panic_re='panic|rust_begin_unwind|unwrap_failed|expect_failed|slice_(start|end)_index|index_len_fail|str_index|unreachable|_Unwind_Resume'

grep -oE '\bxpbd_[a-z0-9_]+\(' include/xpbd.h | tr -d '(' | sort -u > "$out/exported.txt"
[ -s "$out/exported.txt" ] || { echo "no functions found in include/xpbd.h"; exit 1; }
undefs=()
while read -r f; do undefs+=("-Wl,--undefined=$f"); done < "$out/exported.txt"
printf 'int main(void) { return 0; }\n' > "$out/main.c"
cc -O2 "$out/main.c" "$lib" -Wl,--gc-sections "${undefs[@]}" -o "$out/keep-all"

"$nm" --demangle "$out/keep-all" > "$out/keep-all.nm"
"$nm" --defined-only "$out/keep-all" | awk '$2 ~ /^[Tt]$/ {print $3}' | sort -u > "$out/kept-functions.txt"
missing=$(comm -23 "$out/exported.txt" "$out/kept-functions.txt")
[ -z "$missing" ] || { echo "exported functions missing from the linked program: $missing"; exit 1; }

# Control: the pattern does find core's panic machinery where it exists.
"$nm" --demangle "$lib" > "$out/archive.nm" 2>/dev/null || true
grep -Eq "$panic_re" "$out/archive.nm" || { echo "control failed: no panic symbol found in the archive"; exit 1; }

if grep -E "$panic_re" "$out/keep-all.nm"; then
    echo "a panic path is reachable from the exported functions (symbols above)"
    exit 1
fi
echo "no panic path: $(wc -l < "$out/exported.txt") exported functions kept, $(grep -cE "$panic_re" "$out/archive.nm") panic-related symbols in the archive, 0 in the linked program"
