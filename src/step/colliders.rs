//! Colliders in the frame loop: their validation, contact detection after
//! prediction, and dynamic friction in the velocity update. The contact
//! constraint itself (C, ∇C, λ ≥ 0, static friction) is
//! [`crate::constraint::contact`].

use crate::constraint::contact::{Colliders, Contact, Plane, Sphere};
use crate::constraint::engine_contact::{slow_tangential, EngineContact};
use crate::constraint::field::Fields;
use crate::constraint::moving::{
    box_valid, capsule_valid, far, near, separating, Capsule, Moving, OrientedBox, Prepared,
};
use crate::math::{length_squared, unit_any};
use crate::real::{finite_non_negative, Real};
use crate::step::StepConfig;
use crate::StepError;

/// Checks every collider: planes with a finite normal long enough to
/// normalise and a finite offset, spheres with a finite centre and a finite
/// radius ≥ 0, capsules, boxes, heightfields and signed distance fields
/// by their field rules (a field's samples within `samples` and finite),
/// then the engine contacts ([`EngineContact`]'s rules, each particle
/// below `particles`). Colliders are numbered planes first, then spheres,
/// capsules, boxes, heightfields, signed distance fields and engine
/// contacts.
pub(crate) fn validate_colliders<T: Real, const D: usize>(
    (planes, spheres): (&[Plane<T, D>], &[Sphere<T, D>]),
    (capsules, boxes): (&[Capsule<T, D>], &[OrientedBox<T, D>]),
    fields: &Fields<'_, T, D>,
    (engine, particles): (&[EngineContact<T, D>], usize),
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
    if let Some(k) = fields.first_invalid() {
        return Err(StepError::InvalidCollider {
            collider: at.saturating_add(k),
        });
    }
    at = at.saturating_add(fields.len());
    match engine.iter().position(|c| !c.valid(particles)) {
        Some(k) => Err(StepError::InvalidCollider {
            collider: at.saturating_add(k),
        }),
        None => Ok(()),
    }
}

/// Finds the contacts of the predicted positions in detection order
/// (particles by index, each against the planes, then the spheres, the
/// capsules and the boxes, in their order), storing the first
/// `contacts.len()`; returns how many were stored and how many more were
/// found (dropped). Every contact is speculative ([`within_margin`]): a
/// particle gets one when its predicted position is within the contact
/// margin of the collider, whatever its velocity, and while `C > 0` the
/// contact pushes nothing (λ stays 0); a particle that links, groups or
/// pairs push towards the collider during the substep is then held.
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
        return Err(StepError::ContactCapacity { needed: usize::MAX });
    }
    Ok((count, dropped))
}

/// The colliders of substep `s` (from 0) of length `h` (s): the static
/// ones, the moving ones at the substep's end `(s + 1) h` with their
/// poses prepared into `poses` ([`Moving::prepare`]), the particle radius,
/// `α̃ = α/h²` and μ_s of `config`; `previous` empty (set after the
/// prediction). The one template of both frames.
#[inline(always)]
pub(crate) fn substep_colliders<'c, T: Real, const D: usize>(
    (planes, spheres): (&'c [Plane<T, D>], &'c [Sphere<T, D>]),
    (capsules, boxes, fields): (
        &'c [Capsule<T, D>],
        &'c [OrientedBox<T, D>],
        Fields<'c, T, D>,
    ),
    (s, h): (u32, T),
    config: &StepConfig<T, D>,
    poses: &'c mut [Prepared<T, D>],
) -> Colliders<'c, T, D> {
    let time = h * T::from_f64(f64::from(s.saturating_add(1)));
    let moving = Moving::new(capsules, boxes, fields, time, h);
    Colliders {
        planes,
        spheres,
        previous: &[],
        radius: config.particle_radius,
        alpha: config.contact_compliance / (h * h),
        static_friction: config.static_friction,
        moving: Moving {
            prepared: moving.prepare(poses),
            ..moving
        },
        units: [[T::ZERO; D]; 4],
        cached: 0,
    }
    .with_units()
}

