//! The C ABI called from Rust, the way C calls it: raw pointers that are
//! null, aliased, derived from arrays and from raw parts, pointing at
//! uninitialised memory. Run under Miri (`cargo +nightly miri test -p xpbd`)
//! these prove the FFI layer has no undefined behaviour for every pointer
//! pattern C may legally pass: no reference is formed from a caller pointer,
//! nothing is read that was not written, nothing is written on error.

use core::mem::MaybeUninit;
use core::ptr;
use std::ffi::CStr;

use xpbd::ffi::{
    xpbd_distance_begin_substep, xpbd_distance_begin_substep_f32, xpbd_distance_solve,
    xpbd_distance_solve_f32, xpbd_status_str, XpbdDistanceConstraint, XpbdDistanceConstraintF32,
    XpbdStatus,
};
use xpbd::DistanceConstraint;

const SOFT: f64 = 0.01;
const H: f64 = 0.1;

#[test]
fn null_pointers_are_reported_and_nothing_is_written() {
    let mut c = XpbdDistanceConstraint { lambda: 0.5 };
    let (mut a, mut b) = (0.0_f64, 2.0_f64);
    let null = ptr::null_mut::<f64>();
    let nullc = ptr::null_mut::<XpbdDistanceConstraint>();
    // SAFETY: every pointer is null or a valid local.
    unsafe {
        assert_eq!(xpbd_distance_begin_substep(nullc), XpbdStatus::NullPointer);
        assert_eq!(
            xpbd_distance_solve(nullc, &mut a, &mut b, 1.0, 1.0, 1.0, SOFT, H),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_distance_solve(&mut c, null, &mut b, 1.0, 1.0, 1.0, SOFT, H),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_distance_solve(&mut c, &mut a, null, 1.0, 1.0, 1.0, SOFT, H),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_distance_solve(nullc, null, null, f64::NAN, -1.0, 0.0, -1.0, 0.0),
            XpbdStatus::NullPointer
        );
    }
    assert_eq!((c.lambda, a, b), (0.5, 0.0, 2.0));

    let mut cf = XpbdDistanceConstraintF32 { lambda: 0.5 };
    let (mut af, mut bf) = (0.0_f32, 2.0_f32);
    let nullf = ptr::null_mut();
    // SAFETY: every pointer is null or a valid local.
    unsafe {
        assert_eq!(
            xpbd_distance_begin_substep_f32(nullf),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_distance_solve_f32(nullf, &mut af, &mut bf, 1.0, 1.0, 1.0, 0.01, 0.1),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_distance_solve_f32(&mut cf, ptr::null_mut(), &mut bf, 1.0, 1.0, 1.0, 0.01, 0.1),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_distance_solve_f32(&mut cf, &mut af, ptr::null_mut(), 1.0, 1.0, 1.0, 0.01, 0.1),
            XpbdStatus::NullPointer
        );
    }
    assert_eq!((cf.lambda, af, bf), (0.5, 0.0, 2.0));
}

#[test]
fn same_pointer_for_both_endpoints_is_rejected_without_writing() {
    let mut c = XpbdDistanceConstraint { lambda: 0.25 };
    let mut x = 1.0_f64;
    let p: *mut f64 = &mut x;
    // SAFETY: `p` is valid; passing it twice is legal C (aliasing).
    let s = unsafe { xpbd_distance_solve(&mut c, p, p, 1.0, 1.0, 1.0, SOFT, H) };
    assert_eq!(s, XpbdStatus::EndpointsNotOrdered);
    assert_eq!((x, c.lambda), (1.0, 0.25));

    let mut cf = XpbdDistanceConstraintF32 { lambda: 0.25 };
    let mut y = 1.0_f32;
    let q: *mut f32 = &mut y;
    // SAFETY: as above.
    let s = unsafe { xpbd_distance_solve_f32(&mut cf, q, q, 0.0, 0.0, 1.0, 0.01, 0.1) };
    assert_eq!(s, XpbdStatus::EndpointsNotOrdered);
    assert_eq!((y, cf.lambda), (1.0, 0.25));
}

/// The Rust API's result for λ = 0, a = 0, b = 2: what the aliased calls
/// below must write.
fn reference() -> (f64, f64, f64) {
    let mut link = DistanceConstraint::<f64>::new();
    let (mut a, mut b) = (0.0, 2.0);
    assert_eq!(link.solve(&mut a, &mut b, 1.0, 1.0, 1.0, SOFT, H), Ok(true));
    (a, b, link.lambda())
}

