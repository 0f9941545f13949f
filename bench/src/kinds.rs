//! The constraint kinds beyond links (issue 15): dihedral bending,
//! tetrahedral volume, long-range tethers and closed-mesh volume.
//!
//! One scene struct per kind, built with the crate's public builders
//! (`bends_for_cloth`, `tet_block`, `tethers`, `icosphere` and
//! `mesh_volume`) and then disturbed so that every constraint has work to
//! do. [`BendScene::sequential`] (and the same method of the others) times
//! the crate's sequential Gauss-Seidel sweep of that one group through the
//! public API — a 3D `System` with no links and only that group
//! (`System::with_constraints`), one `begin_substep`, then `iterate` — against
//! the plain C loop of the same formula in the same order
//! (`ref_*_sweep` in `bench/c/reference.c`), alternating ours and C
//! (A B A B …) in this one process; the ratio is the median of the per-pair
//! ratios. Tets, tethers and meshes must give the crate's bits; the C bend
//! calls libm's `atan2` where the crate has its own, so bends must agree
//! within [`BEND_TOLERANCE`].
//!
//!
//! The colored rows ([`Mode::Colored`]) time the same scene with its group
//! stored in colored order (`color_instances`, `color_order`,
//! `fill_in_order`): ours is the crate's colored sweep on one thread
//! (`Substep::colored`, then `ColoredGroups::iterate`, every color in
//! order; tethers, whose pinned anchors are shared by up to a hundred
//! tethers, need more than its 64 colors and are colored by the same
//! first-fit rule in the bench), C is the same plain C loop over the same
//! colored order. The
//! colored sweep gives the sequential sweep's bits over that order, so the
//! same checks hold (bits for tets, tethers and meshes, the tolerance for
//! bends). Bends are checked after one call of each side (`sweeps`
//! sweeps from the scene's start); after the whole run too in the
//! builders' order, while in colored order the unlinked cloth drifts over
//! the run's ~1,000 sweeps of one substep and the two `atan2`s' ulps grow
//! to the scale of the cloth (printed, not checked). A mesh is a color of its own: its colored row is its sweep
//! through the colored entry point.

use std::hint::black_box;

use xpbd::{
    bends_count_for_cloth, bends_for_cloth, color_instances, color_order, fill_in_order, icosphere,
    icosphere_counts, mesh_volume, tet_block, tet_block_counts, tethers, Bend, Constraints,
    GroupColors, Instance, Link, MeshParticles, MeshVolume, MeshVolumes, System, Tet, Tether,
};

use crate::report::{pair_ratio, Ratio};
use crate::timing::{bits, interleaved, Figure, Pair, Settings, H};

extern "C" {
    fn ref_bend_sweep(x: *mut [f64; 3], w: *const f64, bends: *mut Bend<f64>, n: usize, h: f64);
    fn ref_tet_sweep(x: *mut [f64; 3], w: *const f64, tets: *mut Tet<f64>, n: usize, h: f64);
    fn ref_tether_sweep(
        x: *mut [f64; 3],
        w: *const f64,
        tethers: *mut Tether<f64>,
        n: usize,
        h: f64,
    );
    #[allow(clippy::too_many_arguments)]
    fn ref_mesh_sweep(
        x: *mut [f64; 3],
        w: *const f64,
        tris: *const [u32; 3],
        meshes: *mut MeshVolume<f64>,
        n: usize,
        unique: *const u32,
        ustart: *const usize,
        grad: *mut [f64; 3],
        h: f64,
    );
}

/// The largest difference allowed between the crate's bends and the C
/// reference after the whole run (every warm-up and timed sweep): 1e-9 m
/// in a position (the cloth spans 1 m) and 1e-9 of the largest |λ| in a
/// multiplier. The two `atan2`s differ by an ulp or two in the angle
/// (xpbd's: below 2 ulp of the exact value), so the states drift apart
/// by rounding only; the figure measured is printed.
pub(crate) const BEND_TOLERANCE: f64 = 1e-9;

