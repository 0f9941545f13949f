//! Every kind's own frame row against its plain C (issue 34, "Give every
//! kind its own frame row, with its plain C"; `XPBD_BENCH_ONLY=kframe`):
//! xpbd's whole frame (`step_colored`, one thread) with bends, tethers or
//! tets, against the plain C frame of `bench/c/frame_kinds.c` (the frame
//! of `bench/c/frame.c` with the kind's loop after the links of every
//! iteration), compiled at the x86-64 baseline and with `-march=native`.
//!
//! The scenes (N = 100; 20 with `XPBD_BENCH_QUICK=1`; any list with
//! `XPBD_BENCH_KFRAME_SIDES`; `XPBD_BENCH_KFRAME_KINDS=bends,tets` for
//! some rows), each on the plane y = 0 with friction (μ_s 0.2, μ_k 0.1,
//! radius 2 mm), 8 substeps × 1 iteration at 60 Hz, f64 and f32:
//!
//! - **bends**: the cloth of `cframe` (N × N, spacing 1 cm, structural
//!   and shear links of compliance 1e-8, pinned at particles 0 and N − 1,
//!   resting at y = r) with its bends (`bends_for_cloth`, compliance
//!   1e-3), colored by `color_instances`;
//! - **tethers**: the same cloth with a tether from every free particle
//!   to the nearer pinned corner (`xpbd::tethers`, compliance 1e-7),
//!   colored by `color_moving_instances` (the pinned anchors are shared
//!   within a color: one color);
//! - **tets**: a `tet_block` of (N/5)³ cubes (20³: 48,000 tets), spacing
//!   5 cm, tet compliance 1e-9, its edges as links (`tet_block_links`,
//!   compliance 1e-8, colored by `color_instances`), resting at y = r,
//!   nothing pinned; the tets colored by `color_instances` after sorting
//!   them by their cube's parity and place in the cube (as the kinds
//!   bench: greedy in the builder's order needs more than 64 colors).
//!
//! xpbd's links in the cloth rows take `cloth_coloring` (the C's strided
//! runs' colors and order, checked); in the tets row both sides run the
//! links over index arrays in `color_instances` order. Every group is
//! stored in colored order and the C solves it in that same order (the
//! same Gauss-Seidel order), with the formulas of the kinds bench's C
//! references over SoA particles, α̃ = α/h² once per frame.
//!
//! Checks (they fail the bench): from the same start, after each of 60
//! frames, the positions of xpbd and of the C at both ISA levels agree
//! within 1e-9 m (f64) / 1e-3 m (f32), with the kind and without it, and
//! the substeps found the same contacts. The resting scenes barely move
//! (the tethers stay slack, the bends flat), so each row is checked in a
//! moving scene too: the cloth or block starts 1 cm higher, sliding at
//! (0.3, 0, 0.1) m/s, falls, lands (the cloth drapes from its corners and
//! folds: the bends and tethers work); there the kind must change the
//! positions (xpbd with against without, printed) by more than 10× the
//! tolerance in f64. The C bend calls libm's `atan2` where xpbd has its
//! own (both within 2 ulp), so bends agree to rounding, not bit for bit.
//!
//! Timing: per round, xpbd with the kind, xpbd without it (links only,
//! the same scene), C baseline with and without, C native with and
//! without, each a whole number of frames. The kind's share is the frame
//! with it minus the frame without it: reported in ns per instance per
//! substep (from each side's best time), and the median of the per-round
//! ratios `C share / xpbd share` (> 1: xpbd faster) with their range,
//! against the target 1.0 (reported, never failing). The whole frame with
//! the kind on is printed as context: the median of `time_C / time_xpbd`.

use xpbd::step::{step_colored, Colliders, Contact, OneThread, Plane, Requirements, World};
use xpbd::{
    bends_count_for_cloth, bends_for_cloth, cloth_coloring, color_instances,
    color_moving_instances, color_order, fill_in_order, tet_block, tet_block_counts,
    tet_block_link_count, tet_block_links, tethers, Bend, Constraints, GroupColors, Instance, Link,
    Real, Tet, Tether,
};

