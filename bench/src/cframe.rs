//! The plain C frame reference (issue 34, "References in the bench"):
//! xpbd's whole frame (`step_colored`, one thread) against the plain C
//! frame of `bench/c/frame.c` (structure of arrays, the cloth's colors as
//! index-free strided runs, `#pragma GCC ivdep`, the same substeps),
//! compiled at the x86-64 baseline and with `-march=native`
//! (`XPBD_BENCH_ONLY=cframe`).
//!
//! The scene: an N × N cloth (N = 100 and 300; 20 with
//! `XPBD_BENCH_QUICK=1`; any list with `XPBD_BENCH_CFRAME_SIDES`), spacing 1 cm, structural and shear links
//! (`xpbd::cloth`; `XPBD_BENCH_CFRAME_SHEAR=0` for structural links
//! only), compliance 1e-8, pinned at particles 0 and N − 1, resting at
//! y = r = 2 mm on the plane y = 0 with friction (μ_s 0.2, μ_k 0.1),
//! 8 substeps × 1 iteration at 60 Hz, in f64 and f32. xpbd's links are
//! colored by `color_instances` (as `frame`), the C's by its own strided
//! runs (xpbd's `cloth_coloring`).
//!
//! Checks (they fail the bench): from the same start, after each of 60
//! frames, the positions of xpbd's colored frame, of its sequential `step`
//! and of the C at both ISA levels agree within 1e-9 m (f64) / 1e-3 m
//! (f32), and the substeps found the same contacts. The resting scene
//! barely moves, so a second, moving scene checks the physics too: the
//! cloth starts 1 cm above the plane, sliding at (0.3, 0, 0.1) m/s, falls,
//! lands and drapes from its pinned corners; there xpbd runs its links in
//! the C's order (the same Gauss-Seidel order), and the same tolerance
//! holds. (The C's link formula is xpbd's link pass's operations:
//! `n = d·(1/len)`, `x_i − (w_i Δλ)·n`.)
//!
//! The resting scene alone would miss a wrong C: with static friction
//! every particle ends each substep where it started, to rounding, so a C
//! with μ_s or μ_k halved or 0.1 % less gravity still agrees there (tried);
//! the moving scene catches each. xpbd in its greedy link order
//! differs from the C by centimetres in the moving scene (Gauss-Seidel
//! order matters once things move): printed as context, not checked.
//!
//! Timing: xpbd's colored frame A B A B against each C copy
//! ([`interleaved`]): ns per link per substep, and the median of the
//! per-pair ratios `time_C / time_xpbd` (> 1: xpbd faster) with their
//! range, against the target 1.0 (reported, never failing). Twice: with
//! xpbd's links colored by `color_instances` (the greedy coloring any
//! mesh takes), and by `xpbd::cloth_coloring` (the cloth's fixed
//! coloring, which is the C's: the same colors and order, checked).

use std::collections::HashMap;

use xpbd::step::{
    step, step_colored, Colliders, Contact, OneThread, Plane, Requirements, StepConfig, World,
};
use xpbd::{cloth, cloth_coloring, cloth_link_count, color_instances, color_order, fill_in_order};
use xpbd::{Constraints, GroupColors, Link, Real};

use crate::report::{pair_ratio, Ratio};
use crate::timing::{interleaved, Figure, Settings};

pub(crate) const SUBSTEPS: u32 = 8;
pub(crate) const ITERATIONS: u32 = 1;
/// Frames of the agreement check.
pub(crate) const FRAMES: usize = 60;
const SPACING: f64 = 0.01;
/// The particle radius (m): the resting height.
pub(crate) const R: f64 = 0.002;
pub(crate) const COMPLIANCE: f64 = 1e-8;
pub(crate) const GRAVITY: f64 = -9.81;
pub(crate) const STATIC_FRICTION: f64 = 0.2;
pub(crate) const DYNAMIC_FRICTION: f64 = 0.1;

/// One strided run of links (`struct cf_run` of bench/c/frame.c): link
/// `t` joins particles `first + stride·t` and that `+ dj`, in slot
/// `slot + t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Run {
    pub(crate) first: u32,
    pub(crate) count: u32,
    pub(crate) stride: u32,
    pub(crate) dj: u32,
    pub(crate) slot: u32,
}

