//! The λ lifecycle, static endpoints, and every rejection with state kept
//! bit-identical (f64 and f32).

use xpbd::{DistanceConstraint, Error, Real};

/// The value's own bit pattern, read as bytes (no conversion: widening a NaN
/// is an arithmetic operation whose NaN payload Rust leaves unspecified, and
/// Miri randomises it, so `to_f64().to_bits()` can differ for the same NaN).
fn bits<T: Real>(x: T) -> u64 {
    let mut out = [0u8; 8];
    // SAFETY: `T` is f32 or f64 (the trait is sealed): plain bytes, at most 8.
    let src = unsafe {
        std::slice::from_raw_parts((&x as *const T).cast::<u8>(), std::mem::size_of::<T>())
    };
    out[..src.len()].copy_from_slice(src);
    u64::from_le_bytes(out)
}

#[test]
fn lambda_is_reset_by_begin_substep_only() {
    let mut link = DistanceConstraint::<f64>::new();
    assert_eq!(link.lambda(), 0.0);
    let (mut a, mut b) = (0.0, 2.0);
    for _ in 0..3 {
        link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 0.1)
            .unwrap();
        assert_ne!(link.lambda(), 0.0, "solve must keep λ across iterations");
    }
    // A rejected call does not reset λ either.
    let kept = link.lambda();
    assert_eq!(
        link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, -1.0),
        Err(Error::InvalidTimeStep)
    );
    assert_eq!(link.lambda().to_bits(), kept.to_bits());
    // A skipped call neither.
    assert_eq!(
        link.solve(&mut a, &mut b, 0.0, 0.0, 1.0, 0.01, 0.1),
        Ok(false)
    );
    assert_eq!(link.lambda().to_bits(), kept.to_bits());
    link.begin_substep();
    assert_eq!(link.lambda().to_bits(), 0.0_f64.to_bits());
    assert_eq!(
        DistanceConstraint::<f64>::default(),
        DistanceConstraint::new()
    );
}

#[test]
fn each_instance_owns_its_lambda() {
    let mut first = DistanceConstraint::<f64>::new();
    let second = DistanceConstraint::<f64>::new();
    let (mut a, mut b) = (0.0, 2.0);
    first
        .solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 0.1)
        .unwrap();
    assert_ne!(first.lambda(), 0.0);
    assert_eq!(second.lambda(), 0.0);
}

#[test]
fn one_static_endpoint_moves_the_other_only() {
    let mut link = DistanceConstraint::<f64>::new();
    let (mut a, mut b) = (0.0, 2.0);
    // Rigid link (α = 0), a static: b carries the whole displacement.
    assert_eq!(
        link.solve(&mut a, &mut b, 0.0, 1.0, 1.0, 0.0, 0.1),
        Ok(true)
    );
    assert_eq!(a.to_bits(), 0.0_f64.to_bits());
    assert_eq!(b, 1.0);
    let mut link = DistanceConstraint::<f64>::new();
    let (mut a, mut b) = (0.0, 2.0);
    assert_eq!(
        link.solve(&mut a, &mut b, 1.0, 0.0, 1.0, 0.0, 0.1),
        Ok(true)
    );
    assert_eq!(b, 2.0);
    assert_eq!(a, 1.0);
    // Soft link, a static: Δλ = -1/(1 + 1) → b moves by -1/2.
    let mut link = DistanceConstraint::<f64>::new();
    let (mut a, mut b) = (0.0, 2.0);
    assert_eq!(
        link.solve(&mut a, &mut b, 0.0, 1.0, 1.0, 0.01, 0.1),
        Ok(true)
    );
    assert_eq!((a, b), (0.0, 1.5));
}

#[test]
fn both_static_is_skipped_and_changes_nothing() {
    let mut link = DistanceConstraint::<f64>::new();
    let (mut a, mut b) = (0.0, 2.0);
    assert_eq!(
        link.solve(&mut a, &mut b, 0.0, 0.0, 1.0, 0.01, 0.1),
        Ok(false)
    );
    assert_eq!(
        (a.to_bits(), b.to_bits(), link.lambda().to_bits()),
        (0.0_f64.to_bits(), 2.0_f64.to_bits(), 0)
    );
}

