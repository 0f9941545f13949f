//! The kernel with the fast paths for groups of links whose particles are
//! contiguous in SoA particles ([`range_strided`], [`Strided`]): runs
//! (link `t` joins `i0 + t` and `j0 + t`) and neighbour pairs (link `t`
//! joins `i0 + 2t` and `i0 + 2t + 1`).

use super::{
    load_link, range_with, solve_gathered, Acc, FastPath, GatherPairs, Gathered, Lanes, Solved,
};
use crate::colored::{ix, RawLinks, RawParticles, RawSoa};
use crate::real::Real;
use crate::solver::{SweepStats, SystemError, ZeroLength};
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::marker::PhantomData;

/// Where the particles of a group of `LANES` links are, when they are
/// contiguous in the SoA arrays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::colored::kernel) enum Shape {
    /// Link `t` joins particles `i0 + t` and `j0 + t`: the `LANES`
    /// entries from `i0` and from `j0` of each array, plain loads and
    /// stores. The vertical and diagonal colors of a cloth in colored
    /// order have this shape (`j0 − i0` is the row length, ± 1).
    Run(usize, usize),
    /// Link `t` joins particles `i0 + 2t` and `i0 + 2t + 1`: the
    /// `2 LANES` entries from `i0`, loaded and stored with shuffles
    /// ([`Pairs`]). Every color of an open rope has this shape, and so
    /// do the horizontal colors of a cloth row.
    Pairs(usize),
}

/// The [`Shape`] of a group of `n` links whose first indices are `i0`
/// and `j0`, from the lane tests: `run` (every `i[t] − i0 = t` and
/// `j[t] − j0 = t`) and `pair` (every `i[t] − i0 = 2t` and
/// `j[t] − i0 = 2t + 1`), both in wrapping arithmetic. Exact integers: a
/// shape is reported only when none of its particle indices wraps around
/// `u32` (then the lane tests compared exact integers), so that every
/// entry the contiguous loads touch is one of the links' particles.
#[inline(always)]
pub(in crate::colored::kernel) fn decide(
    i0: u32,
    j0: u32,
    n: u32,
    run: bool,
    pair: bool,
) -> Option<Shape> {
    let last = n.saturating_sub(1);
    if run && i0 <= u32::MAX - last && j0 <= u32::MAX - last {
        Some(Shape::Run(ix(i0), ix(j0)))
    } else if pair && i0 <= u32::MAX - last.saturating_mul(2).saturating_add(1) {
        Some(Shape::Pairs(ix(i0)))
    } else {
        None
    }
}

/// The [`Shape`] of the `N` links whose indices start at `i` and `j`, or
/// `None` (the general gather then takes the group), lane by lane in
/// scalar code: the 2-lane registers, and the reference the vector
/// tests of the wider ones are checked against.
///
/// # Safety
/// `i` and `j` are valid for `N` reads.
#[inline(always)]
pub(in crate::colored::kernel) unsafe fn shape<const N: usize>(
    i: *const u32,
    j: *const u32,
) -> Option<Shape> {
    // SAFETY: `N` reads each (caller contract), unaligned.
    let (vi, vj) = unsafe {
        (
            i.cast::<[u32; N]>().read_unaligned(),
            j.cast::<[u32; N]>().read_unaligned(),
        )
    };
    let (Some(&i0), Some(&j0), Ok(n)) = (vi.first(), vj.first(), u32::try_from(N)) else {
        return None;
    };
    let (mut run, mut pair) = (true, true);
    for (t, (a, b)) in (0u32..).zip(vi.iter().zip(&vj)) {
        run &= (a.wrapping_sub(i0) == t) & (b.wrapping_sub(j0) == t);
        pair &= (a.wrapping_sub(i0) == t.wrapping_mul(2))
            & (b.wrapping_sub(i0) == t.wrapping_mul(2).wrapping_add(1));
    }
    decide(i0, j0, n, run, pair)
}

