//! The SoA frame's collider contacts as a list (issue 34, sixth stage):
//! for frames with capsules or boxes, or more planes and spheres than
//! the per-collider λ arrays hold ([`MAX_COLLIDERS`](super::soa_frame::MAX_COLLIDERS)).
//!
//! The contacts live in [`World::contacts`](super::World::contacts) in
//! detection order (by particle, then collider), as the AoS frame keeps
//! them. Detection, each iteration's contact sweep and the velocity
//! update with dynamic friction run as tasks over the particle ranges of
//! the SoA passes, a window of up to [`WINDOW`] particles at a time: the
//! window's coordinates are copied into `[T; 3]` arrays, the AoS frame's
//! own functions run on them (`colliders::each_contact`,
//! `contact::sweep_colliders`, `order::velocity_range`, the colored
//! velocity pass's friction), and the results are copied back. Those
//! functions see each particle's position, start and inverse mass as the
//! AoS frame does, and contacts of distinct particles are independent, so
//! the bits are the AoS frame's. The prediction before them and the links
//! and groups between them stay on the SoA passes and kernels.

use super::colliders::each_contact;
use super::colored_particles::friction;
use super::colored_particles::Update;
use super::jobs::{run_phase, split_range, Jobs, Shared, MAX_JOBS};
use super::order::velocity_range;
use super::soa_passes::Lent;
use crate::constraint::contact::{sweep_colliders, Colliders, Contact};
use crate::real::Real;
use crate::solver::first_non_finite;

/// Particles copied into `[T; 3]` arrays at a time (the interpreter: a
/// few, its arrays are slow to fill).
const WINDOW: usize = if cfg!(miri) { 8 } else { 256 };

/// The contact offsets of the tasks: task `i`'s contacts are
/// `offsets[i] .. offsets[i] + found[i]`.
fn offsets(found: &[usize; MAX_JOBS]) -> [usize; MAX_JOBS] {
    let mut out = [0usize; MAX_JOBS];
    let mut total = 0usize;
    for (o, f) in out.iter_mut().zip(found) {
        *o = total;
        total = total.saturating_add(*f);
    }
    out
}

/// Task `i`'s contacts in `out`: `at[i] .. at[i] + found[i]`
/// ([`offsets`]).
///
/// # Safety
/// As [`Shared::range`]: no other live reference covers them (a phase's
/// tasks: their ranges are disjoint).
#[inline(always)]
#[allow(clippy::mut_from_ref)] // a phase's disjoint ranges, as `Shared::range`
unsafe fn task_contacts<'o, T>(
    out: &'o Shared<Contact<T>>,
    (at, found): (&[usize; MAX_JOBS], &[usize; MAX_JOBS]),
    i: usize,
) -> Option<&'o mut [Contact<T>]> {
    let (o, k) = (*at.get(i)?, *found.get(i)?);
    // SAFETY: forwarded caller contract.
    unsafe { out.range(o, o.saturating_add(k)) }
}

/// `out[k] ← (a[k], b[k], c[k])`.
#[inline(always)]
fn load<T: Real, const D: usize>(src: [&[T]; 3], out: &mut [[T; D]]) {
    let [a, b, c] = src;
    for (o, ((a, b), c)) in out.iter_mut().zip(a.iter().zip(b).zip(c)) {
        for (o, v) in o.iter_mut().zip([*a, *b, *c]) {
            *o = v;
        }
    }
}

/// `(a[k], b[k], c[k]) ← src[k]`.
#[inline(always)]
fn store<T: Real, const D: usize>(src: &[[T; D]], dst: [&mut [T]; 3]) {
    let [a, b, c] = dst;
    for (s, ((a, b), c)) in src
        .iter()
        .zip(a.iter_mut().zip(b.iter_mut()).zip(c.iter_mut()))
    {
        for (d, v) in [a, b, c].into_iter().zip(s) {
            *d = *v;
        }
    }
}

/// Whether `c` names a particle below `end`.
#[inline(always)]
fn below<T>(c: &Contact<T>, end: usize) -> bool {
    usize::try_from(c.particle).is_ok_and(|p| p < end)
}

