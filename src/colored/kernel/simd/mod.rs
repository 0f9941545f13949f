//! The explicit SIMD kernels, written once over [`Lanes`]: on x86-64 SSE2
//! (the baseline), AVX2 and AVX-512 (`wide`), on aarch64 NEON (`neon`).
//!
//! The baseline on x86-64: two f64 or four f32 links per SSE register
//! (`sqrtpd`/`divpd`, `sqrtps`/`divps`), particles gathered and scattered
//! directly (or, for groups whose particles are contiguous in SoA
//! particles, loaded and stored contiguously: `neighbours`), the same IEEE
//! operations per lane as [`candidate`](super::chunk::candidate) (so the same bits as the portable
//! kernel). LLVM does not vectorize the portable fused loop on the baseline
//! ISA (its cost model rejects the emulated gathers), hence the explicit
//! code, written once over [`Lanes`].

use super::link_error;
use crate::colored::{ix, max, RawLinks, RawParticles};
use crate::real::Real;
use crate::solver::{SweepStats, SystemError, ZeroLength};

mod lanes;
pub(super) mod neighbours;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "x86_64")]
mod wide;

pub(super) use lanes::Lanes;
pub(super) use neighbours::range_strided;
#[cfg(target_arch = "aarch64")]
pub(super) use neon::{neon_range_f32, neon_range_f64};
#[cfg(target_arch = "x86_64")]
pub(super) use wide::{range_f32_avx2, range_f64_avx2};
#[cfg(all(target_arch = "x86_64", xpbd_avx512))]
pub(super) use wide::{range_f32_avx512, range_f64_avx512};

/// The per-link inputs of one group of `LANES` links (colored positions
/// `k .. k + LANES`).
struct LinkLanes<V> {
    rest: V,
    alpha: V,
    g: V,
    lambda: V,
}

/// The inputs of one group: the particles of each lane's link and the
/// link's values.
struct Group<'a, V> {
    a: [V; 3],
    b: [V; 3],
    wi: V,
    wj: V,
    link: &'a LinkLanes<V>,
}

/// One group's outputs: positions and λ to write (the old values in
/// lanes not applied), and what the statistics need.
struct Solved<V> {
    a: [V; 3],
    b: [V; 3],
    lambda: V,
    /// `apply.mask()`.
    applied: u32,
    apply: V,
    moving: V,
    long: V,
    ordered: V,
    finite: V,
    c: V,
    numerator: V,
}

/// The mask with every lane set.
#[inline(always)]
fn all_lanes<T: Real, V: Lanes<T>>() -> u32 {
    V::ALL
}

/// `yes` in the lanes where `mask` is all ones, `no` elsewhere.
#[inline(always)]
fn select<T: Real, V: Lanes<T>>(mask: V, yes: V, no: V) -> V {
    mask.and(yes).or(mask.andnot(no))
}

/// All ones in the lanes where all seven values are finite, zero
/// elsewhere. The portable kernel's test sums `v − v` (+0 for a finite
/// v, NaN otherwise). Here each `v · 0` is ±0 for a finite v and NaN
/// otherwise, and the bitwise OR of such values is ±0 exactly when all
/// are ±0 (a NaN keeps its all-ones exponent and non-zero mantissa in
/// the OR): the same decision, with multiplications and bitwise ORs
/// instead of subtractions and additions (measured a few per cent
/// faster in f32) and a shallower tree.
#[inline(always)]
fn all_finite<T: Real, V: Lanes<T>>(v: [V; 7]) -> V {
    let zero = V::splat(T::ZERO);
    let z = |x: V| x.mul(zero);
    let [a, b, c, d, e, f, g] = v;
    (z(a).or(z(b)))
        .or(z(c).or(z(d)))
        .or(z(e).or(z(f)).or(z(g)))
        .eq(zero)
}

/// All ones in the lanes where the sum of the seven values is finite:
/// then each is (a sum with a ±∞ or NaN term is ±∞ or NaN). A lane
/// whose finite values overflow in the sum gets zero although it might
/// apply: a conservative test, for callers that leave such groups to
/// the exact one ([`all_finite`]). Fewer instructions than the exact
/// test (six additions instead of seven products and six ORs).
#[inline(always)]
fn sum_finite<T: Real, V: Lanes<T>>(v: [V; 7]) -> V {
    let zero = V::splat(T::ZERO);
    let [a, b, c, d, e, f, g] = v;
    (a.add(b).add(c.add(d)))
        .add(e.add(f).add(g))
        .mul(zero)
        .eq(zero)
}

