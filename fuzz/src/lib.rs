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
//! (colorings, link fill, SIMD link system, job ranges, stats merge);
//! [`groups`] for the constraint groups (bends, tets, tethers, mesh
//! volumes: begin / iterate / iterate_until / measure with groups, the
//! grouped step, the tether builder); [`groups_colored`] for the colored
//! group calls (coloring a group, the colored begin and iteration, the
//! jobs) against the sequential sweep, bit for bit; [`step_colored`] for
//! colored stepping (`xpbd_world3_step_colored` on fuzzed job systems)
//! against the grouped step, bit for bit.

// The model spells the SPEC's conditions literally: `!(x > 0)` is "not
// greater than zero", NaN included, which is the point.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use xpbd::ffi::XpbdStatus;

pub mod colored;
pub mod coloring;
pub mod groups;
pub mod groups_colored;
pub mod step_colored;
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

/// A caller buffer as the documented buffer rules see it (docs/c-api.md,
/// "Aliasing"): address, element count, element size and alignment.
#[derive(Clone, Copy)]
pub struct Span {
    addr: usize,
    count: usize,
    size: usize,
    align: usize,
}

impl Span {
    /// `count` elements of `E` at `p`.
    pub fn of<E>(p: *const E, count: usize) -> Self {
        Self {
            addr: p as usize,
            count,
            size: core::mem::size_of::<E>(),
            align: core::mem::align_of::<E>(),
        }
    }
    /// An optional output of one `E` (nothing when NULL).
    pub fn out<E>(p: *const E) -> Self {
        Self::of(p, usize::from(!p.is_null()))
    }
    /// The byte range, when the buffer is non-empty and non-null.
    pub fn range(self) -> Option<(usize, usize)> {
        (self.count != 0 && self.addr != 0).then(|| (self.addr, self.addr + self.count * self.size))
    }
}

/// A set of statuses: those a call may answer when the model sees some
/// precondition fail (the docs do not order the checks between buffers).
#[derive(Clone, Copy, Default)]
pub struct Pre(u32);

impl Pre {
    /// Adds a status.
    pub fn add(&mut self, s: XpbdStatus) {
        self.0 |= 1 << (1 - s.code());
    }
    /// Whether the model sees no failing precondition.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// Whether `s` is one of the set.
    pub fn contains(self, s: XpbdStatus) -> bool {
        (1 - s.code()) < 32 && self.0 & (1 << (1 - s.code())) != 0
    }
    /// The documented buffer rules over every buffer of one call (the
    /// struct and the outputs included): NULL with a non-zero count,
    /// misaligned, and any two non-empty buffers sharing a byte.
    pub fn buffers(&mut self, bufs: &[Span]) {
        let mut overlap = false;
        for (k, b) in bufs.iter().enumerate() {
            if b.count == 0 {
                continue;
            }
            if b.addr == 0 {
                self.add(XpbdStatus::NullPointer);
            } else if b.addr % b.align != 0 {
                self.add(XpbdStatus::InvalidArgument);
            }
            let Some((lo, hi)) = b.range() else { continue };
            for c in &bufs[k + 1..] {
                if let Some((l2, h2)) = c.range() {
                    overlap |= lo < h2 && l2 < hi;
                }
            }
        }
        if overlap {
            self.add(XpbdStatus::AliasedBuffers);
        }
    }
}

/// Bytes per region of the `system`, `step` and `colored` arenas.
pub const REGION: usize = 768;

/// A caller struct (system, world, configuration) followed by slack, so
/// that an output placed over its end stays inside the allocation.
#[repr(C)]
pub struct Held<S> {
    /// The struct.
    pub s: S,
    /// Bytes after it (must never change).
    pub slack: [u64; 8],
}

impl<S> Held<S> {
    /// Wraps `s`.
    pub fn new(s: S) -> Self {
        Self { s, slack: [0; 8] }
    }
}

/// Where an output pointer goes: NULL, a byte offset in the arena, or a
/// byte offset in the call's struct.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// NULL.
    Null,
    /// Arena byte offset.
    At(usize),
    /// Byte offset into the call's struct (may run into its slack).
    Struct(usize),
}

impl Place {
    /// A placement for an output of `size` bytes: usually `own` (an output
    /// region of its own), sometimes NULL, anywhere in the arena (inside
    /// another buffer or not), over the call's struct (when `structs` is
    /// its size, 0 for none), over `other` (another output of the call), or
    /// misaligned.
    pub fn pick(
        inp: &mut Input<'_>,
        regions: usize,
        own: usize,
        size: usize,
        structs: usize,
        other: Option<Place>,
    ) -> Place {
        let last = (regions * REGION - size) & !7;
        match inp.byte() % 16 {
            0 => Place::Null,
            1 | 2 => {
                let r = usize::from(inp.byte()) % regions;
                let k = usize::from(inp.byte()) % (REGION / 8);
                Place::At((r * REGION + 8 * k).min(last))
            }
            3 if structs >= 8 => Place::Struct(8 * (usize::from(inp.byte()) % (structs / 8))),
            4 => match other {
                Some(Place::At(o)) => Place::At((o + 8 * usize::from(inp.byte() % 2)).min(last)),
                Some(Place::Struct(o)) => Place::Struct(o),
                _ => Place::At(own),
            },
            5 => Place::At(own + 1 + usize::from(inp.byte() % 7)),
            _ => Place::At(own),
        }
    }
    /// The pointer: `arena` is the arena's first byte, `held` the struct's.
    pub fn ptr<E>(self, arena: *mut u8, held: *mut u8) -> *mut E {
        match self {
            Place::Null => core::ptr::null_mut(),
            Place::At(o) => arena.wrapping_add(o).cast(),
            Place::Struct(o) => held.wrapping_add(o).cast(),
        }
    }
}

/// Bytes of `a` and `b` (two snapshots of one arena at `base`) are equal
/// outside the byte ranges `spans` (absolute addresses; parts outside the
/// arena are ignored).
pub fn same_outside(a: &[u8], b: &[u8], base: usize, spans: &[Option<(usize, usize)>]) -> bool {
    let mut cut = [(0usize, 0usize); 16];
    let mut n = 0;
    for (lo, hi) in spans.iter().flatten() {
        let lo = lo.saturating_sub(base).min(a.len());
        let hi = hi.saturating_sub(base).min(a.len());
        if lo < hi {
            assert!(n < cut.len(), "same_outside: more spans than it holds");
            cut[n] = (lo, hi);
            n += 1;
        }
    }
    let cut = &mut cut[..n];
    cut.sort_unstable();
    let mut at = 0;
    for &(lo, hi) in cut.iter() {
        if lo > at && a[at..lo] != b[at..lo] {
            return false;
        }
        at = at.max(hi);
    }
    a[at..] == b[at..]
}
