//! Generates the C header with cbindgen and compiles the C test program.
//!
//! The header is written to `$OUT_DIR/xpbd.h`; `tests/header.rs` compares it
//! with the committed `include/xpbd.h`. With `XPBD_UPDATE_HEADER=1` the
//! committed header is rewritten first. The C tests are compiled against the
//! committed header: that is the file C users get.

use std::env;
use std::fs;
use std::mem::{align_of, size_of};
use std::path::{Path, PathBuf};

use xpbd::ffi;

/// Every `#[repr(C)]` struct of the C ABI with its Rust size and alignment
/// (in bytes). The header checks each at compile time (C11, C++11).
///
/// **Adding a struct to the C ABI? Add one line here**; the test
/// `every_header_struct_has_a_layout_check` fails until you do.
const LAYOUTS: &[Layout] = &[
    layout::<ffi::XpbdDistanceConstraint>("XpbdDistanceConstraint"),
    layout::<ffi::XpbdDistanceConstraintF32>("XpbdDistanceConstraintF32"),
    layout::<xpbd::ffi::XpbdLink>("XpbdLink"),
    layout::<xpbd::ffi::XpbdLinkF32>("XpbdLinkF32"),
    word_layout::<xpbd::ffi::XpbdSweepStats>("XpbdSweepStats"),
    word_layout::<xpbd::ffi::XpbdSweepStatsF32>("XpbdSweepStatsF32"),
    word_layout::<xpbd::ffi::XpbdConvergence>("XpbdConvergence"),
    word_layout::<xpbd::ffi::XpbdConvergenceF32>("XpbdConvergenceF32"),
    word_layout::<xpbd::ffi::XpbdSystem2>("XpbdSystem2"),
    word_layout::<xpbd::ffi::XpbdSystem3>("XpbdSystem3"),
    word_layout::<xpbd::ffi::XpbdSystem2F32>("XpbdSystem2F32"),
    word_layout::<xpbd::ffi::XpbdSystem3F32>("XpbdSystem3F32"),
    layout::<xpbd::ffi::XpbdPlane3>("XpbdPlane3"),
    layout::<xpbd::ffi::XpbdPlane3F32>("XpbdPlane3F32"),
    layout::<xpbd::ffi::XpbdSphere3>("XpbdSphere3"),
    layout::<xpbd::ffi::XpbdSphere3F32>("XpbdSphere3F32"),
    layout::<xpbd::ffi::XpbdStepConfig3>("XpbdStepConfig3"),
    layout::<xpbd::ffi::XpbdStepConfig3F32>("XpbdStepConfig3F32"),
    word_layout::<xpbd::ffi::XpbdStepStats>("XpbdStepStats"),
    word_layout::<xpbd::ffi::XpbdStepStatsF32>("XpbdStepStatsF32"),
    word_layout::<xpbd::ffi::XpbdWorld3>("XpbdWorld3"),
    word_layout::<xpbd::ffi::XpbdWorld3F32>("XpbdWorld3F32"),
    word_layout::<ffi::XpbdBlock>("XpbdBlock"),
    word_layout::<ffi::XpbdColliders3>("XpbdColliders3"),
    word_layout::<ffi::XpbdColliders3F32>("XpbdColliders3F32"),
    word_layout::<ffi::XpbdSelfCollision3>("XpbdSelfCollision3"),
    word_layout::<ffi::XpbdSelfCollision3F32>("XpbdSelfCollision3F32"),
    word_layout::<ffi::XpbdTearing3>("XpbdTearing3"),
    word_layout::<ffi::XpbdTearing3F32>("XpbdTearing3F32"),
    word_layout::<ffi::XpbdEngineContacts3>("XpbdEngineContacts3"),
    word_layout::<ffi::XpbdEngineContacts3F32>("XpbdEngineContacts3F32"),
    word_layout::<ffi::XpbdGroups3>("XpbdGroups3"),
    word_layout::<ffi::XpbdGroups3F32>("XpbdGroups3F32"),
    word_layout::<ffi::XpbdWind3>("XpbdWind3"),
    word_layout::<ffi::XpbdWind3F32>("XpbdWind3F32"),
    word_layout::<ffi::XpbdLocalSpace3>("XpbdLocalSpace3"),
    word_layout::<ffi::XpbdLocalSpace3F32>("XpbdLocalSpace3F32"),
    word_layout::<ffi::XpbdRequirements>("XpbdRequirements"),
    word_layout::<xpbd::ffi::XpbdSimdLinks3>("XpbdSimdLinks3"),
    word_layout::<xpbd::ffi::XpbdSimdLinks3F32>("XpbdSimdLinks3F32"),
    layout::<ffi::XpbdBend>("XpbdBend"),
    layout::<ffi::XpbdBendF32>("XpbdBendF32"),
    layout::<ffi::XpbdTet>("XpbdTet"),
    layout::<ffi::XpbdTetF32>("XpbdTetF32"),
    layout::<ffi::XpbdTether>("XpbdTether"),
    layout::<ffi::XpbdTetherF32>("XpbdTetherF32"),
    layout::<ffi::XpbdMeshVolume>("XpbdMeshVolume"),
    layout::<ffi::XpbdMeshVolumeF32>("XpbdMeshVolumeF32"),
    layout::<ffi::XpbdAttachment>("XpbdAttachment"),
    layout::<ffi::XpbdAttachmentF32>("XpbdAttachmentF32"),
    layout::<ffi::XpbdSkinConstraint>("XpbdSkinConstraint"),
    layout::<ffi::XpbdSkinConstraintF32>("XpbdSkinConstraintF32"),
    layout::<ffi::XpbdAeroTriangle>("XpbdAeroTriangle"),
    layout::<ffi::XpbdAeroTriangleF32>("XpbdAeroTriangleF32"),
    layout::<ffi::XpbdLocalSpace>("XpbdLocalSpace"),
    layout::<ffi::XpbdLocalSpaceF32>("XpbdLocalSpaceF32"),
    layout::<ffi::XpbdTransform>("XpbdTransform"),
    layout::<ffi::XpbdTransformF32>("XpbdTransformF32"),
    layout::<ffi::XpbdCapsule3>("XpbdCapsule3"),
    layout::<ffi::XpbdCapsule3F32>("XpbdCapsule3F32"),
    layout::<ffi::XpbdBox3>("XpbdBox3"),
    layout::<ffi::XpbdBox3F32>("XpbdBox3F32"),
    word_layout::<ffi::XpbdHeightfield3>("XpbdHeightfield3"),
    word_layout::<ffi::XpbdHeightfield3F32>("XpbdHeightfield3F32"),
    word_layout::<ffi::XpbdSdf3>("XpbdSdf3"),
    word_layout::<ffi::XpbdSdf3F32>("XpbdSdf3F32"),
    layout::<ffi::XpbdEngineContact>("XpbdEngineContact"),
    layout::<ffi::XpbdEngineContactF32>("XpbdEngineContactF32"),
    word_layout::<ffi::XpbdConstraints3>("XpbdConstraints3"),
    word_layout::<ffi::XpbdConstraints3F32>("XpbdConstraints3F32"),
    word_layout::<ffi::XpbdGroupColors>("XpbdGroupColors"),
    word_layout::<ffi::XpbdJobSystem>("XpbdJobSystem"),
];