/// The colored equations for `LANES` links at once: per lane the same
/// IEEE operations in the same order as [`candidate`](super::chunk::candidate), and the
/// same decision (apply or not), including its tension-only and
/// static-particle rules (taken only when a lane needs them). With `keep_old`, lanes not applied get
/// their old values back; without, the outputs are the candidates in
/// every lane (for a caller that writes only when all lanes apply), and
/// the finiteness test is the conservative [`sum_finite`]: a lane it
/// rejects may still apply, so that caller must leave the group to one
/// with `keep_old`. With `lazy` (and without `keep_old`) the test is of
/// λ' alone: the caller checks the positions ([`RawLinks::lazy`]).
#[inline(always)]
fn solve<T: Real, V: Lanes<T>>(x: &Group<'_, V>, keep_old: bool, lazy: bool) -> Solved<V> {
    let zero = V::splat(T::ZERO);
    let one = V::splat(T::ONE);
    let min_pos = V::splat(T::MIN_POSITIVE);
    let sign = V::splat(-T::ZERO);
    let [ax, ay, az] = x.a;
    let [bx, by, bz] = x.b;
    let (wi, wj) = (x.wi, x.wj);
    let LinkLanes {
        rest,
        alpha,
        g,
        lambda,
    } = *x.link;
    let dx = bx.sub(ax);
    let dy = by.sub(ay);
    let dz = bz.sub(az);
    let len2 = zero.add(dx.mul(dx)).add(dy.mul(dy)).add(dz.mul(dz));
    let len = len2.sqrt();
    let r = one.div(len);
    let mut c = len.sub(sign.andnot(rest));
    let mut numerator = c.xor(sign).sub(alpha.mul(lambda));
    let mut delta = numerator.mul(g);
    // Lanes that need the exact rules of `candidate`: a tension-only link
    // (`rest < 0`) or a static particle. The sign bits and the `w == 0`
    // masks together; rare in a color, so one test skips the selects.
    let static_i = wi.eq(zero);
    let static_j = wj.eq(zero);
    let special = rest.or(static_i).or(static_j).mask() != 0;
    let (mut keep_a, mut keep_b) = (static_i, static_j);
    if special {
        let next = lambda.add(delta);
        // rest < 0 and λ + Δλ > 0, each as `≥` and `≠` (false for NaN).
        let tension = zero.ge(rest).and(rest.ne(zero));
        let slack = tension.and(next.ge(zero)).and(next.ne(zero));
        delta = select::<T, V>(slack, lambda.xor(sign), delta);
        c = slack.andnot(c);
        numerator = slack.andnot(numerator);
        let idle = slack.and(delta.eq(zero));
        keep_a = keep_a.or(idle);
        keep_b = keep_b.or(idle);
    }
    let si = wi.mul(delta);
    let sj = wj.mul(delta);
    let nx = dx.mul(r);
    let ny = dy.mul(r);
    let nz = dz.mul(r);
    let mut nax = ax.sub(si.mul(nx));
    let mut nay = ay.sub(si.mul(ny));
    let mut naz = az.sub(si.mul(nz));
    let mut nbx = bx.add(sj.mul(nx));
    let mut nby = by.add(sj.mul(ny));
    let mut nbz = bz.add(sj.mul(nz));
    if special {
        nax = select::<T, V>(keep_a, ax, nax);
        nay = select::<T, V>(keep_a, ay, nay);
        naz = select::<T, V>(keep_a, az, naz);
        nbx = select::<T, V>(keep_b, bx, nbx);
        nby = select::<T, V>(keep_b, by, nby);
        nbz = select::<T, V>(keep_b, bz, nbz);
    }
    let mut nl = lambda.add(delta);
    let finite = if keep_old {
        all_finite::<T, V>([nax, nay, naz, nbx, nby, nbz, nl])
    } else if lazy {
        // λ' only: the caller checks the positions ([`RawLinks::lazy`]).
        let zero = V::splat(T::ZERO);
        nl.mul(zero).eq(zero)
    } else {
        sum_finite::<T, V>([nax, nay, naz, nbx, nby, nbz, nl])
    };
    // `g = 0`: both particles static or the link disabled (`candidate`).
    let moving = g.ne(zero);
    let long = len2.ge(min_pos);
    let ordered = len2.eq(len2);
    let apply = moving.and(long).and(finite);
    let applied = apply.mask();
    if keep_old && applied != all_lanes::<T, V>() {
        nax = select::<T, V>(apply, nax, ax);
        nay = select::<T, V>(apply, nay, ay);
        naz = select::<T, V>(apply, naz, az);
        nbx = select::<T, V>(apply, nbx, bx);
        nby = select::<T, V>(apply, nby, by);
        nbz = select::<T, V>(apply, nbz, bz);
        nl = select::<T, V>(apply, nl, lambda);
    }
    Solved {
        a: [nax, nay, naz],
        b: [nbx, nby, nbz],
        lambda: nl,
        applied,
        apply,
        moving,
        long,
        ordered,
        finite,
        c,
        numerator,
    }
}

