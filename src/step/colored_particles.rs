//! The colored step's per-particle passes, fused where the bits allow:
//! at a substep's start the prediction with the collider detection
//! (without self-collision), at its end the velocity update, the
//! collider contacts' dynamic friction and the final finite check, one
//! task per particle range.
//!
//! Each particle's velocity sees the same operations in the same order
//! as in the sequential frame (`v ← (x − x_prev)/h`, damping, then the
//! friction of its contacts in contact order): detection stores the
//! contacts sorted by particle, so the contacts of a particle range are
//! one run of them ([`slice::partition_point`]), and a contact only
//! touches its own particle. The bits are those of the sequential passes.

use super::colliders::{detect as detect_all, dynamic_friction, each_contact};
use super::colored::PARTICLES_PER_TASK;
use super::jobs::{run_phase, split_range, task_count, Shared, MAX_JOBS};
use super::order::{predict_range, velocity_range};
use super::{Jobs, StepError};
use crate::constraint::contact::{Colliders, Contact};
use crate::real::Real;
use crate::solver::first_non_finite;

/// What the velocity pass of a substep reads.
pub(crate) struct Update<'u, 'c, T, const D: usize> {
    /// Positions at the substep's end (m).
    pub(crate) x: &'u [[T; D]],
    /// Positions at its start (m).
    pub(crate) previous: &'u [[T; D]],
    /// Inverse masses (1/kg).
    pub(crate) w: &'u [T],
    /// The substep h (s).
    pub(crate) h: T,
    /// The damping factor `max(0, 1 − c h)`, when damped.
    pub(crate) keep: Option<T>,
    /// The collider contacts of the substep, in detection order.
    pub(crate) contacts: &'u [Contact<T>],
    /// The colliders they touch.
    pub(crate) colliders: &'u Colliders<'c, T, D>,
    /// Dynamic friction coefficient μ_k of planes and spheres.
    pub(crate) mu: T,
    /// Nothing changes a velocity after this pass in the substep (no
    /// engine contacts, no particle pairs): the pass makes the final
    /// finite check.
    pub(crate) last: bool,
}

/// Whether `c` names a particle below `a`.
fn below<T>(c: &Contact<T>, a: usize) -> bool {
    usize::try_from(c.particle).is_ok_and(|p| p < a)
}

/// The velocity pass as tasks over particle ranges (see the module
/// documentation): the errors of the sequential passes, the velocity
/// update's first (lowest particle) before any after friction.
pub(super) fn velocities<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    v: &mut [[T; D]],
    u: &Update<'_, '_, T, D>,
) -> Result<bool, StepError> {
    let n = v.len();
    let count = task_count(jobs, n.div_ceil(PARTICLES_PER_TASK));
    let vs = Shared::new(v);
    let (mut updated, mut checked) = (None, None);
    run_phase(
        jobs,
        count,
        &|i| {
            let (a, b) = split_range(n, i, count);
            // SAFETY: the ranges of one phase are disjoint, and `v` is not
            // used until the phase ends.
            let v = unsafe { vs.range(a, b) };
            let (Some(v), Some(x), Some(prev), Some(w)) =
                (v, u.x.get(a..b), u.previous.get(a..b), u.w.get(a..b))
            else {
                return (None, None);
            };
            // A chunk of particles at a time (still in cache for their
            // friction and check): its velocities, then its contacts'
            // friction, then its final check. A velocity failure is
            // reported before any check's (the sequential passes' order);
            // the velocities of the chunks before it are thrown away with
            // the frame.
            let mut bad = None;
            let mut contacts = u
                .contacts
                .get(u.contacts.partition_point(|c| below(c, a))..);
            let mut start = 0usize;
            for ((v, x), (prev, w)) in v
                .chunks_mut(CHUNK)
                .zip(x.chunks(CHUNK))
                .zip(prev.chunks(CHUNK).zip(w.chunks(CHUNK)))
            {
                if let Some(k) = velocity_range(v, x, prev, w, u.h, u.keep) {
                    return (Some(a.saturating_add(start).saturating_add(k)), None);
                }
                let first = a.saturating_add(start);
                let end = first.saturating_add(v.len());
                let all = contacts.unwrap_or(&[]);
                // The chunk's contacts lead the rest (sorted by particle).
                let k = all.iter().take_while(|c| below(c, end)).count();
                let (mine, rest) = (all.get(..k).unwrap_or(&[]), all.get(k..));
                contacts = rest;
                friction(v, x, w, mine, first, prev, u);
                if bad.is_none() && u.last {
                    bad = first_non_finite(v).map(|k| first.saturating_add(k));
                }
                start = start.saturating_add(v.len());
            }
            (None, bad)
        },
        // Tasks come back in range order: the first failure is the lowest
        // particle, as the sequential loops report it.
        |_, (up, ch)| {
            updated = updated.or(up);
            checked = checked.or(ch);
        },
    )?;
    match updated.or(checked) {
        Some(particle) => Err(StepError::InvalidResult { particle }),
        None => Ok(u.last),
    }
}