/// The largest position difference (m) and the largest λ difference over
/// the largest |λ| between the crate's bends and the C reference's.
fn bend_gap(x: &[[f64; 3]], cx: &[[f64; 3]], bends: &[Bend<f64>], cb: &[Bend<f64>]) -> (f64, f64) {
    let dx = x
        .iter()
        .flatten()
        .zip(cx.iter().flatten())
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    let scale = bends.iter().fold(0.0f64, |m, b| m.max(b.lambda.abs()));
    let dl = bends
        .iter()
        .zip(cb)
        .fold(0.0f64, |m, (a, b)| m.max((a.lambda - b.lambda).abs()))
        / scale.max(f64::MIN_POSITIVE);
    (dx, dl)
}

/// Which sweep a row times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `Substep::iterate` over the group in the builders' order.
    Sequential,
    /// `ColoredGroups::iterate` (one thread) over the group in colored
    /// order.
    Colored,
}

impl Mode {
    /// The word the rows use.
    fn word(self) -> &'static str {
        match self {
            Mode::Sequential => "sequential",
            Mode::Colored => "colored",
        }
    }
}

/// `items` in colored order (greedy `color_instances` over `n` particles,
/// then `color_order` and `fill_in_order`) and the colors' boundaries; for
/// [`Mode::Sequential`], `items` unchanged and no boundaries.
fn in_order<const N: usize, K: Instance<N> + Copy>(
    items: &[K],
    n: usize,
    mode: Mode,
) -> Result<(Vec<K>, Vec<usize>), String> {
    if mode == Mode::Sequential {
        return Ok((items.to_vec(), Vec::new()));
    }
    let mut used = vec![0u64; n];
    let mut colors = vec![0u32; items.len()];
    let count = match color_instances(items, n, &mut used, &mut colors) {
        Ok(count) => count,
        // More than the 64 colors `color_instances` allows (tethers: up to
        // a hundred share one pinned anchor): the same first-fit rule
        // without a limit.
        Err(_) => first_fit(items, n, &mut colors)?,
    };
    let mut starts = vec![0usize; count as usize + 1];
    let mut order = vec![0u32; items.len()];
    color_order(&colors, count, &mut starts, &mut order).map_err(|e| e.to_string())?;
    let mut out = items.to_vec();
    fill_in_order(items, &order, &mut out).map_err(|e| e.to_string())?;
    println!("colored order: {} instances in {count} colors", items.len());
    Ok((out, starts))
}

/// First-fit greedy coloring of `items` over `n` particles in slice order
/// (each instance takes the lowest color none of its particles has yet),
/// without a limit on the color count; returns the count.
fn first_fit<const N: usize, K: Instance<N>>(
    items: &[K],
    n: usize,
    colors: &mut [u32],
) -> Result<u32, String> {
    let mut taken: Vec<Vec<bool>> = vec![Vec::new(); n];
    let mut count = 0u32;
    for (item, color) in items.iter().zip(colors.iter_mut()) {
        let p = item.particles().map(|k| k as usize);
        if p.iter().any(|&k| k >= n) {
            return Err("an instance names no particle".into());
        }
        let mut c = 0usize;
        while p.iter().any(|&k| taken[k].get(c).copied().unwrap_or(false)) {
            c += 1;
        }
        for &k in &p {
            if taken[k].len() <= c {
                taken[k].resize(c + 1, false);
            }
            taken[k][c] = true;
        }
        *color = c as u32;
        count = count.max(c as u32 + 1);
    }
    Ok(count)
}

/// Sweeps per timed call for a group whose sweep costs `work` units
/// (instances, or triangles for meshes): a quarter of the links' visits.
fn kind_sweeps(s: &Settings, work: usize) -> usize {
    (s.visits / 4 / work.max(1)).max(3)
}

