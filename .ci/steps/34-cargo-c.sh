#!/usr/bin/env bash
# The cargo-c path of docs/install.md with Debian's cargo-c (0.9.14): the
# `capi` feature and [package.metadata.capi] give `cargo cinstall` a
# libxpbd.a, libxpbd.so.0.1.0 with SONAME libxpbd.so.0 and its links,
# xpbd.pc and the committed headers xpbd.h and xpbd.hpp under a prefix. 0.9.14 embeds an old cargo that reads neither this
# workspace (edition-2024 dependencies of the tests and tools) nor the sparse
# index, so it builds the library alone, as a distribution packages the
# crate: src/, include/ and Cargo.toml without dev-dependencies, with libm
# vendored from cargo's cache. Its .so is then loaded with dlopen, and a C
# program is built through its xpbd.pc.
set -euo pipefail
bash .ci/apt-install.sh cargo-c pkg-config >/dev/null
root=$(pwd)
dir=$root/target/ci-cargo-c
rm -rf "$dir" && mkdir -p "$dir/crate"
cp -r src include README.md Cargo.lock "$dir/crate/"
awk '
    /^\[/ { skip = ($0 ~ /^\[(dev-dependencies|workspace|profile\.test)[].]/) }
    /^exclude = / || /^members = / { next }
    !skip { print }
' Cargo.toml > "$dir/crate/Cargo.toml"
printf '\n[workspace]\n' >> "$dir/crate/Cargo.toml"
(cd "$dir/crate" && cargo vendor -q vendor > /dev/null)
cfg=(--config 'source.crates-io.replace-with="vendored"' --config "source.vendored.directory=\"$dir/crate/vendor\"")
# Until the library defines rust_eh_personality itself, a .so that cargo-c
# builds (rlib and cdylib in one rustc call) names it: bind it as
# tools/c-lib.sh does (docs/install.md, "cargo-c").
(cd "$dir/crate" && RUSTFLAGS="-C link-arg=-Wl,--defsym=rust_eh_personality=0" \
    cargo cinstall --release --offline "${cfg[@]}" --prefix=/usr --destdir="$dir/dest" > "$dir/cinstall.log" 2>&1) ||
    { cat "$dir/cinstall.log"; exit 1; }
lib=$dir/dest/usr/lib
for f in lib/libxpbd.a lib/libxpbd.so.0.1.0 lib/libxpbd.so.0 lib/libxpbd.so lib/pkgconfig/xpbd.pc \
         include/xpbd.h include/xpbd.hpp; do
    test -e "$dir/dest/usr/$f" || { echo "cargo cinstall did not install $f"; find "$dir/dest"; exit 1; }
done
soname=$(readelf -d "$lib/libxpbd.so.0.1.0" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libxpbd.so.0 ] || { echo "cargo-c SONAME is '$soname'"; exit 1; }
grep -o 'xpbd_[a-z0-9_]*(' include/xpbd.h | tr -d '(' | sort -u > "$dir/header.txt"
nm -D --defined-only "$lib/libxpbd.so.0.1.0" | awk '{ print $3 }' | sort -u > "$dir/exports.txt"
cmp "$dir/header.txt" "$dir/exports.txt"
cc -std=c99 -Wall -Wextra -Werror -Iinclude .ci/fixtures/dlopen/main.c -ldl -o "$dir/dlopen_test"
"$dir/dlopen_test" "$lib/libxpbd.so.0"
cmp include/xpbd.h "$dir/dest/usr/include/xpbd.h"
cmp include/xpbd.hpp "$dir/dest/usr/include/xpbd.hpp"
export PKG_CONFIG_PATH="$lib/pkgconfig"
flags=$(pkg-config --define-prefix --cflags --libs xpbd)
cc -std=c99 examples/c/rope.c $flags -Wl,-rpath,"$lib" -lm -o "$dir/rope"
"$dir/rope" | tail -1
# Without the binding (shown, not required): the issue's symptom.
(cd "$dir/crate" && cargo cbuild --release --offline "${cfg[@]}" --target-dir "$dir/plain" > "$dir/plain.log" 2>&1) ||
    { cat "$dir/plain.log"; exit 1; }
if "$dir/dlopen_test" "$(ls "$dir"/plain/*/release/libxpbd.so)" > "$dir/plain-dlopen.log" 2>&1; then
    echo "(cargo-c's .so loads without the rust_eh_personality binding too)"
else
    echo "without the binding, cargo-c's .so does not load: $(cat "$dir/plain-dlopen.log")"
fi
echo "cargo-c $(dpkg-query -W -f='${Version}' cargo-c): libxpbd.so.0 ($(stat -c %s "$lib/libxpbd.so.0.1.0") B, $(wc -l < "$dir/exports.txt") exports), libxpbd.a, xpbd.pc, headers: ok"
