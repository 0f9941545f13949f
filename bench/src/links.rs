//! Distance links: 3D ropes and cloth, f64 and f32, our sequential sweep and
//! colored kernels against the C references (`ref_seq_sweep_*`,
//! `ref_colored_sweep_*`).

use std::hint::black_box;

use xpbd::ffi::{XpbdLink, XpbdLinkF32};
use xpbd::{
    cloth, cloth_coloring, cloth_link_count, color_order, fill_colored_links, rope, rope_coloring,
    Aos, ColoredLinks, Link, Real, SimdLinks, Soa, System,
};

use crate::report::{pair_ratio, ratio, Ratio};
use crate::timing::{
    bits, interleaved, median, placed, soa_bits, sweeps_for, time, Figure, Settings, H, PLACEMENTS,
};
use xpbd::colored::Isa;

extern "C" {
    fn ref_seq_sweep_f64(x: *mut [f64; 3], w: *const f64, links: *mut XpbdLink, n: usize, h: f64);
    fn ref_seq_sweep_f32(x: *mut [f32; 3], w: *const f32, l: *mut XpbdLinkF32, n: usize, h: f32);
    fn ref_colored_sweep_f64(
        x: *mut f64,
        y: *mut f64,
        z: *mut f64,
        w: *const f64,
        li: *const u32,
        lj: *const u32,
        rest: *const f64,
        alpha: *const f64,
        g: *const f64,
        lambda: *mut f64,
        starts: *const usize,
        colors: usize,
    );
    fn ref_colored_sweep_f32(
        x: *mut f32,
        y: *mut f32,
        z: *mut f32,
        w: *const f32,
        li: *const u32,
        lj: *const u32,
        rest: *const f32,
        alpha: *const f32,
        g: *const f32,
        lambda: *mut f32,
        starts: *const usize,
        colors: usize,
    );
}

/// A stretched, slightly bent scene: positions, inverse masses, links.
pub(crate) struct Scene<T> {
    pub(crate) x: Vec<[T; 3]>,
    pub(crate) w: Vec<T>,
    pub(crate) links: Vec<Link<T>>,
    pub(crate) colors: Vec<u32>,
    pub(crate) color_count: u32,
}

pub(crate) fn rope_scene<T: Real>(links: usize) -> Result<Scene<T>, String> {
    let n = links + 1;
    let x0: Vec<[T; 3]> = (0..n)
        .map(|k| [T::from_f64(k as f64 * 0.01), T::ZERO, T::ZERO])
        .collect();
    let mut l = vec![Link::default(); links];
    rope(&x0, T::from_f64(1e-6), &mut l).map_err(|e| e.to_string())?;
    let mut colors = vec![0; links];
    let color_count = rope_coloring(links, false, &mut colors).map_err(|e| e.to_string())?;
    let x = x0
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let s = T::from_f64(1.0 + 0.05 * ((k % 3) as f64));
            [
                p[0] * s,
                T::from_f64(0.002 * ((k % 5) as f64)),
                T::from_f64(0.001 * ((k % 7) as f64)),
            ]
        })
        .collect();
    let w = (0..n)
        .map(|k| if k == 0 { T::ZERO } else { T::ONE })
        .collect();
    Ok(Scene {
        x,
        w,
        links: l,
        colors,
        color_count,
    })
}