/// Ours (a 3D system holding only `groups`: `begin_substep` once, then
/// `sweeps` sweeps per timed call: `iterate`, or with `colors` the colored
/// view's `iterate` on this thread) against `c` (`sweeps` C sweeps per call
/// over its own copy), A B A B.
#[allow(clippy::too_many_arguments)]
fn ours_and_c(
    s: &Settings,
    sweeps: usize,
    solves: usize,
    x: &mut [[f64; 3]],
    w: &[f64],
    groups: Constraints<'_, f64>,
    colors: Option<GroupColors<'_>>,
    mut c: impl FnMut(),
) -> Result<Pair, String> {
    let mut stamp = vec![0u32; x.len()];
    let mut no_links: [Link<f64>; 0] = [];
    let mut sys = System::new(x, w, &mut no_links)
        .map_err(|e| e.to_string())?
        .with_constraints(groups);
    let mut sub = sys.begin_substep(H).map_err(|e| e.to_string())?;
    let mut err = None;
    let mut c_sweeps = || {
        for _ in 0..sweeps {
            c();
        }
    };
    let pair = match colors {
        None => interleaved(
            s.reps,
            solves,
            || {
                for _ in 0..sweeps {
                    if let Err(e) = black_box(&mut sub).iterate() {
                        err = Some(e);
                    }
                }
            },
            &mut c_sweeps,
        ),
        Some(colors) => {
            let mut view = sub.colored(colors, &mut stamp).map_err(|e| e.to_string())?;
            interleaved(
                s.reps,
                solves,
                || {
                    for _ in 0..sweeps {
                        if let Err(e) = black_box(&mut view).iterate() {
                            err = Some(e);
                        }
                    }
                },
                &mut c_sweeps,
            )
        }
    };
    match err {
        Some(e) => Err(e.to_string()),
        None => Ok(pair),
    }
}

/// The two figures and the ratio line of one kind's row.
fn row(figs: &mut Vec<Figure>, name: &str, c_label: &str, pair: &Pair, mode: Mode) -> Ratio {
    let (ours, c) = match mode {
        Mode::Sequential => ("Rust sequential".to_string(), "C sequential".to_string()),
        Mode::Colored => (
            "Rust colored, 1 thread".to_string(),
            "C in colored order".to_string(),
        ),
    };
    figs.push(Figure {
        case: format!("{name}: {ours}"),
        per_second: pair.a.0,
        ns: pair.a.1,
    });
    figs.push(Figure {
        case: format!("{name}: {c}{c_label}"),
        per_second: pair.b.0,
        ns: pair.b.1,
    });
    // Issue 15 asked ≥ 0.9 of plain C for both sweeps; issue 19 (item 3)
    // asks ≥ 1.0 for the colored sweep.
    let target = match mode {
        Mode::Sequential => 0.9,
        Mode::Colored => 1.0,
    };
    pair_ratio(
        format!("{name}: {}, ours / C (median of A/B pairs)", mode.word()),
        pair,
        target,
    )
}

/// Fails unless the crate's and C's final state have the same bits.
fn same_bits(
    name: &str,
    ours: &[[f64; 3]],
    c: &[[f64; 3]],
    lo: &[f64],
    lc: &[f64],
) -> Result<(), String> {
    if bits(ours.iter().flatten().copied()) != bits(c.iter().flatten().copied()) {
        return Err(format!("{name}: Rust and C positions differ"));
    }
    if bits(lo.iter().copied()) != bits(lc.iter().copied()) {
        return Err(format!("{name}: Rust and C multipliers differ"));
    }
    Ok(())
}

/// A flat `rows × cols` grid in the plane z = 0, spacing 1 cm.
fn grid(rows: usize, cols: usize) -> Vec<[f64; 3]> {
    (0..rows * cols)
        .map(|k| [(k % cols) as f64 * 0.01, (k / cols) as f64 * 0.01, 0.0])
        .collect()
}

/// Dihedral bending: a `side × side` cloth, bends from `bends_for_cloth`
/// (flat rest shape), folded by a small z pattern; the top row pinned.
pub(crate) struct BendScene {
    side: usize,
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    bends: Vec<Bend<f64>>,
}

impl BendScene {
    pub(crate) fn new(s: &Settings) -> Result<Self, String> {
        let side = if s.quick { 30 } else { 100 };
        let x0 = grid(side, side);
        let mut bends = vec![Bend::default(); bends_count_for_cloth(side, side)];
        bends_for_cloth(&x0, side, side, 1e-4, &mut bends).map_err(|e| e.to_string())?;
        let x = x0
            .iter()
            .enumerate()
            .map(|(k, p)| {
                [
                    p[0],
                    p[1],
                    0.0005 * ((k % 7) as f64) - 0.0007 * ((k % 3) as f64),
                ]
            })
            .collect();
        let w = (0..side * side)
            .map(|k| if k < side { 0.0 } else { 1.0 })
            .collect();
        Ok(Self { side, x, w, bends })
    }

