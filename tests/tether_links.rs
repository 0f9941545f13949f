//! Tethers measured along the links (`tethers_along_links`, issue 15 kind 5
//! "along links as an option"): distances and anchors equal to a plain
//! Dijkstra written here, bit for bit and for any link order; a zigzag rope
//! hanging from its top unfolds to its full length with them and is held
//! bunched by Euclidean tethers; every rejected input writes nothing.

use xpbd::step::{scratch_len, step, Contact, StepConfig, World};
use xpbd::{rope, tethers, tethers_along_links, Constraints, Link, SystemError, Tether};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn len(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// Dijkstra over the links with (distance, anchor rank) compared
/// lexicographically, O(n²), path sums `d_j = d_i + |x_j − x_i|`.
fn reference(x: &[[f64; 3]], links: &[Link<f64>], anchors: &[u32]) -> Vec<Option<(f64, usize)>> {
    let n = x.len();
    let mut best: Vec<Option<(f64, usize)>> = vec![None; n];
    for (rank, &a) in anchors.iter().enumerate() {
        if best[a as usize].is_none() {
            best[a as usize] = Some((0.0, rank));
        }
    }
    let mut done = vec![false; n];
    let key_less = |a: (f64, usize), b: (f64, usize)| a.0 < b.0 || (a.0 == b.0 && a.1 < b.1);
    loop {
        let mut pick: Option<usize> = None;
        for k in 0..n {
            if done[k] {
                continue;
            }
            if let Some(kk) = best[k] {
                if pick.map_or(true, |p| key_less(kk, best[p].unwrap())) {
                    pick = Some(k);
                }
            }
        }
        let Some(u) = pick else { break };
        done[u] = true;
        let (du, ru) = best[u].unwrap();
        for l in links {
            let (i, j) = (l.i as usize, l.j as usize);
            let v = if i == u {
                j
            } else if j == u {
                i
            } else {
                continue;
            };
            let cand = (du + len(x[u], x[v]), ru);
            if best[v].map_or(true, |b| key_less(cand, b)) {
                best[v] = Some(cand);
            }
        }
    }
    best
}

/// Runs the builder with ample memory; returns the tethers written and the
/// scratch.
fn build(
    x: &[[f64; 3]],
    w: &[f64],
    links: &[Link<f64>],
    anchors: &[u32],
) -> (Vec<Tether<f64>>, Vec<f64>, Vec<u32>) {
    let n = x.len();
    let (mut d, mut r, mut out) = (vec![0.0; n], vec![0; n], vec![Tether::default(); n]);
    let count = tethers_along_links(x, w, links, anchors, 1e-7, &mut d, &mut r, &mut out).unwrap();
    out.truncate(count);
    (out, d, r)
}

#[test]
fn distances_and_anchors_equal_dijkstra_bit_for_bit_for_any_link_order() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let cases = if cfg!(miri) { 3 } else { 300 };
    for case in 0..cases {
        let n = 2 + rng.below(if cfg!(miri) { 12 } else { 60 });
        let x: Vec<[f64; 3]> = (0..n)
            .map(|_| [rng.unit(), rng.unit(), rng.unit() * 0.1])
            .collect();
        let w: Vec<f64> = (0..n)
            .map(|_| if rng.below(5) == 0 { 0.0 } else { 1.0 })
            .collect();
        let mut links = vec![];
        for _ in 0..rng.below(3 * n) {
            let (i, j) = (rng.below(n), rng.below(n));
            if i != j {
                links.push(Link::new(i as u32, j as u32, 1.0, 0.0));
            }
        }
        // Anchors, possibly repeated.
        let anchors: Vec<u32> = (0..1 + rng.below(3)).map(|_| rng.below(n) as u32).collect();
        let want = reference(&x, &links, &anchors);
        let (out, d, r) = build(&x, &w, &links, &anchors);
        let mut expected = vec![];
        for k in 0..n {
            match want[k] {
                Some((dk, rank)) => {
                    assert_eq!(d[k].to_bits(), dk.to_bits(), "case {case} particle {k}");
                    assert_eq!(r[k] as usize, rank, "case {case} particle {k}");
                    if w[k] != 0.0 && !anchors.contains(&(k as u32)) {
                        expected.push(Tether::new(k as u32, anchors[rank], dk, 1e-7));
                    }
                }
                None => assert_eq!(r[k], u32::MAX, "case {case}: {k} is unreached"),
            }
        }
        assert_eq!(out, expected, "case {case}");
        // The link order changes nothing.
        let mut shuffled = links.clone();
        for k in (1..shuffled.len()).rev() {
            shuffled.swap(k, rng.below(k + 1));
        }
        for l in shuffled.iter_mut().filter(|_| rng.below(2) == 0) {
            core::mem::swap(&mut l.i, &mut l.j);
        }
        assert_eq!(build(&x, &w, &shuffled, &anchors).0, out, "case {case}");
    }
}

