//! A bench row against plain C for each character-cloth feature (issue 35,
//! "A bench row against plain C for each new kind";
//! `XPBD_BENCH_ONLY=character`): skinned constraints, wind, local space.
//! As `kframe`: xpbd's whole frame (`step_colored`, one thread) with the
//! feature and without it, against the plain C frame of
//! `bench/c/frame_character.c` with and without it, compiled at the
//! x86-64 baseline and with `-march=native`.
//!
//! The scene, f64 and f32: a cape of N × N particles (N = 100; 20 with
//! `XPBD_BENCH_QUICK=1`; any list with `XPBD_BENCH_CHARACTER_SIDES`;
//! `XPBD_BENCH_CHARACTER_KINDS=skin,wind,local` for some rows), spacing
//! 1 cm, 0.25 kg/m² (w = 40,000/kg), structural and shear links
//! (`xpbd::cloth`, compliance 1e-8, colored by `cloth_coloring`: the C's
//! strided runs, checked), its top row pinned at the shoulders (1.4 m up,
//! 15 cm behind the root), hanging tilted 20° back from the vertical, so
//! that it swings; no colliders, 8 substeps × 1 iteration at 60 Hz,
//! gravity (0, −9.81, 0). The rows:
//!
//! - **skin**: every particle (pinned ones included, which are skipped)
//!   has a [`SkinConstraint`] at its start position: max distance 1 cm at
//!   the top to 5 cm at the hem (compliance 1e-7), backstop 5 mm behind
//!   the skinned point along the cape's normal, radius 10 cm (rigid); the
//!   skinned targets move every frame (a sway about the shoulders, up to
//!   4 cm sideways and 8 cm back and forth at the hem);
//! - **wind**: drag and lift (`AeroTriangle::new`: 1.2 and 0.1) on every
//!   triangle of the grid (2 (N − 1)²), wind (1.5, 0, −4) m/s in air;
//! - **local space**: the cape in the root's frame, the root running an
//!   ellipse (0.4 m × 0.3 m, 2 s) and turning about the vertical (±0.5 rad,
//!   2.5 s), linear and angular inertia 0.5.
//!
//! xpbd takes the SoA frame for all three rows: skinned constraints are a
//! lagged group, which it takes, and wind and local space run on it since
//! issue 34's seventh stage.
//!
//! Checks (they fail the bench): from the same start, after each of 60
//! frames, the positions of xpbd and of the C at both ISA levels agree
//! within 1e-9 m (f64) / 1e-3 m (f32), with the feature and without it;
//! the feature changes the positions (xpbd with against without) by more
//! than 10× the tolerance in f64.
//!
//! Timing: per round, xpbd with the feature, xpbd without it, C baseline
//! with and without, C native with and without, each a whole number of
//! frames, interleaved (A B A B); each side writes the feature's inputs
//! (skinned targets, the root's transform) before each of its frames, as
//! an engine would, inside the timing. The feature's share
//! is the frame with it minus the frame without it, reported in ns per
//! instance per substep (skinned constraint, triangle, carried particle)
//! from each side's best time, and the median of the per-round ratios
//! `C share / xpbd share` (> 1: xpbd faster) with their range, against
//! the target 1.0 (reported, never failing). The whole frame with the
//! feature is printed as context: the median of `time_C / time_xpbd`,
//! and so is the frame without it (the cape alone, baseline C).

use std::f64::consts::TAU;

use xpbd::step::{
    step_colored, AeroTriangle, Contact, LocalSpace, OneThread, Requirements, StepConfig,
    Transform, Wind, World,
};
use xpbd::{cloth, cloth_coloring, cloth_link_count, color_order, fill_in_order};
use xpbd::{Constraints, GroupColors, Link, Real, SkinConstraint};

use crate::cframe::{
    dt, max_difference, raise, CCloth, CFrame, Layout, Run, COMPLIANCE, FRAMES, GRAVITY,
    ITERATIONS, SUBSTEPS,
};
use crate::report::{pair_ratio, Ratio};
use crate::timing::{pair, rotation_times, sides_from, Figure, Settings, Shares};

