//! Full XPBD stepping: prediction, substeps, constraint iterations, contacts
//! with friction, velocity update.
//!
//! # The substep loop
//!
//! For a frame of length `dt` (s) split into `n` substeps, `h = dt / n` and
//! each substep does (Macklin, Storey, Lu, Terdiman, Chentanez, Jeschke,
//! Müller 2019, *Small Steps in Physics Simulation*, Algorithm 1):
//!
//! ```text
//! x_prev ← x
//! x      ← x + h v + h² g          (particles with w > 0; w = 0 never moves)
//! contacts ← particles within the contact margin of a collider at x
//! begin_substep(h): every λ ← 0     (links, groups and contacts)
//! k times: sweep links, groups, then contacts (Gauss-Seidel); an
//!          attachment's point is previous + (target − previous)(s+1)/n
//!          in substep s (exactly target in the last one)
//! v      ← (x − x_prev) / h, then dynamic friction, then damping
//! ```
//!
//! Each attachment sums its impulse `λ / h` over the substeps; after a
//! successful frame it reports the mean force `impulse / dt` (N, on its
//! particle) and sets `previous ← target` ([`Attachment`](crate::Attachment));
//! a failed frame writes neither.
//!
//! `g` is an acceleration (m/s²), so gravity needs no mass. α̃ = α/h² always
//! uses the substep `h`, never `dt`.
//!
//! ## Why many substeps with one iteration
//!
//! For a fixed budget of `n·k` sweeps, Small Steps shows that `n` substeps of
//! one iteration usually beat one substep of `n·k` iterations: the
//! discretisation error of the implicit-Euler-like update shrinks with h², and
//! Gauss-Seidel's slow convergence on long chains matters less when every
//! substep starts close to the solution. With λ kept across iterations (this
//! crate's lifecycle rule) more iterations never change the material, only
//! how close each substep gets to its own solution.
//!
//! # Contacts (inequality constraints)
//!
//! Plane `n·x ≥ offset + r` and static sphere `|x − c| ≥ radius + r`, with
//! `r` the particle radius. `C` is the signed gap (m), the gradient is the
//! unit normal, and the accumulated contact λ is clamped to `λ ≥ 0` (push
//! only): `λ_new = max(λ + Δλ, 0)` with the usual
//! `Δλ = (−C − α̃λ)/(w + α̃)`. Contacts are found once per substep after
//! prediction and live for that substep (their λ starts at 0). They are
//! speculative: a particle gets one when its predicted gap is within the
//! margin `r + 2|x − x_prev|` (resting within `r` of a surface is enough,
//! whatever its velocity), and the colliders are solved after the links,
//! groups and pairs of every iteration, so that whatever those pushed, a
//! particle with a rigid contact ends the substep outside its collider
//! (`docs/lifecycle.md`, "Contacts", has the exact conditions).
//!
//! Friction follows Müller, Macklin, Chentanez, Jeschke, Kim 2020
//! (*Detailed Rigid Body Simulation with Extended Position Based Dynamics*,
//! §3.5–3.6): static friction at the position level (the tangential motion
//! since `x_prev` is removed when it is below `μ_s` times the normal
//! correction `w λ`), dynamic friction in the velocity update (the
//! tangential speed drops by `min(h μ_k w |f_n|, |v_t|)` with the normal
//! force `f_n = λ / h²`).
//!
//! # The world and its memory
//!
//! A [`World`] is particles and links plus optional feature blocks, each
//! `None` for off: [`Colliders`], [`SelfCollision`], [`Tearing`], engine
//! contacts and constraint groups. [`World::requirements`] gives every
//! buffer's length ([`Requirements`]); the contact buffer's length is the
//! contact budget (by default particles × colliders, which no substep
//! exceeds) and the pair buffer's the pair budget
//! ([`DEFAULT_PAIRS_PER_PARTICLE`] per particle).
//!
//! # Contact and pair budgets
//!
//! Detection visits the particles in index order and, for each particle
//! with `w > 0`, the colliders in their order (planes, then spheres,
//! capsules, boxes), recording a contact for every particle within its
//! margin. When a substep finds more than the budget,
//! [`StepConfig::contact_overflow`] decides: [`ContactOverflow::Reject`]
//! (the default) fails the step with [`StepError::ContactCapacity`] (or
//! [`StepError::PairCapacity`] for self-collision pairs) naming how many
//! it found, [`ContactOverflow::KeepFirst`] keeps the first ones in that
//! order, solves only those, and adds the others to
//! [`StepStats::contacts_dropped`].
//!
//! # Tearing
//!
//! With a [`Tearing`] block (one maximum force in N per link),
//! after a successful frame every link not yet [`Link::DISABLED`] whose
//! force `|λ|/h²` (λ of the last substep, h the substep) exceeds its
//! maximum gets the flag, in link order; the indices go to [`Tearing::torn`]
//! and the count to [`StepStats::torn`]. Later frames skip those links (see
//! [`Link::DISABLED`]). Deterministic: the same inputs tear the same links.
//!
//! # Colored stepping on an engine's jobs
//!
//! [`step_colored`] runs the same frame with the links and every group in
//! colored order and the frame's phases (prediction, each color, the
//! velocity update) as tasks on the engine's job system ([`Jobs`]); the
//! core spawns no thread. With the groups stored in colored order and
//! without self-collision its bits are those of [`step`]; with
//! self-collision the particle pairs are colored too. The bits never
//! depend on the split or the thread count (`docs/colored.md`, "Colored
//! stepping"). It takes 2D worlds too (links, contacts, self-collision;
//! the groups beyond links are 3D only), with the bits of [`step`].
//!
//! # Local space and wind
//!
//! Each substep first carries the particles by a [`LocalSpace`]'s scaled
//! frame motion, then adds every [`AeroTriangle`]'s drag and lift of a
//! [`Wind`] block (3D; `local_space.rs` and `wind.rs` have the models,
//! `docs/character-cloth.md` the checks), then predicts.
//!
//! # Damping
//!
//! Optional, and it is what it is: a non-physical loss of velocity,
//! `v ← v · max(0, 1 − c·h)` per substep with `c` in 1/s. It drains energy
//! so that a rope comes to rest; it is not air drag and not material damping.
//!
//! # Work
//!
//! One frame does at most [`MAX_WORK`](crate::MAX_WORK) (2^30) visits.
//! Before anything is written the step counts its sweeps, `substeps ×
//! iterations × (links + contact capacity + engine contacts + pair
//! capacity + group constraints)`, and its particle work, `substeps ×
//! particles × (1 + planes + spheres + capsules + boxes)` (prediction,
//! detection against every collider, velocity update), and fails with
//! [`StepError::WorkLimit`] when the sum is over. What is left is the
//! budget of the frame's self-collision pair searches, all substeps
//! together: every candidate (each entry of the hash buckets of the 3^D
//! cells around a particle) and every linked neighbour compared with one
//! is one visit, paid before the search makes it, and a search that
//! would go over fails the step with [`StepError::WorkLimit`] (rolled
//! back like every error inside a substep). Within the budget the pairs
//! and their order are those of the unbounded search; a search counts
//! the pairs beyond the pair budget too, so that
//! [`StepError::PairCapacity`] can say how many were needed.

