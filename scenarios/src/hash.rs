//! The bit-identity scenario: one fixed computation whose every intermediate
//! state is hashed, run in f64 and in f32, on x86-64 (`cargo test`) and on
//! the emulated Cortex-M4F (`cargo qemu-test`). Both assert the same
//! constants, [`HASH_F64`] and [`HASH_F32`].
//!
//! Parts, hashed separately so a mismatch says where it is:
//!
//! 1. [`random_1d`]: [`RANDOM_OPS`] random operations on a pool of
//!    [`POOL`] positions and [`POOL`] constraints through the **C entry
//!    points** (`xpbd_distance_begin_substep(_f32)`, `xpbd_distance_solve(_f32)`),
//!    with valid values, special values (NaN, ±∞, ±0, subnormal, huge), null
//!    pointers and aliased pointers. After each operation the status code,
//!    every position and every λ are hashed.
//! 2. [`chain_1d`]: the fixed [`crate::chain::Chain`] over [`CHAIN_FRAMES`]
//!    frames with a velocity kick at frame [`KICK_FRAME`]; after each frame
//!    every position, velocity and λ is hashed.
//! 3. [`rope_3d`]: the fixed 3D [`crate::rope::Rope`] (tension-only links,
//!    gravity, a ground plane and a sphere, friction, damping) advanced
//!    [`crate::rope::FRAMES`] frames by the library's full stepping,
//!    [`xpbd::step::step`]; after each frame every position, velocity, link
//!    λ and contact (particle, collider, λ) is hashed.
//! 4. [`cloth_3d`]: the fixed colored
//!    [`crate::cloth`] (structural and shear links, 8 colors) through the
//!    colored kernel, [`crate::cloth::FRAMES`] frames; after each substep
//!    every position, velocity and λ is hashed. Its C-ABI twin (jobs per
//!    color, array-of-structures particles) must match it bit for bit.
//! 5. [`groups_3d`]: the fixed [`crate::groups`] scene with every
//!    constraint group (links, bends, tets, tethers, a pressurised closed
//!    mesh, a moving kinematic attachment, ground contacts) under
//!    [`xpbd::step::step`] (the groups in [`xpbd::step::World::groups`]),
//!    [`crate::groups::FRAMES`] frames; after each frame every position,
//!    velocity and λ is hashed.
//! 6. [`tearing_3d`]: the fixed [`crate::tearing`] sheet pulled apart by
//!    two columns of moving attachments, every link with a maximum force,
//!    under [`xpbd::step::step`], [`crate::tearing::FRAMES`] frames;
//!    it tears along its perforation. After each frame every position,
//!    velocity, link λ and flags, attachment λ, impulse, force and
//!    `previous`, and the frame's torn count and indices are hashed.
//! 7. [`engine_3d`]: the fixed [`crate::engine`] scene (a cloth hanging
//!    from moving kinematic particles, hit by a swept spinning capsule,
//!    falling onto a spinning box and onto the engine's contacts with a
//!    tilted ground, with friction) under [`xpbd::step::step`],
//!    [`crate::engine::FRAMES`] frames; after each frame every position,
//!    velocity and link λ, the contacts and every engine contact's λ,
//!    impulse and force are hashed. Self-collision is on: the particle
//!    pairs (i, j, λ) are hashed too. A moving heightfield and signed
//!    distance field push the cloth too (issue 36).
//!
//! 8. [`character_3d`]: the fixed [`crate::character`] scene (a cape in a
//!    moving, turning, teleporting root frame with inertia scales,
//!    skinned max distances and backstops, and a wind with drag and lift),
//!    [`crate::character::FRAMES`] frames; after each frame every
//!    position, velocity, link λ, skinned λ and the block's `previous`.
//!
//! To add a part: write a function `fn part<T: Scalar>(h: &mut Fnv64)`, add
//! a field to [`Hashes`], call it in [`run`], and pin its constants in
//! [`HASH_F64`] / [`HASH_F32`] from the host run
//! (`cargo test -p xpbd-scenarios -- --nocapture` prints them); the QEMU
//! program then checks it with no change.

use core::ptr;

use crate::chain::{Chain, LINKS, PARTICLES};
use crate::character::character_3d;
use crate::cloth::cloth_3d;
use crate::engine::engine_3d;
use crate::groups::groups_3d;
use crate::rope::{Rope, FRAMES};
use crate::tearing::tearing_3d;
use crate::{Fnv64, Scalar, SplitMix64};

