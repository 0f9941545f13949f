//! The fuzzing harness of xpbd's C ABI.
//!
//! [`distance`] decodes arbitrary bytes into a sequence of calls of
//! `xpbd_distance_begin_substep(_f32)` and `xpbd_distance_solve(_f32)` on one
//! caller arena, with arbitrary floats (raw bit patterns and special values),
//! arbitrary pointer choices (any arena cell, the λ cell of either link, or
//! NULL: so null and every aliasing pattern), and checks after every call:
//!
//! - no crash and no undefined behaviour (the targets run under ASan, with
//!   debug assertions and overflow checks);
//! - the status is a documented code (OK, SKIPPED or one of the errors);
//! - the whole arena is bit-for-bit what an independent model of SPEC.md
//!   predicts: unchanged on an error or a skip, and on success exactly the
//!   three values written in the order a, b, λ.
//!
//! [`world`] does the same for the 3D f64 system ABI (begin_substep,
//! iterate, iterate_until, measure, the rope / loop / cloth builders) and
//! for stepping (`xpbd_world3_step`): arbitrary floats, indices, counts,
//! null-ness and overlapping buffers; [`colored`] for the colored ABI
//! (colorings, link fill, colored system, job ranges, stats merge).

// The model spells the SPEC's conditions literally: `!(x > 0)` is "not
// greater than zero", NaN included, which is the point.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use xpbd::ffi::XpbdStatus;

pub mod colored;
pub mod world;
use xpbd_scenarios::Scalar;

/// Reads the fuzzer's bytes; past the end every read is 0.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// Wraps the fuzzer's bytes.
    pub fn new(data: &'a [u8]) -> Self {
        Self { data }
    }
    /// Whether bytes are left.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// The next byte.
    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((b, rest)) => {
                self.data = rest;
                *b
            }
            None => 0,
        }
    }
    /// The next `n ≤ 8` bytes, little-endian.
    pub fn bits(&mut self, n: usize) -> u64 {
        (0..n).fold(0, |acc, i| acc | (u64::from(self.byte()) << (8 * i)))
    }
    /// A float: one selector byte, then either a special value or the raw
    /// IEEE-754 bit pattern (any NaN payload, subnormal, infinity).
    pub fn real<T: Scalar>(&mut self) -> T {
        const SPECIAL: [f64; 16] = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            0.1,
            0.01,
            1e-30,
            1e-200,
            5e-324,
            3e38,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let s = self.byte();
        if s < 0x80 {
            T::from_f64(SPECIAL[usize::from(s % 16)])
        } else {
            T::from_raw(self.bits(core::mem::size_of::<T>()))
        }
    }
}

/// Cells of the arena: four positions, then the λ of link 0 and of link 1
/// (each C constraint struct is `repr(C)` with λ as its only field).
const CELLS: usize = 6;
const LINK0: usize = 4;

/// What the model predicts for one solve.
enum Expect<T> {
    Status(XpbdStatus),
    Write { a: T, b: T, lambda: T },
}

/// An independent model of SPEC.md's 1D solve (written from the spec, not
/// from the library): checks in order, then the candidate.
#[allow(clippy::too_many_arguments)]
fn model<T: Scalar>(
    a: T,
    b: T,
    wa: T,
    wb: T,
    rest: T,
    compliance: T,
    dt: T,
    lambda: T,
) -> Expect<T> {
    use XpbdStatus as S;
    let fin = |x: T| x.is_finite();
    let nonneg = |x: T| fin(x) && x >= T::ZERO;
    let status = if !fin(a) || !fin(b) {
        Some(S::NonFinitePosition)
    } else if !nonneg(wa) || !nonneg(wb) {
        Some(S::InvalidInverseMass)
    } else if !nonneg(rest) || rest == T::ZERO {
        Some(S::InvalidRestLength)
    } else if !nonneg(compliance) {
        Some(S::InvalidCompliance)
    } else if !fin(dt) || !(dt > T::ZERO) {
        Some(S::InvalidTimeStep)
    } else if !(b > a) {
        Some(S::EndpointsNotOrdered)
    } else if wa == T::ZERO && wb == T::ZERO {
        Some(S::Skipped)
    } else {
        None
    };
    if let Some(s) = status {
        return Expect::Status(s);
    }
    let alpha = compliance / (dt * dt);
    let den = wa + wb + alpha;
    if !fin(alpha) || !fin(den) || !(den > T::ZERO) {
        return Expect::Status(S::UnrepresentableScale);
    }
    let c = b - a - rest;
    let d = (-c - alpha * lambda) / den;
    let (na, nb, nl) = (a - wa * d, b + wb * d, lambda + d);
    if !fin(na) || !fin(nb) || !fin(nl) || nb < na {
        return Expect::Status(S::InvalidResult);
    }
    Expect::Write {
        a: na,
        b: nb,
        lambda: nl,
    }
}

