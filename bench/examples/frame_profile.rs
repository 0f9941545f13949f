//! The cloth frame of `XPBD_BENCH_ONLY=cframe` (an N×N cloth with shear
//! links, pinned at two corners, resting on a plane with friction, 8
//! substeps × 1 iteration at 60 Hz, `step_colored` on one thread) in a
//! loop of its own, for a profiler (`perf record`) and quick A/B timing:
//!
//! ```sh
//! cargo run --release -p xpbd-bench --example frame_profile -- 100 60 f64 [isa-mask]
//! ```
//!
//! Arguments: the side N, the frame count, `f64`, `f32` or `c` (f64
//! through the C entry `xpbd_world3_step_colored`: the same frame, with
//! the C layer's checks and the carving and zeroing of the world's memory
//! every frame), and an optional `Isa` mask restricting the link kernels
//! (0: the baseline, 1: AVX2, 3: AVX-512; Rust only). With
//! `XPBD_FRAME_COLORING=cloth` the links are colored by `cloth_coloring`
//! (the C reference's colors) instead of `color_instances`; with
//! `XPBD_FRAME_BENDS=1` the cloth's bends (`bends_for_cloth`) are on too;
//! with `XPBD_FRAME_SPHERE=1` a sphere under the cloth's middle; with
//! `XPBD_FRAME_SPHERE=far` four spheres far below the plane, never
//! touched: the same motion, on the SoA frame's contact list (more than
//! three colliders); with `XPBD_FRAME_CAPSULE=1` a capsule under the
//! cloth's middle, swaying slowly (the contact list too); with
//! `XPBD_FRAME_ATTACH=1` the particles of one edge held by attachments.
//! The figure stays per link and substep. Prints ns per link
//! and substep (one run: no pairs, no spread; the bench's `cframe`
//! section is the measurement).
use std::time::Instant;
use xpbd::colored::Isa;
use xpbd::step::{
    scratch_len, step_colored_on, Capsule, Colliders, Contact, OneThread, Plane, Sphere,
    StepConfig, World,
};
use xpbd::{
    bends_count_for_cloth, bends_for_cloth, cloth, cloth_coloring, cloth_link_count,
    color_instances, color_order, fill_in_order, Attachment, Bend, Constraints, GroupColors, Link,
    Real,
};

/// The cloth: positions, its links in colored order with the color
/// boundaries, and inverse masses (two pinned corners).
struct Cloth<T> {
    x: Vec<[T; 3]>,
    links: Vec<Link<T>>,
    starts: Vec<usize>,
    w: Vec<T>,
}

fn cloth_scene<T: Real>(side: usize) -> Cloth<T> {
    let n = side * side;
    let s = T::from_f64(0.01);
    let r = T::from_f64(0.002);
    let x: Vec<[T; 3]> = (0..n)
        .map(|k| {
            [
                T::from_f64((k % side) as f64) * s,
                r,
                T::from_f64((k / side) as f64) * s,
            ]
        })
        .collect();
    let m = cloth_link_count(side, side, true).expect("link count");
    let mut links = vec![Link::new(0, 1, s, T::ZERO); m];
    cloth(&x, side, side, true, T::from_f64(1e-8), &mut links).expect("cloth");
    let (mut used, mut colors) = (vec![0u64; n], vec![0u32; m]);
    let c = if std::env::var("XPBD_FRAME_COLORING").is_ok_and(|v| v == "cloth") {
        cloth_coloring(side, side, true, &mut colors).expect("coloring")
    } else {
        color_instances(&links, n, &mut used, &mut colors).expect("coloring")
    };
    let (mut starts, mut order) = (vec![0usize; c as usize + 1], vec![0u32; m]);
    color_order(&colors, c, &mut starts, &mut order).expect("order");
    let mut sorted = links.clone();
    fill_in_order(&links, &order, &mut sorted).expect("fill");
    let mut w = vec![T::ONE; n];
    w[0] = T::ZERO;
    w[side - 1] = T::ZERO;
    Cloth {
        x,
        links: sorted,
        starts,
        w,
    }
}