    pub(crate) fn name(&self) -> String {
        format!(
            "bend: cloth {0}x{0} ({1} bends) f64",
            self.side,
            self.bends.len()
        )
    }

    /// The crate's sweep of the bends (sequential, or colored in colored
    /// order) against `ref_bend_sweep` in the same order.
    pub(crate) fn row(
        &self,
        s: &Settings,
        figs: &mut Vec<Figure>,
        mode: Mode,
    ) -> Result<Ratio, String> {
        let name = self.name();
        let n = self.bends.len();
        let sweeps = kind_sweeps(s, n);
        let (ordered, starts) = in_order(&self.bends, self.x.len(), mode)?;
        let colors = (mode == Mode::Colored).then_some(GroupColors {
            bends: &starts,
            ..GroupColors::default()
        });
        let word = mode.word();
        // Ours and C from the scene's start, `s.reps` timed pairs; the gap
        // between the two final states.
        let run = |s: &Settings| -> Result<(Pair, f64, f64), String> {
            let (mut x, mut bends) = (self.x.clone(), ordered.clone());
            let (mut cx, mut cb) = (self.x.clone(), ordered.clone());
            let w = &self.w;
            let groups = Constraints {
                bends: &mut bends,
                ..Constraints::default()
            };
            let pair = ours_and_c(s, sweeps, sweeps * n, &mut x, w, groups, colors, || {
                // SAFETY: `cx` holds every particle the bends name; `w` as many.
                unsafe { ref_bend_sweep(cx.as_mut_ptr(), w.as_ptr(), cb.as_mut_ptr(), cb.len(), H) }
            })
            .map_err(|e| format!("{name}: {e}"))?;
            let (dx, dl) = bend_gap(&x, &cx, &bends, &cb);
            Ok((pair, dx, dl))
        };
        // The check: one call of each side (`sweeps` sweeps), no pairs.
        let once = Settings { reps: 0, ..*s };
        let (_, dx, dl) = run(&once)?;
        println!("{name}: {word}: Rust vs C (libm atan2) after {sweeps} sweeps: max |dx| {dx:.2e} m, max |dλ|/max|λ| {dl:.2e} (allowed {BEND_TOLERANCE:.0e})");
        if !(dx <= BEND_TOLERANCE && dl <= BEND_TOLERANCE) {
            return Err(format!(
                "{name}: {word}: Rust and C differ by {dx:.2e} m / {dl:.2e} in λ after {sweeps} sweeps"
            ));
        }
        let (pair, dx, dl) = run(s)?;
        let calls = s.reps + 1;
        println!("{name}: {word}: Rust vs C (libm atan2) after the run ({calls} × {sweeps} sweeps): max |dx| {dx:.2e} m, max |dλ|/max|λ| {dl:.2e}");
        // In the builders' order the whole run stays within the tolerance;
        // in colored order the unlinked cloth drifts over hundreds of
        // sweeps of one substep and the two atan2s' ulps grow (reported).
        if mode == Mode::Sequential && !(dx <= BEND_TOLERANCE && dl <= BEND_TOLERANCE) {
            return Err(format!(
                "{name}: {word}: Rust and C differ by {dx:.2e} m / {dl:.2e} in λ"
            ));
        }
        Ok(row(figs, &name, " (libm atan2)", &pair, mode))
    }
}

/// Tetrahedral volume: a `side³`-cube `tet_block` (6 tets per cube),
/// every particle moved by a small pattern so the tets are off their rest
/// volumes; the bottom layer pinned.
pub(crate) struct TetScene {
    side: usize,
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    tets: Vec<Tet<f64>>,
}

