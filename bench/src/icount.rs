//! Instruction counts of the link kernels, ours and C, without the wall
//! clock (`bench/icount.sh`, issue 19 item 3).
//!
//! `XPBD_BENCH_ICOUNT=<kernel>` makes the bench binary run only that
//! kernel: it builds a small scene (a 10k-link rope, or a 100 × 100
//! cloth), prepares the substep, then runs a fixed number of sweeps inside
//! [`icount_kernel`], a function that is never inlined, and prints
//! `icount <kernel>: <n> link solves`. `bench/icount.sh` runs the binary
//! under `valgrind --tool=callgrind --collect-atstart=no
//! --toggle-collect=*icount_kernel*`, so the count covers exactly those
//! sweeps, and divides. `XPBD_BENCH_ICOUNT=list` prints the kernels,
//! `XPBD_BENCH_ICOUNT=all` runs them all (no valgrind: a check that each
//! runs).
//!
//! Valgrind decodes AVX2 but not AVX-512, so the `-march=native` copy of
//! the red-black C cannot be counted on an AVX-512 machine; the
//! `-march=x86-64-v3` copy (AVX2) stands in for it (`redblack-v3`).
//! `redblack-*` are the implicit-index kernels (rope, cloth grid),
//! `redblack-indexed-*` the per-link index one, `gather-c` the general
//! gather kernel of `bench/c/reference.c`. Under
//! valgrind the CPU identification is valgrind's (no AVX-512), so a kernel
//! selected at run time picks its AVX2 or baseline version; our colored
//! kernel honours `XPBD_BENCH_ISA_MASK` (`links::bench_isa`; 0: SSE2).

use std::hint::black_box;

use xpbd::{SimdLinks, Soa, System};

use crate::links::{cloth_scene, rope_scene, CRef, Plan, Scene};
use crate::references::{pbd_links, substep_plan, Isa, PlainC, SeqLinks, Xyz};
use crate::timing::H;

/// Links of the counted rope.
const ROPE_LINKS: usize = 10_000;
/// Sweeps counted over the rope (200k link solves).
const ROPE_SWEEPS: usize = 20;
/// Side of the counted cloth (39,402 links).
const CLOTH_SIDE: usize = 100;
/// Sweeps counted over the cloth.
const CLOTH_SWEEPS: usize = 5;

/// The kernels, as `<scene>-<precision>-<kernel>`.
const KERNELS: [&str; 10] = [
    "colored-ours",
    "redblack-base",
    "redblack-v3",
    "redblack-native",
    "redblack-indexed-base",
    "redblack-indexed-v3",
    "gather-c",
    "seq-ours",
    "seq-c-xpbd-layout",
    "seq-plain-c",
];
/// Sequential kernels that only the rope has.
const ROPE_ONLY: [&str; 1] = ["seq-pbd"];

/// Runs the sweeps whose instructions are counted (callgrind toggles
/// collection on entering and leaving this function).
#[inline(never)]
fn icount_kernel(f: &mut dyn FnMut()) {
    f();
}

/// Every kernel name.
pub(crate) fn names() -> Vec<String> {
    let mut v = Vec::new();
    for scene in ["rope", "cloth"] {
        for t in ["f64", "f32"] {
            let extra: &[&str] = if scene == "rope" { &ROPE_ONLY } else { &[] };
            for k in KERNELS.iter().chain(extra) {
                // The cloth's sequential rows stay in the time bench.
                if scene == "cloth" && k.starts_with("seq") {
                    continue;
                }
                v.push(format!("{scene}-{t}-{k}"));
            }
        }
    }
    v
}

/// `XPBD_BENCH_ICOUNT=<what>`: `list`, `all` or one kernel.
///
/// # Errors
///
/// An unknown kernel, or a kernel that fails.
pub(crate) fn run(what: &str) -> Result<(), String> {
    let all = names();
    match what {
        "list" => {
            for n in &all {
                println!("{n}");
            }
            Ok(())
        }
        "all" => all.iter().try_for_each(|n| one(n)),
        n if all.iter().any(|k| k == n) => one(n),
        n => Err(format!("XPBD_BENCH_ICOUNT: unknown kernel {n} (try list)")),
    }
}

