#!/usr/bin/env bash
# The cargo-c path of README.md and docs/install.md with the cargo-c Debian
# 12 ships (0.9.14): the `capi` feature and [package.metadata.capi] give
# `cargo cinstall` a libxpbd.a, libxpbd.so.0.1.0 with SONAME libxpbd.so.0
# and its links, xpbd.pc and the committed headers xpbd.h and xpbd.hpp under
# a prefix. 0.9.14 embeds an old cargo that reads neither this workspace
# (`debug = "line-tables-only"`, edition-2024 dependencies of the tests and
# tools) nor the sparse index, so it builds the library alone, as a
# distribution packages the crate (docs/install.md gives the same recipe):
# src/, include/ and Cargo.toml without dev-dependencies, with libm vendored
# from cargo's cache. The plain `cargo cinstall`, no RUSTFLAGS: `capi`
# enables c-lib-panic-handler, so the library defines its own hidden,
# trapping rust_eh_personality (src/ffi/mod.rs) and the .so must import
# nothing but libc's memory functions. Its exports are checked against the
# header, it is loaded with dlopen, and the C test program and
# examples/c/rope.c (through xpbd.pc) are linked against it and run.
set -euo pipefail
bash .ci/apt-install.sh cargo-c pkg-config >/dev/null
# The cargo-c version the docs name is the one installed here.
deb=$(dpkg-query -W -f='${Version}' cargo-c)
bash .ci/figures.sh README.md "Debian 12.s cargo-c #" "${deb%%-*}" \
    docs/install.md "Debian 12 ships, #" "${deb%%-*}" docs/install.md "Debian 12.s cargo-c #" "${deb%%-*}"
root=$(pwd)
dir=$root/target/ci-cargo-c
rm -rf "$dir" && mkdir -p "$dir/crate"
cp -r src include README.md Cargo.lock "$dir/crate/"
awk '
    /^\[/ { skip = ($0 ~ /^\[(dev-dependencies|workspace|profile\.(test|dev))[].]/) }
    /^exclude = / || /^members = / { next }
    !skip { print }
' Cargo.toml > "$dir/crate/Cargo.toml"
printf '\n[workspace]\n' >> "$dir/crate/Cargo.toml"
(cd "$dir/crate" && cargo vendor -q vendor > /dev/null)
cfg=(--config 'source.crates-io.replace-with="vendored"' --config "source.vendored.directory=\"$dir/crate/vendor\"")
(cd "$dir/crate" && cargo cinstall --release --offline "${cfg[@]}" --prefix=/usr --destdir="$dir/dest" \
    > "$dir/cinstall.log" 2>&1) || { cat "$dir/cinstall.log"; exit 1; }
lib=$dir/dest/usr/lib
for f in lib/libxpbd.a lib/libxpbd.so.0.1.0 lib/libxpbd.so.0 lib/libxpbd.so lib/pkgconfig/xpbd.pc \
         include/xpbd.h include/xpbd.hpp; do
    test -e "$dir/dest/usr/$f" || { echo "cargo cinstall did not install $f"; find "$dir/dest"; exit 1; }
done
soname=$(readelf -d "$lib/libxpbd.so.0.1.0" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libxpbd.so.0 ] || { echo "cargo-c SONAME is '$soname'"; exit 1; }
grep -o 'xpbd_[a-z0-9_]*(' include/xpbd.h | tr -d '(' | sort -u > "$dir/header.txt"
nm -D --defined-only "$lib/libxpbd.so.0.1.0" | awk '{ print $3 }' | sort -u > "$dir/exports.txt"
cmp "$dir/header.txt" "$dir/exports.txt" || { diff "$dir/header.txt" "$dir/exports.txt"; exit 1; }
so=$lib/libxpbd.so.0.1.0
# What the .so needs from elsewhere: libc's memory functions only; above all
# no rust_eh_personality (the issue's symptom: dlopen fails). The library's
# own definition is there, local.
# (nm's output goes to files first: `nm | grep -q` fails under pipefail
# when grep stops reading at its first match and nm gets SIGPIPE.)
nm -D --undefined-only "$so" > "$dir/undefined.txt"
nm "$so" > "$dir/symbols.txt"
awk '$1 == "U" { print $2 }' "$dir/undefined.txt" | sort -u > "$dir/imports.txt"
if grep -q rust_eh_personality "$dir/undefined.txt"; then
    echo "cargo-c's libxpbd.so leaves rust_eh_personality undefined (is capi -> c-lib-panic-handler on?)"; exit 1
fi
extra=$(grep -vxE '(memcpy|memmove|memset|memcmp|bcmp)(@.*)?' "$dir/imports.txt" || true)
[ -z "$extra" ] || { echo "cargo-c's libxpbd.so needs: $extra"; exit 1; }
grep -qE '^[0-9a-f]+ t rust_eh_personality$' "$dir/symbols.txt" ||
    { echo "cargo-c's libxpbd.so lacks the library's local rust_eh_personality"; grep personality "$dir/symbols.txt"; exit 1; }
# As docs/install.md says of 0.9.14's .so: no NEEDED libc, core's debug info kept.
grep -q 'NEEDED.*libc\.so' <(readelf -d "$so") && { echo "cargo-c's .so now records libc as NEEDED: update docs/install.md"; exit 1; }
grep -q '\.debug_info' <(readelf -S "$so") || { echo "cargo-c's .so has no debug info now: update docs/install.md"; exit 1; }
cc -std=c99 -Wall -Wextra -Werror -Iinclude .ci/fixtures/dlopen/main.c -ldl -o "$dir/dlopen_test"
"$dir/dlopen_test" "$lib/libxpbd.so.0"
cmp include/xpbd.h "$dir/dest/usr/include/xpbd.h"
cmp include/xpbd.hpp "$dir/dest/usr/include/xpbd.hpp"
# The C test program (every function of the header) against the .so.
cc -std=c99 -Wall -Wextra -Wpedantic -Werror -ffp-contract=off -DXPBD_TEST_STANDALONE \
    -I"$dir/dest/usr/include" ffi-tests/c/*.c -L"$lib" -lxpbd -lm -Wl,-rpath,"$lib" -o "$dir/xpbd_c_tests"
grep -q 'NEEDED.*libxpbd\.so\.0' <(readelf -d "$dir/xpbd_c_tests") || { echo "the C test program is not linked to libxpbd.so.0"; exit 1; }
"$dir/xpbd_c_tests" | tail -1
# A program built through the installed xpbd.pc (relocated from the DESTDIR).
export PKG_CONFIG_PATH="$lib/pkgconfig"
flags=$(pkg-config --define-prefix --cflags --libs xpbd)
cc -std=c99 examples/c/rope.c $flags -Wl,-rpath,"$lib" -lm -o "$dir/rope"
grep -q 'NEEDED.*libxpbd\.so\.0' <(readelf -d "$dir/rope") || { echo "rope is not linked to libxpbd.so.0"; exit 1; }
"$dir/rope" | tail -1
echo "cargo-c $deb: libxpbd.so.0 ($(stat -c %s "$so") B, $(wc -l < "$dir/exports.txt") exports, imports: $(tr '\n' ' ' < "$dir/imports.txt")), libxpbd.a, xpbd.pc, headers: ok"
