#!/usr/bin/env bash
# Code size: what a Cortex-M4F firmware pays for the C API.
#
# examples/codesize builds minimal thumbv7em-none-eabihf images (cortex-m-rt,
# linked by rust-lld with --gc-sections): `base` calls nothing, the others
# call one area of the API each (src/areas.rs), `all` calls every function of
# include/xpbd.h. The figure of an area is the growth of .text against
# `base`, soft-float helpers (compiler-builtins' __adddf3, __muldf3, ...)
# included, at opt-level "s" and 3. Fails if a figure passes its target:
#   f32 1D pair <= 1024 B, f32 + f64 1D pairs <= 4096 B (issue 6's targets);
#   systems, stepping, colored, everything: a ceiling a little above today's
#   figure (a regression guard). Issue 6's target for everything, 24576 B, is
#   missed today (about 136 KiB at opt-level s, see docs/code-size.md); it is
#   reported on every run and enforced with XPBD_SIZE_STRICT=1.
# Also fails if `all` lacks a function of the header or contains any panic
# machinery (the no-panic check of step 62, on the bare-metal image).
#
# Per constraint kind (issue 15: at most 2048 B of .text per kind at
# opt-level "s"): the `groups_solve_f32` image (the f32 group system calls
# and the grouped world step, every kind at once) is split by symbol name
# (.ci/size-kinds.awk; v0 mangling, examples/codesize/.cargo/config.toml):
# a kind's code is every function whose name carries its type or module
# (its monomorphs of the generic visit included), shared code is counted
# for no kind, a function naming two kinds fails the step. The check that
# the split is complete (kinds + shared + padding = .text) is printed. The
# builders of each kind are measured as images of their own (reported).
# Writes the tables to target/codesize.md.
set -euo pipefail
rustup target add thumbv7em-none-eabihf
rustup component add llvm-tools
bin="$(rustc --print sysroot)/lib/rustlib/x86_64-unknown-linux-gnu/bin"
root="$PWD"
report="$root/target/codesize.md"
mkdir -p "$root/target"
grep -oE '\bxpbd_[a-z0-9_]+\(' include/xpbd.h | tr -d '(' | sort -u > "$root/target/codesize-exported.txt"
panic_re='panic|rust_begin_unwind|unwrap_failed|expect_failed|slice_(start|end)_index|index_len_fail|str_index|unreachable'

cd examples/codesize
cargo fmt --check
areas=(f32_pair f64_pair pairs status_str systems stepping world_plane_f32 colored groups_f32 groups_solve_f32 colored_groups_f32 all)
declare -A label=(
    [f32_pair]="f32 1D pair (begin_substep_f32 + solve_f32)"
    [f64_pair]="f64 1D pair (begin_substep + solve)"
    [pairs]="f32 + f64 1D pairs"
    [status_str]="xpbd_status_str"
    [systems]="systems (xpbd_system{2,3}_*, xpbd_build_*, xpbd_cloth_link_count)"
    [stepping]="stepping (xpbd_world3_step*, xpbd_world3_{default,add,requirements}*, the blocks' _default*, xpbd_step_config3_default*, xpbd_step_scratch_len)"
    [colored]="colored (xpbd_simd_links3_*, xpbd_color_*, xpbd_job_range, xpbd_sweep_stats_merge*, xpbd_colored_links_fill*)"
    [groups_f32]="constraint groups, f32 (xpbd_system3_*_groups_f32, xpbd_world3_step_f32 with a groups block, the six group builders)"
    [groups_solve_f32]="constraint groups, f32, without the builders (xpbd_system3_*_groups_f32, xpbd_world3_step_f32 with a groups block)"
    [colored_groups_f32]="colored constraint groups, f32 (xpbd_color_group_f32, xpbd_system3_{begin_substep,iterate}_colored_f32, xpbd_system3_solve_group_job_f32)"
    [world_plane_f32]="a firmware frame: an f32 world with links and one plane (xpbd_world3_{default,add,step}_f32, xpbd_colliders3_default_f32, xpbd_step_config3_default_f32)"
    [all]="everything in include/xpbd.h"
)
# Per profile: release (opt-level s) and release-o3.
declare -A target=([f32_pair]=1024 [pairs]=4096)
# Regression guards a little above the figures of the last change
# (docs/code-size.md); issue 33's one step (the group sweeps linked
# whatever the blocks), issue 35's skinned constraints (a kind of the
# table: +3.0 KB in every f32 image that steps, +7.7 KB for both
# precisions' steps), then its wind block (+2.0 KB in every f32 image
# that steps, +5.7 KB for both precisions' steps and the C block
# reading), its local-space block (+4.4 KB and +9.8 KB) and that block's
# acceleration clamps (+1.1 KB and +2.9 KB), then issue 36's heightfield
# and signed distance field colliders (reached by every collider
# dispatch: +4.4 KB in every f32 image that steps, +10.9 KB for both
# precisions' steps; with the local-space block's overflow check
# +0.1 KB and +0.6 KB) came last.
declare -A ceiling_release=([systems]=27300 [stepping]=144900 [world_plane_f32]=59700 [colored]=23200 [groups_f32]=76400 [groups_solve_f32]=64700 [colored_groups_f32]=27100 [all]=308100)
declare -A ceiling_release_o3=([systems]=29100 [stepping]=182100 [world_plane_f32]=70700 [colored]=25600 [groups_f32]=88600 [groups_solve_f32]=76000 [colored_groups_f32]=32500 [all]=381400)
issue_all=24576
# Issue 33 §6's target for a firmware frame (links and one plane, f32):
# missed (about 41 KiB: the one step links every block's solver;
# docs/code-size.md), reported on every run, enforced with
# XPBD_SIZE_STRICT=1.
issue_frame=8192
section() { # image section -> size in bytes (0 if absent)
    "$bin/llvm-size" -A "$1" | awk -v s="$2" '$1 == s {print $2; found=1} END {if (!found) print 0}'
}
address() { # image section -> start address (decimal)
    "$bin/llvm-size" -A -d "$1" | awk -v s="$2" '$1 == s {print $3; found=1} END {if (!found) print 0}'
}
kinds=(bend tet tether mesh)
declare -A kind_label=([bend]="dihedral bending (Bend)" [tet]="tetrahedral volume (Tet)" \
    [tether]="tether (Tether)" [mesh]="closed-mesh volume (MeshVolume)")