use crate::cframe::{
    config, dt, max_difference, raise, CCloth, CFrame, Layout, Run, Scene, COMPLIANCE,
    DYNAMIC_FRICTION, FRAMES, GRAVITY, ITERATIONS, R, STATIC_FRICTION, SUBSTEPS,
};
use crate::report::Ratio;
use crate::timing::{rotation_times, sides_from, Figure, Settings, Shares};

const BEND_COMPLIANCE: f64 = 1e-3;
const TETHER_COMPLIANCE: f64 = 1e-7;
const TET_COMPLIANCE: f64 = 1e-9;
const TET_SPACING: f64 = 0.05;

/// The kind a row adds to the links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bends,
    Tethers,
    Tets,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Bends, Kind::Tethers, Kind::Tets];

    fn name(self) -> &'static str {
        match self {
            Kind::Bends => "bends",
            Kind::Tethers => "tethers",
            Kind::Tets => "tets",
        }
    }
}

/// `struct kf_group` of bench/c/frame_kinds.c.
#[repr(C)]
struct CGroup<T> {
    count: usize,
    p: *const u32,
    rest: *const T,
    compliance: *const T,
    alpha: *mut T,
    lambda: *mut T,
    starts: *const usize,
    colors: usize,
}

/// `struct kf_world` of bench/c/frame_kinds.c.
#[repr(C)]
struct CWorld<T> {
    cl: CCloth<T>,
    li: *const u32,
    lj: *const u32,
    link_starts: *const usize,
    link_colors: usize,
    bends: CGroup<T>,
    tets: CGroup<T>,
    tethers: CGroup<T>,
}

/// `CF(kframe)`: one frame (dt, substeps, iterations, gravity, radius,
/// μ_s, μ_k); returns the most contacts of a substep.
type KFrameFn<T> = unsafe extern "C" fn(*mut CWorld<T>, T, u32, u32, T, T, T, T, T, T) -> usize;

