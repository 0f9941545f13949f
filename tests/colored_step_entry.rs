//! The colored step's substep entry (`step_colored`, issue 19): its checks
//! and λ reset run as tasks over particle and link ranges, and still
//! report what `step` reports — a position made non-finite by the
//! prediction, or under `ZeroLength::Reject` two linked particles the
//! prediction made coincide, the lowest index first and a particle
//! before a link — writing nothing (x, v and every λ as before the frame)
//! for every job system. Small cases under Miri.

use xpbd::step::{scratch_len, step, step_colored, Contact, Jobs, OneThread, StepConfig};
use xpbd::step::{StepError, World};
use xpbd::{cloth, cloth_link_count, color_instances, color_order, fill_in_order};
use xpbd::{Constraints, GroupColors, Link, SystemError};

#[path = "support/jobs.rs"]
mod jobs;
use jobs::{Reversed, Threads};

type V = [f64; 3];

/// Side of the cloth: enough links for several checking tasks (4,096
/// items each at least; 8 under Miri: 25 particles and 40 links there,
/// three tasks of each).
const SIDE: usize = if cfg!(miri) { 5 } else { 90 };

/// Spacing (m), a power of two: every position below is exact.
const S: f64 = 1.0 / 64.0;

/// A cloth at rest, links in colored order with nonzero λ, no gravity;
/// `moves` gives particles a velocity (m/s). One substep of h = 1/64 s.
#[derive(Clone)]
struct Cloth {
    x: Vec<V>,
    v: Vec<V>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    starts: Vec<usize>,
    /// Substeps of the frame (h = 1/64 s each).
    substeps: u32,
}

impl Cloth {
    fn new() -> Self {
        let n = SIDE * SIDE;
        let x: Vec<V> = (0..n)
            .map(|k| [(k % SIDE) as f64 * S, 0.0, (k / SIDE) as f64 * S])
            .collect();
        let mut links = vec![Link::new(0, 1, S, 0.0); cloth_link_count(SIDE, SIDE, false).unwrap()];
        cloth(&x, SIDE, SIDE, false, 1e-6, &mut links).unwrap();
        let (mut used, mut color) = (vec![0u64; n], vec![0u32; links.len()]);
        let count = color_instances(&links, n, &mut used, &mut color).unwrap();
        let mut starts = vec![0usize; count as usize + 1];
        let mut order = vec![0u32; links.len()];
        color_order(&color, count, &mut starts, &mut order).unwrap();
        let mut sorted = links.clone();
        fill_in_order(&links, &order, &mut sorted).unwrap();
        for (k, l) in sorted.iter_mut().enumerate() {
            l.lambda = k as f64 + 0.5;
        }
        Cloth {
            v: vec![[0.0; 3]; n],
            w: vec![1.0; n],
            x,
            links: sorted,
            starts,
            substeps: 1,
        }
    }

    /// Link `k`'s second particle gets the velocity that puts it exactly
    /// on its first particle after one prediction of h = 1/64 s.
    /// Every other link of link `k`'s particles disabled: a sweep meets
    /// `k` as its particles' only link (as they were predicted).
    fn isolate(&mut self, k: usize) {
        let (i, j) = (self.links[k].i, self.links[k].j);
        for (m, l) in self.links.iter_mut().enumerate() {
            if m != k && [l.i, l.j].iter().any(|p| *p == i || *p == j) {
                l.flags = Link::<f64>::DISABLED;
            }
        }
    }

    fn collapse(&mut self, k: usize) {
        let (i, j) = (self.links[k].i as usize, self.links[k].j as usize);
        for c in 0..3 {
            self.v[j][c] = (self.x[i][c] - self.x[j][c]) * 64.0;
        }
    }

    /// Link `k` made the only active link of its particles, tension-only,
    /// its second particle given the velocity that puts it exactly on its
    /// first after two predictions (the second substep's entry): the
    /// compressed link pushes nothing in the first substep.
    fn collapse_later(&mut self, k: usize) {
        let (i, j) = (self.links[k].i, self.links[k].j);
        for (m, l) in self.links.iter_mut().enumerate() {
            if m != k && [l.i, l.j].iter().any(|p| *p == i || *p == j) {
                l.flags = Link::<f64>::DISABLED;
            }
        }
        self.links[k].flags = Link::<f64>::TENSION_ONLY;
        let (i, j) = (i as usize, j as usize);
        for c in 0..3 {
            self.v[j][c] = (self.x[i][c] - self.x[j][c]) * 32.0;
        }
    }

    /// Positions and velocities (what a failed frame rolls back).
    fn moved(&self) -> Vec<u64> {
        self.x
            .iter()
            .chain(&self.v)
            .flatten()
            .map(|c| c.to_bits())
            .collect()
    }

    fn bits(&self) -> Vec<u64> {
        let xv = self.x.iter().chain(&self.v).flatten().map(|c| c.to_bits());
        xv.chain(self.links.iter().map(|l| l.lambda.to_bits()))
            .collect()
    }

    /// One frame, colored on `jobs` or (`None`) `step`.
    fn frame(&mut self, jobs: Option<&dyn Jobs>) -> Result<(), StepError> {
        let n = self.x.len();
        let mut contacts = vec![Contact::default(); 4];
        let mut scratch = vec![[0.0; 3]; scratch_len(n, self.links.len())];
        let mut stamp = vec![0u32; n];
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut contacts,
            &mut scratch,
        );
        world.links = &mut self.links;
        let mut config = StepConfig::new([0.0; 3]);
        config.substeps = self.substeps;
        world.groups = Some(Constraints::default());
        let dt = f64::from(self.substeps) / 64.0;
        match jobs {
            None => step(&mut world, dt, &config),
            Some(jobs) => {
                let colors = GroupColors {
                    links: &self.starts,
                    ..Default::default()
                };
                step_colored(&mut world, &colors, &mut stamp, dt, &config, jobs)
            }
        }
        .map(|_| ())
    }
}