declare -A builder=([bend]=build_bends_f32 [tet]=build_tets_f32 [tether]=build_tethers_f32 \
    [mesh]=build_meshes_f32)
declare -A builder_label=([bend]="xpbd_build_bends_cloth3_f32" [tet]="xpbd_build_tet_block3_f32" \
    [tether]="xpbd_build_tethers3_f32 + xpbd_build_tethers_along_links3_f32" [mesh]="xpbd_build_mesh_volume3_f32 + xpbd_build_icosphere3_f32")
kind_limit=2048
declare -A kind_text kind_ro build_grow
split_kinds() { # image profile -> per-kind listing on stdout, figures into kind_text/kind_ro
    local img=$1 profile=$2 out
    out=$(mktemp)
    "$bin/llvm-nm" --print-size --radix=d --demangle --defined-only "$img" | awk \
        -v text_lo="$(address "$img" .text)" -v text_size="$(section "$img" .text)" \
        -v ro_lo="$(address "$img" .rodata)" -v ro_size="$(section "$img" .rodata)" \
        -v out="$out" -f "$root/.ci/size-kinds.awk"
    while read -r k t r _; do
        kind_text[$profile.$k]=$t
        kind_ro[$profile.$k]=$r
    done < "$out"
    rm -f "$out"
}
fail=0
{
    echo "| area | .text growth, opt-level s | .text growth, opt-level 3 | .rodata growth (s / 3) | target |"
    echo "|---|---:|---:|---:|---:|"
} > "$report"
declare -A grow_s grow_3 ro_s ro_3
for profile in release release-o3; do
    cargo build --locked --profile "$profile" --bins
    dir="target/thumbv7em-none-eabihf/$profile"
    base_text=$(section "$dir/base" .text)
    base_ro=$(section "$dir/base" .rodata)
    for a in "${areas[@]}"; do
        g=$(( $(section "$dir/$a" .text) - base_text ))
        r=$(( $(section "$dir/$a" .rodata) - base_ro ))
        if [ "$profile" = release ]; then grow_s[$a]=$g; ro_s[$a]=$r; else grow_3[$a]=$g; ro_3[$a]=$r; fi
        t="${target[$a]:-}"
        if [ "$profile" = release ]; then c="${ceiling_release[$a]:-}"; else c="${ceiling_release_o3[$a]:-}"; fi
        t="${t:-$c}"
        if [ -n "$t" ] && [ "$g" -gt "$t" ]; then
            echo "FAIL: ${label[$a]} grows .text by $g B at $profile, target $t B"; fail=1
        fi
        if [ "$a" = world_plane_f32 ] && [ "$profile" = release ] && [ "$g" -gt "$issue_frame" ]; then
            echo "MISSED: issue 33's target for a firmware frame is $issue_frame B; $profile gives $g B"
            [ "${XPBD_SIZE_STRICT:-0}" = 1 ] && fail=1
        fi
        if [ "$a" = all ] && [ "$g" -gt "$issue_all" ]; then
            echo "MISSED: issue 6's target for everything is $issue_all B; $profile gives $g B"
            [ "${XPBD_SIZE_STRICT:-0}" = 1 ] && fail=1
        fi
    done
    # The `all` image must hold every exported function and no panic path.
    "$bin/llvm-nm" --defined-only "$dir/all" | awk '{print $3}' | sort -u > "$dir/all.defined"
    missing=$(comm -23 "$root/target/codesize-exported.txt" "$dir/all.defined")
    if [ -n "$missing" ]; then echo "FAIL: the all image lacks: $missing (add them to src/areas.rs)"; fail=1; fi
    "$bin/llvm-nm" --demangle "$dir/all" > "$dir/all.nm"
    if grep -E "$panic_re" "$dir/all.nm"; then echo "FAIL: panic machinery in the $profile image (above)"; fail=1; fi
    # Per kind: the group image split by name, and each kind's builders.
    echo "--- $profile: the groups_solve_f32 image by constraint kind"
    split_kinds "$dir/groups_solve_f32" "$profile" > "$dir/groups_solve_f32.kinds"
    cat "$dir/groups_solve_f32.kinds"
    if grep -q '^--- functions naming two kinds' "$dir/groups_solve_f32.kinds"; then
        echo "FAIL: a function names two kinds (above): the split is ambiguous"; fail=1
    fi
    for k in "${kinds[@]}"; do
        build_grow[$profile.$k]=$(( $(section "$dir/${builder[$k]}" .text) - base_text ))
        if [ "$profile" = release ] && [ "${kind_text[$profile.$k]}" -gt "$kind_limit" ]; then
            echo "FAIL: ${kind_label[$k]}: ${kind_text[$profile.$k]} B of .text at $profile, limit $kind_limit B"; fail=1
        fi
    done
    # The colored group entry points, split the same way (reported, not
    # enforced: issue 15's limit is read for the sequential group calls).
    echo "--- $profile: the colored_groups_f32 image by constraint kind (reported)"
    split_kinds "$dir/colored_groups_f32" "c.$profile" > "$dir/colored_groups_f32.kinds"
    cat "$dir/colored_groups_f32.kinds"
    echo "--- $profile: the all image, largest functions"
    "$bin/llvm-nm" --size-sort -S --radix=d --demangle "$dir/all" | awk '$3 ~ /^[tT]$/ && $2 + 0 >= 20 {n = $4; for (i = 5; i <= NF; i++) n = n " " $i; printf "%6d  %s\n", $2, n}' | sort -rn | sed -n 1,40p