fn run<T: Real>(side: usize, frames: usize, isa: Isa) -> f64 {
    let Cloth {
        mut x,
        links: mut sorted,
        starts,
        w,
    } = cloth_scene::<T>(side);
    let (n, m) = (x.len(), sorted.len());
    let r = T::from_f64(0.002);
    let mut v = vec![[T::ZERO; 3]; n];
    let mut contacts = vec![Contact::default(); 2 * n];
    let mut scratch = vec![[T::ZERO; 3]; scratch_len(n, m)];
    let mut stamp = vec![0u32; n];
    let planes = [Plane {
        normal: [T::ZERO, T::ONE, T::ZERO],
        offset: T::ZERO,
    }];
    let mut config = StepConfig::new([T::ZERO, T::from_f64(-9.81), T::ZERO]);
    config.substeps = 8;
    config.particle_radius = r;
    config.static_friction = T::from_f64(0.2);
    config.dynamic_friction = T::from_f64(0.1);
    // With `XPBD_FRAME_SPHERE=1`, a sphere the cloth's middle rests on.
    let sphere = std::env::var("XPBD_FRAME_SPHERE").unwrap_or_default();
    let mid = T::from_f64(side as f64 * 0.005);
    let far = |k: f64| Sphere {
        center: [T::from_f64(k), T::from_f64(-100.0), T::ZERO],
        radius: T::ONE,
    };
    let balls = [
        Sphere {
            center: [mid, T::from_f64(-0.1), mid],
            radius: T::from_f64(0.1 + 0.004),
        },
        far(0.0),
        far(3.0),
        far(6.0),
        far(9.0),
    ];
    let balls = match sphere.as_str() {
        "1" => &balls[..1],
        "far" => &balls[1..],
        _ => &balls[..0],
    };
    // With `XPBD_FRAME_CAPSULE=1`, a capsule under the cloth's middle
    // (a character's limb), swaying slowly: the SoA frame's contact list.
    let mut limb = Capsule::new(
        [mid, T::from_f64(-0.03), mid],
        [mid * T::from_f64(0.5), T::ZERO, T::ZERO],
        T::from_f64(0.03 + 0.004),
    );
    limb.velocity = [T::ZERO, T::ZERO, T::from_f64(0.01)];
    limb.static_friction = T::from_f64(0.3);
    limb.dynamic_friction = T::from_f64(0.2);
    let limbs = [limb];
    let limbs = if std::env::var("XPBD_FRAME_CAPSULE").is_ok_and(|v| v == "1") {
        &limbs[..]
    } else {
        &limbs[..0]
    };
    // With `XPBD_FRAME_BENDS=1`, the cloth's bends too (greedy colors).
    let with_bends = std::env::var("XPBD_FRAME_BENDS").is_ok_and(|v| v == "1");
    let mut bends = vec![
        Bend::default();
        if with_bends {
            bends_count_for_cloth(side, side)
        } else {
            0
        }
    ];
    if with_bends {
        bends_for_cloth(&x, side, side, T::from_f64(1e-3), &mut bends).expect("bends");
    }
    let (mut bend_colors, mut used) = (vec![0u32; bends.len()], vec![0u64; n]);
    let c = color_instances(&bends, n, &mut used, &mut bend_colors).expect("bend coloring");
    let (mut bend_starts, mut order) = (vec![0usize; c as usize + 1], vec![0u32; bends.len()]);
    color_order(&bend_colors, c, &mut bend_starts, &mut order).expect("order");
    let mut sorted_bends = bends.clone();
    fill_in_order(&bends, &order, &mut sorted_bends).expect("fill");
    let gc = GroupColors {
        links: &starts,
        bends: &bend_starts,
        ..Default::default()
    };
    // With `XPBD_FRAME_ATTACH=1`, the row of particles along one edge held
    // by attachments (compliance 1e-6 m/N) at their start (a cape's
    // shoulder line).
    let mut held: Vec<Attachment<T>> = if std::env::var("XPBD_FRAME_ATTACH").is_ok_and(|v| v == "1")
    {
        (0..side)
            .map(|k| Attachment::new(k as u32, x[k], T::from_f64(1e-6)))
            .collect()
    } else {
        Vec::new()
    };
    let dt = T::from_f64(1.0 / 60.0);
    let t = Instant::now();
    for _ in 0..frames {
        let mut world = World::new(&mut x, &mut v, &w, &mut contacts, &mut scratch);
        world.links = &mut sorted;
        world.colliders = Some(Colliders {
            planes: &planes,
            spheres: balls,
            capsules: limbs,
            ..Default::default()
        });
        world.groups = Some(Constraints {
            bends: &mut sorted_bends,
            attachments: &mut held,
            ..Default::default()
        });
        step_colored_on(&mut world, &gc, &mut stamp, dt, &config, &OneThread, isa).expect("frame");
    }
    t.elapsed().as_secs_f64() * 1e9 / (frames as f64 * 8.0 * m as f64)
}

