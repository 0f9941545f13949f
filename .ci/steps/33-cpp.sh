#!/usr/bin/env bash
# include/xpbd.hpp, the header-only C++17 layer: its tests
# (examples/cpp/hpp_test.cpp) and examples (examples/cpp/world.cpp; cape.cpp,
# the character cloth of examples/character_cloth.rs, its figures), built
# with g++ and clang++ as C++17 and C++20 (std::span), with and without
# -fno-exceptions, -Wall -Wextra -Wpedantic -Werror, against the localised
# archive of tools/c-lib.sh, and run; the header alone must stay usable from
# C++11 (xpbd.h) and refuse C++14 with a clear message (xpbd.hpp).
set -euo pipefail
bash .ci/apt-install.sh clang >/dev/null
tools/c-lib.sh > /dev/null 2>&1 || tools/c-lib.sh
lib=target/release/c/libxpbd.a
dir=target/ci-cpp
mkdir -p "$dir"
strict="-Wall -Wextra -Wpedantic -Werror"
for cxx in g++ clang++; do
    for std in 17 20; do
        for ex in "" -fno-exceptions; do
            out="$dir/hpp_test_${cxx}_${std}${ex}"
            $cxx -std=c++$std $ex $strict -Iinclude examples/cpp/hpp_test.cpp "$lib" -o "$out"
            echo "$cxx -std=c++$std $ex: $("$out" | tail -1)"
        done
    done
    $cxx -std=c++17 $strict -Iinclude examples/cpp/world.cpp "$lib" -o "$dir/world_$cxx"
    "$dir/world_$cxx" > "$dir/world_$cxx.txt"
    $cxx -std=c++17 -O2 $strict -Iinclude examples/cpp/cape.cpp "$lib" -o "$dir/cape_$cxx"
    "$dir/cape_$cxx" > "$dir/cape_$cxx.txt"
done
cmp "$dir/world_g++.txt" "$dir/world_clang++.txt"
cat "$dir/world_g++.txt"
cmp "$dir/cape_g++.txt" "$dir/cape_clang++.txt"
cat "$dir/cape_g++.txt"
grep -q '^inertia 0: .*yes, bit for bit' "$dir/cape_g++.txt"
printf '#include "xpbd.hpp"\nint main() { return 0; }\n' > "$dir/cxx14.cpp"
if g++ -std=c++14 -Iinclude -c "$dir/cxx14.cpp" -o "$dir/cxx14.o" 2> "$dir/cxx14.log"; then
    echo "xpbd.hpp compiled as C++14"; exit 1
fi
grep -q 'xpbd.hpp needs C++17' "$dir/cxx14.log"
echo "C++ layer: tests and examples with g++ and clang++ (C++17, C++20): ok"
