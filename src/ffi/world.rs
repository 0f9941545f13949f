//! The C world (`XpbdWorld3`): particles, links, one memory block the
//! library carves, and a chain of feature blocks (`XpbdBlock`), each
//! NULL-terminated, each made by its `_default` function. Adding a feature
//! adds a block kind, never a field of the world.

use core::ffi::c_void;

use super::types::ConstraintsC;
use crate::constraint::contact::{Plane, Sphere};
use crate::constraint::distance::Link;
use crate::constraint::engine_contact::EngineContact;
use crate::constraint::field::{Heightfield, Sdf};
use crate::constraint::moving::{Capsule, OrientedBox};
use crate::step::{AeroTriangle, LocalSpace};

/// Block kind: colliders (`XpbdColliders3`). The float blocks add
/// `XPBD_BLOCK_F32`.
pub const XPBD_BLOCK_COLLIDERS: u32 = 1;
/// Block kind: self-collision (`XpbdSelfCollision3`).
pub const XPBD_BLOCK_SELF_COLLISION: u32 = 2;
/// Block kind: tearing (`XpbdTearing3`).
pub const XPBD_BLOCK_TEARING: u32 = 3;
/// Block kind: engine contacts (`XpbdEngineContacts3`).
pub const XPBD_BLOCK_ENGINE_CONTACTS: u32 = 4;
/// Block kind: constraint groups (`XpbdGroups3`).
pub const XPBD_BLOCK_GROUPS: u32 = 5;
/// Block kind: wind, drag and lift on triangles (`XpbdWind3`).
pub const XPBD_BLOCK_WIND: u32 = 6;
/// Block kind: local space, the particles in a moving root frame
/// (`XpbdLocalSpace3`).
pub const XPBD_BLOCK_LOCAL_SPACE: u32 = 7;
/// Added to a block kind for the float (`F32`) blocks.
pub const XPBD_BLOCK_F32: u32 = 0x100;
/// Most blocks a world chain may hold (one per kind); a longer chain (a
/// cycle, say) is refused.
pub const XPBD_MAX_BLOCKS: usize = 7;
/// The alignment (bytes) `XpbdWorld3::memory` must have (what `malloc`
/// returns).
pub const XPBD_MEMORY_ALIGN: usize = 8;