mod colliders;
mod colored;
mod colored_entry;
mod colored_pairs;
mod colored_particles;
mod jobs;
mod link_pass;
mod local_space;
mod order;
mod precision;
mod soa_frame;
mod soa_list;
mod soa_passes;
mod spatial;
mod wind;
mod world;

#[doc(hidden)]
pub use colored::step_colored_on;
pub use colored::{step_colored, Jobs, OneThread, MAX_JOBS};
use colored_particles::Update;
use link_pass::{LinkState, Pass};
use order::{Order, Sequential};
pub(crate) use precision::shortest_length;
pub use precision::{precision, world_precision, Precision, PRECISION_LIMIT};

use crate::constraint::contact::Colliders as Detect;
pub use crate::constraint::contact::{Contact, Plane, Sphere};
use crate::constraint::distance::Link;
pub use crate::constraint::engine_contact::EngineContact;
use crate::constraint::engine_contact::{self, Surfaces};
pub use crate::constraint::field::{Heightfield, Sdf};
use crate::constraint::lagged::Motion;
pub use crate::constraint::moving::{Capsule, OrientedBox};
use crate::constraint::moving::{Prepared, PREPARED};
use crate::constraint::particle_contact::{self, Pairs};
pub use crate::constraint::particle_contact::{
    contact_distance as particle_contact_distance, ParticleContact,
};
pub use crate::error::StepError;
use crate::error::{Field, SystemError};
use crate::real::{finite_non_negative, Real};
use crate::solver::{self, Constraints, ContactGroup, SweepStats, System, ZeroLength};
use colliders::{substep_colliders, validate_colliders};
pub use local_space::{LocalSpace, Transform};
pub use spatial::{self_collision_adjacency_len, self_collision_table_len, SelfCollision};
pub use wind::{
    AeroTriangle, Wind, AIR_DENSITY, DEFAULT_DRAG_COEFFICIENT, DEFAULT_LIFT_COEFFICIENT,
};
use world::{tear, validate_max_force, Frame};
pub use world::{Colliders, Requirements, Tearing, World, DEFAULT_PAIRS_PER_PARTICLE};

/// The substeps per frame of [`StepConfig::default`], [`StepConfig::new`] and
/// `xpbd_step_config3_default`: a rigid 20-link rope (5 cm links, top
/// pinned) released horizontally stretches at most 1.0 % over 2 s at
/// 60 frames/s (1 substep: 128 %, 4: 13 %, 8: 4.1 %, 16: 1.5 %;
/// `docs/lifecycle.md`). Cost: that many sweeps and one prediction per
/// frame; set `substeps = 1` for the old single-substep behaviour.
pub const DEFAULT_SUBSTEPS: u32 = 20;

/// The iterations per substep of [`StepConfig::new`]: with many short
/// substeps one sweep each converges better than more sweeps of fewer,
/// longer substeps for the same cost (Macklin et al. 2019, *Small Steps
/// in Physics Simulation*).
pub const DEFAULT_ITERATIONS: u32 = 1;

