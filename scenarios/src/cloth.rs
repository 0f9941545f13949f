//! A fixed colored 3D cloth: [`ROWS`] × [`COLS`] particles with structural
//! and shear links ([`xpbd::cloth`], [`xpbd::cloth_coloring`]), two corners
//! pinned, falling under gravity for [`FRAMES`] frames of [`SUBSTEPS`]
//! substeps with [`ITERATIONS`] colored sweeps each.
//!
//! Two copies run in lock-step:
//!
//! - the Rust API, [`xpbd::SimdLinks`] over structure-of-arrays
//!   particles (`SimdLinksSubstep::iterate`);
//! - the C entry points, `xpbd_simd_links3_begin_substep(_f32)` and
//!   `xpbd_simd_links3_solve_job(_f32)` ([`JOBS`] jobs per color, run one
//!   after another) over array-of-structures particles.
//!
//! The colored kernel differs by target: SSE2 lanes on x86-64 (with the f32
//! contiguous path for the horizontal links, which join neighbours), the
//! portable chunked kernel on AArch64, a plain per-link loop on Cortex-M.
//! All of them perform the same IEEE-754 operations per link in the same
//! order, so the hash of the Rust copy's every position, velocity and λ
//! after every substep is one constant everywhere, and the C copy must
//! equal the Rust copy bit for bit after every substep.

use xpbd::{
    cloth, cloth_coloring, color_order, fill_colored_links, ColoredLinks, Link, SimdLinks, Soa,
};

use crate::scalar::ColoredBuffers;
use crate::{Fnv64, Scalar};

/// Rows of the grid (along z).
pub const ROWS: usize = 6;
/// Columns of the grid (along x): even, so the horizontal links of one color
/// join neighbours `(i0 + 2t, i0 + 2t + 1)` across whole rows.
pub const COLS: usize = 10;
/// Particles.
pub const PARTICLES: usize = ROWS * COLS;
/// Links: horizontal, vertical and both diagonals of every cell.
pub const LINKS: usize = ROWS * (COLS - 1) + (ROWS - 1) * COLS + 2 * (ROWS - 1) * (COLS - 1);
/// Capacity for colors (the cloth coloring uses 8).
pub const MAX_COLORS: usize = 16;
/// Frames simulated.
pub const FRAMES: usize = 90;
/// Frame length (s).
pub const FRAME: f64 = 1.0 / 60.0;
/// Substeps per frame.
pub const SUBSTEPS: usize = 4;
/// Colored sweeps per substep.
pub const ITERATIONS: usize = 3;
/// Link compliance (m/N).
pub const COMPLIANCE: f64 = 1e-6;
/// Grid spacing at rest (m).
pub const SPACING: f64 = 0.1;
/// Gravity along y (m/s²).
pub const GRAVITY: f64 = -9.81;
/// Jobs per color for the C copy.
pub const JOBS: usize = 3;

/// What one run did, beyond the hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClothRun {
    /// Calls that failed (expected 0).
    pub errors: u32,
    /// Substeps after which the C copy differed from the Rust copy in any
    /// bit of a position or λ (expected 0).
    pub mismatches: u32,
    /// Colors of the coloring.
    pub colors: usize,
    /// The lowest final height of the Rust copy (m), as bits.
    pub lowest_bits: u64,
}