pub(crate) fn cloth_scene<T: Real>(rows: usize, cols: usize) -> Result<Scene<T>, String> {
    let x0: Vec<[T; 3]> = (0..rows * cols)
        .map(|k| {
            [
                T::from_f64((k % cols) as f64 * 0.01),
                T::from_f64((k / cols) as f64 * 0.01),
                T::ZERO,
            ]
        })
        .collect();
    let m = cloth_link_count(rows, cols, true).ok_or("cloth size")?;
    let mut l = vec![Link::default(); m];
    cloth(&x0, rows, cols, true, T::from_f64(1e-7), &mut l).map_err(|e| e.to_string())?;
    let mut colors = vec![0; m];
    let color_count = cloth_coloring(rows, cols, true, &mut colors).map_err(|e| e.to_string())?;
    let x = x0
        .iter()
        .enumerate()
        .map(|(k, p)| {
            [
                p[0] * T::from_f64(1.02),
                p[1] * T::from_f64(1.03),
                T::from_f64(0.001 * ((k % 11) as f64)),
            ]
        })
        .collect();
    let w = (0..rows * cols)
        .map(|k| if k < cols { T::ZERO } else { T::ONE })
        .collect();
    Ok(Scene {
        x,
        w,
        links: l,
        colors,
        color_count,
    })
}

/// Colored SoA link storage.
pub(crate) struct Plan<T> {
    pub(crate) order: Vec<u32>,
    pub(crate) starts: Vec<usize>,
    pub(crate) i: Vec<u32>,
    pub(crate) j: Vec<u32>,
    pub(crate) rest: Vec<T>,
    pub(crate) compliance: Vec<T>,
    pub(crate) lambda: Vec<T>,
    pub(crate) alpha: Vec<T>,
    pub(crate) g: Vec<T>,
}

impl<T: Real> Plan<T> {
    pub(crate) fn new(s: &Scene<T>) -> Result<Self, String> {
        let n = s.links.len();
        let mut p = Plan {
            order: vec![0; n],
            starts: vec![0; s.color_count as usize + 1],
            i: vec![0; n],
            j: vec![0; n],
            rest: vec![T::ZERO; n],
            compliance: vec![T::ZERO; n],
            lambda: vec![T::ZERO; n],
            alpha: vec![T::ZERO; n],
            g: vec![T::ZERO; n],
        };
        color_order(&s.colors, s.color_count, &mut p.starts, &mut p.order)
            .map_err(|e| e.to_string())?;
        fill_colored_links(
            &s.links,
            &p.order,
            &mut p.i,
            &mut p.j,
            &mut p.rest,
            &mut p.compliance,
            &mut p.lambda,
        )
        .map_err(|e| e.to_string())?;
        Ok(p)
    }
    pub(crate) fn links(&mut self) -> ColoredLinks<'_, T> {
        ColoredLinks {
            i: &self.i,
            j: &self.j,
            rest: &self.rest,
            compliance: &self.compliance,
            lambda: &mut self.lambda,
            alpha: &mut self.alpha,
            inv_denominator: &mut self.g,
            color_starts: &self.starts,
        }
    }
}

/// Sequential Gauss-Seidel: Rust `Substep::iterate` vs C `ref_seq_sweep`.
pub(crate) fn seq_case<T: Real + CRef>(
    s: &Settings,
    scene: &Scene<T>,
    out: &mut Vec<Figure>,
    name: &str,
) -> Result<(f64, f64), String> {
    let sweeps = sweeps_for(s, scene.links.len());
    let solves = sweeps * scene.links.len();
    let h = T::from_f64(H);
    // Rust.
    let mut x = scene.x.clone();
    let mut links = scene.links.clone();
    let mut sys = System::new(&mut x, &scene.w, &mut links).map_err(|e| e.to_string())?;
    let mut sub = sys.begin_substep(h).map_err(|e| e.to_string())?;
    let mut err = None;
    let (rps, rns) = time(s.reps, solves, || {
        for _ in 0..sweeps {
            if let Err(e) = black_box(&mut sub).iterate() {
                err = Some(e);
            }
        }
    });
    if let Some(e) = err {
        return Err(format!("{name}: {e}"));
    }
    let rust_bits = bits(sub.positions().iter().flatten().copied());
    // C.
    let mut cx = scene.x.clone();
    let mut cl = scene.links.clone();
    for l in &mut cl {
        l.lambda = T::ZERO;
    }
    let (cps, cns) = time(s.reps, solves, || {
        for _ in 0..sweeps {
            T::seq(&mut cx, &scene.w, &mut cl, h);
        }
    });
    if rust_bits != bits(cx.iter().flatten().copied()) {
        return Err(format!("{name}: Rust and C sequential results differ"));
    }
    out.push(Figure {
        case: format!("{name} Rust sequential"),
        per_second: rps,
        ns: rns,
    });
    out.push(Figure {
        case: format!("{name} C sequential"),
        per_second: cps,
        ns: cns,
    });
    Ok((rps, cps))
}