impl TetScene {
    pub(crate) fn new(s: &Settings) -> Result<Self, String> {
        let side = if s.quick { 6 } else { 20 };
        let (particles, count) = tet_block_counts(side, side, side).ok_or("tet block size")?;
        let mut x0 = vec![[0.0; 3]; particles];
        let mut tets = vec![Tet::default(); count];
        tet_block(side, side, side, 0.05, [0.0; 3], &mut x0, &mut tets, 1e-9)
            .map_err(|e| e.to_string())?;
        let x = x0
            .iter()
            .enumerate()
            .map(|(k, p)| {
                [
                    p[0] * (1.0 + 0.01 * ((k % 5) as f64)),
                    p[1] * (1.0 + 0.01 * ((k % 3) as f64)),
                    p[2] + 0.002 * ((k % 7) as f64),
                ]
            })
            .collect();
        let layer = (side + 1) * (side + 1);
        let w = (0..particles)
            .map(|k| if k < layer { 0.0 } else { 1.0 })
            .collect();
        Ok(Self { side, x, w, tets })
    }

    pub(crate) fn name(&self) -> String {
        format!(
            "tet: block {0}x{0}x{0} ({1} tets) f64",
            self.side,
            self.tets.len()
        )
    }

    /// The crate's sweep of the tets (sequential, or colored in colored
    /// order) against `ref_tet_sweep` in the same order.
    pub(crate) fn row(
        &self,
        s: &Settings,
        figs: &mut Vec<Figure>,
        mode: Mode,
    ) -> Result<Ratio, String> {
        let name = self.name();
        let n = self.tets.len();
        let sweeps = kind_sweeps(s, n);
        // Greedy coloring in the builder's order needs more than the 64
        // colors `color_instances` allows for this block: it colors the
        // tets grouped by their cube's parity (the corner with the lowest
        // index, x, y and z each even or odd) and their place in the cube
        // (6 per cube), 48 groups of tets that share no particle.
        let sorted = if mode == Mode::Colored {
            let row = self.side + 1;
            let mut t = self.tets.clone();
            let key = |(k, t): &(usize, Tet<f64>)| {
                let p = t.particles.iter().copied().min().unwrap_or(0) as usize;
                let parity = (p % row) % 2 + 2 * ((p / row) % row % 2) + 4 * (p / (row * row) % 2);
                (parity, k % 6, *k)
            };
            let mut keyed: Vec<(usize, Tet<f64>)> = t.drain(..).enumerate().collect();
            keyed.sort_by_key(key);
            keyed.into_iter().map(|(_, t)| t).collect()
        } else {
            self.tets.clone()
        };
        let (ordered, starts) = in_order(&sorted, self.x.len(), mode)?;
        let (mut x, mut tets) = (self.x.clone(), ordered.clone());
        let (mut cx, mut ct) = (self.x.clone(), ordered);
        let w = &self.w;
        let groups = Constraints {
            tets: &mut tets,
            ..Constraints::default()
        };
        let colors = (mode == Mode::Colored).then_some(GroupColors {
            tets: &starts,
            ..GroupColors::default()
        });
        let pair = ours_and_c(s, sweeps, sweeps * n, &mut x, w, groups, colors, || {
            // SAFETY: `cx` holds every particle the tets name; `w` as many.
            unsafe { ref_tet_sweep(cx.as_mut_ptr(), w.as_ptr(), ct.as_mut_ptr(), ct.len(), H) }
        })
        .map_err(|e| format!("{name}: {e}"))?;
        let lo: Vec<f64> = tets.iter().map(|t| t.lambda).collect();
        let lc: Vec<f64> = ct.iter().map(|t| t.lambda).collect();
        same_bits(&format!("{name}: {}", mode.word()), &x, &cx, &lo, &lc)?;
        Ok(row(figs, &name, "", &pair, mode))
    }
}

/// Long-range tethers: a `side × side` cloth with its top row pinned, one
/// tether per free particle to the nearest pinned one (`tethers`), then
/// stretched 5 % down and rippled so that most tethers pull.
pub(crate) struct TetherScene {
    side: usize,
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    tethers: Vec<Tether<f64>>,
}