/// `struct cf_cloth` of bench/c/frame.c (the same layout for float and
/// double: pointers and sizes).
#[repr(C)]
pub(crate) struct CCloth<T> {
    pub(crate) n: usize,
    pub(crate) x: *mut T,
    pub(crate) y: *mut T,
    pub(crate) z: *mut T,
    pub(crate) vx: *mut T,
    pub(crate) vy: *mut T,
    pub(crate) vz: *mut T,
    pub(crate) px: *mut T,
    pub(crate) py: *mut T,
    pub(crate) pz: *mut T,
    pub(crate) w: *const T,
    pub(crate) lc: *mut T,
    pub(crate) touch: *mut T,
    pub(crate) links: usize,
    pub(crate) rest: *const T,
    pub(crate) compliance: *const T,
    pub(crate) alpha: *mut T,
    pub(crate) g: *mut T,
    pub(crate) lambda: *mut T,
    pub(crate) runs: *const Run,
    pub(crate) color_runs: *const usize,
    pub(crate) colors: usize,
}

/// `CF(frame)`: one frame (dt, substeps, iterations, gravity, radius,
/// μ_s, μ_k); returns the most contacts of a substep.
type FrameFn<T> = unsafe extern "C" fn(*mut CCloth<T>, T, u32, u32, T, T, T, T, T, T) -> usize;

extern "C" {
    fn cf_base_f64_cloth_runs(
        rows: usize,
        cols: usize,
        shear: i32,
        runs: *mut Run,
        cap: usize,
        color_runs: *mut usize,
    ) -> usize;
    fn cf_base_f64_frame(
        cl: *mut CCloth<f64>,
        dt: f64,
        substeps: u32,
        iterations: u32,
        gx: f64,
        gy: f64,
        gz: f64,
        radius: f64,
        mu_s: f64,
        mu_k: f64,
    ) -> usize;
    fn cf_native_f64_frame(
        cl: *mut CCloth<f64>,
        dt: f64,
        substeps: u32,
        iterations: u32,
        gx: f64,
        gy: f64,
        gz: f64,
        radius: f64,
        mu_s: f64,
        mu_k: f64,
    ) -> usize;
    fn cf_base_f32_frame(
        cl: *mut CCloth<f32>,
        dt: f32,
        substeps: u32,
        iterations: u32,
        gx: f32,
        gy: f32,
        gz: f32,
        radius: f32,
        mu_s: f32,
        mu_k: f32,
    ) -> usize;
    fn cf_native_f32_frame(
        cl: *mut CCloth<f32>,
        dt: f32,
        substeps: u32,
        iterations: u32,
        gx: f32,
        gy: f32,
        gz: f32,
        radius: f32,
        mu_s: f32,
        mu_k: f32,
    ) -> usize;
}

/// A precision of the C frame.
pub(crate) trait CFrame: Real {
    const NAME: &'static str;
    /// The agreement tolerance (m) after [`FRAMES`] frames.
    const TOLERANCE: f64;
    /// The baseline copy.
    const BASE: FrameFn<Self>;
    /// The `-march=native` copy.
    const NATIVE: FrameFn<Self>;
}

impl CFrame for f64 {
    const NAME: &'static str = "f64";
    const TOLERANCE: f64 = 1e-9;
    const BASE: FrameFn<f64> = cf_base_f64_frame;
    const NATIVE: FrameFn<f64> = cf_native_f64_frame;
}

impl CFrame for f32 {
    const NAME: &'static str = "f32";
    const TOLERANCE: f64 = 1e-3;
    const BASE: FrameFn<f32> = cf_base_f32_frame;
    const NATIVE: FrameFn<f32> = cf_native_f32_frame;
}

/// The C's links: its runs and colors, and each slot's particles.
pub(crate) struct Layout {
    pub(crate) runs: Vec<Run>,
    /// Color `c`: runs `color_runs[c] .. color_runs[c + 1]`.
    pub(crate) color_runs: Vec<usize>,
    /// The particles of each slot.
    pub(crate) pairs: Vec<(u32, u32)>,
    /// The slot where each color starts, and the slot count at the end.
    pub(crate) starts: Vec<usize>,
}

