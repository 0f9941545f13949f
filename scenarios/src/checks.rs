//! The seed's golden checks (f64 and f32, bit-exact) and the rejection
//! checks, through the Rust API and through the C entry points. The host
//! test `tests/checks.rs` and the QEMU program run exactly this code.
//!
//! Every check is reported through a callback `report(group, name, ok)`, so
//! the bare-metal program can print each one over semihosting.

use core::ffi::CStr;
use core::ptr;

use xpbd::ffi::{xpbd_status_str, XpbdStatus};
use xpbd::{DistanceConstraint, Error};

use crate::Scalar;

/// A check reporter: `(group, name, passed)`.
pub type Report<'a> = &'a mut dyn FnMut(&str, &str, bool);

/// The SPEC's fixed case: a = 0, b = 2, wa = wb = 1, rest = 1, α = 0.01.
const FIXED: [f64; 6] = [0.0, 2.0, 1.0, 1.0, 1.0, 0.01];

/// SPEC.md's four golden figures in f64 (bits): first_residual, retained_10,
/// wrong_reset_10, half_dt_residual.
pub const GOLDEN_F64: [f64; 4] = [
    0.333_333_333_333_333_5,
    0.333_333_333_333_333_5,
    1.693_508_780_853_392_2e-5,
    0.666_666_666_666_666_5,
];

/// The same four figures computed in binary32 (inputs rounded to f32 once):
/// pinned bit-exact on x86-64 and Cortex-M4F alike.
pub const GOLDEN_F32: [f32; 4] = [
    f32::from_bits(0x3eaa_aaa8), // 0.33333325
    f32::from_bits(0x3eaa_aaa8), // 0.33333325
    f32::from_bits(0x378e_0000), // 1.692772e-5
    f32::from_bits(0x3f2a_aaa8), // 0.6666665
];

/// The figure names, in the order of [`GOLDEN_F64`].
pub const GOLDEN_NAMES: [&str; 4] = [
    "first_residual",
    "retained_10",
    "wrong_reset_10",
    "half_dt_residual",
];

/// `C = b − a − rest` after `n` solves of the fixed case with substep `dt`;
/// `reset` reproduces the bug (λ reset before every solve). NaN if a solve
/// is not applied.
#[must_use]
pub fn fixed_residual<T: Scalar>(n: usize, reset: bool, dt: f64) -> T {
    let [a, b, wa, wb, rest, compliance] = FIXED.map(T::from_f64);
    let (mut a, mut b) = (a, b);
    let dt = T::from_f64(dt);
    let mut link = DistanceConstraint::<T>::new();
    link.begin_substep();
    for _ in 0..n {
        if reset {
            link.begin_substep();
        }
        if link.solve(&mut a, &mut b, wa, wb, rest, compliance, dt) != Ok(true) {
            return T::from_f64(f64::NAN);
        }
    }
    b - a - rest
}

/// The four golden figures computed in `T`.
#[must_use]
pub fn golden_figures<T: Scalar>() -> [T; 4] {
    [
        fixed_residual(1, false, 0.1),
        fixed_residual(10, false, 0.1),
        fixed_residual(10, true, 0.1),
        fixed_residual(1, false, 0.05),
    ]
}

/// Checks the golden figures of `T` bit for bit against `want`.
pub fn golden<T: Scalar>(want: [T; 4], report: Report<'_>) {
    let got = golden_figures::<T>();
    for ((name, g), w) in GOLDEN_NAMES.iter().zip(got).zip(want) {
        report(T::NAME, name, g.bits() == w.bits());
    }
}

/// One rejection case: inputs (as f64, rounded to `T`) and the wanted status.
struct Case {
    name: &'static str,
    v: [f64; 7],
    want: XpbdStatus,
}

const NAN: f64 = f64::NAN;
const INF: f64 = f64::INFINITY;
/// Stands for "the type's tiny dt" (its square underflows to 0).
const TINY: f64 = -1234.5;
/// Stands for "the type's largest finite value".
const HUGE: f64 = -5678.5;
const NEG_HUGE: f64 = -9012.5;