/// `error_field` codes (`XpbdWorld3::error_field`): which value an error
/// concerns, beside the status.
/// `error_field`: no particular field.
pub const XPBD_FIELD_NONE: i32 = 0;
/// `error_field`: `XpbdStepConfig3::substeps` (0).
pub const XPBD_FIELD_SUBSTEPS: i32 = 1;
/// `error_field`: `XpbdStepConfig3::iterations` (0).
pub const XPBD_FIELD_ITERATIONS: i32 = 2;
/// `error_field`: `XpbdStepConfig3::gravity` (not finite).
pub const XPBD_FIELD_GRAVITY: i32 = 3;
/// `error_field`: `XpbdStepConfig3::tolerance`.
pub const XPBD_FIELD_TOLERANCE: i32 = 4;
/// `error_field`: `XpbdStepConfig3::damping`.
pub const XPBD_FIELD_DAMPING: i32 = 5;
/// `error_field`: `XpbdStepConfig3::particle_radius` (negative, not finite, or 0 with self-collision).
pub const XPBD_FIELD_PARTICLE_RADIUS: i32 = 6;
/// `error_field`: `XpbdStepConfig3::contact_compliance`.
pub const XPBD_FIELD_CONTACT_COMPLIANCE: i32 = 7;
/// `error_field`: `XpbdStepConfig3::static_friction`.
pub const XPBD_FIELD_STATIC_FRICTION: i32 = 8;
/// `error_field`: `XpbdStepConfig3::dynamic_friction`.
pub const XPBD_FIELD_DYNAMIC_FRICTION: i32 = 9;
/// `error_field`: `XpbdStepConfig3::zero_length_policy` (unknown code).
pub const XPBD_FIELD_ZERO_LENGTH_POLICY: i32 = 10;
/// `error_field`: `XpbdStepConfig3::contact_overflow` (unknown code).
pub const XPBD_FIELD_CONTACT_OVERFLOW: i32 = 11;
/// `error_field`: the self-collision hash table (Rust API).
pub const XPBD_FIELD_HASH_TABLE: i32 = 12;
/// `error_field`: the self-collision particle ids (Rust API).
pub const XPBD_FIELD_HASH_IDS: i32 = 13;
/// `error_field`: the self-collision adjacency (Rust API).
pub const XPBD_FIELD_ADJACENCY: i32 = 14;
/// `error_field`: `XpbdSelfCollision3::rest_positions` (not finite).
pub const XPBD_FIELD_REST_POSITIONS: i32 = 15;
/// `error_field`: the contacts: `error_index` is the count a substep needed.
pub const XPBD_FIELD_CONTACTS: i32 = 16;
/// `error_field`: the particle pairs: `error_index` is the count a substep needed.
pub const XPBD_FIELD_PAIRS: i32 = 17;
/// `error_field`: the step scratch: `error_index` is the length needed.
pub const XPBD_FIELD_SCRATCH: i32 = 18;
/// `error_field`: `XpbdWorld3::memory`: `error_index` is the size (bytes) needed (or it is NULL or misaligned).
pub const XPBD_FIELD_MEMORY: i32 = 19;
/// `error_field`: a block of the chain: `error_index` is its position.
pub const XPBD_FIELD_BLOCK: i32 = 20;
/// `error_field`: the frame time `dt`.
pub const XPBD_FIELD_FRAME_TIME: i32 = 21;
/// `error_field`: `XpbdStepConfig3::max_distance_scale` (negative or not finite).
pub const XPBD_FIELD_MAX_DISTANCE_SCALE: i32 = 22;
/// Field code: the wind block's velocity (not finite).
pub const XPBD_FIELD_WIND_VELOCITY: i32 = 23;
/// Field code: the wind block's fluid density (negative or not finite).
pub const XPBD_FIELD_FLUID_DENSITY: i32 = 24;
/// Field code: the wind block's per-particle wind (an entry not finite;
/// `error_index` the particle).
pub const XPBD_FIELD_PARTICLE_WIND: i32 = 25;
/// Field code: the wind block's triangles (an index out of range, equal
/// indices, a coefficient negative or not finite; `error_index` the
/// triangle).
pub const XPBD_FIELD_AERO_TRIANGLES: i32 = 26;
/// Field code: the local-space block's root transforms (not finite, or a
/// rotation not of unit norm).
pub const XPBD_FIELD_ROOT_TRANSFORM: i32 = 27;
/// Field code: the local-space block's inertia scales (outside [0, 1]).
pub const XPBD_FIELD_INERTIA_SCALE: i32 = 28;
/// Field code: the local-space block's velocity limits (negative or NaN).
pub const XPBD_FIELD_FRAME_VELOCITY_LIMIT: i32 = 29;
/// Field code: the local-space block's acceleration limits (negative or
/// NaN).
pub const XPBD_FIELD_FRAME_ACCELERATION_LIMIT: i32 = 30;
/// Field code: the local-space block's added velocities
/// (`linear_velocity`, `angular_velocity`: not finite).
pub const XPBD_FIELD_FRAME_VELOCITY: i32 = 31;
/// Pairs per particle of the default self-collision pair budget
/// (`XpbdSelfCollision3::pair_budget` 0): equal spheres at least 2r apart
/// touch at most 12 others, 6 pairs per particle.
pub const XPBD_DEFAULT_PAIRS_PER_PARTICLE: usize = 6;

#[cfg(test)]
mod tests {
    use crate::error::Field;

    #[test]
    fn the_c_pair_default_is_the_rust_one() {
        assert_eq!(
            super::XPBD_DEFAULT_PAIRS_PER_PARTICLE,
            crate::step::DEFAULT_PAIRS_PER_PARTICLE
        );
    }