/// Seed of the random 1D sequence.
pub const SEED: u64 = 0x5EED_0006;
/// Operations in the random 1D sequence.
pub const RANDOM_OPS: usize = 6000;
/// Positions and constraints in the random sequence's pool.
pub const POOL: usize = 8;
/// The pool positions are reseated every `RESEAT` operations (huge inverse
/// masses can throw them far apart; this keeps the sequence interesting).
pub const RESEAT: usize = 64;
/// Frames of the chain simulation.
pub const CHAIN_FRAMES: usize = 240;
/// The frame before which the chain's tip half is kicked.
pub const KICK_FRAME: usize = 60;
/// The kick (m/s), towards the pinned end.
pub const KICK: f64 = -2.0;

/// The per-part hashes of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hashes {
    /// Part 1: the random 1D C-ABI sequence.
    pub random_1d: u64,
    /// Part 2: the 1D chain.
    pub chain_1d: u64,
    /// Part 3: the 3D rope under full stepping.
    pub rope_3d: u64,
    /// Part 4: the colored 3D cloth.
    pub cloth_3d: u64,
    /// Part 5: every constraint group under stepping.
    pub groups_3d: u64,
    /// Part 6: the tearing sheet under stepping.
    pub tearing_3d: u64,
    /// Part 7: moving colliders, engine contacts, kinematic particles.
    pub engine_3d: u64,
    /// Part 8: character cloth (local space, skinned limits, wind).
    pub character_3d: u64,
}

/// The expected hashes in f64: the same constant on x86-64 and Cortex-M4F.
pub const HASH_F64: Hashes = Hashes {
    random_1d: 0xef34_1f88_3417_17a2,
    chain_1d: 0xe941_c4cb_c51e_023f,
    rope_3d: 0x002e_9f8c_2d74_c9fc,
    cloth_3d: 0xf17f_3b66_797f_dcaf,
    groups_3d: 0x6e6c_6f37_9d06_aaef,
    tearing_3d: 0x4f02_a223_55d1_362c,
    engine_3d: 0x5fdf_d84e_bd60_b489,
    character_3d: 0xe4e9_d2f0_f0db_5c5e,
};

/// The expected hashes in f32: the same constant on x86-64 and Cortex-M4F.
pub const HASH_F32: Hashes = Hashes {
    random_1d: 0xe75b_cb9e_b13a_dd87,
    chain_1d: 0xdb00_d813_da62_b714,
    rope_3d: 0x37bd_6e48_11ae_7dc2,
    cloth_3d: 0x5108_3e55_4236_664f,
    groups_3d: 0x4967_690f_579d_3500,
    tearing_3d: 0x132f_f32c_f33e_8828,
    engine_3d: 0x6580_8dff_8b79_4524,
    character_3d: 0xa708_bb8a_feac_0840,
};

/// How many times each status came back, indexed like
/// [`status_index`]: OK, SKIPPED, then −1 … −9.
pub type StatusCounts = [u32; 11];

/// The index of a status code in [`StatusCounts`] (`None`: unknown code).
#[must_use]
pub fn status_index(code: i32) -> Option<usize> {
    match code {
        0 | 1 => usize::try_from(code).ok(),
        -9..=-1 => usize::try_from(1 - code).ok(),
        _ => None,
    }
}

/// Everything one run produces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// The hashes.
    pub hashes: Hashes,
    /// Status counts of the random sequence (an unknown code counts nowhere
    /// and sets `unknown_status`).
    pub statuses: StatusCounts,
    /// Whether a status outside the documented set came back.
    pub unknown_status: bool,
    /// Whether a rejected or skipped call changed any stored byte.
    pub written_on_error: bool,
    /// Failed solves in the chain (expected 0).
    pub chain_errors: u32,
    /// The chain's final stretch `x_last − x_0 − Σ rest` (m), as bits.
    pub chain_stretch_bits: u64,
    /// Failed steps of the 3D rope (expected 0).
    pub rope_errors: u32,
    /// Most contacts in one substep of the 3D rope.
    pub rope_max_contacts: usize,
    /// The 3D rope's lowest final height (m), as bits.
    pub rope_lowest_bits: u64,
    /// Failed calls of the colored cloth (expected 0).
    pub cloth_errors: u32,
    /// Substeps after which the cloth's C copy differed from its Rust copy
    /// (expected 0).
    pub cloth_mismatches: u32,
    /// The cloth's lowest final height (m), as bits.
    pub cloth_lowest_bits: u64,
    /// Failed steps of the groups scene (expected 0).
    pub groups_errors: u32,
    /// Failed steps of the tearing sheet (expected 0).
    pub tearing_errors: u32,
    /// Links the tearing sheet tore over all frames (expected
    /// [`crate::tearing::ROWS`]).
    pub tearing_torn: usize,
    /// The frame (1-based) of the sheet's first tear (0: none).
    pub tearing_first_frame: u32,
    /// Whether exactly the perforation's links tore (the sheet's check).
    pub tearing_line: bool,
    /// Frames whose torn list differed from the links they flagged
    /// (expected 0).
    pub tearing_list_mismatches: u32,
    /// Failed steps of the engine scene (expected 0).
    pub engine_errors: u32,
    /// Steps of the character scene that returned an error (expected 0).
    pub character_errors: u32,
    /// The bits of the character scene's largest excess over a rigid max
    /// distance after a frame (m; ≤ 0 expected, up to rounding).
    pub character_over_bits: u64,
    /// Particle-frames of the engine scene inside a moving collider
    /// (expected 0).
    pub engine_inside: u32,
    /// Most contacts of a substep in the engine scene.
    pub engine_max_contacts: usize,
    /// Engine contacts of the engine scene over all frames.
    pub engine_contacts: usize,
    /// Most particle pairs of a substep in the engine scene.
    pub engine_max_pairs: usize,
}

