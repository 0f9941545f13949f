//! The substep: h fixed, every λ reset once at its start (the one reset
//! function, [`reset_lambdas`]), the system borrowed until it ends.

use super::sweep::Stop;
use super::{
    iterate_until, measure, sweep, sweep_links, within_work, Convergence, SweepStats, System,
    ZeroLength, MAX_ITERATIONS,
};
use crate::constraint::contact::{sweep_colliders, Colliders, Contact};
use crate::constraint::distance::Link;
use crate::constraint::engine_contact::{EngineContact, Surfaces};
use crate::constraint::lagged::Motion;
use crate::constraint::particle_contact::{Pairs, ParticleContact};
use crate::real::Real;
use crate::{StepError, SystemError};

/// One substep in progress: h is fixed, every λ started at zero, and the
/// system is borrowed so that nothing else can change it until the substep
/// ends (when this value is dropped).
///
/// `G` says whether the substep sweeps the system's constraint groups
/// ([`Constraints`](crate::Constraints)) too: always for the substeps
/// [`System::begin_substep`] returns; the crate's links-only paths (the C
/// system functions, [`step`](crate::step::step)) use `false`, so their
/// code does not carry the groups' sweeps.
#[derive(Debug)]
pub struct Substep<'s, 'a, T: Real, const D: usize, const G: bool = true> {
    system: &'s mut System<'a, T, D>,
    h: T,
    /// The lagged kinds' substep: the weight of `previous` in their point
    /// (0: `target`) and the max distance scale (the step sets it per
    /// substep, see `constraint::lagged`).
    motion: Motion<T>,
    contacts: Option<ContactGroup<'s, T, D>>,
}

/// The contacts of one stepped substep, with what they share.
#[derive(Debug)]
pub(crate) struct ContactGroup<'s, T, const D: usize> {
    /// The contacts found for this substep.
    pub(crate) items: &'s mut [Contact<T>],
    /// Colliders, start positions, radius, α̃, μ_s.
    pub(crate) colliders: Colliders<'s, T, D>,
    /// The engine's contacts of the frame (solved after `items`).
    pub(crate) engine: &'s mut [EngineContact<T, D>],
    /// What the engine contacts share.
    pub(crate) surfaces: Surfaces<'s, T, D>,
    /// The particle–particle contacts of the substep (swept first).
    pub(crate) pairs: &'s mut [ParticleContact<T>],
    /// What they share.
    pub(crate) pair_shared: Pairs<'s, T, D>,
    /// The pairs' colors when a colored step stored them in colored order
    /// (`count == 0`: not colored, solved in slice order).
    pub(crate) pair_colors: PairColors,
}

/// Colors of a substep's particle pairs (colored stepping): color `c` is
/// the pairs `starts[c] .. starts[c + 1]`; no two pairs of a color share a
/// particle, except in the last color, which holds the pairs that found
/// none of the others and is solved in slice order on one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PairColors {
    /// Boundaries, `count + 1` used.
    pub(crate) starts: [usize; PAIR_COLORS + 2],
    /// Colors used (0: the pairs are not colored).
    pub(crate) count: usize,
}

/// Colors a pair may take before it goes to the last, sequential color.
pub(crate) const PAIR_COLORS: usize = 32;

impl Default for PairColors {
    fn default() -> Self {
        Self {
            starts: [0; PAIR_COLORS + 2],
            count: 0,
        }
    }
}

/// A constraint instance's accumulated multipliers, for [`reset_lambdas`].
pub(crate) trait Multiplier<T> {
    /// The multipliers λ (kg·m): one, or one per axis of an attachment.
    fn multiplier(&mut self) -> &mut [T];
}

impl<T> Multiplier<T> for Link<T> {
    #[inline(always)]
    fn multiplier(&mut self) -> &mut [T] {
        core::slice::from_mut(&mut self.lambda)
    }
}

impl<T> Multiplier<T> for Contact<T> {
    #[inline(always)]
    fn multiplier(&mut self) -> &mut [T] {
        core::slice::from_mut(&mut self.lambda)
    }
}

macro_rules! multiplier {
    ($($t:ident),*) => {$(
        impl<T> Multiplier<T> for crate::constraint::$t<T> {
            #[inline(always)]
            fn multiplier(&mut self) -> &mut [T] {
                core::slice::from_mut(&mut self.lambda)
            }
        }
    )*};
}
multiplier!(Bend, Tet, Tether, MeshVolume);

/// A bare multiplier (the colored links' structure-of-arrays λ).
impl<T: Real> Multiplier<T> for T {
    #[inline(always)]
    fn multiplier(&mut self) -> &mut [T] {
        core::slice::from_mut(self)
    }
}

impl<T> Multiplier<T> for ParticleContact<T> {
    #[inline(always)]
    fn multiplier(&mut self) -> &mut [T] {
        core::slice::from_mut(&mut self.lambda)
    }
}

