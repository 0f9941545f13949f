//! Honest references (issue 19, item 3): our rope and cloth kernels timed
//! in rotation with the plain C a good engineer would write for the same
//! work, in the same process (`XPBD_BENCH_ONLY=refs`).
//!
//! - Colored: our colored SoA sweep against the plain red-black kernels of
//!   `bench/c/redblack.c` (rope: implicit indices, even links then odd
//!   ones; cloth: per-link indices in our colored order), compiled at the
//!   x86-64 baseline and with `-march=native`. Both must end with our bits.
//! - Sequential (ropes): our Gauss-Seidel sweep against plain C in its own
//!   layout (`plain_seq_sweep_*`: link arrays, α̃ precomputed; our bits)
//!   and against PositionBasedDynamics' `XPBD::solve_DistanceConstraint`
//!   formula in plain C with that library's layout (`pbd_seq_sweep_*`;
//!   other roundings, compared within a tolerance).
//!
//! Every row is timed A B C A B C … ([`rotation`]): the ratio is the
//! median over the rounds of `time_C / time_ours` (> 1: ours faster) with
//! the range of the per-round ratios. `XPBD_BENCH_ICOUNT` runs the kernels
//! for instruction counts instead (see [`crate::icount`]).

use std::hint::black_box;

use xpbd::{Link, Real, SimdLinks, Soa, System};

use crate::links::{bench_isa, cloth_scene, rope_scene, Plan, Scene};
use crate::report::{pair_ratio, Ratio};
use crate::timing::{bits, rotation, soa_bits, soa_of, sweeps_for, Figure, Pair, Settings, H};

/// The red-black C copy: `-march` level it was compiled with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isa {
    /// No `-march`: the x86-64 baseline (SSE2), as the Rust code.
    Base,
    /// `-march=native`.
    Native,
    /// `-march=x86-64-v3` (AVX2, no AVX-512: valgrind decodes it).
    V3,
}

/// One link of PositionBasedDynamics' layout (`PbdDistanceF64`/`F32` in
/// `bench/c/sequential.c`): body indices, rest length, stiffness
/// (1 / compliance), λ.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct PbdLink<T> {
    pub(crate) bodies: [u32; 2],
    pub(crate) rest_length: T,
    pub(crate) stiffness: T,
    pub(crate) lambda: T,
}

macro_rules! rb_extern {
    ($($rope:ident, $links:ident, $grid:ident, $t:ty;)*) => {
        extern "C" {
            $(
                fn $rope(
                    x: *mut $t, y: *mut $t, z: *mut $t, w: *const $t,
                    rest: *const $t, alpha: *const $t, g: *const $t, lambda: *mut $t,
                    links: usize,
                );
                fn $links(
                    x: *mut $t, y: *mut $t, z: *mut $t, w: *const $t,
                    li: *const u32, lj: *const u32,
                    rest: *const $t, alpha: *const $t, g: *const $t, lambda: *mut $t,
                    starts: *const usize, colors: usize,
                );
                fn $grid(
                    x: *mut $t, y: *mut $t, z: *mut $t, w: *const $t,
                    rest: *const $t, alpha: *const $t, g: *const $t, lambda: *mut $t,
                    rows: usize, cols: usize,
                );
            )*
        }
    };
}

rb_extern! {
    rb_base_rope_f64, rb_base_links_f64, rb_base_grid_f64, f64;
    rb_native_rope_f64, rb_native_links_f64, rb_native_grid_f64, f64;
    rb_v3_rope_f64, rb_v3_links_f64, rb_v3_grid_f64, f64;
    rb_base_rope_f32, rb_base_links_f32, rb_base_grid_f32, f32;
    rb_native_rope_f32, rb_native_links_f32, rb_native_grid_f32, f32;
    rb_v3_rope_f32, rb_v3_links_f32, rb_v3_grid_f32, f32;
}

extern "C" {
    fn plain_seq_sweep_f64(
        x: *mut [f64; 3],
        w: *const f64,
        li: *const u32,
        lj: *const u32,
        rest: *const f64,
        alpha: *const f64,
        lambda: *mut f64,
        n: usize,
    );
    fn plain_seq_sweep_f32(
        x: *mut [f32; 3],
        w: *const f32,
        li: *const u32,
        lj: *const u32,
        rest: *const f32,
        alpha: *const f32,
        lambda: *mut f32,
        n: usize,
    );
    fn pbd_seq_sweep_f64(x: *mut [f64; 3], w: *const f64, c: *mut PbdLink<f64>, n: usize, dt: f64);
    fn pbd_seq_sweep_f32(x: *mut [f32; 3], w: *const f32, c: *mut PbdLink<f32>, n: usize, dt: f32);
}

