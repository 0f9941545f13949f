//! The colored frame on structure-of-arrays scratch (issue 34, third
//! stage): the particle passes as flat, branch-free loops over coordinate
//! arrays, which the compiler turns into vector code (at the ISA the link
//! kernels run at), and the links on the colored kernels over the same
//! arrays. The same operations per particle as the AoS passes
//! ([`order`](super::order), [`colliders`](super::colliders),
//! `constraint::contact`), so the same bits.
//!
//! # When
//!
//! [`step_colored`](super::step_colored) on a host in 3D, for a world of
//! links and at most [`MAX_PLANES`] planes: no groups, spheres, capsules,
//! boxes, engine contacts or self-collision (those frames take the AoS
//! passes). The frame must fit: every substep's contacts within
//! [`World::contacts`](super::World::contacts).
//!
//! # A transaction
//!
//! The caller's positions and velocities are read once into the scratch
//! (the three areas the AoS frame keeps its snapshot and `x_prev` in,
//! `3n` entries of `[T; 3]`) and written once, when the whole frame
//! succeeded. Any failure (a non-finite result, a zero-length link under
//! [`ZeroLength::Reject`](crate::ZeroLength), more contacts than the
//! budget, a job system that skipped a task) writes nothing to them and
//! hands the frame to the AoS frame, which gives the same bits or names
//! the error exactly as before.
//!
//! # The scratch
//!
//! | area | holds |
//! |---|---|
//! | first (`n` entries) | positions `x`, `y`, `z`, an array each |
//! | second | per particle, from the prediction to the velocity update the substep's start `x_prev` (moving particles), else the velocity |
//! | third | per plane, the contact's λ (kg·m) of each particle, −1 when it has none |
//!
//! A static particle (w = 0) keeps its velocity in the second area all
//! frame (nothing needs its start: it has no contact and no link moves
//! it). A moving particle's velocity lives there between the velocity
//! update and the next prediction, which reads it and writes the start.
//!
//! # The contacts
//!
//! Detection flags a particle's contact with a plane by its λ (0 when
//! found); the contacts of distinct particles are independent, so a
//! plane at a time over all particles gives each particle's contacts in
//! detection order (planes by index), the bits of the AoS sweep. The
//! velocity pass writes the substep's contacts into
//! [`World::contacts`](super::World::contacts) in detection order, as the
//! AoS frame stores them.

use super::colored::PARTICLES_PER_TASK;
use super::jobs::{run_phase, split_range, task_count, Jobs, Shared};
use super::link_pass::{kernel_isa, LinkState};
use super::world::Frame;
use super::{StepConfig, StepStats};
use crate::colored::{job_range, solve_frame_range, Isa, RawSoa, CHUNK};
use crate::constraint::contact::Contact;
use crate::math::unit_any;
use crate::real::Real;
use crate::solver::SweepStats;

/// Most planes a frame on the SoA passes takes: the third scratch area
/// holds one λ array per plane.
pub(super) const MAX_PLANES: usize = 3;

/// Particles a pass handles at a time (its arrays stay in the first
/// cache level between the loops of one block).
const BLOCK: usize = 256;

/// A plane as its contacts see it: the unit normal (`unit_any`, the bits
/// of the AoS frame's kept normals) and the offset (m).
#[derive(Clone, Copy)]
struct Plane<T> {
    n: [T; 3],
    offset: T,
}

/// What every pass of a substep reads.
#[derive(Clone, Copy)]
struct Consts<'p, T> {
    /// Inverse masses (1/kg).
    w: &'p [T],
    /// The planes.
    planes: &'p [Plane<T>],
    /// The substep h (s).
    h: T,
    /// `h² g` (m) per coordinate.
    hg: [T; 3],
    /// Particle radius r (m).
    radius: T,
    /// `α̃ = α/h²` of every contact (1/kg).
    alpha: T,
    /// Static friction μ_s.
    mu_s: T,
    /// Dynamic friction μ_k.
    mu_k: T,
    /// The damping factor `max(0, 1 − c h)`, when damped.
    keep: Option<T>,
}

