//! Bounded calls (issue 32 §2): a step's work is counted against
//! `MAX_WORK` (`XPBD_MAX_WORK`, 2^30 visits), the particle work of its
//! substeps up front and its self-collision pair searches as they run.
//!
//! - The pair search is quadratic when all particles share a cell (all at
//!   one point, a radius of 1e3 m on a 1 m grid, coordinates beyond
//!   ~1e17 m whose cells saturate to one): each case ends in `WorkLimit`
//!   with positions and velocities bit-identical to before, through
//!   `step`, `step_colored` and `xpbd_world3_step`. Most cases shrink the
//!   frame's search budget with a costly but legal configuration (65 536
//!   iterations over 16 383 capacity slots leave 2^16 − n visits), so the
//!   refusal comes after the first particles' candidates; one case runs
//!   the default budget out (about 2^30 cheap candidates, skipped under
//!   Miri).
//! - Under `ContactOverflow::Reject` the search counts every pair beyond
//!   the buffer (`PairCapacity` names the count needed): a crowd too large
//!   for the budget runs it out under either policy; a small one gets its
//!   exact pair count.
//! - 4096 substeps of 10^6 particles with no links (no sweep work) are
//!   refused at once, before anything is written, in Rust and through C;
//!   so are 4096 substeps of 1024 particles against 256 planes.
//!
//! No test times anything: they assert statuses and data.

use core::ptr;
use xpbd::ffi::*;
use xpbd::step::{
    self_collision_adjacency_len, self_collision_table_len, step, step_colored, Colliders, Contact,
    ContactOverflow, OneThread, ParticleContact, Plane, SelfCollision, StepConfig, StepError,
    World,
};
use xpbd::Field;
use xpbd::{Constraints, GroupColors, MAX_ITERATIONS, MAX_WORK};

/// Sweep slots (pair capacity + contact capacity) that, with
/// `MAX_ITERATIONS` iterations of one substep, take all of `MAX_WORK` but
/// 65 536 visits: 2^16 × (2^14 − 1) = 2^30 − 2^16.
const SLOTS: usize = (1 << 14) - 1;

/// Pair capacity of the scenes (the rest of `SLOTS` is contacts).
const PAIRS: usize = 64;

/// Where the particles of a scene sit, every one in the same cell.
#[derive(Debug, Clone, Copy)]
enum Crowd {
    /// All at one point (r = 1 cm).
    OnePoint,
    /// A 1 m grid under a radius of 1e3 m (cells of 4 km).
    HugeRadius,
    /// 10 km apart beyond 1e18 m (r = 1 cm: every cell index saturates).
    FarAway,
}

impl Crowd {
    const ALL: [Crowd; 3] = [Crowd::OnePoint, Crowd::HugeRadius, Crowd::FarAway];

    fn radius(self) -> f64 {
        match self {
            Crowd::HugeRadius => 1e3,
            Crowd::OnePoint | Crowd::FarAway => 0.01,
        }
    }

    fn position(self, k: usize) -> [f64; 3] {
        let g = [k % 40, (k / 40) % 40, k / 1600].map(|c| c as f64);
        match self {
            Crowd::OnePoint => [0.5, 0.25, 0.125],
            Crowd::HugeRadius => g,
            Crowd::FarAway => g.map(|c| 1e18 + 1e4 * c),
        }
    }
}

/// The caller's memory of a world with self-collision on.
struct Store {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    w: Vec<f64>,
    contacts: Vec<Contact<f64>>,
    scratch: Vec<[f64; 3]>,
    pairs: Vec<ParticleContact<f64>>,
    table: Vec<u32>,
    ids: Vec<u32>,
    adjacency: Vec<u32>,
}

impl Store {
    /// `n` particles of `crowd` (moving, at rest), `pairs` pair slots and
    /// `contacts` contact slots.
    fn new(crowd: Crowd, n: usize, pairs: usize, contacts: usize) -> Self {
        Self {
            x: (0..n).map(|k| crowd.position(k)).collect(),
            v: vec![[0.0; 3]; n],
            w: vec![1.0; n],
            contacts: vec![Contact::default(); contacts],
            scratch: vec![[0.0; 3]; xpbd::step::scratch_len(n, 0)],
            pairs: vec![ParticleContact::default(); pairs],
            table: vec![0; self_collision_table_len(n)],
            ids: vec![0; n],
            adjacency: vec![0; self_collision_adjacency_len(n, 0)],
        }
    }

