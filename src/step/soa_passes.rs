//! The SoA frame's particle passes ([`soa_frame`](super::soa_frame)):
//! prediction with detection, plane contacts, velocities with damping and
//! friction, as flat, branch-free loops over one block of coordinate
//! arrays at a time, compiled at the link kernels' vector level (a
//! sphere's contacts: the AoS passes' functions, a particle at a time); the
//! scratch's arrays lent to the tasks; the commit into the caller's
//! arrays. The same operations per particle as the AoS passes
//! ([`order`](super::order), [`colliders`](super::colliders),
//! `constraint::contact`), so the same bits.

use super::colliders::within_margin;
use super::colored::PARTICLES_PER_TASK;
use super::jobs::{run_phase, split_range, task_count, Jobs, Shared};
use super::local_space::Carry;
use super::soa_frame::MAX_COLLIDERS;
use crate::colored::Isa;
use crate::constraint::contact::{gap, static_friction, Contact, Sphere};
use crate::constraint::engine_contact::slow_tangential;
use crate::constraint::{update, Bound};
use crate::math::length_squared;
use crate::real::Real;

/// Particles a pass handles at a time (its arrays stay in the first
/// cache level between the loops of one block).
const BLOCK: usize = 256;

/// A plane as its contacts see it: the unit normal (`unit_any`, the bits
/// of the AoS frame's kept normals) and the offset (m).
#[derive(Clone, Copy)]
pub(super) struct Plane<T> {
    pub(super) n: [T; 3],
    pub(super) offset: T,
}

/// What every pass of a substep reads.
#[derive(Clone, Copy)]
pub(super) struct Consts<'p, T> {
    /// Inverse masses (1/kg).
    pub(super) w: &'p [T],
    /// The planes (colliders `0 ..`).
    pub(super) planes: &'p [Plane<T>],
    /// The spheres (colliders `planes.len() ..`).
    pub(super) spheres: &'p [Sphere<T, 3>],
    /// The substep h (s).
    pub(super) h: T,
    /// `h² g` (m) per coordinate.
    pub(super) hg: [T; 3],
    /// Particle radius r (m).
    pub(super) radius: T,
    /// `α̃ = α/h²` of every contact (1/kg).
    pub(super) alpha: T,
    /// Static friction μ_s.
    pub(super) mu_s: T,
    /// Dynamic friction μ_k.
    pub(super) mu_k: T,
    /// The damping factor `max(0, 1 − c h)`, when damped.
    pub(super) keep: Option<T>,
    /// The substep's local-space carry ([`Pass::Carry`]), when it moves.
    pub(super) carry: Option<Carry<T>>,
}

/// The scratch's arrays, lent to the phases of the whole frame (one
/// provenance for the tasks' ranges and the link kernels' pointers).
pub(super) struct Lent<T> {
    pub(super) x: [Shared<T>; 3],
    pub(super) pv: [Shared<T>; 3],
    pub(super) l: [Shared<T>; MAX_COLLIDERS],
}

/// Particles `a .. b` of every array.
pub(super) struct Part<'a, T> {
    pub(super) x: [&'a mut [T]; 3],
    pub(super) pv: [&'a mut [T]; 3],
    pub(super) l: [&'a mut [T]; MAX_COLLIDERS],
}

impl<T> Lent<T> {
    /// The arrays of particles `a .. b`.
    ///
    /// # Safety
    /// As [`Shared::range`]: no other live reference covers them.
    pub(super) unsafe fn part(&self, a: usize, b: usize) -> Option<Part<'_, T>> {
        let ([x0, x1, x2], [p0, p1, p2], [l0, l1, l2]) = (&self.x, &self.pv, &self.l);
        // SAFETY: forwarded caller contract, for each array.
        unsafe {
            Some(Part {
                x: [x0.range(a, b)?, x1.range(a, b)?, x2.range(a, b)?],
                pv: [p0.range(a, b)?, p1.range(a, b)?, p2.range(a, b)?],
                l: [l0.range(a, b)?, l1.range(a, b)?, l2.range(a, b)?],
            })
        }
    }
}

impl<T> Part<'_, T> {
    /// Particles `s .. e` of this part.
    fn block(&mut self, s: usize, e: usize) -> Option<Part<'_, T>> {
        let [x0, x1, x2] = &mut self.x;
        let [p0, p1, p2] = &mut self.pv;
        let [l0, l1, l2] = &mut self.l;
        Some(Part {
            x: [x0.get_mut(s..e)?, x1.get_mut(s..e)?, x2.get_mut(s..e)?],
            pv: [p0.get_mut(s..e)?, p1.get_mut(s..e)?, p2.get_mut(s..e)?],
            l: [l0.get_mut(s..e)?, l1.get_mut(s..e)?, l2.get_mut(s..e)?],
        })
    }
}

