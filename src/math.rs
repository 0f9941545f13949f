//! Vector helpers and the deterministic arctangent: a leaf over
//! [`real`](crate::real) that every constraint kind and the frame share.
//!
//! Each helper fixes its order of operations (no fused multiply-add, the
//! same bits on every target); two dot products exist because two orders
//! are in use and pinned bits depend on each: [`dot`] sums from zero in
//! coordinate order (`((0 + a₀b₀) + a₁b₁) + …`), [`dot3`] starts from the
//! first product (`(a₀b₀ + a₁b₁) + a₂b₂`; they differ only in the sign of
//! a zero result).

pub(crate) mod atan2;

use crate::real::Real;

/// Dot product summed from zero in coordinate order (any dimension).
#[inline]
pub(crate) fn dot<T: Real>(a: &[T], b: &[T]) -> T {
    a.iter().zip(b).fold(T::ZERO, |acc, (x, y)| acc + *x * *y)
}

/// [`dot`] for three coordinates, spelled out (always inlined: the bend's
/// kernel keeps its values in registers).
#[inline(always)]
pub(crate) fn dot_from_zero3<T: Real>(a: &[T; 3], b: &[T; 3]) -> T {
    let ([ax, ay, az], [bx, by, bz]) = (*a, *b);
    ((T::ZERO + ax * bx) + ay * by) + az * bz
}

/// `a · b` in 3D, summed `x, y, z` from the first product.
#[inline(always)]
pub(crate) fn dot3<T: Real>(a: &[T; 3], b: &[T; 3]) -> T {
    let [ax, ay, az] = *a;
    let [bx, by, bz] = *b;
    ax * bx + ay * by + az * bz
}

/// `|x_j − x_i|²`, summed in coordinate order (any dimension: the sweeps
/// pass `[T; D]` arrays, the builders and the flat validation slices).
#[inline]
pub(crate) fn length_squared<T: Real>(xi: &[T], xj: &[T]) -> T {
    xi.iter().zip(xj).fold(T::ZERO, |acc, (a, b)| {
        let d = *b - *a;
        acc + d * d
    })
}

/// `a − b` (any dimension).
#[inline]
pub(crate) fn sub<T: Real, const D: usize>(a: &[T; D], b: &[T; D]) -> [T; D] {
    let mut d = *a;
    for (x, y) in d.iter_mut().zip(b) {
        *x = *x - *y;
    }
    d
}

/// `a + b·s` (any dimension).
#[inline]
pub(crate) fn add_scaled<T: Real, const D: usize>(a: &[T; D], b: &[T; D], s: T) -> [T; D] {
    let mut d = *a;
    for (x, y) in d.iter_mut().zip(b) {
        *x = *x + *y * s;
    }
    d
}

/// `a − b` (3D, always inlined).
#[inline(always)]
pub(crate) fn sub3<T: Real>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    let [ax, ay, az] = *a;
    let [bx, by, bz] = *b;
    [ax - bx, ay - by, az - bz]
}

/// `a + b` (3D, always inlined).
#[inline(always)]
pub(crate) fn add3<T: Real>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    let ([ax, ay, az], [bx, by, bz]) = (*a, *b);
    [ax + bx, ay + by, az + bz]
}

/// `s·v` (3D, always inlined).
#[inline(always)]
pub(crate) fn scale3<T: Real>(v: &[T; 3], s: T) -> [T; 3] {
    let [x, y, z] = *v;
    [s * x, s * y, s * z]
}

/// The first three coordinates of a point (0 beyond `D`): a 3D vector
/// of a `D`-dimensional world's point (the 3D-only blocks of the step).
#[inline]
pub(crate) fn xyz<T: Real, const D: usize>(p: &[T; D]) -> [T; 3] {
    let mut q = [T::ZERO; 3];
    for (a, b) in q.iter_mut().zip(p) {
        *a = *b;
    }
    q
}

/// `a × b`, each coordinate `a_i b_j − a_j b_i` in that order.
#[inline(always)]
pub(crate) fn cross<T: Real>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    let [ax, ay, az] = *a;
    let [bx, by, bz] = *b;
    [ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx]
}

/// `v / |v|`, or `None` when `v` is not finite or too short to normalise
/// (`|v|²` below the smallest positive normal number).
#[inline]
pub(crate) fn unit<T: Real, const D: usize>(v: &[T; D]) -> Option<[T; D]> {
    let len2 = dot(v, v);
    if !len2.is_finite() || len2 < T::MIN_POSITIVE {
        return None;
    }
    let len = len2.sqrt();
    Some(v.map(|c| c / len))
}

/// [`unit`] for a direction of any finite non-zero length (a plane's
/// normal): when `|v|²` underflows or overflows, `v` is first divided by
/// its largest absolute coordinate. Normal-range inputs take [`unit`]'s
/// path unchanged (the same bits); `None` for a zero or non-finite `v`.
#[inline]
pub(crate) fn unit_any<T: Real, const D: usize>(v: &[T; D]) -> Option<[T; D]> {
    match unit(v) {
        Some(n) => Some(n),
        None => unit_rescaled(v),
    }
}

/// The rare path of [`unit_any`].
#[cold]
#[inline(never)]
fn unit_rescaled<T: Real, const D: usize>(v: &[T; D]) -> Option<[T; D]> {
    if !v.iter().all(|c| c.is_finite()) {
        return None;
    }
    let m = v.iter().fold(T::ZERO, |m, c| max(m, c.abs()));
    if m == T::ZERO {
        return None;
    }
    unit(&v.map(|c| c / m))
}

/// The larger of two values (the first when equal or unordered).
#[inline(always)]
pub(crate) fn max<T: Real>(a: T, b: T) -> T {
    if b > a {
        b
    } else {
        a
    }
}