impl TetherScene {
    pub(crate) fn new(s: &Settings) -> Result<Self, String> {
        let side = if s.quick { 30 } else { 100 };
        let x0 = grid(side, side);
        let w: Vec<f64> = (0..side * side)
            .map(|k| if k < side { 0.0 } else { 1.0 })
            .collect();
        let anchors: Vec<u32> = (0..side as u32).collect();
        let mut t = vec![Tether::default(); side * side];
        let n = tethers(&x0, &w, &anchors, 1e-7, &mut t).map_err(|e| e.to_string())?;
        t.truncate(n);
        let x = x0
            .iter()
            .enumerate()
            .map(|(k, p)| {
                if k < side {
                    *p
                } else {
                    [p[0], p[1] * 1.05, 0.001 * ((k % 11) as f64)]
                }
            })
            .collect();
        Ok(Self {
            side,
            x,
            w,
            tethers: t,
        })
    }

    pub(crate) fn name(&self) -> String {
        format!(
            "tether: pinned cloth {0}x{0} ({1} tethers) f64",
            self.side,
            self.tethers.len()
        )
    }

    /// The crate's sweep of the tethers (sequential, or colored in colored
    /// order) against `ref_tether_sweep` in the same order.
    pub(crate) fn row(
        &self,
        s: &Settings,
        figs: &mut Vec<Figure>,
        mode: Mode,
    ) -> Result<Ratio, String> {
        let name = self.name();
        let n = self.tethers.len();
        let sweeps = kind_sweeps(s, n);
        let (ordered, starts) = in_order(&self.tethers, self.x.len(), mode)?;
        let (mut x, mut t) = (self.x.clone(), ordered.clone());
        let (mut cx, mut ct) = (self.x.clone(), ordered);
        let w = &self.w;
        let groups = Constraints {
            tethers: &mut t,
            ..Constraints::default()
        };
        let colors = (mode == Mode::Colored).then_some(GroupColors {
            tethers: &starts,
            ..GroupColors::default()
        });
        let pair = ours_and_c(s, sweeps, sweeps * n, &mut x, w, groups, colors, || {
            // SAFETY: `cx` holds every particle the tethers name; `w` as many.
            unsafe { ref_tether_sweep(cx.as_mut_ptr(), w.as_ptr(), ct.as_mut_ptr(), ct.len(), H) }
        })
        .map_err(|e| format!("{name}: {e}"))?;
        let lo: Vec<f64> = t.iter().map(|t| t.lambda).collect();
        let lc: Vec<f64> = ct.iter().map(|t| t.lambda).collect();
        same_bits(&format!("{name}: {}", mode.word()), &x, &cx, &lo, &lc)?;
        Ok(row(figs, &name, "", &pair, mode))
    }
}

/// Closed-mesh volume: one `icosphere` balloon (radius 0.5 m) with its
/// `mesh_volume` constraint, every particle moved radially by a small
/// pattern so the volume is off its rest value.
pub(crate) struct MeshScene {
    frequency: usize,
    x: Vec<[f64; 3]>,
    w: Vec<f64>,
    triangles: Vec<[u32; 3]>,
    mesh: MeshVolume<f64>,
    /// The mesh's particles once each, in the order they first appear in
    /// its triangles (the crate's list, `mesh_volume` wrote it; the C
    /// reference's too).
    unique: Vec<u32>,
}

impl MeshScene {
    pub(crate) fn new(s: &Settings) -> Result<Self, String> {
        let frequency = if s.quick { 4 } else { 16 };
        let (particles, count) = icosphere_counts(frequency).ok_or("icosphere size")?;
        let mut x0 = vec![[0.0; 3]; particles];
        let mut triangles = vec![[0u32; 3]; count];
        icosphere(frequency, 0.5, [0.0; 3], &mut x0, &mut triangles).map_err(|e| e.to_string())?;
        let tris = u32::try_from(count).map_err(|e| e.to_string())?;
        let mut unique = vec![0; particles];
        let mut marks = vec![[0.0; 3]; particles];
        let list = MeshParticles {
            particles: &mut unique,
            first: 0,
            scratch: &mut marks,
        };
        let mesh =
            mesh_volume(&x0, &triangles, 0, tris, 1.0, 1e-6, list).map_err(|e| e.to_string())?;
        unique.truncate(mesh.particle_count as usize);
        let x = x0
            .iter()
            .enumerate()
            .map(|(k, p)| p.map(|c| c * (1.0 + 0.01 * ((k % 7) as f64 - 2.0))))
            .collect();
        let w = vec![1.0; particles];
        Ok(Self {
            frequency,
            x,
            w,
            triangles,
            mesh,
            unique,
        })
    }