/// Colored: Rust SoA and AoS kernels vs the C colored SoA kernel.
pub(crate) fn colored_case<T: Real + CRef>(
    s: &Settings,
    scene: &Scene<T>,
    out: &mut Vec<Figure>,
    name: &str,
) -> Result<(f64, f64, f64), String> {
    let m = scene.links.len();
    let sweeps = sweeps_for(s, m);
    let solves = sweeps * m;
    let h = T::from_f64(H);
    let mut plan = Plan::new(scene)?;
    let n = scene.x.len();
    let mut stamp = vec![0u32; n];
    let placements = if s.quick {
        &PLACEMENTS[..1]
    } else {
        &PLACEMENTS[..]
    };
    // Rust SoA, once per placement of the particle arrays.
    let mut rust = Vec::new();
    let mut soa_result = None;
    for pl in placements {
        let [mut bx, mut by, mut bz] = placed(&scene.x, pl);
        let (x, y, z) = (&mut bx[pl[0]..], &mut by[pl[1]..], &mut bz[pl[2]..]);
        let mut sys = SimdLinks::new_with_isa(
            Soa {
                x: &mut *x,
                y: &mut *y,
                z: &mut *z,
                w: &scene.w,
            },
            plan.links(),
            &mut stamp,
            bench_isa(),
        )
        .map_err(|e| e.to_string())?;
        let mut sub = sys.begin_substep(h).map_err(|e| e.to_string())?;
        let mut err = None;
        let r = time(s.reps, solves, || {
            for _ in 0..sweeps {
                if let Err(e) = black_box(&mut sub).iterate() {
                    err = Some(e);
                }
            }
        });
        if let Some(e) = err {
            return Err(format!("{name}: {e}"));
        }
        let b = soa_bits(x, y, z);
        if soa_result.get_or_insert_with(|| b.clone()) != &b {
            return Err(format!("{name}: placements give different bits"));
        }
        rust.push(r);
    }
    let (sps, sns) = median(&mut rust);
    let soa_result = soa_result.unwrap_or_default();
    // Rust AoS.
    let mut xa = scene.x.clone();
    let (aps, ans) = {
        let mut sys = SimdLinks::new_with_isa(
            Aos {
                positions: &mut xa,
                w: &scene.w,
            },
            plan.links(),
            &mut stamp,
            bench_isa(),
        )
        .map_err(|e| e.to_string())?;
        let mut sub = sys.begin_substep(h).map_err(|e| e.to_string())?;
        let mut err = None;
        let r = time(s.reps, solves, || {
            for _ in 0..sweeps {
                if let Err(e) = black_box(&mut sub).iterate() {
                    err = Some(e);
                }
            }
        });
        if let Some(e) = err {
            return Err(format!("{name}: {e}"));
        }
        r
    };
    if soa_result != bits(xa.iter().flatten().copied()) {
        return Err(format!("{name}: colored SoA and AoS results differ"));
    }
    // C colored SoA, with alpha and g as begin_substep computed them, over
    // the same placements.
    let mut c = Vec::new();
    for pl in placements {
        let [mut bx, mut by, mut bz] = placed(&scene.x, pl);
        let (cx, cy, cz) = (&mut bx[pl[0]..], &mut by[pl[1]..], &mut bz[pl[2]..]);
        let mut lambda = vec![T::ZERO; m];
        c.push(time(s.reps, solves, || {
            for _ in 0..sweeps {
                T::colored(cx, cy, cz, &scene.w, &plan, &mut lambda);
            }
        }));
        if soa_result != soa_bits(cx, cy, cz) {
            return Err(format!("{name}: Rust and C colored results differ"));
        }
    }
    let (cps, cns) = median(&mut c);
    out.push(Figure {
        case: format!("{name} Rust colored SoA"),
        per_second: sps,
        ns: sns,
    });
    out.push(Figure {
        case: format!("{name} Rust colored AoS"),
        per_second: aps,
        ns: ans,
    });
    out.push(Figure {
        case: format!("{name} C colored SoA"),
        per_second: cps,
        ns: cns,
    });
    Ok((sps, aps, cps))
}