const SPACING: f64 = 0.01;
/// The cape's mass per area (kg/m²): a particle's 1 cm² is 25 mg.
const AREAL_DENSITY: f64 = 0.25;
/// The cape's tilt back from the vertical (rad).
const TILT: f64 = 0.35;
/// The pinned top row: height and distance behind the root (m).
const SHOULDERS: [f64; 2] = [1.4, -0.15];
const REACH_TOP: f64 = 0.01;
const REACH_HEM: f64 = 0.05;
const SKIN_COMPLIANCE: f64 = 1e-7;
const BACKSTOP_DISTANCE: f64 = 0.005;
const BACKSTOP_RADIUS: f64 = 0.1;
const WIND: [f64; 3] = [1.5, 0.0, -4.0];
const INERTIA: f64 = 0.5;

/// The feature a row adds to the cape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Feature {
    Skin,
    Wind,
    Local,
}

impl Feature {
    const ALL: [Feature; 3] = [Feature::Skin, Feature::Wind, Feature::Local];

    fn name(self) -> &'static str {
        match self {
            Feature::Skin => "skin",
            Feature::Wind => "wind",
            Feature::Local => "local space",
        }
    }

    /// Its name in `XPBD_BENCH_CHARACTER_KINDS`.
    fn key(self) -> &'static str {
        match self {
            Feature::Skin => "skin",
            Feature::Wind => "wind",
            Feature::Local => "local",
        }
    }
}

/// `struct ch_skin` of bench/c/frame_character.c.
#[repr(C)]
struct CSkin<T> {
    count: usize,
    p: *const u32,
    prev: [*mut T; 3],
    target: [*const T; 3],
    prev_normal: [*mut T; 3],
    target_normal: [*const T; 3],
    max_distance: *const T,
    backstop_distance: *const T,
    backstop_radius: *const T,
    compliance: *const T,
    backstop_compliance: *const T,
    alpha: *mut T,
    backstop_alpha: *mut T,
    lambda: *mut T,
    backstop_lambda: *mut T,
    scale: T,
}

/// `struct ch_wind` of bench/c/frame_character.c.
#[repr(C)]
struct CWind<T> {
    count: usize,
    tri: *const u32,
    drag: *const T,
    lift: *const T,
    velocity: [T; 3],
    density: T,
}

/// `struct ch_local` of bench/c/frame_character.c (`struct ch_transform`
/// is [`Transform`]'s layout: rotation, translation).
#[repr(C)]
#[derive(Clone, Copy)]
struct CLocal<T> {
    on: u32,
    teleport: u32,
    previous: Transform<T>,
    target: Transform<T>,
    linear_inertia: T,
    angular_inertia: T,
}

/// `struct ch_world` of bench/c/frame_character.c.
#[repr(C)]
struct CWorld<T> {
    cl: CCloth<T>,
    skin: CSkin<T>,
    wind: CWind<T>,
    local: CLocal<T>,
}

/// `CF(character_frame)`: one frame (dt, substeps, iterations, gravity:
/// three values).
type CharacterFn<T> = unsafe extern "C" fn(*mut CWorld<T>, T, u32, u32, *const T);

extern "C" {
    fn ch_base_f64_character_frame(w: *mut CWorld<f64>, dt: f64, s: u32, i: u32, g: *const f64);
    fn ch_native_f64_character_frame(w: *mut CWorld<f64>, dt: f64, s: u32, i: u32, g: *const f64);
    fn ch_base_f32_character_frame(w: *mut CWorld<f32>, dt: f32, s: u32, i: u32, g: *const f32);
    fn ch_native_f32_character_frame(w: *mut CWorld<f32>, dt: f32, s: u32, i: u32, g: *const f32);
}

/// A precision of the C character frame (its name and agreement
/// tolerance: [`CFrame`]'s).
trait CharacterFrame: CFrame {
    /// The baseline copy.
    const CHARACTER_BASE: CharacterFn<Self>;
    /// The `-march=native` copy.
    const CHARACTER_NATIVE: CharacterFn<Self>;
}

impl CharacterFrame for f64 {
    const CHARACTER_BASE: CharacterFn<f64> = ch_base_f64_character_frame;
    const CHARACTER_NATIVE: CharacterFn<f64> = ch_native_f64_character_frame;
}

