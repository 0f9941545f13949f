//! The f32 kernel with the fast path for links joining neighbours in SoA
//! particles ([`range_f32`], [`Neighbours`]).

use super::{
    load_link, range_with, solve, Acc, FastPath, GatherPairs, Group, Lanes, LinkLanes, Solved,
};
#[cfg(target_arch = "x86_64")]
use crate::colored::ix;
use crate::colored::{RawLinks, RawParticles, RawSoa};
use crate::solver::{SweepStats, SystemError, ZeroLength};
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use core::marker::PhantomData;

/// The f32 fast path for groups of four links that join neighbours in
/// structure-of-arrays particles: link `t` of the group joins particles
/// `i0 + 2t` and `i0 + 2t + 1`. Every color of an open rope in colored
/// order has that shape (links (0,1), (2,3), … and (1,2), (3,4), …), and
/// so do the horizontal links of a cloth row. The group's particles are
/// then the 8 consecutive entries from `i0` of each particle array: two
/// unaligned loads and two `shufps` per array instead of eight scalar
/// loads, and two `unpcklps`/`unpckhps` and two stores instead of eight
/// scalar stores.
///
/// Not used for f64 (two links per register): measured on the rope
/// benchmark, the same path for `__m128d` was slower than the gather
/// (5–20 %: it saves only the index loads there, and costs the
/// pattern check).
#[derive(Clone, Copy)]
struct Neighbours<V> {
    soa: RawSoa<f32>,
    l: RawLinks<f32>,
    _lanes: PhantomData<V>,
}

/// A register of f32 lanes that can load and store the particles of a
/// neighbour group directly: `LANES` links `(i0 + 2t, i0 + 2t + 1)`, whose
/// particles are the `2 LANES` consecutive entries from `i0` of each
/// particle array.
///
/// # Safety
/// Implementations touch exactly the memory their methods name.
pub(in crate::colored::kernel) unsafe trait Pairs:
    Lanes<f32>
{
    /// `Some(i0)` when `i[t] = i0 + 2t` and `j[t] = i0 + 2t + 1` for
    /// `t < LANES`, all as exact integers (no wrap-around); `None`
    /// otherwise.
    ///
    /// # Safety
    /// `i` and `j` are valid for `LANES` reads.
    unsafe fn neighbours(i: *const u32, j: *const u32) -> Option<usize>;
    /// Lane `t` of the first register gets `p[2t]`, of the second
    /// `p[2t + 1]`, for `t < LANES`.
    ///
    /// # Safety
    /// `p .. p + 2 LANES` is valid for reads.
    unsafe fn load_pairs(p: *const f32) -> (Self, Self);
    /// Writes `p[2t] = even[t]` and `p[2t + 1] = odd[t]` for
    /// `t < LANES`: the inverse of [`load_pairs`](Self::load_pairs).
    ///
    /// # Safety
    /// `p .. p + 2 LANES` is valid for writes.
    unsafe fn store_pairs(p: *mut f32, even: Self, odd: Self);
}

// SAFETY: each method reads or writes only the `LANES` or `2 LANES`
// values its contract names (16-byte loads and stores).
#[cfg(target_arch = "x86_64")]
unsafe impl Pairs for __m128 {
    #[inline(always)]
    unsafe fn neighbours(i: *const u32, j: *const u32) -> Option<usize> {
        // SAFETY: forwarded.
        unsafe { neighbours(i, j) }
    }
    #[inline(always)]
    unsafe fn load_pairs(p: *const f32) -> (Self, Self) {
        // SAFETY: forwarded.
        unsafe { load_pairs(p) }
    }
    #[inline(always)]
    unsafe fn store_pairs(p: *mut f32, even: Self, odd: Self) {
        // SAFETY: forwarded.
        unsafe { store_pairs(p, even, odd) }
    }
}

/// `Some(i0)` when `i[t] = i0 + 2t` and `j[t] = i0 + 2t + 1` for
/// `t < 4`, all as exact integers (no wrap-around); `None` otherwise.
///
/// # Safety
/// `i` and `j` are valid for 4 reads.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn neighbours(i: *const u32, j: *const u32) -> Option<usize> {
    // SAFETY: SSE2 is enabled at compile time; `i` and `j` are valid for
    // 4 reads of `u32` (caller contract), which is what the scalar read
    // and the unaligned 16-byte loads touch.
    unsafe {
        let i0 = *i;
        // i0 + 7 must not wrap: then the lane comparisons below compare
        // exact integers.
        if i0 > u32::MAX - 7 {
            return None;
        }
        let vi = _mm_loadu_si128(i.cast());
        let vj = _mm_loadu_si128(j.cast());
        let base = _mm_shuffle_epi32::<0>(vi);
        let want_i = _mm_add_epi32(base, _mm_set_epi32(6, 4, 2, 0));
        let want_j = _mm_add_epi32(base, _mm_set_epi32(7, 5, 3, 1));
        let eq = _mm_and_si128(_mm_cmpeq_epi32(vi, want_i), _mm_cmpeq_epi32(vj, want_j));
        (_mm_movemask_epi8(eq) == 0xffff).then_some(ix(i0))
    }
}