/// A way to load, solve and store some groups without the general
/// gather and scatter.
///
/// # Safety
/// Implementations read and write only the particles of the group's
/// links and the group's λ; they return `Some` only when every lane was
/// applied (and written), and `None` having written nothing.
unsafe trait FastPath<T: Real, V: Lanes<T>>: Copy {
    /// Solves the groups `k .. k + LANES`, `k + LANES .. k + 2 LANES`,
    /// … (all within `.. end`) while each takes the fast path, writes
    /// their results, adds their statistics to `acc`, and returns the
    /// first group position it did not write (`k` itself when none).
    ///
    /// # Safety
    /// As [`super::solve_range`], for the links `k .. end`.
    unsafe fn run(self, k: usize, end: usize, acc: &mut Acc<V>) -> usize;
}

/// The statistics of groups where every lane applied: their count and
/// the lane-wise maxima of `|C|` and `|C + α̃λ|`.
struct Acc<V> {
    applied: u32,
    max_c: V,
    max_r: V,
}

impl<V> Acc<V> {
    /// Adds a group in which every lane applied.
    #[inline(always)]
    fn add<T: Real>(&mut self, o: &Solved<V>)
    where
        V: Lanes<T>,
    {
        let sign = V::splat(-T::ZERO);
        self.applied += V::ALL.count_ones();
        self.max_c = self.max_c.max(sign.andnot(o.c));
        self.max_r = self.max_r.max(sign.andnot(o.numerator));
    }
}

/// [`solve`] on a gathered group and its links' values.
#[inline(always)]
fn solve_gathered<T: Real, V: Lanes<T>>(
    g: Gathered<V>,
    link: &LinkLanes<V>,
    keep_old: bool,
    lazy: bool,
) -> Solved<V> {
    let (a, b, wi, wj) = g;
    solve::<T, V>(&Group { a, b, wi, wj, link }, keep_old, lazy)
}

/// A gathered group: first and second particles' coordinates, inverse
/// masses.
type Gathered<V> = ([V; 3], [V; 3], V, V);

/// Gathers the group `k .. k + LANES`: particle indices and values, and
/// the static lanes ([`Statics`]).
///
/// # Safety
/// `k .. k + LANES` are link positions of a range of
/// [`super::solve_range`], whose indices are below the particle count.
#[inline(always)]
#[allow(clippy::indexing_slicing)] // `LANES`-entry arrays indexed by lane < LANES
unsafe fn gather<T: Real, V: Lanes<T>, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    k: usize,
) -> (V::Indices, V::Indices, Gathered<V>, Statics) {
    let z4 = V::Scalars::default();
    let mut pi = V::Indices::default();
    let mut pj = V::Indices::default();
    let (mut ax, mut ay, mut az, mut bx, mut by, mut bz, mut wi, mut wj) =
        (z4, z4, z4, z4, z4, z4, z4, z4);
    for t in 0..V::LANES {
        // SAFETY: `k + t` is a link position of the range, its indices
        // are below the particle count (caller contract).
        unsafe {
            let (i, j) = l.ij(k + t);
            pi[t] = i;
            pj[t] = j;
            let a = p.get(i);
            let b = p.get(j);
            ax[t] = a[0];
            ay[t] = a[1];
            az[t] = a[2];
            bx[t] = b[0];
            by[t] = b[1];
            bz[t] = b[2];
            wi[t] = *l.w.add(i);
            wj[t] = *l.w.add(j);
        }
    }
    let zero = V::splat(T::ZERO);
    let (wi, wj) = (V::set(&wi), V::set(&wj));
    let statics = wi.eq(zero).mask() | (wj.eq(zero).mask() << 16);
    (
        pi,
        pj,
        (
            [V::set(&ax), V::set(&ay), V::set(&az)],
            [V::set(&bx), V::set(&by), V::set(&bz)],
            wi,
            wj,
        ),
        statics,
    )
}

