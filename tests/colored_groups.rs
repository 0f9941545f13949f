//! Colored solving of a 3D system's links and constraint groups
//! (`xpbd::colored::groups`): the colored sweep and the jobs (1, 2, 3, 7,
//! real threads) are bit-identical to the sequential sweep over the same
//! colored order, for a cloth with links, bends and tethers and for a tet
//! block; the greedy coloring of N-particle instances is proper and the
//! links' colors are those of `greedy_coloring`; every rejected input
//! writes nothing; λ lives across the iterations of a substep.

use xpbd::{
    bends_count_for_cloth, bends_for_cloth, check_instance_coloring, cloth, cloth_link_count,
    color_instances, color_order, fill_in_order, greedy_coloring, icosphere, icosphere_counts,
    mesh_volume, surface_links, tet_block, tet_block_counts, tet_block_link_count, tet_block_links,
    tethers, Bend, Constraints, Group, GroupColors, Instance, Link, MeshParticles, MeshVolume,
    MeshVolumes, SweepStats, System, SystemError, Tet, Tether,
};

type V = [f64; 3];

/// A deterministic generator (xorshift) for perturbations.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// A group colored greedily and stored in colored order, with its
/// boundaries.
fn colored<const N: usize, K: Instance<N>>(items: &[K], n: usize) -> (Vec<K>, Vec<usize>) {
    let mut used = vec![0u64; n];
    let mut colors = vec![0u32; items.len()];
    let count = color_instances(items, n, &mut used, &mut colors).unwrap();
    let mut starts = vec![0usize; count as usize + 1];
    let mut order = vec![0u32; items.len()];
    color_order(&colors, count, &mut starts, &mut order).unwrap();
    let mut out = items.to_vec();
    assert_eq!(fill_in_order(items, &order, &mut out), Ok(items.len()));
    let mut stamp = vec![0u32; n];
    assert_eq!(
        check_instance_coloring(&out, &starts, n, &mut stamp),
        Ok(())
    );
    if items.is_empty() {
        starts.clear();
    }
    (out, starts)
}

/// A scene in colored order: particles, links, bends, tets, tethers and
/// the boundaries of each group.
#[derive(Clone)]
struct Scene {
    x: Vec<V>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    bends: Vec<Bend<f64>>,
    tets: Vec<Tet<f64>>,
    tethers: Vec<Tether<f64>>,
    meshes: Vec<MeshVolume<f64>>,
    triangles: Vec<[u32; 3]>,
    particles: Vec<u32>,
    starts: [Vec<usize>; 4],
}

impl Scene {
    /// Bits of every position and λ.
    fn bits(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self.x.iter().flatten().map(|c| c.to_bits()).collect();
        v.extend(self.links.iter().map(|l| l.lambda.to_bits()));
        v.extend(self.bends.iter().map(|b| b.lambda.to_bits()));
        v.extend(self.tets.iter().map(|t| t.lambda.to_bits()));
        v.extend(self.tethers.iter().map(|t| t.lambda.to_bits()));
        v.extend(self.meshes.iter().map(|m| m.lambda.to_bits()));
        v
    }
}

fn color_scene(
    x: Vec<V>,
    w: Vec<f64>,
    links: &[Link<f64>],
    bends: &[Bend<f64>],
    tets: &[Tet<f64>],
    tethers: &[Tether<f64>],
) -> Scene {
    let n = x.len();
    let (links, l) = colored(links, n);
    let (bends, b) = colored(bends, n);
    let (tets, t) = colored(tets, n);
    let (tethers, e) = colored(tethers, n);
    Scene {
        x,
        w,
        links,
        bends,
        tets,
        tethers,
        meshes: vec![],
        triangles: vec![],
        particles: vec![],
        starts: [l, b, t, e],
    }
}

