//! The lane runs of the colored groups (issue 34): [`LANES`] instances of
//! one color solved at once in every colored sweep of the groups
//! (`step_colored`'s SoA and AoS frames at the frame's vector level, the
//! job views for an engine's threads at the target's baseline), for the
//! kinds that implement [`LaneKind`] (`constraint::lanes`: the bends).
//!
//! The instances' particles are gathered into one array per coordinate
//! and lane; the kind's arithmetic ([`LaneKind::lane`], its in-place
//! kernel's operations without a branch) runs in one loop over the lanes,
//! which the compiler turns into vector code at the frame's level
//! ([`Isa`]: AVX-512, AVX2, the target's baseline, NEON); the moving
//! particles' corrected positions and the λ' are scattered back. Each lane
//! takes the scalar kernel's operations in its order, with no fused
//! multiply-add, so each instance gets the scalar kernel's bits.
//!
//! When any lane needs the scalar kernel's decision (a degenerate or
//! non-finite instance, an index past the particles), nothing is written
//! and the caller solves the run one instance at a time with the scalar
//! kernel, which decides and names the failure as before
//! ([`RawGroups`](super::RawGroups)' `range_in_place_many`).

use crate::colored::Isa;
use crate::constraint::distance::index;
use crate::constraint::lanes::{get, put, LaneKind, LANES, V};
use crate::constraint::volume::{as3, from3};
use crate::constraint::{Outcome, Particles};
use crate::real::Real;

/// What the lanes computed, one array per quantity.
struct Solved<T, const N: usize> {
    next: [[V<T>; 3]; N],
    lambda: V<T>,
    c_abs: V<T>,
    residual: V<T>,
    still: [bool; LANES],
    ok: [bool; LANES],
}

/// [`LaneKind::lane`] on every lane, in one loop without a branch (the
/// compiler vectorises it).
#[inline(always)]
fn compute<T: Real, K: LaneKind<T, N>, const N: usize>(
    q: &[V<T>; 3],
    p: &[[V<T>; 3]; N],
    w: &[V<T>; N],
    h2: T,
) -> Solved<T, N> {
    let zero = [T::ZERO; LANES];
    let mut s = Solved {
        next: [[zero; 3]; N],
        lambda: zero,
        c_abs: zero,
        residual: zero,
        still: [false; LANES],
        ok: [false; LANES],
    };
    // A loop of a constant count, which the compiler vectorises (with a
    // count known only at run time it did not).
    for i in 0..LANES {
        let [q0, q1, q2] = q;
        let values = [get(q0, i), get(q1, i), get(q2, i)];
        let mut pl = [[T::ZERO; 3]; N];
        for (pl, [a, b, c]) in pl.iter_mut().zip(p) {
            *pl = [get(a, i), get(b, i), get(c, i)];
        }
        let mut wl = [T::ZERO; N];
        for (wl, w) in wl.iter_mut().zip(w) {
            *wl = get(w, i);
        }
        let r = K::lane(values, &pl, &wl, h2);
        for (out, xk) in s.next.iter_mut().zip(r.next) {
            for (o, v) in out.iter_mut().zip(xk) {
                put(o, i, v);
            }
        }
        put(&mut s.lambda, i, r.lambda);
        put(&mut s.c_abs, i, r.c_abs);
        put(&mut s.residual, i, r.residual);
        put(&mut s.still, i, r.still);
        put(&mut s.ok, i, r.ok);
    }
    s
}