impl Layout {
    pub(crate) fn new(side: usize, shear: bool) -> Result<Self, String> {
        let mut runs = vec![Run::default(); 5 * side];
        let mut color_runs = vec![0usize; 9];
        // SAFETY: `runs` holds the 5·side runs the C may write, and
        // `color_runs` the 9 boundaries of at most 8 colors.
        let count = unsafe {
            cf_base_f64_cloth_runs(
                side,
                side,
                i32::from(shear),
                runs.as_mut_ptr(),
                runs.len(),
                color_runs.as_mut_ptr(),
            )
        };
        if count == 0 {
            return Err(format!("cframe: no runs for a {side}² cloth"));
        }
        runs.truncate(count);
        color_runs.truncate(if shear { 9 } else { 5 });
        let mut pairs = Vec::new();
        for r in &runs {
            if r.slot as usize != pairs.len() {
                return Err("cframe: the C's runs leave a gap between slots".into());
            }
            for t in 0..r.count {
                let i = r.first + r.stride * t;
                pairs.push((i, i + r.dj));
            }
        }
        let starts = color_runs
            .iter()
            .map(|&c| runs.get(c).map_or(pairs.len(), |r| r.slot as usize))
            .collect();
        Ok(Layout {
            runs,
            color_runs,
            pairs,
            starts,
        })
    }
}

/// The scene: positions, velocities, inverse masses, links (in
/// `xpbd::cloth`'s order).
pub(crate) struct Scene<T> {
    pub(crate) x: Vec<[T; 3]>,
    pub(crate) v: Vec<[T; 3]>,
    pub(crate) w: Vec<T>,
    pub(crate) links: Vec<Link<T>>,
}

impl<T: Real> Scene<T> {
    /// The cloth at rest on the plane (y = r), or (`moving`) 1 cm higher,
    /// its free particles sliding at (0.3, 0, 0.1) m/s.
    pub(crate) fn new(side: usize, shear: bool, moving: bool) -> Result<Self, String> {
        let n = side * side;
        let height = if moving { R + 0.01 } else { R };
        let x: Vec<[T; 3]> = (0..n)
            .map(|k| {
                [
                    T::from_f64((k % side) as f64 * SPACING),
                    T::from_f64(height),
                    T::from_f64((k / side) as f64 * SPACING),
                ]
            })
            .collect();
        let w: Vec<T> = (0..n)
            .map(|k| {
                if k == 0 || k == side - 1 {
                    T::ZERO
                } else {
                    T::ONE
                }
            })
            .collect();
        let v = w
            .iter()
            .map(|&w| {
                if moving && w != T::ZERO {
                    [T::from_f64(0.3), T::ZERO, T::from_f64(0.1)]
                } else {
                    [T::ZERO; 3]
                }
            })
            .collect();
        let count = cloth_link_count(side, side, shear).ok_or("cloth size")?;
        let mut links = vec![Link::new(0, 1, T::ONE, T::ZERO); count];
        cloth(&x, side, side, shear, T::from_f64(COMPLIANCE), &mut links)
            .map_err(|e| e.to_string())?;
        Ok(Scene { x, v, w, links })
    }
}

pub(crate) fn dt<T: Real>() -> T {
    T::from_f64(1.0 / 60.0)
}

pub(crate) fn config<T: Real>() -> StepConfig<T, 3> {
    let mut c = StepConfig::new([T::ZERO, T::from_f64(GRAVITY), T::ZERO]);
    c.substeps = SUBSTEPS;
    c.iterations = ITERATIONS;
    c.particle_radius = T::from_f64(R);
    c.static_friction = T::from_f64(STATIC_FRICTION);
    c.dynamic_friction = T::from_f64(DYNAMIC_FRICTION);
    c
}

/// xpbd's side: the world's buffers, links in colored order.
struct Xpbd<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    starts: Vec<usize>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
    stamp: Vec<u32>,
}

