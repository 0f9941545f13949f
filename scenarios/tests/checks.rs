//! The golden and rejection checks the QEMU program runs, on the host.

use xpbd_scenarios::checks;

#[test]
fn every_check_passes_on_the_host() {
    let mut failures = Vec::new();
    let (passed, failed) = checks::run_all(&mut |group, name, ok| {
        if !ok {
            failures.push(format!("{group} {name}"));
        }
    });
    assert_eq!(failed, 0, "failed checks: {failures:?}");
    assert!(passed >= 99, "only {passed} checks ran");
}

#[test]
fn f32_golden_figures_are_the_pinned_ones() {
    let got = checks::golden_figures::<f32>();
    println!("f32 golden figures: {got:?}");
    assert_eq!(got.map(f32::to_bits), checks::GOLDEN_F32.map(f32::to_bits));
}

#[test]
fn a_wrong_golden_value_is_reported() {
    // The checks can fail: perturb one wanted figure by one ulp.
    let mut want = checks::GOLDEN_F64;
    want[2] = f64::from_bits(want[2].to_bits() + 1);
    let mut failed = 0;
    checks::golden::<f64>(want, &mut |_, _, ok| failed += u32::from(!ok));
    assert_eq!(failed, 1);
}