impl<T, const D: usize> Multiplier<T> for EngineContact<T, D> {
    #[inline(always)]
    fn multiplier(&mut self) -> &mut [T] {
        core::slice::from_mut(&mut self.lambda)
    }
}

impl<T> Multiplier<T> for crate::constraint::Attachment<T> {
    #[inline(always)]
    fn multiplier(&mut self) -> &mut [T] {
        &mut self.lambda
    }
}

impl<T> Multiplier<T> for crate::constraint::SkinConstraint<T> {
    #[inline(always)]
    fn multiplier(&mut self) -> &mut [T] {
        &mut self.lambda
    }
}

/// λ ← 0 for every instance of a group: **the only λ reset of every
/// system** (sequential, stepped, colored, and the C ABI's, which go
/// through these types). Called at substep entry and nowhere else.
#[inline]
pub(crate) fn reset_lambdas<T: Real, M: Multiplier<T>>(group: &mut [M]) {
    for item in group.iter_mut() {
        item.multiplier().fill(T::ZERO);
    }
}

impl<'s, 'a, T: Real, const D: usize, const G: bool> Substep<'s, 'a, T, D, G> {
    /// A substep of length `h` over a system whose λ were reset.
    pub(crate) fn new(system: &'s mut System<'a, T, D>, h: T) -> Self {
        Self {
            system,
            h,
            motion: Motion::at_target(),
            contacts: None,
        }
    }

    /// The same substep with the lagged kinds at `motion` (the step's
    /// substep `s` of `S`: lag `(S − 1 − s)/S`).
    pub(crate) fn with_motion(mut self, motion: Motion<T>) -> Self {
        self.motion = motion;
        self
    }

    /// The same substep holding a group of contacts too: their λ are reset
    /// here, with the links' (in [`System::begin_substep_with`]).
    pub(crate) fn with_contacts(self, group: ContactGroup<'s, T, D>) -> Self {
        reset_lambdas(group.items);
        reset_lambdas(group.engine);
        reset_lambdas(group.pairs);
        self.holding(group)
    }

    /// The same substep holding a group of contacts whose λ the caller
    /// has reset (the colored step resets them in its tasks, with
    /// [`reset_lambdas`] over ranges).
    pub(crate) fn holding(mut self, group: ContactGroup<'s, T, D>) -> Self {
        self.contacts = Some(group);
        self
    }

    /// Positions, inverse masses, the contacts (if any) and h, for the
    /// colored contact phases of `step::colored` (which solve the contacts
    /// as [`sweep_contacts`](Self::sweep_contacts) does, split by particle).
    #[allow(clippy::type_complexity)]
    pub(crate) fn contact_parts(
        &mut self,
    ) -> (&mut [[T; D]], &[T], Option<&mut ContactGroup<'s, T, D>>, T) {
        let s = &mut *self.system;
        (
            &mut *s.positions,
            s.inverse_masses,
            self.contacts.as_mut(),
            self.h,
        )
    }

    /// One iteration of a stepped substep: a sweep over the links (and
    /// groups), then over the particle–particle contacts, the contacts
    /// found against colliders, and the engine's contacts (Gauss-Seidel in
    /// that order: the environment last). Returns the links' and groups'
    /// statistics. A contact error names the contact by its index in the
    /// found contacts, then the engine's (`found + k`), then the particle
    /// pairs (`found + engine + k`).
    pub(crate) fn iterate_with_contacts(&mut self) -> Result<SweepStats<T>, StepError> {
        let stats = self.iterate()?;
        self.sweep_contacts()?;
        Ok(stats)
    }

    /// The contacts' part of [`iterate_with_contacts`](Self::iterate_with_contacts):
    /// one sweep over the particle pairs, the found contacts and the
    /// engine's, in that order (nothing without contacts).
    pub(crate) fn sweep_contacts(&mut self) -> Result<(), StepError> {
        if let Some(group) = self.contacts.as_mut() {
            let s = &mut *self.system;
            let h2 = self.h * self.h;
            let base = group.items.len().saturating_add(group.engine.len());
            sweep(
                s.positions,
                s.inverse_masses,
                group.pairs,
                &group.pair_shared,
                h2,
                ZeroLength::Skip,
            )
            .map_err(|stop| contact_error(stop, base))?;
            sweep_colliders(
                s.positions,
                s.inverse_masses,
                group.items,
                &group.colliders,
                h2,
                0,
            )
            .map_err(|k| contact_at(k, 0))?;
            sweep(
                s.positions,
                s.inverse_masses,
                group.engine,
                &group.surfaces,
                h2,
                ZeroLength::Skip,
            )
            .map_err(|stop| contact_error(stop, group.items.len()))?;
        }
        Ok(())
    }
}