/// One task's particles `a .. b` a window at a time: `f(first, x, q)`
/// with the window's first particle (global index) and its slices of the
/// coordinate arrays (`x`) and of the second area (`q`: starts, or a
/// static particle's velocity). False when `f` is, or the arrays are
/// missing (never).
///
/// # Safety
/// As [`Lent::part`]: no other live reference covers particles `a .. b`
/// of the arrays (a phase's tasks, whose ranges are disjoint).
#[inline(always)]
unsafe fn windows<T>(
    lent: &Lent<T>,
    (a, b): (usize, usize),
    mut f: impl FnMut(usize, [&mut [T]; 3], [&mut [T]; 3]) -> bool,
) -> bool {
    // SAFETY: forwarded caller contract.
    let Some(part) = (unsafe { lent.part(a, b) }) else {
        return false;
    };
    let ([x0, x1, x2], [p0, p1, p2]) = (part.x, part.pv);
    let len = b.saturating_sub(a);
    let mut s = 0usize;
    while s < len {
        let e = s.saturating_add(WINDOW).min(len);
        let (Some(a0), Some(a1), Some(a2)) = (x0.get_mut(s..e), x1.get_mut(s..e), x2.get_mut(s..e))
        else {
            return false;
        };
        let (Some(b0), Some(b1), Some(b2)) = (p0.get_mut(s..e), p1.get_mut(s..e), p2.get_mut(s..e))
        else {
            return false;
        };
        if !f(a.saturating_add(s), [a0, a1, a2], [b0, b1, b2]) {
            return false;
        }
        s = e;
    }
    true
}

/// The window's `[T; D]` arrays for coordinate slices of `len` entries.
type Window<'w, T, const D: usize> = (&'w mut [[T; D]], &'w mut [[T; D]]);

/// The first `len` entries of two window arrays.
#[inline(always)]
fn take<'w, T, const D: usize>(
    x: &'w mut [[T; D]; WINDOW],
    q: &'w mut [[T; D]; WINDOW],
    len: usize,
) -> Option<Window<'w, T, D>> {
    Some((x.get_mut(..len)?, q.get_mut(..len)?))
}

/// `[&a, &b, &c]` of three mutable slices.
#[inline(always)]
fn shared<'s, T>(c: &'s [&mut [T]; 3]) -> [&'s [T]; 3] {
    let [a, b, c] = c;
    [&**a, &**b, &**c]
}