/// A zigzag rope: `n` particles, each link `s` long at ±30° from the
/// horizontal, so the straight distance from the top is about half the
/// length along the rope (exactly half at every second particle).
fn zigzag(n: usize, s: f64) -> Vec<[f64; 3]> {
    let (dx, dy) = (s * 0.75_f64.sqrt(), s * 0.5);
    (0..n)
        .map(|k| {
            let x = if k % 2 == 0 { 0.0 } else { dx };
            [x, -(k as f64) * dy, 0.0]
        })
        .collect()
}

#[test]
fn a_straight_rope_gets_its_cumulative_length_and_a_zigzag_its_length_along_the_links() {
    let n = 9;
    let x = zigzag(n, 0.1);
    let w: Vec<f64> = (0..n).map(|k| if k == 0 { 0.0 } else { 1.0 }).collect();
    let mut links = vec![Link::default(); n - 1];
    rope(&x, 0.0, &mut links).unwrap();
    let (along, _, _) = build(&x, &w, &links, &[0]);
    let mut euclid = vec![Tether::default(); n];
    let count = tethers(&x, &w, &[0], 1e-7, &mut euclid).unwrap();
    assert_eq!((along.len(), count), (n - 1, n - 1));
    let mut sum = 0.0;
    for (k, t) in along.iter().enumerate() {
        sum += len(x[k], x[k + 1]);
        assert_eq!((t.particle, t.anchor), (k as u32 + 1, 0));
        assert_eq!(t.max_distance.to_bits(), sum.to_bits());
        // Along the links is never shorter than the straight line, and here
        // it is about twice as long at the bottom.
        assert!(t.max_distance >= euclid[k].max_distance);
    }
    let ratio = along[n - 2].max_distance / euclid[n - 2].max_distance;
    assert!((ratio - 2.0).abs() < 0.05, "ratio {ratio}");
}

/// Drops the zigzag rope (top pinned, rigid links) for `frames` frames with
/// the given tethers; returns the bottom particle's drop below the top (m).
fn hang(x0: &[[f64; 3]], links: &[Link<f64>], ties: &mut [Tether<f64>], frames: usize) -> f64 {
    let n = x0.len();
    let w: Vec<f64> = (0..n).map(|k| if k == 0 { 0.0 } else { 100.0 }).collect();
    let mut x = x0.to_vec();
    let mut links = links.to_vec();
    let mut v = vec![[0.0; 3]; n];
    let mut contacts: Vec<Contact<f64>> = vec![];
    let mut scratch = vec![[0.0; 3]; scratch_len(n, links.len())];
    let mut config = StepConfig::new([0.0, -9.81, 0.0]);
    config.substeps = 8;
    config.iterations = 2;
    config.damping = 2.0;
    for _ in 0..frames {
        let mut world = World {
            positions: &mut x,
            velocities: &mut v,
            inverse_masses: &w,
            links: &mut links,
            contacts: &mut contacts,
            scratch: &mut scratch,
            colliders: None,
            self_collision: None,
            tearing: None,
            wind: None,
            local_space: None,
            engine_contacts: None,
            groups: None,
        };
        world.groups = Some(Constraints {
            tethers: &mut *ties,
            ..Constraints::default()
        });
        step(&mut world, 1.0 / 60.0, &config).unwrap();
    }
    x[0][1] - x[n - 1][1]
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust simulation: minutes in the interpreter (CI budget)"
)]
fn a_zigzag_rope_unfolds_with_tethers_along_links_and_not_with_euclidean_ones() {
    let (n, s) = (11, 0.1);
    let x = zigzag(n, s);
    let w: Vec<f64> = (0..n).map(|k| if k == 0 { 0.0 } else { 1.0 }).collect();
    let mut links = vec![Link::default(); n - 1];
    rope(&x, 0.0, &mut links).unwrap();
    let (mut along, _, _) = build(&x, &w, &links, &[0]);
    let mut euclid = vec![Tether::default(); n - 1];
    tethers(&x, &w, &[0], 0.0, &mut euclid).unwrap();
    let full = (n - 1) as f64 * s;
    let drop_along = hang(&x, &links, &mut along, 240);
    let drop_euclid = hang(&x, &links, &mut euclid, 240);
    println!("zigzag rope, 1 m along its links: drop {drop_along:.4} m with tethers along links, {drop_euclid:.4} m with Euclidean tethers");
    assert!((drop_along / full - 1.0).abs() < 0.01, "{drop_along}");
    assert!(drop_euclid < 0.6 * full, "{drop_euclid}");
}

