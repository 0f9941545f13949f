//! A frame is a transaction (issue 34): validated once, run on the link
//! pass without per-link checks, checked once, committed. A hostile input
//! that turns a particle non-finite in the middle of a frame (its fourth
//! substep of eight, after the link pass has solved three substeps and
//! the contacts have been found and solved) fails the frame with the
//! checked path's error — the status and the index — and leaves every
//! caller array byte-identical: positions, velocities and the links
//! (λ of the last frame, flags). The same for `step` and for
//! `step_colored` on 1, 2, 3 and 7 threads. Small under Miri.

use xpbd::step::{
    scratch_len, step, step_colored, Colliders, Contact, Jobs, OneThread, Plane, StepConfig,
    StepError, World,
};
use xpbd::{cloth, cloth_link_count, GroupColors, Link, SystemError};

#[path = "support/coloring.rs"]
mod coloring;
#[path = "support/jobs.rs"]
mod jobs;
use coloring::colored;
use jobs::Threads;

type V = [f64; 3];

const SIDE: usize = if cfg!(miri) { 5 } else { 24 };
const S: f64 = 0.02;
const R: f64 = 0.005;

/// A cloth resting on the ground, two corners pinned, links in colored
/// order.
struct Cloth {
    x: Vec<V>,
    v: Vec<V>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    starts: Vec<usize>,
}

impl Cloth {
    fn new() -> Self {
        let n = SIDE * SIDE;
        let x: Vec<V> = (0..n)
            .map(|k| [(k % SIDE) as f64 * S, R, (k / SIDE) as f64 * S])
            .collect();
        let mut links = vec![Link::default(); cloth_link_count(SIDE, SIDE, true).unwrap()];
        cloth(&x, SIDE, SIDE, true, 1e-7, &mut links).unwrap();
        let (sorted, starts) = colored(&links, n);
        let mut w = vec![1.0; n];
        w[0] = 0.0;
        w[SIDE - 1] = 0.0;
        Cloth {
            x,
            v: vec![[0.0, -0.5, 0.0]; n],
            w,
            links: sorted,
            starts,
        }
    }

    /// Every caller byte the frame may write: x, v, each link (λ and flags
    /// included).
    fn bytes(&self) -> Vec<u64> {
        let xv = self.x.iter().chain(&self.v).flatten().map(|c| c.to_bits());
        let links = self.links.iter().flat_map(|l| {
            [
                u64::from(l.i) << 32 | u64::from(l.j),
                l.rest.to_bits(),
                l.compliance.to_bits(),
                l.lambda.to_bits(),
                u64::from(l.flags),
            ]
        });
        xv.chain(links).collect()
    }

    /// One frame of 8 substeps, colored on `jobs` or (`None`) `step`.
    fn frame(&mut self, jobs: Option<&dyn Jobs>) -> Result<(), StepError> {
        let n = self.x.len();
        let mut contacts = vec![Contact::default(); n];
        let mut scratch = vec![[0.0; 3]; scratch_len(n, self.links.len())];
        let mut stamp = vec![0u32; n];
        let ground = [Plane {
            normal: [0.0, 1.0, 0.0],
            offset: 0.0,
        }];
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut contacts,
            &mut scratch,
        );
        world.links = &mut self.links;
        world.colliders = Some(Colliders {
            planes: &ground,
            ..Default::default()
        });
        let config = StepConfig {
            substeps: 8,
            particle_radius: R,
            ..StepConfig::default()
        };
        let colors = GroupColors {
            links: &self.starts,
            ..Default::default()
        };
        match jobs {
            None => step(&mut world, 1.0 / 60.0, &config),
            Some(jobs) => step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, &config, jobs),
        }
        .map(|_| ())
    }

    /// Particle `p` sent towards the float range's end: finite, and past
    /// it after the fourth prediction of the frame (h = 1/480 s:
    /// 1.79e308 + s · 2.08e305 overflows at s = 4); its links off, so
    /// that nothing else names it first.
    fn overflow_later(&mut self, p: usize) {
        for l in &mut self.links {
            if l.i as usize == p || l.j as usize == p {
                l.flags = Link::<f64>::DISABLED;
            }
        }
        self.x[p] = [0.0, 1.79e308, 0.0];
        self.v[p] = [0.0, 1e308, 0.0];
    }
}

fn systems() -> Vec<(&'static str, Box<dyn Jobs>)> {
    let threads = |threads| Threads {
        threads,
        split: 2 * threads + 1,
    };
    vec![
        ("1 thread", Box::new(OneThread)),
        ("2 threads", Box::new(threads(2))),
        ("3 threads", Box::new(threads(3))),
        ("7 threads", Box::new(threads(7))),
    ]
}