/// How to advance one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepConfig<T, const D: usize> {
    /// Gravity as an acceleration (m/s²), applied to every particle with w > 0.
    pub gravity: [T; D],
    /// Substeps per frame, ≥ 1: `h = dt / substeps`.
    pub substeps: u32,
    /// Solver iterations per substep, ≥ 1 (the budget when `tolerance > 0`).
    pub iterations: u32,
    /// 0: run exactly `iterations` sweeps. > 0: stop a substep early when a
    /// sweep's max |C + α̃λ| over the links is ≤ `tolerance` (m).
    pub tolerance: T,
    /// Velocity damping coefficient c (1/s), ≥ 0: `v ← v·max(0, 1 − c h)`.
    ///
    /// In f32, short substeps defeat it: a position near 1 m moves in ulps
    /// of 1.2e-7 m, so `v = Δx/h` comes in quanta of ulp/h, and the
    /// damping's change to the next `x + h v` is lost to rounding below
    /// about 0.5/(c h) quanta (0.5 m/s at c = 2/s, h = 1/3840 s). Use fewer,
    /// longer substeps, small coordinates, or f64 (`docs/c-api.md`, the C++ cloth).
    pub damping: T,
    /// Particle radius r (m), ≥ 0, used by contacts.
    pub particle_radius: T,
    /// Contact compliance (m/N), ≥ 0; 0 = rigid contact.
    pub contact_compliance: T,
    /// Static friction coefficient μ_s, ≥ 0.
    pub static_friction: T,
    /// Dynamic friction coefficient μ_k, ≥ 0.
    pub dynamic_friction: T,
    /// What link sweeps do with coincident particles.
    pub zero_length: ZeroLength,
    /// What a substep does with more contacts than `World::contacts` holds
    /// (see the module documentation for the order kept).
    pub contact_overflow: ContactOverflow,
    /// The global scale `k` of every skinned constraint's max distance
    /// ([`SkinConstraint`](crate::SkinConstraint): `|x − p| ≤ R·k`),
    /// finite and ≥ 0 (unitless; 1 by default): 0 pins every skinned
    /// particle to its skinned position, as NvCloth's motion constraint
    /// scale and Chaos's max distance multiplier.
    pub max_distance_scale: T,
}

/// What a substep does when it finds more contacts than the contact
/// storage holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ContactOverflow {
    /// Fail the step with [`StepError::ContactCapacity`] (positions and
    /// velocities restored). The default.
    #[default]
    Reject,
    /// Keep the first contacts in detection order (particle index, then
    /// planes, then spheres) up to the capacity, and count the others in
    /// [`StepStats::contacts_dropped`].
    KeepFirst,
}

impl<T: Real, const D: usize> StepConfig<T, D> {
    /// The bare configuration with the given gravity: [`DEFAULT_SUBSTEPS`]
    /// (20) substeps of [`DEFAULT_ITERATIONS`] (1) iteration, no
    /// tolerance, no damping, radius 0, rigid frictionless contacts (the
    /// defaults until December 2026; [`StepConfig::default`] is the one
    /// to start from).
    #[must_use]
    pub fn new(gravity: [T; D]) -> Self {
        Self {
            gravity,
            substeps: DEFAULT_SUBSTEPS,
            iterations: DEFAULT_ITERATIONS,
            tolerance: T::ZERO,
            damping: T::ZERO,
            particle_radius: T::ZERO,
            contact_compliance: T::ZERO,
            static_friction: T::ZERO,
            dynamic_friction: T::ZERO,
            zero_length: ZeroLength::Reject,
            contact_overflow: ContactOverflow::Reject,
            max_distance_scale: T::ONE,
        }
    }
}

/// Default damping (1/s), [`StepConfig::default`]: the soft-body default
/// of Jolt Physics; a swinging cloth loses about 10 % of its speed per
/// second and settles in tens of seconds, while free fall barely notices
/// (terminal speed g/c = 98 m/s).
pub const DEFAULT_DAMPING: f64 = 0.1;
/// Default particle radius (m), [`StepConfig::default`]: a cloth's
/// half-thickness of 1 cm. Particles rest 1 cm from colliders and, with
/// self-collision (which needs a radius > 0), 2 cm from each other: keep
/// it below half the spacing of particles that are not linked.
pub const DEFAULT_PARTICLE_RADIUS: f64 = 0.01;
/// Default static friction μ_s, [`StepConfig::default`]: cloth on most
/// surfaces. (0.5 with μ_k 0.3 holds a cloth draped over a sphere in a
/// stick-slip cycle of about 1 cm/s, `docs/lifecycle.md`; 0.6 settles.)
pub const DEFAULT_STATIC_FRICTION: f64 = 0.6;
/// Default dynamic friction μ_k, [`StepConfig::default`] (half of μ_s).
pub const DEFAULT_DYNAMIC_FRICTION: f64 = 0.3;

