#!/usr/bin/env bash
# Miri: the interpreter reports undefined behaviour in the code it runs. In
# this crate `unsafe` lives only at the FFI boundary (src/ffi) and in the
# colored kernels (src/colored: SIMD kernels, layout raw views, job ranges),
# so Miri runs the tests that reach those: the unit tests, every test file
# that calls a C entry point or a colored sweep, kernel or job range
# (tests/ffi_rust.rs with null, aliased, raw-parts and uninitialised
# pointers, the hostile_* files, the colored_* files, ...) and
# the shared scenarios (checks and the hash scenario's C-ABI part). libm is
# used without its `arch` feature (inline asm).
#
# Not under Miri (they run natively in step 20): the test files in
# `native_only` below. They drive safe Rust only (the world step, System,
# builders, constraints: no C entry point, no colored kernel or job range,
# no `unsafe` of their own), where the interpreter found nothing and took
# about 4 minutes (moving_colliders alone 104 s). The step checks that they
# still contain none of the markers of unsafe code (`unsafe`, an `xpbd_*(`
# call, `extern "C"`, SimdLinks, iterate_colored, `.colored(`,
# `.jobs(`); a file that gains one must leave the list. A new test file is
# under Miri unless it is added to the list.
#
# Under Miri the remaining tests run smaller cases (`cfg!(miri)`: fewer
# particles, still past the lane widths, chunk remainders and job splits
# the kernels have; one sweep, substep or iteration where a second runs the
# same calls; one frame; jobs on 1 and 3 threads, or 2-3 where every color
# is one chunk; one refusal of each kind where a list repeats a path, the
# f64 and f32 twins of a generic pointer check splitting the cases between
# them; the colored runs held to each other where the reference is a safe
# sequential sweep; 3 proptest cases, drawn with xorshift) and skip their
# safe-Rust tests (`#[cfg_attr(miri, ignore = "...")]`, the reason naming
# the test that runs the same unsafe paths there; among the unit tests the
# spatial hash's, the in-place kernels', atan2's, the tet pair kernel's,
# the seed's fast path and the reciprocal rule). Every C entry point, kernel
# path (Miri's `Isa::detect()` is the baseline), job range and NULL,
# aliased or forged pointer case these tests reach still runs there at
# least once; the native run (step 20) runs every case at full size. No
# doc test runs under Miri: each is compiled anew for the interpreter (the
# six that reached unsafe code took 82 s; without the two of
# `step_colored`, 3 s of runs and a build each), and what the ones reaching unsafe code run (`SimdLinks`,
# `step_colored`, `Jobs`, `Isa`, `fp_environment`) the test files here
# run under Miri too (colored, colored_step, colored_isa, fp_environment);
# the others drive safe Rust only, as the `native_only` files do.
#
# The interpreter runs on one host thread, so the tests run as two
# concurrent groups (one per core), balanced by their Miri times (the
# interpreter's virtual clock, which libtest prints as "finished in"; it
# counts basic blocks, so it does not depend on the machine's load):
# A = the unit tests (78 s), colored 35, hostile_c 32 (its header-text
# checks run natively only), hostile_engine_world 20 (with its fields
# module, issue 36's C arrays: 10), hostile_groups 18, colored_step_entry
# 16, hostile_colored_groups 12, tearing 10, colored_proptests 6-8 (its
# random systems vary): about 235 s;
# B = every other file in tests/ not in `native_only` (colored_step 31,
# colored_groups 31, colored_neighbours 29, c_builders 21,
# hostile_self_collision 19, hostile_groups_world 16, no_alloc 14,
# character_cloth 11, attachment 10, hostile_colored_step 10,
# bounded_calls 6, ...) and the scenarios (15, of which the hash's C-ABI
# sequence, its first 750 calls, checked against their own constant, 14):
# about 226 s. (2026-12-07, this pass: 720 s of virtual time before, 451 s
# after, each file measured before and after it, pressure_checks (System
# refusals, safe Rust) moved to `native_only`; the step alone then took
# 269 s wall and 525 s of CPU. The same day before it, the
# character-cloth tests' safe-Rust cases, one iteration of
# hostile_colored_groups' threads and the f32 twins of
# hostile_engine_world's pointer checks left Miri: about 55 s less;
# on 2026-12-06 and in the session before, 490 and 485 s,
# 1,240 and 1,215 s wall beside the other steps, which put CI at 1,384 s:
# then the safe-Rust unit tests above were taken out of Miri, the
# doc tests, and one of soa_frame's two cases.) B is
# computed from the directory, so a new test file is never left out (it
# lands in B). Both groups build in one target directory: cargo holds its
# lock only while it builds, so B's build waits for A's, then reuses the
# library and the dependencies built for the interpreter (one build of
# them instead of two) and runs beside A. Each group prints its wall and
# CPU time (CPU time is about the wall time on an idle core).
set -euo pipefail
rustup run nightly rustc --version >/dev/null 2>&1 || rustup toolchain install nightly --profile minimal
rustup +nightly component add miri rust-src
cargo +nightly miri setup