#[test]
fn both_static_with_bad_inputs_is_an_error_not_a_skip() {
    let mut link = DistanceConstraint::<f64>::new();
    let (mut a, mut b) = (0.0, 2.0);
    assert_eq!(
        link.solve(&mut a, &mut b, 0.0, 0.0, 1.0, 0.01, 0.0),
        Err(Error::InvalidTimeStep)
    );
    assert_eq!(
        link.solve(&mut a, &mut b, 0.0, 0.0, 1.0, 0.01, f64::NAN),
        Err(Error::InvalidTimeStep)
    );
    assert_eq!(
        link.solve(&mut b, &mut a, 0.0, 0.0, 1.0, 0.01, 0.1),
        Err(Error::EndpointsNotOrdered)
    );
    assert_eq!(
        link.solve(&mut a, &mut b, 0.0, 0.0, 0.0, 0.01, 0.1),
        Err(Error::InvalidRestLength)
    );
}

/// One input set and the error it must give.
struct Case<T> {
    a: T,
    b: T,
    wa: T,
    wb: T,
    rest: T,
    compliance: T,
    dt: T,
    want: Error,
}

fn check_rejections<T: Real>(cases: &[Case<T>]) {
    for (i, k) in cases.iter().enumerate() {
        let mut link = DistanceConstraint::<T>::new();
        // Give λ a non-zero history first so "unchanged" means something.
        let (mut x, mut y) = (T::ZERO, T::from_f64(2.0));
        let one = T::ONE;
        link.solve(
            &mut x,
            &mut y,
            one,
            one,
            one,
            T::from_f64(0.01),
            T::from_f64(0.1),
        )
        .unwrap();
        let lambda_before = link.lambda();
        let (mut a, mut b) = (k.a, k.b);
        let got = link.solve(&mut a, &mut b, k.wa, k.wb, k.rest, k.compliance, k.dt);
        assert_eq!(got, Err(k.want), "case {i}");
        assert_eq!(bits(a), bits(k.a), "case {i}: a changed");
        assert_eq!(bits(b), bits(k.b), "case {i}: b changed");
        assert_eq!(
            bits(link.lambda()),
            bits(lambda_before),
            "case {i}: λ changed"
        );
        assert!(!k.want.to_string().is_empty());
    }
}