/// `((0 + a₀b₀) + a₁b₁) + a₂b₂`: [`crate::math::dot`]'s operations.
#[inline(always)]
fn dot<T: Real>(a: [T; 3], b: [T; 3]) -> T {
    ((T::ZERO + a[0] * b[0]) + a[1] * b[1]) + a[2] * b[2]
}

/// Whether every coordinate is finite (no branch).
#[inline(always)]
fn finite3<T: Real>(a: [T; 3]) -> bool {
    a[0].is_finite() & a[1].is_finite() & a[2].is_finite()
}

/// The local-space carry of one block (`Substep::carry`'s operations on
/// each moving particle, branch-free: a static one keeps its values), the
/// velocities in the second area (the substep's entry).
#[inline(always)]
fn carry<T: Real>(p: Part<'_, T>, w: &[T], m: &Carry<T>) {
    let ([x0, x1, x2], [v0, v1, v2]) = (p.x, p.pv);
    let xs = x0.iter_mut().zip(x1.iter_mut()).zip(x2.iter_mut());
    let vs = v0.iter_mut().zip(v1.iter_mut()).zip(v2.iter_mut());
    for ((((x0, x1), x2), ((v0, v1), v2)), &w) in xs.zip(vs).zip(w) {
        let ([a0, a1, a2], [b0, b1, b2]) = m.carry(&[*x0, *x1, *x2], &[*v0, *v1, *v2]);
        let moves = w > T::ZERO;
        let pick = |new: T, old: &mut T| *old = if moves { new } else { *old };
        pick(a0, x0);
        pick(a1, x1);
        pick(a2, x2);
        pick(b0, v0);
        pick(b1, v1);
        pick(b2, v2);
    }
}

/// `x_prev ← x` and the prediction (`order::predict_range`) of one
/// block, then its contacts with each plane, then each sphere
/// (`colliders::each_contact`): λ ← 0 for a contact, −1 for none. Returns
/// the count.
#[inline(always)]
fn predict_detect<T: Real>(p: Part<'_, T>, w: &[T], c: &Consts<'_, T>) -> usize {
    let Part { x, pv, l } = p;
    let [x0, x1, x2] = x;
    let [p0, p1, p2] = pv;
    let (h, [g0, g1, g2]) = (c.h, c.hg);
    for (((x0, x1), x2), (((p0, p1), p2), w)) in x0
        .iter_mut()
        .zip(x1.iter_mut())
        .zip(x2.iter_mut())
        .zip(p0.iter_mut().zip(p1.iter_mut()).zip(p2.iter_mut()).zip(w))
    {
        let (a0, a1, a2) = (*x0, *x1, *x2);
        let (v0, v1, v2) = (*p0, *p1, *p2);
        let moving = *w != T::ZERO;
        let still = (v0 == T::ZERO) & (v1 == T::ZERO) & (v2 == T::ZERO);
        let (k0, k1, k2) = (a0 + h * v0, a1 + h * v1, a2 + h * v2);
        let (m0, m1, m2) = (k0 + g0, k1 + g1, k2 + g2);
        *x0 = if moving {
            m0
        } else if still {
            a0
        } else {
            k0
        };
        *x1 = if moving {
            m1
        } else if still {
            a1
        } else {
            k1
        };
        *x2 = if moving {
            m2
        } else if still {
            a2
        } else {
            k2
        };
        *p0 = if moving { a0 } else { v0 };
        *p1 = if moving { a1 } else { v1 };
        *p2 = if moving { a2 } else { v2 };
    }
    let (x, pv) = ([&*x0, &*x1, &*x2], [&*p0, &*p1, &*p2]);
    let mut count = 0usize;
    let [l0, l1, l2] = l;
    let mut l = [l0, l1, l2].into_iter();
    for (plane, l) in c.planes.iter().zip(l.by_ref()) {
        count = count.saturating_add(detect(x, pv, w, plane, c.radius, l));
    }
    for (k, l) in (0..c.spheres.len()).zip(l) {
        count = count.saturating_add(detect_sphere(x, pv, w, c, k, l));
    }
    count
}

