//! The world a frame steps: particles and links, the frame's memory, and
//! optional feature blocks (`None` for off), with the buffer lengths the
//! library needs ([`Requirements`]).
//!
//! A feature is a block, not fields of the world: colliders, self-collision,
//! tearing, engine contacts, constraint groups, wind and local space each
//! are one `Option`.
//! [`step`](super::step) and [`step_colored`](super::step_colored) take any
//! combination.

use super::StepError;
use super::{
    Capsule, Contact, EngineContact, Heightfield, LocalSpace, OrientedBox, Plane, Sdf,
    SelfCollision, Sphere, Wind,
};
use crate::constraint::distance::Link;
use crate::constraint::field::Fields;
use crate::real::Real;
use crate::solver::Constraints;

/// Pairs per particle in the default pair budget ([`Requirements::pairs`]):
/// equal spheres at least `2r` apart touch at most 12 others (the kissing
/// number), so a resting packing has at most 6 pairs per particle. A
/// squeezed or fast cloth can find more; the step then fails with
/// [`StepError::PairCapacity`](super::StepError::PairCapacity) naming the
/// count it needed (or drops the extra pairs under
/// [`ContactOverflow::KeepFirst`](super::ContactOverflow::KeepFirst)).
pub const DEFAULT_PAIRS_PER_PARTICLE: usize = 6;

/// The colliders block: static planes and spheres, moving capsules and
/// boxes. Collider indices (in contacts and errors) run over the planes,
/// then the spheres, capsules and boxes.
#[derive(Debug, Clone, Copy)]
pub struct Colliders<'a, T, const D: usize> {
    /// Static half-spaces.
    pub planes: &'a [Plane<T, D>],
    /// Static spheres.
    pub spheres: &'a [Sphere<T, D>],
    /// Moving capsules, swept over the frame ([`Capsule`]).
    pub capsules: &'a [Capsule<T, D>],
    /// Moving oriented boxes, swept over the frame ([`OrientedBox`]).
    pub boxes: &'a [OrientedBox<T, D>],
    /// Heightfields, moving like boxes ([`Heightfield`]; collider indices
    /// after the boxes), their heights in `samples`.
    pub heightfields: &'a [Heightfield<T, D>],
    /// Signed distance fields, moving like boxes ([`Sdf`]; collider
    /// indices after the heightfields), their distances in `samples`.
    pub sdfs: &'a [Sdf<T, D>],
    /// The heightfields' heights and the signed distance fields'
    /// distances (each field names its first sample), only read; every
    /// sample a field names must be finite.
    pub samples: &'a [T],
}

impl<T, const D: usize> Default for Colliders<'_, T, D> {
    fn default() -> Self {
        Self {
            planes: &[],
            spheres: &[],
            capsules: &[],
            boxes: &[],
            heightfields: &[],
            sdfs: &[],
            samples: &[],
        }
    }
}

impl<T, const D: usize> Colliders<'_, T, D> {
    /// The number of colliders (planes + spheres + capsules + boxes,
    /// saturating).
    #[must_use]
    pub fn len(&self) -> usize {
        self.planes
            .len()
            .saturating_add(self.spheres.len())
            .saturating_add(self.capsules.len())
            .saturating_add(self.boxes.len())
            .saturating_add(self.heightfields.len())
            .saturating_add(self.sdfs.len())
    }

    /// Whether there is no collider.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The tearing block: a maximum force per link and where to report the
/// links a frame tore.
///
/// After a successful frame every link not yet
/// [`Link::DISABLED`] whose force `|λ|/h²` (λ of the last substep, h the
/// substep) exceeds its maximum gets the flag, in link order.
#[derive(Debug, Default)]
pub struct Tearing<'a, T> {
    /// Maximum force per link (N), one entry per link, each > 0
    /// (`T::INFINITY` never tears).
    pub max_force: &'a [T],
    /// Output: the indices of the links a frame tore, in link order; when
    /// more tear than it holds the first ones are written and
    /// [`StepStats::torn`](super::StepStats::torn) still counts all. May be
    /// empty.
    pub torn: &'a mut [u32],
}

/// Checks the maximum forces: none, or one per link, each > 0 (NaN,
/// zero and negative values name the link).
pub(super) fn validate_max_force<T: Real>(max_force: &[T], links: usize) -> Result<(), StepError> {
    if max_force.is_empty() {
        return Ok(());
    }
    if max_force.len() != links {
        return Err(StepError::MaxForceCountMismatch);
    }
    let positive = |f: &T| f.partial_cmp(&T::ZERO) == Some(core::cmp::Ordering::Greater);
    match max_force.iter().position(|f| !positive(f)) {
        Some(link) => Err(StepError::InvalidMaxForce { link }),
        None => Ok(()),
    }
}