/// Colored SoA at the run-time kernel (`Isa::detect`) against the same at
/// the baseline kernel (SSE2 on x86-64), timed A B A B; the bits must agree.
pub(crate) fn isa_case<T: Real>(
    s: &Settings,
    scene: &Scene<T>,
    figs: &mut Vec<Figure>,
    name: &str,
) -> Result<Ratio, String> {
    let m = scene.links.len();
    let sweeps = sweeps_for(s, m);
    let h = T::from_f64(H);
    let isa = bench_isa();
    let mut runs = Vec::new();
    for level in [isa, Isa::BASELINE] {
        let [x, y, z] = crate::timing::soa_of(&scene.x);
        runs.push((Plan::new(scene)?, x, y, z, vec![0u32; scene.x.len()], level));
    }
    let mut subs = Vec::new();
    for (plan, x, y, z, stamp, level) in runs.iter_mut() {
        let p = Soa {
            x,
            y,
            z,
            w: &scene.w,
        };
        let sys =
            SimdLinks::new_with_isa(p, plan.links(), stamp, *level).map_err(|e| e.to_string())?;
        subs.push(sys);
    }
    let mut it = subs.iter_mut();
    let (Some(a), Some(b)) = (it.next(), it.next()) else {
        return Err("isa_case".into());
    };
    let (mut sa, mut sb) = (
        a.begin_substep(h).map_err(|e| e.to_string())?,
        b.begin_substep(h).map_err(|e| e.to_string())?,
    );
    let mut err = None;
    let pair = interleaved(
        s.reps.max(3),
        sweeps * m,
        || {
            for _ in 0..sweeps {
                if let Err(e) = black_box(&mut sa).iterate() {
                    err = Some(e);
                }
            }
        },
        || {
            for _ in 0..sweeps {
                let _ = black_box(&mut sb).iterate();
            }
        },
    );
    if let Some(e) = err {
        return Err(format!("{name}: {e}"));
    }
    let pa = sa.particles();
    let pb = sb.particles();
    if soa_bits(pa.x, pa.y, pa.z) != soa_bits(pb.x, pb.y, pb.z) {
        return Err(format!("{name}: run-time and baseline kernels differ"));
    }
    let kernel = isa.kernel_name();
    figs.push(Figure {
        case: format!("{name} Rust colored SoA, {kernel} kernel"),
        per_second: pair.a.0,
        ns: pair.a.1,
    });
    figs.push(Figure {
        case: format!("{name} Rust colored SoA, baseline kernel"),
        per_second: pair.b.0,
        ns: pair.b.1,
    });
    Ok(pair_ratio(
        format!("{name}: colored SoA, run-time kernel ({kernel}) / baseline"),
        &pair,
        0.0,
    ))
}

/// The C reference kernels for one precision.
pub(crate) trait CRef: Sized {
    fn seq(x: &mut [[Self; 3]], w: &[Self], links: &mut [Link<Self>], h: Self);
    #[allow(clippy::too_many_arguments)]
    fn colored(
        x: &mut [Self],
        y: &mut [Self],
        z: &mut [Self],
        w: &[Self],
        plan: &Plan<Self>,
        lambda: &mut [Self],
    );
}