/// A cloth of `rows × cols` (shear links, bends, tethers to the pinned
/// first row), stretched and crumpled a little.
fn cloth_scene(rows: usize, cols: usize) -> Scene {
    let dx = 0.1;
    let mut x: Vec<V> = (0..rows * cols)
        .map(|k| [(k % cols) as f64 * dx, (k / cols) as f64 * dx, 0.0])
        .collect();
    let w: Vec<f64> = (0..rows * cols)
        .map(|k| if k < cols { 0.0 } else { 2.0 })
        .collect();
    let mut links = vec![Link::default(); cloth_link_count(rows, cols, true).unwrap()];
    cloth(&x, rows, cols, true, 1e-7, &mut links).unwrap();
    let mut bends = vec![Bend::default(); bends_count_for_cloth(rows, cols)];
    bends_for_cloth(&x, rows, cols, 1e-3, &mut bends).unwrap();
    let anchors: Vec<u32> = (0..cols as u32).collect();
    let mut t = vec![Tether::default(); rows * cols];
    let count = tethers(&x, &w, &anchors, 0.0, &mut t).unwrap();
    t.truncate(count);
    // Pull the free rows away (the tethers act) and crumple (the bends do).
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    for (k, p) in x.iter_mut().enumerate().skip(cols) {
        p[1] *= 1.3;
        p[2] = 0.02 * r.next() + 0.01 * (k % 3) as f64;
    }
    color_scene(x, w, &links, &bends, &[], &t)
}

/// A tet block of `nx × ny × nz` cubes with its surface links, squashed.
fn tet_scene(nx: usize, ny: usize, nz: usize) -> Scene {
    let (n, m) = tet_block_counts(nx, ny, nz).unwrap();
    let mut x = vec![[0.0; 3]; n];
    let mut tets = vec![Tet::default(); m];
    tet_block(nx, ny, nz, 0.1, [0.0; 3], &mut x, &mut tets, 1e-6).unwrap();
    let mut links = vec![Link::default(); tet_block_link_count(nx, ny, nz).unwrap()];
    let count = tet_block_links(&x, nx, ny, nz, 1e-6, &mut links).unwrap();
    links.truncate(count);
    let w: Vec<f64> = x
        .iter()
        .map(|p| if p[2] == 0.0 { 0.0 } else { 1.0 })
        .collect();
    let mut r = Rng(7);
    for p in x.iter_mut() {
        if p[2] > 0.0 {
            p[2] *= 0.7;
            p[0] += 0.01 * r.next();
        }
    }
    color_scene(x, w, &links, &[], &tets, &[])
}

const H: f64 = 1.0 / 240.0;

/// Iterations per compared substep: under Miri (CI time) one; the view
/// made again within a substep runs there in the C ABI's tests
/// (`hostile_colored_groups.rs`), λ across iterations below
/// (`lambda_lives_across_colored_iterations_one_and_twenty_agree`).
fn iterations() -> usize {
    if cfg!(miri) {
        1
    } else {
        4
    }
}

/// How one substep is run.
#[derive(Clone, Copy, Debug)]
enum Run {
    /// `Substep::iterate` (the sequential sweep over the colored order).
    Sequential,
    /// `Substep::iterate_colored`.
    Colored,
    /// `ColoredGroups::iterate`.
    View,
    /// Every color split into this many jobs, run in reverse order.
    Jobs(usize),
    /// Every color split into this many jobs, each on its own thread.
    Threads(usize),
}