impl CharacterFrame for f32 {
    const CHARACTER_BASE: CharacterFn<f32> = ch_base_f32_character_frame;
    const CHARACTER_NATIVE: CharacterFn<f32> = ch_native_f32_character_frame;
}

fn config<T: Real>() -> StepConfig<T, 3> {
    let mut c = StepConfig::new([T::ZERO, T::from_f64(GRAVITY), T::ZERO]);
    c.substeps = SUBSTEPS;
    c.iterations = ITERATIONS;
    c
}

fn vector<T: Real>(v: [f64; 3]) -> [T; 3] {
    v.map(T::from_f64)
}

/// The skinned targets' sway at the end of frame `frame` (m, at the hem;
/// row `r` of `N` moves `r/(N − 1)` of it).
fn sway<T: Real>(frame: usize) -> [T; 3] {
    let t = frame as f64 / 60.0;
    vector([
        0.04 * (TAU * 0.9 * t).sin(),
        0.0,
        0.08 * (TAU * 0.6 * t).sin(),
    ])
}

/// A skinned target: `rest + sway·f` (the same operations on both sides).
fn skinned<T: Real>(rest: &[T; 3], sway: &[T; 3], f: T) -> [T; 3] {
    [0, 1, 2].map(|c| rest[c] + sway[c] * f)
}

/// The root at the end of frame `frame`: an ellipse, turning about y.
fn root<T: Real>(frame: usize) -> Transform<T> {
    let t = frame as f64 / 60.0;
    let w = TAU * 0.5 * t;
    let turn = 0.5 * (TAU * 0.4 * t).sin();
    Transform {
        rotation: [0.0, (0.5 * turn).sin(), 0.0, (0.5 * turn).cos()].map(T::from_f64),
        translation: vector([0.4 * w.sin(), 0.0, 0.3 * (1.0 - w.cos())]),
    }
}

/// One row's scene (with its feature, or `None`: the cape alone).
#[derive(Clone)]
struct Setup<T> {
    feature: Option<Feature>,
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    /// The links in the C's colored order, with the colors' boundaries.
    links: Vec<Link<T>>,
    link_starts: Vec<usize>,
    runs: Vec<Run>,
    color_runs: Vec<usize>,
    /// Every particle's start position (the skinned targets' rest) and
    /// share of the sway (`r/(N − 1)`).
    rest: Vec<[T; 3]>,
    row: Vec<T>,
    skin: Vec<SkinConstraint<T>>,
    triangles: Vec<AeroTriangle<T>>,
}