    #[test]
    fn field_codes_are_the_rust_fields() {
        let c = [
            super::XPBD_FIELD_NONE,
            super::XPBD_FIELD_SUBSTEPS,
            super::XPBD_FIELD_ITERATIONS,
            super::XPBD_FIELD_GRAVITY,
            super::XPBD_FIELD_TOLERANCE,
            super::XPBD_FIELD_DAMPING,
            super::XPBD_FIELD_PARTICLE_RADIUS,
            super::XPBD_FIELD_CONTACT_COMPLIANCE,
            super::XPBD_FIELD_STATIC_FRICTION,
            super::XPBD_FIELD_DYNAMIC_FRICTION,
            super::XPBD_FIELD_ZERO_LENGTH_POLICY,
            super::XPBD_FIELD_CONTACT_OVERFLOW,
            super::XPBD_FIELD_HASH_TABLE,
            super::XPBD_FIELD_HASH_IDS,
            super::XPBD_FIELD_ADJACENCY,
            super::XPBD_FIELD_REST_POSITIONS,
            super::XPBD_FIELD_CONTACTS,
            super::XPBD_FIELD_PAIRS,
            super::XPBD_FIELD_SCRATCH,
            super::XPBD_FIELD_MEMORY,
            super::XPBD_FIELD_BLOCK,
            super::XPBD_FIELD_FRAME_TIME,
            super::XPBD_FIELD_MAX_DISTANCE_SCALE,
            super::XPBD_FIELD_WIND_VELOCITY,
            super::XPBD_FIELD_FLUID_DENSITY,
            super::XPBD_FIELD_PARTICLE_WIND,
            super::XPBD_FIELD_AERO_TRIANGLES,
            super::XPBD_FIELD_ROOT_TRANSFORM,
            super::XPBD_FIELD_INERTIA_SCALE,
            super::XPBD_FIELD_FRAME_VELOCITY_LIMIT,
            super::XPBD_FIELD_FRAME_ACCELERATION_LIMIT,
            super::XPBD_FIELD_FRAME_VELOCITY,
        ];
        assert_eq!(c.len(), Field::ALL.len());
        for (code, field) in c.iter().zip(Field::ALL) {
            assert_eq!(*code, field.code(), "{}", field.name());
        }
    }
}

/// The header every feature block starts with (`XpbdBlock`). Its block's
/// `_default` function writes `kind` and `size`; `xpbd_world3_add` links
/// it into a world's chain through `next`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct XpbdBlock {
    /// `XPBD_BLOCK_*` (plus `XPBD_BLOCK_F32` for a float block).
    pub kind: u32,
    /// `sizeof` the whole block struct, as this library was built.
    pub size: u32,
    /// The next block of the chain, or NULL.
    pub next: *mut XpbdBlock,
}

/// A 3D world over caller-owned buffers (`XpbdWorld3`: double,
/// `XpbdWorld3F32`: float). Start from `xpbd_world3_default()`, set the
/// particles, the links and the memory (`xpbd_world3_requirements` says
/// how much), add the feature blocks you use with `xpbd_world3_add`. The
/// library writes the buffers' contents, the memory, `error_index` and
/// `error_field`; never the other fields.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct WorldC<T> {
    /// Positions (m), `particle_count` entries.
    pub positions: *mut [T; 3],
    /// Velocities (m/s), `particle_count` entries.
    pub velocities: *mut [T; 3],
    /// Inverse masses (1/kg), `particle_count` entries; 0 = never moves.
    pub inverse_masses: *const T,
    /// Number of particles.
    pub particle_count: usize,
    /// Links, `link_count` entries (λ written).
    pub links: *mut Link<T>,
    /// Number of links.
    pub link_count: usize,
    /// The library's memory: `memory_size` bytes, aligned to
    /// `XPBD_MEMORY_ALIGN` (8), at least
    /// `XpbdRequirements::memory_size`. The library's during a call
    /// (scratch, contacts, pairs, hash table); its contents after a call
    /// mean nothing.
    pub memory: *mut c_void,
    /// Bytes of `memory`.
    pub memory_size: usize,
    /// The feature blocks (a chain through `XpbdBlock::next`), or NULL.
    pub blocks: *mut XpbdBlock,
    /// Written by every step: on error the index the error names (a
    /// particle, link, collider, contact, a block's position in the
    /// chain, or with `XPBD_STATUS_CAPACITY_TOO_SMALL` the length
    /// needed), 0 on success.
    pub error_index: usize,
    /// Written by every step: on error the `XPBD_FIELD_*` code of the
    /// value concerned (`XPBD_FIELD_NONE` when the status says it all),
    /// `XPBD_FIELD_NONE` on success.
    pub error_field: i32,
}

