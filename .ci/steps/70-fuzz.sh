#!/usr/bin/env bash
# cargo-fuzz (libFuzzer + ASan, debug assertions) on every C entry point,
# grouped by area (distance_f64, distance_f32, status_str, system, step,
# colored, groups: the constraint-group ABI, bends / tets / tethers / mesh
# volumes through begin / iterate / iterate_until / measure / step and the
# tether builders, Euclidean and along links):
# fuzz/fuzz_targets/*.rs, 60 s each (FUZZ_SECONDS to change it; FUZZ_JOBS
# targets at a time, default one per core), from an
# empty corpus. Any crash, sanitizer report or failed invariant (a status
# outside the documented set, memory that differs from the SPEC model, a
# write on error) fails the step. Prints executions per second and corpus
# size per target (target/fuzz-summary.txt).
set -euo pipefail
seconds="${FUZZ_SECONDS:-60}"
rustup run nightly rustc --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
mkdir -p target
summary="$PWD/target/fuzz-summary.txt"
: > "$summary"
cd fuzz
cargo fmt --check
cargo clippy --all-targets -- -D warnings
cargo +nightly fuzz build
# Targets run FUZZ_JOBS at a time (default: one per core), each libFuzzer
# process on its own core for the full time: the same per-target budget.
jobs="${FUZZ_JOBS:-$(nproc)}"
run_one() {
    local t=$1 log="../target/fuzz-$1.log"
    cargo +nightly fuzz run "$t" -- -max_total_time="$seconds" -print_final_stats=1 > "$log" 2>&1
}
targets=($(cargo +nightly fuzz list))
for ((s0 = 0; s0 < ${#targets[@]}; s0 += jobs)); do
    batch=("${targets[@]:s0:jobs}")
    echo "--- fuzzing ${batch[*]} for ${seconds} s each"
    pids=()
    for t in "${batch[@]}"; do run_one "$t" & pids+=($!); done
    for i in "${!batch[@]}"; do
        if ! wait "${pids[$i]}"; then
            tail -n 60 "../target/fuzz-${batch[$i]}.log"
            echo "fuzz target ${batch[$i]} failed"
            exit 1
        fi
    done
done
for t in "${targets[@]}"; do
    log="../target/fuzz-$t.log"
    runs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
    rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
    # libFuzzer's final corpus: units and total size (from its DONE line).
    corpus=$(grep -oE 'DONE .* corp: [0-9]+/[0-9a-zA-Z]+' "$log" | grep -oE '[0-9]+/[0-9a-zA-Z]+$' | tail -n 1)
    printf '%-14s %10s runs in %3s s %8s exec/s  corpus %s (units/size)\n' "$t" "$runs" "$seconds" "$rate" "$corpus" | tee -a "$summary"
done
