//! The committed `src/ffi/generated.rs` must be exactly what the generator
//! writes: a changed template without a regenerated file (or a hand edit
//! of the generated file) fails here.

#[test]
fn committed_wrappers_are_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../src/ffi/generated.rs");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == xpbd_ffi_gen::generate(),
        "src/ffi/generated.rs is stale or hand-edited: regenerate it with `cargo run -p xpbd-ffi-gen` and commit it"
    );
}

#[test]
fn every_wrapper_has_both_precisions() {
    let text = xpbd_ffi_gen::generate();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split("extern \"C\" fn ").nth(1))
        .filter_map(|rest| rest.split('(').next())
        .collect();

    assert_eq!(names.len(), 120, "{names:?}");
    for n in names.iter().filter(|n| !n.ends_with("_f32")) {
        assert!(
            names.contains(&format!("{n}_f32").as_str()),
            "{n} has no f32 twin"
        );
    }
}