impl<T: Real> Xpbd<T> {
    /// Links colored by `color_instances` and stored in that order (as a
    /// user of `step_colored` would, and as the `frame` section does).
    fn greedy(scene: &Scene<T>) -> Result<Self, String> {
        let n = scene.x.len();
        let links = &scene.links;
        let mut used = vec![0u64; n];
        let mut colors = vec![0u32; links.len()];
        let c = color_instances(links, n, &mut used, &mut colors).map_err(|e| e.to_string())?;
        let mut starts = vec![0usize; c as usize + 1];
        let mut order = vec![0u32; links.len()];
        color_order(&colors, c, &mut starts, &mut order).map_err(|e| e.to_string())?;
        let mut sorted = links.clone();
        fill_in_order(links, &order, &mut sorted).map_err(|e| e.to_string())?;
        Ok(Self::with(scene, sorted, starts))
    }

    /// Links colored by the library's fixed cloth coloring
    /// (`xpbd::cloth_coloring`, then `color_order` and `fill_in_order`):
    /// the C's slot order and colors (the same Gauss-Seidel order as the
    /// C), checked against the C's layout.
    fn in_order(
        scene: &Scene<T>,
        side: usize,
        shear: bool,
        layout: &Layout,
    ) -> Result<Self, String> {
        let links = &scene.links;
        let mut colors = vec![0u32; links.len()];
        let c = cloth_coloring(side, side, shear, &mut colors).map_err(|e| e.to_string())?;
        let mut starts = vec![0usize; c as usize + 1];
        let mut order = vec![0u32; links.len()];
        color_order(&colors, c, &mut starts, &mut order).map_err(|e| e.to_string())?;
        let mut sorted = links.clone();
        fill_in_order(links, &order, &mut sorted).map_err(|e| e.to_string())?;
        let pairs: Vec<(u32, u32)> = sorted.iter().map(|l| (l.i, l.j)).collect();
        if pairs != layout.pairs || starts != layout.starts {
            return Err("cframe: xpbd::cloth_coloring's order is not the C's".into());
        }
        Ok(Self::with(scene, sorted, starts))
    }

    fn with(scene: &Scene<T>, links: Vec<Link<T>>, starts: Vec<usize>) -> Self {
        let need = Requirements::new(scene.x.len(), links.len(), 1, false);
        Xpbd {
            x: scene.x.clone(),
            v: scene.v.clone(),
            w: scene.w.clone(),
            links,
            starts,
            contacts: vec![Contact::default(); need.contacts],
            scratch: vec![[T::ZERO; 3]; need.scratch],
            stamp: vec![0; need.stamp],
        }
    }