/// Lane `t` of the first register gets `p[2t]`, of the second
/// `p[2t + 1]`, for `t < 4`.
///
/// # Safety
/// `p .. p + 8` is valid for reads.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn load_pairs(p: *const f32) -> (__m128, __m128) {
    // SAFETY: SSE at compile time; `p .. p + 8` readable (caller
    // contract): two unaligned 16-byte loads.
    unsafe {
        let a = _mm_loadu_ps(p);
        let b = _mm_loadu_ps(p.add(4));
        (
            _mm_shuffle_ps::<0b10_00_10_00>(a, b),
            _mm_shuffle_ps::<0b11_01_11_01>(a, b),
        )
    }
}

/// Writes `p[2t] = even[t]` and `p[2t + 1] = odd[t]` for `t < 4`: the
/// inverse of [`load_pairs`].
///
/// # Safety
/// `p .. p + 8` is valid for writes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store_pairs(p: *mut f32, even: __m128, odd: __m128) {
    // SAFETY: SSE at compile time; `p .. p + 8` writable (caller
    // contract): two unaligned 16-byte stores.
    unsafe {
        _mm_storeu_ps(p, _mm_unpacklo_ps(even, odd));
        _mm_storeu_ps(p.add(4), _mm_unpackhi_ps(even, odd));
    }
}

// SAFETY: `group` touches particles only when the group's links are
// exactly (i0 + 2t, i0 + 2t + 1) for t < 4, and then exactly the
// particles i0 .. i0 + 8 (those links' particles) and the group's λ;
// otherwise it returns `None` having written nothing.
unsafe impl<V: Pairs> FastPath<f32, V> for Neighbours<V> {
    /// Two groups per step where it can (two independent dependency
    /// chains side by side, so the core overlaps their square roots and
    /// divisions), one group otherwise.
    #[inline(always)]
    unsafe fn run(self, k: usize, end: usize, acc: &mut Acc<V>) -> usize {
        let (s, l) = (self.soa, self.l);
        let n = V::LANES;
        let mut k = k;
        loop {
            while k + 2 * n <= end {
                // SAFETY: `k .. k + 2n` are link positions of the range.
                let (Some(ia), Some(ib)) = (unsafe {
                    (
                        V::neighbours(l.i.add(k), l.j.add(k)),
                        V::neighbours(l.i.add(k + n), l.j.add(k + n)),
                    )
                }) else {
                    break;
                };
                // SAFETY: as for the single group below, for both groups (they share no
                // particle: proper coloring).
                let (oa, ob) = unsafe {
                    (
                        solve_group(load_group::<V>(s, l, ia), load_link(l, k)),
                        solve_group(load_group::<V>(s, l, ib), load_link(l, k + n)),
                    )
                };
                if oa.applied != V::ALL || ob.applied != V::ALL {
                    break;
                }
                // SAFETY: as for the single group below.
                unsafe {
                    store_group(s, l, ia, k, &oa, acc);
                    store_group(s, l, ib, k + n, &ob, acc);
                }
                k += 2 * n;
            }
            if k + n > end {
                return k;
            }
            // SAFETY: `k .. k + n` are link positions of the range.
            let Some(i0) = (unsafe { V::neighbours(l.i.add(k), l.j.add(k)) }) else {
                return k;
            };
            // SAFETY: the group's links join particles i0 + 2t and
            // i0 + 2t + 1 (t < n), each below the particle count
            // (caller contract): the 2n entries from i0 of each particle
            // array are in bounds and belong to no other link of the
            // color (proper coloring), so no other thread touches them.
            let o = unsafe { solve_group(load_group::<V>(s, l, i0), load_link(l, k)) };
            if o.applied != V::ALL {
                // Rare: leave the group (nothing written) to the general
                // path, which keeps the old values in the lanes not
                // applied.
                return k;
            }
            // SAFETY: as for the loads; λ of the links `k .. k + n`.
            unsafe { store_group(s, l, i0, k, &o, acc) };
            k += n;
        }
    }
}