/// One substep of `iterations()` iterations; the scene after it and each
/// iteration's statistics.
fn run(scene: &Scene, how: Run) -> (Scene, Vec<SweepStats<f64>>) {
    let mut s = scene.clone();
    let starts = s.starts.clone();
    let colors = GroupColors {
        links: &starts[0],
        bends: &starts[1],
        tets: &starts[2],
        tethers: &starts[3],
    };
    let n = s.x.len();
    let mut stats = vec![];
    let mut scratch = vec![[0.0; 3]; n];
    let mut system = System::new(&mut s.x, &s.w, &mut s.links)
        .unwrap()
        .with_constraints(Constraints {
            bends: &mut s.bends,
            tets: &mut s.tets,
            tethers: &mut s.tethers,
            meshes: MeshVolumes {
                volumes: &mut s.meshes,
                triangles: &s.triangles,
                particles: &s.particles,
                scratch: &mut scratch,
            },
            attachments: &mut [],
            skin_constraints: &mut [],
        });
    let mut sub = system.begin_substep(H).unwrap();
    let mut stamp = vec![0u32; n];
    for _ in 0..iterations() {
        let st = match how {
            Run::Sequential => sub.iterate().unwrap(),
            Run::Colored => sub.iterate_colored(&colors).unwrap(),
            Run::View => sub.colored(colors, &mut stamp).unwrap().iterate().unwrap(),
            Run::Jobs(jobs) | Run::Threads(jobs) => {
                let mut view = sub.colored(colors, &mut stamp).unwrap();
                let mut total = SweepStats::default();
                for group in [
                    Group::Links,
                    Group::Bends,
                    Group::Tets,
                    Group::Tethers,
                    Group::Meshes,
                ] {
                    for color in 0..view.color_count(group) {
                        let list: Vec<_> = view.jobs(group, color, jobs).unwrap().collect();
                        assert_eq!(list.len(), jobs);
                        let parts: Vec<SweepStats<f64>> = if let Run::Threads(_) = how {
                            std::thread::scope(|scope| {
                                let handles: Vec<_> =
                                    list.into_iter().map(|j| scope.spawn(|| j.run())).collect();
                                handles
                                    .into_iter()
                                    .map(|h| h.join().unwrap().unwrap())
                                    .collect()
                            })
                        } else {
                            list.into_iter().rev().map(|j| j.run().unwrap()).collect()
                        };
                        for p in parts {
                            total = total.merge(p);
                        }
                    }
                }
                total
            }
        };
        stats.push(st);
    }
    (s, stats)
}

fn assert_all_runs_agree(scene: &Scene) {
    // The sequential sweep (safe Rust) is the reference natively; under
    // Miri (CI budget) the view's iteration is, and the jobs are held to it.
    let first = if cfg!(miri) {
        Run::View
    } else {
        Run::Sequential
    };
    let (reference, ref_stats) = run(scene, first);
    assert_ne!(
        reference.bits(),
        scene.bits(),
        "the substep moved something"
    );
    assert!(ref_stats.iter().all(|s| s.applied > 0));
    // Under Miri every color fits in one 64-instance chunk: more job counts
    // would split nothing more, and one of 3 jobs runs the whole color as 1
    // job would (3 adds the empty jobs). There the view's iteration (the
    // reference) and 3 jobs on 3 threads run: `Colored` is the view's
    // iteration (the same raw iteration, reached through
    // `iterate_colored` in `improper_tet_colors_keep_the_sequential_bits`
    // and `a_failing_instance_gives_the_same_error_and_bits_for_every_split`),
    // and the jobs run in reverse on one thread are the same jobs.
    let runs = if cfg!(miri) {
        vec![Run::Threads(3)]
    } else {
        let mut runs = vec![Run::Colored, Run::View];
        for jobs in [1, 2, 3, 7] {
            runs.push(Run::Jobs(jobs));
        }
        runs.push(Run::Threads(4));
        runs
    };
    for how in runs {
        let (s, stats) = run(scene, how);
        assert_eq!(s.bits(), reference.bits(), "{how:?}: positions and λ");
        assert_eq!(stats, ref_stats, "{how:?}: statistics");
    }
}

