//! The xpbd speed benchmark (run by `cargo bench -p xpbd-bench`).
//!
//! Every case is timed in this one process against a hand-written C
//! reference compiled by `build.rs` (`-O3 -fno-math-errno -ffp-contract=off`,
//! x86-64 baseline), and the C and Rust results are compared bit for bit:
//! both do the same arithmetic, so equal bits prove equal work. Timing is
//! best of `reps` repetitions (the least disturbed by other load on the
//! machine); throughput is constraint solves (link visits) per second.
//!
//! The bench fails (non-zero exit) when a figure cannot be produced or a
//! result disagrees with its reference, never because of a timing.
//!
//! Environment: `XPBD_BENCH_QUICK=1` runs small sizes with few repetitions
//! (a smoke test that every figure is produced); `XPBD_BENCH_REPS=<n>`
//! sets the repetitions (pairs), e.g. 1 under valgrind. `XPBD_BENCH_ONLY=1d,rope,cloth,threads,kinds`
//! (any subset, comma-separated; `frame` for the whole colored frame; `cframe`
//! for the whole frame against the plain C frame of `bench/c/frame.c`; `kframe` for
//! each kind's (bends, tethers, tets) share of the whole frame against its plain C
//! frame of `bench/c/frame_kinds.c`; `character` for each character-cloth
//! feature's (skin constraints, wind, local space) share of the whole frame
//! against its plain C frame of `bench/c/frame_character.c`; `bend`, `tet`,
//! `tether`, `mesh` for one kind; `self` for self-collision) runs only those
//! parts; the default is all.
//! `XPBD_BENCH_SELF_SIDES=50,158` and `XPBD_BENCH_SELF_PRECISION=f64` set
//! the self-collision slab's sides and precisions.
//! `XPBD_BENCH_ROPE_SIZES=250,1000,4000` sets the rope sizes (links).
//! `XPBD_BENCH_ONLY=refs` runs only the honest references (issue 19 item
//! 3: red-black C at the baseline and at `-march=native`, plain C
//! Gauss-Seidel, PositionBasedDynamics' formula, timed in rotation);
//! `XPBD_BENCH_ICOUNT=<kernel|list|all>` runs kernels for instruction
//! counts only (`bench/icount.sh`).
//!
//! Modules: `timing` (figures, settings, best-of timing, medians),
//! `report` (ratios, load and steal time), `seed` (the 1D seed solve),
//! `links` (ropes and cloth: sequential and colored), `references`
//! (the same against plain C in rotation), `icount` (kernels for
//! callgrind), `threads` (one and
//! two threads), `kinds` (bending, tets, tethers, closed meshes against
//! plain C of the same formula, timed A B A B), `self_collision`
//! (self-collision's hash, query and solve per particle against a plain C
//! spatial hash of the same design, `XPBD_BENCH_ONLY=self`), `cframe`
//! (xpbd's whole frame against the plain C frame at the baseline and at
//! `-march=native`, timed A B A B, `XPBD_BENCH_ONLY=cframe`), `kframe`
//! (each kind's share of the whole frame against the plain C frame with
//! that kind, `XPBD_BENCH_ONLY=kframe`), `character` (each character-cloth
//! feature's share of the whole frame against the plain C frame with that
//! feature, `XPBD_BENCH_ONLY=character`).

mod cframe;
mod character;
mod frame;
mod icount;
mod kframe;
mod kinds;
mod links;
mod references;
mod report;
mod seed;
mod self_collision;
mod threads;
mod timing;

use xpbd::{Link, SweepStats};

pub use report::Ratio;
use report::{cpu_ticks, load_average, steal_share, target_text, verdict};
pub use timing::{Figure, Settings};