impl CRef for f64 {
    fn seq(x: &mut [[f64; 3]], w: &[f64], links: &mut [Link<f64>], h: f64) {
        // SAFETY: buffers valid for their lengths; Link<f64> has XpbdLink's layout.
        unsafe {
            ref_seq_sweep_f64(
                x.as_mut_ptr(),
                w.as_ptr(),
                links.as_mut_ptr().cast(),
                links.len(),
                h,
            )
        }
    }
    fn colored(
        x: &mut [f64],
        y: &mut [f64],
        z: &mut [f64],
        w: &[f64],
        p: &Plan<f64>,
        lambda: &mut [f64],
    ) {
        // SAFETY: all arrays have the lengths the plan's indices and starts assume.
        unsafe {
            ref_colored_sweep_f64(
                x.as_mut_ptr(),
                y.as_mut_ptr(),
                z.as_mut_ptr(),
                w.as_ptr(),
                p.i.as_ptr(),
                p.j.as_ptr(),
                p.rest.as_ptr(),
                p.alpha.as_ptr(),
                p.g.as_ptr(),
                lambda.as_mut_ptr(),
                p.starts.as_ptr(),
                p.starts.len() - 1,
            )
        }
    }
}

impl CRef for f32 {
    fn seq(x: &mut [[f32; 3]], w: &[f32], links: &mut [Link<f32>], h: f32) {
        // SAFETY: as for f64.
        unsafe {
            ref_seq_sweep_f32(
                x.as_mut_ptr(),
                w.as_ptr(),
                links.as_mut_ptr().cast(),
                links.len(),
                h,
            )
        }
    }
    fn colored(
        x: &mut [f32],
        y: &mut [f32],
        z: &mut [f32],
        w: &[f32],
        p: &Plan<f32>,
        lambda: &mut [f32],
    ) {
        // SAFETY: as for f64.
        unsafe {
            ref_colored_sweep_f32(
                x.as_mut_ptr(),
                y.as_mut_ptr(),
                z.as_mut_ptr(),
                w.as_ptr(),
                p.i.as_ptr(),
                p.j.as_ptr(),
                p.rest.as_ptr(),
                p.alpha.as_ptr(),
                p.g.as_ptr(),
                lambda.as_mut_ptr(),
                p.starts.as_ptr(),
                p.starts.len() - 1,
            )
        }
    }
}

/// 3D ropes of 1k, 100k and 1M links, f64 and f32: sequential and colored.
pub(crate) fn rope_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let default: &[usize] = if s.quick {
        &[1_000, 10_000]
    } else {
        &[1_000, 100_000, 1_000_000]
    };
    // `XPBD_BENCH_ROPE_SIZES=250,1000,4000` explores other sizes.
    let sizes: Vec<usize> = match std::env::var("XPBD_BENCH_ROPE_SIZES") {
        Ok(v) => v
            .split(',')
            .map(|x| {
                x.trim()
                    .parse::<usize>()
                    .map_err(|e| format!("XPBD_BENCH_ROPE_SIZES: {e}"))
            })
            .collect::<Result<_, _>>()?,
        Err(_) => default.to_vec(),
    };
    for &n in &sizes {
        let scene = rope_scene::<f64>(n)?;
        let name = format!("rope {n} links f64");
        let (seq, cseq) = seq_case(s, &scene, figs, &name)?;
        let (soa, aos, c) = colored_case(s, &scene, figs, &name)?;
        drop(scene);
        ratios.push(ratio(
            format!("{name}: sequential, ours / C"),
            seq,
            cseq,
            0.9,
        ));
        ratios.push(ratio(
            format!("{name}: colored SoA / our sequential"),
            soa,
            seq,
            3.0,
        ));
        ratios.push(ratio(
            format!("{name}: colored SoA, ours / C colored"),
            soa,
            c,
            0.8,
        ));
        ratios.push(ratio(
            format!("{name}: colored AoS, ours / C colored SoA"),
            aos,
            c,
            0.0,
        ));
        let scene32 = rope_scene::<f32>(n)?;
        let name32 = format!("rope {n} links f32");
        let (seq32, cseq32) = seq_case(s, &scene32, figs, &name32)?;
        let (soa32, aos32, c32) = colored_case(s, &scene32, figs, &name32)?;
        ratios.push(ratio(
            format!("{name32}: sequential, ours / C"),
            seq32,
            cseq32,
            0.0,
        ));
        ratios.push(ratio(
            format!("{name32}: colored SoA, ours / C colored"),
            soa32,
            c32,
            0.0,
        ));
        ratios.push(ratio(
            format!("{name32}: colored AoS, ours / C colored SoA"),
            aos32,
            c32,
            0.0,
        ));
        ratios.push(ratio(
            format!("rope {n}: colored SoA f32 / colored SoA f64"),
            soa32,
            soa,
            2.0,
        ));
        ratios.push(isa_case(s, &rope_scene::<f64>(n)?, figs, &name)?);
        ratios.push(isa_case(s, &scene32, figs, &name32)?);
    }
    Ok(())
}

