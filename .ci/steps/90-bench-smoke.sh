#!/usr/bin/env bash
# The speed benchmark in quick mode (small sizes, 2 repetitions): proves that
# every figure and ratio is produced and that every Rust kernel's result
# equals its hand-written C reference bit for bit. It never judges timing:
# the full run (`cargo bench -p xpbd-bench`) and its figures are in README.md, "Speed".
# Built with `--profile release`: the bench profile has the release profile's
# settings (the workspace sets none of its own), and under that name the
# library (xpbd, libm) is the one step 45 built for the examples, not a
# second compilation of it.
set -euo pipefail
log=target/bench-smoke.txt
mkdir -p target
if ! XPBD_BENCH_QUICK=1 cargo bench --profile release -p xpbd-bench --bench speed >"$log" 2>&1; then
    cat "$log"
    echo "bench smoke: the benchmark failed (see above)"
    exit 1
fi
for needed in "1D seed solve, C ABI called from C" "Rust colored SoA" "C colored SoA" \
    "Rust sequential" "C sequential" "2 threads" "ratio (ours / reference)" "memory, f64" \
    "bend: cloth" "tet: block" "tether: pinned cloth" "mesh: icosphere" \
    "sequential, ours / C (median of A/B pairs)" "Rust colored, 1 thread" "C in colored order" \
    "colored, ours / C (median of A/B pairs)" "self f64 n = 1024: ours / C" "self f32 n = 4096: ours / C" \
    "colored SoA, ours / C red-black baseline" "colored SoA, ours / C red-black -march=native" \
    "sequential, ours / C plain Gauss-Seidel" "sequential, ours / C PositionBasedDynamics formula" \
    "kframe bends N=20 f64: kind's share" "kframe tethers N=20 f32: kind's share" \
    "kframe tets N=20 f64: kind's share" "character skin N=20 f64: kind's share" \
    "character wind N=20 f64: kind's share" "character local space N=20 f64: kind's share"; do
    if ! grep -q "$needed" "$log"; then
        cat "$log"
        echo "bench smoke: no figure for '$needed'"
        exit 1
    fi
done
# Every kind (bend, tet, tether, mesh) has its sequential and its colored
# ratio line.
for mode in sequential colored; do
    rows=$(grep -v '^|' "$log" | grep -c ": $mode, ours / C (median of A/B pairs)" || true)
    if [ "$rows" -lt 4 ]; then
        cat "$log"
        echo "bench smoke: $rows $mode kind rows, expected 4 (bend, tet, tether, mesh)"
        exit 1
    fi
done
sed -n '/^case /,$p' "$log"