/// The collider contacts of the predicted positions (`p`: the substep's
/// colliders, its `previous` unused) into `out` (`budget` entries) in
/// detection order, as `tasks` tasks over particle ranges; each task's
/// count in `found`. The total, or `None` when it exceeds the budget (the
/// AoS frame then runs, with its overflow rules), a particle or collider
/// index does not fit `u32`, or the job system skipped a task.
#[allow(clippy::too_many_arguments)]
pub(super) fn detect<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    lent: &Lent<T>,
    n: usize,
    w: &[T],
    p: &Colliders<'_, T, D>,
    out: &Shared<Contact<T>>,
    budget: usize,
    tasks: usize,
    found: &mut [usize; MAX_JOBS],
) -> Option<usize> {
    // Each task's contacts through `hit`, a window at a time.
    let each = |i: usize, hit: &mut dyn FnMut(usize, usize)| -> bool {
        let (mut x, mut q) = ([[T::ZERO; D]; WINDOW], [[T::ZERO; D]; WINDOW]);
        let window = |first: usize, xc: [&mut [T]; 3], qc: [&mut [T]; 3]| {
            let len = xc.first().map_or(0, |c| c.len());
            let (Some((xs, qs)), Some(ws)) = (
                take(&mut x, &mut q, len),
                w.get(first..first.saturating_add(len)),
            ) else {
                return false;
            };
            load(shared(&xc), xs);
            load(shared(&qc), qs);
            each_contact(xs, ws, qs, first, p, &mut *hit);
            true
        };
        // SAFETY: the ranges of one phase's tasks are disjoint, and the
        // arrays are used by nothing else until it ends.
        unsafe { windows(lent, split_range(n, i, tasks), window) }
    };
    if tasks <= 1 {
        // One task: written as found.
        // SAFETY: the only range of the contacts, used by nothing else
        // until the call ends.
        let slots = unsafe { out.range(0, budget) }?;
        let (mut stored, mut over, mut bad) = (0usize, false, false);
        let done = each(0, &mut |particle, collider| match (
            u32::try_from(particle),
            u32::try_from(collider),
        ) {
            (Ok(particle), Ok(collider)) => match slots.get_mut(stored) {
                Some(slot) => {
                    *slot = Contact::new(particle, collider);
                    stored = stored.saturating_add(1);
                }
                None => over = true,
            },
            _ => bad = true,
        });
        if !done || over || bad {
            return None;
        }
        if let Some(f) = found.first_mut() {
            *f = stored;
        }
        return Some(stored);
    }
    // Pass 1: each task counts its contacts.
    let mut counted = true;
    run_phase(
        jobs,
        tasks,
        &|i| {
            let mut k = 0usize;
            each(i, &mut |_, _| k = k.saturating_add(1)).then_some(k)
        },
        |i, k| match (k, found.get_mut(i)) {
            (Some(k), Some(slot)) => *slot = k,
            _ => counted = false,
        },
    )
    .ok()?;
    let total = found
        .iter()
        .take(tasks)
        .try_fold(0usize, |t, f| t.checked_add(*f))?;
    if !counted || total > budget {
        return None;
    }
    // Pass 2: each task writes its contacts after those of the tasks
    // before it.
    let at = offsets(found);
    let found = *found;
    let mut ok = true;
    run_phase(
        jobs,
        tasks,
        &|i| {
            // SAFETY: the tasks' contact ranges are disjoint (prefix sums),
            // and the contacts are used by nothing else until the phase
            // ends.
            let Some(slots) = (unsafe { task_contacts(out, (&at, &found), i) }) else {
                return false;
            };
            let k = slots.len();
            let (mut stored, mut bad) = (0usize, false);
            let done = each(i, &mut |particle, collider| match (
                u32::try_from(particle),
                u32::try_from(collider),
                slots.get_mut(stored),
            ) {
                (Ok(particle), Ok(collider), Some(slot)) => {
                    *slot = Contact::new(particle, collider);
                    stored = stored.saturating_add(1);
                }
                _ => bad = true,
            });
            done && !bad && stored == k
        },
        |_, r| ok &= r,
    )
    .ok()?;
    ok.then_some(total)
}

/// One sweep of the contacts (`contact::sweep_colliders` a window at a
/// time, its particles' starts from the scratch's second area), as the
/// tasks of [`detect`]. `None` when a contact failed (the AoS frame then
/// names it) or the job system skipped a task.
#[allow(clippy::too_many_arguments)]
pub(super) fn sweep<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    lent: &Lent<T>,
    n: usize,
    w: &[T],
    p: &Colliders<'_, T, D>,
    out: &Shared<Contact<T>>,
    tasks: usize,
    found: &[usize; MAX_JOBS],
    h2: T,
) -> Option<()> {
    let at = offsets(found);
    let mut ok = true;
    run_phase(
        jobs,
        tasks,
        &|i| {
            // SAFETY: the tasks' contact ranges are disjoint (prefix sums
            // of detection's counts), as are their particle ranges
            // (`windows`); nothing else uses them until the phase ends.
            let Some(mut items) = (unsafe { task_contacts(out, (&at, found), i) }) else {
                return false;
            };
            let (mut x, mut q) = ([[T::ZERO; D]; WINDOW], [[T::ZERO; D]; WINDOW]);
            let window = |first: usize, xc: [&mut [T]; 3], qc: [&mut [T]; 3]| {
                let len = xc.first().map_or(0, |c| c.len());
                let end = first.saturating_add(len);
                // The window's contacts lead the rest (sorted by particle).
                let mine = items.iter().take_while(|c| below(c, end)).count();
                let Some((here, rest)) = core::mem::take(&mut items).split_at_mut_checked(mine)
                else {
                    return false;
                };
                items = rest;
                if here.is_empty() {
                    return true;
                }
                let (Some((xs, qs)), Some(ws), Some(base)) = (
                    take(&mut x, &mut q, len),
                    w.get(first..end),
                    u32::try_from(first).ok(),
                ) else {
                    return false;
                };
                load(shared(&xc), xs);
                load(shared(&qc), qs);
                let local = Colliders {
                    previous: &*qs,
                    ..*p
                };
                if sweep_colliders(xs, ws, here, &local, h2, base).is_err() {
                    return false;
                }
                store(xs, xc);
                true
            };
            // SAFETY: the ranges of one phase's tasks are disjoint, and
            // the arrays are used by nothing else until it ends.
            unsafe { windows(lent, split_range(n, i, tasks), window) }
        },
        |_, r| ok &= r,
    )
    .ok()?;
    ok.then_some(())
}