impl<T: Real, const D: usize> Default for StepConfig<T, D> {
    /// The configuration to start from: gravity 9.81 m/s² down the second
    /// axis (−y; the first axis in 1D), [`DEFAULT_SUBSTEPS`] (20) substeps
    /// of [`DEFAULT_ITERATIONS`] (1) iteration, no tolerance,
    /// [`DEFAULT_DAMPING`] 0.1/s, [`DEFAULT_PARTICLE_RADIUS`] 1 cm, rigid
    /// contacts with [`DEFAULT_STATIC_FRICTION`] 0.6 and
    /// [`DEFAULT_DYNAMIC_FRICTION`] 0.3, coincident link ends rejected,
    /// contact overflow rejected. Each constant says why.
    fn default() -> Self {
        let mut gravity = [T::ZERO; D];
        if let Some(g) = gravity.get_mut(usize::from(D >= 2)) {
            *g = T::from_f64(-9.81);
        }
        Self {
            damping: T::from_f64(DEFAULT_DAMPING),
            particle_radius: T::from_f64(DEFAULT_PARTICLE_RADIUS),
            static_friction: T::from_f64(DEFAULT_STATIC_FRICTION),
            dynamic_friction: T::from_f64(DEFAULT_DYNAMIC_FRICTION),
            ..Self::new(gravity)
        }
    }
}

/// Scratch entries [`step`] needs for a 3D world of `particles` particles
/// and `links` links: `3 · particles` (the frame's start and `x_prev`, or
/// the SoA frame's particles) plus `2 · links` (each link's state: α̃, g,
/// λ, its signed rest length and its two indices), saturating. [`World::requirements`] gives any dimension's.
#[must_use]
pub const fn scratch_len(particles: usize, links: usize) -> usize {
    scratch_entries(particles, links, 3)
}

/// Scratch entries of `[T; dimension]` for `particles` particles and
/// `links` links (see [`scratch_len`]; 0 counts as 1).
pub(crate) const fn scratch_entries(particles: usize, links: usize, dimension: usize) -> usize {
    let dimension = if dimension == 0 { 1 } else { dimension };
    particles
        .saturating_mul(3)
        .saturating_add(link_pass::state_len(links).div_ceil(dimension))
}

/// What a [`step`] did.
///
/// `#[repr(C)]`: `StepStats<f64>` is the C type `XpbdStepStats`,
/// `StepStats<f32>` is `XpbdStepStatsF32`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepStats<T> {
    /// Substeps run.
    pub substeps: u32,
    /// Link sweeps run in all substeps.
    pub iterations: u32,
    /// Substeps whose last sweep met the tolerance (when tolerance > 0).
    pub converged_substeps: u32,
    /// Most contacts solved in one substep (at most the capacity).
    pub max_contacts: usize,
    /// Diagnostics of the last link sweep.
    pub last: SweepStats<T>,
    /// Contacts found beyond the capacity and dropped, summed over the
    /// substeps (only under [`ContactOverflow::KeepFirst`]; else 0).
    pub contacts_dropped: usize,
    /// Links this frame tore (disabled), including those beyond the
    /// capacity of [`Tearing::torn`].
    pub torn: usize,
    /// Most particle–particle contacts solved in one substep
    /// (self-collision; at most the capacity).
    pub max_pairs: usize,
    /// Predictions the self-collision displacement bound scaled down,
    /// summed over the substeps (self-collision only).
    pub clamped: usize,
}

fn validate_config<T: Real, const D: usize>(c: &StepConfig<T, D>) -> Result<(), StepError> {
    let bad = |field| Err(StepError::InvalidConfig { field });
    if c.substeps == 0 {
        return bad(Field::Substeps);
    }
    if c.iterations == 0 {
        return bad(Field::Iterations);
    }
    if c.substeps > solver::MAX_SUBSTEPS || c.iterations > solver::MAX_ITERATIONS {
        return Err(StepError::WorkLimit);
    }
    let values = [
        (c.tolerance, Field::Tolerance),
        (c.damping, Field::Damping),
        (c.particle_radius, Field::ParticleRadius),
        (c.contact_compliance, Field::ContactCompliance),
        (c.static_friction, Field::StaticFriction),
        (c.dynamic_friction, Field::DynamicFriction),
        (c.max_distance_scale, Field::MaxDistanceScale),
    ];
    if !c.gravity.iter().all(|g| g.is_finite()) {
        return bad(Field::Gravity);
    }
    match values.iter().find(|(v, _)| !finite_non_negative(*v)) {
        Some(&(_, field)) => bad(field),
        None => Ok(()),
    }
}