impl<T: Real> Setup<T> {
    fn new(side: usize, feature: Option<Feature>) -> Result<Self, String> {
        let layout = Layout::new(side, true)?;
        let n = side * side;
        let last = (side - 1) as f64;
        let (sin, cos) = TILT.sin_cos();
        let x: Vec<[T; 3]> = (0..n)
            .map(|k| {
                let (r, c) = ((k / side) as f64, (k % side) as f64);
                vector([
                    (c - 0.5 * last) * SPACING,
                    SHOULDERS[0] - r * SPACING * cos,
                    SHOULDERS[1] - r * SPACING * sin,
                ])
            })
            .collect();
        let moving = T::from_f64(1.0 / (AREAL_DENSITY * SPACING * SPACING));
        let w: Vec<T> = (0..n)
            .map(|k| if k < side { T::ZERO } else { moving })
            .collect();
        let count = cloth_link_count(side, side, true).ok_or("cape size")?;
        let mut all = vec![Link::new(0, 1, T::ONE, T::ZERO); count];
        cloth(&x, side, side, true, T::from_f64(COMPLIANCE), &mut all)
            .map_err(|e| e.to_string())?;
        let mut colors = vec![0u32; count];
        let c = cloth_coloring(side, side, true, &mut colors).map_err(|e| e.to_string())?;
        let mut link_starts = vec![0usize; c as usize + 1];
        let mut order = vec![0u32; count];
        color_order(&colors, c, &mut link_starts, &mut order).map_err(|e| e.to_string())?;
        let mut links = all.clone();
        fill_in_order(&all, &order, &mut links).map_err(|e| e.to_string())?;
        let pairs: Vec<(u32, u32)> = links.iter().map(|l| (l.i, l.j)).collect();
        if pairs != layout.pairs || link_starts != layout.starts {
            return Err("character: xpbd::cloth_coloring's order is not the C's".into());
        }
        let row: Vec<T> = (0..n)
            .map(|k| T::from_f64((k / side) as f64 / last))
            .collect();
        let mut s = Setup {
            feature,
            v: vec![[T::ZERO; 3]; n],
            w,
            links,
            link_starts,
            runs: layout.runs,
            color_runs: layout.color_runs,
            row,
            skin: Vec::new(),
            triangles: Vec::new(),
            rest: x.clone(),
            x,
        };
        match feature {
            Some(Feature::Skin) => {
                let normal = vector([0.0, sin, -cos]);
                s.skin = (0..n)
                    .map(|k| {
                        let mut c = SkinConstraint::new(k as u32, s.x[k], normal);
                        let f = (k / side) as f64 / last;
                        c.max_distance = T::from_f64(REACH_TOP + (REACH_HEM - REACH_TOP) * f);
                        c.compliance = T::from_f64(SKIN_COMPLIANCE);
                        c.backstop_distance = T::from_f64(BACKSTOP_DISTANCE);
                        c.backstop_radius = T::from_f64(BACKSTOP_RADIUS);
                        c
                    })
                    .collect();
            }
            Some(Feature::Wind) => {
                for r in 0..side - 1 {
                    for c in 0..side - 1 {
                        let k = (r * side + c) as u32;
                        let (right, down) = (k + 1, k + side as u32);
                        s.triangles.push(AeroTriangle::new([k, right, down]));
                        s.triangles.push(AeroTriangle::new([right, down + 1, down]));
                    }
                }
            }
            _ => {}
        }
        Ok(s)
    }

    /// The feature's instances: skinned constraints, triangles or
    /// carried particles.
    fn instances(&self) -> usize {
        match self.feature {
            Some(Feature::Skin) => self.skin.len(),
            Some(Feature::Wind) => self.triangles.len(),
            Some(Feature::Local) => self.w.iter().filter(|&&w| w != T::ZERO).count(),
            None => 0,
        }
    }
}

/// xpbd's side: the world's buffers and blocks.
struct Xpbd<T> {
    s: Setup<T>,
    /// The local-space block: the local-space row's moving root.
    local: Option<LocalSpace<T>>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
    stamp: Vec<u32>,
    frame: usize,
}

impl<T: Real> Xpbd<T> {
    fn new(s: &Setup<T>) -> Self {
        let need = Requirements::new(s.x.len(), s.links.len(), 0, false);
        let local = (s.feature == Some(Feature::Local)).then(|| {
            let mut l = LocalSpace::new(root(0));
            l.linear_inertia = T::from_f64(INERTIA);
            l.angular_inertia = T::from_f64(INERTIA);
            l
        });
        Xpbd {
            s: s.clone(),
            local,
            contacts: vec![Contact::default(); need.contacts],
            scratch: vec![[T::ZERO; 3]; need.scratch],
            stamp: vec![0; need.stamp],
            frame: 0,
        }
    }

