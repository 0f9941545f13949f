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