/// The colliders block (`XpbdColliders3`, kind `XPBD_BLOCK_COLLIDERS`):
/// static planes and spheres, moving capsules, boxes, heightfields and
/// signed distance fields, only read. Collider indices run over the
/// planes, then spheres, capsules, boxes, heightfields, SDFs.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CollidersC<T> {
    /// The header (`xpbd_colliders3_default` writes it).
    pub block: XpbdBlock,
    /// Static half-spaces, `plane_count` entries.
    pub planes: *const Plane<T, 3>,
    /// Number of planes.
    pub plane_count: usize,
    /// Static spheres, `sphere_count` entries.
    pub spheres: *const Sphere<T, 3>,
    /// Number of spheres.
    pub sphere_count: usize,
    /// Moving capsules, `capsule_count` entries (`XpbdCapsule3`: swept
    /// over the frame).
    pub capsules: *const Capsule<T, 3>,
    /// Number of capsules.
    pub capsule_count: usize,
    /// Moving oriented boxes, `box_count` entries (`XpbdBox3`).
    pub boxes: *const OrientedBox<T, 3>,
    /// Number of boxes.
    pub box_count: usize,
    /// Heightfields, `heightfield_count` entries (`XpbdHeightfield3`:
    /// moving like boxes, heights in `samples`).
    pub heightfields: *const Heightfield<T, 3>,
    /// Number of heightfields.
    pub heightfield_count: usize,
    /// Signed distance fields, `sdf_count` entries (`XpbdSdf3`: moving
    /// like boxes, distances in `samples`).
    pub sdfs: *const Sdf<T, 3>,
    /// Number of signed distance fields.
    pub sdf_count: usize,
    /// The fields' samples (m), `sample_count` entries; each field names
    /// its first; every sample a field names must be finite.
    pub samples: *const T,
    /// Number of samples.
    pub sample_count: usize,
    /// Contacts one substep may hold; 0 (the default): particles ×
    /// colliders, which no substep exceeds. Beyond it the step fails
    /// with `XPBD_STATUS_CAPACITY_TOO_SMALL`, `XPBD_FIELD_CONTACTS` and
    /// the count needed (or keeps the first, under
    /// `XPBD_CONTACT_OVERFLOW_KEEP_FIRST`).
    pub contact_budget: usize,
}

/// The self-collision block (`XpbdSelfCollision3`, kind
/// `XPBD_BLOCK_SELF_COLLISION`): particle–particle contacts, their
/// buffers carved from the world's memory. Needs a particle radius > 0.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SelfCollisionC<T> {
    /// The header (`xpbd_self_collision3_default` writes it).
    pub block: XpbdBlock,
    /// Rest positions (m), `particle_count` entries, or NULL: pairs
    /// closer than twice the particle radius there never collide. Only
    /// read (not `const` so that a C99 `double (*)[3]` converts without a
    /// cast).
    pub rest_positions: *mut [T; 3],
    /// Pairs one substep may hold; 0 (the default):
    /// `XPBD_DEFAULT_PAIRS_PER_PARTICLE` (6) × particles. Beyond it the
    /// step fails with `XPBD_STATUS_CAPACITY_TOO_SMALL`,
    /// `XPBD_FIELD_PAIRS` and the count needed.
    pub pair_budget: usize,
}