    /// One frame: colored on one thread, or (`colored` false) the
    /// sequential `step` over the same links (with empty constraint
    /// groups, as `step_colored` solves them). The most contacts of a
    /// substep.
    fn frame(&mut self, colored: bool) -> Result<usize, String> {
        let planes = [Plane {
            normal: [T::ZERO, T::ONE, T::ZERO],
            offset: T::ZERO,
        }];
        let mut world = World::new(
            &mut self.x,
            &mut self.v,
            &self.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut self.links;
        world.colliders = Some(Colliders {
            planes: &planes,
            ..Default::default()
        });
        world.groups = Some(Constraints::default());
        let colors = GroupColors {
            links: &self.starts,
            ..Default::default()
        };
        let stats = if colored {
            step_colored(
                &mut world,
                &colors,
                &mut self.stamp,
                dt(),
                &config(),
                &OneThread,
            )
        } else {
            step(&mut world, dt(), &config())
        }
        .map_err(|e| e.to_string())?;
        Ok(stats.max_contacts)
    }
}

/// Link index by its particles (as `xpbd::cloth` wrote them).
fn pair_index<T>(links: &[Link<T>]) -> HashMap<(u32, u32), usize> {
    links
        .iter()
        .enumerate()
        .map(|(k, l)| ((l.i, l.j), k))
        .collect()
}

/// The C's side: its SoA arrays (`CCloth` points into them).
struct Plain<T> {
    f: FrameFn<T>,
    p: [Vec<T>; 12],
    rest: Vec<T>,
    compliance: Vec<T>,
    per_link: [Vec<T>; 3],
    runs: Vec<Run>,
    color_runs: Vec<usize>,
}

impl<T: CFrame> Plain<T> {
    fn new(scene: &Scene<T>, layout: &Layout, f: FrameFn<T>) -> Result<Self, String> {
        let n = scene.x.len();
        let by_pair = pair_index(&scene.links);
        let slots = layout
            .pairs
            .iter()
            .map(|p| by_pair.get(p).map(|&k| scene.links[k]))
            .collect::<Option<Vec<_>>>()
            .ok_or("cframe: a C link is no link of xpbd::cloth")?;
        if slots.len() != scene.links.len() {
            return Err("cframe: the C has not every link".into());
        }
        let coordinate = |a: &[[T; 3]], c: usize| a.iter().map(|p| p[c]).collect::<Vec<T>>();
        let zeros = || vec![T::ZERO; n];
        let m = slots.len();
        Ok(Plain {
            f,
            p: [
                coordinate(&scene.x, 0),
                coordinate(&scene.x, 1),
                coordinate(&scene.x, 2),
                coordinate(&scene.v, 0),
                coordinate(&scene.v, 1),
                coordinate(&scene.v, 2),
                zeros(),
                zeros(),
                zeros(),
                scene.w.clone(),
                zeros(),
                zeros(),
            ],
            rest: slots.iter().map(|l| l.rest).collect(),
            compliance: slots.iter().map(|l| l.compliance).collect(),
            per_link: [vec![T::ZERO; m], vec![T::ZERO; m], vec![T::ZERO; m]],
            runs: layout.runs.clone(),
            color_runs: layout.color_runs.clone(),
        })
    }

    /// One frame; the most contacts of a substep.
    fn frame(&mut self) -> usize {
        let [x, y, z, vx, vy, vz, px, py, pz, w, lc, touch] = &mut self.p;
        let [alpha, g, lambda] = &mut self.per_link;
        let mut cl = CCloth {
            n: x.len(),
            x: x.as_mut_ptr(),
            y: y.as_mut_ptr(),
            z: z.as_mut_ptr(),
            vx: vx.as_mut_ptr(),
            vy: vy.as_mut_ptr(),
            vz: vz.as_mut_ptr(),
            px: px.as_mut_ptr(),
            py: py.as_mut_ptr(),
            pz: pz.as_mut_ptr(),
            w: w.as_ptr(),
            lc: lc.as_mut_ptr(),
            touch: touch.as_mut_ptr(),
            links: self.rest.len(),
            rest: self.rest.as_ptr(),
            compliance: self.compliance.as_ptr(),
            alpha: alpha.as_mut_ptr(),
            g: g.as_mut_ptr(),
            lambda: lambda.as_mut_ptr(),
            runs: self.runs.as_ptr(),
            color_runs: self.color_runs.as_ptr(),
            colors: self.color_runs.len() - 1,
        };
        // SAFETY: every particle array holds `n` values and every link
        // array one per slot; the runs (from `cf_cloth_runs` for this
        // cloth, checked gap-free by `Layout::new`) name particles below
        // `n` and slots below the link count; `cl` points into `self`,
        // borrowed mutably for the call.
        unsafe {
            (self.f)(
                &mut cl,
                dt(),
                SUBSTEPS,
                ITERATIONS,
                T::ZERO,
                T::from_f64(GRAVITY),
                T::ZERO,
                T::from_f64(R),
                T::from_f64(STATIC_FRICTION),
                T::from_f64(DYNAMIC_FRICTION),
            )
        }
    }