    fn world(&mut self) -> World<'_, f64, 3> {
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.self_collision = Some(SelfCollision {
            pairs: &mut self.pairs,
            table: &mut self.table,
            ids: &mut self.ids,
            adjacency: &mut self.adjacency,
            rest: &[],
        });
        world
    }

    /// Positions and velocities, bit for bit.
    fn snapshot(&self) -> Vec<u64> {
        self.x
            .iter()
            .chain(&self.v)
            .flatten()
            .map(|c| c.to_bits())
            .collect()
    }

    /// The C world over the store's particles, with a colliders block (no
    /// collider) holding the store's contact budget and a self-collision
    /// block holding its pair budget, and the memory they need.
    fn c_world(&mut self) -> CWorld {
        let mut world = xpbd_world3_default();
        world.positions = self.x.as_mut_ptr();
        world.velocities = self.v.as_mut_ptr();
        world.inverse_masses = self.w.as_ptr();
        world.particle_count = self.x.len();
        let mut colliders = xpbd_colliders3_default();
        colliders.contact_budget = self.contacts.len();
        let mut self_collision = xpbd_self_collision3_default();
        self_collision.pair_budget = self.pairs.len();
        CWorld::new(world, Some(colliders), Some(self_collision))
    }
}

/// A C world with its blocks and the memory `xpbd_world3_requirements`
/// asks for (8-byte aligned). [`CWorld::step`] links the chain from the
/// blocks where they are then (a pointer to the whole block: the library
/// reads the block behind its header).
struct CWorld {
    world: XpbdWorld3,
    colliders: Option<XpbdColliders3>,
    self_collision: Option<XpbdSelfCollision3>,
    memory: Vec<u64>,
}

impl CWorld {
    fn new(
        world: XpbdWorld3,
        colliders: Option<XpbdColliders3>,
        self_collision: Option<XpbdSelfCollision3>,
    ) -> Self {
        Self {
            world,
            colliders,
            self_collision,
            memory: Vec::new(),
        }
    }

    /// Links the blocks, gives the world the memory it needs, and steps
    /// it (`xpbd_world3_step`).
    ///
    /// # Safety
    /// The world's particle buffers are valid for their counts.
    unsafe fn step(
        &mut self,
        dt: f64,
        config: &XpbdStepConfig3,
        stats: *mut XpbdStepStats,
    ) -> XpbdStatus {
        self.world.blocks = ptr::null_mut();
        let world = ptr::addr_of_mut!(self.world);
        // SAFETY: the world and its blocks are valid and disjoint, the
        // blocks outlive the call; the rest is the caller's contract.
        unsafe {
            if let Some(c) = self.colliders.as_mut() {
                let block = ptr::from_mut(c).cast();
                assert_eq!(xpbd_world3_add(world, block), XpbdStatus::Ok);
            }
            if let Some(sc) = self.self_collision.as_mut() {
                let block = ptr::from_mut(sc).cast();
                assert_eq!(xpbd_world3_add(world, block), XpbdStatus::Ok);
            }
            let mut req = XpbdRequirements::default();
            assert_eq!(xpbd_world3_requirements(world, &mut req), XpbdStatus::Ok);
            self.memory = vec![0u64; req.memory_size.div_ceil(8)];
            (*world).memory = self.memory.as_mut_ptr().cast();
            (*world).memory_size = req.memory_size;
            xpbd_world3_step(world, dt, config, stats)
        }
    }
}

/// The C configuration of [`StepConfig::new`]: the default one without
/// damping, radius and friction (what `xpbd_step_config3_default` gave
/// before it took the working defaults).
fn bare_c_config() -> XpbdStepConfig3 {
    let mut config = xpbd_step_config3_default();
    config.damping = 0.0;
    config.particle_radius = 0.0;
    config.static_friction = 0.0;
    config.dynamic_friction = 0.0;
    config
}