/// The position of particle `k` of coordinate arrays (zeros past the end:
/// never, the arrays of one block have one length).
#[inline(always)]
fn at<T: Real, A: AsRef<[T]>>(x: &[A; 3], k: usize) -> [T; 3] {
    let get = |a: &A| a.as_ref().get(k).copied().unwrap_or(T::ZERO);
    let [x0, x1, x2] = x;
    [get(x0), get(x1), get(x2)]
}

/// The contacts of sphere `s` in one block (`colliders::each_contact` with
/// `contact::gap`: the AoS frame's functions, so its bits), one particle
/// at a time.
#[inline(always)]
fn detect_sphere<T: Real>(
    x: [&[T]; 3],
    q: [&[T]; 3],
    w: &[T],
    c: &Consts<'_, T>,
    s: usize,
    l: &mut [T],
) -> usize {
    let mut count = 0usize;
    let [x0, x1, x2] = x;
    let [q0, q1, q2] = q;
    for ((((x0, x1), x2), ((q0, q1), q2)), (w, l)) in x0
        .iter()
        .zip(x1)
        .zip(x2)
        .zip(q0.iter().zip(q1).zip(q2))
        .zip(w.iter().zip(l.iter_mut()))
    {
        let (a, prev) = ([*x0, *x1, *x2], [*q0, *q1, *q2]);
        let touch = *w != T::ZERO
            && gap(&a, s, &[], c.spheres, c.radius)
                .is_some_and(|(g, _)| within_margin(g, c.radius, || length_squared(&a, &prev)));
        *l = if touch { T::ZERO } else { -T::ONE };
        count = count.wrapping_add(usize::from(touch));
    }
    count
}

/// The contacts of one plane in one block (`colliders::within_margin`).
#[inline(always)]
fn detect<T: Real>(x: [&[T]; 3], q: [&[T]; 3], w: &[T], p: &Plane<T>, r: T, l: &mut [T]) -> usize {
    let four = T::from_f64(4.0);
    let mut count = 0usize;
    let [x0, x1, x2] = x;
    let [q0, q1, q2] = q;
    for ((((x0, x1), x2), ((q0, q1), q2)), (w, l)) in x0
        .iter()
        .zip(x1)
        .zip(x2)
        .zip(q0.iter().zip(q1).zip(q2))
        .zip(w.iter().zip(l.iter_mut()))
    {
        let c = dot(p.n, [*x0, *x1, *x2]) - p.offset - r;
        let e = c - r;
        let (d0, d1, d2) = (*q0 - *x0, *q1 - *x1, *q2 - *x2);
        let path2 = ((T::ZERO + d0 * d0) + d1 * d1) + d2 * d2;
        let touch = (*w != T::ZERO) & ((e <= T::ZERO) | (e * e <= four * path2));
        *l = if touch { T::ZERO } else { -T::ONE };
        count = count.wrapping_add(usize::from(touch));
    }
    count
}