/// Advances the world by one frame of `frame_dt` seconds (see the module
/// documentation for the loop), whatever blocks the world holds.
///
/// With [`World::groups`] each iteration sweeps the links, then the groups
/// in their order, then the contacts; the groups' λ are reset with the
/// links' at every substep and kept across its iterations, validated with
/// the links before anything is written (errors name a constraint by its
/// index after the links, as [`Constraints`] explains), and count towards
/// [`MAX_WORK`](crate::MAX_WORK).
///
/// # Errors
///
/// Configuration and input errors ([`StepError::InvalidFrameTime`],
/// [`StepError::InvalidConfig`] naming the field,
/// [`StepError::VelocityCountMismatch`], [`StepError::ScratchTooSmall`],
/// [`StepError::WorkLimit`] for a frame whose counted work is over
/// [`MAX_WORK`](crate::MAX_WORK) (see the module documentation, "Work"),
/// [`StepError::NonFiniteVelocity`], [`StepError::InvalidCollider`],
/// [`StepError::InvalidSelfCollision`], [`StepError::GroupsNeed3D`], the
/// system's [`SystemError`]s, [`StepError::MaxForceCountMismatch`] and
/// [`StepError::InvalidMaxForce`]) are found before anything is written. Errors
/// during the substeps ([`StepError::ContactCapacity`] and
/// [`StepError::PairCapacity`] with the length needed,
/// [`StepError::InvalidContactResult`], [`StepError::InvalidResult`],
/// [`StepError::WorkLimit`] from a self-collision pair search over the
/// frame's budget, a system sweep error) roll positions and velocities
/// back to the start of the frame. Either way the caller's positions,
/// velocities and links (λ included) are bit-identical to before the
/// call, and no link is torn (flags and `torn` unchanged); the groups'
/// and contacts' λ after an error are unspecified.
///
/// # The frame is a transaction
///
/// Validated once (everything above), the substeps run the links on the
/// link pass (`link_pass`: per-frame constants `g = 1/(w_i + w_j + α̃)`
/// in the scratch, λ kept there, no per-link check), the velocity pass
/// checks the result, and a successful frame commits the links' λ. A
/// frame that fails on the link pass is rolled back and run again on the
/// checked path (every link checked as it is solved), which names the
/// cause and its index as precisely as the checked path alone did.
///
/// # Examples
///
/// A particle falling onto the ground plane y = 0:
///
/// ```
/// use xpbd::step::{step, Colliders, Contact, Plane, StepConfig, World};
///
/// let mut x = [[0.0_f64, 1.0, 0.0]];
/// let mut v = [[0.0, 0.0, 0.0]];
/// let ground = [Plane { normal: [0.0, 1.0, 0.0], offset: 0.0 }];
/// let mut contacts = [Contact::default(); 1]; // requirements().contacts
/// let mut scratch = [[0.0; 3]; 3]; // requirements().scratch
/// let mut world = World::new(&mut x, &mut v, &[1.0], &mut contacts, &mut scratch);
/// world.colliders = Some(Colliders { planes: &ground, ..Default::default() });
/// assert_eq!(world.requirements().contacts, 1);
/// let config = StepConfig::default(); // g = (0, -9.81, 0), 20 substeps
/// for _ in 0..120 {
///     step(&mut world, 1.0 / 60.0, &config).unwrap();
/// }
/// assert!(world.positions[0][1].abs() < 0.011); // resting on the plane, r = 1 cm
/// ```
pub fn step<T: Real, const D: usize>(
    world: &mut World<'_, T, D>,
    frame_dt: T,
    config: &StepConfig<T, D>,
) -> Result<StepStats<T>, StepError> {
    if D != 3 && (world.groups.is_some() || world.wind.is_some() || world.local_space.is_some()) {
        return Err(StepError::GroupsNeed3D);
    }
    // One monomorph whatever the blocks: without groups the group walks
    // are empty (the bits of a links-only loop), and a firmware links one
    // frame loop, not two.
    let (mut frame, mut groups) = world.frame();
    step_groups::<T, D, true, _>(&mut frame, &mut groups, frame_dt, config, &Sequential)
}