group_a=(colored colored_proptests hostile_colored_groups hostile_groups tearing hostile_c colored_step_entry hostile_engine_world)
native_only=(architecture bend engine_contacts frame_transaction hanging_rope moving_colliders pressure pressure_checks resting_contacts seed_figures self_collision step_colored_2d system system_proptests tether tether_links volume)
markers='unsafe|xpbd_[a-z0-9_]+\(|extern "C"|SimdLinks|iterate_colored|\.colored\(|\.jobs\('
for name in "${native_only[@]}"; do
    f="tests/$name.rs"
    [ -f "$f" ] || { echo "60-miri: $f is gone; update native_only"; exit 1; }
    # The file and the modules it includes with #[path].
    files=("$f")
    while IFS= read -r inc; do files+=("tests/$inc"); done < <(sed -n 's/^#\[path = "\(.*\)"\]/\1/p' "$f")
    if grep -nE "$markers" "${files[@]}"; then
        echo "60-miri: $f reaches unsafe code (above); take it out of native_only"
        exit 1
    fi
done
group_b=()
for f in tests/*.rs; do
    name=$(basename "$f" .rs)
    case " ${group_a[*]} ${native_only[*]} " in *" $name "*) ;; *) group_b+=(--test "$name") ;; esac
done
args_a=(--lib)
for name in "${group_a[@]}"; do
    [ -f "tests/$name.rs" ] || { echo "60-miri: tests/$name.rs is gone; update group A"; exit 1; }
    args_a+=(--test "$name")
done

# Deterministic floats: by default the interpreter perturbs the results of
# some floating-point operations by a few ulps at random (modelling
# platforms whose math is inexact), among them the SIMD square roots of
# the colored kernels, so a colored frame would differ from the
# sequential one it is compared with bit for bit. Every target this crate
# supports computes them correctly rounded (IEEE 754), as the native
# tests check; with the flag the interpreter does too.
export MIRIFLAGS="${MIRIFLAGS:-} -Zmiri-deterministic-floats"

logs=$(mktemp -d)
run_group() { # name, command...
    local g=$1 rc=0 start
    shift
    start=$(date +%s)
    "$@" >"$logs/$g.log" 2>&1 || rc=$?
    echo "$(( $(date +%s) - start ))" >"$logs/$g.time"
    echo "$rc" >"$logs/$g.rc"
    # CPU time of the group's processes (user + system), from `times`.
    times >"$logs/$g.times"
    sed -n 2p "$logs/$g.times" >"$logs/$g.cpu"
}
run_group a cargo +nightly miri test -p xpbd "${args_a[@]}" &
run_group b bash -euo pipefail -c '
    cargo +nightly miri test -p xpbd "$@"
    cargo +nightly miri test -p xpbd-scenarios
' group-b "${group_b[@]}" &
wait
status=0
for g in a b; do
    echo "--- Miri group $g ($(cat "$logs/$g.time" 2>/dev/null || echo '?') s wall; CPU user/system: $(cat "$logs/$g.cpu" 2>/dev/null || echo '?'))"
    cat "$logs/$g.log"
    rc=$(cat "$logs/$g.rc" 2>/dev/null || echo 1)
    [ "$rc" = 0 ] || { echo "60-miri: group $g failed (exit $rc)"; status=1; }
done
rm -rf "$logs"
exit "$status"
