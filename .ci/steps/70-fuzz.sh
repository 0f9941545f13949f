#!/usr/bin/env bash
# cargo-fuzz (libFuzzer + ASan, debug assertions) on every C entry point,
# grouped by area (distance_f64, distance_f32, status_str, system, step,
# colored, groups: the constraint-group ABI, bends / tets / tethers / mesh
# volumes through begin / iterate / iterate_until / measure / step and the
# tether builders, Euclidean and along links; groups_colored;
# step_colored: xpbd_world3_step_colored against the grouped step):
# fuzz/fuzz_targets/*.rs, from an empty corpus. The targets that drive call
# sequences (system, step, colored, groups, groups_colored, step_colored)
# run 6 s each
# (FUZZ_SECONDS); the three single-call targets (distance_f64, distance_f32,
# status_str), whose coverage stops growing within a few seconds, a third
# of that (FUZZ_SHORT_SECONDS, default FUZZ_SECONDS / 3). FUZZ_JOBS targets
# at a time (default one per core: more would only share the cores),
# longest first, the next starting as soon as one ends: 6 × 6 + 3 × 2 =
# 42 s of fuzzing, about 21 s on 2 cores (CI budget: longer runs are a
# FUZZ_SECONDS away). `-len_control=0`: inputs may be long from the first
# run, so the world targets reach their later blocks (the colliders'
# fields, capsules and boxes) within seconds instead of never in a CI run
# (measured: from an empty corpus, 60 s of `step` reached the heightfield
# and SDF surfaces only with it; 4,800 against 7,700 executions per
# second). Any crash, sanitizer report or failed
# invariant (a status outside the documented set, memory that differs from
# the SPEC model, a write on error) fails the step. Prints executions per
# second and corpus size per target (target/fuzz-summary.txt).
set -euo pipefail
seconds="${FUZZ_SECONDS:-6}"
short="${FUZZ_SHORT_SECONDS:-$(( (seconds + 2) / 3 ))}"
short_targets=" distance_f64 distance_f32 status_str "
rustup run nightly rustc --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
mkdir -p target
summary="$PWD/target/fuzz-summary.txt"
: > "$summary"
cd fuzz
cargo fmt --check
cargo +nightly fuzz build
# Clippy (stable) after the build: libfuzzer-sys's build script would compile
# libFuzzer's C++ sources once more for it; CUSTOM_LIBFUZZER_PATH points it
# at the archive the nightly build just made (a check links nothing).
libfuzzer=$(ls target/x86_64-unknown-linux-gnu/release/build/libfuzzer-sys-*/out/libfuzzer.a | head -n 1)
CUSTOM_LIBFUZZER_PATH="$PWD/$libfuzzer" cargo clippy --all-targets -- -D warnings
jobs="${FUZZ_JOBS:-$(nproc)}"
seconds_of() {
    case "$short_targets" in *" $1 "*) echo "$short" ;; *) echo "$seconds" ;; esac
}
run_one() {
    local t=$1 rc=0
    cargo +nightly fuzz run "$t" -- -max_total_time="$(seconds_of "$t")" -len_control=0 -print_final_stats=1 \
        > "../target/fuzz-$t.log" 2>&1 || rc=$?
    echo "$rc" > "../target/fuzz-$t.rc"
}
targets=($(cargo +nightly fuzz list))
# Longest first, so that the short ones fill the cores at the end.
order=($(for t in "${targets[@]}"; do echo "$(seconds_of "$t") $t"; done | sort -k1,1nr -k2,2 | cut -d' ' -f2))
rm -f ../target/fuzz-*.rc
running=0
for t in "${order[@]}"; do
    if ((running >= jobs)); then
        wait -n
        running=$((running - 1))
    fi
    echo "--- fuzzing $t for $(seconds_of "$t") s"
    run_one "$t" &
    running=$((running + 1))
done
wait
failed=0
for t in "${order[@]}"; do
    rc=$(cat "../target/fuzz-$t.rc" 2>/dev/null || echo 1)
    if [ "$rc" != 0 ]; then
        tail -n 60 "../target/fuzz-$t.log"
        echo "fuzz target $t failed (exit $rc)"
        failed=1
    fi
done
[ "$failed" = 0 ] || exit 1
for t in "${targets[@]}"; do
    log="../target/fuzz-$t.log"
    runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
    rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
    # libFuzzer's final corpus: units and total size (from its DONE line).
    corpus=$(grep -oE 'DONE .* corp: [0-9]+/[0-9a-zA-Z]+' "$log" | grep -oE '[0-9]+/[0-9a-zA-Z]+$' | tail -n 1)
    printf '%-14s %10s runs in %3s s %8s exec/s  corpus %s (units/size)\n' "$t" "$runs" "$(seconds_of "$t")" "$rate" "$corpus" | tee -a "$summary"
done