/// Runs every part for `T` and returns the hashes and counts.
#[must_use]
pub fn run<T: Scalar>() -> Outcome {
    let mut out = run_random_1d::<T>();
    let mut h = Fnv64::new();
    let chain = chain_1d::<T>(&mut h);
    out.hashes.chain_1d = h.finish();
    out.chain_errors = chain.errors;
    out.chain_stretch_bits = chain.stretch().bits();
    let mut h = Fnv64::new();
    let rope = rope_3d::<T>(&mut h);
    out.hashes.rope_3d = h.finish();
    out.rope_errors = rope.errors;
    out.rope_max_contacts = rope.max_contacts;
    out.rope_lowest_bits = rope.lowest().bits();
    let mut h = Fnv64::new();
    let cloth = cloth_3d::<T>(&mut h);
    out.hashes.cloth_3d = h.finish();
    out.cloth_errors = cloth.errors;
    out.cloth_mismatches = cloth.mismatches;
    out.cloth_lowest_bits = cloth.lowest_bits;
    let mut h = Fnv64::new();
    let groups = groups_3d::<T>(&mut h);
    out.hashes.groups_3d = h.finish();
    out.groups_errors = groups.errors;
    let mut h = Fnv64::new();
    let sheet = tearing_3d::<T>(&mut h);
    out.hashes.tearing_3d = h.finish();
    out.tearing_errors = sheet.errors;
    out.tearing_torn = sheet.torn_total;
    out.tearing_first_frame = sheet.first_tear;
    out.tearing_line = sheet.torn_along_the_line();
    out.tearing_list_mismatches = sheet.list_mismatches;
    let mut h = Fnv64::new();
    let scene = engine_3d::<T>(&mut h);
    out.hashes.engine_3d = h.finish();
    out.engine_errors = scene.errors;
    out.engine_inside = scene.inside;
    out.engine_max_contacts = scene.max_contacts;
    out.engine_contacts = scene.engine_total;
    out.engine_max_pairs = scene.max_pairs;
    let mut h = Fnv64::new();
    let cape = character_3d::<T>(&mut h);
    out.hashes.character_3d = h.finish();
    out.character_errors = cape.errors;
    out.character_over_bits = cape.over.bits();
    out
}

/// Runs part 1 only (the other hashes stay 0): what Miri runs, since the
/// unsafe pointer patterns are all there and the interpreter is slow.
#[must_use]
pub fn run_random_1d<T: Scalar>() -> Outcome {
    run_random_1d_ops::<T>(RANDOM_OPS)
}

/// Part 1 alone, its first `ops` operations (Miri runs
/// [`RANDOM_PREFIX_OPS`]; its hash is [`expected_prefix`]).
#[must_use]
pub fn run_random_1d_ops<T: Scalar>(ops: usize) -> Outcome {
    let mut h = Fnv64::new();
    let mut out = Outcome {
        hashes: Hashes {
            random_1d: 0,
            chain_1d: 0,
            rope_3d: 0,
            cloth_3d: 0,
            groups_3d: 0,
            tearing_3d: 0,
            engine_3d: 0,
            character_3d: 0,
        },
        statuses: [0; 11],
        unknown_status: false,
        written_on_error: false,
        chain_errors: 0,
        chain_stretch_bits: 0,
        rope_errors: 0,
        rope_max_contacts: 0,
        rope_lowest_bits: 0,
        cloth_errors: 0,
        cloth_mismatches: 0,
        groups_errors: 0,
        cloth_lowest_bits: 0,
        tearing_errors: 0,
        tearing_torn: 0,
        tearing_first_frame: 0,
        tearing_line: false,
        tearing_list_mismatches: 0,
        engine_errors: 0,
        character_errors: 0,
        character_over_bits: 0,
        engine_inside: 0,
        engine_max_contacts: 0,
        engine_contacts: 0,
        engine_max_pairs: 0,
    };
    random_1d_ops::<T>(&mut h, &mut out, ops);
    out.hashes.random_1d = h.finish();
    out
}