/// The f64 frame through the C entry point (the calling thread).
fn run_c(side: usize, frames: usize) -> f64 {
    use core::ptr;
    use xpbd::ffi::{
        xpbd_colliders3_default, xpbd_step_config3_default, xpbd_world3_add, xpbd_world3_default,
        xpbd_world3_requirements, xpbd_world3_step_colored, XpbdGroupColors, XpbdPlane3,
        XpbdRequirements, XpbdStatus,
    };
    let Cloth {
        mut x,
        links: mut sorted,
        starts,
        w,
    } = cloth_scene::<f64>(side);
    let (n, m) = (x.len(), sorted.len());
    let c = starts.len() - 1;
    let r = 0.002;
    let mut v = vec![[0.0; 3]; n];
    let planes = [XpbdPlane3 {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    let mut world = xpbd_world3_default();
    world.positions = x.as_mut_ptr();
    world.velocities = v.as_mut_ptr();
    world.inverse_masses = w.as_ptr();
    world.particle_count = n;
    world.links = sorted.as_mut_ptr();
    world.link_count = m;
    let mut colliders = xpbd_colliders3_default();
    colliders.planes = planes.as_ptr();
    colliders.plane_count = 1;
    let mut req = XpbdRequirements::default();
    // SAFETY: the world, the block and the output are valid and disjoint.
    unsafe {
        assert_eq!(
            xpbd_world3_add(&mut world, ptr::addr_of_mut!(colliders).cast()),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_world3_requirements(&mut world, &mut req),
            XpbdStatus::Ok
        );
    }
    let mut memory = vec![0u64; req.memory_size.div_ceil(8)];
    world.memory = memory.as_mut_ptr().cast();
    world.memory_size = req.memory_size;
    let mut config = xpbd_step_config3_default();
    config.substeps = 8;
    config.damping = 0.0;
    config.particle_radius = r;
    config.static_friction = 0.2;
    config.dynamic_friction = 0.1;
    let gc = XpbdGroupColors {
        link_color_starts: starts.as_ptr(),
        link_color_count: c,
        bend_color_starts: ptr::null(),
        bend_color_count: 0,
        tet_color_starts: ptr::null(),
        tet_color_count: 0,
        tether_color_starts: ptr::null(),
        tether_color_count: 0,
    };
    let t = Instant::now();
    for _ in 0..frames {
        // SAFETY: every buffer the world names is valid and disjoint; no
        // job system: the calling thread.
        let status = unsafe {
            xpbd_world3_step_colored(
                &mut world,
                &gc,
                1.0 / 60.0,
                &config,
                ptr::null(),
                ptr::null_mut(),
            )
        };
        assert_eq!(status, XpbdStatus::Ok);
    }
    t.elapsed().as_secs_f64() * 1e9 / (frames as f64 * 8.0 * m as f64)
}

fn main() {
    let arg = |k: usize| std::env::args().nth(k);
    let side: usize = arg(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let frames: usize = arg(2).and_then(|s| s.parse().ok()).unwrap_or(60);
    if arg(3).is_some_and(|p| p == "c") {
        let ns = run_c(side, frames);
        println!(
            "{side}² cloth f64 through xpbd_world3_step_colored: {ns:.2} ns per link and substep"
        );
        return;
    }
    let f32 = arg(3).is_some_and(|p| p == "f32");
    let isa = arg(4)
        .and_then(|b| b.parse().ok())
        .map_or(Isa::detect(), |mask| Isa::detect().restrict(mask));
    let ns = if f32 {
        run::<f32>(side, frames, isa)
    } else {
        run::<f64>(side, frames, isa)
    };
    let p = if f32 { "f32" } else { "f64" };
    // (An f32 frame runs at most the AVX2 kernel, whatever the set.)
    println!(
        "{side}² cloth {p}, isa {}: {ns:.2} ns per link and substep",
        isa.kernel_name()
    );
}
