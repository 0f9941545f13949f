//! Tearing (issue 16, item 4) and the contact overflow policy (item 5):
//! disabled links are skipped by the sequential and colored sweeps exactly
//! as if they were removed; the step tears links over their maximum force,
//! deterministically; keep-first drops exactly the documented contacts.

#[path = "support/colored_plan.rs"]
mod colored_plan;

use colored_plan::*;
use xpbd::{cloth, cloth_coloring, Aos, Link, Real, SimdLinks, System, SystemError};

/// Every third link of a stretched cloth disabled: `(positions, w, links
/// with the flag, the coloring, color count)`.
type Scene<T> = (Vec<[T; 3]>, Vec<T>, Vec<Link<T>>, Vec<u32>, u32);

fn torn_cloth<T: Real>() -> Scene<T> {
    let (rows, cols) = if cfg!(miri) { (4, 5) } else { (9, 13) };
    let (x, w) = stretched_cloth(rows, cols);
    let m = xpbd::cloth_link_count(rows, cols, true).unwrap();
    let mut links = vec![Link::default(); m];
    cloth(&x, rows, cols, true, 1e-6, &mut links).unwrap();
    let mut colors = vec![0; m];
    let count = cloth_coloring(rows, cols, true, &mut colors).unwrap();
    let mut links: Vec<Link<T>> = links
        .iter()
        .map(|l| Link::new(l.i, l.j, T::from_f64(l.rest), T::from_f64(l.compliance)))
        .collect();
    for (k, l) in links.iter_mut().enumerate() {
        if k % 3 == 1 {
            l.flags |= Link::<T>::DISABLED;
        }
        if k % 5 == 2 {
            l.flags |= Link::<T>::TENSION_ONLY;
        }
    }
    let mut xp = x.clone();
    perturb(&mut xp);
    let xp = xp
        .iter()
        .map(|p| p.map(|v| T::from_f64(v * 1.05)))
        .collect();
    let w = w.iter().map(|&v| T::from_f64(v)).collect();
    (xp, w, links, colors, count)
}

/// The links and colors without the disabled ones, in the same order.
fn without_disabled<T: Real>(links: &[Link<T>], colors: &[u32]) -> (Vec<Link<T>>, Vec<u32>) {
    links
        .iter()
        .zip(colors)
        .filter(|(l, _)| !l.is_disabled())
        .map(|(l, c)| (*l, *c))
        .unzip()
}

#[allow(clippy::type_complexity)]
fn colored_run<T: Real>(
    x0: &[[T; 3]],
    w: &[T],
    links: &[Link<T>],
    colors: &[u32],
    count: u32,
    sweeps: usize,
) -> (Vec<u64>, Vec<T>, Vec<u32>, Vec<xpbd::SweepStats<T>>) {
    let mut plan = Plan::new(links, colors, count);
    let mut x = x0.to_vec();
    let mut stamp = vec![0u32; x.len()];
    let mut stats = Vec::new();
    {
        let mut sys = SimdLinks::new(
            Aos {
                positions: &mut x,
                w,
            },
            plan.links(),
            &mut stamp,
        )
        .unwrap();
        let mut sub = sys.begin_substep(T::from_f64(1.0 / 240.0)).unwrap();
        for _ in 0..sweeps {
            stats.push(sub.iterate().unwrap());
        }
    }
    (bits(&x), plan.lambda.clone(), plan.order.clone(), stats)
}

fn colored_disabled_equals_removed<T: Real>() {
    let (x, w, links, colors, count) = torn_cloth::<T>();
    let disabled = links.iter().filter(|l| l.is_disabled()).count();
    assert!(disabled > 10);
    let (kept, kept_colors) = without_disabled(&links, &colors);
    // Under Miri (CI budget) one sweep: the later ones skip and solve the
    // same lanes.
    let sweeps = if cfg!(miri) { 1 } else { 4 };
    let (xa, la, order_a, sa) = colored_run(&x, &w, &links, &colors, count, sweeps);
    let (xb, lb, _, sb) = colored_run(&x, &w, &kept, &kept_colors, count, sweeps);
    assert_eq!(xa, xb);
    // λ of the enabled links equal, of the disabled ones 0.
    let mut enabled = Vec::new();
    for (k, &src) in order_a.iter().enumerate() {
        if links[src as usize].is_disabled() {
            assert_eq!(la[k].to_f64().to_bits(), 0);
        } else {
            enabled.push(la[k]);
        }
    }
    assert_eq!(bits1(&enabled), bits1(&lb));
    for (a, b) in sa.iter().zip(&sb) {
        assert_eq!(a.applied, b.applied);
        assert_eq!(a.skipped_static, b.skipped_static + disabled);
        assert_eq!(
            a.max_abs_c.to_f64().to_bits(),
            b.max_abs_c.to_f64().to_bits()
        );
        assert_eq!(
            a.max_residual.to_f64().to_bits(),
            b.max_residual.to_f64().to_bits()
        );
    }
}

