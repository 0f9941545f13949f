//! Self-collision (issue 18) through the Rust API: the spatial hash finds
//! exactly the pairs a brute-force search finds (and in a deterministic
//! order); a folded cloth on the ground and a cloth on a sphere never have
//! two collidable particles closer than 2r; the lifecycle (a particle
//! resting on another: sag `α m g` and force `m g` whatever the iteration
//! count); the exclusion rules (links, torn links, rest shape); the
//! displacement bound reported; validation writing nothing; f32 and f64.

use std::collections::HashSet;

use xpbd::step::{
    scratch_len, self_collision_adjacency_len, self_collision_table_len, step, Colliders, Contact,
    ParticleContact, Plane, SelfCollision, Sphere, StepConfig, StepError, StepStats, World,
};
use xpbd::{cloth, cloth_link_count, Field, Link, Real};

const G: f64 = 9.81;

/// A world's memory with self-collision scratch.
struct Scene<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    rest: Vec<[T; 3]>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
    pairs: Vec<ParticleContact<T>>,
    table: Vec<u32>,
    ids: Vec<u32>,
    keys: Vec<u32>,
}

impl<T: Real> Scene<T> {
    fn new(x: Vec<[T; 3]>, w: Vec<T>, links: Vec<Link<T>>, rest: Vec<[T; 3]>) -> Self {
        let n = x.len();
        let link_count = links.len();
        Self {
            v: vec![[T::ZERO; 3]; n],
            contacts: vec![Contact::default(); 2 * n],
            scratch: vec![[T::ZERO; 3]; scratch_len(n, link_count)],
            pairs: vec![ParticleContact::default(); 16 * n],
            table: vec![0; self_collision_table_len(n)],
            ids: vec![0; n],
            keys: vec![0; self_collision_adjacency_len(n, links.len())],
            x,
            w,
            links,
            rest,
        }
    }

    fn step(
        &mut self,
        planes: &[Plane<T, 3>],
        spheres: &[Sphere<T, 3>],
        config: &StepConfig<T, 3>,
    ) -> Result<StepStats<T>, StepError> {
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut self.links;
        world.colliders = Some(Colliders {
            planes,
            spheres,
            ..Default::default()
        });
        world.self_collision = Some(SelfCollision {
            pairs: &mut self.pairs,
            table: &mut self.table,
            ids: &mut self.ids,
            adjacency: &mut self.keys,
            rest: &self.rest,
        });
        step(&mut world, T::from_f64(1.0 / 60.0), config)
    }

    /// The smallest distance between two particles that may collide (not
    /// joined by an enabled link, not closer than 2r at rest), brute force.
    fn min_distance(&self, r: f64) -> f64 {
        let linked: HashSet<(u32, u32)> = self
            .links
            .iter()
            .filter(|l| !l.is_disabled())
            .map(|l| (l.i.min(l.j), l.i.max(l.j)))
            .collect();
        let p = |v: &[T; 3]| v.map(|c| c.to_f64());
        let d = |a: [f64; 3], b: [f64; 3]| {
            ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
        };
        let mut best = f64::INFINITY;
        for i in 0..self.x.len() {
            for j in i + 1..self.x.len() {
                if linked.contains(&(i as u32, j as u32)) {
                    continue;
                }
                if !self.rest.is_empty() && d(p(&self.rest[i]), p(&self.rest[j])) < 2.0 * r {
                    continue;
                }
                best = best.min(d(p(&self.x[i]), p(&self.x[j])));
            }
        }
        best
    }
}

fn config<T: Real>(r: f64) -> StepConfig<T, 3> {
    let mut c = StepConfig::new([T::ZERO, T::from_f64(-G), T::ZERO]);
    c.particle_radius = T::from_f64(r);
    c.damping = T::from_f64(1.0);
    c.static_friction = T::from_f64(0.3);
    c.dynamic_friction = T::from_f64(0.3);
    c
}