/// [`shape`] for 4 links in SSE2 integer lanes.
///
/// # Safety
/// `i` and `j` are valid for 4 reads.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(clippy::as_conversions)] // the bits of a lane, as u32
pub(in crate::colored::kernel) unsafe fn shape4(i: *const u32, j: *const u32) -> Option<Shape> {
    // SAFETY: SSE2 is the baseline; `i` and `j` are valid for 4 reads of
    // `u32` (caller contract): the unaligned 16-byte loads.
    unsafe {
        let vi = _mm_loadu_si128(i.cast());
        let vj = _mm_loadu_si128(j.cast());
        let (i0, j0) = (_mm_cvtsi128_si32(vi) as u32, _mm_cvtsi128_si32(vj) as u32);
        let bi = _mm_shuffle_epi32::<0>(vi);
        let di = _mm_sub_epi32(vi, bi);
        let all = |m: __m128i| _mm_movemask_epi8(m) == 0xffff;
        // The two shapes differ in lane 1 of `i − i0` (2 or 1): one
        // test of `i` picks the shape (the same for a whole color), one
        // of `j` confirms it.
        if all(_mm_cmpeq_epi32(di, _mm_setr_epi32(0, 2, 4, 6))) {
            let pair = all(_mm_cmpeq_epi32(
                _mm_sub_epi32(vj, bi),
                _mm_setr_epi32(1, 3, 5, 7),
            ));
            return decide(i0, j0, 4, false, pair);
        }
        let step = _mm_setr_epi32(0, 1, 2, 3);
        if !all(_mm_cmpeq_epi32(di, step)) {
            return None;
        }
        let dj = _mm_sub_epi32(vj, _mm_shuffle_epi32::<0>(vj));
        decide(i0, j0, 4, all(_mm_cmpeq_epi32(dj, step)), false)
    }
}

/// The [`Shape`] of the group `k .. k + LANES` from the index arrays.
/// Indices `stride ≠ 1` apart (a frame's links, read in place from the
/// caller's links) take the lane tests of [`shape`] in scalar code.
///
/// # Safety
/// `k .. k + LANES` are link positions of the arrays.
#[inline(always)]
unsafe fn group_shape<T: Real, V: Pairs<T>>(l: RawLinks<T>, k: usize) -> Option<Shape> {
    if l.stride == 1 {
        // SAFETY: `LANES` reads from `k` (caller contract).
        return unsafe { V::shape(l.i.add(k), l.j.add(k)) };
    }
    if l.stride == 2 && l.j == l.i.wrapping_add(1) {
        // A frame's index area: the pairs `(i, j)` of the group's links
        // one after another, tested in one pass (vector compares).
        let p = l.i.wrapping_add(k.wrapping_mul(2));
        // SAFETY: the group's `LANES` pairs from link `k` (caller contract).
        return unsafe {
            match V::LANES {
                2 => shape_ij::<2>(p),
                4 => shape_ij::<4>(p),
                8 => shape_ij::<8>(p),
                16 => shape_ij::<16>(p),
                _ => None,
            }
        };
    }
    // The lane tests of `shape`, on the indices where they are.
    let at = |t: usize| k.wrapping_add(t).wrapping_mul(l.stride);
    // SAFETY: link position `k` is in the arrays (caller contract).
    let (i0, j0) = unsafe { (*l.i.add(at(0)), *l.j.add(at(0))) };
    let (mut run, mut pair) = (true, true);
    for t in 1..V::LANES {
        // SAFETY: link position `k + t` is in the arrays (caller
        // contract), its indices `stride` `u32`s apart.
        let (a, b) = unsafe { (*l.i.add(at(t)), *l.j.add(at(t))) };
        let t = u32::try_from(t).unwrap_or(u32::MAX);
        run &= (a.wrapping_sub(i0) == t) & (b.wrapping_sub(j0) == t);
        pair &= (a.wrapping_sub(i0) == t.wrapping_mul(2))
            & (b.wrapping_sub(i0) == t.wrapping_mul(2).wrapping_add(1));
    }
    decide(i0, j0, u32::try_from(V::LANES).ok()?, run, pair)
}

/// [`shape`] for `N` links whose indices are the pairs `(i, j)` one
/// after another from `ij` (a frame's index area), lane tests over the
/// whole pairs array at once.
///
/// # Safety
/// `ij` is valid for `2N` reads.
#[inline(always)]
unsafe fn shape_ij<const N: usize>(ij: *const u32) -> Option<Shape> {
    // SAFETY: `2N` reads (caller contract), unaligned.
    let v = unsafe { ij.cast::<[[u32; 2]; N]>().read_unaligned() };
    let (&[i0, j0], Ok(n)) = (v.first()?, u32::try_from(N)) else {
        return None;
    };
    let (mut run, mut pair) = (true, true);
    for (t, [a, b]) in (0u32..).zip(v) {
        run &= (a.wrapping_sub(i0) == t) & (b.wrapping_sub(j0) == t);
        pair &= (a.wrapping_sub(i0) == t.wrapping_mul(2))
            & (b.wrapping_sub(i0) == t.wrapping_mul(2).wrapping_add(1));
    }
    decide(i0, j0, n, run, pair)
}

