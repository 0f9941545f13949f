#!/usr/bin/env bash
# The CMake and pkg-config paths of the README, each from this checkout:
#  1. the top-level CMake build (tools/c-lib.sh through CMake, Release) with
#     the examples registered in CTest, then `cmake --install` to a prefix;
#  2. a C++ consumer (examples/cpp: rope, cloth and cape) with add_subdirectory(xpbd)
#     of a vendored copy of the sources, as Debug with XPBD_CARGO_DEV_PROFILE=ON:
#     cargo's profile dev, built inside the consumer's build tree, nothing
#     written to the copy;
#  3. the same consumer with find_package(xpbd CONFIG) from the prefix, and
#     the SameMajorVersion rule (asking for 0.1 works, for 1.0 does not);
#  4. C and C++ through pkg-config from the prefix (absolute prefix, no
#     link flag the consumer does not need; a moved tree with --define-prefix);
#  5. the documented cross-compiling option, XPBD_RUST_TARGET=thumbv7em-none-eabihf;
#  6. a multi-config generator (Ninja Multi-Config): Debug and Release of one
#     build tree both build cargo's release profile (the default), and with
#     XPBD_CARGO_DEV_PROFILE=ON its Debug command selects dev (configure only);
#  7. a single-config CMAKE_BUILD_TYPE=Debug build: cargo's release profile,
#     the consumer linked with target/release's archive.
# 5, 6 and 7 set XPBD_CARGO_TARGET_DIR (5: a directory of its own; 6 and 7:
# the top-level tree's, which already holds cargo's build of the same
# sources, so cargo compiles only what no earlier build did: CI time); 1 and
# 2 check the default, a directory inside the build tree. The step writes
# nothing outside target/ci-cmake: CI runs it in the background lane.
set -euo pipefail
need=""
command -v cmake >/dev/null || need="$need cmake"
command -v pkg-config >/dev/null || need="$need pkg-config"
if [ -n "$need" ]; then bash .ci/apt-install.sh $need >/dev/null; fi
bash .ci/apt-install.sh ninja-build >/dev/null

root=$(pwd)
dir=$root/target/ci-cmake
rm -rf "$dir" && mkdir -p "$dir"
prefix=$dir/prefix

# 1. Top level: library, examples under CTest, install.
cmake -S . -B "$dir/top" -DXPBD_BUILD_EXAMPLES=ON -DCMAKE_INSTALL_PREFIX="$prefix" > "$dir/top.log"
cmake --build "$dir/top" -j2 >> "$dir/top.log"
(cd "$dir/top" && ctest --output-on-failure)
cmake --install "$dir/top"
for f in lib/libxpbd.a include/xpbd.h include/xpbd.hpp lib/cmake/xpbd/xpbdConfig.cmake \
         lib/cmake/xpbd/xpbdConfigVersion.cmake lib/pkgconfig/xpbd.pc; do
    test -f "$prefix/$f" || { echo "not installed: $f"; exit 1; }
done

test -f "$dir/top/cargo/release/c/libxpbd.a"
# The localised archive exports only xpbd_*, and the package asks nothing of
# the consumer's link.
nm -g --defined-only "$prefix/lib/libxpbd.a" | awk 'NF == 3 && $3 !~ /^xpbd_/ { bad = 1 } END { exit bad }'
grep -q 'INTERFACE_LINK_OPTIONS ""' "$prefix/lib/cmake/xpbd/xpbdConfig.cmake"

# 2. add_subdirectory(xpbd) of a vendored copy, Debug with cargo's dev profile.
vendored=$dir/vendored/xpbd
mkdir -p "$vendored"
git ls-files -z | xargs -0 cp --parents -t "$vendored"
cmake -S examples/cpp -B "$dir/sub" -DXPBD_SOURCE_DIR="$vendored" -DCMAKE_BUILD_TYPE=Debug \
    -DXPBD_CARGO_DEV_PROFILE=ON > "$dir/sub.log"
cmake --build "$dir/sub" >> "$dir/sub.log"
"$dir/sub/rope" | tail -1
"$dir/sub/cloth" | tail -1
test -x "$dir/sub/cape"  # built, not run: 20 s on the unoptimised library (run from 1. and 3.)
test -f "$dir/sub/xpbd/cargo/debug/c/libxpbd.a" || { echo "XPBD_CARGO_DEV_PROFILE=ON: Debug did not build cargo's dev profile"; exit 1; }
[ ! -e "$dir/sub/xpbd/cargo/release" ] || { echo "XPBD_CARGO_DEV_PROFILE=ON: Debug built cargo's release profile"; exit 1; }
[ ! -e "$vendored/target" ] || { echo "add_subdirectory wrote target/ into the vendored sources"; exit 1; }