/// The dynamic friction of `contacts` (those of particles
/// `first .. first + v.len()`) on the velocities `v` of those particles
/// (`x`, `w`, `prev` theirs): shifted copies name them from 0, 64 at a
/// time (friction only reads them; one naming a particle outside the
/// range, never, is skipped).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(super) fn friction<T: Real, const D: usize>(
    v: &mut [[T; D]],
    x: &[[T; D]],
    w: &[T],
    contacts: &[Contact<T>],
    first: usize,
    prev: &[[T; D]],
    u: &Update<'_, '_, T, D>,
) {
    let local = Colliders {
        previous: prev,
        ..*u.colliders
    };
    let shift = u32::try_from(first).unwrap_or(0);
    let mut chunk = [Contact::default(); 64];
    for part in contacts.chunks(64) {
        for (c, item) in chunk.iter_mut().zip(part) {
            *c = *item;
            c.particle = c.particle.wrapping_sub(shift);
        }
        let used = chunk.get(..part.len()).unwrap_or(&[]);
        dynamic_friction(v, x, w, used, &local, u.h, u.mu);
    }
}

/// The collider contacts of the predicted positions in detection order
/// ([`detect_all`]) as tasks over particle ranges: each range counts its
/// contacts (unless `counted` gives the counts), then writes them after
/// those of the ranges before it.
pub(super) fn detect<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    x: &[[T; D]],
    w: &[T],
    p: &Colliders<'_, T, D>,
    contacts: &mut [Contact<T>],
    counted: Option<[usize; MAX_JOBS]>,
) -> Result<(usize, usize), StepError> {
    let n = x.len();
    let count = task_count(jobs, n.div_ceil(PARTICLES_PER_TASK));
    if count <= 1 {
        return detect_all(x, w, p, contacts);
    }
    let range = |i: usize| {
        let (a, b) = split_range(n, i, count);
        (a, x.get(a..b), w.get(a..b), p.previous.get(a..b))
    };
    // Pass 1: each range counts its contacts.
    let mut found = [0usize; MAX_JOBS];
    if let Some(counted) = counted {
        found = counted;
    } else {
        run_phase(
            jobs,
            count,
            &|i| match range(i) {
                (a, Some(x), Some(w), Some(prev)) => {
                    let mut k = 0usize;
                    each_contact(x, w, prev, a, p, |_, _| k = k.saturating_add(1));
                    k
                }
                _ => 0,
            },
            |i, k| {
                if let Some(slot) = found.get_mut(i) {
                    *slot = k;
                }
            },
        )?;
    }
    // Pass 2: each range writes its contacts after those of the ranges
    // before it; those beyond the capacity are dropped, as in
    // detection order.
    let mut offsets = [0usize; MAX_JOBS];
    let mut total = 0usize;
    for (o, k) in offsets.iter_mut().zip(&found) {
        *o = total;
        total = total.saturating_add(*k);
    }
    let capacity = contacts.len();
    let cs = Shared::new(contacts);
    let mut unnamed = false;
    run_phase(
        jobs,
        count,
        &|i| {
            let (Some(&o), Some(&k)) = (offsets.get(i), found.get(i)) else {
                return false;
            };
            let (lo, hi) = (o.min(capacity), o.saturating_add(k).min(capacity));
            // SAFETY: the tasks' ranges `o .. o + k` are disjoint
            // (prefix sums), and `contacts` is not used until the phase
            // ends.
            let Some(out) = (unsafe { cs.range(lo, hi) }) else {
                return false;
            };
            let (a, Some(x), Some(w), Some(prev)) = range(i) else {
                return false;
            };
            let (mut slots, mut bad) = (out.iter_mut(), false);
            each_contact(x, w, prev, a, p, |particle, collider| {
                match (u32::try_from(particle), u32::try_from(collider)) {
                    (Ok(particle), Ok(collider)) => {
                        if let Some(slot) = slots.next() {
                            *slot = Contact::new(particle, collider);
                        }
                    }
                    _ => bad = true,
                }
            });
            bad
        },
        |_, bad| unnamed |= bad,
    )?;
    if unnamed {
        return Err(StepError::ContactCapacity { needed: usize::MAX });
    }
    let stored = total.min(capacity);
    Ok((stored, total.saturating_sub(stored)))
}

