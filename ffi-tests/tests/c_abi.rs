//! Runs the C test program (ffi-tests/c) through the C ABI.

#[test]
fn c_test_program_passes() {
    assert_eq!(
        xpbd_ffi_tests::c_test_failures(),
        0,
        "C checks failed: see the output above"
    );
}

#[test]
fn header_compiles_and_works_as_cpp() {
    assert_eq!(xpbd_ffi_tests::cpp_header_check(), 0);
}