/// Runs every case, prints the figures and ratios, and returns them.
///
/// # Errors
///
/// When a figure cannot be produced or results disagree.
pub fn run() -> Result<(Vec<Figure>, Vec<Ratio>), String> {
    if let Ok(what) = std::env::var("XPBD_BENCH_ICOUNT") {
        // Instruction counts (bench/icount.sh): only the named kernel.
        icount::run(&what)?;
        return Ok((Vec::new(), Vec::new()));
    }
    let s = Settings::from_env();
    let mut figs = Vec::new();
    let mut ratios = Vec::new();
    println!(
        "xpbd bench: best of {} repetitions, C reference: {}",
        s.reps,
        env!("XPBD_BENCH_CFLAGS")
    );
    println!(
        "threads available: {:?}; load average before: {}",
        std::thread::available_parallelism().map(|n| n.get()),
        load_average()
    );
    let ticks = cpu_ticks();

    let only = std::env::var("XPBD_BENCH_ONLY").ok();
    let want = |section: &str| match only.as_deref() {
        None => true,
        Some(o) => o.split(',').any(|x| x.trim() == section),
    };
    let sections: [(&str, Section); 10] = [
        ("1d", seed::seed_section),
        ("rope", links::rope_section),
        ("cloth", links::cloth_section),
        ("refs", references::refs_section),
        ("threads", threads::thread_section),
        ("frame", frame::frame_section),
        ("cframe", cframe::cframe_section),
        ("kframe", kframe::kframe_section),
        ("character", character::character_section),
        ("self", self_collision::self_section),
    ];
    for (name, section) in sections {
        if want(name) {
            section(&s, &mut figs, &mut ratios)?;
        }
    }
    if ["kinds", "bend", "tet", "tether", "mesh"]
        .iter()
        .any(|k| want(k))
    {
        kinds::kinds_section(&s, &mut figs, &mut ratios, &want)?;
    }

    println!(
        "load average after: {}; hypervisor steal time during the run: {}",
        load_average(),
        steal_share(ticks)
    );
    println!();
    println!("{:<58} {:>14} {:>10}", "case", "solves/s", "ns/solve");
    for f in &figs {
        if !(f.per_second.is_finite() && f.per_second > 0.0) {
            return Err(format!("no figure for {}", f.case));
        }
        println!("{:<58} {:>14.4e} {:>10.3}", f.case, f.per_second, f.ns);
    }
    println!();
    println!(
        "{:<70} {:>7} {:>7} verdict",
        "ratio (ours / reference)", "value", "target"
    );
    for r in &ratios {
        if !r.value.is_finite() {
            return Err(format!("no ratio for {}", r.what));
        }
        let spread = r
            .spread
            .map(|(lo, hi)| format!(" (pairs {lo:.3}–{hi:.3})"))
            .unwrap_or_default();
        println!(
            "{:<70} {:>7.3} {:>7} {}{spread}",
            r.what,
            r.value,
            target_text(r.target),
            verdict(r)
        );
    }
    println!();
    println!("Markdown (README):");
    println!("| case | ours (solves/s) | reference (solves/s) | ratio | target | |");
    println!("|---|---:|---:|---:|---:|---|");
    for r in &ratios {
        println!(
            "| {} | {:.3e} | {:.3e} | {:.2} | {} | {} |",
            r.what,
            r.ours,
            r.reference,
            r.value,
            target_text(r.target),
            verdict(r)
        );
    }
    println!();
    println!("memory, f64: SoA and AoS particles {} B (x, y, z, w); colored link {} B (i, j, rest, compliance, alpha, g, lambda); sequential Link {} B",
        4 * 8, 4 + 4 + 5 * 8, std::mem::size_of::<Link<f64>>());
    println!(
        "memory, f32: SoA and AoS particles {} B; colored link {} B; sequential Link {} B",
        4 * 4,
        4 + 4 + 5 * 4,
        std::mem::size_of::<Link<f32>>()
    );
    let _ = SweepStats::<f64>::default();
    Ok((figs, ratios))
}

/// One part of the run: figures and ratios it adds.
type Section = fn(&Settings, &mut Vec<Figure>, &mut Vec<Ratio>) -> Result<(), String>;