done
for a in "${areas[@]}"; do
    t="${target[$a]:+<= ${target[$a]} B}"
    [ -n "${ceiling_release[$a]:-}" ] && t="ceiling ${ceiling_release[$a]} / ${ceiling_release_o3[$a]} B"
    [ "$a" = all ] && t="$t (issue: <= $issue_all B)"
    [ "$a" = world_plane_f32 ] && t="$t (issue 33: <= $issue_frame B at s)"
    printf '| %s | %d B | %d B | %d / %d B | %s |\n' "${label[$a]}" "${grow_s[$a]}" "${grow_3[$a]}" \
        "${ro_s[$a]}" "${ro_3[$a]}" "$t" >> "$report"
done
{
    echo
    echo "Per constraint kind: its code in the groups_solve_f32 image (functions and constants whose"
    echo "name carries the kind; shared code counted for none), and its builders as images of their own."
    echo
    echo "| kind | .text, opt-level s | .text, opt-level 3 | .rodata (s / 3) | builders: .text growth (s / 3) | CI fails above |"
    echo "|---|---:|---:|---:|---:|---:|"
    for k in "${kinds[@]}"; do
        printf '| %s | %d B | %d B | %d / %d B | %s: %d / %d B | %d B (s) |\n' "${kind_label[$k]}" \
            "${kind_text[release.$k]}" "${kind_text[release-o3.$k]}" "${kind_ro[release.$k]}" \
            "${kind_ro[release-o3.$k]}" "${builder_label[$k]}" "${build_grow[release.$k]}" \
            "${build_grow[release-o3.$k]}" "$kind_limit"
    done
    echo
    echo "The colored group entry points split the same way (colored_groups_f32; reported, not enforced):"
    echo
    echo "| kind | .text, opt-level s |"
    echo "|---|---:|"
    for k in "${kinds[@]}"; do
        printf '| %s | %d B |\n' "${kind_label[$k]}" "${kind_text[c.release.$k]}"
    done
} >> "$report"
cat "$report"
[ "$fail" -eq 0 ] || exit 1
echo "code size within targets and ceilings; no panic machinery in the Cortex-M4F images"