/// The tearing block (`XpbdTearing3`, kind `XPBD_BLOCK_TEARING`). After
/// a successful step every link not `XPBD_LINK_DISABLED` whose |λ|/h²
/// exceeds its maximum gets the flag.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TearingC<T> {
    /// The header (`xpbd_tearing3_default` writes it).
    pub block: XpbdBlock,
    /// Maximum force per link (N), `link_count` entries each > 0
    /// (infinity never tears); only read.
    pub max_force: *const T,
    /// Output: the indices of the links a step tore, in link order, the
    /// first `torn_capacity` of them (`XpbdStepStats::torn` counts all);
    /// may be NULL with 0.
    pub torn: *mut u32,
    /// Capacity of `torn` (entries).
    pub torn_capacity: usize,
}

/// The engine contacts block (`XpbdEngineContacts3`, kind
/// `XPBD_BLOCK_ENGINE_CONTACTS`): the contacts the engine found for this
/// frame (`XpbdEngineContact`; λ and `impulse` written, `force` (N) after
/// a successful step).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct EngineContactsC<T> {
    /// The header (`xpbd_engine_contacts3_default` writes it).
    pub block: XpbdBlock,
    /// The contacts, `count` entries.
    pub contacts: *mut EngineContact<T, 3>,
    /// Number of contacts.
    pub count: usize,
}

/// The constraint groups block (`XpbdGroups3`, kind `XPBD_BLOCK_GROUPS`):
/// bending, tets, tethers, closed meshes and attachments, solved after
/// the links in every iteration.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct GroupsC<T> {
    /// The header (`xpbd_groups3_default` writes it).
    pub block: XpbdBlock,
    /// The groups (`XpbdConstraints3`).
    pub groups: ConstraintsC<T>,
}

/// The wind block (`XpbdWind3`, kind `XPBD_BLOCK_WIND`): drag and lift
/// on triangles from their velocity relative to the air, applied to the
/// velocities at every substep's entry (before the prediction, like
/// gravity), in `xpbd_world3_step` and `xpbd_world3_step_colored` alike.
/// For a triangle of area A (m²), unit normal n̂, relative velocity
/// u = (mean of its corners' velocities) − wind (m/s), û = u/|u|,
/// cos θ = n̂·û:
/// F_drag = −½ ρ C_d A |cos θ| |u|² û and
/// F_lift = ½ ρ C_l A |u|² cos θ (cos θ û − n̂) (N), each corner's
/// velocity changed by h w (F_drag + F_lift)/3 (h the substep, w its
/// inverse mass). Everything is only read; the step validates every value
/// first (`XPBD_STATUS_INVALID_WIND`, `error_field` and `error_index`
/// naming it).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct WindC<T> {
    /// The header (`xpbd_wind3_default` writes it).
    pub block: XpbdBlock,
    /// The triangles the wind acts on (`XpbdAeroTriangle`: three distinct
    /// particle indices, drag and lift coefficients, unitless, finite,
    /// ≥ 0), `triangle_count` entries, applied in this order; only read.
    pub triangles: *const AeroTriangle<T>,
    /// Number of triangles.
    pub triangle_count: usize,
    /// Optional wind per particle (m/s, finite, added to `velocity`; a
    /// triangle takes the mean of its corners'): NULL for none, else
    /// `particle_count` entries. Only read (not `const` so that a C99
    /// `double (*)[3]` converts without a cast).
    pub particle_velocities: *mut [T; 3],
    /// The wind velocity of the frame (m/s, world frame, finite).
    pub velocity: [T; 3],
    /// The fluid density ρ (kg/m³, finite, ≥ 0): air 1.225 (the default,
    /// `XPBD_AIR_DENSITY`), water 1000.
    pub density: T,
}