fn rejection_cases<T: Real>(tiny_dt: T, huge: T) -> Vec<Case<T>> {
    let f = T::from_f64;
    let (nan, inf) = (f(f64::NAN), f(f64::INFINITY));
    let c = |a: f64, b: f64, wa: T, wb: T, rest: T, compliance: T, dt: T, want| Case {
        a: f(a),
        b: f(b),
        wa,
        wb,
        rest,
        compliance,
        dt,
        want,
    };
    let (one, zero, soft, h) = (f(1.0), f(0.0), f(0.01), f(0.1));
    vec![
        Case {
            a: nan,
            b: f(2.0),
            wa: one,
            wb: one,
            rest: one,
            compliance: soft,
            dt: h,
            want: Error::NonFinitePosition,
        },
        Case {
            a: f(0.0),
            b: inf,
            wa: one,
            wb: one,
            rest: one,
            compliance: soft,
            dt: h,
            want: Error::NonFinitePosition,
        },
        Case {
            a: -inf,
            b: f(2.0),
            wa: one,
            wb: one,
            rest: one,
            compliance: soft,
            dt: h,
            want: Error::NonFinitePosition,
        },
        c(
            0.0,
            2.0,
            f(-1.0),
            one,
            one,
            soft,
            h,
            Error::InvalidInverseMass,
        ),
        c(0.0, 2.0, one, nan, one, soft, h, Error::InvalidInverseMass),
        c(0.0, 2.0, inf, one, one, soft, h, Error::InvalidInverseMass),
        c(0.0, 2.0, one, one, zero, soft, h, Error::InvalidRestLength),
        c(
            0.0,
            2.0,
            one,
            one,
            f(-0.0),
            soft,
            h,
            Error::InvalidRestLength,
        ),
        c(
            0.0,
            2.0,
            one,
            one,
            f(-1.0),
            soft,
            h,
            Error::InvalidRestLength,
        ),
        c(0.0, 2.0, one, one, nan, soft, h, Error::InvalidRestLength),
        c(0.0, 2.0, one, one, inf, soft, h, Error::InvalidRestLength),
        c(
            0.0,
            2.0,
            one,
            one,
            one,
            f(-0.01),
            h,
            Error::InvalidCompliance,
        ),
        c(0.0, 2.0, one, one, one, nan, h, Error::InvalidCompliance),
        c(0.0, 2.0, one, one, one, inf, h, Error::InvalidCompliance),
        c(0.0, 2.0, one, one, one, soft, zero, Error::InvalidTimeStep),
        c(
            0.0,
            2.0,
            one,
            one,
            one,
            soft,
            f(-0.1),
            Error::InvalidTimeStep,
        ),
        c(0.0, 2.0, one, one, one, soft, nan, Error::InvalidTimeStep),
        c(0.0, 2.0, one, one, one, soft, inf, Error::InvalidTimeStep),
        c(2.0, 2.0, one, one, one, soft, h, Error::EndpointsNotOrdered),
        c(3.0, 2.0, one, one, one, soft, h, Error::EndpointsNotOrdered),
        c(
            0.0,
            2.0,
            one,
            one,
            one,
            soft,
            tiny_dt,
            Error::UnrepresentableScale,
        ),
        c(
            0.0,
            2.0,
            one,
            one,
            one,
            zero,
            tiny_dt,
            Error::UnrepresentableScale,
        ),
        c(
            0.0,
            2.0,
            huge,
            huge,
            one,
            soft,
            h,
            Error::UnrepresentableScale,
        ),
        Case {
            a: -huge,
            b: huge,
            wa: one,
            wb: one,
            rest: one,
            compliance: soft,
            dt: h,
            want: Error::InvalidResult,
        },
        // Several failures at once: the first in SPEC order is reported.
        Case {
            a: nan,
            b: f(2.0),
            wa: f(-1.0),
            wb: one,
            rest: zero,
            compliance: f(-1.0),
            dt: zero,
            want: Error::NonFinitePosition,
        },
        c(
            0.0,
            2.0,
            f(-1.0),
            one,
            zero,
            f(-1.0),
            zero,
            Error::InvalidInverseMass,
        ),
        c(
            0.0,
            2.0,
            one,
            one,
            zero,
            f(-1.0),
            zero,
            Error::InvalidRestLength,
        ),
        c(
            2.0,
            0.0,
            one,
            one,
            one,
            f(-1.0),
            zero,
            Error::InvalidCompliance,
        ),
        c(2.0, 0.0, one, one, one, zero, zero, Error::InvalidTimeStep),
    ]
}

#[test]
fn every_rejection_leaves_state_bit_identical_f64() {
    check_rejections(&rejection_cases::<f64>(1e-200, f64::MAX));
}

#[test]
fn every_rejection_leaves_state_bit_identical_f32() {
    check_rejections(&rejection_cases::<f32>(1e-30, f32::MAX));
}

#[test]
fn spec_examples_of_the_two_result_errors() {
    let mut link = DistanceConstraint::<f64>::new();
    let (mut a, mut b) = (0.0, 2.0);
    assert_eq!(
        link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 1e-200),
        Err(Error::UnrepresentableScale)
    );
    assert_eq!(
        link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.0, 1e-200),
        Err(Error::UnrepresentableScale)
    );
    let (mut a, mut b) = (-1e308, 1e308);
    assert_eq!(
        link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, 0.01, 0.1),
        Err(Error::InvalidResult)
    );
    assert_eq!((a, b, link.lambda()), (-1e308, 1e308, 0.0));
}

#[test]
fn errors_describe_themselves() {
    let all = [
        Error::NonFinitePosition,
        Error::InvalidInverseMass,
        Error::InvalidRestLength,
        Error::InvalidCompliance,
        Error::InvalidTimeStep,
        Error::EndpointsNotOrdered,
        Error::UnrepresentableScale,
        Error::InvalidResult,
    ];
    let texts: std::collections::BTreeSet<String> = all.iter().map(ToString::to_string).collect();
    assert_eq!(texts.len(), all.len(), "every error has its own text");
    let as_dyn: &dyn core::error::Error = &Error::InvalidTimeStep;
    assert!(as_dyn.to_string().contains("substep"));
}