/// The SoA particles of one side: x, y, z.
pub(crate) struct Xyz<T> {
    pub(crate) x: Vec<T>,
    pub(crate) y: Vec<T>,
    pub(crate) z: Vec<T>,
}

impl<T: Real> Xyz<T> {
    pub(crate) fn of(scene: &Scene<T>) -> Self {
        let [x, y, z] = soa_of(&scene.x);
        Xyz { x, y, z }
    }
    pub(crate) fn bits(&self) -> Vec<u64> {
        soa_bits(&self.x, &self.y, &self.z)
    }
}

/// The plain C kernels of one precision.
pub(crate) trait PlainC: Real {
    /// One red-black sweep of a rope (link k joins k and k + 1; `p` in
    /// our colored order, even links then odd ones).
    fn rb_rope(isa: Isa, p: &mut Xyz<Self>, w: &[Self], plan: &Plan<Self>, lambda: &mut [Self]);
    /// One red-black sweep of a `rows` × `cols` cloth with shear links,
    /// indices implicit (`plan` in `cloth_coloring`'s order).
    fn rb_grid(
        isa: Isa,
        p: &mut Xyz<Self>,
        w: &[Self],
        plan: &Plan<Self>,
        lambda: &mut [Self],
        grid: (usize, usize),
    );
    /// One red-black sweep over per-link indices, colors as `plan.starts`.
    fn rb_links(isa: Isa, p: &mut Xyz<Self>, w: &[Self], plan: &Plan<Self>, lambda: &mut [Self]);
    /// One sequential sweep, plain C layout (`seq` arrays).
    fn plain_seq(x: &mut [[Self; 3]], w: &[Self], seq: &mut SeqLinks<Self>);
    /// One sequential sweep, PositionBasedDynamics' formula and layout.
    fn pbd_seq(x: &mut [[Self; 3]], w: &[Self], links: &mut [PbdLink<Self>], dt: Self);
}

/// Sequential links as separate arrays (the plain C layout).
pub(crate) struct SeqLinks<T> {
    pub(crate) i: Vec<u32>,
    pub(crate) j: Vec<u32>,
    pub(crate) rest: Vec<T>,
    pub(crate) alpha: Vec<T>,
    pub(crate) lambda: Vec<T>,
}

impl<T: Real> SeqLinks<T> {
    /// α̃ = compliance / h² per link, as our sequential sweep computes it.
    pub(crate) fn new(links: &[Link<T>], h: T) -> Self {
        let h2 = h * h;
        SeqLinks {
            i: links.iter().map(|l| l.i).collect(),
            j: links.iter().map(|l| l.j).collect(),
            rest: links.iter().map(|l| l.rest).collect(),
            alpha: links.iter().map(|l| l.compliance / h2).collect(),
            lambda: vec![T::ZERO; links.len()],
        }
    }
}

/// PositionBasedDynamics' constraints for `links` (stiffness = 1 / compliance).
pub(crate) fn pbd_links<T: Real>(links: &[Link<T>]) -> Vec<PbdLink<T>> {
    links
        .iter()
        .map(|l| PbdLink {
            bodies: [l.i, l.j],
            rest_length: l.rest,
            stiffness: T::ONE / l.compliance,
            lambda: T::ZERO,
        })
        .collect()
}