# 3. find_package(xpbd 0.1 CONFIG) from the installed prefix, nothing else.
cmake -S examples/cpp -B "$dir/find" -DCMAKE_PREFIX_PATH="$prefix" > "$dir/find.log"
cmake --build "$dir/find" >> "$dir/find.log"
"$dir/find/rope" | tail -1
"$dir/find/cloth" | tail -1
"$dir/find/cape" > "$dir/find/cape.txt"
grep -q '^inertia 0: .*yes, bit for bit' "$dir/find/cape.txt"
tail -1 "$dir/find/cape.txt"
mkdir -p "$dir/major"
printf 'cmake_minimum_required(VERSION 3.16)\nproject(m NONE)\nfind_package(xpbd 1.0 CONFIG QUIET)\nif(xpbd_FOUND)\n  message(FATAL_ERROR "xpbd 0.x accepted for 1.0")\nendif()\nfind_package(xpbd 0.1 CONFIG REQUIRED)\nmessage(STATUS "xpbd ${xpbd_VERSION} found for 0.1, rejected for 1.0")\n' \
    > "$dir/major/CMakeLists.txt"
cmake -S "$dir/major" -B "$dir/major/build" -DCMAKE_PREFIX_PATH="$prefix" | grep "xpbd .* found"

# 4. pkg-config: a plain C and a plain C++ line.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
echo "pkg-config xpbd $(pkg-config --modversion xpbd): $(pkg-config --cflags --libs xpbd)"
[ "$(pkg-config --variable=prefix xpbd)" = "$prefix" ] || { echo "xpbd.pc: prefix is not $prefix"; exit 1; }
case "$(pkg-config --libs xpbd)" in *gc-sections*) echo "xpbd.pc pushes --gc-sections"; exit 1;; esac
cc -std=c99 examples/c/rope.c $(pkg-config --cflags --libs xpbd) -lm -o "$dir/pc_rope_c"
"$dir/pc_rope_c" | tail -1
c++ -std=c++11 examples/cpp/rope.cpp $(pkg-config --cflags --libs xpbd) -o "$dir/pc_rope_cpp"
"$dir/pc_rope_cpp" | tail -1
cc -std=c99 examples/c/cloth.c $(pkg-config --cflags --libs xpbd) -lm -o "$dir/pc_cloth_c"
"$dir/pc_cloth_c" | tail -1
c++ -std=c++17 examples/cpp/cloth.cpp $(pkg-config --cflags --libs xpbd) -o "$dir/pc_cloth_cpp"
"$dir/pc_cloth_cpp" | tail -1
c++ -std=c++17 examples/cpp/world.cpp $(pkg-config --cflags --libs xpbd) -o "$dir/pc_world_cpp"
"$dir/pc_world_cpp" | tail -1
# A moved install tree: pkg-config --define-prefix takes the prefix from the
# .pc file's location.
cp -r "$prefix" "$dir/moved"
export PKG_CONFIG_PATH="$dir/moved/lib/pkgconfig"
flags=$(pkg-config --define-prefix --cflags --libs xpbd)
case "$flags" in *"$dir/moved/"*) ;; *) echo "--define-prefix did not relocate xpbd.pc: $flags"; exit 1;; esac
case "$flags" in *"$prefix/"*) echo "xpbd.pc names the old prefix: $flags"; exit 1;; esac
cc -std=c99 examples/c/rope.c $flags -lm -o "$dir/pc_moved_rope_c"
"$dir/pc_moved_rope_c" | tail -1
# XPBD_PKGCONFIG_RELOCATABLE=ON: the .pc finds its prefix by itself.
cmake -S . -B "$dir/reloc" -DXPBD_PKGCONFIG_RELOCATABLE=ON -DCMAKE_INSTALL_PREFIX="$dir/reloc-prefix" > "$dir/reloc.log"
grep -q '^prefix=${pcfiledir}/../..$' "$dir/reloc/xpbd.pc"

