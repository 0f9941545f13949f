//! The order of a frame's substeps: the [`Order`] trait every frame loop
//! runs through ([`step`](super::step) and
//! [`step_colored`](super::step_colored) share one loop), and its
//! sequential Gauss-Seidel implementation [`Sequential`] on the calling
//! thread, with the per-range prediction and velocity update the colored
//! order's tasks run too. The colored order is
//! [`ColoredOrder`](super::colored::ColoredOrder).

use super::colliders::{detect, dynamic_friction};
use super::colored_particles::Update;
use super::link_pass::{self, LinkState, Pass};
use super::world::Frame;
use super::{StepConfig, StepError, StepStats};
use crate::constraint::contact::{Colliders, Contact};
use crate::constraint::distance::Link;
use crate::constraint::particle_contact::ParticleContact;
use crate::constraint::InPlace;
use crate::real::Real;
use crate::solver::{
    validate, Constraints, ContactGroup, LinkConstants, PairColors, Substep, SweepStats, System,
    ZeroLength,
};

/// Whether the colored step fuses prediction and detection and runs its
/// checks, snapshot and λ reset as tasks: on hosts. On bare metal
/// (`target_os = "none"`, where docs/code-size.md measures) the
/// sequential passes on the calling thread take less code, with the same
/// bits and errors.
pub(super) const HOST: bool = !cfg!(target_os = "none");

/// How the substeps of a frame run: [`Sequential`] on the calling thread,
/// or [`ColoredOrder`](super::colored::ColoredOrder) on an engine's jobs.
pub(crate) trait Order<T: Real, const D: usize, const G: bool> {
    /// Whether a substep without self-collision takes
    /// [`predict_detect`](Self::predict_detect) (else
    /// [`predict`](Self::predict), then [`detect`](Self::detect)).
    const FUSED: bool = false;

    /// The frame's check of the particles and links ([`validate`]),
    /// writing the links' constants into their frame `state` (empty:
    /// nothing).
    fn validate(
        &self,
        positions: &[[T; D]],
        w: &[T],
        links: &[Link<T>],
        h: T,
        policy: ZeroLength,
        state: LinkConstants<'_, T>,
    ) -> Result<(), StepError>;

    /// `dst ← src` (the roll-back snapshot of a frame's start).
    fn save(&self, dst: &mut [[T; D]], src: &[[T; D]]) -> Result<(), StepError>;

    /// A stepped substep's entry (`begin_substep`: its checks, then every
    /// λ ← 0), holding the substep's contacts. `first`: the frame's first
    /// substep, whose failing entry must leave every λ as the caller gave
    /// it (a later one's λ are this frame's already).
    fn begin<'s, 'a>(
        &self,
        system: &'s mut System<'a, T, D>,
        h: T,
        group: ContactGroup<'s, T, D>,
        first: bool,
    ) -> Result<Substep<'s, 'a, T, D, G>, StepError>;

    /// The whole frame on the SoA passes ([`soa_frame`](super::soa_frame)),
    /// in the scratch `area` (the snapshot and `x_prev` areas): `Some`
    /// when it ran and committed the positions and velocities (the links'
    /// λ left in `state`), `None` when this order has no such frame, the
    /// world does not fit it, or it failed (nothing written to the
    /// caller's positions and velocities). `h_dt`: the substep h and the
    /// frame's dt (s). None by default.
    fn soa_frame(
        &self,
        world: &mut Frame<'_, T, D>,
        constraints: &mut Constraints<'_, T>,
        area: [&mut [[T; D]]; 3],
        state: LinkState<'_, T>,
        h_dt: (T, T),
        config: &StepConfig<T, D>,
    ) -> Option<StepStats<T>> {
        let _ = (world, constraints, area, state, h_dt, config);
        None
    }

    /// The commit of a successful frame's links ([`link_pass::commit`]).
    fn commit_links(&self, links: &mut [Link<T>], lambda: &[T]) -> Result<(), StepError> {
        link_pass::commit(links, lambda);
        Ok(())
    }

    /// A substep's entry in a frame on the link pass
    /// ([`link_pass`](super::link_pass)): no check (the frame validated
    /// what cannot change within it), every λ of the groups and contacts
    /// ← 0 (the links' are reset by their first sweep).
    fn begin_unchecked<'s, 'a>(
        &self,
        system: &'s mut System<'a, T, D>,
        h: T,
        group: ContactGroup<'s, T, D>,
    ) -> Result<Substep<'s, 'a, T, D, G>, StepError>;

    /// One sweep of the link pass over `links` (the frame's links, held
    /// outside the substep's system; their λ in `state`), before the substep's
    /// [`iterate`](Self::iterate). `Err` fails the frame (it is run again
    /// on the checked path).
    fn sweep_links(
        &self,
        substep: &mut Substep<'_, '_, T, D, G>,
        links: &[Link<T>],
        state: LinkState<'_, T>,
        pass: &Pass,
        stats: Option<&mut SweepStats<T>>,
    ) -> Result<(), StepError>;