#[test]
fn cloth_with_bends_and_tethers_colored_and_jobs_match_the_sequential_bits() {
    let (rows, cols) = if cfg!(miri) { (3, 4) } else { (28, 28) };
    let scene = cloth_scene(rows, cols);
    assert!([0, 1, 3].iter().all(|&g| scene.starts[g].len() >= 2));
    if !cfg!(miri) {
        // Colors long enough that 2, 3 and 7 jobs really split them.
        let longest = scene.starts[1].windows(2).map(|w| w[1] - w[0]).max();
        assert!(longest.unwrap() > 128, "{:?}", scene.starts[1]);
    }
    assert_all_runs_agree(&scene);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "its Miri scene (1×1×1) and runs are odd_tet_colors_match_the_sequential_bits'"
)]
fn tet_block_colored_and_jobs_match_the_sequential_bits() {
    let (nx, ny, nz) = if cfg!(miri) { (1, 1, 1) } else { (6, 5, 4) };
    let scene = tet_scene(nx, ny, nz);
    assert!(scene.starts[2].len() >= 2);
    assert_all_runs_agree(&scene);
}

/// Two icosphere balloons (surface links, a mesh volume each at 1.2 × its
/// rest volume), squashed.
fn balloon_scene(frequency: usize) -> Scene {
    let (p, t) = icosphere_counts(frequency).unwrap();
    let mut x = vec![[0.0; 3]; 2 * p];
    let mut triangles = vec![[0u32; 3]; 2 * t];
    for (b, center) in [[0.0, 0.0, 0.0], [3.0, 0.0, 0.0]].into_iter().enumerate() {
        let (xs, ts) = (
            &mut x[b * p..(b + 1) * p],
            &mut triangles[b * t..(b + 1) * t],
        );
        icosphere(frequency, 1.0, center, xs, ts).unwrap();
        for tri in ts.iter_mut() {
            *tri = tri.map(|k| k + (b * p) as u32);
        }
    }
    let mut links = vec![Link::default(); 6 * t];
    let count = surface_links(&x, &triangles, 1e-6, &mut links).unwrap();
    links.truncate(count);
    let mut particles = vec![0; 2 * p];
    let mut marks = vec![[0.0; 3]; 2 * p];
    let mut first = 0;
    let meshes: Vec<MeshVolume<f64>> = (0..2)
        .map(|b| {
            let list = MeshParticles {
                particles: &mut particles,
                first,
                scratch: &mut marks,
            };
            let m = mesh_volume(&x, &triangles, (b * t) as u32, t as u32, 1.2, 1e-6, list);
            let m = m.unwrap();
            first += m.particle_count;
            m
        })
        .collect();
    let w = vec![1.0; 2 * p];
    for q in x.iter_mut() {
        q[2] *= 0.8;
    }
    let mut scene = color_scene(x, w, &links, &[], &[], &[]);
    scene.meshes = meshes;
    scene.triangles = triangles;
    scene.particles = particles;
    scene
}