/// The particles of one neighbour group and its links' values, solved.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn solve_group<V: Pairs>(p: ((V, V), (V, V), (V, V), (V, V)), link: LinkLanes<V>) -> Solved<V> {
    let ((ax, bx), (ay, by), (az, bz), (wi, wj)) = p;
    solve::<f32, V>(
        &Group {
            a: [ax, ay, az],
            b: [bx, by, bz],
            wi,
            wj,
            link: &link,
        },
        false,
    )
}

/// Writes a solved neighbour group (particles from `i0`, λ of the links
/// `k .. k + LANES`) and adds it to the statistics.
///
/// # Safety
/// As for [`load_group`]; `k .. k + LANES` are link positions of the range.
#[inline(always)]
unsafe fn store_group<V: Pairs>(
    s: RawSoa<f32>,
    l: RawLinks<f32>,
    i0: usize,
    k: usize,
    o: &Solved<V>,
    acc: &mut Acc<V>,
) {
    let sign = V::splat(-0.0);
    let ([nax, nay, naz], [nbx, nby, nbz]) = (o.a, o.b);
    // SAFETY: caller contract.
    unsafe {
        V::store_pairs(s.x.add(i0), nax, nbx);
        V::store_pairs(s.y.add(i0), nay, nby);
        V::store_pairs(s.z.add(i0), naz, nbz);
        o.lambda.store(l.lambda.add(k));
    }
    acc.applied += V::ALL.count_ones();
    acc.max_c = acc.max_c.max(sign.andnot(o.c));
    acc.max_r = acc.max_r.max(sign.andnot(o.numerator));
}

/// The particles of a neighbour group from `i0`: (x, y, z, w), each as
/// (first, second) particles of the four links.
///
/// # Safety
/// `i0 .. i0 + 2 LANES` are particle indices, as in [`Neighbours`].
#[inline(always)]
#[allow(clippy::type_complexity)]
unsafe fn load_group<V: Pairs>(
    s: RawSoa<f32>,
    l: RawLinks<f32>,
    i0: usize,
) -> ((V, V), (V, V), (V, V), (V, V)) {
    // SAFETY: `i0 .. i0 + 2 LANES` readable in each array (caller contract).
    unsafe {
        (
            V::load_pairs(s.x.add(i0)),
            V::load_pairs(s.y.add(i0)),
            V::load_pairs(s.z.add(i0)),
            V::load_pairs(l.w.add(i0)),
        )
    }
}

/// [`range`](super::range) for f32, with the fast path for links joining neighbours
/// when the particles are [`Soa`](crate::colored::Soa).
///
/// # Safety
/// As [`solve_range`](super::super::solve_range).
#[inline(always)]
pub(in crate::colored::kernel) unsafe fn range_f32<V: Pairs, P: RawParticles<f32>>(
    p: P,
    l: RawLinks<f32>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
) -> (SweepStats<f32>, Option<SystemError>) {
    // SAFETY: forwarded caller contract (for `Neighbours` too: the SoA
    // arrays are those of `p`).
    unsafe {
        match p.soa() {
            Some(soa) => range_with::<f32, V, P, Neighbours<V>>(
                p,
                l,
                begin,
                end,
                policy,
                Neighbours {
                    soa,
                    l,
                    _lanes: PhantomData,
                },
            ),
            None => range_with::<f32, V, P, GatherPairs<f32, P>>(
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

#[cfg(all(test, target_arch = "x86_64"))]
#[allow(clippy::indexing_slicing, clippy::as_conversions)]
mod tests {
    use super::*;

    fn check(i: [u32; 4], j: [u32; 4]) -> Option<usize> {
        // SAFETY: both arrays hold 4 values.
        unsafe { neighbours(i.as_ptr(), j.as_ptr()) }
    }

    #[test]
    fn neighbour_groups_are_recognised_exactly() {
        assert_eq!(check([0, 2, 4, 6], [1, 3, 5, 7]), Some(0));
        assert_eq!(check([7, 9, 11, 13], [8, 10, 12, 14]), Some(7));
        let m = u32::MAX;
        assert_eq!(
            check([m - 7, m - 5, m - 3, m - 1], [m - 6, m - 4, m - 2, m]),
            Some(ix(m - 7))
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
        assert_eq!(check(i0, j0), Some(10));
        for lane in 0..4 {
            for d in [1, u32::MAX] {
                let (mut i, mut j) = (i0, j0);
                i[lane] = i[lane].wrapping_add(d);
                assert_eq!(check(i, j0), None, "i {i:?}");
                j[lane] = j[lane].wrapping_add(d);
                assert_eq!(check(i0, j), None, "j {j:?}");
            }
        }
        // Reversed links, or another order of the same links.
        assert_eq!(check([1, 3, 5, 7], [0, 2, 4, 6]), None);
        assert_eq!(check([0, 4, 2, 6], [1, 5, 3, 7]), None);
    }
}