/// Runs the cloth, feeding the Rust copy's state after every substep into
/// `h` (positions, velocities and λ, particle by particle, link by link).
pub fn cloth_3d<T: Scalar>(h: &mut Fnv64) -> ClothRun {
    let mut run = ClothRun::default();
    let mut x0 = [[T::ZERO; 3]; PARTICLES];
    let mut w = [T::ZERO; PARTICLES];
    let mut v = [[T::ZERO; 3]; PARTICLES];
    for (k, ((p, wk), vk)) in x0.iter_mut().zip(&mut w).zip(&mut v).enumerate() {
        let (r, c) = (k / COLS, k % COLS);
        *p = [
            T::from_f64(c as f64 * SPACING),
            T::from_f64(1.0 + 0.01 * (k % 3) as f64),
            T::from_f64(r as f64 * SPACING),
        ];
        // Two corners of the first row pinned; the rest of mixed masses.
        if !(r == 0 && (c == 0 || c == COLS - 1)) {
            *wk = T::from_f64(1.0 + 0.25 * (k % 3) as f64);
        }
        // A sideways push growing along x: the cloth swings in 3D.
        vk[2] = T::from_f64(0.3 * c as f64 / COLS as f64);
    }
    let mut links = [Link::<T>::default(); LINKS];
    let mut colors = [0u32; LINKS];
    let mut order = [0u32; LINKS];
    let mut starts = [0usize; MAX_COLORS + 1];
    let (mut i, mut j) = ([0u32; LINKS], [0u32; LINKS]);
    let (mut rest, mut compliance) = ([T::ZERO; LINKS], [T::ZERO; LINKS]);
    let (mut lambda, mut alpha, mut g) = ([T::ZERO; LINKS], [T::ZERO; LINKS], [T::ZERO; LINKS]);
    let built = cloth(&x0, ROWS, COLS, true, T::from_f64(COMPLIANCE), &mut links);
    let count = cloth_coloring(ROWS, COLS, true, &mut colors);
    let (Ok(LINKS), Ok(count)) = (built, count) else {
        run.errors = 1;
        return run;
    };
    run.colors = usize::try_from(count).unwrap_or(usize::MAX);
    let Some(starts) = starts.get_mut(..run.colors.saturating_add(1)) else {
        run.errors = 1;
        return run;
    };
    let filled = color_order(&colors, count, starts, &mut order).and_then(|()| {
        fill_colored_links(
            &links,
            &order,
            &mut i,
            &mut j,
            &mut rest,
            &mut compliance,
            &mut lambda,
        )
    });
    if filled.is_err() {
        run.errors = 1;
        return run;
    }
    let starts: &[usize] = starts;
    // The C copy: its own positions, velocities, λ and scratch.
    let mut cx = x0;
    let mut cv = v;
    let (mut clambda, mut calpha, mut cg) = (lambda, [T::ZERO; LINKS], [T::ZERO; LINKS]);
    let mut cstamp = [0u32; PARTICLES];
    // The Rust copy over structure-of-arrays particles.
    let mut xs = x0.map(|p| p[0]);
    let mut ys = x0.map(|p| p[1]);
    let mut zs = x0.map(|p| p[2]);
    let mut stamp = [0u32; PARTICLES];
    let Ok(mut sys) = SimdLinks::new(
        Soa {
            x: &mut xs,
            y: &mut ys,
            z: &mut zs,
            w: &w,
        },
        ColoredLinks {
            i: &i,
            j: &j,
            rest: &rest,
            compliance: &compliance,
            lambda: &mut lambda,
            alpha: &mut alpha,
            inv_denominator: &mut g,
            color_starts: starts,
        },
        &mut stamp,
    ) else {
        run.errors = 1;
        return run;
    };
    let hs = T::from_f64(FRAME / SUBSTEPS as f64);
    let gravity = T::from_f64(GRAVITY);
    for _ in 0..FRAMES * SUBSTEPS {
        // Rust copy: predict, solve, derive velocities.
        let mut prev = [[T::ZERO; 3]; PARTICLES];
        {
            let p = sys.particles_mut();
            let coords = p.x.iter_mut().zip(p.y.iter_mut()).zip(p.z.iter_mut());
            for ((((px, py), pz), vk), (wk, old)) in coords.zip(&mut v).zip(w.iter().zip(&mut prev))
            {
                *old = [*px, *py, *pz];
                if *wk != T::ZERO {
                    predict([px, py, pz], vk, gravity, hs);
                }
            }
        }
        match sys.begin_substep(hs) {
            Ok(mut sub) => {
                for _ in 0..ITERATIONS {
                    run.errors += u32::from(sub.iterate().is_err());
                }
            }
            Err(_) => run.errors += 1,
        }
        {
            let p = sys.particles();
            let coords = p.x.iter().zip(p.y.iter()).zip(p.z.iter());
            for ((((px, py), pz), vk), (wk, old)) in coords.zip(&mut v).zip(w.iter().zip(&prev)) {
                if *wk != T::ZERO {
                    derive([*px, *py, *pz], old, vk, hs);
                }
            }
        }
        // C copy: the same, through the C entry points.
        let cprev = cx;
        for ((p, vk), wk) in cx.iter_mut().zip(&mut cv).zip(&w) {
            if *wk != T::ZERO {
                let [a, b, c] = p;
                predict([a, b, c], vk, gravity, hs);
            }
        }
        run.errors += c_substep::<T>(
            ColoredBuffers {
                positions: cx.as_mut_ptr(),
                inverse_masses: w.as_ptr(),
                particle_count: PARTICLES,
                i: i.as_ptr(),
                j: j.as_ptr(),
                rest: rest.as_ptr(),
                compliance: compliance.as_ptr(),
                lambda: clambda.as_mut_ptr(),
                alpha: calpha.as_mut_ptr(),
                inv_denominator: cg.as_mut_ptr(),
                link_count: LINKS,
                color_starts: starts.as_ptr(),
                color_count: run.colors,
                stamp: cstamp.as_mut_ptr(),
            },
            hs,
        );
        for ((p, vk), (wk, old)) in cx.iter().zip(&mut cv).zip(w.iter().zip(&cprev)) {
            if *wk != T::ZERO {
                derive(*p, old, vk, hs);
            }
        }
        // Compare and hash.
        let p = sys.particles();
        let rust = p.x.iter().zip(p.y.iter()).zip(p.z.iter());
        let same_x = rust
            .clone()
            .zip(&cx)
            .all(|(((a, b), c), q)| [a.bits(), b.bits(), c.bits()] == q.map(|e| e.bits()));
        let same_l = sys
            .lambdas()
            .iter()
            .zip(&clambda)
            .all(|(a, b)| a.bits() == b.bits());
        run.mismatches += u32::from(!(same_x && same_l));
        for (((a, b), c), vk) in rust.zip(&v) {
            for e in [*a, *b, *c] {
                h.write_real(e);
            }
            for e in vk {
                h.write_real(*e);
            }
        }
        for l in sys.lambdas() {
            h.write_real(*l);
        }
    }
    let p = sys.particles();
    let lowest =
        p.y.iter()
            .fold(T::from_f64(f64::MAX), |m, y| if *y < m { *y } else { m });
    run.lowest_bits = lowest.bits();
    run
}