#[test]
fn rejected_inputs_write_nothing_and_name_the_link() {
    let x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let w = [0.0, 1.0, 1.0];
    let links = [Link::new(0, 1, 1.0, 0.0), Link::new(1, 2, 1.0, 0.0)];
    let sentinel = Tether::new(9, 9, 9.0, 9.0);
    #[allow(clippy::type_complexity)]
    let check = |x: &[[f64; 3]],
                 w: &[f64],
                 links: &[Link<f64>],
                 anchors: &[u32],
                 compliance: f64,
                 scratch: usize,
                 capacity: usize,
                 want: SystemError| {
        let mut out = vec![sentinel; capacity];
        let (mut d, mut r) = (vec![0.0; scratch], vec![0; scratch]);
        let got = tethers_along_links(x, w, links, anchors, compliance, &mut d, &mut r, &mut out);
        assert_eq!(got, Err(want));
        assert!(out.iter().all(|t| *t == sentinel), "{want:?}");
    };
    check(&x, &w, &links, &[], 0.0, 3, 3, SystemError::InvalidShape);
    check(&x, &w, &links, &[3], 0.0, 3, 3, SystemError::InvalidShape);
    check(
        &x,
        &w[..2],
        &links,
        &[0],
        0.0,
        3,
        3,
        SystemError::ParticleCountMismatch,
    );
    check(
        &x,
        &w,
        &links,
        &[0],
        0.0,
        3,
        1,
        SystemError::CapacityTooSmall { needed: 2 },
    );
    check(
        &x,
        &w,
        &links,
        &[0],
        0.0,
        2,
        3,
        SystemError::CapacityTooSmall { needed: 3 },
    );
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        check(
            &x,
            &w,
            &links,
            &[0],
            bad,
            3,
            3,
            SystemError::InvalidCompliance { constraint: 0 },
        );
    }
    let mut nan = x;
    nan[2][0] = f64::NAN;
    check(
        &nan,
        &w,
        &links,
        &[0],
        0.0,
        3,
        3,
        SystemError::NonFinitePosition { particle: 2 },
    );
    let out_of_range = [links[0], Link::new(1, 3, 1.0, 0.0)];
    check(
        &x,
        &w,
        &out_of_range,
        &[0],
        0.0,
        3,
        3,
        SystemError::IndexOutOfRange { constraint: 1 },
    );
    let same = [Link::new(2, 2, 1.0, 0.0)];
    check(
        &x,
        &w,
        &same,
        &[0],
        0.0,
        3,
        3,
        SystemError::SameParticle { constraint: 0 },
    );
    let far = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [-1e200, 0.0, 0.0]];
    let across = [Link::new(0, 1, 1.0, 0.0), Link::new(1, 2, 1.0, 0.0)];
    // |x_2 − x_1|² overflows: no usable length.
    check(
        &far,
        &w,
        &across,
        &[0],
        0.0,
        3,
        3,
        SystemError::Degenerate { constraint: 1 },
    );
}

#[test]
fn static_particles_anchors_and_unreached_particles_get_no_tether() {
    // 0 — 1 — 2   3 (no link)   4 static, linked to 2
    let x = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
        [2.0, 1.0, 0.0],
    ];
    let w = [0.0, 1.0, 1.0, 1.0, 0.0];
    let links = [
        Link::new(0, 1, 1.0, 0.0),
        Link::new(1, 2, 1.0, 0.0),
        Link::new(2, 4, 1.0, 0.0),
    ];
    let (out, d, r) = build(&x, &w, &links, &[0, 2]);
    // Particle 1 is 1 m from both anchors: the first anchor wins; 2 is an
    // anchor, 3 unreached, 4 static.
    assert_eq!(out, vec![Tether::new(1, 0, 1.0, 1e-7)]);
    assert_eq!(r, vec![0, 0, 1, u32::MAX, 1]);
    assert_eq!(&d[..3], &[0.0, 1.0, 0.0]);
}