    /// One frame of `step_colored` on this thread, the feature's inputs
    /// (skinned targets, root) set first as an engine would.
    fn frame(&mut self) -> Result<(), String> {
        let next = self.frame + 1;
        let s = &mut self.s;
        match s.feature {
            Some(Feature::Skin) => {
                let sw = sway::<T>(next);
                for ((c, &f), r) in s.skin.iter_mut().zip(&s.row).zip(&s.rest) {
                    c.target = skinned(r, &sw, f);
                }
            }
            Some(Feature::Local) => {
                if let Some(l) = self.local.as_mut() {
                    l.target = root(next);
                }
            }
            _ => {}
        }
        let mut world = World::new(
            &mut s.x,
            &mut s.v,
            &s.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut s.links;
        world.groups = Some(Constraints {
            skin_constraints: &mut s.skin,
            ..Default::default()
        });
        if s.feature == Some(Feature::Wind) {
            world.wind = Some(Wind {
                velocity: vector(WIND),
                ..Wind::new(&s.triangles)
            });
        }
        world.local_space = self.local.as_mut();
        let colors = GroupColors {
            links: &s.link_starts,
            ..Default::default()
        };
        step_colored(
            &mut world,
            &colors,
            &mut self.stamp,
            dt(),
            &config(),
            &OneThread,
        )
        .map_err(|e| e.to_string())?;
        self.frame = next;
        Ok(())
    }
}

/// The skinned constraints' arrays on the C's side (empty: none).
#[derive(Default)]
struct SkinArrays<T> {
    p: Vec<u32>,
    prev: [Vec<T>; 3],
    target: [Vec<T>; 3],
    prev_normal: [Vec<T>; 3],
    target_normal: [Vec<T>; 3],
    /// Max distance, backstop distance and radius, compliance, backstop
    /// compliance.
    params: [Vec<T>; 5],
    /// α̃ and λ of the max distance and the backstop.
    state: [Vec<T>; 4],
}

impl<T: Real> SkinArrays<T> {
    fn new(skin: &[SkinConstraint<T>]) -> Self {
        let each = |f: &dyn Fn(&SkinConstraint<T>) -> T| skin.iter().map(f).collect::<Vec<T>>();
        let xyz = |f: &dyn Fn(&SkinConstraint<T>) -> [T; 3]| [0, 1, 2].map(|c| each(&|k| f(k)[c]));
        SkinArrays {
            p: skin.iter().map(|k| k.particle).collect(),
            prev: xyz(&|k| k.previous),
            target: xyz(&|k| k.target),
            prev_normal: xyz(&|k| k.previous_normal),
            target_normal: xyz(&|k| k.target_normal),
            params: [
                each(&|k| k.max_distance),
                each(&|k| k.backstop_distance),
                each(&|k| k.backstop_radius),
                each(&|k| k.compliance),
                each(&|k| k.backstop_compliance),
            ],
            state: [0, 1, 2, 3].map(|_| vec![T::ZERO; skin.len()]),
        }
    }

    fn raw(&mut self) -> CSkin<T> {
        let [md, bd, br, c, bc] = &self.params;
        let [a, ba, l, bl] = &mut self.state;
        CSkin {
            count: self.p.len(),
            p: self.p.as_ptr(),
            prev: self.prev.each_mut().map(|v| v.as_mut_ptr()),
            target: self.target.each_ref().map(|v| v.as_ptr()),
            prev_normal: self.prev_normal.each_mut().map(|v| v.as_mut_ptr()),
            target_normal: self.target_normal.each_ref().map(|v| v.as_ptr()),
            max_distance: md.as_ptr(),
            backstop_distance: bd.as_ptr(),
            backstop_radius: br.as_ptr(),
            compliance: c.as_ptr(),
            backstop_compliance: bc.as_ptr(),
            alpha: a.as_mut_ptr(),
            backstop_alpha: ba.as_mut_ptr(),
            lambda: l.as_mut_ptr(),
            backstop_lambda: bl.as_mut_ptr(),
            scale: T::ONE,
        }
    }
}

/// The C's side: its SoA arrays (`CWorld` points into them).
struct Plain<T> {
    f: CharacterFn<T>,
    feature: Option<Feature>,
    /// x, y, z, vx, vy, vz, the substep's start px, py, pz, w.
    p: [Vec<T>; 10],
    rest: Vec<T>,
    compliance: Vec<T>,
    /// α̃, g, λ per link.
    per_link: [Vec<T>; 3],
    runs: Vec<Run>,
    color_runs: Vec<usize>,
    skin: SkinArrays<T>,
    /// The skinned targets' rest and share of the sway.
    anchor: (Vec<[T; 3]>, Vec<T>),
    tri: Vec<u32>,
    drag: Vec<T>,
    lift: Vec<T>,
    local: CLocal<T>,
    frame: usize,
}

impl<T: CharacterFrame> Plain<T> {
    fn new(s: &Setup<T>, f: CharacterFn<T>) -> Self {
        let coordinate = |a: &[[T; 3]], c: usize| a.iter().map(|p| p[c]).collect::<Vec<T>>();
        let (n, m) = (s.x.len(), s.links.len());
        let zeros = || vec![T::ZERO; n];
        let local = s.feature == Some(Feature::Local);
        let inertia = T::from_f64(if local { INERTIA } else { 0.0 });
        Plain {
            f,
            feature: s.feature,
            p: [
                coordinate(&s.x, 0),
                coordinate(&s.x, 1),
                coordinate(&s.x, 2),
                coordinate(&s.v, 0),
                coordinate(&s.v, 1),
                coordinate(&s.v, 2),
                zeros(),
                zeros(),
                zeros(),
                s.w.clone(),
            ],
            rest: s.links.iter().map(|l| l.rest).collect(),
            compliance: s.links.iter().map(|l| l.compliance).collect(),
            per_link: [vec![T::ZERO; m], vec![T::ZERO; m], vec![T::ZERO; m]],
            runs: s.runs.clone(),
            color_runs: s.color_runs.clone(),
            skin: SkinArrays::new(&s.skin),
            anchor: (s.rest.clone(), s.row.clone()),
            tri: s.triangles.iter().flat_map(|t| t.particles).collect(),
            drag: s.triangles.iter().map(|t| t.drag).collect(),
            lift: s.triangles.iter().map(|t| t.lift).collect(),
            local: CLocal {
                on: u32::from(local),
                teleport: 0,
                previous: root(0),
                target: root(0),
                linear_inertia: inertia,
                angular_inertia: inertia,
            },
            frame: 0,
        }
    }

