//! Self-collision (issue 18): hash build, pair query and one solve sweep,
//! per particle, against a plain C spatial hash of the same design
//! (`bench/c/spatial.c`) in the same run.
//!
//! **Scene.** A slab of four layers of particles (a cloth folded twice and
//! stacked, or a granular layer), each layer a square grid, every spacing
//! `2r` (r = 5 mm), positions jittered by up to ±0.05 r per coordinate and
//! velocities up to ±0.1 r/h per coordinate (a deterministic generator): no
//! links, unit masses, no gravity, no friction, contact compliance 1e-9
//! m/N. Every particle has neighbours closer than the contact distance
//! `2r (1 + 1/64)` and about 13 within the query distance `q = 4r`. Sizes:
//! `50·50·4 = 10⁴`, `158·158·4 ≈ 10⁵`, `500·500·4 = 10⁶` particles
//! (quick mode: 1 024 and 4 096).
//!
//! **What is timed.** Ours is the public `xpbd::step` of one frame with one
//! substep of one iteration and only self-collision on: the way a caller
//! gets the hash, the query and the solve, with the step's own overheads
//! (validation, the rollback copy, finiteness checks, the adjacency of no
//! links, the velocity update). C (`spatial_step_f64` / `_f32`) does the
//! same substep as a bare loop: `x_prev`, prediction, the displacement
//! bound, hash build, query, one Gauss-Seidel sweep over the pairs, the
//! velocity update — in xpbd's order and arithmetic, so positions,
//! velocities and the pairs (indices and λ) must be equal bit for bit
//! (checked at every size, after the warm-up call of each side). Timing
//! the public step rather than the internal functions keeps the figure
//! honest: it is what a caller pays, and the internals are not public.
//!
//! Each timed call starts from the same scene (the copy back is not
//! timed), ours and C alternate (A B A B …), the figure of each is the
//! best of its calls, the ratio is the median of the per-pair ratios
//! `t_C / t_ours` (> 1: ours faster), printed with its range.

use std::time::Instant;

use xpbd::step::{
    scratch_len, self_collision_adjacency_len, self_collision_table_len, step, ParticleContact,
    SelfCollision, StepConfig, World,
};
use xpbd::Real;

use crate::report::{pair_ratio, Ratio};
use crate::timing::{bits, Figure, Pair, Settings, H};

extern "C" {
    #[allow(clippy::too_many_arguments)]
    fn spatial_step_f64(
        x: *mut [f64; 3],
        v: *mut [f64; 3],
        w: *const f64,
        n: usize,
        prev: *mut [f64; 3],
        table: *mut u32,
        ids: *mut u32,
        pairs: *mut ParticleContact<f64>,
        cap: usize,
        h: f64,
        r: f64,
        compliance: f64,
        g: *const f64,
    ) -> usize;
    #[allow(clippy::too_many_arguments)]
    fn spatial_step_f32(
        x: *mut [f32; 3],
        v: *mut [f32; 3],
        w: *const f32,
        n: usize,
        prev: *mut [f32; 3],
        table: *mut u32,
        ids: *mut u32,
        pairs: *mut ParticleContact<f32>,
        cap: usize,
        h: f32,
        r: f32,
        compliance: f32,
        g: *const f32,
    ) -> usize;
}

/// Particle radius (m).
const R: f64 = 0.005;
/// Layers of the slab.
const LAYERS: usize = 4;
/// Contact compliance (m/N).
const COMPLIANCE: f64 = 1e-9;

/// A float type with its C substep.
trait CStep: Real {
    /// Name in the rows.
    const NAME: &'static str;
    /// The C substep (see `bench/c/spatial.c`); returns the pairs found.
    fn c_step(b: &mut CBuffers<Self>, w: &[Self], h: Self, r: Self) -> usize;
}

/// The C side's memory.
struct CBuffers<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    prev: Vec<[T; 3]>,
    table: Vec<u32>,
    ids: Vec<u32>,
    pairs: Vec<ParticleContact<T>>,
}

impl CStep for f64 {
    const NAME: &'static str = "f64";
    fn c_step(b: &mut CBuffers<f64>, w: &[f64], h: f64, r: f64) -> usize {
        assert!(b.table.len() > 2 * w.len() + 1 && b.ids.len() >= w.len());
        // SAFETY: every buffer holds what the C loop indexes (n particles,
        // 2n + 2 table entries, n ids, `cap` pairs), checked above and by
        // construction; the C reads only indices it wrote or was given.
        unsafe {
            spatial_step_f64(
                b.x.as_mut_ptr(),
                b.v.as_mut_ptr(),
                w.as_ptr(),
                w.len(),
                b.prev.as_mut_ptr(),
                b.table.as_mut_ptr(),
                b.ids.as_mut_ptr(),
                b.pairs.as_mut_ptr(),
                b.pairs.len(),
                h,
                r,
                COMPLIANCE,
                [0.0; 3].as_ptr(),
            )
        }
    }
}