#[test]
fn a_particle_overflowing_mid_frame_fails_it_writing_nothing() {
    let p = SIDE * SIDE / 2 + 1;
    let expected = StepError::System(SystemError::NonFinitePosition { particle: p });
    // Two good frames first: λ, velocities and contacts are the frame's own.
    let prepared = || {
        let mut c = Cloth::new();
        c.frame(None).unwrap();
        c.frame(None).unwrap();
        c.overflow_later(p);
        c
    };
    let mut reference = prepared();
    assert!(reference.links.iter().any(|l| l.lambda != 0.0));
    let before = reference.bytes();
    assert_eq!(reference.frame(None), Err(expected));
    assert!(reference.bytes() == before, "step wrote on a failed frame");
    for (name, jobs) in systems() {
        let mut c = prepared();
        assert!(c.bytes() == before, "{name}: the same start");
        assert_eq!(c.frame(Some(jobs.as_ref())), Err(expected), "{name}");
        assert!(c.bytes() == before, "{name}: a failed frame wrote");
    }
}

#[test]
fn a_good_frame_commits_the_same_bits_on_every_job_system() {
    let mut reference = Cloth::new();
    reference.frame(None).unwrap();
    reference.frame(None).unwrap();
    // The links' λ of the last substep were committed.
    assert!(reference.links.iter().all(|l| l.lambda.is_finite()));
    assert!(reference.links.iter().any(|l| l.lambda != 0.0));
    for (name, jobs) in systems() {
        let mut c = Cloth::new();
        c.frame(Some(jobs.as_ref())).unwrap();
        c.frame(Some(jobs.as_ref())).unwrap();
        assert!(c.bytes() == reference.bytes(), "{name}");
    }
}

/// A link whose length squared overflows (the SoA frame's link kernels
/// test only λ' in their fast path and leave the positions to the
/// velocity pass): 16 pairs 1e200 m apart, rest length 1, one color of
/// 8-lane groups of neighbour pairs. λ' is −∞ in every lane, so no group
/// takes the fast path, and the general path names the first link, as
/// `step` does. `step_colored` fails the frame with the same error and
/// writes nothing, on every job system.
#[test]
fn a_link_whose_length_overflows_fails_the_frame_writing_nothing() {
    let pairs = 16;
    let n = 2 * pairs;
    let x0: Vec<V> = (0..n)
        .map(|k| {
            let t = (k / 2) as f64;
            [if k % 2 == 1 { 1e200 } else { 0.0 }, 0.0, t]
        })
        .collect();
    let links0: Vec<Link<f64>> = (0..pairs as u32)
        .map(|t| Link::new(2 * t, 2 * t + 1, 1.0, 0.0))
        .collect();
    let starts = vec![0, pairs];
    let run = |jobs: Option<&dyn Jobs>| {
        let (mut x, mut v, w) = (x0.clone(), vec![[0.0; 3]; n], vec![1.0; n]);
        let mut links = links0.clone();
        let mut contacts = vec![Contact::default(); n];
        let mut scratch = vec![[0.0; 3]; scratch_len(n, pairs)];
        let mut stamp = vec![0u32; n];
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut links;
        let config = StepConfig::new([0.0, 0.0, 0.0]);
        let colors = GroupColors {
            links: &starts,
            ..Default::default()
        };
        let r = match jobs {
            None => step(&mut world, 1.0 / 60.0, &config),
            Some(jobs) => step_colored(&mut world, &colors, &mut stamp, 1.0 / 60.0, &config, jobs),
        };
        let bits: Vec<u64> = x
            .iter()
            .chain(&v)
            .flatten()
            .map(|c| c.to_bits())
            .chain(links.iter().map(|l| l.lambda.to_bits()))
            .collect();
        (r, bits)
    };
    let untouched: Vec<u64> = x0
        .iter()
        .chain(&vec![[0.0; 3]; n])
        .flatten()
        .map(|c| c.to_bits())
        .chain(links0.iter().map(|l| l.lambda.to_bits()))
        .collect();
    let (expected, bits) = run(None);
    assert!(
        matches!(
            expected,
            Err(StepError::System(SystemError::InvalidResult { .. }))
        ),
        "{expected:?}"
    );
    assert!(bits == untouched, "step wrote on a failed frame");
    for (name, jobs) in systems() {
        let (r, bits) = run(Some(jobs.as_ref()));
        assert_eq!(r, expected, "{name}");
        assert!(bits == untouched, "{name}: a failed frame wrote");
    }
}