macro_rules! plain_c {
    ($t:ty, $seq:ident, $pbd:ident, [$($isa:path => $rope:ident, $links:ident, $grid:ident),*]) => {
        impl PlainC for $t {
            fn rb_rope(isa: Isa, p: &mut Xyz<$t>, w: &[$t], plan: &Plan<$t>, lambda: &mut [$t]) {
                let f = match isa { $($isa => $rope,)* };
                assert!(p.x.len() == plan.rest.len() + 1 && p.y.len() == p.x.len()
                    && p.z.len() == p.x.len() && w.len() == p.x.len()
                    && plan.alpha.len() == plan.rest.len() && plan.g.len() == plan.rest.len()
                    && lambda.len() == plan.rest.len());
                // SAFETY: a rope of `rest.len()` links over `rest.len() + 1`
                // particles; every array has the length checked above.
                unsafe {
                    f(p.x.as_mut_ptr(), p.y.as_mut_ptr(), p.z.as_mut_ptr(), w.as_ptr(),
                      plan.rest.as_ptr(), plan.alpha.as_ptr(), plan.g.as_ptr(),
                      lambda.as_mut_ptr(), plan.rest.len())
                }
            }
            fn rb_grid(isa: Isa, p: &mut Xyz<$t>, w: &[$t], plan: &Plan<$t>, lambda: &mut [$t],
                       (rows, cols): (usize, usize)) {
                let f = match isa { $($isa => $grid,)* };
                let n = p.x.len();
                assert!(rows >= 2 && cols >= 2 && rows * cols == n && p.y.len() == n
                    && p.z.len() == n && w.len() == n
                    && xpbd::cloth_link_count(rows, cols, true) == Some(plan.rest.len())
                    && plan.alpha.len() == plan.rest.len() && plan.g.len() == plan.rest.len()
                    && lambda.len() == plan.rest.len());
                // SAFETY: a rows × cols cloth with shear links: its
                // particle and link counts checked above.
                unsafe {
                    f(p.x.as_mut_ptr(), p.y.as_mut_ptr(), p.z.as_mut_ptr(), w.as_ptr(),
                      plan.rest.as_ptr(), plan.alpha.as_ptr(), plan.g.as_ptr(),
                      lambda.as_mut_ptr(), rows, cols)
                }
            }
            fn rb_links(isa: Isa, p: &mut Xyz<$t>, w: &[$t], plan: &Plan<$t>, lambda: &mut [$t]) {
                let f = match isa { $($isa => $links,)* };
                let n = p.x.len();
                assert!(p.y.len() == n && p.z.len() == n && w.len() == n
                    && plan.i.iter().chain(&plan.j).all(|&v| (v as usize) < n)
                    && plan.starts.last() == Some(&plan.rest.len())
                    && lambda.len() == plan.rest.len());
                // SAFETY: every index below the particle count (checked),
                // the colors' ranges within the link arrays.
                unsafe {
                    f(p.x.as_mut_ptr(), p.y.as_mut_ptr(), p.z.as_mut_ptr(), w.as_ptr(),
                      plan.i.as_ptr(), plan.j.as_ptr(), plan.rest.as_ptr(),
                      plan.alpha.as_ptr(), plan.g.as_ptr(), lambda.as_mut_ptr(),
                      plan.starts.as_ptr(), plan.starts.len() - 1)
                }
            }
            fn plain_seq(x: &mut [[$t; 3]], w: &[$t], s: &mut SeqLinks<$t>) {
                let n = s.rest.len();
                assert!(w.len() == x.len()
                    && s.i.iter().chain(&s.j).all(|&v| (v as usize) < x.len())
                    && s.i.len() == n && s.j.len() == n && s.alpha.len() == n
                    && s.lambda.len() == n);
                // SAFETY: indices below the particle count, arrays of n links.
                unsafe {
                    $seq(x.as_mut_ptr(), w.as_ptr(), s.i.as_ptr(), s.j.as_ptr(),
                         s.rest.as_ptr(), s.alpha.as_ptr(), s.lambda.as_mut_ptr(), n)
                }
            }
            fn pbd_seq(x: &mut [[$t; 3]], w: &[$t], links: &mut [PbdLink<$t>], dt: $t) {
                assert!(w.len() == x.len()
                    && links.iter().all(|l| l.bodies.iter().all(|&v| (v as usize) < x.len())));
                // SAFETY: indices below the particle count (checked).
                unsafe { $pbd(x.as_mut_ptr(), w.as_ptr(), links.as_mut_ptr(), links.len(), dt) }
            }
        }
    };
}

