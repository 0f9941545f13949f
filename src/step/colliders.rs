//! Colliders in the frame loop: their validation, contact detection after
//! prediction, and dynamic friction in the velocity update. The contact
//! constraint itself (C, ∇C, λ ≥ 0, static friction) is
//! [`crate::constraint::contact`].

use crate::constraint::contact::{gap, Colliders, Contact, Plane, Sphere};
use crate::constraint::{dot, unit_any};
use crate::real::{finite_non_negative, Real};
use crate::StepError;

/// Checks every collider: planes with a finite normal long enough to
/// normalise and a finite offset, spheres with a finite centre and a finite
/// radius ≥ 0. Colliders are numbered planes first, then spheres.
pub(crate) fn validate_colliders<T: Real, const D: usize>(
    planes: &[Plane<T, D>],
    spheres: &[Sphere<T, D>],
) -> Result<(), StepError> {
    for (collider, p) in planes.iter().enumerate() {
        if unit_any(&p.normal).is_none() || !p.offset.is_finite() {
            return Err(StepError::InvalidCollider { collider });
        }
    }
    for (k, s) in spheres.iter().enumerate() {
        if !s.center.iter().all(|v| v.is_finite()) || !finite_non_negative(s.radius) {
            return Err(StepError::InvalidCollider {
                collider: planes.len().saturating_add(k),
            });
        }
    }
    Ok(())
}

/// Finds the contacts of the predicted positions in detection order
/// (particles by index, each against the planes, then the spheres, in
/// their order), storing the first `contacts.len()`; returns how many
/// were stored and how many more were found (dropped).
pub(crate) fn detect<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    planes: &[Plane<T, D>],
    spheres: &[Sphere<T, D>],
    radius: T,
    contacts: &mut [Contact<T>],
) -> Result<(usize, usize), StepError> {
    let colliders = planes.len().saturating_add(spheres.len());
    let (mut count, mut dropped) = (0usize, 0usize);
    for (particle, (x, w)) in positions.iter().zip(inverse_masses).enumerate() {
        if *w == T::ZERO {
            continue;
        }
        for collider in 0..colliders {
            let Some((c, _)) = gap(x, collider, planes, spheres, radius) else {
                continue;
            };
            if c < T::ZERO {
                let (Ok(particle), Ok(collider)) =
                    (u32::try_from(particle), u32::try_from(collider))
                else {
                    return Err(StepError::ContactCapacity);
                };
                match contacts.get_mut(count) {
                    Some(slot) => {
                        *slot = Contact::new(particle, collider);
                        count = count.saturating_add(1);
                    }
                    None => dropped = dropped.saturating_add(1),
                }
            }
        }
    }
    Ok((count, dropped))
}

/// Dynamic friction: each contact with λ > 0 slows its particle's tangential
/// velocity by `min(h μ_k w λ/h², |v_t|)`.
pub(crate) fn dynamic_friction<T: Real, const D: usize>(
    velocities: &mut [[T; D]],
    positions: &[[T; D]],
    inverse_masses: &[T],
    contacts: &[Contact<T>],
    p: &Colliders<'_, T, D>,
    h: T,
    mu: T,
) {
    for contact in contacts {
        if contact.lambda <= T::ZERO {
            continue;
        }
        let (Ok(k), Ok(collider)) = (
            usize::try_from(contact.particle),
            usize::try_from(contact.collider),
        ) else {
            continue;
        };
        let (Some(x), Some(&w), Some(v)) = (
            positions.get(k),
            inverse_masses.get(k),
            velocities.get_mut(k),
        ) else {
            continue;
        };
        let Some((_, n)) = gap(x, collider, p.planes, p.spheres, p.radius) else {
            continue;
        };
        let along = dot(v, &n);
        let mut tangential = *v;
        for (t, ni) in tangential.iter_mut().zip(&n) {
            *t = *t - along * *ni;
        }
        let speed2 = dot(&tangential, &tangential);
        if speed2 < T::MIN_POSITIVE {
            continue;
        }
        let speed = speed2.sqrt();
        // h · μ_k · w · f_n with f_n = λ / h²: a speed (m/s).
        let drop = mu * w * contact.lambda / h;
        let scale = if drop >= speed { T::ONE } else { drop / speed };
        for (vi, t) in v.iter_mut().zip(&tangential) {
            *vi = *vi - scale * *t;
        }
    }
}
