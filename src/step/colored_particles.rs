//! The colored step's fused per-particle pass at a substep's end: the
//! velocity update, the collider contacts' dynamic friction and the
//! final finite check, one task per particle range.
//!
//! Each particle's velocity sees the same operations in the same order
//! as in the sequential frame (`v ← (x − x_prev)/h`, damping, then the
//! friction of its contacts in contact order): detection stores the
//! contacts sorted by particle, so the contacts of a particle range are
//! one run of them ([`slice::partition_point`]), and a contact only
//! touches its own particle. The bits are those of the sequential passes.

use super::colliders::dynamic_friction;
use super::colored::{velocity_range, PARTICLES_PER_TASK};
use super::jobs::{run_phase, split_range, task_count, Shared};
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
            if let Some(k) = velocity_range(v, x, prev, w, u.h, u.keep) {
                return (Some(a.saturating_add(k)), None);
            }
            let (ca, cb) = (
                u.contacts.partition_point(|c| below(c, a)),
                u.contacts.partition_point(|c| below(c, b)),
            );
            let local = Colliders {
                previous: prev,
                ..*u.colliders
            };
            // The contacts name particles from `a`: shifted copies, a
            // chunk at a time (friction only reads them; one naming a
            // particle outside the range, never, is skipped).
            let shift = u32::try_from(a).unwrap_or(0);
            let mut chunk = [Contact::default(); 64];
            for part in u.contacts.get(ca..cb).unwrap_or(&[]).chunks(64) {
                for (c, item) in chunk.iter_mut().zip(part) {
                    *c = *item;
                    c.particle = c.particle.wrapping_sub(shift);
                }
                let used = chunk.get(..part.len()).unwrap_or(&[]);
                dynamic_friction(v, x, w, used, &local, u.h, u.mu);
            }
            let bad = u.last.then(|| first_non_finite(v)).flatten();
            (None, bad.map(|k| a.saturating_add(k)))
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
