# Splits the code of one Cortex-M4F image by constraint kind (used by
# .ci/steps/75-size.sh on the `groups_solve_f32` image; the method is in
# docs/code-size.md, "Per kind").
#
# Input: `llvm-nm --print-size --radix=d --demangle --defined-only IMAGE`
# (v0 symbol names: a monomorph's name carries its generic arguments).
# Variables: text_lo, text_size, ro_lo, ro_size (start address and size of
# .text and .rodata, decimal), out (a file the per-kind figures go to, one
# line `kind text rodata functions`).
#
# A function (or constant) belongs to a kind when its name carries the
# kind's type or module and no other kind's; one that names two kinds is
# listed as mixed and counted for none; every other symbol is shared code.
function kind_of(name,    k, n, found) {
    n = 0
    found = ""
    for (k in re) {
        if (name ~ re[k]) { n++; found = k }
    }
    if (n > 1) return "mixed"
    return found
}
BEGIN {
    text_hi = text_lo + text_size
    ro_hi = ro_lo + ro_size
    re["bend"] = "constraint::bend::|[^A-Za-z_]Bend<"
    re["tet"] = "constraint::volume::|[^A-Za-z_]Tet<"
    re["tether"] = "constraint::tether::|[^A-Za-z_]Tether<"
    # Mesh code named without the type: the colored mesh pass.
    re["mesh"] = "constraint::pressure::|[^A-Za-z_]MeshVolumes?<|RawGroups<[^>]*>>::meshes"
    order = "bend tet tether mesh"
}
NF >= 4 && $2 + 0 > 0 {
    addr = $1 + 0
    size = $2 + 0
    if (addr in seen) next # an alias (two names, one body): counted once
    seen[addr] = 1
    name = $4
    for (i = 5; i <= NF; i++) name = name " " $i
    if (addr >= text_lo && addr < text_hi) sec = "text"
    else if (addr >= ro_lo && addr < ro_hi) sec = "ro"
    else next
    k = kind_of(" " name)
    if (sec == "text") named_text += size; else named_ro += size
    if (k == "mixed") {
        mixed = mixed sprintf("  %6d  %s\n", size, name)
        if (sec == "text") shared_text += size; else shared_ro += size
    } else if (k != "") {
        if (sec == "text") { ktext[k] += size; kfun[k]++ } else kro[k] += size
        list[k] = list[k] sprintf("  %6d  %s\n", size, name)
    } else {
        if (sec == "text") shared_text += size; else shared_ro += size
        if (sec == "text" && name ~ /solver::groups::|ffi::constraints|check_groups|step_groups|constraint::(visit_evaluated|commit|check_indices|check_compliance|non_finite_particle)/) {
            machinery = machinery sprintf("  %6d  %s\n", size, name)
            machinery_text += size
        }
    }
}
END {
    split(order, ks, " ")
    for (i = 1; i <= 4; i++) {
        k = ks[i]
        printf "%s %d %d %d\n", k, ktext[k], kro[k], kfun[k] > out
        printf "--- kind %s: %d B .text in %d functions, %d B .rodata\n", k, ktext[k], kfun[k], kro[k]
        printf "%s", list[k]
        kinds_text += ktext[k]
        kinds_ro += kro[k]
    }
    printf "--- group code naming no kind (shared, counted for none): %d B\n%s", machinery_text, machinery
    if (mixed != "") printf "--- functions naming two kinds (counted for none)\n%s", mixed
    else printf "--- no function names two kinds\n"
    printf "--- check: .text %d B = kinds %d + shared %d + padding and unnamed %d B\n", \
        text_size, kinds_text, shared_text, text_size - named_text
    printf "--- check: .rodata %d B = kinds %d + shared %d + unnamed %d B\n", \
        ro_size, kinds_ro, shared_ro, ro_size - named_ro
}