/// The static particles of a gathered group (`w = 0`): bit `t` for lane
/// `t`'s first particle, bit `16 + t` for its second (at most 16 lanes).
type Statics = u32;

/// Writes a solved group's positions (particles `pi`, `pj`) and λ.
///
/// # Safety
/// As [`gather`], for the same group; no other lane or thread writes
/// these particles (proper coloring).
#[inline(always)]
#[allow(clippy::indexing_slicing)] // `LANES`-entry arrays indexed by lane < LANES
unsafe fn scatter<T: Real, V: Lanes<T>, P: RawParticles<T>>(
    p: P,
    l: RawLinks<T>,
    k: usize,
    pi: &V::Indices,
    pj: &V::Indices,
    statics: Statics,
    o: &Solved<V>,
) {
    let z4 = V::Scalars::default();
    let (mut oax, mut oay, mut oaz, mut obx, mut oby, mut obz) = (z4, z4, z4, z4, z4, z4);
    o.a[0].get(&mut oax);
    o.a[1].get(&mut oay);
    o.a[2].get(&mut oaz);
    o.b[0].get(&mut obx);
    o.b[1].get(&mut oby);
    o.b[2].get(&mut obz);
    // SAFETY: caller contract.
    unsafe {
        o.lambda.store(l.lambda.add(k));
        // A static particle (`w = 0`) keeps its bits and is not written:
        // a frame's coloring may share it between links of one color
        // (`step_colored`), whose tasks then only read it.
        if statics == 0 {
            for t in 0..V::LANES {
                p.set(pi[t], [oax[t], oay[t], oaz[t]]);
                p.set(pj[t], [obx[t], oby[t], obz[t]]);
            }
        } else {
            for t in 0..V::LANES {
                if statics & (1 << t) == 0 {
                    p.set(pi[t], [oax[t], oay[t], oaz[t]]);
                }
                if statics & (1 << (t + 16)) == 0 {
                    p.set(pj[t], [obx[t], oby[t], obz[t]]);
                }
            }
        }
    }
}

/// Gathered groups while they apply in every lane: in f32 two at a time
/// (two independent dependency chains side by side, so the core overlaps
/// their square roots and divisions), in f64 one at a time.
#[derive(Clone, Copy)]
struct GatherPairs<T, P> {
    p: P,
    l: RawLinks<T>,
}