#[test]
fn colored_sweep_with_disabled_links_equals_the_sweep_without_them() {
    colored_disabled_equals_removed::<f64>();
    colored_disabled_equals_removed::<f32>();
}

fn sequential_disabled_equals_removed<T: Real>() {
    let (x0, w, mut links, colors, _) = torn_cloth::<T>();
    let disabled = links.iter().filter(|l| l.is_disabled()).count();
    let (mut kept, _) = without_disabled(&links, &colors);
    let run = |links: &mut [Link<T>]| {
        let mut x = x0.clone();
        let mut stats = Vec::new();
        {
            let mut sys = System::new(&mut x, &w, links).unwrap();
            let mut sub = sys.begin_substep(T::from_f64(1.0 / 240.0)).unwrap();
            for _ in 0..4 {
                stats.push(sub.iterate().unwrap());
            }
        }
        (bits(&x), stats)
    };
    let (xa, sa) = run(&mut links);
    let (xb, sb) = run(&mut kept);
    assert_eq!(xa, xb);
    let enabled: Vec<T> = links
        .iter()
        .filter(|l| !l.is_disabled())
        .map(|l| l.lambda)
        .collect();
    assert_eq!(
        bits1(&enabled),
        bits1(&kept.iter().map(|l| l.lambda).collect::<Vec<_>>())
    );
    assert!(links
        .iter()
        .filter(|l| l.is_disabled())
        .all(|l| l.lambda.to_f64().to_bits() == 0));
    for (a, b) in sa.iter().zip(&sb) {
        assert_eq!(a.applied, b.applied);
        assert_eq!(a.skipped_static, b.skipped_static + disabled);
        assert_eq!(
            a.max_residual.to_f64().to_bits(),
            b.max_residual.to_f64().to_bits()
        );
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "safe Rust (the sequential System sweep; its SSE square root runs in every test); \
              the colored sweep of the same scene runs under Miri in \
              colored_sweep_with_disabled_links_equals_the_sweep_without_them"
)]
fn sequential_sweep_with_disabled_links_equals_the_sweep_without_them() {
    sequential_disabled_equals_removed::<f64>();
    sequential_disabled_equals_removed::<f32>();
}

#[test]
fn a_disabled_link_needs_only_valid_indices() {
    let mut x = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
    let w = [1.0, 1.0, 1.0];
    // Coincident particles, a zero rest length and a NaN compliance: never read.
    let mut bad = Link::new(0, 1, 0.0, f64::NAN);
    bad.flags = Link::<f64>::DISABLED;
    let mut links = [Link::new(1, 2, 1.0, 0.0), bad];
    let mut sys = System::new(&mut x, &w, &mut links).unwrap();
    assert!(sys.begin_substep(0.01).is_ok());
    // Its indices still are.
    sys.links_mut()[1].j = 7;
    assert_eq!(
        sys.begin_substep(0.01).unwrap_err(),
        SystemError::IndexOutOfRange { constraint: 1 }
    );
    sys.links_mut()[1].j = 0;
    assert_eq!(
        sys.begin_substep(0.01).unwrap_err(),
        SystemError::SameParticle { constraint: 1 }
    );
    sys.links_mut()[1].j = 1;
    sys.links_mut()[1].flags = 4;
    assert_eq!(
        sys.begin_substep(0.01).unwrap_err(),
        SystemError::InvalidRestLength { constraint: 1 }
    );
    sys.links_mut()[1] = Link::new(0, 1, 1.0, 0.0);
    sys.links_mut()[1].flags = Link::<f64>::DISABLED | 4;
    assert_eq!(
        sys.begin_substep(0.01).unwrap_err(),
        SystemError::InvalidFlags { constraint: 1 }
    );
}