impl CStep for f32 {
    const NAME: &'static str = "f32";
    fn c_step(b: &mut CBuffers<f32>, w: &[f32], h: f32, r: f32) -> usize {
        assert!(b.table.len() > 2 * w.len() + 1 && b.ids.len() >= w.len());
        // SAFETY: as for f64.
        unsafe {
            spatial_step_f32(
                b.x.as_mut_ptr(),
                b.v.as_mut_ptr(),
                w.as_ptr(),
                w.len(),
                b.prev.as_mut_ptr(),
                b.table.as_mut_ptr(),
                b.ids.as_mut_ptr(),
                b.pairs.as_mut_ptr(),
                b.pairs.len(),
                h,
                r,
                COMPLIANCE as f32,
                [0.0f32; 3].as_ptr(),
            )
        }
    }
}

/// The slab of `side × side × LAYERS` particles: positions and velocities.
fn scene<T: Real>(side: usize) -> (Vec<[T; 3]>, Vec<[T; 3]>) {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = move || {
        // xorshift64*, uniform in [-1, 1).
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        let u = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        u as f64 / (1u64 << 52) as f64 - 1.0
    };
    let n = side * side * LAYERS;
    let mut x = Vec::with_capacity(n);
    let mut v = Vec::with_capacity(n);
    for k in 0..n {
        let grid = [k % side, (k / side) % side, k / (side * side)];
        x.push(grid.map(|g| T::from_f64(2.0 * R * g as f64 + 0.05 * R * rand())));
        v.push([(); 3].map(|()| T::from_f64(0.1 * R / H * rand())));
    }
    (x, v)
}

/// Runs one size: checks ours against C, times them, returns the pair.
fn one_size<T: CStep>(
    s: &Settings,
    side: usize,
    figs: &mut Vec<Figure>,
) -> Result<(usize, usize, Pair), String> {
    let (x0, v0) = scene::<T>(side);
    let n = x0.len();
    let w = vec![T::ONE; n];
    let cap = 16 * n;
    let (h, r) = (T::from_f64(H), T::from_f64(R));
    let mut config = StepConfig::new([T::ZERO; 3]);
    config.substeps = 1;
    config.iterations = 1;
    config.particle_radius = r;
    config.contact_compliance = T::from_f64(COMPLIANCE);

    // Ours: the caller's memory of a world with self-collision only.
    let (mut x, mut v) = (x0.clone(), v0.clone());
    let mut scratch = vec![[T::ZERO; 3]; scratch_len(n, 0)];
    let mut pairs = vec![ParticleContact::default(); cap];
    let mut table = vec![0u32; self_collision_table_len(n)];
    let mut ids = vec![0u32; n];
    let mut adjacency = vec![0u32; self_collision_adjacency_len(n, 0)];
    let mut world = World::new(&mut x, &mut v, &w, &mut [], &mut scratch);
    world.self_collision = Some(SelfCollision {
        pairs: &mut pairs,
        table: &mut table,
        ids: &mut ids,
        adjacency: &mut adjacency,
        rest: &[],
    });
    let mut c = CBuffers {
        x: x0.clone(),
        v: v0.clone(),
        prev: vec![[T::ZERO; 3]; n],
        table: vec![0u32; self_collision_table_len(n)],
        ids: vec![0u32; n],
        pairs: vec![ParticleContact::default(); cap],
    };

    // Equal work: one call of each from the scene, then the bits.
    let ours_pairs = step(&mut world, h, &config)
        .map_err(|e| format!("self {side}: step failed: {e}"))?
        .max_pairs;
    let c_pairs = T::c_step(&mut c, &w, h, r);
    let what = format!("self {} n = {n}", T::NAME);
    if ours_pairs != c_pairs || c_pairs > cap {
        return Err(format!("{what}: {ours_pairs} pairs, C {c_pairs}"));
    }
    let pair_bits = |p: &[ParticleContact<T>]| -> Vec<(u32, u32, u64)> {
        p.iter()
            .map(|p| (p.i, p.j, p.lambda.to_f64().to_bits()))
            .collect()
    };
    if bits(world.positions.iter().flatten().copied()) != bits(c.x.iter().flatten().copied())
        || bits(world.velocities.iter().flatten().copied()) != bits(c.v.iter().flatten().copied())
        || pair_bits(
            world
                .self_collision
                .as_ref()
                .map_or(&[][..], |sc| &sc.pairs[..ours_pairs]),
        ) != pair_bits(&c.pairs[..c_pairs])
    {
        return Err(format!("{what}: ours and C differ after one substep"));
    }
    let active = c.pairs[..c_pairs]
        .iter()
        .filter(|p| p.lambda > T::ZERO)
        .count();

    // A B A B from the scene each time; the copies are not timed.
    // 61 pairs at 10⁴ particles, 20 at 10⁵, 9 at 10⁶ (about a minute).
    let calls = if s.quick {
        3
    } else {
        (2_000_000 / n).clamp(9, 61)
    };
    let (mut best_a, mut best_b) = (f64::INFINITY, f64::INFINITY);
    let mut ratios = Vec::with_capacity(calls);
    for _ in 0..calls {
        world.positions.copy_from_slice(&x0);
        world.velocities.copy_from_slice(&v0);
        let t = Instant::now();
        let stats = step(&mut world, h, &config);
        let ta = t.elapsed().as_secs_f64();
        c.x.copy_from_slice(&x0);
        c.v.copy_from_slice(&v0);
        let t = Instant::now();
        let found = T::c_step(&mut c, &w, h, r);
        let tb = t.elapsed().as_secs_f64();
        if stats.map(|s| s.max_pairs) != Ok(found) {
            return Err(format!("{what}: pair counts differ in the timed calls"));
        }
        best_a = best_a.min(ta);
        best_b = best_b.min(tb);
        ratios.push(tb / ta);
    }
    ratios.sort_by(f64::total_cmp);
    let figure = |best: f64| {
        let ns = best * 1e9 / n as f64;
        (1e9 / ns, ns)
    };
    let pair = Pair {
        a: figure(best_a),
        b: figure(best_b),
        ratio: ratios[ratios.len() / 2],
        spread: (ratios[0], ratios[ratios.len() - 1]),
    };
    for (who, f) in [("Rust xpbd::step", pair.a), ("C spatial.c", pair.b)] {
        figs.push(Figure {
            case: format!("{what}: {who} (per particle)"),
            per_second: f.0,
            ns: f.1,
        });
    }
    println!(
        "{what}: {c_pairs} pairs ({:.2} per particle, {active} in contact), ours {:.1} ns/particle, C {:.1} ns/particle, ratio {:.3} ({:.3}–{:.3}, {calls} pairs)",
        c_pairs as f64 / n as f64,
        pair.a.1,
        pair.b.1,
        pair.ratio,
        pair.spread.0,
        pair.spread.1
    );
    Ok((n, c_pairs, pair))
}