// SAFETY: writes only the particles and λ of the groups it returns past,
// and only after the group (both groups of a pair) applied in every lane.
unsafe impl<T: Real, V: Lanes<T>, P: RawParticles<T>> FastPath<T, V> for GatherPairs<T, P> {
    #[inline(always)]
    unsafe fn run(self, k: usize, end: usize, acc: &mut Acc<V>) -> usize {
        let (p, l) = (self.p, self.l);
        let n = V::LANES;
        let all = all_lanes::<T, V>();
        let mut k = k;
        // f64: one group per step (two side by side spilled registers:
        // measured 4.7 → 4.4 ns per link on the AoS rope, 40 → 38 ns
        // per link and substep in the whole frame's bare sweeps); f32
        // keeps two (3.4 against 3.7 ns on the 1k-link AoS rope).
        if core::mem::size_of::<T>() == 8 {
            while k + n <= end {
                // SAFETY: `k .. k + n` are link positions of the range
                // (caller contract for the indices).
                let ((pa, qa, ga, sa), la) =
                    unsafe { (gather::<T, V, P>(p, l, k), load_link::<T, V>(l, k)) };
                let oa = solve_gathered::<T, V>(ga, &la, false, l.lazy);
                if oa.applied != all {
                    return k;
                }
                // SAFETY: as for the gather.
                unsafe { scatter::<T, V, P>(p, l, k, &pa, &qa, sa, &oa) };
                acc.add::<T>(&oa);
                k += n;
            }
            return k;
        }
        while k + 2 * n <= end {
            // SAFETY: `k .. k + 2n` are link positions of the range
            // (caller contract for the indices); the two groups share
            // no moving particle (proper coloring; a shared static one is
            // never written), so gathering the second before writing the
            // first reads the same values.
            let ((pa, qa, ga, sa), (pb, qb, gb, sb), la, lb) = unsafe {
                (
                    gather::<T, V, P>(p, l, k),
                    gather::<T, V, P>(p, l, k + n),
                    load_link::<T, V>(l, k),
                    load_link::<T, V>(l, k + n),
                )
            };
            let oa = solve_gathered::<T, V>(ga, &la, false, l.lazy);
            let ob = solve_gathered::<T, V>(gb, &lb, false, l.lazy);
            if oa.applied != all || ob.applied != all {
                // Nothing written: the general path takes group `k`.
                return k;
            }
            // SAFETY: as for the gathers.
            unsafe {
                scatter::<T, V, P>(p, l, k, &pa, &qa, sa, &oa);
                scatter::<T, V, P>(p, l, k + n, &pb, &qb, sb, &ob);
            }
            acc.add::<T>(&oa);
            acc.add::<T>(&ob);
            k += 2 * n;
        }
        k
    }
}

/// The link values of the group `k .. k + LANES`.
///
/// # Safety
/// `k .. k + LANES` are positions of the link arrays.
#[inline(always)]
unsafe fn load_link<T: Real, V: Lanes<T>>(l: RawLinks<T>, k: usize) -> LinkLanes<V> {
    // SAFETY: in bounds (caller contract); only λ is ever written, by
    // the thread that owns these links.
    unsafe {
        LinkLanes {
            rest: V::load(l.rest.add(k)),
            alpha: V::load(l.alpha.add(k)),
            g: V::load(l.g.add(k)),
            lambda: V::load(l.lambda.add(k)),
        }
    }
}

/// # Safety
/// As [`super::solve_range`]; `fast` accesses the particles of `p` (or
/// nothing).
#[inline(always)]
#[allow(clippy::indexing_slicing)] // `LANES`-entry arrays indexed by lane < LANES
unsafe fn range_with<T: Real, V: Lanes<T>, P: RawParticles<T>, F: FastPath<T, V>>(
    p: P,
    l: RawLinks<T>,
    begin: usize,
    end: usize,
    policy: ZeroLength,
    fast: F,
) -> (SweepStats<T>, Option<SystemError>) {
    let n = V::LANES;
    let all = all_lanes::<T, V>();
    let reject = policy == ZeroLength::Reject;
    let mut error: Option<SystemError> = None;
    let (mut applied, mut skipped_static, mut skipped_zero) = (0u32, 0u32, 0u32);
    let zero = V::splat(T::ZERO);
    let sign = V::splat(-T::ZERO);
    let mut acc = Acc {
        applied: 0,
        max_c: zero,
        max_r: zero,
    };
    let mut k = begin;
    let z4 = V::Scalars::default();
    loop {
        // Groups the fast path takes (every lane applied, so the
        // statistics are a count and the maxima), in a tight loop of
        // their own. It stops at the end of the range or at the first
        // group left to the general path.
        // SAFETY: forwarded caller contract, for the links `k .. end`.
        k = unsafe { fast.run(k, end, &mut acc) };
        if k + n > end {
            break;
        }
        // SAFETY: `k .. k + n` are link positions of the range.
        let link = unsafe { load_link::<T, V>(l, k) };
        // The general path: gather, solve, scatter.
        // SAFETY: `k .. k + n` are link positions of the range (caller
        // contract for the indices).
        let (pi, pj, g, statics) = unsafe { gather::<T, V, P>(p, l, k) };
        let o = solve_gathered::<T, V>(g, &link, true, false);
        // SAFETY: as for the loads; the links of the range share no
        // particle, so no two lanes write the same particle.
        unsafe { scatter::<T, V, P>(p, l, k, &pi, &pj, statics, &o) };
        if o.applied == all {
            // Every lane applied: nothing skipped, nothing failed.
            applied += all.count_ones();
        } else {
            let am = o.applied;
            let mm = o.moving.mask();
            let lm = o.long.mask();
            let fm = o.finite.mask();
            applied += am.count_ones();
            skipped_static += (!mm & all).count_ones();
            let zm = mm & !lm & all;
            skipped_zero += zm.count_ones();
            // A NaN length (a NaN input position) fails under either policy.
            let nan = zm & !o.ordered.mask();
            let failed = (mm & lm & !fm & all) | if reject { zm } else { nan };
            if failed != 0 && error.is_none() {
                let t = failed.trailing_zeros();
                let at = k + ix(t);
                // SAFETY: `at` is a link of the range (caller contract);
                // reads its particles only.
                error = Some(unsafe { link_error(p, l, at, zm & (1 << t) != 0) });
            }
        }
        acc.max_c = acc.max_c.max(o.apply.and(sign.andnot(o.c)));
        acc.max_r = acc.max_r.max(o.apply.and(sign.andnot(o.numerator)));
        k += n;
    }
    applied += acc.applied;
    let (mut mc, mut mr) = (z4, z4);
    acc.max_c.get(&mut mc);
    acc.max_r.get(&mut mr);
    let mut stats = SweepStats {
        applied: ix(applied),
        skipped_static: ix(skipped_static),
        skipped_zero_length: if reject { 0 } else { ix(skipped_zero) },
        max_abs_c: mc.as_ref().iter().fold(T::ZERO, |a, b| max(a, *b)),
        max_residual: mr.as_ref().iter().fold(T::ZERO, |a, b| max(a, *b)),
    };
    if k < end {
        // SAFETY: forwarded caller contract, for the remaining links.
        let (last, e) = unsafe { super::chunk::generic_range(p, l, k, end, policy) };
        stats = stats.merge(last);
        if error.is_none() {
            error = e;
        }
    }
    (stats, error)
}