/// The step error of a contact sweep's stop, naming the contact `base + k`.
pub(crate) fn contact_error(stop: Stop, base: usize) -> StepError {
    let k = match stop {
        Stop::OutOfRange(k)
        | Stop::NonFinite(k)
        | Stop::Degenerate(k)
        | Stop::NonFinitePosition(k, _) => k,
    };
    contact_at(k, base)
}

/// The step error naming contact `base + k` (a contact sweep's fault).
pub(crate) fn contact_at(k: usize, base: usize) -> StepError {
    StepError::InvalidContactResult {
        contact: base.saturating_add(k),
    }
}

impl<T: Real, const D: usize, const G: bool> Substep<'_, '_, T, D, G> {
    /// The substep length h (s) fixed by `begin_substep`.
    #[must_use]
    pub fn h(&self) -> T {
        self.h
    }

    /// One solver iteration: a Gauss-Seidel sweep over the links in slice
    /// order, keeping every λ (see the module documentation for the update).
    ///
    /// # Errors
    ///
    /// [`SystemError::ZeroLength`] (under [`ZeroLength::Reject`]) or
    /// [`SystemError::InvalidResult`], naming the link. Each link is applied
    /// all-or-nothing: the failing link and the ones after it are untouched,
    /// the ones before it in this sweep have been applied.
    #[inline]
    pub fn iterate(&mut self) -> Result<SweepStats<T>, SystemError> {
        let s = &mut *self.system;
        let stats = sweep_links(
            s.positions,
            s.inverse_masses,
            s.links,
            self.h,
            s.zero_length,
        )?;
        if !G || s.constraints.is_empty() {
            return Ok(stats);
        }
        let groups = s.constraints.sweep(
            s.links.len(),
            s.positions,
            s.inverse_masses,
            self.h * self.h,
            self.motion,
            s.zero_length,
        )?;
        Ok(stats.merge(groups))
    }

    /// Iterates until the compliance residual `max |C + α̃λ|` of a sweep is at
    /// most `tolerance` (m) or `max_iterations` sweeps have run: the
    /// iteration budget is a convergence resource, not a stiffness knob.
    ///
    /// # Errors
    ///
    /// [`SystemError::InvalidTolerance`] (nothing written), or the errors of
    /// [`iterate`](Self::iterate).
    pub fn iterate_until(
        &mut self,
        tolerance: T,
        max_iterations: u32,
    ) -> Result<Convergence<T>, SystemError> {
        let s = &mut *self.system;
        if !G || s.constraints.is_empty() {
            return iterate_until(
                s.positions,
                s.inverse_masses,
                s.links,
                self.h,
                s.zero_length,
                tolerance,
                max_iterations,
            );
        }
        if !crate::real::finite_non_negative(tolerance) {
            return Err(SystemError::InvalidTolerance);
        }
        let per_sweep = s.links.len().saturating_add(s.constraints.len());
        if max_iterations > MAX_ITERATIONS || !within_work(u64::from(max_iterations), per_sweep) {
            return Err(SystemError::WorkLimit);
        }
        let mut result = Convergence::default();
        while result.iterations < max_iterations {
            result.last = self.iterate()?;
            result.iterations = result.iterations.saturating_add(1);
            if result.last.max_residual <= tolerance {
                result.converged = 1;
                break;
            }
        }
        Ok(result)
    }

    /// The diagnostics a sweep would report for the current state, without
    /// changing anything (`applied` counts the links a sweep would correct).
    ///
    /// # Errors
    ///
    /// As [`iterate`](Self::iterate); nothing is written in any case.
    #[inline]
    pub fn measure(&self) -> Result<SweepStats<T>, SystemError> {
        let s = &*self.system;
        let stats = measure(
            s.positions,
            s.inverse_masses,
            s.links,
            self.h,
            s.zero_length,
        )?;
        if !G || s.constraints.is_empty() {
            return Ok(stats);
        }
        let groups = s.constraints.measure(
            s.links.len(),
            s.positions,
            s.inverse_masses,
            self.h * self.h,
            self.motion,
            s.zero_length,
        )?;
        Ok(stats.merge(groups))
    }

    /// The constraint groups beyond links with their current λ.
    #[must_use]
    pub fn constraints(&self) -> &crate::Constraints<'_, T> {
        &self.system.constraints
    }

    /// Particle positions (m).
    #[must_use]
    pub fn positions(&self) -> &[[T; D]] {
        self.system.positions
    }

    /// The links with their current λ.
    #[must_use]
    pub fn links(&self) -> &[Link<T>] {
        self.system.links
    }
}

impl<'a, T: Real, const D: usize, const G: bool> Substep<'_, 'a, T, D, G> {
    /// The system, h and the lagged kinds' substep, for the colored
    /// sweeps of `colored::groups` (which change positions and λ only,
    /// never a parameter).
    pub(crate) fn parts(&mut self) -> (&mut System<'a, T, D>, T, Motion<T>) {
        (&mut *self.system, self.h, self.motion)
    }
}