const CASES: [Case; 21] = [
    case(
        "a = NaN",
        [NAN, 2.0, 1.0, 1.0, 1.0, 0.01, 0.1],
        XpbdStatus::NonFinitePosition,
    ),
    case(
        "b = +inf",
        [0.0, INF, 1.0, 1.0, 1.0, 0.01, 0.1],
        XpbdStatus::NonFinitePosition,
    ),
    case(
        "wa = -1",
        [0.0, 2.0, -1.0, 1.0, 1.0, 0.01, 0.1],
        XpbdStatus::InvalidInverseMass,
    ),
    case(
        "wb = NaN",
        [0.0, 2.0, 1.0, NAN, 1.0, 0.01, 0.1],
        XpbdStatus::InvalidInverseMass,
    ),
    case(
        "wa = +inf",
        [0.0, 2.0, INF, 1.0, 1.0, 0.01, 0.1],
        XpbdStatus::InvalidInverseMass,
    ),
    case(
        "rest = 0",
        [0.0, 2.0, 1.0, 1.0, 0.0, 0.01, 0.1],
        XpbdStatus::InvalidRestLength,
    ),
    case(
        "rest = -1",
        [0.0, 2.0, 1.0, 1.0, -1.0, 0.01, 0.1],
        XpbdStatus::InvalidRestLength,
    ),
    case(
        "rest = +inf",
        [0.0, 2.0, 1.0, 1.0, INF, 0.01, 0.1],
        XpbdStatus::InvalidRestLength,
    ),
    case(
        "compliance = -0.01",
        [0.0, 2.0, 1.0, 1.0, 1.0, -0.01, 0.1],
        XpbdStatus::InvalidCompliance,
    ),
    case(
        "compliance = NaN",
        [0.0, 2.0, 1.0, 1.0, 1.0, NAN, 0.1],
        XpbdStatus::InvalidCompliance,
    ),
    case(
        "dt = 0",
        [0.0, 2.0, 1.0, 1.0, 1.0, 0.01, 0.0],
        XpbdStatus::InvalidTimeStep,
    ),
    case(
        "dt = -0.1",
        [0.0, 2.0, 1.0, 1.0, 1.0, 0.01, -0.1],
        XpbdStatus::InvalidTimeStep,
    ),
    case(
        "dt = +inf",
        [0.0, 2.0, 1.0, 1.0, 1.0, 0.01, INF],
        XpbdStatus::InvalidTimeStep,
    ),
    case(
        "a = b",
        [1.0, 1.0, 1.0, 1.0, 1.0, 0.01, 0.1],
        XpbdStatus::EndpointsNotOrdered,
    ),
    case(
        "b < a",
        [2.0, 0.0, 1.0, 1.0, 1.0, 0.01, 0.1],
        XpbdStatus::EndpointsNotOrdered,
    ),
    case(
        "dt tiny",
        [0.0, 2.0, 1.0, 1.0, 1.0, 0.01, TINY],
        XpbdStatus::UnrepresentableScale,
    ),
    case(
        "wa = wb = max",
        [0.0, 2.0, HUGE, HUGE, 1.0, 0.01, 0.1],
        XpbdStatus::UnrepresentableScale,
    ),
    case(
        "a = -max, b = max",
        [NEG_HUGE, HUGE, 1.0, 1.0, 1.0, 0.01, 0.1],
        XpbdStatus::InvalidResult,
    ),
    case(
        "all bad: first wins",
        [NAN, 2.0, -1.0, 1.0, 0.0, -1.0, 0.0],
        XpbdStatus::NonFinitePosition,
    ),
    case(
        "bad mass before dt",
        [0.0, 2.0, -1.0, 1.0, 1.0, 0.01, 0.0],
        XpbdStatus::InvalidInverseMass,
    ),
    case(
        "both static",
        [0.0, 2.0, 0.0, 0.0, 1.0, 0.01, 0.1],
        XpbdStatus::Skipped,
    ),
];

const fn case(name: &'static str, v: [f64; 7], want: XpbdStatus) -> Case {
    Case { name, v, want }
}

fn status_of(r: Result<bool, Error>) -> XpbdStatus {
    match r {
        Ok(true) => XpbdStatus::Ok,
        Ok(false) => XpbdStatus::Skipped,
        Err(e) => XpbdStatus::from(e),
    }
}

/// Every rejection case through the Rust API and the C entry point: the
/// status is the wanted one and positions and λ keep their exact bits.
/// `tiny_dt` is a substep whose square underflows to 0 in `T`, `huge` the
/// largest finite `T`.
pub fn rejections<T: Scalar>(tiny_dt: T, huge: T, report: Report<'_>) {
    for c in &CASES {
        let [a0, b0, wa, wb, rest, compliance, dt] = c.v.map(|x| {
            if x.to_bits() == TINY.to_bits() {
                tiny_dt
            } else if x.to_bits() == HUGE.to_bits() {
                huge
            } else if x.to_bits() == NEG_HUGE.to_bits() {
                -huge
            } else {
                T::from_f64(x)
            }
        });

        // Rust API, with a non-zero λ from an earlier valid solve.
        let mut link = DistanceConstraint::<T>::new();
        let (mut p, mut q) = (T::ZERO, T::from_f64(2.0));
        let primed = link.solve(
            &mut p,
            &mut q,
            T::ONE,
            T::ONE,
            T::ONE,
            T::from_f64(0.01),
            T::from_f64(0.1),
        );
        let lambda0 = link.lambda();
        let (mut a, mut b) = (a0, b0);
        let status = status_of(link.solve(&mut a, &mut b, wa, wb, rest, compliance, dt));
        let kept = a.bits() == a0.bits()
            && b.bits() == b0.bits()
            && link.lambda().bits() == lambda0.bits();
        report(
            T::RUST,
            c.name,
            primed == Ok(true) && status == c.want && kept,
        );

        // C entry point, λ = 0.75.
        let mut cl = T::link_with(T::from_f64(0.75));
        let (mut a, mut b) = (a0, b0);
        // SAFETY: three valid, distinct locals.
        let status = unsafe { T::c_solve(&mut cl, &mut a, &mut b, wa, wb, rest, compliance, dt) };
        let kept = a.bits() == a0.bits()
            && b.bits() == b0.bits()
            && T::lambda_of(&cl).bits() == T::from_f64(0.75).bits();
        report(T::C_ABI, c.name, status == c.want && kept);
    }
}