/// The velocity update of the substep (`order::velocity_range`: moving
/// particles `v ← (x − x_prev)/h`, damped, static ones keep theirs), the
/// dynamic friction of each particle's contacts in contact order (the
/// colored velocity pass's), and the final finite check, a window at a
/// time, as the tasks of [`detect`]; the velocities replace the starts in
/// the scratch's second area. `None` when a velocity or position is not
/// finite (the AoS frame then names it) or the job system skipped a task.
#[allow(clippy::too_many_arguments)]
pub(super) fn velocities<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    lent: &Lent<T>,
    n: usize,
    p: &Colliders<'_, T, D>,
    out: &Shared<Contact<T>>,
    tasks: usize,
    found: &[usize; MAX_JOBS],
    u: (&[T], T, Option<T>, T),
) -> Option<()> {
    let (w, h, keep, mu) = u;
    let at = offsets(found);
    let mut ok = true;
    run_phase(
        jobs,
        tasks,
        &|i| {
            // SAFETY: as for `sweep` (friction only reads the contacts).
            let Some(items) = (unsafe { task_contacts(out, (&at, found), i) }) else {
                return false;
            };
            let mut items: &[Contact<T>] = items;
            let mut x = [[T::ZERO; D]; WINDOW];
            let (mut q, mut v) = ([[T::ZERO; D]; WINDOW], [[T::ZERO; D]; WINDOW]);
            let window = |first: usize, xc: [&mut [T]; 3], qc: [&mut [T]; 3]| {
                let len = xc.first().map_or(0, |c| c.len());
                let end = first.saturating_add(len);
                let (Some((xs, qs)), Some(vs), Some(ws)) = (
                    take(&mut x, &mut q, len),
                    v.get_mut(..len),
                    w.get(first..end),
                ) else {
                    return false;
                };
                load(shared(&xc), xs);
                // The second area: a moving particle's start, a static
                // one's velocity (which it keeps).
                load(shared(&qc), qs);
                for (v, q) in vs.iter_mut().zip(qs.iter()) {
                    *v = *q;
                }
                if velocity_range(vs, xs, qs, ws, h, keep).is_some() {
                    return false;
                }
                let mine = items.iter().take_while(|c| below(c, end)).count();
                let Some((here, rest)) = items.split_at_checked(mine) else {
                    return false;
                };
                items = rest;
                let update = Update {
                    x: xs,
                    previous: qs,
                    w: ws,
                    h,
                    keep,
                    contacts: here,
                    colliders: p,
                    mu,
                    last: true,
                };
                friction(vs, xs, ws, here, first, qs, &update);
                if first_non_finite(vs).is_some() {
                    return false;
                }
                store(vs, qc);
                true
            };
            // SAFETY: the ranges of one phase's tasks are disjoint, and
            // the arrays are used by nothing else until it ends.
            unsafe { windows(lent, split_range(n, i, tasks), window) }
        },
        |_, r| ok &= r,
    )
    .ok()?;
    ok.then_some(())
}
