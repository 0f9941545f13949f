#!/usr/bin/env bash
# The shared library (tools/c-lib.sh --shared, docs/install.md):
# libxpbd.so.X.Y.Z with SONAME libxpbd.so.0, exporting exactly the header's
# xpbd_* functions, needing only libc's memory functions; loaded with dlopen
# (RTLD_NOW), and the C test program linked against it and run.
set -euo pipefail
dir=target/ci-shared
rm -rf "$dir" && mkdir -p "$dir"
tools/c-lib.sh --shared > "$dir/build.log" 2>&1 || { cat "$dir/build.log"; exit 1; }
lib=target/release/c
so=$(readlink -f "$lib/libxpbd.so.0")
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libxpbd.so.0 ] || { echo "SONAME is '$soname', not libxpbd.so.0"; exit 1; }
readelf -d "$so" | grep -q 'NEEDED.*libc\.so' || { echo "$so does not record libc as NEEDED"; exit 1; }
grep -o 'xpbd_[a-z0-9_]*(' include/xpbd.h | tr -d '(' | sort -u > "$dir/header.txt"
nm -D --defined-only "$so" | awk '{ print $3 }' | sort -u > "$dir/exports.txt"
cmp "$dir/header.txt" "$dir/exports.txt" || { diff "$dir/header.txt" "$dir/exports.txt"; exit 1; }
nm -D --undefined-only "$so" | awk '$1 == "U" { print $2 }' | sort -u > "$dir/imports.txt"
extra=$(grep -vxE '(memcpy|memmove|memset|memcmp|bcmp)(@.*)?' "$dir/imports.txt" || true)
[ -z "$extra" ] || { echo "libxpbd.so needs: $extra"; exit 1; }
echo "$(basename "$so"): $(stat -c %s "$so") B, SONAME $soname, $(wc -l < "$dir/exports.txt") exports (all xpbd_*), imports: $(tr '\n' ' ' < "$dir/imports.txt")"

cc -std=c99 -Wall -Wextra -Wpedantic -Werror -Iinclude .ci/fixtures/dlopen/main.c -ldl -o "$dir/dlopen_test"
"$dir/dlopen_test" "$(pwd)/$lib/libxpbd.so.0"

cc -std=c99 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -DXPBD_TEST_STANDALONE \
    -Iinclude ffi-tests/c/*.c -L"$lib" -lxpbd -lm -Wl,-rpath,"$(pwd)/$lib" -o "$dir/xpbd_c_tests"
readelf -d "$dir/xpbd_c_tests" | grep -q 'NEEDED.*libxpbd\.so\.0' || { echo "the test program is not linked to libxpbd.so.0"; exit 1; }
"$dir/xpbd_c_tests" | tail -1
echo "shared library: SONAME, exports, dlopen and the C test program: ok"