/// The operations of part 1 that Miri runs (step 60, CI budget; an
/// eighth: the first ones after which every status has come back in both
/// precisions, the rarest, code −8, by operation 600 in f64 and 750 in
/// f32).
pub const RANDOM_PREFIX_OPS: usize = 750;

/// The `random_1d` hash after [`RANDOM_PREFIX_OPS`] operations, for `T`.
#[must_use]
pub fn expected_prefix<T: Scalar>() -> u64 {
    if T::NAME == "f64" {
        RANDOM_PREFIX_F64
    } else {
        RANDOM_PREFIX_F32
    }
}

const RANDOM_PREFIX_F64: u64 = 0xe456_9d88_6a52_0f38;
const RANDOM_PREFIX_F32: u64 = 0xbedb_d398_750e_d6b4;

/// The expected hashes for `T`.
#[must_use]
pub fn expected<T: Scalar>() -> Hashes {
    if T::NAME == "f64" {
        HASH_F64
    } else {
        HASH_F32
    }
}

/// A value for one input: usually uniform in [lo, hi), sometimes special.
fn draw<T: Scalar>(rng: &mut SplitMix64, lo: f64, hi: f64) -> T {
    if rng.below(32) != 0 {
        return T::from_f64(rng.range(lo, hi));
    }
    draw_special(rng)
}

/// One of a fixed list of special values (NaN, ±∞, ±0, −1, tiny, huge,
/// subnormal), rounded to `T`.
fn draw_special<T: Scalar>(rng: &mut SplitMix64) -> T {
    const SPECIAL: [f64; 12] = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        -1.0,
        1e-30,
        1e-200,
        3e38,
        1e300,
        f64::MAX,
        5e-324,
    ];
    let i = usize::try_from(rng.below(12)).unwrap_or(0);
    T::from_f64(SPECIAL.get(i).copied().unwrap_or(0.0))
}

/// An index into the pool, or (1 time in 16) the wild slot `POOL`.
fn index(rng: &mut SplitMix64) -> usize {
    if rng.below(16) == 0 {
        POOL
    } else {
        usize::try_from(rng.below(8)).unwrap_or(0)
    }
}

/// An inverse mass: 0 (static endpoint) one time in four.
fn mass<T: Scalar>(rng: &mut SplitMix64) -> T {
    if rng.below(4) == 0 {
        T::ZERO
    } else {
        draw(rng, 0.05, 3.0)
    }
}

/// Fresh pool positions `i + [0, 0.5)`.
fn reseat<T: Scalar>(rng: &mut SplitMix64, x: &mut [T]) {
    for (i, xi) in x.iter_mut().enumerate() {
        #[allow(clippy::cast_precision_loss)] // i < 8
        let base = i as f64;
        *xi = T::from_f64(base + rng.range(0.0, 0.5));
    }
}

/// Part 1: the random 1D sequence through the C entry points.
///
/// Each operation: with probability 1/8 `begin_substep` on a random link,
/// else one solve of a random link between two random pool positions
/// (swapped into order 3 times out of 4), with random inputs, and in 1 of
/// 16 solves a null or aliased pointer (a == b, or a or b pointing at the
/// link's own λ). After each operation the status, every position and every
/// λ are hashed; a rejected or skipped call must leave every byte unchanged.
pub fn random_1d<T: Scalar>(h: &mut Fnv64, out: &mut Outcome) {
    random_1d_ops::<T>(h, out, RANDOM_OPS);
}