fn one(name: &str) -> Result<(), String> {
    let mut parts = name.splitn(3, '-');
    let (scene, t, kernel) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    let rope = scene == "rope";
    let solves = match t {
        "f64" => {
            let s = if rope {
                rope_scene::<f64>(ROPE_LINKS)?
            } else {
                cloth_scene::<f64>(CLOTH_SIDE, CLOTH_SIDE)?
            };
            count(&s, rope, kernel)?
        }
        _ => {
            let s = if rope {
                rope_scene::<f32>(ROPE_LINKS)?
            } else {
                cloth_scene::<f32>(CLOTH_SIDE, CLOTH_SIDE)?
            };
            count(&s, rope, kernel)?
        }
    };
    println!("icount {name}: {solves} link solves");
    Ok(())
}

/// Runs `kernel` over `scene` inside [`icount_kernel`]; returns the link
/// solves counted.
fn count<T: PlainC + CRef>(scene: &Scene<T>, rope: bool, kernel: &str) -> Result<usize, String> {
    let sweeps = if rope { ROPE_SWEEPS } else { CLOTH_SWEEPS };
    let h = T::from_f64(H);
    let w = &scene.w;
    let plan = substep_plan(scene)?;
    let mut p = Xyz::of(scene);
    let mut lambda = vec![T::ZERO; scene.links.len()];
    let mut x = scene.x.clone();
    let mut err = None;
    match kernel {
        "colored-ours" => {
            let mut own = Plan::new(scene)?;
            let mut stamp = vec![0u32; scene.x.len()];
            let mut sys = SimdLinks::new_with_isa(
                Soa {
                    x: &mut p.x,
                    y: &mut p.y,
                    z: &mut p.z,
                    w,
                },
                own.links(),
                &mut stamp,
                crate::links::bench_isa(),
            )
            .map_err(|e| e.to_string())?;
            let mut sub = sys.begin_substep(h).map_err(|e| e.to_string())?;
            icount_kernel(&mut || {
                for _ in 0..sweeps {
                    if let Err(e) = black_box(&mut sub).iterate() {
                        err = Some(e);
                    }
                }
            });
        }
        "redblack-base"
        | "redblack-v3"
        | "redblack-native"
        | "redblack-indexed-base"
        | "redblack-indexed-v3" => {
            let isa = match kernel {
                "redblack-base" | "redblack-indexed-base" => Isa::Base,
                "redblack-native" => Isa::Native,
                _ => Isa::V3,
            };
            let indexed = kernel.starts_with("redblack-indexed");
            let grid = (CLOTH_SIDE, CLOTH_SIDE);
            icount_kernel(&mut || {
                for _ in 0..sweeps {
                    let p = black_box(&mut p);
                    if indexed {
                        T::rb_links(isa, p, w, &plan, &mut lambda);
                    } else if rope {
                        T::rb_rope(isa, p, w, &plan, &mut lambda);
                    } else {
                        T::rb_grid(isa, p, w, &plan, &mut lambda, grid);
                    }
                }
            });
        }
        "gather-c" => icount_kernel(&mut || {
            for _ in 0..sweeps {
                T::colored(&mut p.x, &mut p.y, &mut p.z, w, &plan, &mut lambda);
            }
        }),
        "seq-ours" => {
            let mut links = scene.links.clone();
            let mut sys = System::new(&mut x, w, &mut links).map_err(|e| e.to_string())?;
            let mut sub = sys.begin_substep(h).map_err(|e| e.to_string())?;
            icount_kernel(&mut || {
                for _ in 0..sweeps {
                    if let Err(e) = black_box(&mut sub).iterate() {
                        err = Some(e);
                    }
                }
            });
        }
        "seq-c-xpbd-layout" => {
            let mut links = scene.links.clone();
            icount_kernel(&mut || {
                for _ in 0..sweeps {
                    T::seq(black_box(&mut x), w, &mut links, h);
                }
            });
        }
        "seq-plain-c" => {
            let mut seq = SeqLinks::new(&scene.links, h);
            icount_kernel(&mut || {
                for _ in 0..sweeps {
                    T::plain_seq(black_box(&mut x), w, &mut seq);
                }
            });
        }
        "seq-pbd" => {
            let mut links = pbd_links(&scene.links);
            icount_kernel(&mut || {
                for _ in 0..sweeps {
                    T::pbd_seq(black_box(&mut x), w, &mut links, h);
                }
            });
        }
        k => return Err(format!("XPBD_BENCH_ICOUNT: unknown kernel {k}")),
    }
    match err {
        Some(e) => Err(e.to_string()),
        None => Ok(sweeps * scene.links.len()),
    }
}