/// [`step`] and [`step_colored`]: one implementation for every dimension
/// (the groups are empty unless the world is 3D) and every order.
fn step_groups<T: Real, const D: usize, const G: bool, O: Order<T, D, G>>(
    world: &mut Frame<'_, T, D>,
    constraints: &mut Constraints<'_, T>,
    frame_dt: T,
    config: &StepConfig<T, D>,
    order: &O,
) -> Result<StepStats<T>, StepError> {
    if !frame_dt.is_finite() || frame_dt <= T::ZERO {
        return Err(StepError::InvalidFrameTime);
    }
    validate_config(config)?;
    let n = world.positions.len();
    if world.velocities.len() != n {
        return Err(StepError::VelocityCountMismatch);
    }
    if u32::try_from(n).is_err() {
        return Err(StepError::System(SystemError::TooManyParticles));
    }
    let needed = scratch_entries(n, world.links.len(), D);
    if world.scratch.len() < needed {
        return Err(StepError::ScratchTooSmall { needed });
    }
    // The frame's work (`MAX_WORK`'s documentation): the sweeps, then
    // every substep's particle work (prediction, detection against each
    // collider, velocity update); what is left bounds the pair searches.
    let sweeps = u64::from(config.substeps).saturating_mul(u64::from(config.iterations));
    let per_sweep = world
        .links
        .len()
        .saturating_add(world.contacts.len())
        .saturating_add(world.engine_contacts.len())
        .saturating_add(world.self_collision.as_ref().map_or(0, |sc| sc.pairs.len()))
        .saturating_add(constraints.len());
    let per_particle = world
        .planes
        .len()
        .saturating_add(world.spheres.len())
        .saturating_add(world.capsules.len())
        .saturating_add(world.boxes.len())
        .saturating_add(world.fields.len())
        .saturating_add(1);
    let triangles = world.wind.map_or(0, |w| w.triangles.len());
    let work = solver::sweep_work(sweeps, per_sweep).saturating_add(solver::sweep_work(
        u64::from(config.substeps),
        n.saturating_mul(per_particle).saturating_add(triangles),
    ));
    let Some(search_budget) = solver::MAX_WORK.checked_sub(work) else {
        return Err(StepError::WorkLimit);
    };
    for (particle, v) in world.velocities.iter().enumerate() {
        if !v.iter().all(|c| c.is_finite()) {
            return Err(StepError::NonFiniteVelocity { particle });
        }
    }
    validate_colliders(
        (world.planes, world.spheres),
        (world.capsules, world.boxes),
        &world.fields,
        (world.engine_contacts, n),
    )?;
    if let Some(wind) = &world.wind {
        wind.check(n)?;
    }
    if let Some(local) = &world.local_space {
        local.check()?;
    }
    if let Some(sc) = &world.self_collision {
        if config.particle_radius <= T::ZERO {
            return Err(StepError::InvalidSelfCollision {
                field: Field::ParticleRadius,
            });
        }
        sc.check(n, world.links.len())
            .map_err(|field| StepError::InvalidSelfCollision { field })?;
    }
    let substeps = T::from_f64(f64::from(config.substeps));
    let h = frame_dt / substeps;
    // The velocities the root's motion adds, written to the block at the
    // end of a successful frame: finite (a finite jump can overflow),
    // checked before anything runs, as the block is.
    let local_added = match world.local_space.as_deref() {
        Some(local) => Some(local.frame_added(config.substeps, h)?),
        None => None,
    };
    // The scratch, lent out of the world for the frame (and put back):
    // the snapshot, `x_prev`, then the links' state (α̃, g, λ and the
    // signed rest length, an array each).
    // (Checked splits and zip copies: on a 32-bit target the length checks
    // above do not prove `2n ≤ scratch.len()` to the compiler, and
    // `split_at_mut` / `copy_from_slice` would keep a panic path. An error
    // before the frame runs leaves the frame's view of the scratch empty:
    // `step` and `step_colored` drop that view.)
    let too_small = StepError::ScratchTooSmall { needed };
    let scratch = core::mem::take(&mut world.scratch);
    let (saved, rest) = scratch
        .split_at_mut_checked(n.checked_mul(2).ok_or(too_small)?)
        .ok_or(too_small)?;
    let (saved_x, saved_v) = saved.split_at_mut_checked(n).ok_or(too_small)?;
    let (previous, rest) = rest.split_at_mut_checked(n).ok_or(too_small)?;
    let mut state =
        LinkState::carve(rest.as_flattened_mut(), world.links.len()).ok_or(too_small)?;
    // The links' α̃ and g for the frame are written as they pass.
    order.validate(
        world.positions,
        world.inverse_masses,
        world.links,
        h,
        config.zero_length,
        state.reborrow().constants(),
    )?;
    if G {
        constraints.validate(world.links.len(), world.inverse_masses, h * h)?;
    }
    validate_max_force(world.link_max_force, world.links.len())?;

    let h2 = h * h;
    // The frame on the SoA passes when the order has them and the world
    // fits them (`soa_frame`); it writes the caller's positions and
    // velocities only when it succeeds. Else, or when it fails, the frame
    // on the AoS passes.
    let soa = order.soa_frame(
        world,
        constraints,
        [&mut *saved_x, &mut *saved_v, &mut *previous],
        state.reborrow(),
        (h, frame_dt),
        config,
    );
    let mut result = if let Some(stats) = soa {
        Ok(stats)
    } else {
        // Keep the frame's start for an all-or-nothing step.
        let saving = order
            .save(saved_x, world.positions)
            .and_then(|()| order.save(saved_v, world.velocities));
        if let Err(e) = saving {
            // Nothing was written but the snapshot and the state (a job
            // system that skipped a task).
            world.scratch = scratch;
            return Err(e);
        }
        // The frame on the link pass; on any error it is rolled back and
        // run again on the checked path, which names the cause (and whose
        // bits, should it succeed, are the frame's).
        run_frame(
            world,
            constraints,
            previous,
            h,
            frame_dt,
            config,
            order,
            search_budget,
            Some(state.reborrow()),
        )
    };
    if result.is_ok() {
        if order.commit_links(world.links, state.lambda).is_err() {
            // A job system that skipped a commit task (it ran every task
            // of the frame's other phases): the commit on this thread.
            link_pass::commit(world.links, state.lambda);
        }
    } else {
        copy(world.positions, saved_x);
        copy(world.velocities, saved_v);
        // The checked path writes the links' λ as it goes: the caller's
        // are kept in the state (free now) and put back if it fails too.
        link_pass::keep_lambdas(world.links, state.lambda);
        result = run_frame(
            world,
            constraints,
            previous,
            h,
            frame_dt,
            config,
            order,
            search_budget,
            None,
        );
    }
    match result {
        Ok(mut stats) => {
            // Only a successful frame reports forces, moves the points on
            // and tears links.
            constraints.end_frame(frame_dt);
            for c in world.engine_contacts.iter_mut() {
                c.end_frame(frame_dt);
            }
            if let (Some(local), Some(added)) = (world.local_space.as_deref_mut(), local_added) {
                local.end_frame(added);
            }
            stats.torn = tear(world.links, world.link_max_force, h2, world.torn);
            world.scratch = scratch;
            Ok(stats)
        }
        Err(e) => {
            copy(world.positions, saved_x);
            copy(world.velocities, saved_v);
            link_pass::commit(world.links, state.lambda);
            world.scratch = scratch;
            Err(e)
        }
    }
}