/// Disables, in link order, every enabled link whose force `|λ|/h²` (N)
/// exceeds its maximum; writes the first indices to `torn` and returns
/// how many tore.
pub(super) fn tear<T: Real>(
    links: &mut [Link<T>],
    max_force: &[T],
    h2: T,
    torn: &mut [u32],
) -> usize {
    let mut count = 0usize;
    for (k, (link, &max)) in links.iter_mut().zip(max_force).enumerate() {
        // A NaN force (never: λ and h are finite after a step) tears nothing.
        let over = link.lambda.abs() / h2 > max;
        if link.is_disabled() || !over {
            continue;
        }
        link.flags |= Link::<T>::DISABLED;
        if let (Some(slot), Ok(k)) = (torn.get_mut(count), u32::try_from(k)) {
            *slot = k;
        }
        count = count.saturating_add(1);
    }
    count
}

/// The caller's memory for [`step`](super::step) and
/// [`step_colored`](super::step_colored): particles, links, the frame's
/// memory and the optional feature blocks (no allocation).
///
/// Start from [`World::new`] and set the blocks you use; ask
/// [`World::requirements`] how long `contacts`, `scratch` and the
/// self-collision buffers must be.
#[derive(Debug)]
pub struct World<'a, T, const D: usize> {
    /// Positions (m), one per particle; advanced by the step.
    pub positions: &'a mut [[T; D]],
    /// Velocities (m/s), one per particle; advanced by the step.
    pub velocities: &'a mut [[T; D]],
    /// Inverse masses (1/kg); 0 = the particle never moves.
    pub inverse_masses: &'a [T],
    /// Links (with their λ of the last substep).
    pub links: &'a mut [Link<T>],
    /// Contact storage of one substep, [`Requirements::contacts`] entries
    /// (its length is the contact budget).
    pub contacts: &'a mut [Contact<T>],
    /// Scratch, at least [`Requirements::scratch`] entries: the frame's
    /// starting state (for the all-or-nothing rollback), `x_prev` and the
    /// links' state in the frame (committed to `links` after a successful
    /// frame).
    pub scratch: &'a mut [[T; D]],
    /// Colliders; `None`: none.
    pub colliders: Option<Colliders<'a, T, D>>,
    /// Self-collision (particle–particle contacts) and its buffers;
    /// `None`: off.
    pub self_collision: Option<SelfCollision<'a, T, D>>,
    /// Tearing; `None`: links never tear.
    pub tearing: Option<Tearing<'a, T>>,
    /// The contacts the engine found for this frame ([`EngineContact`]):
    /// solved every substep after the other contacts; λ, `impulse` and,
    /// after a successful frame, `force` written. `None`: none.
    pub engine_contacts: Option<&'a mut [EngineContact<T, D>]>,
    /// Constraint groups beyond links (bending, volume, tethers, closed
    /// meshes, attachments: [`Constraints`]), 3D worlds only; `None`: none.
    pub groups: Option<Constraints<'a, T>>,
    /// Wind: drag and lift on triangles at every substep ([`Wind`]), 3D
    /// worlds only; `None`: none.
    pub wind: Option<Wind<'a, T>>,
    /// Local space: the particles live in a moving root frame, its motion
    /// felt as the inertia scales say ([`LocalSpace`]; `previous ←
    /// target` after a successful frame), 3D worlds only; `None`: world
    /// space.
    pub local_space: Option<&'a mut LocalSpace<T>>,
}

impl<'a, T: Real, const D: usize> World<'a, T, D> {
    /// A world over particles (positions, velocities, inverse masses) with
    /// contact storage and scratch: no links and no block (set the fields
    /// to add them).
    #[must_use]
    pub fn new(
        positions: &'a mut [[T; D]],
        velocities: &'a mut [[T; D]],
        inverse_masses: &'a [T],
        contacts: &'a mut [Contact<T>],
        scratch: &'a mut [[T; D]],
    ) -> Self {
        Self {
            positions,
            velocities,
            inverse_masses,
            links: &mut [],
            contacts,
            scratch,
            colliders: None,
            self_collision: None,
            tearing: None,
            engine_contacts: None,
            groups: None,
            wind: None,
            local_space: None,
        }
    }

    /// The buffer lengths this world needs, with the default budgets
    /// (see [`Requirements::new`]); its own buffers' lengths are not read.
    #[must_use]
    pub fn requirements(&self) -> Requirements {
        Requirements::with_dimension(
            self.positions.len(),
            self.links.len(),
            self.colliders.as_ref().map_or(0, Colliders::len),
            self.self_collision.is_some(),
            D,
        )
    }
}