// ---- The step: tearing ----

use xpbd::step::{
    scratch_len, step, Colliders, Contact, ContactOverflow, Plane, Sphere, StepConfig, StepError,
    StepStats, Tearing, World,
};

/// A flat sheet in the xy plane, `rows × cols` particles 0.1 m apart, the
/// first and last columns pinned; its links (cloth with shear, α = 1e-4
/// m/N) with a maximum force of `weak` N on the links crossing the middle
/// line between columns `cols/2 − 1` and `cols/2`, and `strong` elsewhere.
struct Sheet {
    rows: usize,
    cols: usize,
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    w: Vec<f64>,
    links: Vec<Link<f64>>,
    max_force: Vec<f64>,
    contacts: Vec<Contact<f64>>,
    scratch: Vec<[f64; 3]>,
    torn: Vec<u32>,
}

impl Sheet {
    fn new(rows: usize, cols: usize, weak: f64, strong: f64, torn_capacity: usize) -> Self {
        let (x, _) = stretched_cloth(rows, cols);
        let n = x.len();
        let w = (0..n)
            .map(|k| {
                if k % cols == 0 || k % cols == cols - 1 {
                    0.0
                } else {
                    1.0
                }
            })
            .collect();
        let m = xpbd::cloth_link_count(rows, cols, true).unwrap();
        let mut links = vec![Link::default(); m];
        cloth(&x, rows, cols, true, 1e-4, &mut links).unwrap();
        let mut sheet = Sheet {
            rows,
            cols,
            v: vec![[0.0; 3]; n],
            w,
            max_force: vec![0.0; m],
            contacts: vec![],
            scratch: vec![[0.0; 3]; scratch_len(n, m)],
            torn: vec![u32::MAX; torn_capacity],
            x,
            links,
        };
        sheet.max_force = (0..m)
            .map(|k| if sheet.crosses(k) { weak } else { strong })
            .collect();
        sheet
    }

    /// Whether link `k` crosses the middle line.
    fn crosses(&self, k: usize) -> bool {
        let (a, b) = (
            self.links[k].i as usize % self.cols,
            self.links[k].j as usize % self.cols,
        );
        let mid = self.cols / 2;
        a.min(b) < mid && a.max(b) >= mid
    }

    /// Moves the pinned columns 5 mm apart, then steps one frame.
    fn frame(&mut self, config: &StepConfig<f64, 3>) -> Result<StepStats<f64>, StepError> {
        for (k, x) in self.x.iter_mut().enumerate() {
            if k % self.cols == 0 {
                x[0] -= 0.0025;
            } else if k % self.cols == self.cols - 1 {
                x[0] += 0.0025;
            }
        }
        let mut world = World {
            positions: &mut self.x,
            velocities: &mut self.v,
            inverse_masses: &self.w,
            links: &mut self.links,
            contacts: &mut self.contacts,
            scratch: &mut self.scratch,
            colliders: None,
            self_collision: None,
            tearing: Some(Tearing {
                max_force: &self.max_force,
                torn: &mut self.torn,
            }),
            wind: None,
            local_space: None,
            engine_contacts: None,
            groups: None,
        };
        step(&mut world, 1.0 / 60.0, config)
    }

    /// Whether the enabled links still join the first column to the last.
    fn connected(&self) -> bool {
        let n = self.x.len();
        let mut seen = vec![false; n];
        let mut stack: Vec<usize> = (0..self.rows).map(|r| r * self.cols).collect();
        for &k in &stack {
            seen[k] = true;
        }
        while let Some(k) = stack.pop() {
            for l in self.links.iter().filter(|l| !l.is_disabled()) {
                let (i, j) = (l.i as usize, l.j as usize);
                for (a, b) in [(i, j), (j, i)] {
                    if a == k && !seen[b] {
                        seen[b] = true;
                        stack.push(b);
                    }
                }
            }
        }
        (0..self.rows).any(|r| seen[r * self.cols + self.cols - 1])
    }

    fn state(&self) -> (Vec<u64>, Vec<u64>, Vec<u32>) {
        (
            bits(&self.x),
            bits(&self.v),
            self.links.iter().map(|l| l.flags).collect(),
        )
    }
}