/// Particles predicted, then searched for contacts, at a time: the chunk
/// is still in cache for the search.
const CHUNK: usize = 256;

/// The particles' slices of one range, [`CHUNK`] particles at a time.
#[allow(clippy::type_complexity)]
fn chunks<'r, T, const D: usize>(
    x: &'r mut [[T; D]],
    prev: &'r mut [[T; D]],
    v: &'r [[T; D]],
    w: &'r [T],
) -> impl Iterator<
    Item = (
        (&'r mut [[T; D]], &'r mut [[T; D]]),
        (&'r [[T; D]], &'r [T]),
    ),
> {
    let parts = x.chunks_mut(CHUNK).zip(prev.chunks_mut(CHUNK));
    parts.zip(v.chunks(CHUNK).zip(w.chunks(CHUNK)))
}

/// The prediction and the detection of a substep without self-collision
/// as one pass over the particles, a chunk at a time (per particle the
/// same operations as the two passes, so the same bits and contacts): on
/// one task the contacts are written as found; on several, each range
/// counts its contacts while predicting, then [`detect`] writes them.
#[allow(clippy::too_many_arguments)]
pub(super) fn predict_detect<T: Real, const D: usize>(
    jobs: &dyn Jobs,
    x: &mut [[T; D]],
    previous: &mut [[T; D]],
    v: &[[T; D]],
    w: &[T],
    h: T,
    g: &[T; D],
    p: &Colliders<'_, T, D>,
    contacts: &mut [Contact<T>],
) -> Result<(usize, usize), StepError> {
    let n = x.len();
    let count = task_count(jobs, n.div_ceil(PARTICLES_PER_TASK));
    if count <= 1 {
        let (mut stored, mut dropped, mut unnamed) = (0usize, 0usize, false);
        for (k, ((x, prev), (v, w))) in chunks(x, previous, v, w).enumerate() {
            predict_range(x, prev, v, w, h, g);
            let first = k.saturating_mul(CHUNK);
            each_contact(x, w, prev, first, p, |particle, collider| {
                match (u32::try_from(particle), u32::try_from(collider)) {
                    (Ok(particle), Ok(collider)) => match contacts.get_mut(stored) {
                        Some(slot) => {
                            *slot = Contact::new(particle, collider);
                            stored = stored.saturating_add(1);
                        }
                        None => dropped = dropped.saturating_add(1),
                    },
                    _ => unnamed = true,
                }
            });
        }
        if unnamed {
            return Err(StepError::ContactCapacity { needed: usize::MAX });
        }
        return Ok((stored, dropped));
    }
    let (xs, ps) = (Shared::new(x), Shared::new(previous));
    let mut found = [0usize; MAX_JOBS];
    run_phase(
        jobs,
        count,
        &|i| {
            let (a, b) = split_range(n, i, count);
            // SAFETY: the ranges of one phase are disjoint, and `x` and
            // `previous` are not used until the phase ends.
            let (x, prev) = unsafe { (xs.range(a, b), ps.range(a, b)) };
            let (Some(x), Some(prev), Some(v), Some(w)) = (x, prev, v.get(a..b), w.get(a..b))
            else {
                return 0;
            };
            let mut k = 0usize;
            for ((x, prev), (v, w)) in chunks(x, prev, v, w) {
                predict_range(x, prev, v, w, h, g);
                each_contact(x, w, prev, 0, p, |_, _| k = k.saturating_add(1));
            }
            k
        },
        |i, k| {
            if let Some(slot) = found.get_mut(i) {
                *slot = k;
            }
        },
    )?;
    let p = Colliders {
        previous: &*previous,
        ..*p
    };
    detect(jobs, x, w, &p, contacts, Some(found))
}