/// The fast path for groups of links whose particles are contiguous in
/// structure-of-arrays particles ([`Shape`]): contiguous loads and
/// stores (and, for pairs, shuffles) instead of `LANES` scalar loads and
/// stores per coordinate and particle, and no index loads into the
/// gather.
#[derive(Clone, Copy)]
struct Strided<T, V> {
    soa: RawSoa<T>,
    l: RawLinks<T>,
    _lanes: PhantomData<V>,
}

/// A register of lanes that can load and store the particles of a
/// neighbour pair group directly: `LANES` links `(i0 + 2t, i0 + 2t + 1)`,
/// whose particles are the `2 LANES` consecutive entries from `i0` of
/// each particle array.
///
/// # Safety
/// Implementations touch exactly the memory their methods name.
pub(in crate::colored::kernel) unsafe trait Pairs<T: Real>:
    Lanes<T>
{
    /// [`shape`] for `LANES` links (in vector lanes where that is quicker).
    ///
    /// # Safety
    /// `i` and `j` are valid for `LANES` reads.
    unsafe fn shape(i: *const u32, j: *const u32) -> Option<Shape>;
    /// Lane `t` of the first register gets `p[2t]`, of the second
    /// `p[2t + 1]`, for `t < LANES`.
    ///
    /// # Safety
    /// `p .. p + 2 LANES` is valid for reads.
    unsafe fn load_pairs(p: *const T) -> (Self, Self);
    /// Writes `p[2t] = even[t]` and `p[2t + 1] = odd[t]` for
    /// `t < LANES`: the inverse of [`load_pairs`](Self::load_pairs).
    ///
    /// # Safety
    /// `p .. p + 2 LANES` is valid for writes.
    unsafe fn store_pairs(p: *mut T, even: Self, odd: Self);
}

// SAFETY: each method reads or writes only the `2 LANES` values its
// contract names (16-byte loads and stores); SSE2 is the baseline.
#[cfg(target_arch = "x86_64")]
unsafe impl Pairs<f32> for __m128 {
    #[inline(always)]
    unsafe fn shape(i: *const u32, j: *const u32) -> Option<Shape> {
        // SAFETY: forwarded (4 reads each).
        unsafe { shape4(i, j) }
    }
    #[inline(always)]
    unsafe fn load_pairs(p: *const f32) -> (Self, Self) {
        // SAFETY: `p .. p + 8` readable (caller contract): two unaligned
        // 16-byte loads.
        unsafe {
            let a = _mm_loadu_ps(p);
            let b = _mm_loadu_ps(p.add(4));
            (
                _mm_shuffle_ps::<0b10_00_10_00>(a, b),
                _mm_shuffle_ps::<0b11_01_11_01>(a, b),
            )
        }
    }
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f32, even: Self, odd: Self) {
        // SAFETY: `p .. p + 8` writable (caller contract): two unaligned
        // 16-byte stores.
        unsafe {
            _mm_storeu_ps(p, _mm_unpacklo_ps(even, odd));
            _mm_storeu_ps(p.add(4), _mm_unpackhi_ps(even, odd));
        }
    }
}

// SAFETY: as for `__m128`.
#[cfg(target_arch = "x86_64")]
unsafe impl Pairs<f64> for __m128d {
    #[inline(always)]
    unsafe fn shape(i: *const u32, j: *const u32) -> Option<Shape> {
        // SAFETY: forwarded (2 reads each).
        unsafe { shape::<2>(i, j) }
    }
    #[inline(always)]
    unsafe fn load_pairs(p: *const f64) -> (Self, Self) {
        // SAFETY: `p .. p + 4` readable (caller contract).
        unsafe {
            let a = _mm_loadu_pd(p);
            let b = _mm_loadu_pd(p.add(2));
            (_mm_unpacklo_pd(a, b), _mm_unpackhi_pd(a, b))
        }
    }
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f64, even: Self, odd: Self) {
        // SAFETY: `p .. p + 4` writable (caller contract).
        unsafe {
            _mm_storeu_pd(p, _mm_unpacklo_pd(even, odd));
            _mm_storeu_pd(p.add(2), _mm_unpackhi_pd(even, odd));
        }
    }
}