    fn positions(&self) -> Vec<[T; 3]> {
        let [x, y, z, ..] = &self.p;
        x.iter()
            .zip(y)
            .zip(z)
            .map(|((&a, &b), &c)| [a, b, c])
            .collect()
    }
}

/// The largest coordinate difference (m) between two position sets.
pub(crate) fn max_difference<T: Real>(a: &[[T; 3]], b: &[[T; 3]]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter()
        .zip(b)
        .flat_map(|(p, q)| {
            p.iter()
                .zip(q)
                .map(|(u, v)| (u.to_f64() - v.to_f64()).abs())
        })
        .fold(
            0.0,
            |m: f64, d| if d.is_nan() { f64::INFINITY } else { m.max(d) },
        )
}

/// What the agreement check measured (m): each the largest difference
/// after any of the [`FRAMES`] frames.
struct Agreement {
    colored: f64,
    sequential: f64,
    native: f64,
    colored_vs_sequential: f64,
    moving: f64,
    moving_native: f64,
    moving_greedy: f64,
    /// The moving scene's largest displacement from its start.
    moved: f64,
}

/// Raises `m` to `d`.
pub(crate) fn raise(m: &mut f64, d: f64) {
    *m = m.max(d);
}

/// Runs [`FRAMES`] frames of every side from the same start, comparing
/// the positions after every frame, and fails unless they agree within
/// `T::TOLERANCE` after each.
fn agreement<T: CFrame>(side: usize, shear: bool, layout: &Layout) -> Result<Agreement, String> {
    let tol = T::TOLERANCE;
    let what = format!("cframe {side}² {}", T::NAME);
    let mut a = Agreement {
        colored: 0.0,
        sequential: 0.0,
        native: 0.0,
        colored_vs_sequential: 0.0,
        moving: 0.0,
        moving_native: 0.0,
        moving_greedy: 0.0,
        moved: 0.0,
    };
    // The resting scene: xpbd's own (greedy) coloring.
    let scene = Scene::<T>::new(side, shear, false)?;
    let mut colored = Xpbd::greedy(&scene)?;
    let mut sequential = Xpbd::greedy(&scene)?;
    let mut base = Plain::new(&scene, layout, T::BASE)?;
    let mut native = Plain::new(&scene, layout, T::NATIVE)?;
    for frame in 0..FRAMES {
        let counts = [
            colored.frame(true)?,
            sequential.frame(false)?,
            base.frame(),
            native.frame(),
        ];
        if counts.iter().any(|&c| c != counts[0]) {
            return Err(format!(
                "{what}: frame {frame}: most contacts of a substep differ (xpbd colored, sequential, C baseline, C native): {counts:?}"
            ));
        }
        let c = base.positions();
        raise(&mut a.colored, max_difference(&colored.x, &c));
        raise(&mut a.sequential, max_difference(&sequential.x, &c));
        raise(&mut a.native, max_difference(&native.positions(), &c));
        raise(
            &mut a.colored_vs_sequential,
            max_difference(&colored.x, &sequential.x),
        );
    }
    // The moving scene: xpbd in the C's link order, and (context) in its
    // own.
    let scene = Scene::<T>::new(side, shear, true)?;
    let mut same = Xpbd::in_order(&scene, side, shear, layout)?;
    let mut greedy = Xpbd::greedy(&scene)?;
    let mut base = Plain::new(&scene, layout, T::BASE)?;
    let mut native = Plain::new(&scene, layout, T::NATIVE)?;
    for _ in 0..FRAMES {
        same.frame(true)?;
        greedy.frame(true)?;
        base.frame();
        native.frame();
        let c = base.positions();
        raise(&mut a.moving, max_difference(&same.x, &c));
        raise(
            &mut a.moving_native,
            max_difference(&native.positions(), &c),
        );
        raise(&mut a.moving_greedy, max_difference(&greedy.x, &c));
        raise(&mut a.moved, max_difference(&same.x, &scene.x));
    }
    let checks = [
        (a.colored, "xpbd step_colored vs C baseline (resting)"),
        (a.sequential, "xpbd step vs C baseline (resting)"),
        (a.native, "C -march=native vs C baseline (resting)"),
        (
            a.moving,
            "xpbd step_colored in the C's order vs C baseline (moving)",
        ),
        (a.moving_native, "C -march=native vs C baseline (moving)"),
    ];
    for (d, name) in checks {
        // (`max_difference` is never NaN: a NaN coordinate counts as infinite.)
        if d > tol {
            return Err(format!(
                "{what}: {name}: positions differ by up to {d:.3e} m within {FRAMES} frames (tolerance {tol:.0e} m)"
            ));
        }
    }
    // A moving scene that did not move would check nothing.
    if a.moved <= 0.005 {
        return Err(format!(
            "{what}: the moving scene moved only {:.3e} m",
            a.moved
        ));
    }
    Ok(a)
}

/// `cframe`: xpbd's whole frame against the plain C frame.
pub(crate) fn cframe_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let shear = std::env::var("XPBD_BENCH_CFRAME_SHEAR").map_or(true, |v| v != "0");
    // `XPBD_BENCH_CFRAME_SIDES=70,100,300,500`: the scaling from 10^4 to
    // 10^6 links (docs/performance.md); the default is the sides.
    let listed: Option<Vec<usize>> = std::env::var("XPBD_BENCH_CFRAME_SIDES")
        .ok()
        .map(|v| v.split(',').filter_map(|t| t.trim().parse().ok()).collect());
    let sides: &[usize] = match &listed {
        Some(l) if !l.is_empty() => l,
        _ if s.quick => &[20],
        _ => &[100, 300],
    };
    let pairs = if s.quick { 3 } else { 15 };
    println!(
        "cframe: cloth N×N ({} links), pinned at 2 corners, resting on a plane with friction, {SUBSTEPS} substeps × {ITERATIONS} iteration at 60 Hz, 1 thread; xpbd step_colored (links by color_instances) against the plain C frame (bench/c/frame.c, strided runs) at the baseline and -march=native, A B A B × {pairs}",
        if shear { "structural and shear" } else { "structural" }
    );
    println!("ns per link per substep (whole frame); ratios: time ratio, median of the pairs (range); \"C … / xpbd\" > 1 = xpbd faster; colors xpbd/C; \"xpbd\": links colored by color_instances (any mesh); \"xpbd cloth\": by xpbd::cloth_coloring (the cloth's fixed coloring, the C's colors and order)");
    println!(
        "{:>5} {:>4} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9}  {:<21} {:<21} {:<21} {:<21}",
        "N",
        "",
        "links",
        "colors",
        "xpbd",
        "xpbd cloth",
        "C base",
        "C native",
        "C base / xpbd",
        "C native / xpbd",
        "C base / xpbd cloth",
        "C native / xpbd cloth"
    );
    let mut checks = Vec::new();
    for &side in sides {
        let layout = Layout::new(side, shear)?;
        checks.push(rows::<f64>(s, side, shear, &layout, pairs, figs, ratios)?);
        checks.push(rows::<f32>(s, side, shear, &layout, pairs, figs, ratios)?);
    }
    println!("cframe agreement: max |Δx| (m) after any of {FRAMES} frames, each checked ≤ 1e-9 (f64) / 1e-3 (f32) but \"own order\" (context) and \"moved\" (the moving scene's largest displacement, > 5 mm); resting scene: xpbd (colored, sequential) and C native against the C baseline; moving scene: xpbd in the C's link order and C native against the C baseline, xpbd in its own order (context)");
    println!(
        "{:>5} {:>4} {:>10} {:>10} {:>10} {:>12} | {:>10} {:>10} {:>12} {:>9}",
        "N",
        "",
        "colored",
        "sequential",
        "C native",
        "col. vs seq.",
        "C order",
        "C native",
        "own order",
        "moved"
    );
    for (side, name, a) in checks {
        println!(
            "{side:>5} {name:>4} {:>10.3e} {:>10.3e} {:>10.3e} {:>12.3e} | {:>10.3e} {:>10.3e} {:>12.3e} {:>9.3}",
            a.colored,
            a.sequential,
            a.native,
            a.colored_vs_sequential,
            a.moving,
            a.moving_native,
            a.moving_greedy,
            a.moved
        );
    }
    Ok(())
}