    pub(crate) fn name(&self) -> String {
        format!(
            "mesh: icosphere f={} (1 mesh, {} triangles) f64",
            self.frequency,
            self.triangles.len()
        )
    }

    /// The crate's sweep of the mesh (sequential, or through the colored
    /// entry point: a mesh is a color of its own) against `ref_mesh_sweep`.
    pub(crate) fn row(
        &self,
        s: &Settings,
        figs: &mut Vec<Figure>,
        mode: Mode,
    ) -> Result<Ratio, String> {
        let name = self.name();
        let sweeps = kind_sweeps(s, self.triangles.len());
        let (mut x, mut m) = (self.x.clone(), [self.mesh]);
        let (mut cx, mut cm) = (self.x.clone(), [self.mesh]);
        let mut scratch = vec![[0.0; 3]; x.len()];
        let mut grad = vec![[0.0; 3]; x.len()];
        let first = self.mesh.first_particle as usize;
        let ustart = [first, first + self.mesh.particle_count as usize];
        let w = &self.w;
        let groups = Constraints {
            meshes: MeshVolumes {
                volumes: &mut m,
                triangles: &self.triangles,
                particles: &self.unique,
                scratch: &mut scratch,
            },
            ..Constraints::default()
        };
        let colors = (mode == Mode::Colored).then(GroupColors::default);
        let pair = ours_and_c(s, sweeps, sweeps, &mut x, w, groups, colors, || {
            // SAFETY: the mesh's triangles lie in `triangles` and name
            // particles of `cx`; `unique[ustart[0]..ustart[1]]` are those
            // particles; `grad` and `w` have one entry per particle.
            unsafe {
                ref_mesh_sweep(
                    cx.as_mut_ptr(),
                    w.as_ptr(),
                    self.triangles.as_ptr(),
                    cm.as_mut_ptr(),
                    cm.len(),
                    self.unique.as_ptr(),
                    ustart.as_ptr(),
                    grad.as_mut_ptr(),
                    H,
                )
            }
        })
        .map_err(|e| format!("{name}: {e}"))?;
        same_bits(
            &format!("{name}: {}", mode.word()),
            &x,
            &cx,
            &[m[0].lambda],
            &[cm[0].lambda],
        )?;
        Ok(row(figs, &name, "", &pair, mode))
    }
}

/// Pushes a kind's ratio line; a colored one (held to issue 19's 1.0)
/// once more against issue 15's 0.9, so that both verdicts are printed.
fn push_ratio(ratios: &mut Vec<Ratio>, r: Ratio, mode: Mode) {
    if mode == Mode::Colored {
        let mut first = r.clone();
        first.what = r.what.replace(
            "colored, ours / C (median of A/B pairs)",
            "colored, ours / C against issue 15's 0.9 (median of A/B pairs)",
        );
        first.target = 0.9;
        ratios.push(first);
    }
    ratios.push(r);
}

/// The kinds' rows, sequential then colored per kind:
/// `XPBD_BENCH_ONLY=kinds` runs all four; `bend`, `tet`, `tether` or `mesh`
/// runs one.
pub(crate) fn kinds_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
    want: &dyn Fn(&str) -> bool,
) -> Result<(), String> {
    let all = want("kinds");
    if all || want("bend") {
        let scene = BendScene::new(s)?;
        for mode in [Mode::Sequential, Mode::Colored] {
            push_ratio(ratios, scene.row(s, figs, mode)?, mode);
        }
    }
    if all || want("tet") {
        let scene = TetScene::new(s)?;
        for mode in [Mode::Sequential, Mode::Colored] {
            push_ratio(ratios, scene.row(s, figs, mode)?, mode);
        }
    }
    if all || want("tether") {
        let scene = TetherScene::new(s)?;
        for mode in [Mode::Sequential, Mode::Colored] {
            push_ratio(ratios, scene.row(s, figs, mode)?, mode);
        }
    }
    if all || want("mesh") {
        let scene = MeshScene::new(s)?;
        for mode in [Mode::Sequential, Mode::Colored] {
            push_ratio(ratios, scene.row(s, figs, mode)?, mode);
        }
    }
    Ok(())
}