// SAFETY: `run` touches particles only for groups whose `shape` is
// `Some`, and then exactly the particles of the group's links (the
// entries the shape names: those links' particles, which no other link
// of the color shares) and the group's λ; otherwise it returns having
// written nothing.
unsafe impl<T: Real, V: Pairs<T>> FastPath<T, V> for Strided<T, V> {
    /// One group per step: two side by side (as the gathered groups
    /// take them) spilled registers on SSE2 and were no faster on
    /// AVX-512 (measured: SSE2 f64 rope 6.1 → 5.4 ns per link with one).
    #[inline(always)]
    unsafe fn run(self, k: usize, end: usize, acc: &mut Acc<V>) -> usize {
        let (s, l) = (self.soa, self.l);
        let n = V::LANES;
        let mut k = k;
        loop {
            if k + n > end {
                return k;
            }
            // SAFETY: `k .. k + n` are link positions of the range.
            let Some(sk) = (unsafe { group_shape::<T, V>(l, k) }) else {
                return k;
            };
            // SAFETY: the shape's entries are the particles of the group's
            // links, each below the particle count (caller contract): in
            // bounds in each array, and they belong to no other link of
            // the color (proper coloring), so no other thread touches them.
            let group = unsafe { load_group::<T, V>(s, l, sk) };
            // A static particle is never written (it may be shared within
            // a frame's color): a group with one goes to the general path,
            // whose scatter skips it.
            let zero = V::splat(T::ZERO);
            if group.2.eq(zero).or(group.3.eq(zero)).mask() != 0 {
                return k;
            }
            // SAFETY: `k .. k + n` are link positions of the range.
            let link = unsafe { load_link(l, k) };
            let o = solve_gathered::<T, V>(group, &link, false, l.lazy);
            if o.applied != V::ALL {
                // Rare: leave the group (nothing written) to the general
                // path, which keeps the old values in the lanes not
                // applied.
                return k;
            }
            // SAFETY: as for the loads; λ of the links `k .. k + n`.
            unsafe { store_group(s, l, sk, k, &o, acc) };
            k += n;
        }
    }
}

/// Writes a solved group (its particles where `shape` says, λ of the
/// links `k .. k + LANES`) and adds it to the statistics.
///
/// # Safety
/// As for [`load_group`]; `k .. k + LANES` are link positions of the range.
#[inline(always)]
unsafe fn store_group<T: Real, V: Pairs<T>>(
    s: RawSoa<T>,
    l: RawLinks<T>,
    shape: Shape,
    k: usize,
    o: &Solved<V>,
    acc: &mut Acc<V>,
) {
    let ([nax, nay, naz], [nbx, nby, nbz]) = (o.a, o.b);
    // SAFETY: caller contract.
    unsafe {
        match shape {
            Shape::Pairs(i0) => {
                V::store_pairs(s.x.add(i0), nax, nbx);
                V::store_pairs(s.y.add(i0), nay, nby);
                V::store_pairs(s.z.add(i0), naz, nbz);
            }
            Shape::Run(i0, j0) => {
                nax.store(s.x.add(i0));
                nay.store(s.y.add(i0));
                naz.store(s.z.add(i0));
                nbx.store(s.x.add(j0));
                nby.store(s.y.add(j0));
                nbz.store(s.z.add(j0));
            }
        }
        o.lambda.store(l.lambda.add(k));
    }
    acc.add::<T>(o);
}

/// The particles of a group of shape `shape`: first and second
/// particles' coordinates, inverse masses.
///
/// # Safety
/// The entries `shape` names are particle indices, as in [`Shape`].
#[inline(always)]
unsafe fn load_group<T: Real, V: Pairs<T>>(
    s: RawSoa<T>,
    l: RawLinks<T>,
    shape: Shape,
) -> Gathered<V> {
    // SAFETY: the entries readable in each array (caller contract).
    unsafe {
        let ((ax, bx), (ay, by), (az, bz), (wi, wj)) = match shape {
            Shape::Pairs(i0) => (
                V::load_pairs(s.x.add(i0)),
                V::load_pairs(s.y.add(i0)),
                V::load_pairs(s.z.add(i0)),
                V::load_pairs(l.w.add(i0)),
            ),
            Shape::Run(i0, j0) => (
                (V::load(s.x.add(i0)), V::load(s.x.add(j0))),
                (V::load(s.y.add(i0)), V::load(s.y.add(j0))),
                (V::load(s.z.add(i0)), V::load(s.z.add(j0))),
                (V::load(l.w.add(i0)), V::load(l.w.add(j0))),
            ),
        };
        ([ax, ay, az], [bx, by, bz], wi, wj)
    }
}