/// One sweep of the contacts of one block, a plane at a time
/// (`constraint::contact::sweep_colliders`' in-place plane contact):
/// `C = n̂·x − offset − r`, the update with `W = w`, `λ ≥ 0`,
/// `x ← x + (w Δλ) n̂`, then static friction. Whether every contact's
/// result is finite.
#[inline(always)]
fn contacts<T: Real>(p: Part<'_, T>, w: &[T], c: &Consts<'_, T>) -> bool {
    let Part { x, pv, mut l } = p;
    let [x0, x1, x2] = x;
    let [q0, q1, q2] = pv;
    let (alpha, mu, r) = (c.alpha, c.mu_s, c.radius);
    let mut ok = true;
    for (p, l) in c.planes.iter().zip(l.iter_mut()) {
        let n = p.n;
        for ((((x0, x1), x2), ((q0, q1), q2)), (w, l)) in x0
            .iter_mut()
            .zip(x1.iter_mut())
            .zip(x2.iter_mut())
            .zip(q0.iter().zip(q1.iter()).zip(q2.iter()))
            .zip(w.iter().zip(l.iter_mut()))
        {
            let (lam, w) = (*l, *w);
            let touch = lam >= T::ZERO;
            let a = [*x0, *x1, *x2];
            let gap = dot(n, a) - p.offset - r;
            let numerator = -gap - alpha * lam;
            let delta = numerator / (w + alpha);
            let sum = lam + delta;
            let next = if sum < T::ZERO { T::ZERO } else { sum };
            let s = w * (next - lam);
            let y = [a[0] + s * n[0], a[1] + s * n[1], a[2] + s * n[2]];
            let m = [y[0] - *q0, y[1] - *q1, y[2] - *q2];
            let along = dot(m, n);
            let t = [
                m[0] - along * n[0],
                m[1] - along * n[1],
                m[2] - along * n[2],
            ];
            let t2 = dot(t, t);
            let limit = mu * w * next;
            let stick = (mu > T::ZERO) & (next > T::ZERO) & (t2 < limit * limit);
            let z = [
                if stick { y[0] - t[0] } else { y[0] },
                if stick { y[1] - t[1] } else { y[1] },
                if stick { y[2] - t[2] } else { y[2] },
            ];
            ok &= !touch | (next.is_finite() & finite3(z));
            *x0 = if touch { z[0] } else { a[0] };
            *x1 = if touch { z[1] } else { a[1] };
            *x2 = if touch { z[2] } else { a[2] };
            *l = if touch { next } else { lam };
        }
    }
    let (mut x, pv) = ([x0, x1, x2], [q0, q1, q2]);
    for (k, l) in (0..c.spheres.len()).zip(l.iter_mut().skip(c.planes.len())) {
        for (t, (w, l)) in w.iter().zip(l.iter_mut()).enumerate() {
            let lam = *l;
            if lam < T::ZERO {
                continue;
            }
            // `contact::sweep_colliders`' shared path (`constraint::solve`
            // of a contact): the gap, the update with `W = w`, λ ≥ 0,
            // `x ← x + (w Δλ) n̂`, static friction from the substep's start.
            let (a, prev) = (at(&x, t), at(&pv, t));
            let Some((g, n)) = gap(&a, k, &[], c.spheres, r) else {
                continue;
            };
            let u = update(g, lam, *w, alpha, Bound::NonNegative);
            let mut next = a;
            let step = *w * u.delta;
            for (v, g) in next.iter_mut().zip(&n) {
                *v = *v + step * *g;
            }
            static_friction(&mut next, &prev, &n, *w, u.lambda, mu);
            if !(u.lambda.is_finite() && finite3(next)) {
                ok = false;
                continue;
            }
            set(&mut x, t, next);
            *l = u.lambda;
        }
    }
    ok
}

/// Writes particle `k` of coordinate arrays (nothing past the end).
#[inline(always)]
fn set<T: Real>(x: &mut [&mut [T]; 3], k: usize, v: [T; 3]) {
    for (a, v) in x.iter_mut().zip(v) {
        if let Some(slot) = a.get_mut(k) {
            *slot = v;
        }
    }
}