plain_c!(f64, plain_seq_sweep_f64, pbd_seq_sweep_f64, [
    Isa::Base => rb_base_rope_f64, rb_base_links_f64, rb_base_grid_f64,
    Isa::Native => rb_native_rope_f64, rb_native_links_f64, rb_native_grid_f64,
    Isa::V3 => rb_v3_rope_f64, rb_v3_links_f64, rb_v3_grid_f64
]);
plain_c!(f32, plain_seq_sweep_f32, pbd_seq_sweep_f32, [
    Isa::Base => rb_base_rope_f32, rb_base_links_f32, rb_base_grid_f32,
    Isa::Native => rb_native_rope_f32, rb_native_links_f32, rb_native_grid_f32,
    Isa::V3 => rb_v3_rope_f32, rb_v3_links_f32, rb_v3_grid_f32
]);

/// The colored plan with α̃ and g as our `begin_substep` computes them
/// (for the C sides, which read them) and λ = 0.
pub(crate) fn substep_plan<T: Real>(scene: &Scene<T>) -> Result<Plan<T>, String> {
    let mut plan = Plan::new(scene)?;
    let mut p = Xyz::of(scene);
    let mut stamp = vec![0u32; scene.x.len()];
    let mut sys = SimdLinks::new(
        Soa {
            x: &mut p.x,
            y: &mut p.y,
            z: &mut p.z,
            w: &scene.w,
        },
        plan.links(),
        &mut stamp,
    )
    .map_err(|e| e.to_string())?;
    sys.begin_substep(T::from_f64(H))
        .map_err(|e| e.to_string())?;
    Ok(plan)
}

/// Fails unless the plan's links are a rope's in even-then-odd order
/// (slot t of color c joins particles 2t + c and 2t + c + 1), the
/// implicit indices of `rb_rope`.
pub(crate) fn check_rope_order<T>(plan: &Plan<T>) -> Result<(), String> {
    let links = plan.i.len();
    let even = links.div_ceil(2);
    let ok = plan.starts[..] == [0, even, links][..plan.starts.len().min(3)]
        && (0..links).all(|k| {
            let (c, t) = if k < even { (0, k) } else { (1, k - even) };
            plan.i[k] as usize == 2 * t + c && plan.j[k] as usize == 2 * t + c + 1
        });
    if ok {
        Ok(())
    } else {
        Err("rope links are not in even-then-odd order".into())
    }
}

/// The red-black C sides of a colored row: (figure label, ratio label,
/// target, ISA, per-link indices rather than implicit ones).
type Side = (&'static str, &'static str, f64, Isa, bool);