/// Every buffer length a world needs (entries, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Requirements {
    /// [`World::scratch`]: `3 · particles` (the frame's start and
    /// `x_prev`, or the SoA frame's particles) plus `⌈6 · links / D⌉`
    /// (each link's state in the frame: `α̃`, `1/(w_i + w_j + α̃)`, λ and
    /// the signed rest length, an array each, and two entries for its
    /// particle indices),
    /// [`scratch_len`](super::scratch_len) in 3D.
    pub scratch: usize,
    /// [`World::contacts`], the contact budget: `particles · colliders`,
    /// which no substep can exceed (a particle has at most one contact
    /// per collider). A smaller buffer is a smaller budget.
    pub contacts: usize,
    /// [`SelfCollision::pairs`], the pair budget:
    /// [`DEFAULT_PAIRS_PER_PARTICLE`]` · particles` with self-collision,
    /// else 0.
    pub pairs: usize,
    /// [`SelfCollision::table`]: `2 · particles + 2` with self-collision.
    pub hash_table: usize,
    /// [`SelfCollision::ids`]: `particles` with self-collision.
    pub hash_ids: usize,
    /// [`SelfCollision::adjacency`]: `particles + 1 + 2 · links` with
    /// self-collision.
    pub adjacency: usize,
    /// The stamp of [`step_colored`](super::step_colored): `particles`.
    pub stamp: usize,
}

impl Requirements {
    /// The lengths for a 3D world of `particles` particles, `links`
    /// links, `colliders` colliders and self-collision on or off, with the
    /// default budgets (saturating: a count too large for memory gives
    /// `usize::MAX`). [`World::requirements`] gives a world's, of any
    /// dimension ([`with_dimension`](Self::with_dimension)).
    #[must_use]
    pub const fn new(
        particles: usize,
        links: usize,
        colliders: usize,
        self_collision: bool,
    ) -> Self {
        Self::with_dimension(particles, links, colliders, self_collision, 3)
    }

    /// As [`new`](Self::new), for a world of `dimension` coordinates per
    /// particle (its scratch entries are `[T; dimension]`; 0 counts as 1).
    #[must_use]
    pub const fn with_dimension(
        particles: usize,
        links: usize,
        colliders: usize,
        self_collision: bool,
        dimension: usize,
    ) -> Self {
        let on = if self_collision { 1 } else { 0 };
        Self {
            scratch: super::scratch_entries(particles, links, dimension),
            contacts: particles.saturating_mul(colliders),
            pairs: particles.saturating_mul(DEFAULT_PAIRS_PER_PARTICLE) * on,
            hash_table: super::self_collision_table_len(particles) * on,
            hash_ids: particles * on,
            adjacency: super::self_collision_adjacency_len(particles, links) * on,
            stamp: particles,
        }
    }
}

/// A frame's slices as the substep loop reads them: the world with its
/// blocks flattened (an absent block is empty).
pub(crate) struct Frame<'a, T, const D: usize> {
    pub(crate) positions: &'a mut [[T; D]],
    pub(crate) velocities: &'a mut [[T; D]],
    pub(crate) inverse_masses: &'a [T],
    pub(crate) links: &'a mut [Link<T>],
    pub(crate) planes: &'a [Plane<T, D>],
    pub(crate) spheres: &'a [Sphere<T, D>],
    pub(crate) contacts: &'a mut [Contact<T>],
    pub(crate) scratch: &'a mut [[T; D]],
    pub(crate) link_max_force: &'a [T],
    pub(crate) torn: &'a mut [u32],
    pub(crate) capsules: &'a [Capsule<T, D>],
    pub(crate) boxes: &'a [OrientedBox<T, D>],
    pub(crate) fields: Fields<'a, T, D>,
    pub(crate) engine_contacts: &'a mut [EngineContact<T, D>],
    /// `None`: self-collision off.
    pub(crate) self_collision: Option<SelfCollision<'a, T, D>>,
    /// `None`: no wind.
    pub(crate) wind: Option<Wind<'a, T>>,
    /// `None`: world space.
    pub(crate) local_space: Option<&'a mut LocalSpace<T>>,
}

impl<'w, T: Real, const D: usize> World<'w, T, D> {
    /// The world's slices, reborrowed, and its groups (empty when `None`).
    pub(crate) fn frame(&mut self) -> (Frame<'_, T, D>, Constraints<'_, T>) {
        let colliders = self.colliders.unwrap_or_default();
        let (link_max_force, torn): (&[T], &mut [u32]) = match self.tearing.as_mut() {
            Some(t) => (t.max_force, &mut *t.torn),
            None => (&[], &mut []),
        };
        let frame = Frame {
            positions: &mut *self.positions,
            velocities: &mut *self.velocities,
            inverse_masses: self.inverse_masses,
            links: &mut *self.links,
            planes: colliders.planes,
            spheres: colliders.spheres,
            contacts: &mut *self.contacts,
            scratch: &mut *self.scratch,
            link_max_force,
            torn,
            capsules: colliders.capsules,
            boxes: colliders.boxes,
            fields: Fields {
                heightfields: colliders.heightfields,
                sdfs: colliders.sdfs,
                samples: colliders.samples,
            },
            engine_contacts: match self.engine_contacts.as_mut() {
                Some(e) => e,
                None => &mut [],
            },
            self_collision: self.self_collision.as_mut().map(SelfCollision::reborrow),
            wind: self.wind,
            local_space: self.local_space.as_deref_mut(),
        };
        let groups = match self.groups.as_mut() {
            Some(g) => g.reborrow(),
            None => Constraints::default(),
        };
        (frame, groups)
    }
}