/// The colored kernel over `V` with the fast path for groups whose particles
/// are contiguous ([`Shape`]) when the particles are
/// [`Soa`](crate::colored::Soa).
///
/// # Safety
/// As [`solve_range`](super::super::solve_range).
#[inline(always)]
pub(in crate::colored::kernel) unsafe fn range_strided<T: Real, V: Pairs<T>, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> (SweepStats<T>, Option<SystemError>) {
    // SAFETY: forwarded caller contract (for `Strided` too: the SoA
    // arrays are those of `p`).
    unsafe {
        match p.soa() {
            Some(soa) => range_with::<T, V, P, Strided<T, V>>(
                p,
                l,
                begin,
                end,
                policy,
                Strided {
                    soa,
                    l,
                    _lanes: PhantomData,
                },
            ),
            None => range_with::<T, V, P, GatherPairs<T, P>>(
                p,
                l,
                begin,
                end,
                policy,
                GatherPairs { p, l },
            ),
        }
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::as_conversions)]
pub(in crate::colored::kernel) mod tests {
    use super::*;

    fn check<const N: usize>(i: [u32; N], j: [u32; N]) -> Option<Shape> {
        // SAFETY: both arrays hold N values.
        unsafe { shape::<N>(i.as_ptr(), j.as_ptr()) }
    }

    #[test]
    fn neighbour_groups_are_recognised_exactly() {
        let p = |i0: u32| Some(Shape::Pairs(ix(i0)));
        assert_eq!(check([0, 2, 4, 6], [1, 3, 5, 7]), p(0));
        assert_eq!(check([7, 9, 11, 13], [8, 10, 12, 14]), p(7));
        assert_eq!(check([7, 9], [8, 10]), p(7));
        let m = u32::MAX;
        assert_eq!(
            check([m - 7, m - 5, m - 3, m - 1], [m - 6, m - 4, m - 2, m]),
            p(m - 7)
        );
        // i0 + 7 would wrap: never recognised, even where the lanes
        // match modulo 2^32.
        assert_eq!(
            check([m - 6, m - 4, m - 2, m], [m - 5, m - 3, m - 1, 0]),
            None
        );
        assert_eq!(check([m - 1, 1, 3, 5], [m, 2, 4, 6]), None);
        assert_eq!(check([m, 1, 3, 5], [0, 2, 4, 6]), None);
        // Every lane of either array off by one in either direction.
        let (i0, j0): ([u32; 4], [u32; 4]) = ([10, 12, 14, 16], [11, 13, 15, 17]);
        assert_eq!(check(i0, j0), p(10));
        off_by_one(i0, j0, 0);
        // Reversed links, or another order of the same links.
        assert_eq!(check([1, 3, 5, 7], [0, 2, 4, 6]), None);
        assert_eq!(check([0, 4, 2, 6], [1, 5, 3, 7]), None);
    }

