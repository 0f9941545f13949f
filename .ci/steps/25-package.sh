#!/usr/bin/env bash
# The published crate: `cargo package` holds what a user needs (library, C
# header, Rust examples and tests, README, licences, changelog, docs) and no
# CI scripts or workspace-only parts, and every target of the unpacked .crate
# builds on its own: `cargo check --all-targets` inside it, as a user who
# downloaded it would run it (no workspace around it, its own Cargo.lock).
# Runs on the committed tree: cargo refuses uncommitted changes to packaged
# files (untracked ones included), so a dirty checkout fails here.
set -euo pipefail
version=$(sed -n 's/^version = "\([^"]*\)"$/\1/p' Cargo.toml | head -n 1)
[ -n "$version" ] || { echo "package: no version in Cargo.toml"; exit 1; }
mkdir -p target
list=target/package-files.txt
cargo package --locked --list -p xpbd >"$list"

bad=$(grep -E '^(\.ci|\.cargo|fuzz|scenarios|ffi-tests|bench|benches|tools|target|examples/firmware|examples/codesize)/' "$list" || true)
if [ -n "$bad" ]; then
    echo "package: files that are no part of the published crate:"; echo "$bad"; exit 1
fi
for needed in Cargo.toml Cargo.lock README.md LICENSE-MIT LICENSE-APACHE CHANGELOG.md \
    include/xpbd.h src/lib.rs; do
    grep -qx "$needed" "$list" || { echo "package: $needed is missing"; cat "$list"; exit 1; }
done

# --no-verify: the check below builds more than cargo's own verification (the
# library only) would.
cargo package --locked --no-verify -p xpbd --quiet
crate=target/package/xpbd-$version.crate
test -f "$crate"
unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
tar -xzf "$crate" -C "$unpacked"
# Outside the repository, so no workspace or .cargo/config.toml of this
# checkout is seen. The build output goes to the checkout's target/, where
# step 10's clippy left the dependencies checked (same versions, features
# and profile): only the unpacked crate's own targets are checked anew.
target_dir=$(pwd)/target
(cd "$unpacked/xpbd-$version" && CARGO_TARGET_DIR="$target_dir" cargo check --all-targets --locked --quiet)
echo "package: xpbd-$version.crate, $(wc -l <"$list") files; cargo check --all-targets passes in it"