#[test]
fn balloons_with_mesh_volumes_colored_and_jobs_match_the_sequential_bits() {
    let scene = balloon_scene(if cfg!(miri) { 1 } else { 3 });
    assert_eq!(scene.meshes.len(), 2);
    assert_all_runs_agree(&scene);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe Rust: the view is made and its job ranges computed, no job runs; views \
              and jobs run under Miri in every *_match_the_sequential_bits test"
)]
fn jobs_split_colors_into_disjoint_ranges_covering_each_color() {
    let mut s = cloth_scene(12, 12);
    let n = s.x.len();
    let starts = s.starts.clone();
    let colors = GroupColors {
        links: &starts[0],
        bends: &starts[1],
        tets: &starts[2],
        tethers: &starts[3],
    };
    let mut system = System::new(&mut s.x, &s.w, &mut s.links)
        .unwrap()
        .with_constraints(Constraints {
            bends: &mut s.bends,
            tethers: &mut s.tethers,
            ..Constraints::default()
        });
    let mut sub = system.begin_substep(H).unwrap();
    let mut stamp = vec![0u32; n];
    let mut view = sub.colored(colors, &mut stamp).unwrap();
    assert_eq!(view.color_count(Group::Tets), 0);
    assert_eq!(view.color_count(Group::Meshes), 0);
    for group in [Group::Links, Group::Bends, Group::Tethers] {
        for color in 0..view.color_count(group) {
            let (b, e) = view.color_range(group, color).unwrap();
            let ranges: Vec<_> = view
                .jobs(group, color, 3)
                .unwrap()
                .map(|j| j.range())
                .collect();
            let mut at = b;
            for (g, lo, hi) in ranges {
                assert_eq!((g, lo), (group, at));
                at = hi;
            }
            assert_eq!(at, e);
        }
        let count = view.color_count(group);
        assert!(matches!(
            view.jobs(group, count, 1).map(|_| ()),
            Err(SystemError::InvalidShape)
        ));
        assert!(matches!(
            view.jobs(group, 0, 0).map(|_| ()),
            Err(SystemError::InvalidShape)
        ));
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe-Rust coloring checks: slow in the interpreter (CI budget); every test colors"
)]
fn greedy_colors_of_links_are_unchanged_and_every_coloring_is_proper() {
    let scene = cloth_scene(if cfg!(miri) { 3 } else { 9 }, 7);
    let n = scene.x.len();
    let mut used = vec![0u64; n];
    let (mut a, mut b) = (vec![0u32; scene.links.len()], vec![0u32; scene.links.len()]);
    let ca = greedy_coloring(&scene.links, n, &mut used, &mut a).unwrap();
    let cb = color_instances(&scene.links, n, &mut used, &mut b).unwrap();
    assert_eq!((ca, &a), (cb, &b));
    // Proper, checked independently: no particle twice within a color.
    fn proper<const N: usize, K: Instance<N>>(items: &[K], starts: &[usize], n: usize) {
        for w in starts.windows(2) {
            let mut seen = vec![false; n];
            for item in &items[w[0]..w[1]] {
                for p in item.particles() {
                    assert!(!seen[p as usize], "particle {p} twice in a color");
                    seen[p as usize] = true;
                }
            }
        }
    }
    proper(&scene.links, &scene.starts[0], n);
    proper(&scene.bends, &scene.starts[1], n);
    proper(&scene.tethers, &scene.starts[3], n);
    let t = tet_scene(2, 1, 1);
    proper(&t.tets, &t.starts[2], t.x.len());
    // Greedy: each instance takes the smallest color free at its turn, so
    // the first instance has color 0 and colors are used in order.
    assert_eq!(scene.starts[1][0], 0);
    assert!(scene.starts[1].windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn rejected_colorings_write_nothing_and_name_the_instance() {
    let bends = [
        Bend::new([0, 1, 2, 3], 0.0, 0.0),
        Bend::new([1, 2, 3, 4], 0.0, 0.0),
        Bend::new([5, 6, 7, 5], 0.0, 0.0),
    ];
    let mut used = [0u64; 8];
    let mut colors = [77u32; 3];
    assert_eq!(
        color_instances(&bends, 8, &mut used, &mut colors),
        Err(SystemError::SameParticle { constraint: 2 })
    );
    assert_eq!(colors, [77; 3]);
    let far = [
        Bend::new([0, 1, 2, 3], 0.0, 0.0),
        Bend::new([4, 5, 6, 8], 0.0, 0.0),
    ];
    assert_eq!(
        color_instances(&far, 8, &mut used, &mut colors),
        Err(SystemError::IndexOutOfRange { constraint: 1 })
    );
    assert_eq!(colors, [77; 3]);
    let mut short = [77u32; 2];
    assert_eq!(
        color_instances(&bends[..2], 8, &mut used, &mut short[..1]),
        Err(SystemError::CapacityTooSmall { needed: 2 })
    );
    assert_eq!(
        color_instances(&bends[..2], 8, &mut used[..4], &mut short),
        Err(SystemError::InvalidShape)
    );
    assert_eq!(short, [77; 2]);
    // 65 tethers on one anchor need 65 colors.
    let star: Vec<Tether<f64>> = (1..=65).map(|p| Tether::new(p, 0, 1.0, 0.0)).collect();
    let (mut used, mut colors) = (vec![0u64; 66], vec![77u32; 65]);
    assert_eq!(
        color_instances(&star, 66, &mut used, &mut colors),
        Err(SystemError::InvalidShape)
    );
    assert!(colors.iter().all(|&c| c == 77));
    // fill_in_order: bad permutation, short output.
    let src = [
        Tet::new([0, 1, 2, 3], 1.0, 0.0),
        Tet::new([4, 5, 6, 7], 2.0, 0.0),
    ];
    let mut out = [Tet::new([9, 9, 9, 9], 9.0, 9.0); 2];
    let before = out;
    assert_eq!(
        fill_in_order(&src, &[1, 2], &mut out),
        Err(SystemError::InvalidShape)
    );
    assert_eq!(
        fill_in_order(&src, &[1], &mut out),
        Err(SystemError::InvalidShape)
    );
    assert_eq!(
        fill_in_order(&src, &[1, 0], &mut out[..1]),
        Err(SystemError::CapacityTooSmall { needed: 2 })
    );
    assert_eq!(out, before);
    assert_eq!(fill_in_order(&src, &[1, 0], &mut out), Ok(2));
    assert_eq!(out, [src[1], src[0]]);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe Rust: every refusal comes before a view is used (the boundaries, the \
              coloring and the stamp are checked first); views run under Miri in every \
              *_match_the_sequential_bits test"
)]
fn rejected_group_colors_write_nothing() {
    let scene = cloth_scene(3, 4);
    let n = scene.x.len();
    let nb = scene.bends.len();
    let nl = scene.links.len();
    let one_color = [0, nb];
    let short = [0, nb - 1];
    let decreasing = [0, 2, 1, nb];
    let late = [1, nb];
    // (boundaries of the bends, the error of `colored`, whether the
    // boundaries themselves are valid)
    let cases: [(&[usize], SystemError, bool); 5] = [
        (&one_color, SystemError::InvalidShape, true),
        (&short, SystemError::InvalidShape, false),
        (&decreasing, SystemError::InvalidShape, false),
        (&late, SystemError::InvalidShape, false),
        (&[], SystemError::InvalidShape, false),
    ];
    for (bad, error, valid_bounds) in cases {
        let mut s = scene.clone();
        let before = s.bits();
        let starts = s.starts.clone();
        let colors = GroupColors {
            links: &starts[0],
            bends: bad,
            tets: &starts[2],
            tethers: &starts[3],
        };
        let mut system = System::new(&mut s.x, &s.w, &mut s.links)
            .unwrap()
            .with_constraints(Constraints {
                bends: &mut s.bends,
                tethers: &mut s.tethers,
                ..Constraints::default()
            });
        let mut sub = system.begin_substep(H).unwrap();
        let mut stamp = vec![0u32; n];
        assert_eq!(
            sub.colored(colors, &mut stamp).err(),
            Some(error),
            "{bad:?}"
        );
        if !valid_bounds {
            assert_eq!(sub.iterate_colored(&colors), Err(SystemError::InvalidShape));
        }
        assert_eq!(s.bits(), before, "{bad:?}: nothing written");
    }
    // A bad index in a colored group is named by its global index.
    let mut s = scene.clone();
    s.bends[1].particles[2] = n as u32;
    let starts = s.starts.clone();
    let mut system = System::new(&mut s.x, &s.w, &mut s.links)
        .unwrap()
        .with_constraints(Constraints {
            bends: &mut s.bends,
            tethers: &mut s.tethers,
            ..Constraints::default()
        });
    // `begin_substep` refuses it first, naming the same index.
    assert_eq!(
        system.begin_substep(H).err(),
        Some(SystemError::IndexOutOfRange { constraint: nl + 1 })
    );
    let colors = GroupColors {
        links: &starts[0],
        bends: &starts[1],
        tets: &[],
        tethers: &starts[3],
    };
    let mut stamp = vec![0u32; n];
    let mut stamp_short = vec![0u32; n - 1];
    let mut s = scene.clone();
    let mut system = System::new(&mut s.x, &s.w, &mut s.links)
        .unwrap()
        .with_constraints(Constraints {
            bends: &mut s.bends,
            tethers: &mut s.tethers,
            ..Constraints::default()
        });
    let mut sub = system.begin_substep(H).unwrap();
    assert!(sub.colored(colors, &mut stamp).is_ok());
    assert_eq!(
        sub.colored(colors, &mut stamp_short).err(),
        Some(SystemError::InvalidShape)
    );
}

#[test]
fn a_failing_instance_gives_the_same_error_and_bits_for_every_split() {
    let mut base = tet_scene(if cfg!(miri) { 1 } else { 3 }, 2, 2);
    // No links: a collapsed tet would give them zero length.
    base.links.clear();
    base.starts[0].clear();
    let color_len = base.starts[2][1] - base.starts[2][0];
    // The last tet of color 0, and its first (the rest of the color is
    // still solved: on one thread the colors run in one loop, which must
    // end with the failing color).
    // Also the second of a pair (the colored range solves two tets of a
    // color at once: the pair falls back, the first is solved, the second
    // fails).
    for k in [color_len - 1, 0, 1] {
        failing_tet(base.clone(), k);
    }
}

/// [`a_failing_instance_gives_the_same_error_and_bits_for_every_split`]
/// with tet `k` (of color 0) collapsed to a point: degenerate, rejected
/// under the default policy. Its color is completed, the later colors are
/// not run.
fn failing_tet(mut scene: Scene, k: usize) {
    let at = scene.x[scene.tets[k].particles[0] as usize];
    for p in scene.tets[k].particles {
        scene.x[p as usize] = at;
    }
    let expected = SystemError::Degenerate {
        constraint: scene.links.len() + k,
    };
    let mut results = vec![];
    // Under Miri the color (fewer than 64 tets) is one chunk: 2, 3 and 7
    // jobs give it to one job and the rest empty alike; 1 and 3 there.
    let splits: &[usize] = if cfg!(miri) { &[1, 3] } else { &[1, 2, 3, 7] };
    for &jobs in splits {
        let mut s = scene.clone();
        let starts = s.starts.clone();
        let colors = GroupColors {
            links: &starts[0],
            bends: &[],
            tets: &starts[2],
            tethers: &[],
        };
        let n = s.x.len();
        let mut system = System::new(&mut s.x, &s.w, &mut s.links)
            .unwrap()
            .with_constraints(Constraints {
                tets: &mut s.tets,
                ..Constraints::default()
            });
        let mut sub = system.begin_substep(H).unwrap();
        let mut stamp = vec![0u32; n];
        let mut view = sub.colored(colors, &mut stamp).unwrap();
        for color in 0..view.color_count(Group::Links) {
            for j in view.jobs(Group::Links, color, jobs).unwrap() {
                j.run().unwrap();
            }
        }
        let errors: Vec<_> = view
            .jobs(Group::Tets, 0, jobs)
            .unwrap()
            .filter_map(|j| j.run().err())
            .collect();
        assert_eq!(errors, [expected], "{jobs} jobs");
        results.push(s.bits());
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]));
    // The colored iteration reports the same error with the same bits.
    let mut s = scene.clone();
    let starts = s.starts.clone();
    let colors = GroupColors {
        links: &starts[0],
        bends: &[],
        tets: &starts[2],
        tethers: &[],
    };
    let mut system = System::new(&mut s.x, &s.w, &mut s.links)
        .unwrap()
        .with_constraints(Constraints {
            tets: &mut s.tets,
            ..Constraints::default()
        });
    let mut sub = system.begin_substep(H).unwrap();
    assert_eq!(sub.iterate_colored(&colors), Err(expected));
    assert_eq!(s.bits(), results[0]);
}