/// The job systems compared (under Miri only the threads, whose split
/// phases are what the interpreter checks).
fn systems() -> Vec<Box<dyn Jobs>> {
    let mut s: Vec<Box<dyn Jobs>> = vec![Box::new(Threads {
        threads: 2,
        split: 3,
    })];
    if !cfg!(miri) {
        s.push(Box::new(OneThread));
        s.push(Box::new(Reversed(32)));
    }
    s
}

/// Whether `step` runs beside the colored frames: not under Miri (CI
/// budget), where the colored frames' split checks, resets and roll-back
/// are what the interpreter checks, against the same expected error and
/// the state before the frame; `step`'s own failing substeps and
/// roll-back run there in step.rs
/// (`every_failed_step_leaves_positions_and_velocities_untouched`).
const SEQUENTIAL: bool = !cfg!(miri);

/// `prepare` applied to a fresh cloth: every job system fails the frame
/// with `expected`, as `step` does, and leaves x, v and every λ as
/// they were.
fn fails_alike(prepare: impl Fn(&mut Cloth), expected: StepError) {
    // Built once (the interpreter takes a second for it), copied per run.
    let fresh = Cloth::new();
    let mut reference = fresh.clone();
    prepare(&mut reference);
    let before = reference.bits();
    if SEQUENTIAL {
        assert_eq!(reference.frame(None), Err(expected));
        assert!(reference.bits() == before);
    }
    for jobs in systems() {
        let mut c = fresh.clone();
        prepare(&mut c);
        assert_eq!(c.frame(Some(jobs.as_ref())), Err(expected));
        assert!(c.bits() == before, "the failed frame wrote something");
    }
}

#[test]
fn coincident_predicted_particles_name_the_lowest_link() {
    // The cloth's links (`Cloth::new` builds them all).
    let m = cloth_link_count(SIDE, SIDE, false).unwrap();
    let (low, high) = (m / 3, m - 2);
    fails_alike(
        |c| {
            c.isolate(high);
            c.isolate(low);
            c.collapse(high);
            c.collapse(low);
        },
        StepError::System(SystemError::ZeroLength { constraint: low }),
    );
}

#[test]
fn a_non_finite_prediction_names_the_particle_before_any_link() {
    let n = SIDE * SIDE;
    // The cloth's links (`Cloth::new` builds them all).
    let m = cloth_link_count(SIDE, SIDE, false).unwrap();
    let (low, high) = (n / 2 + 1, n - 3);
    fails_alike(
        |c| {
            c.collapse(1);
            c.collapse(m - 1);
            for p in [high, low] {
                // Finite, and beyond the float range after x + h v.
                c.x[p][1] = 1.79e308;
                c.v[p][1] = 1e308;
            }
        },
        StepError::System(SystemError::NonFinitePosition { particle: low }),
    );
}

#[test]
#[cfg_attr(miri, ignore)] // tests/colored_step.rs checks passing frames there
fn the_colored_entry_passes_what_step_passes() {
    let mut reference = Cloth::new();
    reference.v[3] = [0.5, 0.25, -0.125];
    reference.frame(None).unwrap();
    for jobs in systems() {
        let mut c = Cloth::new();
        c.v[3] = [0.5, 0.25, -0.125];
        c.frame(Some(jobs.as_ref())).unwrap();
        assert!(c.bits() == reference.bits());
    }
}

/// A later substep's entry (checking and resetting in one phase) fails
/// with `step`'s error: the lowest link its prediction collapsed, or
/// the lowest particle its prediction took past the float range, before
/// any link. Positions and velocities are rolled back (λ after a failed
/// frame are unspecified past the first substep).
#[test]
fn a_later_substeps_entry_fails_as_step() {
    let n = SIDE * SIDE;
    // Built once (the interpreter takes a second for it), copied per run.
    let fresh = Cloth::new();
    let m = fresh.links.len();
    let (low, high) = (m / 3, m - 2);
    let collapse = |c: &mut Cloth| {
        c.substeps = 2;
        c.collapse_later(high);
        c.collapse_later(low);
    };
    let overflow = |c: &mut Cloth| {
        collapse(c);
        for p in [n - 3, n / 2 + 1] {
            // Its links off: finite after one prediction, beyond the float
            // range after two (h v = 2.66e306).
            for l in c.links.iter_mut() {
                if l.i as usize == p || l.j as usize == p {
                    l.flags = Link::<f64>::DISABLED;
                }
            }
            c.x[p][1] = 1.757e308;
            c.v[p][1] = 1.7e308;
        }
    };
    type Prepare<'p> = &'p dyn Fn(&mut Cloth);
    let cases: [(Prepare, StepError); 2] = [
        (
            &collapse,
            StepError::System(SystemError::ZeroLength { constraint: low }),
        ),
        (
            &overflow,
            StepError::System(SystemError::NonFinitePosition {
                particle: n / 2 + 1,
            }),
        ),
    ];
    for (prepare, expected) in cases {
        let mut reference = fresh.clone();
        prepare(&mut reference);
        let before = reference.moved();
        if SEQUENTIAL {
            assert_eq!(reference.frame(None), Err(expected));
            assert!(reference.moved() == before);
        }
        for jobs in systems() {
            let mut c = fresh.clone();
            prepare(&mut c);
            assert_eq!(c.frame(Some(jobs.as_ref())), Err(expected));
            assert!(c.moved() == before, "the failed frame moved something");
        }
    }
}
