#!/usr/bin/env bash
# Instruction counts of the link kernels, ours and the C references, per
# link solve: no wall clock, so a ratio can be judged without the VM's
# run-to-run noise (issue 19 item 3; docs/performance.md). Not part of CI
# (about a minute).
#
# Each kernel runs alone in the bench binary (XPBD_BENCH_ICOUNT=<kernel>,
# bench/src/icount.rs): a 10k-link rope (20 sweeps) or a 100 x 100 cloth
# (5 sweeps), under callgrind with collection on only inside the
# never-inlined `icount_kernel`, which runs the sweeps. Valgrind does not
# decode AVX-512: on such a machine the `-march=native` red-black copy is
# reported "not countable" and `redblack-v3` (-march=x86-64-v3, AVX2)
# stands in for it.
#
# Our colored kernel runs at `Isa::detect()` as valgrind reports the CPU
# (AVX2 on an AVX-512 machine) or, with XPBD_BENCH_ISA_MASK (0: SSE2, the
# C baseline's ISA), a subset, as in the refs section.
#
# Usage: [XPBD_BENCH_ISA_MASK=0] bash bench/icount.sh [kernel-substring ...]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "icount: valgrind not found"; exit 1; }
bin=$(cargo bench -p xpbd-bench --bench speed --no-run --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
[ -x "$bin" ] || { echo "icount: no bench binary"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-34s %14s %12s %10s\n' kernel Ir "link solves" "Ir/solve"
for k in $(XPBD_BENCH_ICOUNT=list "$bin"); do
    if [ $# -gt 0 ]; then
        keep=0
        for want in "$@"; do [[ $k == *"$want"* ]] && keep=1; done
        [ $keep = 1 ] || continue
    fi
    log="$out/$k.log"
    # The braces' 2>/dev/null quiets the shell's note of a killed run (SIGILL).
    if { XPBD_BENCH_ICOUNT=$k valgrind --tool=callgrind --collect-atstart=no \
        '--toggle-collect=*icount_kernel*' --callgrind-out-file="$out/$k.cg" \
        "$bin" >"$log" 2>&1; } 2>/dev/null && grep -q "^icount $k: " "$log"; then
        ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out/$k.cg")
        solves=$(sed -n "s/^icount $k: \([0-9]*\) link solves/\1/p" "$log")
        printf '%-34s %14s %12s %10.1f\n' "$k" "$ir" "$solves" \
            "$(awk -v a="$ir" -v b="$solves" 'BEGIN { print a / b }')"
    else
        why="failed"
        grep -q "unhandled instruction" "$log" && why="not countable (instruction valgrind does not decode, e.g. AVX-512)"
        printf '%-34s %s\n' "$k" "$why"
    fi
done