/// The 1000 x 1000 cloth, f64 and f32: sequential and colored.
pub(crate) fn cloth_section(
    s: &Settings,
    figs: &mut Vec<Figure>,
    ratios: &mut Vec<Ratio>,
) -> Result<(), String> {
    let (rows, cols) = if s.quick { (100, 100) } else { (1000, 1000) };
    let scene = cloth_scene::<f64>(rows, cols)?;
    let name = format!("cloth {rows}x{cols} ({} links) f64", scene.links.len());
    let (seq, cseq) = seq_case(s, &scene, figs, &name)?;
    let (soa, aos, c) = colored_case(s, &scene, figs, &name)?;
    ratios.push(isa_case(s, &scene, figs, &name)?);
    drop(scene);
    ratios.push(ratio(
        format!("{name}: sequential, ours / C"),
        seq,
        cseq,
        0.0,
    ));
    ratios.push(ratio(
        format!("{name}: colored SoA / our sequential"),
        soa,
        seq,
        0.0,
    ));
    ratios.push(ratio(
        format!("{name}: colored SoA, ours / C colored"),
        soa,
        c,
        0.0,
    ));
    ratios.push(ratio(
        format!("{name}: colored AoS, ours / C colored SoA"),
        aos,
        c,
        0.0,
    ));
    let scene32 = cloth_scene::<f32>(rows, cols)?;
    let name32 = format!("cloth {rows}x{cols} f32");
    let (seq32, cseq32) = seq_case(s, &scene32, figs, &name32)?;
    let (soa32, _, c32) = colored_case(s, &scene32, figs, &name32)?;
    ratios.push(isa_case(s, &scene32, figs, &name32)?);
    drop(scene32);
    ratios.push(ratio(
        format!("{name32}: sequential, ours / C"),
        seq32,
        cseq32,
        0.0,
    ));
    ratios.push(ratio(
        format!("{name32}: colored SoA, ours / C colored"),
        soa32,
        c32,
        0.0,
    ));
    ratios.push(ratio(
        "cloth: colored SoA f32 / colored SoA f64".to_string(),
        soa32,
        soa,
        0.0,
    ));
    Ok(())
}

/// The kernels the bench's colored sweeps run: those detected, or with
/// `XPBD_BENCH_ISA_MASK=1` (AVX2 only), `=2`, …, `=0` (the SSE2
/// baseline) a subset of them (`Isa::restrict`).
pub(crate) fn bench_isa() -> Isa {
    let mask = std::env::var("XPBD_BENCH_ISA_MASK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(u32::MAX);
    Isa::detect().restrict(mask)
}
