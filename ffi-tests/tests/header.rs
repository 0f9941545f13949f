//! The committed include/xpbd.h must be exactly what cbindgen generates.

#[test]
fn committed_header_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../include/xpbd.h");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == xpbd_ffi_tests::generated_header(),
        "include/xpbd.h is stale: regenerate it with `XPBD_UPDATE_HEADER=1 cargo test -p xpbd-ffi-tests` and commit it"
    );
}

/// The `#define NAME value` of the committed header, if present.
fn header_define(header: &str, name: &str) -> Option<String> {
    header.lines().find_map(|line| {
        let rest = line.strip_prefix("#define ")?.strip_prefix(name)?;
        rest.starts_with(' ').then(|| rest.trim().to_string())
    })
}

#[test]
fn version_macros_match_cargo_toml() {
    let header = xpbd_ffi_tests::generated_header();
    // xpbd::VERSION_* come from cargo's CARGO_PKG_VERSION_* of the xpbd
    // package; the macros from ffi-tests/build.rs reading Cargo.toml.
    let major = header_define(header, "XPBD_VERSION_MAJOR");
    let minor = header_define(header, "XPBD_VERSION_MINOR");
    let patch = header_define(header, "XPBD_VERSION_PATCH");
    let string = header_define(header, "XPBD_VERSION_STRING");
    assert_eq!(major, Some(xpbd::VERSION_MAJOR.to_string()));
    assert_eq!(minor, Some(xpbd::VERSION_MINOR.to_string()));
    assert_eq!(patch, Some(xpbd::VERSION_PATCH.to_string()));
    assert_eq!(string, Some(format!("\"{}\"", xpbd::VERSION)));
    assert_eq!(
        xpbd::ffi::xpbd_version(),
        xpbd::VERSION_MAJOR * 10_000 + xpbd::VERSION_MINOR * 100 + xpbd::VERSION_PATCH
    );
    // And straight from the manifest text, independent of both.
    let manifest = include_str!("../../Cargo.toml");
    let line = manifest
        .lines()
        .find(|l| l.starts_with("version = "))
        .unwrap_or_default();
    assert_eq!(line, format!("version = \"{}\"", xpbd::VERSION));
}

#[test]
fn every_header_struct_has_a_layout_check() {
    let header = xpbd_ffi_tests::generated_header();
    let structs: Vec<&str> = header
        .lines()
        .filter_map(|l| l.strip_prefix("typedef struct ")?.split(' ').next())
        .collect();
    assert!(!structs.is_empty());
    for name in structs {
        assert!(
            header.contains(&format!("XPBD_CHECK_LAYOUT({name}, ")),
            "{name} has no size/alignment check in the header: add one line for it to LAYOUTS in ffi-tests/build.rs"
        );
    }
}