/// Our colored SoA sweep against the red-black C at the baseline and at
/// `-march=native` (implicit indices: a rope, or the cloth of `grid` =
/// (rows, cols)); for the cloth also the per-link index kernel at both
/// levels (context). All in rotation; all must end with the same bits.
fn colored_rows<T: PlainC>(
    s: &Settings,
    scene: &Scene<T>,
    grid: Option<(usize, usize)>,
    name: &str,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let m = scene.links.len();
    let sweeps = sweeps_for(s, m);
    let cplan = substep_plan(scene)?;
    if grid.is_none() {
        check_rope_order(&cplan)?;
    }
    let implicit: &[Side] = &[
        (
            "C red-black baseline",
            "colored SoA, ours / C red-black baseline",
            1.0,
            Isa::Base,
            false,
        ),
        (
            "C red-black -march=native",
            "colored SoA, ours / C red-black -march=native",
            1.0,
            Isa::Native,
            false,
        ),
    ];
    let indexed: &[Side] = &[
        (
            "C red-black per-link indices baseline",
            "colored SoA, ours / C red-black per-link indices baseline",
            0.0,
            Isa::Base,
            true,
        ),
        (
            "C red-black per-link indices -march=native",
            "colored SoA, ours / C red-black per-link indices -march=native",
            0.0,
            Isa::Native,
            true,
        ),
    ];
    let sides: Vec<Side> = match grid {
        None => implicit.to_vec(),
        Some(_) => implicit.iter().chain(indexed).copied().collect(),
    };
    let mut plan = Plan::new(scene)?;
    let mut ours = Xyz::of(scene);
    let mut stamp = vec![0u32; scene.x.len()];
    let mut sys = SimdLinks::new_with_isa(
        Soa {
            x: &mut ours.x,
            y: &mut ours.y,
            z: &mut ours.z,
            w: &scene.w,
        },
        plan.links(),
        &mut stamp,
        bench_isa(),
    )
    .map_err(|e| e.to_string())?;
    let mut sub = sys
        .begin_substep(T::from_f64(H))
        .map_err(|e| e.to_string())?;
    let mut err = None;
    let mut states: Vec<(Xyz<T>, Vec<T>)> = sides
        .iter()
        .map(|_| (Xyz::of(scene), vec![T::ZERO; m]))
        .collect();
    let cplan = &cplan;
    let mut c_fns: Vec<Box<dyn FnMut() + '_>> = sides
        .iter()
        .zip(&mut states)
        .map(|(&(_, _, _, isa, per_link), (p, lambda))| {
            Box::new(move || {
                for _ in 0..sweeps {
                    let p = black_box(&mut *p);
                    match (grid, per_link) {
                        (None, false) => T::rb_rope(isa, p, &scene.w, cplan, lambda),
                        (Some(g), false) => T::rb_grid(isa, p, &scene.w, cplan, lambda, g),
                        (_, true) => T::rb_links(isa, p, &scene.w, cplan, lambda),
                    }
                }
            }) as Box<dyn FnMut()>
        })
        .collect();
    let mut ours_fn = || {
        for _ in 0..sweeps {
            if let Err(e) = black_box(&mut sub).iterate() {
                err = Some(e);
            }
        }
    };
    let mut all: Vec<&mut dyn FnMut()> = vec![&mut ours_fn];
    all.extend(c_fns.iter_mut().map(|f| &mut **f as &mut dyn FnMut()));
    let pairs = rotation(s.reps, sweeps * m, &mut all);
    drop(all);
    drop(c_fns);
    if let Some(e) = err {
        return Err(format!("{name}: {e}"));
    }
    let ours_bits = ours.bits();
    let lambda = bits(plan.lambda.iter().copied());
    for ((label, ..), (p, l)) in sides.iter().zip(&states) {
        if p.bits() != ours_bits || bits(l.iter().copied()) != lambda {
            return Err(format!("{name}: our colored sweep and the {label} differ"));
        }
    }
    let ours_label = "Rust colored SoA (rotation)";
    if let Some(p) = pairs.first() {
        figs.push(Figure {
            case: format!("{name} {ours_label}"),
            per_second: p.a.0,
            ns: p.a.1,
        });
    }
    for (&(case, what, target, ..), p) in sides.iter().zip(&pairs) {
        figs.push(Figure {
            case: format!("{name} {case}"),
            per_second: p.b.0,
            ns: p.b.1,
        });
        ratios.push(pair_ratio(
            format!("{name}: {what} (median of rounds)"),
            p,
            target,
        ));
    }
    Ok(())
}

/// Our sequential sweep against the plain C Gauss-Seidel (our bits) and
/// the PositionBasedDynamics formula (within a tolerance), in rotation.
fn sequential_rows<T: PlainC>(
    s: &Settings,
    scene: &Scene<T>,
    name: &str,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let m = scene.links.len();
    let sweeps = sweeps_for(s, m);
    let h = T::from_f64(H);
    let mut x = scene.x.clone();
    let mut links = scene.links.clone();
    let mut sys = System::new(&mut x, &scene.w, &mut links).map_err(|e| e.to_string())?;
    let mut sub = sys.begin_substep(h).map_err(|e| e.to_string())?;
    let mut err = None;
    let (mut px, mut seq) = (scene.x.clone(), SeqLinks::new(&scene.links, h));
    let (mut bx, mut pbd) = (scene.x.clone(), pbd_links(&scene.links));
    let pairs = rotation(
        s.reps,
        sweeps * m,
        &mut [
            &mut || {
                for _ in 0..sweeps {
                    if let Err(e) = black_box(&mut sub).iterate() {
                        err = Some(e);
                    }
                }
            },
            &mut || {
                for _ in 0..sweeps {
                    T::plain_seq(black_box(&mut px), &scene.w, &mut seq);
                }
            },
            &mut || {
                for _ in 0..sweeps {
                    T::pbd_seq(black_box(&mut bx), &scene.w, &mut pbd, h);
                }
            },
        ],
    );
    if let Some(e) = err {
        return Err(format!("{name}: {e}"));
    }
    let ours = bits(sys.positions().iter().flatten().copied());
    if ours != bits(px.iter().flatten().copied()) {
        return Err(format!(
            "{name}: our sequential sweep and plain C GS differ"
        ));
    }
    let far = sys
        .positions()
        .iter()
        .flatten()
        .zip(bx.iter().flatten())
        .map(|(a, b)| (a.to_f64() - b.to_f64()).abs())
        .fold(0.0_f64, |m, d| {
            if m.is_nan() || d.is_nan() {
                f64::NAN
            } else {
                m.max(d)
            }
        });
    // Same scene, same sweeps, other roundings: the PBD formula must end
    // where ours does, to the precision's accuracy (the ropes are 10 m to
    // 10 km long: 1e-6 of the length, f32 1e-2).
    let length = scene.x.last().map_or(1.0, |p| p[0].to_f64());
    let single = T::MIN_POSITIVE.to_f64() > 1e-300;
    let tolerance = if single { 1e-2 } else { 1e-6 } * length;
    println!("{name}: PositionBasedDynamics formula ends {far:.3e} m from ours (tolerance {tolerance:.1e} m)");
    if far.is_nan() || far > tolerance {
        return Err(format!(
            "{name}: the PositionBasedDynamics formula ends {far:e} m from ours"
        ));
    }
    push_rows(
        figs,
        ratios,
        name,
        "Rust sequential (rotation)",
        &[
            (
                "C plain Gauss-Seidel",
                "sequential, ours / C plain Gauss-Seidel",
            ),
            (
                "C PositionBasedDynamics formula",
                "sequential, ours / C PositionBasedDynamics formula",
            ),
        ],
        &pairs,
    );
    Ok(())
}