/// Particles of the crowded scenes: 60 000 (the old search read 1.8e9
/// candidates), 600 under Miri (360 000 candidates, still over the
/// 2^16 − n visits left by the costly configuration).
fn crowd_size() -> usize {
    if cfg!(miri) {
        600
    } else {
        60_000
    }
}

/// One substep of `MAX_ITERATIONS` iterations (the budget left to the
/// search: 2^16 − n visits), self-collision radius of `crowd`.
fn costly_config(crowd: Crowd, overflow: ContactOverflow) -> StepConfig<f64, 3> {
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.substeps = 1;
    config.iterations = MAX_ITERATIONS;
    config.particle_radius = crowd.radius();
    config.contact_overflow = overflow;
    config
}

#[test]
fn the_costly_configuration_is_within_the_limit() {
    // The premise of the scenes: the sweeps and the particle work fit, the
    // search gets what is left: less than the candidates of the crowd
    // (at least one bucket of n for each of the n particles).
    let n = crowd_size() as u64;
    // (The test with eight slots fewer is not run under Miri.)
    let slots: &[usize] = if cfg!(miri) {
        &[SLOTS]
    } else {
        &[SLOTS, SLOTS - 8]
    };
    for &slots in slots {
        let sweeps = u64::from(MAX_ITERATIONS) * slots as u64;
        assert!(sweeps + n <= MAX_WORK);
        assert!(MAX_WORK - sweeps - n < n * n);
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "tens of thousands of candidate visits: minutes in the interpreter"
)]
fn a_crowded_cell_ends_in_the_work_limit_writing_nothing() {
    // Keeping the first pairs (under Reject see the test below).
    for crowd in Crowd::ALL {
        let mut s = Store::new(crowd, crowd_size(), PAIRS, SLOTS - PAIRS);
        let before = s.snapshot();
        let config = costly_config(crowd, ContactOverflow::KeepFirst);
        let r = step(&mut s.world(), 1.0 / 60.0, &config);
        assert_eq!(r, Err(StepError::WorkLimit), "{crowd:?}");
        assert!(s.snapshot() == before, "{crowd:?}: state written");
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "tens of thousands of candidate visits: minutes in the interpreter"
)]
fn a_crowded_cell_ends_in_the_work_limit_in_the_colored_step() {
    for crowd in Crowd::ALL {
        let mut s = Store::new(crowd, crowd_size(), PAIRS, SLOTS - PAIRS);
        let before = s.snapshot();
        let config = costly_config(crowd, ContactOverflow::KeepFirst);
        let mut world = s.world();
        world.groups = Some(Constraints::default());
        let r = step_colored(
            &mut world,
            &GroupColors::default(),
            &mut vec![0; crowd_size()],
            1.0 / 60.0,
            &config,
            &OneThread,
        );
        assert_eq!(r, Err(StepError::WorkLimit), "{crowd:?}");
        assert!(s.snapshot() == before, "{crowd:?}: state written");
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "tens of thousands of candidate visits: minutes in the interpreter"
)]
fn a_crowded_cell_ends_in_the_work_limit_through_c() {
    for crowd in Crowd::ALL {
        let mut s = Store::new(crowd, crowd_size(), PAIRS, SLOTS - PAIRS);
        let before = s.snapshot();
        let mut config = bare_c_config();
        config.substeps = 1;
        config.iterations = MAX_ITERATIONS;
        config.particle_radius = crowd.radius();
        config.contact_overflow = XPBD_CONTACT_OVERFLOW_KEEP_FIRST;
        let mut c = s.c_world();
        let mut stats = XpbdStepStats::default();
        // SAFETY: every buffer valid for its count and disjoint.
        let status = unsafe { c.step(1.0 / 60.0, &config, &mut stats) };
        assert_eq!(status, XpbdStatus::WorkLimit, "{crowd:?}");
        assert_eq!(c.world.error_index, 0);
        assert_eq!(c.world.error_field, Field::None.code());
        assert_eq!(stats, XpbdStepStats::default(), "{crowd:?}: stats written");
        assert!(s.snapshot() == before, "{crowd:?}: state written");
    }
}