/// Symplectic Euler prediction of a moving particle: `v += g h` (y only),
/// `x += v h`, coordinate by coordinate.
fn predict<T: Scalar>(x: [&mut T; 3], v: &mut [T; 3], gravity: T, h: T) {
    v[1] = v[1] + gravity * h;
    for (xk, vk) in x.into_iter().zip(v.iter()) {
        *xk = *xk + *vk * h;
    }
}

/// The velocity the positions imply: `v = (x − x_prev) / h`.
fn derive<T: Scalar>(x: [T; 3], prev: &[T; 3], v: &mut [T; 3], h: T) {
    for ((vk, xk), pk) in v.iter_mut().zip(x).zip(prev) {
        *vk = (xk - *pk) / h;
    }
}

/// One substep of the C copy: begin, then [`ITERATIONS`] sweeps of every
/// color split into [`JOBS`] jobs. Returns the number of failed calls.
fn c_substep<T: Scalar>(b: ColoredBuffers<T>, h: T) -> u32 {
    let mut sys = T::c_colored(b);
    let mut errors = 0;
    // SAFETY: every pointer of `b` points to a live array of the caller
    // with its count of entries, not accessed otherwise during the calls;
    // the jobs of a color run one after another on this thread.
    unsafe {
        errors += u32::from(T::c_colored_begin(&mut sys, h).code() != 0);
        for _ in 0..ITERATIONS {
            for color in 0..b.color_count {
                for job in 0..JOBS {
                    errors += u32::from(T::c_colored_job(&sys, color, job, JOBS).code() != 0);
                }
            }
        }
    }
    errors
}