    /// `x_prev ← x`, then `x ← x + h v + h² g` for particles with `w > 0`
    /// and `x ← x + h v` for a kinematic one (w = 0) with a velocity.
    fn predict(
        &self,
        x: &mut [[T; D]],
        previous: &mut [[T; D]],
        v: &[[T; D]],
        w: &[T],
        h: T,
        g: &[T; D],
    ) -> Result<(), StepError>;

    /// The collider contacts of the predicted positions in detection
    /// order ([`detect`]): how many were stored and how many dropped.
    fn detect(
        &self,
        x: &[[T; D]],
        w: &[T],
        p: &Colliders<'_, T, D>,
        contacts: &mut [Contact<T>],
    ) -> Result<(usize, usize), StepError>;

    /// [`predict`](Self::predict), then [`detect`](Self::detect) at the
    /// predicted positions (a substep without self-collision: nothing
    /// moves a particle in between); `p`'s `previous` is replaced by
    /// `previous`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn predict_detect(
        &self,
        x: &mut [[T; D]],
        previous: &mut [[T; D]],
        v: &[[T; D]],
        w: &[T],
        h: T,
        g: &[T; D],
        p: &Colliders<'_, T, D>,
        contacts: &mut [Contact<T>],
    ) -> Result<(usize, usize), StepError> {
        self.predict(x, previous, v, w, h, g)?;
        let p = Colliders {
            previous: &*previous,
            ..*p
        };
        self.detect(x, w, &p, contacts)
    }

    /// Arranges a substep's particle pairs for its sweeps (`scratch`: one
    /// `u32` per particle, free after the pair search): the sequential
    /// order keeps them as found.
    fn arrange_pairs(&self, pairs: &mut [ParticleContact<T>], scratch: &mut [u32]) -> PairColors;

    /// One iteration of the substep: its groups, then its contacts.
    fn iterate(&self, substep: &mut Substep<'_, '_, T, D, G>) -> Result<SweepStats<T>, StepError>;

    /// `v ← (x − x_prev)/h` then `v ← v · keep` for particles with `w > 0`
    /// (failing, before anything else, naming the first particle whose
    /// velocity or position is not finite), then the collider contacts'
    /// dynamic friction ([`dynamic_friction`]). With `last` (nothing
    /// changes a velocity after it in the substep) it may also make the
    /// substep's final check, failing naming the first particle whose
    /// velocity is not finite; returns whether it made that check.
    fn velocities(&self, v: &mut [[T; D]], u: &Update<'_, '_, T, D>) -> Result<bool, StepError>;
}

/// The sequential Gauss-Seidel frame of [`step`](super::step).
pub(crate) struct Sequential;

impl<T: Real, const D: usize, const G: bool> Order<T, D, G> for Sequential {
    #[inline]
    fn validate(
        &self,
        positions: &[[T; D]],
        w: &[T],
        links: &[Link<T>],
        h: T,
        policy: ZeroLength,
        state: LinkConstants<'_, T>,
    ) -> Result<(), StepError> {
        Ok(validate(positions, w, links, h, policy, state)?)
    }

    #[inline]
    fn save(&self, dst: &mut [[T; D]], src: &[[T; D]]) -> Result<(), StepError> {
        super::copy(dst, src);
        Ok(())
    }

    #[inline]
    fn begin<'s, 'a>(
        &self,
        system: &'s mut System<'a, T, D>,
        h: T,
        group: ContactGroup<'s, T, D>,
        _first: bool,
    ) -> Result<Substep<'s, 'a, T, D, G>, StepError> {
        Ok(system.begin_substep_with::<G>(h, group)?)
    }

    #[inline]
    fn begin_unchecked<'s, 'a>(
        &self,
        system: &'s mut System<'a, T, D>,
        h: T,
        group: ContactGroup<'s, T, D>,
    ) -> Result<Substep<'s, 'a, T, D, G>, StepError> {
        if G {
            system.constraints.reset();
        }
        Ok(Substep::new(system, h).with_contacts(group))
    }

    #[inline]
    fn sweep_links(
        &self,
        substep: &mut Substep<'_, '_, T, D, G>,
        links: &[Link<T>],
        state: LinkState<'_, T>,
        pass: &Pass,
        stats: Option<&mut SweepStats<T>>,
    ) -> Result<(), StepError> {
        let (x, w, _, _) = substep.contact_parts();
        let mut p = InPlace::new(x, w);
        pass.sweep(&mut p, links, state, 0, stats)
    }