fn sheet_config() -> StepConfig<f64, 3> {
    let mut config = StepConfig::new([0.0, 0.0, 0.0]);
    config.substeps = 8;
    config
}

/// Pulls a sheet apart until it separates; returns the sheet, the frame it
/// separated in and every frame's torn list.
fn pull_apart(rows: usize, cols: usize) -> (Sheet, usize, Vec<Vec<u32>>) {
    let mut sheet = Sheet::new(rows, cols, 100.0, f64::INFINITY, 64);
    let config = sheet_config();
    let mut lists = Vec::new();
    for frame in 0..200 {
        let before: Vec<u32> = sheet.links.iter().map(|l| l.flags).collect();
        let stats = sheet.frame(&config).unwrap();
        let list = sheet.torn[..stats.torn].to_vec();
        // Exactly the links whose flag was set, in link order.
        let newly: Vec<u32> = (0..sheet.links.len() as u32)
            .filter(|&k| before[k as usize] == 0 && sheet.links[k as usize].is_disabled())
            .collect();
        assert_eq!(list, newly, "frame {frame}");
        lists.push(list);
        if !sheet.connected() {
            return (sheet, frame, lists);
        }
    }
    panic!("the sheet never tore apart");
}

#[test]
#[cfg_attr(miri, ignore = "hundreds of substeps: minutes under Miri")]
fn a_pulled_sheet_tears_along_its_weak_line_bit_identically() {
    let (rows, cols) = (5, 8);
    let (sheet, frame, lists) = pull_apart(rows, cols);
    // It held for a while, then tore along the middle line only, and every
    // link crossing it is torn (the sheet is in two pieces).
    assert!(frame > 2, "tore at frame {frame}");
    let torn: Vec<usize> = (0..sheet.links.len())
        .filter(|&k| sheet.links[k].is_disabled())
        .collect();
    assert!(torn.iter().all(|&k| sheet.crosses(k)), "{torn:?}");
    let crossing = (0..sheet.links.len()).filter(|&k| sheet.crosses(k)).count();
    assert_eq!(torn.len(), crossing);
    assert_eq!(lists.iter().map(Vec::len).sum::<usize>(), crossing);
    println!(
        "{rows}×{cols} sheet: {crossing} links torn over frames {:?}, apart at frame {frame}",
        lists
            .iter()
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
            .map(|(f, l)| (f, l.len()))
            .collect::<Vec<_>>()
    );
    // Bit-identical on a repeat.
    let (again, frame2, lists2) = pull_apart(rows, cols);
    assert_eq!((frame2, &lists2), (frame, &lists));
    assert_eq!(again.state(), sheet.state());
    let lambdas = |s: &Sheet| {
        s.links
            .iter()
            .map(|l| l.lambda.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(lambdas(&again), lambdas(&sheet));
}

#[test]
#[cfg_attr(miri, ignore = "hundreds of substeps: minutes under Miri")]
fn a_short_torn_list_gets_the_first_indices_and_the_full_count() {
    let config = sheet_config();
    let mut wide = Sheet::new(4, 6, 100.0, f64::INFINITY, 64);
    let mut narrow = Sheet::new(4, 6, 100.0, f64::INFINITY, 2);
    let mut tore_many = false;
    for _ in 0..200 {
        let a = wide.frame(&config).unwrap();
        let b = narrow.frame(&config).unwrap();
        assert_eq!(a, b);
        assert_eq!(wide.state(), narrow.state());
        let kept = b.torn.min(2);
        assert_eq!(narrow.torn[..kept], wide.torn[..kept]);
        tore_many |= b.torn > 2;
    }
    assert!(tore_many, "no frame tore more than two links");
}

#[test]
fn invalid_maximum_forces_are_named_and_nothing_is_written() {
    let config = sheet_config();
    for (case, want) in [
        (0, StepError::MaxForceCountMismatch),
        (1, StepError::InvalidMaxForce { link: 3 }),
        (2, StepError::InvalidMaxForce { link: 0 }),
        (3, StepError::InvalidMaxForce { link: 5 }),
    ] {
        let mut sheet = Sheet::new(3, 4, 1e-9, 1e-9, 8);
        match case {
            0 => {
                sheet.max_force.pop();
            }
            1 => sheet.max_force[3] = f64::NAN,
            2 => sheet.max_force[0] = 0.0,
            _ => sheet.max_force[5] = -1.0,
        }
        let mut before = sheet.state();
        // (`frame` moves the pinned columns first: so does the expectation.)
        for (k, x) in sheet.x.clone().iter().enumerate() {
            let dx = match k % sheet.cols {
                0 => -0.0025,
                c if c == sheet.cols - 1 => 0.0025,
                _ => 0.0,
            };
            before.0[3 * k] = (x[0] + dx).to_bits();
        }
        assert_eq!(sheet.frame(&config).unwrap_err(), want);
        assert_eq!(sheet.state(), before);
        assert_eq!(sheet.torn, vec![u32::MAX; 8]);
    }
}

#[test]
fn a_failed_step_tears_nothing() {
    // Forces far over a tiny maximum, but the step fails (a contact over
    // capacity, rejected): no flag set, nothing written to `torn`.
    let mut sheet = Sheet::new(3, 4, 1e-9, 1e-9, 8);
    let mut config = sheet_config();
    config.gravity = [0.0, -9.81, 0.0];
    let ground = [Plane {
        normal: [0.0, 1.0, 0.0],
        offset: 0.05,
    }];
    let mut world = World {
        positions: &mut sheet.x,
        velocities: &mut sheet.v,
        inverse_masses: &sheet.w,
        links: &mut sheet.links,
        contacts: &mut [],
        scratch: &mut sheet.scratch,
        colliders: Some(Colliders {
            planes: &ground,
            ..Default::default()
        }),
        self_collision: None,
        tearing: Some(Tearing {
            max_force: &sheet.max_force,
            torn: &mut sheet.torn,
        }),
        wind: None,
        local_space: None,
        engine_contacts: None,
        groups: None,
    };
    assert_eq!(
        step(&mut world, 1.0 / 60.0, &config).unwrap_err(),
        StepError::ContactCapacity { needed: 2 }
    );
    assert!(sheet.links.iter().all(|l| l.flags == 0));
    assert_eq!(sheet.torn, vec![u32::MAX; 8]);
}

// ---- The step: contact capacity ----

/// Five free particles below the ground plane y = 0 and inside a sphere,
/// one pinned one: ten contacts in detection order (particle, then the
/// plane, then the sphere).
struct Heap {
    x: Vec<[f64; 3]>,
    v: Vec<[f64; 3]>,
    w: Vec<f64>,
    contacts: Vec<Contact<f64>>,
    scratch: Vec<[f64; 3]>,
}

const GROUND: [Plane<f64, 3>; 1] = [Plane {
    normal: [0.0, 1.0, 0.0],
    offset: 0.0,
}];
const BALL: [Sphere<f64, 3>; 1] = [Sphere {
    center: [0.0, -1.0, 0.0],
    radius: 2.0,
}];

impl Heap {
    fn new(capacity: usize) -> Self {
        let x = vec![
            [0.0, -0.1, 0.0],
            [0.1, -0.2, 0.0],
            [0.2, -0.3, 0.0], // pinned: no contact
            [0.3, -0.1, 0.1],
            [0.4, -0.2, 0.1],
            [0.5, -0.3, 0.1],
        ];
        Heap {
            v: vec![[0.0; 3]; 6],
            w: vec![1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
            contacts: vec![Contact::default(); capacity],
            scratch: vec![[0.0; 3]; scratch_len(6, 0)],
            x,
        }
    }
    fn step(&mut self, overflow: ContactOverflow) -> Result<StepStats<f64>, StepError> {
        let mut config = StepConfig::new([0.0, 0.0, 0.0]);
        config.substeps = 1;
        config.contact_overflow = overflow;
        let mut world = World {
            positions: &mut self.x,
            velocities: &mut self.v,
            inverse_masses: &self.w,
            links: &mut [],
            contacts: &mut self.contacts,
            scratch: &mut self.scratch,
            colliders: Some(Colliders {
                planes: &GROUND,
                spheres: &BALL,
                ..Default::default()
            }),
            self_collision: None,
            tearing: None,
            wind: None,
            local_space: None,
            engine_contacts: None,
            groups: None,
        };
        step(&mut world, 1.0 / 60.0, &config)
    }
}

#[test]
fn keep_first_keeps_the_contacts_in_detection_order_and_counts_the_rest() {
    // Room for all ten: both policies agree bit for bit, nothing dropped.
    let mut a = Heap::new(10);
    let mut b = Heap::new(10);
    let sa = a.step(ContactOverflow::Reject).unwrap();
    let sb = b.step(ContactOverflow::KeepFirst).unwrap();
    assert_eq!(sa, sb);
    assert_eq!((sa.max_contacts, sa.contacts_dropped), (10, 0));
    assert_eq!(bits(&a.x), bits(&b.x));
    // Room for three: Reject fails and writes nothing.
    let mut r = Heap::new(3);
    let x0 = bits(&r.x);
    assert_eq!(
        r.step(ContactOverflow::Reject).unwrap_err(),
        StepError::ContactCapacity { needed: 10 }
    );
    assert_eq!(bits(&r.x), x0);
    assert_eq!(bits(&r.v), vec![0; 18]);
    // KeepFirst solves (particle 0, plane), (particle 0, sphere),
    // (particle 1, plane) and drops the other seven.
    let mut k = Heap::new(3);
    let s = k.step(ContactOverflow::KeepFirst).unwrap();
    assert_eq!((s.max_contacts, s.contacts_dropped), (3, 7));
    let kept: Vec<(u32, u32)> = k
        .contacts
        .iter()
        .map(|c| (c.particle, c.collider))
        .collect();
    assert_eq!(kept, [(0, 0), (0, 1), (1, 0)]);
    // The same as a world whose later particles meet no collider: particle
    // 0 is pushed out of both, particle 1 out of the plane only, and the
    // others are not touched.
    assert!(k.x[0][1] >= 0.0 && (k.x[0][0] - 0.0).abs() < 1e-12);
    assert!(k.x[1][1] >= 0.0);
    assert_eq!(bits(&k.x[2..]), bits(&Heap::new(3).x[2..]));
}

// ---- Colored f32 SoA: the neighbour loads of x86-64 ----

fn soa_run(
    x0: &[[f32; 3]],
    w: &[f32],
    links: &[Link<f32>],
    colors: &[u32],
    count: u32,
) -> (Vec<u64>, Vec<f32>, Vec<xpbd::SweepStats<f32>>) {
    let mut plan = Plan::new(links, colors, count);
    let [mut xs, mut ys, mut zs] = soa(x0);
    let mut stamp = vec![0u32; x0.len()];
    let mut stats = Vec::new();
    {
        let mut sys = SimdLinks::new(
            xpbd::Soa {
                x: &mut xs,
                y: &mut ys,
                z: &mut zs,
                w,
            },
            plan.links(),
            &mut stamp,
        )
        .unwrap();
        let mut sub = sys.begin_substep(1.0 / 240.0).unwrap();
        for _ in 0..3 {
            stats.push(sub.iterate().unwrap());
        }
    }
    let x: Vec<[f32; 3]> = (0..x0.len()).map(|k| [xs[k], ys[k], zs[k]]).collect();
    (bits(&x), plan.lambda.clone(), stats)
}

#[test]
fn f32_soa_ropes_with_disabled_links_equal_the_ropes_without_them() {
    // Groups of four neighbour links with one, some or all lanes disabled.
    let links = if cfg!(miri) { 23 } else { 67 };
    let n = links + 1;
    let x0: Vec<[f32; 3]> = (0..n).map(|k| [k as f32 * 0.01, 0.0, 0.0]).collect();
    let mut l = vec![Link::default(); links];
    xpbd::rope(&x0, 1e-6, &mut l).unwrap();
    let x: Vec<[f32; 3]> = x0
        .iter()
        .enumerate()
        .map(|(k, p)| {
            [
                p[0] * (1.0 + 0.05 * (k % 3) as f32),
                0.002 * (k % 5) as f32,
                0.0,
            ]
        })
        .collect();
    let w: Vec<f32> = (0..n).map(|k| if k == 0 { 0.0 } else { 1.0 }).collect();
    for (k, link) in l.iter_mut().enumerate() {
        if k % 7 == 3 || (16..24).contains(&k) {
            link.flags = Link::<f32>::DISABLED;
        }
    }
    let mut colors = vec![0; links];
    let count = xpbd::rope_coloring(links, false, &mut colors).unwrap();
    let (kept, kept_colors) = without_disabled(&l, &colors);
    let disabled = links - kept.len();
    let (xa, la, sa) = soa_run(&x, &w, &l, &colors, count);
    let (xb, lb, sb) = soa_run(&x, &w, &kept, &kept_colors, count);
    assert_eq!(xa, xb);
    let enabled: Vec<f32> = la.iter().copied().filter(|v| *v != 0.0).collect();
    assert_eq!(bits1(&enabled), bits1(&lb));
    for (a, b) in sa.iter().zip(&sb) {
        assert_eq!(a.applied, b.applied);
        assert_eq!(a.skipped_static, b.skipped_static + disabled);
        assert_eq!(a.max_residual.to_bits(), b.max_residual.to_bits());
    }
}

// ---- The C entry point: buffers checked with the others ----

#[test]
fn c_tearing_buffers_that_overlap_are_refused_and_nothing_is_written() {
    use xpbd::ffi::{
        xpbd_step_config3_default, xpbd_tearing3_default, xpbd_world3_add, xpbd_world3_default,
        xpbd_world3_requirements, xpbd_world3_step, XpbdRequirements, XpbdStatus, XpbdStepStats,
    };
    let mut x = [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1.0, 0.0, 0.0]];
    let mut v = [[0.0; 3]; 3];
    let w = [0.0, 1.0, 0.0];
    let mut links = [Link::new(0, 1, 0.4, 0.0), Link::new(1, 2, 0.4, 0.0)];
    // Two maximum forces and a two-entry torn list in one array of four
    // f64 (the list as the last two, bit-cast): disjoint, then overlapping.
    let mut shared = [1.0, 1.0, 0.0, 0.0];
    let base = shared.as_mut_ptr();
    let mut config = xpbd_step_config3_default();
    config.gravity = [0.0; 3];
    config.substeps = 2;
    // The bare configuration (no damping, radius or friction).
    config.damping = 0.0;
    config.particle_radius = 0.0;
    config.static_friction = 0.0;
    config.dynamic_friction = 0.0;
    for (torn_at, want) in [(2usize, XpbdStatus::Ok), (1, XpbdStatus::AliasedBuffers)] {
        let (x0, l0, s0) = (x, links, shared);
        let mut world = xpbd_world3_default();
        world.positions = x.as_mut_ptr();
        world.velocities = v.as_mut_ptr();
        world.inverse_masses = w.as_ptr();
        world.particle_count = 3;
        world.links = links.as_mut_ptr();
        world.link_count = 2;
        let mut tearing = xpbd_tearing3_default();
        tearing.max_force = base.cast_const();
        // SAFETY: within `shared` (4 f64 = 8 u32).
        tearing.torn = unsafe { base.add(torn_at) }.cast();
        tearing.torn_capacity = 2;
        // SAFETY: the world and the block are valid and disjoint.
        let status =
            unsafe { xpbd_world3_add(&mut world, core::ptr::addr_of_mut!(tearing).cast()) };
        assert_eq!(status, XpbdStatus::Ok);
        let mut req = XpbdRequirements::default();
        // SAFETY: the world and its block are valid.
        let status = unsafe { xpbd_world3_requirements(&mut world, &mut req) };
        assert_eq!(status, XpbdStatus::Ok);
        let mut memory = vec![0u64; req.memory_size.div_ceil(8)];
        world.memory = memory.as_mut_ptr().cast();
        world.memory_size = req.memory_size;
        let mut stats = XpbdStepStats::default();
        // SAFETY: every pointer is valid for its count (overlaps are the
        // library's to refuse).
        let s = unsafe { xpbd_world3_step(&mut world, 1.0 / 60.0, &config, &mut stats) };
        assert_eq!(s, want);
        if want == XpbdStatus::Ok {
            // Both stretched links pull with far more than 1 N: both torn.
            assert_eq!(stats.torn, 2);
            assert!(links.iter().all(|l| l.is_disabled()));
            let b = shared[2].to_ne_bytes();
            let list = [
                u32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
                u32::from_ne_bytes([b[4], b[5], b[6], b[7]]),
            ];
            assert_eq!(list, [0, 1]);
            links = l0.map(|l| Link { flags: 0, ..l });
            x = x0;
            v = [[0.0; 3]; 3];
            shared = s0;
        } else {
            assert_eq!((x, links.map(|l| l.flags), shared), (x0, [0, 0], s0));
        }
    }
}