/// The scratch's arrays, lent to the phases of the whole frame (one
/// provenance for the tasks' ranges and the link kernels' pointers).
struct Lent<T> {
    x: [Shared<T>; 3],
    pv: [Shared<T>; 3],
    l: [Shared<T>; MAX_PLANES],
}

/// Particles `a .. b` of every array.
struct Part<'a, T> {
    x: [&'a mut [T]; 3],
    pv: [&'a mut [T]; 3],
    l: [&'a mut [T]; MAX_PLANES],
}

impl<T> Lent<T> {
    /// The arrays of particles `a .. b`.
    ///
    /// # Safety
    /// As [`Shared::range`]: no other live reference covers them.
    unsafe fn part(&self, a: usize, b: usize) -> Option<Part<'_, T>> {
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

/// `x_prev ← x` and the prediction (`order::predict_range`) of one
/// block, then its contacts with each plane (`colliders::each_contact`,
/// planes only): λ ← 0 for a contact, −1 for none. Returns the count.
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
    for (plane, l) in c.planes.iter().zip(l) {
        count = count.saturating_add(detect(x, pv, w, plane, c.radius, l));
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
    let Part { x, pv, l } = p;
    let [x0, x1, x2] = x;
    let [q0, q1, q2] = pv;
    let (alpha, mu, r) = (c.alpha, c.mu_s, c.radius);
    let mut ok = true;
    for (p, l) in c.planes.iter().zip(l) {
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
    ok
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
        for ((v0, v1), v2) in v0.iter().zip(v1.iter()).zip(v2.iter()) {
            ok &= finite3([*v0, *v1, *v2]);
        }
    }
    ok
}

/// The contacts of one block, particles `first ..`, in detection order
/// into `out` from `at`; the next free entry, `None` when `out` is full
/// (never: detection counted them).
fn write_contacts<T: Real>(
    l: &[&mut [T]; MAX_PLANES],
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
enum Pass {
    PredictDetect,
    Contacts,
    Velocities,
}

/// Runs `pass` over one block (`usize::MAX`: a failed contact or
/// velocity pass; else detection's count, or 0).
#[inline(always)]
fn block<T: Real>(pass: Pass, p: Part<'_, T>, w: &[T], c: &Consts<'_, T>) -> usize {
    match pass {
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
fn phase<T: Real>(
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

/// The frame of `step_colored` on the SoA passes (see the module
/// documentation): `Some` with the frame's statistics when it ran and
/// committed positions, velocities and contacts (the links' λ are left
/// in `state` for the caller's commit), `None` when it does not apply or
/// failed, having written nothing but the scratch, `state` and
/// [`World::contacts`](super::World::contacts).
#[allow(clippy::too_many_arguments)]
pub(super) fn run<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    colors: &[usize],
    isa: Isa,
    world: &mut Frame<'_, T, D>,
    area: [&mut [[T; D]]; 3],
    state: LinkState<'_, T>,
    h: T,
    config: &StepConfig<T, D>,
) -> Option<StepStats<T>> {
    if D != 3
        || world.planes.len() > MAX_PLANES
        || !world.spheres.is_empty()
        || !world.capsules.is_empty()
        || !world.boxes.is_empty()
        || !world.engine_contacts.is_empty()
        || world.self_collision.is_some()
    {
        return None;
    }
    let n = world.positions.len();
    let mut planes = [Plane {
        n: [T::ZERO; 3],
        offset: T::ZERO,
    }; MAX_PLANES];
    for (slot, p) in planes.iter_mut().zip(world.planes) {
        let u = unit_any(&p.normal)?;
        *slot = Plane {
            n: core::array::from_fn(|c| u.get(c).copied().unwrap_or(T::ZERO)),
            offset: p.offset,
        };
    }
    let planes = planes.get(..world.planes.len())?;
    let [a0, a1, a2] = area;
    let split = |a: &'_ mut [[T; D]]| -> Option<[Shared<T>; 3]> {
        let flat = a.as_flattened_mut();
        let (c0, rest) = flat.split_at_mut_checked(n)?;
        let (c1, rest) = rest.split_at_mut_checked(n)?;
        let c2 = rest.get_mut(..n)?;
        Some([Shared::new(c0), Shared::new(c1), Shared::new(c2)])
    };
    let lent = Lent {
        x: split(a0)?,
        pv: split(a1)?,
        l: split(a2)?,
    };
    let w = world.inverse_masses;
    if w.len() != n {
        return None;
    }
    // The caller's positions and velocities into the scratch.
    let positions = world.positions.as_flattened();
    let velocities = world.velocities.as_flattened();
    let count = task_count(jobs, n.div_ceil(PARTICLES_PER_TASK));
    let mut failed = false;
    run_phase(
        jobs,
        count,
        &|i| {
            let (a, b) = split_range(n, i, count);
            // SAFETY: the ranges of one phase are disjoint, and the arrays
            // are used by nothing else until it ends.
            let (Some(p), Some(x), Some(v)) = (
                unsafe { lent.part(a, b) },
                positions.get(a.saturating_mul(3)..b.saturating_mul(3)),
                velocities.get(a.saturating_mul(3)..b.saturating_mul(3)),
            ) else {
                return false;
            };
            let ([x0, x1, x2], [v0, v1, v2]) = (p.x, p.pv);
            for (((x0, x1), x2), s) in x0.iter_mut().zip(x1).zip(x2).zip(x.chunks_exact(3)) {
                if let &[a, b, c] = s {
                    [*x0, *x1, *x2] = [a, b, c];
                }
            }
            for (((v0, v1), v2), s) in v0.iter_mut().zip(v1).zip(v2).zip(v.chunks_exact(3)) {
                if let &[a, b, c] = s {
                    [*v0, *v1, *v2] = [a, b, c];
                }
            }
            true
        },
        |_, ok| failed |= !ok,
    )
    .ok()?;
    if failed {
        return None;
    }
    let h2 = h * h;
    let keep = {
        let k = T::ONE - config.damping * h;
        if k > T::ZERO {
            k
        } else {
            T::ZERO
        }
    };
    let consts = Consts {
        w,
        planes,
        h,
        hg: core::array::from_fn(|c| h2 * config.gravity.get(c).copied().unwrap_or(T::ZERO)),
        radius: config.particle_radius,
        alpha: config.contact_compliance / h2,
        mu_s: config.static_friction,
        mu_k: config.dynamic_friction,
        keep: (config.damping > T::ZERO).then_some(keep),
    };
    // The link kernels: f32 at most AVX2 (`ColoredOrder::sweep_links`).
    let link_isa = kernel_isa::<T>(isa);
    let links = state.kernel_links(world.links.len(), w)?;
    let [s0, s1, s2] = &lent.x;
    let soa = RawSoa {
        x: s0.ptr(),
        y: s1.ptr(),
        z: s2.ptr(),
    };
    let budget = world.contacts.len();
    let out = Shared::new(world.contacts);
    let mut stats = StepStats::default();
    let mut found = [0usize; super::MAX_JOBS];
    let mut ok = [0usize; super::MAX_JOBS];
    for s in 0..config.substeps {
        let tasks = phase(
            jobs,
            &lent,
            n,
            Pass::PredictDetect,
            &consts,
            isa,
            &mut found,
        )?;
        let mut total = 0usize;
        for f in found.iter().take(tasks) {
            total = total.checked_add(*f)?;
        }
        if total > budget {
            return None;
        }
        stats.max_contacts = stats.max_contacts.max(total);
        let last_substep = s.saturating_add(1) == config.substeps;
        for k in 0..config.iterations {
            let want = config.tolerance > T::ZERO
                || (last_substep && k.saturating_add(1) == config.iterations);
            let mut tally = SweepStats::default();
            for bounds in colors.windows(2) {
                let (Some(&b), Some(&e)) = (bounds.first(), bounds.get(1)) else {
                    continue;
                };
                let count = task_count(jobs, e.saturating_sub(b).div_ceil(CHUNK));
                let mut bad = false;
                run_phase(
                    jobs,
                    count,
                    &|i| {
                        let Some((lo, hi)) = job_range(b, e, i, count) else {
                            return Some(SweepStats::default());
                        };
                        // SAFETY: `links` views the frame's links (every
                        // index validated below the particle count, the
                        // length of the scratch's coordinate arrays `soa`
                        // points into) and their state, all borrowed for
                        // this call; `lo .. hi` is this task's range of
                        // one color of a coloring `step_colored` checked
                        // proper (no moving particle shared), disjoint
                        // from the other tasks' ranges; no other phase
                        // runs meanwhile.
                        unsafe {
                            solve_frame_range(
                                soa,
                                links,
                                lo,
                                hi,
                                k == 0,
                                config.zero_length,
                                link_isa,
                            )
                        }
                        .ok()
                    },
                    |_, r| match r {
                        Some(t) => tally = tally.merge(t),
                        None => bad = true,
                    },
                )
                .ok()?;
                if bad {
                    return None;
                }
            }
            let links = if want { tally } else { SweepStats::default() };
            if total > 0 {
                let tasks = phase(jobs, &lent, n, Pass::Contacts, &consts, isa, &mut ok)?;
                if ok.iter().take(tasks).any(|r| *r != 0) {
                    return None;
                }
            }
            stats.last = links.merge(SweepStats::default());
            stats.iterations = stats.iterations.saturating_add(1);
            if config.tolerance > T::ZERO && stats.last.max_residual <= config.tolerance {
                stats.converged_substeps = stats.converged_substeps.saturating_add(1);
                break;
            }
        }
        let tasks = phase(jobs, &lent, n, Pass::Velocities, &consts, isa, &mut ok)?;
        if ok.iter().take(tasks).any(|r| *r != 0) {
            return None;
        }
        // The substep's contacts in detection order, each task's after
        // those of the tasks before it.
        if total > 0 {
            let mut bad = false;
            run_phase(
                jobs,
                tasks,
                &|i| {
                    let (a, b) = split_range(n, i, tasks);
                    let at: usize = found.iter().take(i).sum();
                    let mine = found.get(i).copied().unwrap_or(0);
                    // SAFETY: the ranges of one phase are disjoint (the
                    // contacts of a particle range follow those of the
                    // ranges before it), and the arrays and contacts are
                    // used by nothing else until it ends.
                    let (Some(p), Some(dst)) = (unsafe { lent.part(a, b) }, unsafe {
                        out.range(at, at.saturating_add(mine))
                    }) else {
                        return false;
                    };
                    write_contacts(&p.l, planes.len(), a, dst, 0) == Some(mine)
                },
                |_, r| bad |= !r,
            )
            .ok()?;
            if bad {
                return None;
            }
        }
        stats.substeps = stats.substeps.saturating_add(1);
    }
    // Commit: the caller's positions and velocities (a task the job
    // system skipped is done on this thread: the frame succeeded).
    let positions = Shared::new(world.positions);
    let velocities = Shared::new(world.velocities);
    let commit = |a: usize, b: usize| {
        // SAFETY: (both uses) the ranges of one phase are disjoint, and
        // the arrays are used by nothing else until it ends; the fallback
        // runs after the phase, alone.
        unsafe { commit(&lent, &positions, &velocities, a, b) }
    };
    let mut done = [false; super::MAX_JOBS];
    let ran = run_phase(
        jobs,
        count,
        &|i| {
            let (a, b) = split_range(n, i, count);
            commit(a, b)
        },
        |i, r| {
            if let Some(d) = done.get_mut(i) {
                *d = r;
            }
        },
    );
    if ran.is_err() || done.iter().take(count).any(|d| !d) {
        commit(0, n);
    }
    Some(stats)
}

/// Particles `a .. b` of the scratch into the caller's positions and
/// velocities; whether the ranges existed.
///
/// # Safety
/// As [`Shared::range`], for the three.
unsafe fn commit<T: Real, const D: usize>(
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

#[cfg(test)]
#[allow(clippy::as_conversions, clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::super::colored::ColoredOrder;
    use super::super::order::Order;
    use super::super::world::World;
    use super::super::{scratch_len, Colliders, OneThread};
    use super::*;
    use crate::constraint::contact::{Plane as Ground, Sphere};
    use crate::{cloth, cloth_link_count, color_instances, color_order, fill_in_order};
    use crate::{GroupColors, Link, ZeroLength};

    /// A 6 × 6 cloth over the ground in colored order, one frame's
    /// entry by hand (the scratch's areas, the validated link state), then
    /// the SoA frame: it runs for links and planes, not with a sphere.
    #[test]
    fn links_and_planes_take_the_soa_frame_a_sphere_does_not() {
        let side = 6;
        let n = side * side;
        let x0: Vec<[f64; 3]> = (0..n)
            .map(|k| [(k % side) as f64 * 0.01, 0.004, (k / side) as f64 * 0.01])
            .collect();
        let mut links = vec![Link::default(); cloth_link_count(side, side, true).unwrap()];
        cloth(&x0, side, side, true, 1e-7, &mut links).unwrap();
        let m = links.len();
        let (mut used, mut colors) = (vec![0u64; n], vec![0u32; m]);
        let count = color_instances(&links, n, &mut used, &mut colors).unwrap();
        let mut starts = vec![0usize; count as usize + 1];
        let mut order = vec![0u32; m];
        color_order(&colors, count, &mut starts, &mut order).unwrap();
        let mut sorted = links.clone();
        fill_in_order(&links, &order, &mut sorted).unwrap();
        let ground = [Ground {
            normal: [0.0, 1.0, 0.0],
            offset: 0.0,
        }];
        let ball = [Sphere {
            center: [0.0, -1.0, 0.0],
            radius: 0.5,
        }];
        let config = StepConfig::<f64, 3> {
            particle_radius: 0.005,
            substeps: 2,
            ..StepConfig::default()
        };
        let h = 1.0 / 60.0 / f64::from(config.substeps);
        for sphere in [false, true] {
            let (mut x, mut v, w) = (x0.clone(), vec![[0.0; 3]; n], vec![1.0; n]);
            let mut links = sorted.clone();
            let mut contacts = vec![Contact::default(); 2 * n];
            let mut scratch = vec![[0.0; 3]; scratch_len(n, m)];
            let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
            world.links = &mut links;
            world.colliders = Some(Colliders {
                planes: &ground,
                spheres: if sphere { &ball } else { &[] },
                ..Default::default()
            });
            let (mut frame, _) = world.frame();
            let scratch = core::mem::take(&mut frame.scratch);
            let (a, rest) = scratch.split_at_mut(n);
            let (b, rest) = rest.split_at_mut(n);
            let (c, rest) = rest.split_at_mut(n);
            let mut state = LinkState::carve(rest.as_flattened_mut(), m).unwrap();
            let order = ColoredOrder {
                colors: GroupColors {
                    links: &starts,
                    ..Default::default()
                },
                jobs: &OneThread,
                isa: Isa::detect(),
            };
            order
                .validate(
                    frame.positions,
                    frame.inverse_masses,
                    frame.links,
                    h,
                    ZeroLength::Skip,
                    state.reborrow().constants(),
                )
                .unwrap();
            let before = frame.positions.to_vec();
            let r = order.soa_frame(&mut frame, [a, b, c], state.reborrow(), h, &config);
            assert_eq!(r.is_some(), !sphere);
            // It ran (and committed), or wrote nothing.
            assert_eq!(frame.positions.to_vec() != before, !sphere);
            if let Some(stats) = r {
                assert_eq!(stats.substeps, config.substeps);
                assert_eq!(stats.max_contacts, n);
            }
        }
    }
}