/// The substeps of a frame ([`run_substeps`]; with the links' `state`: on
/// the link pass), then the check that its forces are representable.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn run_frame<T: Real, const D: usize, const G: bool, O: Order<T, D, G>>(
    world: &mut Frame<'_, T, D>,
    constraints: &mut Constraints<'_, T>,
    previous: &mut [[T; D]],
    h: T,
    frame_dt: T,
    config: &StepConfig<T, D>,
    order: &O,
    search_budget: u64,
    state: Option<LinkState<'_, T>>,
) -> Result<StepStats<T>, StepError> {
    let stats = run_substeps::<T, D, G, O>(
        world,
        constraints.reborrow(),
        previous,
        h,
        config,
        order,
        search_budget,
        state,
    )?;
    // A frame force beyond the float range (a very heavy particle pushed
    // or held far in a short frame: λ finite, λ/h or impulse/dt not)
    // fails the frame like a non-finite velocity, before any force is
    // written.
    let particle = constraints.unrepresentable_force(frame_dt).or_else(|| {
        world
            .engine_contacts
            .iter()
            .find_map(|c| c.unrepresentable_force(frame_dt))
    });
    match particle {
        Some(particle) => Err(StepError::InvalidResult { particle }),
        None => Ok(stats),
    }
}

/// `dst ← src` element by element over the common length (the callers pass
/// equal lengths); unlike `copy_from_slice` it has no panic path.
#[inline]
fn copy<E: Copy>(dst: &mut [E], src: &[E]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}