/// The local-space block (`XpbdLocalSpace3`, kind
/// `XPBD_BLOCK_LOCAL_SPACE`): the particles (positions, velocities, the
/// colliders, attachment and skinned targets) live in a character's root
/// frame, world = R(rotation)·local + translation, which moves from
/// `local.previous` to `local.target` over the frame (translation
/// linearly, rotation by nlerp); gravity and the wind stay world vectors,
/// turned into the frame at every substep. Before each substep's
/// prediction every particle with w > 0 is carried by the frame's motion
/// scaled by `local.linear_inertia` and `local.angular_inertia` (1: the
/// world-space simulation up to rounding; 0: the cloth moves rigidly with
/// the root), clamped by `local.max_linear_velocity` (m/s),
/// `local.max_angular_velocity` (rad/s), `local.max_linear_acceleration`
/// (m/s²) and `local.max_angular_acceleration` (rad/s²);
/// `local.teleport` nonzero: no carry this frame. The step validates every
/// value first (`XPBD_STATUS_INVALID_LOCAL_SPACE`, `error_field` naming
/// it) and, after a successful frame only, writes
/// `local.previous ← local.target`, the velocities the frame's motion
/// added in its last substep (`local.linear_velocity`,
/// `local.angular_velocity`: the acceleration clamps' reference) and
/// `local.teleport ← 0` into the block (nothing else, on error nothing),
/// in `xpbd_world3_step` and `xpbd_world3_step_colored` alike.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LocalSpaceC<T> {
    /// The header (`xpbd_local_space3_default` writes it).
    pub block: XpbdBlock,
    /// The root transforms, inertia scales, clamps and teleport flag
    /// (`XpbdLocalSpace`; `xpbd_local_space3_default`: the identity root
    /// at both ends, inertia 1, no clamps (+∞), no teleport).
    pub local: LocalSpace<T>,
}

/// Every length a world needs (`XpbdRequirements`), from
/// `xpbd_world3_requirements`: the one to allocate is `memory_size`
/// (bytes); the others say how it is carved (entries).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct XpbdRequirements {
    /// Bytes `XpbdWorld3::memory` needs.
    pub memory_size: usize,
    /// Scratch positions: 3 × particles.
    pub scratch: usize,
    /// Contacts: the colliders' contact budget.
    pub contacts: usize,
    /// Particle pairs: the self-collision pair budget (0 without).
    pub pairs: usize,
    /// Hash table entries (self-collision).
    pub hash_table: usize,
    /// Hash ids (self-collision).
    pub hash_ids: usize,
    /// Adjacency entries (self-collision).
    pub adjacency: usize,
    /// Coloring stamp entries (`xpbd_world3_step_colored`): particles.
    pub stamp: usize,
}

/// `XpbdWorld3` (C): a 3D double world.
pub type XpbdWorld3 = WorldC<f64>;
/// `XpbdWorld3F32` (C): a 3D float world.
pub type XpbdWorld3F32 = WorldC<f32>;
/// `XpbdColliders3` (C).
pub type XpbdColliders3 = CollidersC<f64>;
/// `XpbdColliders3F32` (C).
pub type XpbdColliders3F32 = CollidersC<f32>;
/// `XpbdSelfCollision3` (C).
pub type XpbdSelfCollision3 = SelfCollisionC<f64>;
/// `XpbdSelfCollision3F32` (C).
pub type XpbdSelfCollision3F32 = SelfCollisionC<f32>;
/// `XpbdTearing3` (C).
pub type XpbdTearing3 = TearingC<f64>;
/// `XpbdTearing3F32` (C).
pub type XpbdTearing3F32 = TearingC<f32>;
/// `XpbdEngineContacts3` (C).
pub type XpbdEngineContacts3 = EngineContactsC<f64>;
/// `XpbdEngineContacts3F32` (C).
pub type XpbdEngineContacts3F32 = EngineContactsC<f32>;
/// `XpbdGroups3` (C).
pub type XpbdGroups3 = GroupsC<f64>;
/// `XpbdGroups3F32` (C).
pub type XpbdGroups3F32 = GroupsC<f32>;
/// `XpbdWind3` (C).
pub type XpbdWind3 = WindC<f64>;
/// `XpbdWind3F32` (C).
pub type XpbdWind3F32 = WindC<f32>;
/// `XpbdLocalSpace3` (C).
pub type XpbdLocalSpace3 = LocalSpaceC<f64>;
/// `XpbdLocalSpace3F32` (C).
pub type XpbdLocalSpace3F32 = LocalSpaceC<f32>;