    #[inline]
    fn predict(
        &self,
        x: &mut [[T; D]],
        previous: &mut [[T; D]],
        v: &[[T; D]],
        w: &[T],
        h: T,
        g: &[T; D],
    ) -> Result<(), StepError> {
        predict_range(x, previous, v, w, h, g);
        Ok(())
    }

    #[inline]
    fn iterate(&self, substep: &mut Substep<'_, '_, T, D, G>) -> Result<SweepStats<T>, StepError> {
        substep.iterate_with_contacts()
    }

    #[inline]
    fn arrange_pairs(&self, _: &mut [ParticleContact<T>], _: &mut [u32]) -> PairColors {
        PairColors::default()
    }

    #[inline]
    fn detect(
        &self,
        x: &[[T; D]],
        w: &[T],
        p: &Colliders<'_, T, D>,
        contacts: &mut [Contact<T>],
    ) -> Result<(usize, usize), StepError> {
        detect(x, w, p, contacts)
    }

    #[inline]
    fn velocities(&self, v: &mut [[T; D]], u: &Update<'_, '_, T, D>) -> Result<bool, StepError> {
        if let Some(particle) = velocity_range(v, u.x, u.previous, u.w, u.h, u.keep) {
            return Err(StepError::InvalidResult { particle });
        }
        dynamic_friction(v, u.x, u.w, u.contacts, u.colliders, u.h, u.mu);
        Ok(false)
    }
}

/// The prediction of particles `0 .. x.len()` (all slices of one range).
#[inline]
pub(super) fn predict_range<T: Real, const D: usize>(
    x: &mut [[T; D]],
    previous: &mut [[T; D]],
    v: &[[T; D]],
    w: &[T],
    h: T,
    g: &[T; D],
) {
    let h2 = h * h;
    for (((x, p), v), w) in x.iter_mut().zip(previous.iter_mut()).zip(v).zip(w) {
        *p = *x;
        if *w == T::ZERO {
            if v.iter().any(|c| *c != T::ZERO) {
                for (xi, vi) in x.iter_mut().zip(v) {
                    *xi = *xi + h * *vi;
                }
            }
            continue;
        }
        for ((xi, vi), gi) in x.iter_mut().zip(v).zip(g) {
            *xi = *xi + h * *vi + h2 * *gi;
        }
    }
}

/// The velocity update of particles `0 .. v.len()`: the first particle
/// (local index) whose velocity or position is not finite, if any.
#[inline]
pub(super) fn velocity_range<T: Real, const D: usize>(
    v: &mut [[T; D]],
    x: &[[T; D]],
    previous: &[[T; D]],
    w: &[T],
    h: T,
    keep: Option<T>,
) -> Option<usize> {
    // When every particle moves, on hosts: every particle updated in one
    // flat loop over the coordinates (the same operations per coordinate,
    // in vector registers) and tested without a branch; only a range that
    // fails is searched for its first bad particle (the particles after
    // it have been updated too: the frame is rolled back).
    let n = v.len();
    let flat = HOST && x.len() == n && previous.len() == n && w.len() == n;
    if flat && w.iter().all(|w| *w != T::ZERO) {
        let coords = v
            .as_flattened_mut()
            .iter_mut()
            .zip(x.as_flattened().iter().zip(previous.as_flattened()));
        match keep {
            Some(keep) => {
                for (vi, (xi, pi)) in coords {
                    *vi = (*xi - *pi) / h * keep;
                }
            }
            None => {
                for (vi, (xi, pi)) in coords {
                    *vi = (*xi - *pi) / h;
                }
            }
        }
        let all = |s: &[T]| s.iter().fold(true, |ok, c| ok & c.is_finite());
        if all(v.as_flattened()) && all(x.as_flattened()) {
            return None;
        }
        return v
            .iter()
            .zip(x)
            .position(|(v, x)| !v.iter().chain(x.iter()).all(|c| c.is_finite()));
    }
    velocities_each(v, x, previous, w, h, keep)
}

/// [`velocity_range`] particle by particle (bare metal, or some particle
/// has `w = 0` and keeps its velocity), stopping at the first particle
/// whose velocity or position is not finite.
#[inline]
fn velocities_each<T: Real, const D: usize>(
    v: &mut [[T; D]],
    x: &[[T; D]],
    previous: &[[T; D]],
    w: &[T],
    h: T,
    keep: Option<T>,
) -> Option<usize> {
    for (particle, (((v, x), prev), w)) in v.iter_mut().zip(x).zip(previous).zip(w).enumerate() {
        if *w != T::ZERO {
            for ((vi, xi), pi) in v.iter_mut().zip(x).zip(prev) {
                *vi = (*xi - *pi) / h;
            }
            if let Some(keep) = keep {
                for vi in v.iter_mut() {
                    *vi = *vi * keep;
                }
            }
        }
        if !v.iter().chain(x.iter()).all(|c| c.is_finite()) {
            return Some(particle);
        }
    }
    None
}