/// A C type name with the size and alignment Rust gives it.
struct Layout {
    name: &'static str,
    size: usize,
    align: usize,
    /// The struct holds pointers or `size_t`: its layout depends on the word
    /// size, so the check applies only where pointers and `size_t` are as wide
    /// as on the machine that generated the header (64-bit).
    word_sized: bool,
}

const fn layout<T>(name: &'static str) -> Layout {
    Layout {
        name,
        size: size_of::<T>(),
        align: align_of::<T>(),
        word_sized: false,
    }
}

const fn word_layout<T>(name: &'static str) -> Layout {
    Layout {
        name,
        size: size_of::<T>(),
        align: align_of::<T>(),
        word_sized: true,
    }
}

/// `(major, minor, patch, full)` of the `[package]` in the root Cargo.toml:
/// the one source of the version, shared with `CARGO_PKG_VERSION_*` of xpbd.
fn package_version(manifest: &Path) -> (u32, u32, u32, String) {
    let text = fs::read_to_string(manifest).expect("read Cargo.toml");
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package {
            if let Some(value) = line.strip_prefix("version") {
                let value = value
                    .trim_start()
                    .strip_prefix('=')
                    .expect("version = \"X.Y.Z\"");
                let full = value.trim().trim_matches('"').to_string();
                let core = full.split(['-', '+']).next().expect("a version");
                let n: Vec<u32> = core
                    .split('.')
                    .map(|p| p.parse().expect("numeric version parts"))
                    .collect();
                assert!(n.len() == 3 && n[1] < 100 && n[2] < 100, "version {full}");
                return (n[0], n[1], n[2], full);
            }
        }
    }
    panic!("no [package] version in {}", manifest.display());
}

/// The version block of the header (cbindgen's `after_includes`).
fn version_macros((major, minor, patch, full): &(u32, u32, u32, String)) -> String {
    format!(
        r#"
/* The version of this header, from the xpbd package's Cargo.toml.
 * XPBD_VERSION_NUMBER uses the encoding of xpbd_version():
 * major * 10000 + minor * 100 + patch. At start-up, check that the library
 * you linked is the one this header describes:
 *     if (xpbd_version() != XPBD_VERSION_NUMBER) {{ ... }}
 */
#define XPBD_VERSION_MAJOR {major}
#define XPBD_VERSION_MINOR {minor}
#define XPBD_VERSION_PATCH {patch}
#define XPBD_VERSION_STRING "{full}"
#define XPBD_VERSION_NUMBER (XPBD_VERSION_MAJOR * 10000 + XPBD_VERSION_MINOR * 100 + XPBD_VERSION_PATCH)"#
    )
}

/// `UINT64_MAX` or `UINT32_MAX`, for a word of `bytes` bytes.
fn max_of_bits(bytes: usize) -> &'static str {
    if bytes == 8 {
        "UINT64_MAX"
    } else {
        "UINT32_MAX"
    }
}

