#!/bin/sh
# The C libraries of xpbd for engines: a static archive that exports only the
# xpbd_* functions, or a shared library with a SONAME. See docs/install.md.
#
#   tools/c-lib.sh [--shared] [--debug] [--target TRIPLE] [--target-dir DIR] [CARGO FLAGS...]
#
# Static (default): `cargo rustc --crate-type staticlib` (what the alias
# `cargo c-lib` builds, the raw archive), then one partial link of the whole
# archive (`ld -r`, keeping only what the xpbd_* functions reach) and
# `objcopy --keep-global-symbols` with the list of xpbd_* functions: every
# Rust runtime symbol inside (rust_begin_unwind, core, compiler_builtins,
# their sqrt and fma) becomes local, so a second Rust library in the same
# program links. Writes <target-dir>/[TRIPLE/]<release|debug>/c/libxpbd.a.
#
# --shared: `cargo rustc --crate-type cdylib` with the SONAME libxpbd.so.MAJOR
# (rustc exports only the #[no_mangle] functions, all named xpbd_*). Writes
# <...>/c/libxpbd.so.X.Y.Z with the links libxpbd.so.X and libxpbd.so.
#
# --debug builds the cargo profile `dev` (with panic = "abort", as the C
# library requires) instead of `release`.
#
# Tools: for the host, binutils' ld, objcopy and ar (override with LD,
# OBJCOPY, AR); for another target, rust-lld, llvm-objcopy and llvm-ar from
# `rustup component add llvm-tools`. Symbol localisation is for ELF targets
# (Linux, bare-metal ARM): for other targets the script stops with a message;
# use `cargo c-lib` there. On bare-metal targets compiler-rt's helpers stay
# global too (see below).
set -eu
cd "$(dirname "$0")/.."

shared=0
profile=release
target=""
target_dir=""
while [ $# -gt 0 ]; do
    case "$1" in
        "") ;;  # an empty argument (a CMake generator expression that was false)
        --shared) shared=1 ;;
        --debug) profile=dev ;;
        --target) target="$2"; shift ;;
        --target=*) target="${1#--target=}" ;;
        --target-dir) target_dir="$2"; shift ;;
        --target-dir=*) target_dir="${1#--target-dir=}" ;;
        *) break ;;
    esac
    shift
done
[ -n "$target_dir" ] || target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$(pwd)/$target_dir" ;; esac

host=$(rustc -vV | sed -n 's/^host: //p')
triple="${target:-$host}"
case "$triple" in
    *-apple-*|*-windows-*|wasm*|*-uefi*)
        echo "tools/c-lib.sh: $triple is not an ELF target; use \`cargo c-lib\` (see docs/install.md)" >&2
        exit 2 ;;
esac

if [ "$profile" = dev ]; then
    profile_dir=debug
    set -- --config 'profile.dev.panic="abort"' "$@"
else
    profile_dir=release
    set -- --release "$@"
fi
if [ -n "$target" ]; then
    set -- --target "$target" "$@"
    cargo_out="$target_dir/$target/$profile_dir"
else
    cargo_out="$target_dir/$profile_dir"
fi
out="$cargo_out/c"
mkdir -p "$out"
version=$(sed -n 's/^version = "\([0-9]*\.[0-9]*\.[0-9]*\)".*/\1/p' Cargo.toml | head -1)
major=${version%%.*}

if [ "$shared" = 1 ]; then
    # cdylib only: building it together with the rlib leaves an undefined
    # rust_eh_personality in the .so (docs/install.md, "cargo-c").
    soname="libxpbd.so.$major"
    # --defsym: see rust_eh_personality below (needed by --debug only).
    cargo rustc -p xpbd --lib --crate-type cdylib --features c-lib-panic-handler \
        --target-dir "$target_dir" "$@" -- -C link-arg=-Wl,-soname,"$soname" -C link-arg=-lc \
        -C link-arg=-Wl,--defsym=rust_eh_personality=0
    cp "$cargo_out/libxpbd.so" "$out/libxpbd.so.$version"
    ln -sf "libxpbd.so.$version" "$out/$soname"
    ln -sf "$soname" "$out/libxpbd.so"
    echo "$out/libxpbd.so.$version"
    exit 0
