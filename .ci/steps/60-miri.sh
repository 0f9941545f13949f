#!/usr/bin/env bash
# Miri: the crate's tests (unit, integration incl. tests/ffi_rust.rs with
# null, aliased, raw-parts and uninitialised pointers, proptests with 4 cases
# each under Miri, doc tests) and the shared scenarios (checks and the hash
# scenario through the C ABI) run in the interpreter, which reports any
# undefined behaviour. libm is used without its `arch` feature (inline asm).
# Under Miri the tests run smaller cases (`cfg!(miri)`: fewer sweeps, frames
# and cases, proptests drawing with xorshift) and skip the large safe-Rust
# simulations and checks (`#[cfg_attr(miri, ignore)]`); every C entry point
# and kernel path they test still runs there. The doc tests skip the two
# frame loops, `step::step`'s example and the README's (safe Rust, two
# minutes in the interpreter; `--skip ReadmeDoctests` takes the README's
# three blocks).
#
# The interpreter runs on one host thread, so the tests run as two
# concurrent groups (one per core; their times are printed):
# A = the unit tests, the colored kernel and colored group tests, the
# hostile group tests, the system and the tearing tests, B = every other file in
# tests/, the doc tests and the scenarios (balanced by their Miri times;
# B, which gains the new test files, a little lighter). B is computed from
# the directory, so a new test file is never left out. Each group has its
# own target directory (no waiting on cargo's build lock) and prints its
# time.
set -euo pipefail
rustup run nightly rustc --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
rustup +nightly component add miri rust-src
cargo +nightly miri setup

group_a=(colored colored_neighbours colored_proptests colored_groups hostile_colored_groups hostile_groups system tearing)
group_b=()
for f in tests/*.rs; do
    name=$(basename "$f" .rs)
    case " ${group_a[*]} " in *" $name "*) ;; *) group_b+=(--test "$name") ;; esac
done
args_a=(--lib)
for name in "${group_a[@]}"; do
    [ -f "tests/$name.rs" ] || { echo "60-miri: tests/$name.rs is gone; update group A"; exit 1; }
    args_a+=(--test "$name")
done

logs=$(mktemp -d)
(
    rc=0
    start=$(date +%s)
    cargo +nightly miri test -p xpbd "${args_a[@]}" >"$logs/a.log" 2>&1 || rc=$?
    echo "$(( $(date +%s) - start ))" >"$logs/a.time"
    echo "$rc" >"$logs/a.rc"
) &
(
    rc=0
    start=$(date +%s)
    bash -euo pipefail -c '
        export CARGO_TARGET_DIR=target/miri-b
        cargo +nightly miri test -p xpbd "$@"
        cargo +nightly miri test -p xpbd --doc -- --skip step::step --skip ReadmeDoctests
        cargo +nightly miri test -p xpbd-scenarios
    ' group-b "${group_b[@]}" >"$logs/b.log" 2>&1 || rc=$?
    echo "$(( $(date +%s) - start ))" >"$logs/b.time"
    echo "$rc" >"$logs/b.rc"
) &
wait
status=0
for g in a b; do
    echo "--- Miri group $g ($(cat "$logs/$g.time" 2>/dev/null || echo '?') s)"
    cat "$logs/$g.log"
    rc=$(cat "$logs/$g.rc" 2>/dev/null || echo 1)
    [ "$rc" = 0 ] || { echo "60-miri: group $g failed (exit $rc)"; status=1; }
done
rm -rf "$logs"
exit "$status"