fn same<T: Scalar>(x: &[T; CELLS], y: &[T; CELLS]) -> bool {
    x.iter().zip(y).all(|(p, q)| p.bits() == q.bits())
}

/// Decodes `data` into up to 64 calls on one arena and checks each.
pub fn distance<T: Scalar>(data: &[u8]) {
    let mut input = Input::new(data);
    let mut arena = [T::ZERO; CELLS];
    for cell in &mut arena {
        *cell = input.real();
    }
    for _ in 0..64 {
        if input.is_empty() {
            break;
        }
        let op = input.byte();
        // Pointer choices: a link (0, 1) or NULL for c; any cell or NULL for
        // a and b (cells 4 and 5 are λ cells: aliasing an endpoint with λ).
        let pick_link = |sel: u8| match sel % 3 {
            2 => None,
            k => Some(LINK0 + usize::from(k)),
        };
        let pick_cell = |sel: u8| match usize::from(sel % 7) {
            CELLS => None,
            k => Some(k),
        };
        let base = arena.as_mut_ptr();
        let ptr_to = |cell: Option<usize>| match cell {
            Some(k) => base.wrapping_add(k),
            None => core::ptr::null_mut(),
        };
        let before = arena;
        if op & 1 == 0 {
            let c = pick_link(op >> 1);
            // SAFETY: null or a pointer into `arena` at a λ cell, which is
            // the layout of the repr(C) constraint struct; no reference to
            // `arena` is alive during the call.
            let status = unsafe { T::c_begin(ptr_to(c).cast::<T::CLink>()) };
            let mut want = before;
            match c {
                None => assert_eq!(status, XpbdStatus::NullPointer),
                Some(k) => {
                    assert_eq!(status, XpbdStatus::Ok);
                    want[k] = T::ZERO;
                }
            }
            assert!(same(&arena, &want), "begin_substep wrote the wrong cells");
            continue;
        }
        let sel = input.byte();
        let (c, a, b) = (
            pick_link(sel),
            pick_cell(input.byte()),
            pick_cell(input.byte()),
        );
        let (wa, wb, rest, compliance, dt) = (
            input.real::<T>(),
            input.real::<T>(),
            input.real::<T>(),
            input.real::<T>(),
            input.real::<T>(),
        );
        // SAFETY: each pointer is null or points into `arena` (the λ cell
        // for c, as above); aliasing is part of the C contract; no reference
        // to `arena` is alive during the call.
        let status = unsafe {
            T::c_solve(
                ptr_to(c).cast::<T::CLink>(),
                ptr_to(a),
                ptr_to(b),
                wa,
                wb,
                rest,
                compliance,
                dt,
            )
        };
        assert!(
            XpbdStatus::from_code(status.code()).is_some(),
            "undocumented status {}",
            status.code()
        );
        let mut want = before;
        let expect = match (c, a, b) {
            (Some(c), Some(a), Some(b)) => model(
                before[a], before[b], wa, wb, rest, compliance, dt, before[c],
            )
            .map_write(|na, nb, nl| {
                want[a] = na;
                want[b] = nb;
                want[c] = nl;
            }),
            _ => XpbdStatus::NullPointer,
        };
        assert_eq!(status, expect, "status differs from the model");
        if status.code() != 0 {
            assert!(
                same(&arena, &before),
                "a rejected or skipped call wrote memory"
            );
        }
        assert!(same(&arena, &want), "memory differs from the model");
    }
}

impl<T> Expect<T> {
    /// The status; on a write, applies it through `f` first.
    fn map_write(self, f: impl FnOnce(T, T, T)) -> XpbdStatus {
        match self {
            Expect::Status(s) => s,
            Expect::Write { a, b, lambda } => {
                f(a, b, lambda);
                XpbdStatus::Ok
            }
        }
    }
}

/// `xpbd_status_str` for any integer: never NULL, a NUL-terminated ASCII
/// text of bounded length, "unknown…" exactly for undocumented codes.
pub fn status_str(data: &[u8]) {
    let mut input = Input::new(data);
    #[allow(clippy::cast_possible_truncation)]
    let code = input.bits(4) as u32 as i32;
    let p = xpbd::ffi::xpbd_status_str(code);
    assert!(!p.is_null());
    let mut len = 0;
    // SAFETY: the library returns a static NUL-terminated string; the loop
    // stops at the NUL (and the assert bounds it at 256 bytes).
    while unsafe { *p.add(len) } != 0 {
        // SAFETY: as above, `len` is before the NUL.
        assert!((unsafe { *p.add(len) } as u8).is_ascii());
        len += 1;
        assert!(len < 256, "status text too long or not terminated");
    }
    // SAFETY: a valid C string of `len` bytes.
    let text = unsafe { core::slice::from_raw_parts(p.cast::<u8>(), len) };
    assert_eq!(
        text.starts_with(b"unknown"),
        XpbdStatus::from_code(code).is_none(),
        "code {code}"
    );
}