fi

cargo rustc -p xpbd --lib --crate-type staticlib --features c-lib-panic-handler \
    --target-dir "$target_dir" "$@"
raw="$cargo_out/libxpbd.a"

llvm_bin="$(rustc --print sysroot)/lib/rustlib/$host/bin"
if [ "$triple" = "$host" ]; then
    ld="${LD:-ld}"; objcopy="${OBJCOPY:-objcopy}"; ar="${AR:-ar}"
    nm="nm"
    # GNU ld garbage-collects a partial link when given roots (-u).
    gc="--gc-sections"
else
    [ -x "$llvm_bin/rust-lld" ] && [ -x "$llvm_bin/llvm-objcopy" ] && [ -x "$llvm_bin/llvm-ar" ] || {
        echo "tools/c-lib.sh: needs rust-lld and llvm-objcopy: rustup component add llvm-tools" >&2; exit 2; }
    ld="$llvm_bin/rust-lld -flavor gnu"; objcopy="$llvm_bin/llvm-objcopy"; ar="$llvm_bin/llvm-ar"
    nm="$llvm_bin/llvm-nm"
    gc=""   # lld refuses -r with --gc-sections; the firmware link collects
fi
[ -x "$llvm_bin/llvm-nm" ] && nm="$llvm_bin/llvm-nm"

work="$out/.localise"
rm -rf "$work" && mkdir -p "$work"
# The public symbols: every xpbd_* function the archive defines; on bare
# metal (*-none-*) also compiler-rt's ABI helpers (__aeabi_dadd, __udivdi3,
# ...): a C firmware without libgcc takes its own soft-float and division
# routines from this archive, as it did from the raw one.
pattern='^xpbd_'
case "$triple" in *-none*) pattern='^(xpbd_|__)' ;; esac
"$nm" --defined-only --extern-only "$raw" 2>/dev/null | awk -v p="$pattern" 'NF == 3 && $3 ~ p { print $3 }' |
    sort -u > "$work/keep.txt"
[ -s "$work/keep.txt" ] || { echo "tools/c-lib.sh: no xpbd_* symbol in $raw" >&2; exit 1; }
roots=""
if [ -n "$gc" ]; then roots=$(sed 's/^/-u /' "$work/keep.txt" | tr '\n' ' '); fi
# rust_eh_personality: Rust's precompiled core carries unwind tables that
# name it; optimised code never reaches them (the release link drops them),
# unoptimised code (--debug) does. xpbd is built with panic = "abort" and
# calls no code that could unwind through it, so no unwinder ever asks for a
# personality routine here: the name is bound to 0 inside the object and
# made local below, like every other Rust symbol.
# shellcheck disable=SC2086
$ld -r $gc $roots --defsym=rust_eh_personality=0 --whole-archive "$raw" -o "$work/xpbd_all.o"
strip=""
[ "$profile" = release ] && strip="--strip-debug"
# .llvmbc / .llvmcmd: rustc's embedded bitcode, unreadable by a system LTO
# plugin of another LLVM version (ar, ld), needed by nobody.
# shellcheck disable=SC2086
$objcopy --keep-global-symbols="$work/keep.txt" --remove-section=.llvmbc \
    --remove-section=.llvmcmd $strip "$work/xpbd_all.o" "$work/xpbd.o"
rm -f "$work/libxpbd.a"
$ar rcs "$work/libxpbd.a" "$work/xpbd.o"
mv "$work/libxpbd.a" "$out/libxpbd.a"
cp "$work/keep.txt" "$out/libxpbd.symbols"
rm -rf "$work"
echo "$out/libxpbd.a"