    /// One frame, the feature's inputs set first (as [`Xpbd::frame`]).
    fn frame(&mut self) {
        let next = self.frame + 1;
        match self.feature {
            Some(Feature::Skin) => {
                let sw = sway::<T>(next);
                let [tx, ty, tz] = &mut self.skin.target;
                let (rest, row) = &self.anchor;
                for (k, (r, &f)) in rest.iter().zip(row).enumerate() {
                    let t = skinned(r, &sw, f);
                    (tx[k], ty[k], tz[k]) = (t[0], t[1], t[2]);
                }
            }
            Some(Feature::Local) => self.local.target = root(next),
            _ => {}
        }
        let [x, y, z, vx, vy, vz, px, py, pz, w] = &mut self.p;
        let [alpha, g, lambda] = &mut self.per_link;
        let wind = self.feature == Some(Feature::Wind);
        let mut cw = CWorld {
            cl: CCloth {
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
                lc: std::ptr::null_mut(),
                touch: std::ptr::null_mut(),
                links: self.rest.len(),
                rest: self.rest.as_ptr(),
                compliance: self.compliance.as_ptr(),
                alpha: alpha.as_mut_ptr(),
                g: g.as_mut_ptr(),
                lambda: lambda.as_mut_ptr(),
                runs: self.runs.as_ptr(),
                color_runs: self.color_runs.as_ptr(),
                colors: self.color_runs.len() - 1,
            },
            skin: self.skin.raw(),
            wind: CWind {
                count: if wind { self.drag.len() } else { 0 },
                tri: self.tri.as_ptr(),
                drag: self.drag.as_ptr(),
                lift: self.lift.as_ptr(),
                velocity: vector(if wind { WIND } else { [0.0; 3] }),
                density: T::from_f64(xpbd::step::AIR_DENSITY),
            },
            local: self.local,
        };
        let gravity = vector::<T>([0.0, GRAVITY, 0.0]);
        // SAFETY: every particle array holds `n` values and every link
        // array one per link; the runs (from `cf_cloth_runs` for this
        // cape, checked against xpbd's order by `Setup::new`) name
        // particles below `n` and slots below the link count; the skin
        // arrays hold one value per instance (each particle index below
        // `n`), the triangle list three indices below `n` per triangle
        // and one coefficient each; the contact arrays (null) are not
        // used; `cw` points into `self`, borrowed mutably for the call,
        // and `gravity` holds the three values the C reads.
        unsafe { (self.f)(&mut cw, dt(), SUBSTEPS, ITERATIONS, gravity.as_ptr()) };
        self.local = cw.local;
        self.frame = next;
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

/// What the agreement check measured (m): each the largest difference
/// after any of the [`FRAMES`] frames.
struct Agreement {
    /// With the feature: xpbd vs C baseline, C native vs C baseline;
    /// without it: xpbd vs C baseline.
    d: [f64; 3],
    /// xpbd with the feature against xpbd without it.
    effect: f64,
}

/// Runs [`FRAMES`] frames of every side of one row from the same start;
/// fails unless every difference is within `T::TOLERANCE` and the
/// feature changes the positions by more than 10× that in f64.
fn agreement<T: CharacterFrame>(feature: Feature, side: usize) -> Result<Agreement, String> {
    let tol = T::TOLERANCE;
    let what = format!("character {} N={side} {}", feature.name(), T::NAME);
    let with = Setup::<T>::new(side, Some(feature))?;
    let without = Setup::<T>::new(side, None)?;
    let (mut xw, mut xo) = (Xpbd::new(&with), Xpbd::new(&without));
    let (mut bw, mut nw) = (
        Plain::new(&with, T::CHARACTER_BASE),
        Plain::new(&with, T::CHARACTER_NATIVE),
    );
    let mut bo = Plain::new(&without, T::CHARACTER_BASE);
    let mut d = [0.0; 3];
    let mut effect = 0.0;
    for _ in 0..FRAMES {
        xw.frame()?;
        xo.frame()?;
        bw.frame();
        nw.frame();
        bo.frame();
        let c = bw.positions();
        raise(&mut d[0], max_difference(&xw.s.x, &c));
        raise(&mut d[1], max_difference(&nw.positions(), &c));
        raise(&mut d[2], max_difference(&xo.s.x, &bo.positions()));
        raise(&mut effect, max_difference(&xw.s.x, &xo.s.x));
    }
    let names = [
        "xpbd vs C baseline, with the feature",
        "C -march=native vs C baseline, with the feature",
        "xpbd vs C baseline, without the feature",
    ];
    for (&d, name) in d.iter().zip(names) {
        if d > tol {
            return Err(format!(
                "{what}: {name}: positions differ by up to {d:.3e} m within {FRAMES} frames (tolerance {tol:.0e} m)"
            ));
        }
    }
    if T::NAME == "f64" && effect <= 10.0 * tol {
        return Err(format!(
            "{what}: the feature changed the positions by only {effect:.3e} m"
        ));
    }
    Ok(Agreement { d, effect })
}

/// `character`: each character-cloth feature's share of xpbd's whole
/// frame against its plain C.
pub(crate) fn character_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let sides = sides_from("XPBD_BENCH_CHARACTER_SIDES", s);
    let features: Vec<Feature> = match std::env::var("XPBD_BENCH_CHARACTER_KINDS") {
        Ok(v) => Feature::ALL
            .into_iter()
            .filter(|f| v.split(',').any(|t| t.trim() == f.key()))
            .collect(),
        Err(_) => Feature::ALL.to_vec(),
    };
    if let Some(&side) = sides.iter().find(|&&n| n < 2) {
        return Err(format!("character: a cape needs N ≥ 2, not {side}"));
    }
    let rounds = if s.quick { 3 } else { 15 };
    println!(
        "character: each character-cloth feature's share of the whole frame (frame with it − frame without it), xpbd step_colored (1 thread) against the plain C frame (bench/c/frame_character.c) at the baseline and -march=native; a cape N×N (structural and shear links, top row pinned, tilted 20°, swinging), no colliders, {SUBSTEPS} substeps × {ITERATIONS} iteration at 60 Hz; rounds of 6 (xpbd, C base, C native, each with and without) × {rounds}"
    );
    println!("skin: a max distance and a backstop per particle, skinned targets swaying every frame; wind: drag and lift on every triangle; local space: the root running an ellipse and turning, inertia 0.5; ns per instance (skinned constraint, triangle, carried particle) per substep of the share; ratios: median of the rounds (range), > 1 = xpbd faster; \"frame\": the whole frame with the feature, time_C / time_xpbd");
    // feature, N, precision, count, ns (xpbd, C base, C native), ratios.
    println!("    feature    N         count     xpbd   C base   C nat.  share C base / xpbd   share C nat. / xpbd   frame C base / xpbd   frame C nat. / xpbd");
    let mut checks = Vec::new();
    for &side in &sides {
        for &feature in &features {
            checks.push(row::<f64>(s, feature, side, rounds, figs, ratios)?);
            checks.push(row::<f32>(s, feature, side, rounds, figs, ratios)?);
        }
    }
    println!("character agreement: max |Δx| (m) after any of {FRAMES} frames, checked ≤ 1e-9 (f64) / 1e-3 (f32): xpbd and C native against the C baseline with the feature, xpbd against the C baseline without it; \"effect\": xpbd with the feature against without (f64: checked > 10× the tolerance)");
    println!(
        "{:>11} {:>4} {:>4} {:>10} {:>10} {:>10} {:>10}",
        "feature", "N", "", "xpbd", "C native", "without", "effect"
    );
    for (feature, side, name, a) in checks {
        println!(
            "{:>11} {side:>4} {name:>4} {:>10.3e} {:>10.3e} {:>10.3e} {:>10.3e}",
            feature.name(),
            a.d[0],
            a.d[1],
            a.d[2],
            a.effect
        );
    }
    Ok(())
}

/// One feature, size and precision: the agreement check, then the timed
/// row.
fn row<T: CharacterFrame>(
    s: &Settings,
    feature: Feature,
    side: usize,
    rounds: usize,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(Feature, usize, &'static str, Agreement), String> {
    let a = agreement::<T>(feature, side)?;
    let with = Setup::<T>::new(side, Some(feature))?;
    let without = Setup::<T>::new(side, None)?;
    let count = with.instances();
    let per_frame = (with.links.len() + count) * SUBSTEPS as usize;
    let frames = s.visits.div_ceil(per_frame).max(1);
    let (mut xw, mut xo) = (Xpbd::new(&with), Xpbd::new(&without));
    let (mut bw, mut bo) = (
        Plain::new(&with, T::CHARACTER_BASE),
        Plain::new(&without, T::CHARACTER_BASE),
    );
    let (mut nw, mut no) = (
        Plain::new(&with, T::CHARACTER_NATIVE),
        Plain::new(&without, T::CHARACTER_NATIVE),
    );
    // The first error of a timed xpbd frame (returned after the timing).
    let err = std::cell::RefCell::new(None);
    let xpbd = |x: &mut Xpbd<T>| {
        for _ in 0..frames {
            if let Err(e) = x.frame() {
                err.borrow_mut().get_or_insert(e);
            }
        }
    };
    let c = |p: &mut Plain<T>| {
        for _ in 0..frames {
            p.frame();
        }
    };
    let t = rotation_times(
        rounds,
        &mut [
            &mut || xpbd(&mut xw),
            &mut || xpbd(&mut xo),
            &mut || c(&mut bw),
            &mut || c(&mut bo),
            &mut || c(&mut nw),
            &mut || c(&mut no),
        ],
    );
    if let Some(e) = err.into_inner() {
        return Err(e);
    }
    let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let per_round = |f: &dyn Fn(usize) -> f64| (0..rounds).map(f).collect::<Vec<f64>>();
    // The feature's instance visits per call (for the share's figures)
    // and the whole frame's visits.
    let solves = count * SUBSTEPS as usize * frames;
    let visits = per_frame * ITERATIONS as usize * frames;
    let row = Shares::of(&t, rounds, solves, visits);
    let name = format!("character {} N={side} {}", feature.name(), T::NAME);
    let [s_base, s_native, f_base, f_native] = row.spreads();
    println!(
        "{:>11} {side:>4} {:>4} {count:>8} {:>8.3} {:>8.3} {:>8.3}  {s_base:<21} {s_native:<21} {f_base:<21} {f_native:<21}",
        feature.name(),
        T::NAME,
        row.base.a.1,
        row.base.b.1,
        row.native.b.1,
    );
    row.record(&name, figs, ratios);
    let alone = pair(
        (best(&t[1]), best(&t[3])),
        visits,
        per_round(&|r| t[3][r] / t[1][r]),
    );
    ratios.push(pair_ratio(
        format!("{name}: frame without the feature, xpbd / plain C (baseline)"),
        &alone,
        0.0,
    ));
    Ok((feature, side, T::NAME, a))
}