/// Two soft tets on disjoint particles (one color), squashed: one substep
/// of `iterations` colored job sweeps, λ kept (or, the bug, reset before
/// each sweep by beginning the substep again). Returns C + α̃λ and C of
/// the first tet.
fn soft_tets(iterations: usize, reset: bool) -> (f64, f64) {
    let mut x: Vec<V> = vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [3.0, 0.0, 0.0],
        [4.0, 0.0, 0.0],
        [3.0, 1.0, 0.0],
        [3.0, 0.0, 1.0],
    ];
    let w = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let alpha = 1e-5;
    let h = 1e-2;
    let mut tets = [
        Tet::new([0, 1, 2, 3], 1.0 / 6.0, alpha),
        Tet::new([4, 5, 6, 7], 1.0 / 6.0, alpha),
    ];
    x[3][2] = 0.5;
    x[7][2] = 0.6;
    let starts = [0, 2];
    let colors = GroupColors {
        tets: &starts,
        ..GroupColors::default()
    };
    let mut system = System::new(&mut x, &w, &mut [])
        .unwrap()
        .with_constraints(Constraints {
            tets: &mut tets,
            ..Constraints::default()
        });
    let mut stamp = [0u32; 8];
    {
        let mut sub = system.begin_substep(h).unwrap();
        let mut view = sub.colored(colors, &mut stamp).unwrap();
        for k in 0..iterations {
            if reset && k > 0 {
                break;
            }
            for j in view.jobs(Group::Tets, 0, 2).unwrap() {
                j.run().unwrap();
            }
        }
    }
    if reset {
        for _ in 1..iterations {
            let mut sub = system.begin_substep(h).unwrap();
            let mut view = sub.colored(colors, &mut stamp).unwrap();
            for j in view.jobs(Group::Tets, 0, 2).unwrap() {
                j.run().unwrap();
            }
        }
    }
    let c = 6.0 * (x[3][2] / 6.0 - 1.0 / 6.0);
    let at = alpha / (h * h);
    (c + at * tets[0].lambda, c)
}