/// The velocity update of one block (`order::velocity_range`: moving
/// particles `v ← (x − x_prev)/h`, damped; static ones keep theirs),
/// each plane's dynamic friction (`colliders::dynamic_friction`,
/// `slow_tangential` about the plane's normal), and the finite checks
/// (velocity and position before friction, velocity after). Whether all
/// passed.
#[inline(always)]
fn velocities<T: Real>(p: Part<'_, T>, w: &[T], c: &Consts<'_, T>) -> bool {
    let Part { x, pv, l } = p;
    let [x0, x1, x2] = x;
    let [v0, v1, v2] = pv;
    let h = c.h;
    let keep = c.keep.unwrap_or(T::ONE);
    let damped = c.keep.is_some();
    let mut ok = true;
    for (((x0, x1), x2), (((v0, v1), v2), w)) in x0
        .iter()
        .zip(x1.iter())
        .zip(x2.iter())
        .zip(v0.iter_mut().zip(v1.iter_mut()).zip(v2.iter_mut()).zip(w))
    {
        let moving = *w != T::ZERO;
        let (u0, u1, u2) = ((*x0 - *v0) / h, (*x1 - *v1) / h, (*x2 - *v2) / h);
        let (d0, d1, d2) = if damped {
            (u0 * keep, u1 * keep, u2 * keep)
        } else {
            (u0, u1, u2)
        };
        let v = [
            if moving { d0 } else { *v0 },
            if moving { d1 } else { *v1 },
            if moving { d2 } else { *v2 },
        ];
        ok &= finite3(v) & finite3([*x0, *x1, *x2]);
        [*v0, *v1, *v2] = v;
    }
    let mu = c.mu_k;
    if mu > T::ZERO {
        for (p, l) in c.planes.iter().zip(l.iter()) {
            let n = p.n;
            for ((v0, v1), (v2, (w, l))) in v0
                .iter_mut()
                .zip(v1.iter_mut())
                .zip(v2.iter_mut().zip(w.iter().zip(l.iter())))
            {
                let v = [*v0, *v1, *v2];
                let drop = mu * *w * *l / h;
                let along = dot(v, n);
                let t = [
                    v[0] - along * n[0],
                    v[1] - along * n[1],
                    v[2] - along * n[2],
                ];
                let speed2 = dot(t, t);
                let go = (*l > T::ZERO) & (speed2 >= T::MIN_POSITIVE);
                let speed = speed2.sqrt();
                let scale = if drop >= speed { T::ONE } else { drop / speed };
                *v0 = if go { v[0] - scale * t[0] } else { v[0] };
                *v1 = if go { v[1] - scale * t[1] } else { v[1] };
                *v2 = if go { v[2] - scale * t[2] } else { v[2] };
            }
        }
        // The spheres' (`colliders::dynamic_friction`: the normal at the
        // substep's end position, `slow_tangential` about it).
        let mut v = [v0, v1, v2];
        for (k, l) in (0..c.spheres.len()).zip(l.iter().skip(c.planes.len())) {
            for (t, (w, l)) in w.iter().zip(l.iter()).enumerate() {
                if *l <= T::ZERO {
                    continue;
                }
                let Some((_, n)) = gap(&at(&[&*x0, &*x1, &*x2], t), k, &[], c.spheres, c.radius)
                else {
                    continue;
                };
                let mut u = at(&v, t);
                slow_tangential(&mut u, &[T::ZERO; 3], &n, mu * *w * *l / h);
                set(&mut v, t, u);
            }
        }
        let [v0, v1, v2] = v;
        for ((v0, v1), v2) in v0.iter().zip(v1.iter()).zip(v2.iter()) {
            ok &= finite3([*v0, *v1, *v2]);
        }
    }
    ok
}

/// The contacts of one block, particles `first ..`, in detection order
/// into `out` from `at`; the next free entry, `None` when `out` is full
/// (never: detection counted them).
pub(super) fn write_contacts<T: Real>(
    l: &[&mut [T]; MAX_COLLIDERS],
    planes: usize,
    first: usize,
    out: &mut [Contact<T>],
    mut at: usize,
) -> Option<usize> {
    let [l0, l1, l2] = l;
    let len = l0.len();
    for k in 0..len {
        let lams = [l0.get(k), l1.get(k), l2.get(k)];
        for (collider, lam) in lams.into_iter().enumerate().take(planes) {
            let lam = *lam?;
            if lam >= T::ZERO {
                let slot = out.get_mut(at)?;
                *slot = Contact {
                    particle: u32::try_from(first.checked_add(k)?).ok()?,
                    collider: u32::try_from(collider).ok()?,
                    lambda: lam,
                };
                at = at.checked_add(1)?;
            }
        }
    }
    Some(at)
}

/// The pass a task runs, at the widest vector level `isa` allows.
#[derive(Clone, Copy)]
pub(super) enum Pass {
    Carry,
    PredictDetect,
    Contacts,
    Velocities,
}

/// Runs `pass` over one block (`usize::MAX`: a failed contact or
/// velocity pass; else detection's count, or 0).
#[inline(always)]
fn block<T: Real>(pass: Pass, p: Part<'_, T>, w: &[T], c: &Consts<'_, T>) -> usize {
    match pass {
        Pass::Carry => {
            if let Some(m) = &c.carry {
                carry(p, w, m);
            }
            0
        }
        Pass::PredictDetect => predict_detect(p, w, c),
        Pass::Contacts => {
            if contacts(p, w, c) {
                0
            } else {
                usize::MAX
            }
        }
        Pass::Velocities => {
            if velocities(p, w, c) {
                0
            } else {
                usize::MAX
            }
        }
    }
}