/// Solves the [`LANES`] instances `items` (one color's: no moving
/// particle shared) over `x` with `α̃ = α/h²`, at the widest vector level
/// of `isa` (the same operations per lane at every level, so the same
/// bits): writes the moving particles' corrected positions and each
/// instance's λ' and returns the outcomes in order, the bits of the
/// kind's scalar kernel on each; or, when an instance needs the scalar
/// kernel's decision (any lane not `ok`, an index naming no particle),
/// writes nothing and returns `None`.
#[inline(always)]
pub(crate) fn solve_lanes_in_place<T, const D: usize, P, K, const N: usize>(
    items: &mut [K; LANES],
    x: &mut P,
    h2: T,
    isa: Isa,
) -> Option<[Outcome<T>; LANES]>
where
    T: Real,
    P: Particles<T, D>,
    K: LaneKind<T, N>,
{
    #[cfg(target_arch = "x86_64")]
    {
        use crate::colored::Level;
        let level = isa.level();
        #[cfg(xpbd_avx512)]
        if level == Level::Avx512 {
            // SAFETY: `isa` holds the AVX-512 bit only when the CPU and OS
            // support it (`Isa::detect`, `Isa::from_bits`).
            return unsafe { lanes_avx512(items, x, h2) };
        }
        if level == Level::Avx2 || level == Level::Avx512 {
            // SAFETY: as above, AVX2 (an AVX-512 set includes it).
            return unsafe { lanes_avx2(items, x, h2) };
        }
    }
    let _ = isa;
    lanes(items, x, h2)
}

/// [`lanes`] compiled for AVX2.
///
/// # Safety
/// The CPU and OS support AVX2 (an [`Isa`] with its bit).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lanes_avx2<T, const D: usize, P, K, const N: usize>(
    items: &mut [K; LANES],
    x: &mut P,
    h2: T,
) -> Option<[Outcome<T>; LANES]>
where
    T: Real,
    P: Particles<T, D>,
    K: LaneKind<T, N>,
{
    lanes(items, x, h2)
}

/// [`lanes`] compiled for AVX-512 F and DQ.
///
/// # Safety
/// The CPU and OS support AVX-512 F and DQ (an [`Isa`] with its bit).
#[cfg(all(target_arch = "x86_64", xpbd_avx512))]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn lanes_avx512<T, const D: usize, P, K, const N: usize>(
    items: &mut [K; LANES],
    x: &mut P,
    h2: T,
) -> Option<[Outcome<T>; LANES]>
where
    T: Real,
    P: Particles<T, D>,
    K: LaneKind<T, N>,
{
    lanes(items, x, h2)
}

/// [`solve_lanes_in_place`] at the level it is compiled at: gathers,
/// [`compute`]s, scatters.
#[inline(always)]
fn lanes<T, const D: usize, P, K, const N: usize>(
    items: &mut [K; LANES],
    x: &mut P,
    h2: T,
) -> Option<[Outcome<T>; LANES]>
where
    T: Real,
    P: Particles<T, D>,
    K: LaneKind<T, N>,
{
    let zero = [T::ZERO; LANES];
    let mut p = [[zero; 3]; N];
    let mut w = [zero; N];
    let mut q = [zero; 3];
    let mut missing = false;
    for (i, item) in items.iter().enumerate() {
        for (q, v) in q.iter_mut().zip(item.values()) {
            put(q, i, v);
        }
        for ((&k, pk), wk) in item.particles().iter().zip(&mut p).zip(&mut w) {
            let (xk, wv) = match x.get(index(k)).and_then(|(xk, w)| Some((as3(&xk)?, w))) {
                Some(found) => found,
                None => {
                    missing = true;
                    ([T::ZERO; 3], T::ZERO)
                }
            };
            for (c, v) in pk.iter_mut().zip(xk) {
                put(c, i, v);
            }
            put(wk, i, wv);
        }
    }
    if missing {
        return None;
    }
    let s = compute::<T, K, N>(&q, &p, &w, h2);
    if s.ok.iter().zip(&s.still).any(|(ok, still)| !ok & !still) {
        return None;
    }
    let mut outcomes = [Outcome::Static; LANES];
    for (i, (item, o)) in items.iter_mut().zip(&mut outcomes).enumerate() {
        if s.still.get(i).copied().unwrap_or(true) {
            continue;
        }
        for ((&k, [c0, c1, c2]), wk) in item.particles().iter().zip(&s.next).zip(&w) {
            if get(wk, i) != T::ZERO {
                x.set(index(k), from3([get(c0, i), get(c1, i), get(c2, i)]));
            }
        }
        item.store(get(&s.lambda, i));
        *o = Outcome::Applied {
            c_abs: get(&s.c_abs, i),
            residual: get(&s.residual, i),
        };
    }
    Some(outcomes)
}

#[cfg(test)]
mod tests;