#[test]
#[cfg_attr(miri, ignore = "safe Rust; needs the full-size crowd")]
fn under_reject_the_search_counts_every_pair_beyond_the_buffer() {
    // Eight slots fewer than above: 2^19 − n visits left for the search,
    // enough for the first particle's candidates (n, or 8n when the
    // saturated cells around it all are its own), not for all of them.
    // Under Reject the search no longer stops at the 65th pair: it counts
    // every pair (`PairCapacity` names the count a buffer needs), so the
    // full-size crowds run the budget out whatever the policy.
    for crowd in Crowd::ALL {
        let n = crowd_size();
        for overflow in [ContactOverflow::Reject, ContactOverflow::KeepFirst] {
            let mut s = Store::new(crowd, n, PAIRS, SLOTS - 8 - PAIRS);
            let before = s.snapshot();
            let config = costly_config(crowd, overflow);
            let r = step(&mut s.world(), 1.0 / 60.0, &config);
            assert_eq!(r, Err(StepError::WorkLimit), "{crowd:?}, {overflow:?}");
            assert!(s.snapshot() == before, "{crowd:?}: state written");
        }
    }
    // A crowd whose whole search fits the budget: every one of its
    // n(n − 1)/2 pairs is counted, beyond the 64 slots.
    let n = 100;
    for crowd in Crowd::ALL {
        let mut s = Store::new(crowd, n, PAIRS, SLOTS - 8 - PAIRS);
        let before = s.snapshot();
        let config = costly_config(crowd, ContactOverflow::Reject);
        let r = step(&mut s.world(), 1.0 / 60.0, &config);
        match crowd {
            // 10 km apart: no candidate is a pair, the step runs.
            Crowd::FarAway => assert!(r.is_ok(), "{crowd:?}: {r:?}"),
            Crowd::OnePoint | Crowd::HugeRadius => {
                let needed = n * (n - 1) / 2;
                assert_eq!(r, Err(StepError::PairCapacity { needed }), "{crowd:?}");
                assert!(s.snapshot() == before, "{crowd:?}: state written");
            }
        }
    }
}

#[test]
#[cfg_attr(miri, ignore = "2^30 candidates")]
fn far_away_particles_run_the_default_budget_out() {
    // The default configuration's budget (2^30 visits but the particle
    // work): 2^16 particles in one saturated cell are 2^31 candidates for
    // the old search (all rejected by the distance, the cheapest kind);
    // the search stops after 2^30.
    let n = 1 << 16;
    let mut s = Store::new(Crowd::FarAway, n, 16, 16);
    let before = s.snapshot();
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.substeps = 1;
    config.particle_radius = Crowd::FarAway.radius();
    let r = step(&mut s.world(), 1.0 / 60.0, &config);
    assert_eq!(r, Err(StepError::WorkLimit));
    assert!(s.snapshot() == before, "state written");
}

/// Positions, velocities, inverse masses and scratch.
type Particles = (Vec<[f64; 3]>, Vec<[f64; 3]>, Vec<f64>, Vec<[f64; 3]>);

/// Particles spread 1 m apart (no pair, no contact), at rest, unit mass.
fn spread(n: usize) -> Particles {
    let x = (0..n).map(|k| [k as f64, 1e3, 0.0]).collect();
    (
        x,
        vec![[0.0; 3]; n],
        vec![1.0; n],
        vec![[0.0; 3]; xpbd::step::scratch_len(n, 0)],
    )
}