#[cfg(all(test, target_arch = "x86_64"))]
#[allow(clippy::indexing_slicing, clippy::as_conversions)]
mod tests {
    use super::*;
    use core::arch::x86_64::{__m128, __m128d};

    fn specials<T: Real>() -> [T; 12] {
        let big = T::from_f64(f64::MAX);
        let inf = T::ONE / T::ZERO;
        let nan = inf * T::ZERO;
        [
            T::ZERO,
            -T::ZERO,
            T::ONE,
            -T::from_f64(2.5),
            big,
            -big,
            T::MIN_POSITIVE,
            T::MIN_POSITIVE / T::from_f64(1024.0),
            inf,
            -inf,
            nan,
            -nan,
        ]
    }

    /// `all_finite` against the portable kernel's test (`Σ (v − v) == 0`),
    /// one special value at a time in every one of the seven inputs
    /// and every lane, and two at once.
    fn all_finite_matches<T: Real, V: Lanes<T>>() {
        let values = specials::<T>();
        let fill = [T::ONE, -T::from_f64(3.0), T::from_f64(0.5), T::ZERO];
        let mut cases = Vec::new();
        for (p, &s) in (0..7).flat_map(|p| values.iter().map(move |s| (p, s))) {
            for lane in 0..V::LANES {
                let mut v = [fill; 7];
                v[p][lane] = s;
                cases.push(v);
                if cfg!(miri) {
                    continue; // the pairs below: thousands of cases
                }
                for (q, &u) in (0..7).flat_map(|q| values.iter().map(move |u| (q, u))) {
                    let mut w = v;
                    w[q][(lane + 1) % V::LANES] = u;
                    cases.push(w);
                }
            }
        }
        for v in cases {
            let got = all_finite::<T, V>(v.map(|x| {
                let mut a = V::Scalars::default();
                for (t, value) in x.iter().take(V::LANES).enumerate() {
                    a[t] = *value;
                }
                V::set(&a)
            }))
            .mask();
            let want = (0..V::LANES).fold(0u32, |m, lane| {
                let sum = v
                    .iter()
                    .fold(T::ZERO, |acc, x| acc + super::super::chunk::probe(x[lane]));
                m | (u32::from(sum == T::ZERO) << lane)
            });
            assert_eq!(got, want, "{v:?}");
        }
    }

    #[test]
    fn all_finite_is_the_portable_finiteness_test() {
        all_finite_matches::<f32, __m128>();
        all_finite_matches::<f64, __m128d>();
    }
}