# 5. Cross: the Cortex-M4F archive through CMake (no ARM C toolchain needed
#    to build the library itself), with XPBD_CARGO_TARGET_DIR set to a
#    directory of this step's own (it runs in CI's background lane, beside
#    the steps that build the checkout's target/), where cargo builds the
#    thumbv7em release library and tools/c-lib.sh localises it into the
#    archive that is installed.
cmake -S . -B "$dir/m4" -DXPBD_RUST_TARGET=thumbv7em-none-eabihf -DCMAKE_INSTALL_PREFIX="$dir/prefix-m4" \
    -DXPBD_CARGO_TARGET_DIR="$dir/m4-target" > "$dir/m4.log"
cmake --build "$dir/m4" >> "$dir/m4.log"
cmake --install "$dir/m4" >> "$dir/m4.log"
test -f "$dir/prefix-m4/lib/libxpbd.a"
grep -q 'xpbd_RUST_TARGET "thumbv7em-none-eabihf"' "$dir/prefix-m4/lib/cmake/xpbd/xpbdConfig.cmake"
# 6. One multi-config tree, both configurations. Its cargo target directory
#    is the top-level build's (1., the same sources, release only): cargo finds
#    its release build fresh there for Debug and Release alike. The archive
#    is removed before each build, so this tree writes it (tools/c-lib.sh
#    localises again on every build), and the rope links with it.
shared=$dir/top/cargo
[ ! -e "$shared/debug" ] || { echo "$shared/debug exists before the Debug builds"; exit 1; }
cmake -G "Ninja Multi-Config" -S examples/cpp -B "$dir/multi" -DXPBD_SOURCE_DIR="$root" \
    -DXPBD_CARGO_TARGET_DIR="$shared" > "$dir/multi.log"
for config in Debug Release; do
    rm -f "$shared/release/c/libxpbd.a"
    cmake --build "$dir/multi" --config "$config" >> "$dir/multi.log"
    test -f "$shared/release/c/libxpbd.a" || { echo "multi-config $config: no release archive"; exit 1; }
    "$dir/multi/$config/rope" | tail -1
done
[ ! -e "$shared/debug" ] || { echo "multi-config Debug built cargo's dev profile"; exit 1; }
#    XPBD_CARGO_DEV_PROFILE=ON in a multi-config tree: Debug's cargo command
#    and link name the dev profile, Release's the release profile.
cmake -G "Ninja Multi-Config" -S examples/cpp -B "$dir/multi-dev" -DXPBD_SOURCE_DIR="$root" \
    -DXPBD_CARGO_TARGET_DIR="$shared" -DXPBD_CARGO_DEV_PROFILE=ON > "$dir/multi-dev.log"
impl=$dir/multi-dev/CMakeFiles/impl
grep -q 'c-lib\.sh --debug ' "$impl-Debug.ninja" \
    && grep -q 'LINK_LIBRARIES = .*cargo/debug/c/libxpbd\.a' "$impl-Debug.ninja" \
    && ! grep -q -- '--debug\|cargo/debug/' "$impl-Release.ninja" \
    && grep -q 'LINK_LIBRARIES = .*cargo/release/c/libxpbd\.a' "$impl-Release.ninja" \
    || { echo "multi-config XPBD_CARGO_DEV_PROFILE=ON: Debug does not select cargo's dev profile"; exit 1; }

# 7. Single-config CMAKE_BUILD_TYPE=Debug, the default: cargo's release
#    profile (found fresh in the shared directory), the consumer linked with
#    target/release's archive, no dev build.
rm -f "$shared/release/c/libxpbd.a"
cmake -G Ninja -S examples/cpp -B "$dir/debug" -DXPBD_SOURCE_DIR="$root" -DCMAKE_BUILD_TYPE=Debug \
    -DXPBD_CARGO_TARGET_DIR="$shared" > "$dir/debug.log"
grep -q 'c-lib\.sh --target-dir' "$dir/debug/build.ninja" \
    || { echo "Debug: the cargo command is not the release one"; exit 1; }
cmake --build "$dir/debug" >> "$dir/debug.log"
"$dir/debug/rope" | tail -1
test -f "$shared/release/c/libxpbd.a" && [ ! -e "$shared/debug" ] \
    || { echo "CMAKE_BUILD_TYPE=Debug did not build cargo's release profile"; exit 1; }
echo "CMake (add_subdirectory Debug from a vendored copy, find_package, cross, multi-config, Debug -> release) and pkg-config: ok"