/// The C-only rejections: null pointers (checked before any value) and
/// aliased endpoints, with nothing written.
pub fn c_pointer_checks<T: Scalar>(report: Report<'_>) {
    let one = T::ONE;
    let (soft, h) = (T::from_f64(0.01), T::from_f64(0.1));
    let l0 = T::from_f64(0.5);
    let mut cl = T::link_with(l0);
    let (mut a, mut b) = (T::ZERO, T::from_f64(2.0));
    let null = ptr::null_mut();
    // SAFETY: every pointer is null or a valid local; no reference is held
    // across a call.
    let statuses = unsafe {
        [
            T::c_begin(ptr::null_mut()),
            T::c_solve(ptr::null_mut(), &mut a, &mut b, one, one, one, soft, h),
            T::c_solve(&mut cl, null, &mut b, one, one, one, soft, h),
            T::c_solve(&mut cl, &mut a, null, one, one, one, soft, h),
            // Null is reported before any bad value.
            T::c_solve(&mut cl, null, &mut b, -one, one, T::ZERO, -one, T::ZERO),
        ]
    };
    let unchanged = a.bits() == 0
        && b.bits() == T::from_f64(2.0).bits()
        && T::lambda_of(&cl).bits() == l0.bits();
    report(
        T::C_ABI,
        "null pointers",
        statuses.iter().all(|s| *s == XpbdStatus::NullPointer) && unchanged,
    );

    let mut x = T::ONE;
    let xp: *mut T = &mut x;
    // SAFETY: `xp` is a valid local passed twice; the C ABI reads both
    // values before deciding and rejects a == b without writing.
    let status = unsafe { T::c_solve(&mut cl, xp, xp, one, one, one, soft, h) };
    report(
        T::C_ABI,
        "aliased a == b",
        status == XpbdStatus::EndpointsNotOrdered
            && x.bits() == T::ONE.bits()
            && T::lambda_of(&cl).bits() == l0.bits(),
    );

    // begin_substep resets λ to +0 exactly.
    // SAFETY: valid local.
    let status = unsafe { T::c_begin(&mut cl) };
    report(
        T::C_ABI,
        "begin_substep resets",
        status == XpbdStatus::Ok && T::lambda_of(&cl).bits() == 0,
    );
}

/// `xpbd_status_str`: every documented code has its own non-empty text,
/// and any other integer gives the "unknown" text, never NULL.
pub fn status_strings(report: Report<'_>) {
    let mut ok = true;
    let mut prev: [&[u8]; 31] = [b""; 31];
    for (i, code) in (-29..=1).enumerate() {
        let p = xpbd_status_str(code);
        let text = if p.is_null() {
            b"" as &[u8]
        } else {
            // SAFETY: xpbd_status_str returns a pointer to a static
            // NUL-terminated string (checked non-null above).
            unsafe { CStr::from_ptr(p) }.to_bytes()
        };
        ok &= !text.is_empty() && !prev.iter().take(i).any(|t| *t == text);
        if let Some(slot) = prev.get_mut(i) {
            *slot = text;
        }
    }
    for code in [2, -30, i32::MIN, i32::MAX] {
        let p = xpbd_status_str(code);
        // SAFETY: as above.
        ok &= !p.is_null()
            && unsafe { CStr::from_ptr(p) }
                .to_bytes()
                .starts_with(b"unknown");
    }
    report("c-abi", "status strings", ok);
}

/// Runs every check (golden f64 and f32, rejections and pointer checks in
/// both types, status strings); returns `(passed, failed)`.
pub fn run_all(report: Report<'_>) -> (u32, u32) {
    let (mut passed, mut failed) = (0, 0);
    let mut count = |group: &str, name: &str, ok: bool| {
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
        report(group, name, ok);
    };
    golden::<f64>(GOLDEN_F64, &mut count);
    golden::<f32>(GOLDEN_F32, &mut count);
    rejections::<f64>(1e-200, f64::MAX, &mut count);
    rejections::<f32>(1e-30, f32::MAX, &mut count);
    c_pointer_checks::<f64>(&mut count);
    c_pointer_checks::<f32>(&mut count);
    status_strings(&mut count);
    (passed, failed)
}