/// An `n × n` cloth (1 cm apart, flat at rest in the xz plane), started
/// folded in two (the far half over the near half, 2.5r above it) or flat
/// at height `y0`.
fn cloth_scene<T: Real>(n: usize, folded: bool, y0: f64, r: f64) -> Scene<T> {
    let s = 0.01;
    let rest: Vec<[f64; 3]> = (0..n * n)
        .map(|k| [(k % n) as f64 * s, 0.0, (k / n) as f64 * s])
        .collect();
    let half = (n / 2) as f64 * s;
    let x: Vec<[f64; 3]> = rest
        .iter()
        .map(|p| {
            let (cx, cz) = (p[0] - half, p[2] - half);
            if folded && p[2] > half - s / 2.0 {
                [cx, y0 + 2.5 * r, -cz + s]
            } else {
                [cx, y0, cz]
            }
        })
        .collect();
    let mut links = vec![Link::default(); cloth_link_count(n, n, true).unwrap()];
    cloth(&rest, n, n, true, 1e-6, &mut links).unwrap();
    let f = |p: &[f64; 3]| p.map(T::from_f64);
    Scene::new(
        x.iter().map(f).collect(),
        vec![T::from_f64(1000.0); n * n],
        links
            .iter()
            .map(|l| Link::new(l.i, l.j, T::from_f64(l.rest), T::from_f64(l.compliance)))
            .collect(),
        rest.iter().map(f).collect(),
    )
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation (minutes in the interpreter); the hash, exclusion, bound and refusal tests run there"
)]
fn a_folded_cloth_on_the_ground_never_passes_through_itself() {
    let r = 0.005;
    let (n, frames) = if cfg!(miri) { (4, 2) } else { (16, 240) };
    let ground = [Plane {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let mut s = cloth_scene::<f64>(n, true, 0.03, r);
    let c = config::<f64>(r);
    let mut worst = f64::INFINITY;
    let mut most = 0;
    for frame in 0..frames {
        let stats = s.step(&ground, &[], &c).unwrap();
        most = most.max(stats.max_pairs);
        if frame % 10 == 9 || frame + 1 == frames {
            worst = worst.min(s.min_distance(r));
        }
    }
    println!(
        "folded {n}×{n}: smallest distance {worst:.7} m (2r = {} m), up to {most} pairs",
        2.0 * r
    );
    assert!(worst >= 2.0 * r - 1e-6, "{worst} m");
    assert!(most > 0, "the layers must meet");
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation (minutes in the interpreter); the hash, exclusion, bound and refusal tests run there"
)]
fn a_cloth_on_a_sphere_folds_without_interpenetration() {
    let r = 0.005;
    let (n, frames) = if cfg!(miri) { (4, 2) } else { (14, 180) };
    let mut s = cloth_scene::<f32>(n, false, 0.1, r);
    let c = config::<f32>(r);
    let ground32 = [Plane {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let sphere32 = [Sphere {
        center: [0.0, 0.05, 0.0],
        radius: 0.03,
    }];
    let mut worst = f64::INFINITY;
    for frame in 0..frames {
        s.step(&ground32, &sphere32, &c).unwrap();
        if frame % 10 == 9 || frame + 1 == frames {
            worst = worst.min(s.min_distance(r));
        }
    }
    println!("draped {n}×{n} (f32): smallest distance {worst:.7} m");
    assert!(worst >= 2.0 * r - 1e-6, "{worst} m");
}

#[test]
fn the_hash_finds_exactly_the_brute_force_pairs_in_a_fixed_order() {
    // A random cloud, one substep without motion: the stored pairs are
    // exactly the pairs closer than 4r that are not excluded, each once.
    let r = 0.01;
    let n = if cfg!(miri) { 12 } else { 400 };
    let mut seed = 0x5eed_u64;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let side = if cfg!(miri) { 0.05 } else { 0.3 };
    let x: Vec<[f64; 3]> = (0..n)
        .map(|_| {
            [
                rnd() * side - side / 2.0,
                rnd() * side,
                rnd() * side - 0.5 * side,
            ]
        })
        .collect();
    let mut links = Vec::new();
    for k in (0..n - 1).step_by(3) {
        links.push(Link::new(k as u32, k as u32 + 1, 0.01, 0.0));
    }
    let mut w = vec![1.0; n];
    w[0] = 0.0;
    w[1] = 0.0;
    let mut s = Scene::new(x.clone(), w.clone(), links.clone(), vec![]);
    let mut c = StepConfig::new([0.0; 3]);
    c.substeps = 1;
    c.particle_radius = r;
    // The pairs are found after the prediction, before any sweep.
    let stats = s.step(&[], &[], &c).unwrap();
    let found: Vec<(u32, u32)> = s.pairs[..stats.max_pairs]
        .iter()
        .map(|p| (p.i, p.j))
        .collect();
    let unique: HashSet<(u32, u32)> = found.iter().copied().collect();
    assert_eq!(unique.len(), found.len(), "a pair stored twice");
    let linked: HashSet<(u32, u32)> = links.iter().map(|l| (l.i, l.j)).collect();
    let mut want = HashSet::new();
    for i in 0..n {
        for j in i + 1..n {
            let d2: f64 = (0..3).map(|k| (x[i][k] - x[j][k]).powi(2)).sum();
            let both_static = w[i] == 0.0 && w[j] == 0.0;
            if d2 < (4.0 * r) * (4.0 * r) && !both_static && !linked.contains(&(i as u32, j as u32))
            {
                want.insert((i as u32, j as u32));
            }
        }
    }
    assert_eq!(unique, want);
    // The same input gives the same order.
    let mut again = Scene::new(x, w, links, vec![]);
    let stats2 = again.step(&[], &[], &c).unwrap();
    let order2: Vec<(u32, u32)> = again.pairs[..stats2.max_pairs]
        .iter()
        .map(|p| (p.i, p.j))
        .collect();
    assert_eq!(found, order2);
}

/// A particle of mass m resting on a static particle under gravity, with
/// contact compliance α: it sits `α m g` inside the contact distance and
/// the pair's force λ/h² is `m g`, with 1 and 10 iterations.
fn stacked<T: Real>(iterations: u32, alpha: f64) -> (f64, f64) {
    let r = 0.01;
    let m = 0.2;
    let d = xpbd::step::particle_contact_distance(r);
    // Started at the compliant equilibrium, `α m g` inside the distance.
    let y = d - alpha * m * G;
    let x = vec![[T::ZERO; 3], [T::ZERO, T::from_f64(y), T::ZERO]];
    let mut s = Scene::new(x, vec![T::ZERO, T::from_f64(1.0 / m)], vec![], vec![]);
    let mut c = config::<T>(r);
    c.iterations = iterations;
    c.contact_compliance = T::from_f64(alpha);
    c.damping = T::from_f64(5.0);
    let frames = if cfg!(miri) { 3 } else { 120 };
    for _ in 0..frames {
        s.step(&[], &[], &c).unwrap();
    }
    let h = 1.0 / 60.0 / f64::from(c.substeps);
    (s.x[1][1].to_f64() - d, s.pairs[0].lambda.to_f64() / (h * h))
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation (minutes in the interpreter); the hash, exclusion, bound and refusal tests run there"
)]
fn the_lifecycle_holds_a_stacked_particle_whatever_the_iterations() {
    let (alpha, m) = (1e-3, 0.2);
    let sag = alpha * m * G;
    for it in [1, 10] {
        let (y, f) = stacked::<f64>(it, alpha);
        assert!((y + sag).abs() < 1e-9, "{it} iterations: {y} vs −{sag}");
        assert!((f - m * G).abs() < 1e-6, "{it} iterations: force {f}");
    }
    let (y, f) = stacked::<f32>(1, alpha);
    assert!(
        (y + sag).abs() < 1e-5 && (f - m * G).abs() < 1e-3,
        "{y} {f}"
    );
}

#[test]
fn linked_pairs_torn_links_and_the_rest_shape_decide_exclusion() {
    let r = 0.01;
    // Two particles 1 cm apart (closer than 2r): linked → no contact.
    let x = vec![[0.0, 0.0, 0.0], [0.01, 0.0, 0.0]];
    let link = Link::new(0, 1, 0.01, 0.0);
    let mut c = StepConfig::new([0.0; 3]);
    c.particle_radius = r;
    let mut s = Scene::new(x.clone(), vec![1.0, 1.0], vec![link], vec![]);
    let stats = s.step(&[], &[], &c).unwrap();
    assert_eq!(stats.max_pairs, 0);
    assert_eq!(s.x, x);
    // The link torn (disabled): the pair collides and is pushed apart.
    s.links[0].flags |= Link::<f64>::DISABLED;
    let stats = s.step(&[], &[], &c).unwrap();
    assert_eq!(stats.max_pairs, 1);
    let gap = s.x[1][0] - s.x[0][0];
    assert!(gap >= 2.0 * r, "{gap}");
    // Not linked but touching in the rest shape: excluded.
    let mut s = Scene::new(x.clone(), vec![1.0, 1.0], vec![], x.clone());
    let stats = s.step(&[], &[], &c).unwrap();
    assert_eq!(stats.max_pairs, 0);
    assert_eq!(s.x, x);
}

#[test]
fn the_displacement_bound_clamps_and_reports() {
    let r = 0.005;
    let mut s = Scene::new(vec![[0.0; 3]], vec![1.0], vec![], vec![]);
    s.v[0] = [100.0, 0.0, 0.0]; // 8.3 cm per substep of 1/1200 s
    let mut c = StepConfig::new([0.0; 3]);
    c.particle_radius = r;
    let stats = s.step(&[], &[], &c).unwrap();
    // The first substep is clamped; after it the velocity is r/h, so the
    // later predictions move r (clamped again when rounding lands above).
    assert!(stats.clamped >= 1, "{stats:?}");
    assert!((s.x[0][0] - 20.0 * r).abs() < 1e-12, "{:?}", s.x[0]);
    assert!((s.v[0][0] - r * 1200.0).abs() < 1e-9, "{:?}", s.v[0]);
}

#[test]
fn bad_self_collision_memory_is_rejected_and_nothing_is_written() {
    let x = vec![[0.0, 0.0, 0.0], [0.001, 0.0, 0.0]];
    let link = Link::new(0, 1, 0.01, 0.0);
    let c = config::<f64>(0.01);
    type Breaker = fn(&mut Scene<f64>, &mut StepConfig<f64, 3>);
    let cases: [(&str, Breaker, Field); 5] = [
        (
            "radius 0",
            |_, c| c.particle_radius = 0.0,
            Field::ParticleRadius,
        ),
        (
            "short table",
            |s, _| s.table.truncate(self_collision_table_len(2) - 1),
            Field::HashTable,
        ),
        ("short ids", |s, _| s.ids.truncate(1), Field::HashIds),
        ("short link keys", |s, _| s.keys.clear(), Field::Adjacency),
        (
            "NaN rest",
            |s, _| s.rest = vec![[0.0; 3], [f64::NAN, 0.0, 0.0]],
            Field::RestPositions,
        ),
    ];
    for (what, breaker, field) in cases {
        let mut s = Scene::new(x.clone(), vec![1.0, 1.0], vec![link], vec![]);
        s.v[1] = [0.5, 0.0, 0.0];
        let mut c = c;
        breaker(&mut s, &mut c);
        let before = (s.x.clone(), s.v.clone(), s.links.clone(), s.pairs.clone());
        let e = s.step(&[], &[], &c).unwrap_err();
        assert_eq!(e, StepError::InvalidSelfCollision { field }, "{what}");
        assert_eq!(
            (s.x.clone(), s.v.clone(), s.links.clone(), s.pairs.clone()),
            before,
            "{what}"
        );
    }
    // Too many pairs for the capacity: rejected whole (the default policy),
    // naming the 14 pairs the first substep found.
    let mut s = cloth_scene::<f64>(4, true, 0.0, 0.005);
    s.pairs.truncate(1);
    let before = (s.x.clone(), s.v.clone());
    let e = s.step(&[], &[], &config::<f64>(0.005)).unwrap_err();
    assert_eq!(e, StepError::PairCapacity { needed: 14 });
    assert_eq!((s.x.clone(), s.v.clone()), before);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation (minutes in the interpreter); the hash, exclusion, bound and refusal tests run there"
)]
fn the_same_scene_gives_the_same_bits() {
    let (n, frames) = if cfg!(miri) { (3, 1) } else { (8, 30) };
    let run = || {
        let mut s = cloth_scene::<f32>(n, true, 0.02, 0.005);
        let ground = [Plane {
            normal: [0.0, 1.0, 0.0],
            offset: 0.0,
        }];
        for _ in 0..frames {
            s.step(&ground, &[], &config::<f32>(0.005)).unwrap();
        }
        s.x.iter()
            .flatten()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(run(), run());
}