extern "C" {
    fn kf_base_f64_kframe(
        kw: *mut CWorld<f64>,
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
    fn kf_native_f64_kframe(
        kw: *mut CWorld<f64>,
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
    fn kf_base_f32_kframe(
        kw: *mut CWorld<f32>,
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
    fn kf_native_f32_kframe(
        kw: *mut CWorld<f32>,
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

/// A precision of the C frame with kinds (its name and agreement
/// tolerance: [`CFrame`]'s).
trait KFrame: CFrame {
    /// The baseline copy.
    const KINDS_BASE: KFrameFn<Self>;
    /// The `-march=native` copy.
    const KINDS_NATIVE: KFrameFn<Self>;
}

impl KFrame for f64 {
    const KINDS_BASE: KFrameFn<f64> = kf_base_f64_kframe;
    const KINDS_NATIVE: KFrameFn<f64> = kf_native_f64_kframe;
}

impl KFrame for f32 {
    const KINDS_BASE: KFrameFn<f32> = kf_base_f32_kframe;
    const KINDS_NATIVE: KFrameFn<f32> = kf_native_f32_kframe;
}

/// `items` stored in the colored order of `colors` (`count` colors), with
/// the colors' boundaries.
fn sorted<const N: usize, K: Instance<N> + Copy>(
    items: &[K],
    colors: &[u32],
    count: u32,
) -> Result<(Vec<K>, Vec<usize>), String> {
    let mut starts = vec![0usize; count as usize + 1];
    let mut order = vec![0u32; items.len()];
    color_order(colors, count, &mut starts, &mut order).map_err(|e| e.to_string())?;
    let mut out = items.to_vec();
    fill_in_order(items, &order, &mut out).map_err(|e| e.to_string())?;
    Ok((out, starts))
}

/// `items` colored by `color_instances` over `n` particles, in colored
/// order.
fn greedy<const N: usize, K: Instance<N> + Copy>(
    items: &[K],
    n: usize,
) -> Result<(Vec<K>, Vec<usize>), String> {
    let mut used = vec![0u64; n];
    let mut colors = vec![0u32; items.len()];
    let count = color_instances(items, n, &mut used, &mut colors).map_err(|e| e.to_string())?;
    sorted(items, &colors, count)
}

/// One row's scene: particles, links and groups, each in colored order.
#[derive(Clone)]
struct Setup<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    link_starts: Vec<usize>,
    /// The cloth's strided runs (the C's links, slot `k` = `links[k]`);
    /// `None`: index links (the tet block).
    runs: Option<(Vec<Run>, Vec<usize>)>,
    bends: (Vec<Bend<T>>, Vec<usize>),
    tets: (Vec<Tet<T>>, Vec<usize>),
    tethers: (Vec<Tether<T>>, Vec<usize>),
}

impl<T: Real> Setup<T> {
    /// The row's scene, resting or (`moving`) 1 cm higher and sliding.
    fn new(kind: Kind, side: usize, moving: bool) -> Result<Self, String> {
        match kind {
            Kind::Bends | Kind::Tethers => Self::cloth(kind, side, moving),
            Kind::Tets => Self::block((side / 5).max(2), moving),
        }
    }

    fn cloth(kind: Kind, side: usize, moving: bool) -> Result<Self, String> {
        let layout = Layout::new(side, true)?;
        let scene = Scene::<T>::new(side, true, moving)?;
        let n = scene.x.len();
        let mut colors = vec![0u32; scene.links.len()];
        let c = cloth_coloring(side, side, true, &mut colors).map_err(|e| e.to_string())?;
        let (links, link_starts) = sorted(&scene.links, &colors, c)?;
        let pairs: Vec<(u32, u32)> = links.iter().map(|l| (l.i, l.j)).collect();
        if pairs != layout.pairs || link_starts != layout.starts {
            return Err("kframe: xpbd::cloth_coloring's order is not the C's".into());
        }
        let mut s = Setup {
            x: scene.x,
            v: scene.v,
            w: scene.w,
            links,
            link_starts,
            runs: Some((layout.runs, layout.color_runs)),
            bends: Default::default(),
            tets: Default::default(),
            tethers: Default::default(),
        };
        if kind == Kind::Bends {
            let mut b = vec![Bend::default(); bends_count_for_cloth(side, side)];
            bends_for_cloth(&s.x, side, side, T::from_f64(BEND_COMPLIANCE), &mut b)
                .map_err(|e| e.to_string())?;
            s.bends = greedy(&b, n)?;
        } else {
            let mut t = vec![Tether::default(); n];
            let anchors = [0, side as u32 - 1];
            let count = tethers(&s.x, &s.w, &anchors, T::from_f64(TETHER_COMPLIANCE), &mut t)
                .map_err(|e| e.to_string())?;
            t.truncate(count);
            let mut used = vec![0u64; n];
            let mut colors = vec![0u32; t.len()];
            let c = color_moving_instances(&t, &s.w, &mut used, &mut colors)
                .map_err(|e| e.to_string())?;
            s.tethers = sorted(&t, &colors, c)?;
        }
        Ok(s)
    }

    fn block(side: usize, moving: bool) -> Result<Self, String> {
        let (n, count) = tet_block_counts(side, side, side).ok_or("tet block size")?;
        let mut x = vec![[T::ZERO; 3]; n];
        let mut tets = vec![Tet::default(); count];
        let height = if moving { R + 0.01 } else { R };
        let origin = [T::ZERO, T::from_f64(height), T::ZERO];
        let (spacing, alpha) = (T::from_f64(TET_SPACING), T::from_f64(TET_COMPLIANCE));
        tet_block(side, side, side, spacing, origin, &mut x, &mut tets, alpha)
            .map_err(|e| e.to_string())?;
        let m = tet_block_link_count(side, side, side).ok_or("tet block size")?;
        let mut links = vec![Link::new(0, 1, T::ONE, T::ZERO); m];
        tet_block_links(&x, side, side, side, T::from_f64(COMPLIANCE), &mut links)
            .map_err(|e| e.to_string())?;
        let (links, link_starts) = greedy(&links, n)?;
        // The tets grouped by their cube's parity and place in the cube
        // (the kinds bench's order): greedy coloring then needs < 64 colors.
        let row = side + 1;
        let mut keyed: Vec<(usize, Tet<T>)> = tets.into_iter().enumerate().collect();
        keyed.sort_by_key(|(k, t)| {
            let p = t.particles.iter().copied().min().unwrap_or(0) as usize;
            let parity = (p % row) % 2 + 2 * ((p / row) % row % 2) + 4 * (p / (row * row) % 2);
            (parity, k % 6, *k)
        });
        let tets: Vec<Tet<T>> = keyed.into_iter().map(|(_, t)| t).collect();
        let v = if moving {
            [T::from_f64(0.3), T::ZERO, T::from_f64(0.1)]
        } else {
            [T::ZERO; 3]
        };
        Ok(Setup {
            v: vec![v; n],
            w: vec![T::ONE; n],
            tets: greedy(&tets, n)?,
            x,
            links,
            link_starts,
            runs: None,
            bends: Default::default(),
            tethers: Default::default(),
        })
    }

    /// The same scene without its kind (links only).
    fn without(&self) -> Self {
        Setup {
            bends: Default::default(),
            tets: Default::default(),
            tethers: Default::default(),
            ..self.clone()
        }
    }

    /// The kind's instances and colors.
    fn instances(&self) -> (usize, usize) {
        let colors = |s: &[usize]| s.len().saturating_sub(1);
        let (b, t, h) = (&self.bends, &self.tets, &self.tethers);
        (
            b.0.len() + t.0.len() + h.0.len(),
            colors(&b.1) + colors(&t.1) + colors(&h.1),
        )
    }
}

/// xpbd's side: the world's buffers.
struct Xpbd<T> {
    s: Setup<T>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
    stamp: Vec<u32>,
}

impl<T: Real> Xpbd<T> {
    fn new(s: &Setup<T>) -> Self {
        let need = Requirements::new(s.x.len(), s.links.len(), 1, false);
        Xpbd {
            s: s.clone(),
            contacts: vec![Contact::default(); need.contacts],
            scratch: vec![[T::ZERO; 3]; need.scratch],
            stamp: vec![0; need.stamp],
        }
    }

    /// One frame of `step_colored` on this thread; the most contacts of a
    /// substep.
    fn frame(&mut self) -> Result<usize, String> {
        let planes = [Plane {
            normal: [T::ZERO, T::ONE, T::ZERO],
            offset: T::ZERO,
        }];
        let s = &mut self.s;
        let mut world = World::new(
            &mut s.x,
            &mut s.v,
            &s.w,
            &mut self.contacts,
            &mut self.scratch,
        );
        world.links = &mut s.links;
        world.colliders = Some(Colliders {
            planes: &planes,
            ..Default::default()
        });
        world.groups = Some(Constraints {
            bends: &mut s.bends.0,
            tets: &mut s.tets.0,
            tethers: &mut s.tethers.0,
            ..Default::default()
        });
        let colors = GroupColors {
            links: &s.link_starts,
            bends: &s.bends.1,
            tets: &s.tets.1,
            tethers: &s.tethers.1,
        };
        let stats = step_colored(
            &mut world,
            &colors,
            &mut self.stamp,
            dt(),
            &config(),
            &OneThread,
        )
        .map_err(|e| e.to_string())?;
        Ok(stats.max_contacts)
    }
}

/// One group's arrays on the C's side.
#[derive(Default)]
struct Group<T> {
    p: Vec<u32>,
    rest: Vec<T>,
    compliance: Vec<T>,
    alpha: Vec<T>,
    lambda: Vec<T>,
    starts: Vec<usize>,
}

impl<T: Real> Group<T> {
    /// `items` (particles, rest value, compliance each) with their colors.
    fn new<I: Iterator<Item = (Vec<u32>, T, T)>>(items: I, starts: &[usize]) -> Self {
        let mut g = Group {
            starts: starts.to_vec(),
            ..Default::default()
        };
        for (p, rest, compliance) in items {
            g.p.extend(p);
            g.rest.push(rest);
            g.compliance.push(compliance);
        }
        g.alpha = vec![T::ZERO; g.rest.len()];
        g.lambda = vec![T::ZERO; g.rest.len()];
        g
    }

    fn raw(&mut self) -> CGroup<T> {
        CGroup {
            count: self.rest.len(),
            p: self.p.as_ptr(),
            rest: self.rest.as_ptr(),
            compliance: self.compliance.as_ptr(),
            alpha: self.alpha.as_mut_ptr(),
            lambda: self.lambda.as_mut_ptr(),
            starts: self.starts.as_ptr(),
            colors: self.starts.len().saturating_sub(1),
        }
    }
}

/// The C's side: its SoA arrays (`CWorld` points into them).
struct Plain<T> {
    f: KFrameFn<T>,
    p: [Vec<T>; 12],
    rest: Vec<T>,
    compliance: Vec<T>,
    per_link: [Vec<T>; 3],
    runs: Vec<Run>,
    color_runs: Vec<usize>,
    /// Index links (the tet block): `i`, `j`, or both empty.
    li: Vec<u32>,
    lj: Vec<u32>,
    link_starts: Vec<usize>,
    groups: [Group<T>; 3],
}

impl<T: KFrame> Plain<T> {
    fn new(s: &Setup<T>, f: KFrameFn<T>) -> Self {
        let coordinate = |a: &[[T; 3]], c: usize| a.iter().map(|p| p[c]).collect::<Vec<T>>();
        let n = s.x.len();
        let m = s.links.len();
        let zeros = || vec![T::ZERO; n];
        let (runs, color_runs, li, lj) = match &s.runs {
            Some((r, c)) => (r.clone(), c.clone(), Vec::new(), Vec::new()),
            None => (
                Vec::new(),
                vec![0],
                s.links.iter().map(|l| l.i).collect(),
                s.links.iter().map(|l| l.j).collect(),
            ),
        };
        let bends = Group::new(
            s.bends
                .0
                .iter()
                .map(|b| (b.particles.to_vec(), b.rest_angle, b.compliance)),
            &s.bends.1,
        );
        let tets = Group::new(
            s.tets
                .0
                .iter()
                .map(|t| (t.particles.to_vec(), t.rest_volume, t.compliance)),
            &s.tets.1,
        );
        let tethers = Group::new(
            s.tethers
                .0
                .iter()
                .map(|t| (vec![t.particle, t.anchor], t.max_distance, t.compliance)),
            &s.tethers.1,
        );
        Plain {
            f,
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
                zeros(),
                zeros(),
            ],
            rest: s.links.iter().map(|l| l.rest).collect(),
            compliance: s.links.iter().map(|l| l.compliance).collect(),
            per_link: [vec![T::ZERO; m], vec![T::ZERO; m], vec![T::ZERO; m]],
            runs,
            color_runs,
            li,
            lj,
            link_starts: s.link_starts.clone(),
            groups: [bends, tets, tethers],
        }
    }

    /// One frame; the most contacts of a substep.
    fn frame(&mut self) -> usize {
        let [x, y, z, vx, vy, vz, px, py, pz, w, lc, touch] = &mut self.p;
        let [alpha, g, lambda] = &mut self.per_link;
        let indexed = !self.li.is_empty();
        let [bends, tets, tethers] = &mut self.groups;
        let mut kw = CWorld {
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
            },
            li: if indexed {
                self.li.as_ptr()
            } else {
                std::ptr::null()
            },
            lj: self.lj.as_ptr(),
            link_starts: self.link_starts.as_ptr(),
            link_colors: self.link_starts.len().saturating_sub(1),
            bends: bends.raw(),
            tets: tets.raw(),
            tethers: tethers.raw(),
        };
        // SAFETY: every particle array holds `n` values and every link
        // array one per link; the runs (from `cf_cloth_runs` for this
        // cloth, checked against xpbd's order by `Setup::cloth`) or the
        // index links name particles below `n` and slots below the link
        // count; each group's particle indices (xpbd's builders, below
        // `n`) and colors cover its own arrays; `kw` points into `self`,
        // borrowed mutably for the call.
        unsafe {
            (self.f)(
                &mut kw,
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

/// What the agreement check measured (m): each the largest difference
/// after any of the [`FRAMES`] frames.
#[derive(Default)]
struct Agreement {
    /// Resting scene, with the kind: xpbd vs C baseline, C native vs C
    /// baseline; without it: xpbd vs C baseline.
    resting: [f64; 3],
    /// The same in the moving scene.
    moving: [f64; 3],
    /// The moving scene: xpbd with the kind against xpbd without it.
    effect: f64,
}

/// Runs [`FRAMES`] frames of every side of one scene from the same start
/// and returns the largest differences: with the kind (xpbd vs C
/// baseline, C native vs C baseline), without (xpbd vs C baseline), and
/// xpbd with against without. Fails when the contact counts differ.
fn compare<T: KFrame>(s: &Setup<T>, what: &str) -> Result<([f64; 3], f64), String> {
    let o = s.without();
    let mut xw = Xpbd::new(s);
    let mut xo = Xpbd::new(&o);
    let (mut bw, mut nw) = (Plain::new(s, T::KINDS_BASE), Plain::new(s, T::KINDS_NATIVE));
    let mut bo = Plain::new(&o, T::KINDS_BASE);
    let mut d = [0.0; 3];
    let mut effect = 0.0;
    for frame in 0..FRAMES {
        let counts = [xw.frame()?, bw.frame(), nw.frame()];
        let without = [xo.frame()?, bo.frame()];
        if counts.iter().any(|&c| c != counts[0]) || without[0] != without[1] {
            return Err(format!(
                "{what}: frame {frame}: most contacts of a substep differ (xpbd, C baseline, C native with the kind: {counts:?}; xpbd, C baseline without: {without:?})"
            ));
        }
        let c = bw.positions();
        raise(&mut d[0], max_difference(&xw.s.x, &c));
        raise(&mut d[1], max_difference(&nw.positions(), &c));
        raise(&mut d[2], max_difference(&xo.s.x, &bo.positions()));
        raise(&mut effect, max_difference(&xw.s.x, &xo.s.x));
    }
    Ok((d, effect))
}

/// The agreement check of one row (resting and moving scene); fails
/// unless every difference is within `T::TOLERANCE` and the kind changes
/// the moving scene by more than 10× that in f64.
fn agreement<T: KFrame>(kind: Kind, side: usize) -> Result<Agreement, String> {
    let tol = T::TOLERANCE;
    let what = format!("kframe {} {side} {}", kind.name(), T::NAME);
    let (resting, _) = compare(&Setup::<T>::new(kind, side, false)?, &what)?;
    let (moving, effect) = compare(&Setup::<T>::new(kind, side, true)?, &what)?;
    let names = [
        "xpbd vs C baseline, with the kind",
        "C -march=native vs C baseline, with the kind",
        "xpbd vs C baseline, without the kind",
    ];
    for (scene, d) in [("resting", resting), ("moving", moving)] {
        for (d, name) in d.iter().zip(names) {
            if *d > tol {
                return Err(format!(
                    "{what}: {name} ({scene}): positions differ by up to {d:.3e} m within {FRAMES} frames (tolerance {tol:.0e} m)"
                ));
            }
        }
    }
    if T::NAME == "f64" && effect <= 10.0 * tol {
        return Err(format!(
            "{what}: the kind changed the moving scene by only {effect:.3e} m"
        ));
    }
    Ok(Agreement {
        resting,
        moving,
        effect,
    })
}

/// `kframe`: every kind's share of xpbd's whole frame against its plain C.
pub(crate) fn kframe_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let sides = sides_from("XPBD_BENCH_KFRAME_SIDES", s);
    let kinds: Vec<Kind> = match std::env::var("XPBD_BENCH_KFRAME_KINDS") {
        Ok(v) => Kind::ALL
            .into_iter()
            .filter(|k| v.split(',').any(|t| t.trim() == k.name()))
            .collect(),
        Err(_) => Kind::ALL.to_vec(),
    };
    let rounds = if s.quick { 3 } else { 15 };
    println!(
        "kframe: each kind's share of the whole frame (frame with it − frame without it, links only), xpbd step_colored (1 thread) against the plain C frame (bench/c/frame_kinds.c) at the baseline and -march=native; plane with friction, {SUBSTEPS} substeps × {ITERATIONS} iteration at 60 Hz; rounds of 6 (xpbd, C base, C native, each with and without) × {rounds}"
    );
    println!("bends, tethers: cloth N×N (structural and shear links, pinned at 2 corners, resting); tets: block of (N/5)³ cubes (6 tets each, edges as links, resting); ns per instance of the kind per substep of its share; ratios: median of the rounds (range), > 1 = xpbd faster; \"frame\": the whole frame with the kind, time_C / time_xpbd");
    println!(
        "{:>7} {:>4} {:>4} {:>8} {:>6} {:>8} {:>8} {:>8}  {:<21} {:<21} {:<21} {:<21}",
        "kind",
        "N",
        "",
        "count",
        "colors",
        "xpbd",
        "C base",
        "C nat.",
        "share C base / xpbd",
        "share C nat. / xpbd",
        "frame C base / xpbd",
        "frame C nat. / xpbd"
    );
    let mut checks = Vec::new();
    for &side in &sides {
        for &kind in &kinds {
            checks.push(row::<f64>(s, kind, side, rounds, figs, ratios)?);
            checks.push(row::<f32>(s, kind, side, rounds, figs, ratios)?);
        }
    }
    println!("kframe agreement: max |Δx| (m) after any of {FRAMES} frames, checked ≤ 1e-9 (f64) / 1e-3 (f32): xpbd and C native against the C baseline with the kind, xpbd against the C baseline without it; resting and moving scene; \"effect\": the moving scene's xpbd with the kind against without (f64: checked > 10× the tolerance)");
    println!(
        "{:>7} {:>4} {:>4} {:>10} {:>10} {:>10} | {:>10} {:>10} {:>10} {:>10}",
        "kind", "N", "", "xpbd", "C native", "without", "xpbd", "C native", "without", "effect"
    );
    for (kind, side, name, a) in checks {
        println!(
            "{:>7} {side:>4} {name:>4} {:>10.3e} {:>10.3e} {:>10.3e} | {:>10.3e} {:>10.3e} {:>10.3e} {:>10.3e}",
            kind.name(),
            a.resting[0],
            a.resting[1],
            a.resting[2],
            a.moving[0],
            a.moving[1],
            a.moving[2],
            a.effect
        );
    }
    Ok(())
}

/// One kind, size and precision: the agreement check, then the timed row.
fn row<T: KFrame>(
    s: &Settings,
    kind: Kind,
    side: usize,
    rounds: usize,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(Kind, usize, &'static str, Agreement), String> {
    let a = agreement::<T>(kind, side)?;
    let with = Setup::<T>::new(kind, side, false)?;
    let without = with.without();
    let (count, colors) = with.instances();
    let per_frame = (with.links.len() + count) * SUBSTEPS as usize;
    let frames = s.visits.div_ceil(per_frame).max(1);
    let (mut xw, mut xo) = (Xpbd::new(&with), Xpbd::new(&without));
    let (mut bw, mut bo) = (
        Plain::new(&with, T::KINDS_BASE),
        Plain::new(&without, T::KINDS_BASE),
    );
    let (mut nw, mut no) = (
        Plain::new(&with, T::KINDS_NATIVE),
        Plain::new(&without, T::KINDS_NATIVE),
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
            std::hint::black_box(p.frame());
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
    // The kind's instance solves per call (for the share's figures) and
    // the whole frame's visits.
    let solves = count * SUBSTEPS as usize * ITERATIONS as usize * frames;
    let visits = per_frame * ITERATIONS as usize * frames;
    let row = Shares::of(&t, rounds, solves, visits);
    let [s_base, s_native, f_base, f_native] = row.spreads();
    println!(
        "{:>7} {side:>4} {:>4} {count:>8} {colors:>6} {:>8.3} {:>8.3} {:>8.3}  {s_base:<21} {s_native:<21} {f_base:<21} {f_native:<21}",
        kind.name(),
        T::NAME,
        row.base.a.1,
        row.base.b.1,
        row.native.b.1,
    );
    let name = format!("kframe {} N={side} {}", kind.name(), T::NAME);
    row.record(&name, figs, ratios);
    Ok((kind, side, T::NAME, a))
}
