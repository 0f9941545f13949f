//! Compiles the hand-written C reference kernels with
//! `-O3 -fno-math-errno -ffp-contract=off`:
//!
//! - bench/c/reference.c, bench/c/spatial.c (self-collision) and
//!   bench/c/sequential.c (plain sequential Gauss-Seidel, the
//!   PositionBasedDynamics formula) for the x86-64 baseline: no `-march`,
//!   the same ISA level the Rust code is compiled for;
//! - bench/c/redblack.c (the plain red-black kernels) three times: at the
//!   baseline (`rb_base_*`), with `-march=native` (`rb_native_*`: the
//!   machine's whole ISA, the reference for run-time selected kernels) and
//!   with `-march=x86-64-v3` (`rb_v3_*`: AVX2 without AVX-512, which
//!   valgrind can decode, for the instruction counts of bench/icount.sh).
//!   Off x86-64 the last two are compiled without `-march` (plus
//!   `-march=native` for `rb_native_*` where the compiler accepts it).
//! - bench/c/frame.c (the plain C frame of issue 34) four times: double
//!   and float (`-DCF_F32`), each at the baseline (`cf_base_f64_*`,
//!   `cf_base_f32_*`) and with `-march=native` where the compiler accepts
//!   it (`cf_native_f64_*`, `cf_native_f32_*`).
//! - bench/c/frame_kinds.c (the plain C frame with bends, tets or
//!   tethers; it includes frame.c) the same four times (`kf_base_f64_*`,
//!   `kf_base_f32_*`, `kf_native_f64_*`, `kf_native_f32_*`).
//! - bench/c/frame_character.c (the plain C frame of a cape with skinned
//!   constraints, wind or local space; it includes frame.c) the same four
//!   times (`ch_base_f64_*`, `ch_base_f32_*`, `ch_native_f64_*`,
//!   `ch_native_f32_*`).

use std::env;
use std::path::{Path, PathBuf};

fn base(files: &[&Path], include: &Path) -> cc::Build {
    let mut build = cc::Build::new();
    build
        .files(files)
        .include(include)
        .std("c99")
        .opt_level(3)
        .flag("-O3")
        .flag("-fno-math-errno")
        .flag("-ffp-contract=off")
        .flag("-Wall")
        .flag("-Wextra");
    build
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("bench has a parent").to_path_buf();
    let include = root.join("include");
    let c = |name: &str| manifest.join("c").join(name);
    let (reference, spatial, sequential, redblack, frame, frame_kinds, frame_character) = (
        c("reference.c"),
        c("spatial.c"),
        c("sequential.c"),
        c("redblack.c"),
        c("frame.c"),
        c("frame_kinds.c"),
        c("frame_character.c"),
    );
    for f in [
        &reference,
        &spatial,
        &sequential,
        &redblack,
        &frame,
        &frame_kinds,
        &frame_character,
    ] {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    println!(
        "cargo:rerun-if-changed={}",
        include.join("xpbd.h").display()
    );
    base(&[&reference, &spatial, &sequential], &include).compile("xpbd_bench_reference");

    let x86_64 = env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64");
    let copies: [(&str, Option<&str>); 3] = [
        ("rb_base_", None),
        ("rb_native_", Some("-march=native")),
        ("rb_v3_", x86_64.then_some("-march=x86-64-v3")),
    ];
    let mut native = "no -march (not accepted)";
    for (prefix, march) in copies {
        let mut build = base(&[&redblack], &include);
        build.define("RB_PREFIX", prefix);
        if let Some(flag) = march {
            if build.is_flag_supported(flag).unwrap_or(false) {
                build.flag(flag);
                if prefix == "rb_native_" {
                    native = "-march=native";
                }
            }
        }
        build.compile(&format!("xpbd_bench_{prefix}redblack"));
    }
    // The plain C frame (cf_), the frame with the kinds (kf_) and the
    // cape with the character-cloth features (ch_): double and float, at
    // the baseline and native.
    let mut frame_native = "no -march (not accepted)";
    let frames = [
        ("cf", &frame),
        ("kf", &frame_kinds),
        ("ch", &frame_character),
    ];
    for (isa, march) in [("base", None), ("native", Some("-march=native"))] {
        for ((real, f32), (name, file)) in [("f64", false), ("f32", true)]
            .into_iter()
            .flat_map(|r| frames.map(|f| (r, f)))
        {
            let prefix = format!("{name}_{isa}_{real}_");
            let mut build = base(&[file], &include);
            build.define("CF_PREFIX", prefix.as_str());
            if f32 {
                build.define("CF_F32", None);
            }
            if let Some(flag) = march {
                if build.is_flag_supported(flag).unwrap_or(false) {
                    build.flag(flag);
                    frame_native = "-march=native";
                }
            }
            build.compile(&format!("xpbd_bench_{prefix}frame"));
        }
    }
    println!("cargo:rustc-env=XPBD_BENCH_CFLAGS=-O3 -fno-math-errno -ffp-contract=off (x86-64 baseline, no -march; the red-black copy rb_native_ with {native}, the C frames cf_native_, kf_native_ and ch_native_ with {frame_native})");
}