/// The substeps of one frame over the world's slices (validated by
/// [`step`]); any error is returned at once (the caller rolls back).
/// `search_budget`: the visits the frame's pair searches may make in all
/// (what [`MAX_WORK`](crate::MAX_WORK) leaves after the sweeps and the
/// particle work).
#[allow(clippy::too_many_arguments)]
fn run_substeps<T: Real, const D: usize, const G: bool, O: Order<T, D, G>>(
    world: &mut Frame<'_, T, D>,
    constraints: Constraints<'_, T>,
    previous: &mut [[T; D]],
    h: T,
    config: &StepConfig<T, D>,
    order: &O,
    mut search_budget: u64,
    mut state: Option<LinkState<'_, T>>,
) -> Result<StepStats<T>, StepError> {
    let h2 = h * h;
    let mut stats = StepStats::default();
    let keep = {
        let k = T::ONE - config.damping * h;
        if k > T::ZERO {
            k
        } else {
            T::ZERO
        }
    };
    let damped = config.damping > T::ZERO;
    let inverse_masses = world.inverse_masses;
    let velocities = &mut *world.velocities;
    let engine = &mut *world.engine_contacts;
    let contacts = &mut *world.contacts;
    for e in engine.iter_mut() {
        e.begin_frame();
    }
    let mut no_pairs = SelfCollision::default();
    let self_collision = world.self_collision.is_some();
    let sc = world.self_collision.as_mut().unwrap_or(&mut no_pairs);
    if self_collision {
        spatial::build_adjacency(world.links, world.positions.len(), sc.adjacency);
    }
    // On the link pass the links are swept by `link_pass`, outside the
    // system (which then solves the groups and contacts only).
    let (system_links, pass_links): (&mut [Link<T>], &[Link<T>]) = match state {
        Some(_) => (&mut [], &*world.links),
        None => (&mut *world.links, &[]),
    };
    let mut system = System::new(&mut *world.positions, inverse_masses, system_links)?
        .with_zero_length(config.zero_length);
    system.constraints = constraints;
    system.constraints.begin_frame();
    let mut poses = [Prepared::default(); PREPARED];
    let mut added = world.local_space.as_deref().map(LocalSpace::added);
    for s in 0..config.substeps {
        // The substep's end, s after the frame's start.
        let time = h * T::from_f64(f64::from(s.saturating_add(1)));
        // The colliders (their `previous` set after the prediction).
        let template = substep_colliders(
            (world.planes, world.spheres),
            (world.capsules, world.boxes, world.fields),
            (s, h),
            config,
            &mut poses,
        );
        // Local space: the particles carried by the frame's scaled motion,
        // gravity turned into the frame (`local_space`).
        let local = (world.local_space.as_deref().zip(added.as_mut()))
            .map(|(l, a)| l.substep(s, config.substeps, h, a));
        if let Some(l) = &local {
            l.carry(system.positions_mut(), velocities, inverse_masses);
        }
        let gravity = local.map_or(config.gravity, |l| l.in_frame(&config.gravity));
        // Wind: its drag and lift change the velocities before the
        // prediction, as gravity does (`wind`).
        if let Some(wind) = &world.wind {
            let (x, w) = (system.positions(), inverse_masses);
            wind::apply(wind, x, velocities, w, h, previous, local.as_ref());
        }
        // x_prev ← x, then predict: x ← x + h v + h² g for moving
        // particles; a kinematic particle (w = 0) with a velocity moves by
        // h v. Then the contacts against colliders at the predicted
        // positions (after the self-collision's clamp, if on).
        let (mut pair_count, mut pairs_dropped) = (0usize, 0usize);
        let (count, dropped) = if O::FUSED && !self_collision {
            order.predict_detect(
                system.positions_mut(),
                previous,
                velocities,
                inverse_masses,
                h,
                &gravity,
                &template,
                contacts,
            )?
        } else {
            order.predict(
                system.positions_mut(),
                previous,
                velocities,
                inverse_masses,
                h,
                &gravity,
            )?;
            if self_collision {
                let r = config.particle_radius;
                let clamped = spatial::clamp_displacements(
                    system.positions_mut(),
                    previous,
                    inverse_masses,
                    r,
                );
                stats.clamped = stats.clamped.saturating_add(clamped);
                (pair_count, pairs_dropped) = spatial::find_pairs(
                    system.positions(),
                    inverse_masses,
                    sc,
                    r,
                    &mut search_budget,
                    false,
                )?;
            }
            let colliders = Detect {
                previous: &*previous,
                ..template
            };
            order.detect(system.positions(), inverse_masses, &colliders, contacts)?
        };
        let colliders = Detect {
            previous: &*previous,
            ..template
        };
        if config.contact_overflow == ContactOverflow::Reject {
            if dropped > 0 {
                return Err(StepError::ContactCapacity {
                    needed: count.saturating_add(dropped),
                });
            }
            if pairs_dropped > 0 {
                return Err(StepError::PairCapacity {
                    needed: pair_count.saturating_add(pairs_dropped),
                });
            }
        }
        let dropped = dropped.saturating_add(pairs_dropped);
        stats.contacts_dropped = stats.contacts_dropped.saturating_add(dropped);
        stats.max_contacts = stats.max_contacts.max(count);
        stats.max_pairs = stats.max_pairs.max(pair_count);
        let pairs = sc
            .pairs
            .get_mut(..pair_count)
            .ok_or(StepError::PairCapacity { needed: pair_count })?;
        let pair_colors = order.arrange_pairs(pairs, sc.table);
        let found = contacts
            .get_mut(..count)
            .ok_or(StepError::ContactCapacity { needed: count })?;
        {
            // begin_substep: validate at the predicted positions, then the
            // one λ reset for links, groups and contacts.
            let group = ContactGroup {
                items: &mut *found,
                colliders,
                engine: &mut *engine,
                surfaces: Surfaces {
                    previous: &*previous,
                    radius: config.particle_radius,
                    alpha: config.contact_compliance / h2,
                    time,
                    h,
                },
                pairs: &mut *pairs,
                pair_shared: Pairs {
                    previous: &*previous,
                    distance: particle_contact::contact_distance(config.particle_radius),
                    alpha: config.contact_compliance / h2,
                    static_friction: config.static_friction,
                },
                pair_colors,
            };
            let motion = Motion::of(s, config.substeps, config.max_distance_scale);
            let substep = match state {
                Some(_) => order.begin_unchecked(&mut system, h, group)?,
                None => order.begin(&mut system, h, group, s == 0)?,
            };
            let mut substep = substep.with_motion(motion);
            let last_substep = s.saturating_add(1) == config.substeps;
            for k in 0..config.iterations {
                let mut links = SweepStats::default();
                if let Some(state) = state.as_mut() {
                    // Statistics only for a sweep whose figures count: the
                    // frame's last, or every one against a tolerance.
                    let want = config.tolerance > T::ZERO
                        || (last_substep && k.saturating_add(1) == config.iterations);
                    let pass = Pass {
                        first: k == 0,
                        policy: config.zero_length,
                    };
                    order.sweep_links(
                        &mut substep,
                        pass_links,
                        state.reborrow(),
                        &pass,
                        want.then_some(&mut links),
                    )?;
                }
                stats.last = links.merge(order.iterate(&mut substep)?);
                stats.iterations = stats.iterations.saturating_add(1);
                if config.tolerance > T::ZERO && stats.last.max_residual <= config.tolerance {
                    stats.converged_substeps = stats.converged_substeps.saturating_add(1);
                    break;
                }
            }
        }
        system.constraints.end_substep(h);
        for e in engine.iter_mut() {
            e.end_substep(h);
        }
        // Velocity update (kinematic particles keep theirs), dynamic
        // friction, damping.
        let update = Update {
            x: system.positions(),
            previous,
            w: inverse_masses,
            h,
            keep: damped.then_some(keep),
            contacts: found,
            colliders: &colliders,
            mu: config.dynamic_friction,
            last: engine.is_empty() && pairs.is_empty(),
        };
        if order.velocities(velocities, &update)? {
            stats.substeps = stats.substeps.saturating_add(1);
            continue;
        }
        engine_contact::dynamic_friction(velocities, inverse_masses, engine, h);
        particle_contact::dynamic_friction(
            velocities,
            system.positions(),
            inverse_masses,
            pairs,
            h,
            config.dynamic_friction,
        );
        // Dynamic friction may overflow a huge (finite) velocity: checked
        // after it, so that a success leaves every velocity finite.
        if let Some(particle) = velocities
            .iter()
            .position(|v| !v.iter().all(|c| c.is_finite()))
        {
            return Err(StepError::InvalidResult { particle });
        }
        stats.substeps = stats.substeps.saturating_add(1);
    }
    Ok(stats)
}