/// [`block`] compiled for AVX2.
///
/// # Safety
/// The CPU and OS support AVX2 (an [`Isa`] with its bit).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn block_avx2<T: Real>(pass: Pass, p: Part<'_, T>, w: &[T], c: &Consts<'_, T>) -> usize {
    block(pass, p, w, c)
}

/// [`block`] compiled for AVX-512 F and DQ.
///
/// # Safety
/// The CPU and OS support AVX-512 F and DQ (an [`Isa`] with its bit).
#[cfg(all(target_arch = "x86_64", xpbd_avx512))]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn block_avx512<T: Real>(pass: Pass, p: Part<'_, T>, w: &[T], c: &Consts<'_, T>) -> usize {
    block(pass, p, w, c)
}

/// [`block`] at the widest level of `isa` (the same operations per
/// lane at every level, so the same bits).
#[inline(always)]
fn block_on<T: Real>(isa: Isa, pass: Pass, p: Part<'_, T>, w: &[T], c: &Consts<'_, T>) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::colored::Level;
        let level = isa.level();
        #[cfg(xpbd_avx512)]
        if level == Level::Avx512 {
            // SAFETY: `isa` holds the AVX-512 bit only when the CPU and OS
            // support it (`Isa::detect`, `Isa::from_bits`).
            return unsafe { block_avx512(pass, p, w, c) };
        }
        if level == Level::Avx2 || level == Level::Avx512 {
            // SAFETY: as above, AVX2 (an AVX-512 set includes it).
            return unsafe { block_avx2(pass, p, w, c) };
        }
    }
    let _ = isa;
    block(pass, p, w, c)
}

/// Runs `pass` over every particle as tasks of particle ranges, a block
/// at a time; each task's result (the sum of its blocks', saturating)
/// in `sums` (task order). `None`: a task missed its arrays (never) or
/// the job system skipped one.
pub(super) fn phase<T: Real>(
    jobs: &dyn Jobs,
    lent: &Lent<T>,
    n: usize,
    pass: Pass,
    c: &Consts<'_, T>,
    isa: Isa,
    sums: &mut [usize; super::MAX_JOBS],
) -> Option<usize> {
    let count = task_count(jobs, n.div_ceil(PARTICLES_PER_TASK));
    run_phase(
        jobs,
        count,
        &|i| {
            let (a, b) = split_range(n, i, count);
            // SAFETY: the ranges of one phase are disjoint, and the
            // arrays are used by nothing else until it ends.
            let (Some(mut part), Some(w)) = (unsafe { lent.part(a, b) }, c.w.get(a..b)) else {
                return usize::MAX;
            };
            let mut sum = 0usize;
            let mut s = 0usize;
            while s < b.saturating_sub(a) {
                let e = s.saturating_add(BLOCK).min(b.saturating_sub(a));
                let (Some(p), Some(w)) = (part.block(s, e), w.get(s..e)) else {
                    return usize::MAX;
                };
                sum = sum.saturating_add(block_on(isa, pass, p, w, c));
                s = e;
            }
            sum
        },
        |i, r| {
            if let Some(slot) = sums.get_mut(i) {
                *slot = r;
            }
        },
    )
    .ok()?;
    Some(count)
}

/// Particles `a .. b` of the scratch into the caller's positions and
/// velocities; whether the ranges existed.
///
/// # Safety
/// As [`Shared::range`], for the three.
pub(super) unsafe fn commit<T: Real, const D: usize>(
    lent: &Lent<T>,
    positions: &Shared<[T; D]>,
    velocities: &Shared<[T; D]>,
    a: usize,
    b: usize,
) -> bool {
    // SAFETY: forwarded caller contract.
    let (Some(p), Some(x), Some(v)) = (unsafe {
        (
            lent.part(a, b),
            positions.range(a, b),
            velocities.range(a, b),
        )
    }) else {
        return false;
    };
    let ([x0, x1, x2], [v0, v1, v2]) = (p.x, p.pv);
    for (((x0, x1), x2), d) in x0.iter().zip(x1.iter()).zip(x2.iter()).zip(x) {
        for (dst, src) in d.iter_mut().zip([*x0, *x1, *x2]) {
            *dst = src;
        }
    }
    for (((v0, v1), v2), d) in v0.iter().zip(v1.iter()).zip(v2.iter()).zip(v) {
        for (dst, src) in d.iter_mut().zip([*v0, *v1, *v2]) {
            *dst = src;
        }
    }
    true
}