    /// Index groups of `N` links around every shape: runs and pairs from
    /// bases near 0 and near `u32::MAX`, each with one lane moved by ±1
    /// or ±2 in either array, and pseudo-random ones.
    pub(in crate::colored::kernel) fn index_cases<const N: usize>() -> Vec<([u32; N], [u32; N])> {
        let m = u32::MAX;
        let mut out = Vec::new();
        for i0 in [
            0,
            1,
            5,
            1000,
            m - 40,
            m - 31,
            m - 16,
            m - 8,
            m - 3,
            m - 1,
            m,
        ] {
            for dj in [1u32, 2, 13, m - 12, m] {
                let j0 = i0.wrapping_add(dj);
                let run: [u32; N] = core::array::from_fn(|t| i0.wrapping_add(t as u32));
                let runj: [u32; N] = core::array::from_fn(|t| j0.wrapping_add(t as u32));
                let even: [u32; N] = core::array::from_fn(|t| i0.wrapping_add(2 * t as u32));
                let odd: [u32; N] = core::array::from_fn(|t| i0.wrapping_add(2 * t as u32 + 1));
                for (i, j) in [(run, runj), (even, odd), (run, odd), (even, runj)] {
                    out.push((i, j));
                    for lane in 0..N {
                        for d in [1, 2, m, m - 1] {
                            let (mut a, mut b) = (i, j);
                            a[lane] = a[lane].wrapping_add(d);
                            b[lane] = b[lane].wrapping_add(d);
                            out.push((a, j));
                            out.push((i, b));
                        }
                    }
                }
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32 % 8
        };
        if cfg!(miri) {
            // The interpreter: every 32nd structured case, fewer random ones.
            out = out.into_iter().step_by(32).collect();
        }
        for _ in 0..if cfg!(miri) { 64 } else { 2000 } {
            let i: [u32; N] = core::array::from_fn(|_| next());
            let j: [u32; N] = core::array::from_fn(|_| next());
            out.push((i, j));
        }
        out
    }

    /// A vector shape test against the scalar one on [`index_cases`].
    pub(in crate::colored::kernel) fn agrees<const N: usize>(
        vector: impl Fn(&[u32; N], &[u32; N]) -> Option<Shape>,
    ) {
        for (i, j) in index_cases::<N>() {
            // SAFETY: both arrays hold N values.
            let s = unsafe { shape::<N>(i.as_ptr(), j.as_ptr()) };
            assert_eq!(vector(&i, &j), s, "{i:?} {j:?}");
        }
    }

    /// The SSE2 test of 4 lanes against the scalar one.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn vector_shape_is_the_scalar_shape() {
        // SAFETY: both arrays hold 4 values.
        agrees::<4>(|i, j| unsafe { shape4(i.as_ptr(), j.as_ptr()) });
    }

    /// No shape once any lane from `first` of either array moves by ±1.
    fn off_by_one(i0: [u32; 4], j0: [u32; 4], first: usize) {
        for lane in first..4 {
            for d in [1, u32::MAX] {
                let (mut i, mut j) = (i0, j0);
                i[lane] = i[lane].wrapping_add(d);
                assert_eq!(check(i, j0), None, "i {i:?}");
                j[lane] = j[lane].wrapping_add(d);
                assert_eq!(check(i0, j), None, "j {j:?}");
            }
        }
    }

    #[test]
    fn runs_are_recognised_exactly() {
        let r = |i0: u32, j0: u32| Some(Shape::Run(ix(i0), ix(j0)));
        // A cloth's vertical, diagonal and anti-diagonal links (rows of 10).
        assert_eq!(check([3, 4, 5, 6], [13, 14, 15, 16]), r(3, 13));
        assert_eq!(check([3, 4, 5, 6], [14, 15, 16, 17]), r(3, 14));
        assert_eq!(check([4, 5, 6, 7], [12, 13, 14, 15]), r(4, 12));
        // j before i, and 16 lanes.
        assert_eq!(check([20, 21], [0, 1]), r(20, 0));
        let i: [u32; 16] = core::array::from_fn(|t| 100 + t as u32);
        let j: [u32; 16] = core::array::from_fn(|t| 7 + t as u32);
        assert_eq!(check(i, j), r(100, 7));
        let m = u32::MAX;
        assert_eq!(check([m - 3, m - 2, m - 1, m], [0, 1, 2, 3]), r(m - 3, 0));
        // i0 + 3 or j0 + 3 would wrap.
        assert_eq!(check([m - 2, m - 1, m, 0], [4, 5, 6, 7]), None);
        assert_eq!(check([4, 5, 6, 7], [m - 1, m, 0, 1]), None);
        // Every lane of either array off by one in either direction.
        // (Lane 0 moves the run's start: another run.)
        let (i0, j0): ([u32; 4], [u32; 4]) = ([10, 11, 12, 13], [40, 41, 42, 43]);
        assert_eq!(check(i0, j0), r(10, 40));
        off_by_one(i0, j0, 1);
        // Descending, or the same particle repeated.
        assert_eq!(check([13, 12, 11, 10], [43, 42, 41, 40]), None);
        assert_eq!(check([10, 10, 10, 10], [40, 41, 42, 43]), None);
    }
}