/// The compile-time layout checks (cbindgen's `trailer`, which cbindgen
/// writes after the include guard, hence the checks' own guard).
fn layout_checks(layouts: &[Layout]) -> String {
    let mut lines = String::new();
    for l in layouts {
        let check = format!("XPBD_CHECK_LAYOUT({}, {}, {});\n", l.name, l.size, l.align);
        if l.word_sized {
            lines.push_str(&format!(
                "#if SIZE_MAX == {} && UINTPTR_MAX == {}\n{check}#endif\n",
                max_of_bits(size_of::<usize>()),
                max_of_bits(size_of::<usize>())
            ));
        } else {
            lines.push_str(&check);
        }
    }
    format!(
        r#"
/* ABI checks: the size and alignment (bytes) of every struct above must be
 * what the library was built with, or the build fails here rather than
 * misbehaving at run time (for example under #pragma pack or -fpack-struct).
 * Checked with C11 _Static_assert and C++11 static_assert; skipped in C99
 * and C++98, which have no static assertion. Define XPBD_NO_LAYOUT_CHECKS to
 * skip them on purpose (needed on 32-bit x86 Linux, where double aligns to
 * 4 in structs: the values below are those of 64-bit targets and 32-bit
 * ARM). One XPBD_CHECK_LAYOUT line per struct, generated from the Rust
 * layouts by ffi-tests/build.rs: a new struct needs one line in LAYOUTS. */
#if !defined(XPBD_H_LAYOUT_CHECKS) && !defined(XPBD_NO_LAYOUT_CHECKS)
#define XPBD_H_LAYOUT_CHECKS
#if defined(__cplusplus) && (__cplusplus >= 201103L || (defined(_MSVC_LANG) && _MSVC_LANG >= 201103L))
#define XPBD_CHECK_LAYOUT(T, size, align) \
  static_assert(sizeof(T) == (size), "xpbd.h: sizeof(" #T ") does not match the xpbd library"); \
  static_assert(alignof(T) == (align), "xpbd.h: alignof(" #T ") does not match the xpbd library")
#elif !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define XPBD_CHECK_LAYOUT(T, size, align) \
  _Static_assert(sizeof(T) == (size), "xpbd.h: sizeof(" #T ") does not match the xpbd library"); \
  _Static_assert(_Alignof(T) == (align), "xpbd.h: alignof(" #T ") does not match the xpbd library")
#endif
#ifdef XPBD_CHECK_LAYOUT
{lines}#undef XPBD_CHECK_LAYOUT
#endif
#endif /* XPBD_H_LAYOUT_CHECKS */"#
    )
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest
        .parent()
        .expect("ffi-tests has a parent")
        .to_path_buf();
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));

    println!("cargo:rerun-if-changed={}", root.join("src").display());
    println!(
        "cargo:rerun-if-changed={}",
        root.join("cbindgen.toml").display()
    );
    println!(
        "cargo:rerun-if-changed={}",
        root.join("include/xpbd.h").display()
    );
    println!("cargo:rerun-if-changed={}", manifest.join("c").display());
    println!("cargo:rerun-if-env-changed=XPBD_UPDATE_HEADER");

    let mut config =
        cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("read cbindgen.toml");
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.toml").display()
    );
    let version = package_version(&root.join("Cargo.toml"));
    config.after_includes = Some(version_macros(&version));
    // The Rust version constants are written into the header as the
    // XPBD_VERSION_* macros above, not exported by cbindgen.
    config.export.exclude.extend(
        [
            "VERSION",
            "VERSION_MAJOR",
            "VERSION_MINOR",
            "VERSION_PATCH",
            "VERSION_NUMBER",
        ]
        .map(String::from),
    );
    config.trailer = Some(layout_checks(LAYOUTS));
    let bindings = cbindgen::Builder::new()
        .with_crate(&root)
        .with_config(config)
        .generate()
        .expect("cbindgen could not generate the header");
    let generated = out.join("xpbd.h");
    bindings.write_to_file(&generated);
    if env::var_os("XPBD_UPDATE_HEADER").is_some_and(|v| v == "1") {
        fs::copy(&generated, root.join("include/xpbd.h")).expect("rewrite include/xpbd.h");
    }

    let mut files: Vec<PathBuf> = fs::read_dir(manifest.join("c"))
        .expect("read ffi-tests/c")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    cc::Build::new()
        .files(&files)
        .include(root.join("include"))
        .std("c99")
        .flag("-Wall")
        .flag("-Wextra")
        .flag("-Wpedantic")
        .flag("-Werror")
        .flag("-ffp-contract=off")
        .warnings_into_errors(true)
        .compile("xpbd_c_tests");

    // The same header must be clean C++11.
    let cpp = manifest.join("cpp/header_check.cpp");
    println!("cargo:rerun-if-changed={}", cpp.display());
    cc::Build::new()
        .cpp(true)
        .file(&cpp)
        .include(root.join("include"))
        .std("c++11")
        .flag("-Wall")
        .flag("-Wextra")
        .flag("-Wpedantic")
        .flag("-Werror")
        .flag("-ffp-contract=off")
        .compile("xpbd_cpp_header_check");
}