#[test]
fn an_endpoint_aliasing_the_multiplier_is_defined() {
    let (ra, rb, rl) = reference();
    // a and λ share one double (λ = a = 0): the values are read first, then
    // a, b and λ are written in that order, so the cell ends as λ'.
    let mut c = XpbdDistanceConstraint { lambda: 0.0 };
    let mut b = 2.0_f64;
    let cp: *mut XpbdDistanceConstraint = &mut c;
    // SAFETY: `cp` is valid; `cp.cast()` points at its only field, a valid
    // f64 (repr(C)). Aliasing is allowed by the C ABI's contract.
    let s = unsafe { xpbd_distance_solve(cp, cp.cast::<f64>(), &mut b, 1.0, 1.0, 1.0, SOFT, H) };
    assert_eq!(s, XpbdStatus::Ok);
    assert_eq!(
        (c.lambda.to_bits(), b.to_bits()),
        (rl.to_bits(), rb.to_bits())
    );

    // b and λ share one double: a is at 0, b = λ... needs b > a, so use
    // a = -2 with λ = b = 0 (the same gap as the reference).
    let mut c = XpbdDistanceConstraint { lambda: 0.0 };
    let mut a = -2.0_f64;
    let cp: *mut XpbdDistanceConstraint = &mut c;
    // SAFETY: as above.
    let s = unsafe { xpbd_distance_solve(cp, &mut a, cp.cast::<f64>(), 1.0, 1.0, 1.0, SOFT, H) };
    assert_eq!(s, XpbdStatus::Ok);
    assert_eq!(a.to_bits(), (ra - 2.0).to_bits());
    assert_eq!(c.lambda.to_bits(), rl.to_bits(), "λ is written last");
}

#[test]
fn endpoints_from_raw_parts_of_one_array() {
    // A chain in one caller buffer: pointers come from `as_mut_ptr().add(i)`
    // and the buffer is read back through a slice built from raw parts.
    const N: usize = 6;
    let mut x: Vec<f64> = (0..N).map(|i| 1.5 * i as f64).collect();
    let mut links = vec![XpbdDistanceConstraint::default(); N - 1];
    let xp = x.as_mut_ptr();
    let lp = links.as_mut_ptr();
    for _substep in 0..2 {
        for k in 0..N - 1 {
            // SAFETY: k < N - 1: in bounds of `links`.
            let s = unsafe { xpbd_distance_begin_substep(lp.add(k)) };
            assert_eq!(s, XpbdStatus::Ok);
        }
        for _iteration in 0..3 {
            for k in 0..N - 1 {
                // SAFETY: k, k + 1 < N: in bounds; no reference to `x` or
                // `links` is alive across the call.
                let s = unsafe {
                    xpbd_distance_solve(lp.add(k), xp.add(k), xp.add(k + 1), 1.0, 1.0, 1.0, 0.0, H)
                };
                assert_eq!(s, XpbdStatus::Ok);
            }
        }
    }
    // SAFETY: `xp` points at N initialised f64 owned by `x`, not mutated
    // while the slice lives.
    let view = unsafe { std::slice::from_raw_parts(xp, N) };
    assert!(view.windows(2).all(|w| w[1] > w[0]));
    let len = view[N - 1] - view[0];
    assert!(
        (len - (N - 1) as f64).abs() < 0.5,
        "rigid links pulled the chain to ~5 m: {len}"
    );
    // SAFETY: `lp` points at N - 1 initialised constraints owned by `links`.
    let lambdas = unsafe { std::slice::from_raw_parts(lp, N - 1) };
    assert!(lambdas.iter().all(|l| l.lambda.is_finite()));
    drop(links);
    drop(x);
}

#[test]
fn begin_substep_initialises_uninitialised_storage() {
    // C may call begin_substep on fresh, uninitialised storage: it must only
    // write, never read (Miri reports a read of uninitialised memory).
    let mut c = MaybeUninit::<XpbdDistanceConstraint>::uninit();
    // SAFETY: `c` is valid for writes.
    assert_eq!(
        unsafe { xpbd_distance_begin_substep(c.as_mut_ptr()) },
        XpbdStatus::Ok
    );
    // SAFETY: begin_substep wrote the only field.
    let c = unsafe { c.assume_init() };
    assert_eq!(c.lambda.to_bits(), 0);

    let mut cf = MaybeUninit::<XpbdDistanceConstraintF32>::uninit();
    // SAFETY: as above.
    assert_eq!(
        unsafe { xpbd_distance_begin_substep_f32(cf.as_mut_ptr()) },
        XpbdStatus::Ok
    );
    // SAFETY: as above.
    assert_eq!(unsafe { cf.assume_init() }.lambda.to_bits(), 0);
}

#[test]
fn heap_storage_and_rejections_keep_every_byte() {
    let mut c = Box::new(XpbdDistanceConstraintF32 { lambda: -3.5 });
    let mut ends = Box::new([f32::NAN, 2.0]);
    let cp: *mut XpbdDistanceConstraintF32 = &mut *c;
    let ep = ends.as_mut_ptr();
    let before = (c.lambda.to_bits(), ends[0].to_bits(), ends[1].to_bits());
    // SAFETY: heap pointers, in bounds.
    let s = unsafe { xpbd_distance_solve_f32(cp, ep, ep.add(1), 1.0, 1.0, 1.0, 0.01, 0.1) };
    assert_eq!(s, XpbdStatus::NonFinitePosition);
    assert_eq!(
        (c.lambda.to_bits(), ends[0].to_bits(), ends[1].to_bits()),
        before
    );
}

#[test]
fn status_strings_are_static_c_strings() {
    for code in (-12..=3).chain([i32::MIN, i32::MAX]) {
        let p = xpbd_status_str(code);
        assert!(!p.is_null());
        // SAFETY: a static NUL-terminated string.
        let text = unsafe { CStr::from_ptr(p) }.to_str().expect("ASCII");
        assert!(!text.is_empty());
        let known = XpbdStatus::from_code(code).is_some();
        assert_eq!(text.starts_with("unknown"), !known, "{code}: {text}");
    }
}
