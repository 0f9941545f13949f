#!/usr/bin/env bash
# The header, on its own, under every language mode we promise, with gcc and
# clang, warnings as errors: C99 (layout checks skipped politely), C11/C17
# (_Static_assert), C++11/14/17/20 (static_assert). Then the layout checks
# themselves: they hold for Cortex-M4F (clang --target), and they fire when
# a build packs the structs differently from the library. First, every name
# the header declares carries the xpbd prefix (.ci/header-names.sh, which
# ffi-tests/tests/header_names.rs mirrors for cargo test).
set -euo pipefail
bash .ci/header-names.sh include/xpbd.h
command -v clang >/dev/null || bash .ci/apt-install.sh clang >/dev/null

dir=target/ci-header
mkdir -p "$dir"
cat > "$dir/use.c" <<'C'
#include "xpbd.h"
int main(void) {
    XpbdDistanceConstraint c = {0.0};
    double a = 0.0, b = 2.0;
    XpbdStatus s = xpbd_distance_solve(&c, &a, &b, 1.0, 1.0, 1.0, 0.01, 0.1);
    return (s == XPBD_STATUS_OK && xpbd_version() == XPBD_VERSION_NUMBER) ? 0 : 1;
}
C
cp "$dir/use.c" "$dir/use.cpp"
strict="-Wall -Wextra -Wpedantic -Werror"
n=0
for cc in gcc clang; do
    for std in c99 c11 c17; do
        $cc -std=$std $strict -Iinclude -fsyntax-only "$dir/use.c"; n=$((n + 1))
    done
done
for cxx in g++ clang++; do
    for std in c++11 c++14 c++17 c++20; do
        $cxx -std=$std $strict -Iinclude -fsyntax-only "$dir/use.cpp"; n=$((n + 1))
    done
done
echo "header clean in $n compiler/standard combinations"

# The layout checks are active in C11 and C++11 ...
for cc in gcc clang; do
    printf '#include "xpbd.h"\n#ifndef XPBD_H_LAYOUT_CHECKS\n#error no layout checks\n#endif\n' \
        | $cc -std=c11 $strict -Iinclude -fsyntax-only -x c -
done
# ... hold on Cortex-M4F (32-bit ARM, hard float) ...
clang --target=thumbv7em-none-eabihf -mcpu=cortex-m4 -mfloat-abi=hard -ffreestanding \
    -std=c11 $strict -Iinclude -fsyntax-only "$dir/use.c"
clang++ --target=thumbv7em-none-eabihf -mcpu=cortex-m4 -mfloat-abi=hard -ffreestanding \
    -std=c++11 $strict -Iinclude -fsyntax-only "$dir/use.cpp"
# ... and stop a build whose struct layout differs from the library's.
for cc in gcc clang; do
    for std in c11 c++11; do
        lang=c; [ "$std" = c++11 ] && lang=c++
        if $cc -x $lang -std=$std -fpack-struct=2 -Iinclude -fsyntax-only "$dir/use.c" 2>"$dir/packed.err"; then
            echo "$cc -std=$std -fpack-struct=2: the layout checks did not fire"; exit 1
        fi
        grep -q "alignof(XpbdDistanceConstraint) does not match the xpbd library" "$dir/packed.err"
    done
done
echo "layout checks: pass on x86-64 and thumbv7em, fire under -fpack-struct=2 (gcc, clang; C11, C++11)"