/// The figures and ratio lines (target 1.0) of one rotation.
fn push_rows(
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
    name: &str,
    ours: &str,
    refs: &[(&str, &str)],
    pairs: &[Pair],
) {
    if let Some(p) = pairs.first() {
        figs.push(Figure {
            case: format!("{name} {ours}"),
            per_second: p.a.0,
            ns: p.a.1,
        });
    }
    for ((case, what), p) in refs.iter().zip(pairs) {
        figs.push(Figure {
            case: format!("{name} {case}"),
            per_second: p.b.0,
            ns: p.b.1,
        });
        ratios.push(pair_ratio(
            format!("{name}: {what} (median of rounds)"),
            p,
            1.0,
        ));
    }
}

/// The rope sizes of the run (as the rope section: `XPBD_BENCH_ROPE_SIZES`).
pub(crate) fn rope_sizes(s: &Settings) -> Result<Vec<usize>, String> {
    match std::env::var("XPBD_BENCH_ROPE_SIZES") {
        Ok(v) => v
            .split(',')
            .map(|x| {
                x.trim()
                    .parse::<usize>()
                    .map_err(|e| format!("XPBD_BENCH_ROPE_SIZES: {e}"))
            })
            .collect(),
        Err(_) if s.quick => Ok(vec![1_000, 10_000]),
        Err(_) => Ok(vec![1_000, 100_000, 1_000_000]),
    }
}

/// Ropes (1k, 100k, 1M links) and the 1000 × 1000 cloth, f64 and f32:
/// colored against red-black C, sequential against plain C and the PBD
/// formula.
pub(crate) fn refs_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    println!(
        "refs: our colored kernels at {:?} (XPBD_BENCH_ISA_MASK=0: the SSE2 baseline, the C baseline's ISA)",
        bench_isa()
    );
    for n in rope_sizes(s)? {
        let scene = rope_scene::<f64>(n)?;
        let name = format!("rope {n} links f64");
        colored_rows(s, &scene, None, &name, figs, ratios)?;
        sequential_rows(s, &scene, &name, figs, ratios)?;
        drop(scene);
        let scene = rope_scene::<f32>(n)?;
        let name = format!("rope {n} links f32");
        colored_rows(s, &scene, None, &name, figs, ratios)?;
        sequential_rows(s, &scene, &name, figs, ratios)?;
    }
    let (rows, cols) = if s.quick { (100, 100) } else { (1000, 1000) };
    let scene = cloth_scene::<f64>(rows, cols)?;
    let name = format!("cloth {rows}x{cols} ({} links) f64", scene.links.len());
    colored_rows(s, &scene, Some((rows, cols)), &name, figs, ratios)?;
    drop(scene);
    let scene = cloth_scene::<f32>(rows, cols)?;
    let name = format!("cloth {rows}x{cols} f32");
    colored_rows(s, &scene, Some((rows, cols)), &name, figs, ratios)
}