/// The `self` section: every size, f64 then f32, and the linearity line.
pub(crate) fn self_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let sides: Vec<usize> = match std::env::var("XPBD_BENCH_SELF_SIDES") {
        Ok(v) => v
            .split(',')
            .map(|x| {
                x.trim()
                    .parse()
                    .map_err(|e| format!("XPBD_BENCH_SELF_SIDES: {e}"))
            })
            .collect::<Result<_, _>>()?,
        Err(_) if s.quick => vec![16, 32],
        Err(_) => vec![50, 158, 500],
    };
    let precisions: Vec<String> = match std::env::var("XPBD_BENCH_SELF_PRECISION") {
        Ok(v) => v.split(',').map(|x| x.trim().to_string()).collect(),
        Err(_) => vec!["f64".into(), "f32".into()],
    };
    println!("self-collision: hash build + query + one sweep, one substep of xpbd::step against bench/c/spatial.c");
    for precision in &precisions {
        let mut per_particle = Vec::new();
        for &side in &sides {
            let (n, _, pair) = match precision.as_str() {
                "f64" => one_size::<f64>(s, side, figs)?,
                "f32" => one_size::<f32>(s, side, figs)?,
                other => return Err(format!("XPBD_BENCH_SELF_PRECISION: {other}?")),
            };
            per_particle.push((n, pair.a.1, pair.b.1));
            ratios.push(pair_ratio(
                format!("self {precision} n = {n}: ours / C (median of A/B pairs)"),
                &pair,
                0.9,
            ));
        }
        if let (Some(first), Some(last)) = (per_particle.first(), per_particle.last()) {
            println!(
                "self {precision}: ns per particle from n = {} to n = {}: ours {:.1} → {:.1} (× {:.2}), C {:.1} → {:.1} (× {:.2})",
                first.0,
                last.0,
                first.1,
                last.1,
                last.1 / first.1,
                first.2,
                last.2,
                last.2 / first.2
            );
        }
    }
    Ok(())
}