/// One size and precision: the agreement check, then the timed rows.
fn rows<T: CFrame>(
    s: &Settings,
    side: usize,
    shear: bool,
    layout: &Layout,
    pairs: usize,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(usize, &'static str, Agreement), String> {
    let a = agreement::<T>(side, shear, layout)?;
    let scene = Scene::<T>::new(side, shear, false)?;
    let mut ours = Xpbd::greedy(&scene)?;
    let mut base = Plain::new(&scene, layout, T::BASE)?;
    let mut native = Plain::new(&scene, layout, T::NATIVE)?;
    let links = scene.links.len();
    let per_frame = links * SUBSTEPS as usize;
    let frames = s.visits.div_ceil(per_frame).max(1);
    let solves = per_frame * frames;
    // The first error of a timed xpbd frame (returned after the timing).
    let err = std::cell::RefCell::new(None);
    let xpbd_frames = |ours: &mut Xpbd<T>| {
        for _ in 0..frames {
            if let Err(e) = ours.frame(true) {
                err.borrow_mut().get_or_insert(e);
            }
        }
    };
    let c_frames = |c: &mut Plain<T>| {
        for _ in 0..frames {
            std::hint::black_box(c.frame());
        }
    };
    let vs_base = interleaved(
        pairs,
        solves,
        || xpbd_frames(&mut ours),
        || c_frames(&mut base),
    );
    let vs_native = interleaved(
        pairs,
        solves,
        || xpbd_frames(&mut ours),
        || c_frames(&mut native),
    );
    // xpbd with the library's cloth coloring (the C's colors and order).
    let mut same = Xpbd::in_order(&scene, side, shear, layout)?;
    let cloth_base = interleaved(
        pairs,
        solves,
        || xpbd_frames(&mut same),
        || c_frames(&mut base),
    );
    let cloth_native = interleaved(
        pairs,
        solves,
        || xpbd_frames(&mut same),
        || c_frames(&mut native),
    );
    if let Some(e) = err.into_inner() {
        return Err(e);
    }
    let colors = ours.starts.len() - 1;
    let name = format!("cframe {side}² cloth {}", T::NAME);
    // Both pairs time xpbd: its figure is the better of the two.
    let x = if vs_base.a.1 <= vs_native.a.1 {
        vs_base.a
    } else {
        vs_native.a
    };
    let spread =
        |p: &crate::timing::Pair| format!("{:.3} ({:.3}–{:.3})", p.ratio, p.spread.0, p.spread.1);
    let y = if cloth_base.a.1 <= cloth_native.a.1 {
        cloth_base.a
    } else {
        cloth_native.a
    };
    println!(
        "{side:>5} {:>4} {links:>8} {:>7} {:>9.3} {:>9.3} {:>9.3} {:>9.3}  {:<21} {:<21} {:<21} {:<21}",
        T::NAME,
        format!("{colors}/{}", layout.color_runs.len() - 1),
        x.1,
        y.1,
        vs_base.b.1,
        vs_native.b.1,
        spread(&vs_base),
        spread(&vs_native),
        spread(&cloth_base),
        spread(&cloth_native),
    );
    figs.push(Figure {
        case: format!("{name}, xpbd step_colored, 1 thread"),
        per_second: x.0,
        ns: x.1,
    });
    figs.push(Figure {
        case: format!("{name}, xpbd, cloth_coloring (the C's colors and order)"),
        per_second: y.0,
        ns: y.1,
    });
    figs.push(Figure {
        case: format!("{name}, plain C frame, baseline"),
        per_second: vs_base.b.0,
        ns: vs_base.b.1,
    });
    figs.push(Figure {
        case: format!("{name}, plain C frame, -march=native"),
        per_second: vs_native.b.0,
        ns: vs_native.b.1,
    });
    ratios.push(pair_ratio(
        format!("{name}: xpbd frame / plain C frame (baseline)"),
        &vs_base,
        1.0,
    ));
    ratios.push(pair_ratio(
        format!("{name}: xpbd frame / plain C frame (-march=native)"),
        &vs_native,
        1.0,
    ));
    ratios.push(pair_ratio(
        format!("{name}: xpbd frame, cloth_coloring / plain C frame (baseline)"),
        &cloth_base,
        1.0,
    ));
    ratios.push(pair_ratio(
        format!("{name}: xpbd frame, cloth_coloring / plain C frame (-march=native)"),
        &cloth_native,
        1.0,
    ));
    Ok((side, T::NAME, a))
}