#[test]
fn lambda_lives_across_colored_iterations_one_and_twenty_agree() {
    let (r1, c1) = soft_tets(1, false);
    let (r20, c20) = soft_tets(20, false);
    assert!(r1.abs() < 1e-12 && r20.abs() < 1e-12, "C + α̃λ: {r1}, {r20}");
    assert!((c1 - c20).abs() < 1e-12, "C: {c1} vs {c20}");
    assert!(c1 < -1e-3, "soft: C stays away from 0 ({c1})");
    // Resetting λ each sweep (the bug) drifts to the stiff answer (not
    // under Miri, CI budget: the same substeps, views and jobs as above,
    // begun again).
    if !cfg!(miri) {
        let (_, reset) = soft_tets(20, true);
        assert!((reset - c20).abs() > 1e-3, "reset {reset} vs kept {c20}");
    }
}

/// An improper coloring (`iterate_colored` checks only the boundaries):
/// two tets of one "color" sharing a particle still get the sequential
/// bits, so the second sees the first's correction (the colored range's
/// pair kernel must not solve them at once).
#[test]
fn improper_tet_colors_keep_the_sequential_bits() {
    let mut scene = tet_scene(1, 1, 2);
    scene.links.clear();
    scene.starts[0].clear();
    let m = scene.tets.len();
    // One color over every tet: neighbours share particles.
    scene.starts[2] = vec![0, m];
    let (reference, _) = run(&scene, Run::Sequential);
    let (colored, _) = run(&scene, Run::Colored);
    assert_eq!(colored.bits(), reference.bits());
}

/// A tet block whose colors include an odd count (the last tet of such a
/// color is solved alone, the rest in pairs).
#[test]
fn odd_tet_colors_match_the_sequential_bits() {
    let scene = tet_scene(1, 1, 1);
    let odd = scene.starts[2].windows(2).any(|w| (w[1] - w[0]) % 2 == 1);
    assert!(odd, "{:?}", scene.starts[2]);
    assert_all_runs_agree(&scene);
}