/// The first `ops` operations of [`random_1d`].
fn random_1d_ops<T: Scalar>(h: &mut Fnv64, out: &mut Outcome, ops: usize) {
    let mut rng = SplitMix64(SEED);
    // The pool, plus one wild slot (index POOL) refilled before every
    // operation with any value, NaN and infinities included. It is never
    // hashed (NaN payloads need not survive an f64 → f32 conversion
    // identically everywhere), but a rejected call must not change it either.
    let mut x = [T::ZERO; POOL + 1];
    let mut links = [T::link_with(T::ZERO); POOL];
    for op in 0..ops {
        if op % RESEAT == 0 {
            reseat(&mut rng, x.get_mut(..POOL).unwrap_or_default());
        }
        if let Some(wild) = x.get_mut(POOL) {
            *wild = if rng.below(2) == 0 {
                draw::<T>(&mut rng, -10.0, 10.0)
            } else {
                draw_special(&mut rng)
            };
        }
        let k = usize::try_from(rng.below(8)).unwrap_or(0);
        let before_x = x;
        let before_l = links;
        let xp = x.as_mut_ptr();
        let lp = links.as_mut_ptr();
        let status = if rng.below(8) == 0 {
            let c = if rng.below(16) == 0 {
                ptr::null_mut()
            } else {
                lp.wrapping_add(k)
            };
            // SAFETY: `c` is null or points into `links`; no reference to
            // `links` is alive during the call.
            unsafe { T::c_begin(c) }
        } else {
            let (mut i, mut j) = (index(&mut rng), index(&mut rng));
            let ordered = x.get(i).zip(x.get(j)).is_some_and(|(a, b)| a <= b);
            if !ordered && rng.below(4) != 0 {
                core::mem::swap(&mut i, &mut j);
            }
            let wa = mass::<T>(&mut rng);
            let wb = mass::<T>(&mut rng);
            let rest = draw::<T>(&mut rng, 0.1, 2.0);
            let compliance = draw::<T>(&mut rng, 0.0, 0.05);
            let dt = draw::<T>(&mut rng, 0.001, 0.1);
            let c = lp.wrapping_add(k);
            let (mut a, mut b) = (xp.wrapping_add(i), xp.wrapping_add(j));
            let mut cp = c;
            if rng.below(16) == 0 {
                match rng.below(6) {
                    0 => cp = ptr::null_mut(),
                    1 => a = ptr::null_mut(),
                    2 => b = ptr::null_mut(),
                    3 => b = a,
                    4 => a = c.cast::<T>(),
                    _ => b = c.cast::<T>(),
                }
            }
            // SAFETY: every pointer is null or points into `x` or `links`
            // (the C structs are `repr(C)` with λ as their only field, so a
            // link pointer cast to `*mut T` points at a valid `T`); no
            // reference to either array is alive during the call.
            unsafe { T::c_solve(cp, a, b, wa, wb, rest, compliance, dt) }
        };
        let code = status.code();
        match status_index(code).and_then(|s| out.statuses.get_mut(s)) {
            Some(n) => *n += 1,
            None => out.unknown_status = true,
        }
        if code != 0 {
            let same_x = x.iter().zip(&before_x).all(|(p, q)| p.bits() == q.bits());
            let same_l = links
                .iter()
                .zip(&before_l)
                .all(|(p, q)| T::lambda_of(p).bits() == T::lambda_of(q).bits());
            out.written_on_error |= !(same_x && same_l);
        }
        h.write_status(code);
        for xi in x.iter().take(POOL) {
            h.write_real(*xi);
        }
        for l in &links {
            h.write_real(T::lambda_of(l));
        }
    }
}

/// Part 2: the fixed 1D chain; hashes every position, velocity and λ after
/// each frame and returns the final state.
pub fn chain_1d<T: Scalar>(h: &mut Fnv64) -> Chain<T> {
    let mut chain = Chain::<T>::new();
    for frame in 0..CHAIN_FRAMES {
        if frame == KICK_FRAME {
            chain.kick(T::from_f64(KICK));
        }
        chain.step();
        for i in 0..PARTICLES {
            h.write_real(chain.x[i]);
            h.write_real(chain.v[i]);
        }
        for i in 0..LINKS {
            h.write_real(chain.links[i].lambda());
        }
    }
    chain
}

/// Part 3: the fixed 3D rope under [`xpbd::step::step`]; hashes every
/// position, velocity, link λ and contact after each frame and returns the
/// final state.
pub fn rope_3d<T: Scalar>(h: &mut Fnv64) -> Rope<T> {
    let mut rope = Rope::<T>::new();
    for _ in 0..FRAMES {
        rope.frame();
        for (x, v) in rope.x.iter().zip(&rope.v) {
            for c in x.iter().chain(v) {
                h.write_real(*c);
            }
        }
        for l in &rope.links {
            h.write_real(l.lambda);
        }
        for c in &rope.contacts {
            h.write_u64(u64::from(c.particle) << 32 | u64::from(c.collider));
            h.write_real(c.lambda);
        }
    }
    rope
}