/// Whether detection culls the particles far from a moving collider
/// before its separating plane (`moving::far`): on hosts; bare metal keeps
/// the shorter loop (code size; the same contacts).
const CULL: bool = !cfg!(target_os = "none");

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
        // |x − x_prev|², computed once a gap needs it.
        let mut path2 = None;
        for collider in 0..colliders {
            let touches = if collider < fixed {
                p.gap(x, collider).is_some_and(|(c, _)| {
                    within_margin(c, p.radius, || {
                        *path2.get_or_insert_with(|| length_squared(x, prev))
                    })
                })
            } else if CULL && far(&p.moving, collider.saturating_sub(fixed), x, prev, p.radius) {
                false
            } else {
                match p.surface(x, prev, collider) {
                    Some((c, _, Some(carried), _)) => {
                        // The path relative to the collider plus the
                        // collider's own motion there.
                        let travel = length_squared(x, &carried).sqrt()
                            + length_squared(&carried, prev).sqrt();
                        let margin = p.radius + travel + travel;
                        c <= margin
                            && near(
                                &p.moving,
                                collider.saturating_sub(fixed),
                                &carried,
                                x,
                                p.radius + margin,
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

/// Whether gap `c` (m) of a predicted position is within the contact
/// margin `m = r + 2·d` of its collider, `r` the particle radius and `d`
/// the particle's path in the substep (`d² = path2()`, m², asked for only
/// when `c > r`): `c ≤ m`, tested as `c ≤ r` or `(c − r)² ≤ 4 d²` (no
/// square root). A moving collider's contact uses the same margin with
/// `d` its path relative to the collider plus the collider's motion there.
///
/// Why `r + 2d`: a particle resting within `r` of a surface has a contact
/// whatever its velocity (Jolt's soft bodies and Müller et al. 2020
/// keep speculative contacts the same way), and one moving `d` in its
/// prediction can be dragged back about as far by neighbours moving as
/// fast as it does (the paper's safety factor `k = 2`). A contact found
/// outside the margin's reach needs a push longer than the margin within
/// one substep (docs/lifecycle.md, "Contacts").
#[inline(always)]
pub(crate) fn within_margin<T: Real>(c: T, r: T, path2: impl FnOnce() -> T) -> bool {
    let e = c - r;
    e <= T::ZERO || e * e <= T::from_f64(4.0) * path2()
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

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::as_conversions)]
mod tests {
    use super::*;
    use crate::constraint::moving::{Moving, Prepared, PREPARED};

    /// The detection's test for a moving collider without the cull
    /// ([`each_contact`]'s other branch).
    fn touches<T: Real, const D: usize>(
        p: &Colliders<'_, T, D>,
        x: &[T; D],
        prev: &[T; D],
        collider: usize,
    ) -> bool {
        match p.surface(x, prev, collider) {
            Some((c, _, Some(carried), _)) => {
                let travel =
                    length_squared(x, &carried).sqrt() + length_squared(&carried, prev).sqrt();
                let margin = p.radius + travel + travel;
                c <= margin
                    && near(
                        &p.moving,
                        collider.saturating_sub(p.fixed()),
                        &carried,
                        x,
                        p.radius + margin,
                    )
            }
            _ => false,
        }
    }

    /// `far` culls no contact: over random capsules and boxes (poses,
    /// speeds, spins from slow to a turn per substep, far from the origin
    /// too), random particle starts and predictions around them, with and
    /// without prepared poses, every particle the detection gives a
    /// contact is not far; and the cull does take most far particles.
    fn culls_no_contact<T: Real, const D: usize>() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut unit = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let (mut contacts, mut culled, mut total) = (0usize, 0usize, 0usize);
        let rounds = 400;
        for round in 0..rounds {
            let origin = if round % 4 == 0 { 1e3 } else { 0.0 };
            let v = |u: &mut dyn FnMut() -> f64, s: f64, o: f64| -> [T; D] {
                core::array::from_fn(|_| T::from_f64(o + s * u()))
            };
            let spin = [0.0, 1.0, 20.0, 300.0][round % 4];
            let mut capsule = Capsule::new(
                v(&mut unit, 0.5, origin),
                v(&mut unit, 0.3, 0.0),
                T::from_f64(0.05 + 0.1 * unit().abs()),
            );
            capsule.velocity = v(&mut unit, 5.0, 0.0);
            capsule.angular_velocity = core::array::from_fn(|_| T::from_f64(spin * unit()));
            let mut cube = OrientedBox::new(v(&mut unit, 0.5, origin), {
                core::array::from_fn(|_| T::from_f64(0.05 + 0.2 * unit().abs()))
            });
            cube.velocity = v(&mut unit, 5.0, 0.0);
            cube.angular_velocity = core::array::from_fn(|_| T::from_f64(spin * unit()));
            let (capsules, boxes) = ([capsule], [cube]);
            let h = T::from_f64(1.0 / 240.0);
            let moving = Moving {
                capsules: &capsules,
                boxes: &boxes,
                fields: Fields::default(),
                time: h * T::from_f64(3.0),
                h,
                prepared: &[],
            };
            let mut poses = [Prepared::default(); PREPARED];
            let prepared = if round % 2 == 0 {
                moving.prepare(&mut poses)
            } else {
                &[]
            };
            let p = Colliders {
                planes: &[],
                spheres: &[],
                previous: &[],
                radius: T::from_f64(0.01),
                alpha: T::ZERO,
                static_friction: T::ZERO,
                moving: Moving { prepared, ..moving },
                units: [[T::ZERO; D]; 4],
                cached: 0,
            };
            for _ in 0..200 {
                let scale = [0.2, 0.6, 2.0][total % 3];
                let prev = v(&mut unit, scale, origin);
                let step = [0.0, 0.01, 0.2][total / 3 % 3];
                let d: [T; D] = v(&mut unit, step, 0.0);
                let x: [T; D] = core::array::from_fn(|c| prev[c] + d[c]);
                for collider in 0..2 {
                    total += 1;
                    let hit = touches(&p, &x, &prev, collider);
                    let cut = far(&p.moving, collider, &x, &prev, p.radius);
                    assert!(!(hit && cut), "round {round}: {x:?} {prev:?} {collider}");
                    contacts += usize::from(hit);
                    culled += usize::from(cut);
                }
            }
        }
        // Both cases occur: contacts, and many particles culled.
        assert!(contacts > total / 50 && culled > total / 4);
    }

    // Safe Rust only: natively (the interpreter adds nothing here).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn the_cull_of_far_particles_keeps_every_contact() {
        culls_no_contact::<f64, 3>();
        culls_no_contact::<f32, 3>();
        culls_no_contact::<f64, 2>();
    }
}
