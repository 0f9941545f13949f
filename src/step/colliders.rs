//! Colliders in the frame loop: their validation, contact detection after
//! prediction, and dynamic friction in the velocity update. The contact
//! constraint itself (C, ∇C, λ ≥ 0, static friction) is
//! [`crate::constraint::contact`].

use crate::constraint::contact::{Colliders, Contact, Plane, Sphere};
use crate::constraint::engine_contact::slow_tangential;
use crate::constraint::moving::{box_valid, capsule_valid, near, separating, Capsule, OrientedBox};
use crate::constraint::{length_squared, unit_any};
use crate::real::{finite_non_negative, Real};
use crate::StepError;

/// Checks every collider: planes with a finite normal long enough to
/// normalise and a finite offset, spheres with a finite centre and a finite
/// radius ≥ 0, capsules and boxes by their field rules. Colliders are
/// numbered planes first, then spheres, capsules and boxes.
pub(crate) fn validate_colliders<T: Real, const D: usize>(
    planes: &[Plane<T, D>],
    spheres: &[Sphere<T, D>],
    capsules: &[Capsule<T, D>],
    boxes: &[OrientedBox<T, D>],
) -> Result<(), StepError> {
    for (collider, p) in planes.iter().enumerate() {
        if unit_any(&p.normal).is_none() || !p.offset.is_finite() {
            return Err(StepError::InvalidCollider { collider });
        }
    }
    let mut at = planes.len();
    for s in spheres {
        if !s.center.iter().all(|v| v.is_finite()) || !finite_non_negative(s.radius) {
            return Err(StepError::InvalidCollider { collider: at });
        }
        at = at.saturating_add(1);
    }
    for c in capsules {
        if !capsule_valid(c) {
            return Err(StepError::InvalidCollider { collider: at });
        }
        at = at.saturating_add(1);
    }
    for b in boxes {
        if !box_valid(b) {
            return Err(StepError::InvalidCollider { collider: at });
        }
        at = at.saturating_add(1);
    }
    Ok(())
}

/// Finds the contacts of the predicted positions in detection order
/// (particles by index, each against the planes, then the spheres, the
/// capsules and the boxes, in their order), storing the first
/// `contacts.len()`; returns how many were stored and how many more were
/// found (dropped). A moving collider's contact is speculative: its
/// separating plane within the particle's path length relative to the
/// collider plus the collider's motion at it, `C < |x − x̂| + |x̂ − x_prev|`,
/// for a particle whose path passes near it
/// ([`crate::constraint::moving`]); while `C > 0` it pushes nothing (λ
/// stays 0), and a particle that links drag towards the collider during
/// the substep is held.
pub(crate) fn detect<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    p: &Colliders<'_, T, D>,
    contacts: &mut [Contact<T>],
) -> Result<(usize, usize), StepError> {
    let (mut count, mut dropped, mut unnamed) = (0usize, 0usize, false);
    each_contact(
        positions,
        inverse_masses,
        p.previous,
        0,
        p,
        |particle, collider| {
            let (Ok(particle), Ok(collider)) = (u32::try_from(particle), u32::try_from(collider))
            else {
                unnamed = true;
                return;
            };
            match contacts.get_mut(count) {
                Some(slot) => {
                    *slot = Contact::new(particle, collider);
                    count = count.saturating_add(1);
                }
                None => dropped = dropped.saturating_add(1),
            }
        },
    );
    if unnamed {
        return Err(StepError::ContactCapacity);
    }
    Ok((count, dropped))
}

/// The detection of [`detect`] over the particles `first ..` of the
/// slices (`positions`, `inverse_masses`, `previous` of one range):
/// `hit(particle, collider)` for every contact, in detection order, with
/// the particle's global index.
#[inline]
pub(crate) fn each_contact<T: Real, const D: usize>(
    positions: &[[T; D]],
    inverse_masses: &[T],
    previous: &[[T; D]],
    first: usize,
    p: &Colliders<'_, T, D>,
    mut hit: impl FnMut(usize, usize),
) {
    let fixed = p.fixed();
    let colliders = fixed.saturating_add(p.moving.len());
    for (k, ((x, w), prev)) in positions
        .iter()
        .zip(inverse_masses)
        .zip(previous)
        .enumerate()
    {
        if *w == T::ZERO {
            continue;
        }
        for collider in 0..colliders {
            let touches = if collider < fixed {
                p.gap(x, collider).is_some_and(|(c, _)| c < T::ZERO)
            } else {
                match p.surface(x, prev, collider) {
                    Some((c, _, Some(carried), _)) => {
                        // Speculative by the particle's path relative to
                        // the collider and the collider's own motion there:
                        // a particle its neighbours drag in during the
                        // substep has its contact already.
                        let travel = length_squared(x, &carried).sqrt()
                            + length_squared(&carried, prev).sqrt();
                        c < travel
                            && near(
                                &p.moving,
                                collider.saturating_sub(fixed),
                                &carried,
                                x,
                                p.radius + travel,
                            )
                    }
                    _ => false,
                }
            };
            if touches {
                hit(first.saturating_add(k), collider);
            }
        }
    }
}

/// Dynamic friction: each contact with λ > 0 slows its particle's tangential
/// velocity (relative to a moving collider: to the velocity that carried
/// the particle's start, `(x̂ − x_prev)/h`) by `min(h μ_k w λ/h², |v_t|)`,
/// with `mu` for planes and spheres and a moving collider's own μ_k.
pub(crate) fn dynamic_friction<T: Real, const D: usize>(
    velocities: &mut [[T; D]],
    positions: &[[T; D]],
    inverse_masses: &[T],
    contacts: &[Contact<T>],
    p: &Colliders<'_, T, D>,
    h: T,
    mu: T,
) {
    let fixed = p.fixed();
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
        if collider < fixed && mu <= T::ZERO {
            continue;
        }
        let (Some(x), Some(prev), Some(&w), Some(v)) = (
            positions.get(k),
            p.previous.get(k),
            inverse_masses.get(k),
            velocities.get_mut(k),
        ) else {
            continue;
        };
        let Some((_, n, carried, _)) = p.surface(x, prev, collider) else {
            continue;
        };
        let mut surface = [T::ZERO; D];
        let mut mu = mu;
        if let Some(carried) = carried {
            let Some(s) = separating(&p.moving, collider.saturating_sub(fixed), prev) else {
                continue;
            };
            mu = s.dynamic_friction;
            for ((u, c), q) in surface.iter_mut().zip(&carried).zip(prev) {
                *u = (*c - *q) / h;
            }
        }
        if mu <= T::ZERO {
            continue;
        }
        // h · μ_k · w · f_n with f_n = λ / h²: a speed (m/s).
        slow_tangential(v, &surface, &n, mu * w * contact.lambda / h);
    }
}