#[test]
#[cfg_attr(miri, ignore = "allocates 10^6 particles (the 256-plane case runs)")]
fn many_substeps_of_many_particles_are_refused_up_front() {
    // 4096 substeps × 10^6 particles = 4.1e9 particle visits, no link, no
    // contact slot: no sweep work at all (the old check let it run 62 s).
    let n = 1_000_000;
    let (mut x, mut v, w, mut scratch) = spread(n);
    // A velocity the step would reject: the refusal comes first.
    v[n - 1] = [f64::NAN; 3];
    let before: Vec<u64> = x.iter().chain(&v).flatten().map(|c| c.to_bits()).collect();
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.substeps = xpbd::MAX_SUBSTEPS;
    let mut world = World::new(&mut x, &mut v, &w, &mut [], &mut scratch);
    assert_eq!(
        step(&mut world, 1.0 / 60.0, &config),
        Err(StepError::WorkLimit)
    );
    let mut c_config = bare_c_config();
    c_config.substeps = xpbd::MAX_SUBSTEPS;
    let mut c = c_world_of(&mut x, &mut v, &w, &[]);
    let mut stats = XpbdStepStats::default();
    // SAFETY: every buffer valid for its count and disjoint.
    let status = unsafe { c.step(1.0 / 60.0, &c_config, &mut stats) };
    assert_eq!(status, XpbdStatus::WorkLimit);
    assert_eq!(stats, XpbdStepStats::default());
    let after: Vec<u64> = x.iter().chain(&v).flatten().map(|c| c.to_bits()).collect();
    assert!(after == before, "state written");
}

#[test]
fn every_collider_counts_in_the_particle_work() {
    // 4096 substeps × 1024 particles × (1 + 256 planes) = 2^30 + 2^22:
    // over by the last plane. (The old check counted no particle work.)
    let n = 1024;
    let (mut x, mut v, w, mut scratch) = spread(n);
    v[n - 1] = [f64::NAN; 3];
    let before: Vec<u64> = x.iter().chain(&v).flatten().map(|c| c.to_bits()).collect();
    let ground = |k: usize| Plane {
        normal: [0.0, 1.0, 0.0],
        offset: -(k as f64),
    };
    let planes: Vec<Plane<f64, 3>> = (0..256).map(ground).collect();
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.substeps = xpbd::MAX_SUBSTEPS;
    let mut world = World::new(&mut x, &mut v, &w, &mut [], &mut scratch);
    world.colliders = Some(Colliders {
        planes: &planes,
        ..Default::default()
    });
    assert_eq!(
        step(&mut world, 1.0 / 60.0, &config),
        Err(StepError::WorkLimit)
    );
    let mut c_config = bare_c_config();
    c_config.substeps = xpbd::MAX_SUBSTEPS;
    let mut c = c_world_of(&mut x, &mut v, &w, &planes);
    // SAFETY: every buffer valid for its count and disjoint.
    let status = unsafe { c.step(1.0 / 60.0, &c_config, ptr::null_mut()) };
    assert_eq!(status, XpbdStatus::WorkLimit);
    let after: Vec<u64> = x.iter().chain(&v).flatten().map(|c| c.to_bits()).collect();
    assert!(after == before, "state written");
    // One plane fewer: exactly 2^30, within the limit; the step goes on to
    // its checks and names the bad velocity.
    let mut world = World::new(&mut x, &mut v, &w, &mut [], &mut scratch);
    world.colliders = Some(Colliders {
        planes: &planes[..255],
        ..Default::default()
    });
    assert_eq!(
        step(&mut world, 1.0 / 60.0, &config),
        Err(StepError::NonFiniteVelocity { particle: n - 1 })
    );
}

/// A C world over particles and planes only: with planes, a colliders
/// block of one contact slot (its sweep work, `MAX_SUBSTEPS` visits, is
/// negligible beside the particle work; the default budget, particles ×
/// planes, would be over the limit by itself).
fn c_world_of(
    x: &mut [[f64; 3]],
    v: &mut [[f64; 3]],
    w: &[f64],
    planes: &[Plane<f64, 3>],
) -> CWorld {
    let mut world = xpbd_world3_default();
    world.positions = x.as_mut_ptr();
    world.velocities = v.as_mut_ptr();
    world.inverse_masses = w.as_ptr();
    world.particle_count = x.len();
    let colliders = (!planes.is_empty()).then(|| {
        let mut c = xpbd_colliders3_default();
        c.planes = planes.as_ptr();
        c.plane_count = planes.len();
        c.contact_budget = 1;
        c
    });
    CWorld::new(world, colliders, None)
}
