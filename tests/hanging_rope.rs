//! The seed's claim on a dynamic rope: a pinned rope's rest sag under
//! gravity is the same for 5, 20 and 100 iterations per substep with λ kept,
//! and measurably smaller (stiffer) with λ reset before every iteration.

#[path = "../examples/support/hanging.rs"]
mod hanging;

use hanging::{sag, simulate};

#[test]
#[cfg_attr(miri, ignore = "thousands of substeps: too slow for the interpreter")]
fn rest_sag_is_budget_independent_with_lambda_kept_and_stiffer_with_reset() {
    let kept: Vec<f64> = [5, 20, 100]
        .iter()
        .map(|&k| sag(&simulate(k, false)))
        .collect();
    let reset: Vec<f64> = [5, 20, 100]
        .iter()
        .map(|&k| sag(&simulate(k, true)))
        .collect();
    println!("kept {kept:?}, reset {reset:?}");
    for s in &kept[1..] {
        assert!((s - kept[0]).abs() < 1e-6, "λ kept: {kept:?}");
    }
    for (r, k) in reset.iter().zip(&kept) {
        assert!(k - r > 0.1, "λ reset should be visibly stiffer: {r} vs {k}");
    }
    assert!(
        reset[0] > reset[1] && reset[1] > reset[2],
        "more iterations, stiffer: {reset:?}"
    );
}
