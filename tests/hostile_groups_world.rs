//! Hostile C callers of the constraint-group ABI (issue 15), continued:
//! `xpbd_world3_step` with a groups block (bad constraints named as the
//! system names them, NULL and aliased groups against the world's
//! buffers, memory and blocks, bit-for-bit against the Rust `step` with
//! `World::groups`), `xpbd_build_tethers3` against `xpbd::tethers` with
//! every refusal writing nothing, and the `_f32` twins. Called from Rust
//! so that Miri checks the slices the C layer forms.

#[path = "support/groups.rs"]
mod groups;

use core::ptr;
use groups::*;
use xpbd::ffi::*;
use xpbd::step::{step, Colliders, StepConfig, World};
use xpbd::{Constraints, Link, MeshVolumes, System, Tether, ZeroLength};

// ---- The world ----

#[test]
fn the_world_step_names_the_same_constraints_and_restores_everything() {
    // Under Miri (CI budget) the odd cases and the short mesh scratch (its
    // slice is formed shorter); hostile_groups.rs takes the even ones
    // through `xpbd_system3_begin_substep_groups` there. Every case is a
    // value refused after the same C reads; natively both take all.
    let cases = bad_cases().into_iter().enumerate();
    let cases = cases.filter(|(k, c)| !cfg!(miri) || k % 2 == 1 || c.0 == "mesh scratch");
    for (_, (what, edit, status, index)) in cases {
        let mut s = Scene::new();
        edit(&mut s);
        let mut world_store = WorldStore::new(&s);
        let mut world = world_store.world(&mut s);
        let config = config();
        let before = (s.snapshot(), bytes(&world_store.v));
        let mut stats = XpbdStepStats::default();
        // SAFETY: valid, disjoint buffers.
        let got = unsafe { xpbd_world3_step(&mut world, 1.0 / 60.0, &config, &mut stats) };
        assert_eq!(
            (got, world.error_index, world.error_field),
            (status, index, XPBD_FIELD_NONE),
            "{what}"
        );
        assert_eq!((s.snapshot(), bytes(&world_store.v)), before, "{what}");
        assert_eq!(stats, XpbdStepStats::default());
    }
}

#[test]
fn the_world_step_with_groups_matches_the_rust_step_bit_for_bit() {
    let mut c = Scene::new();
    let mut r = c.clone();
    let (mut cw, mut rw) = (WorldStore::new(&c), WorldStore::new(&r));
    let mut world = cw.world(&mut c);
    let cfg = config();
    // Under Miri (CI budget) one frame: a second runs the same calls.
    let frames = if cfg!(miri) { 1 } else { 30 };
    let mut c_stats = Vec::new();
    for _ in 0..frames {
        let mut stats = XpbdStepStats::default();
        // SAFETY: valid, disjoint buffers.
        let st = unsafe { xpbd_world3_step(&mut world, 1.0 / 60.0, &cfg, &mut stats) };
        assert_eq!(st, XpbdStatus::Ok);
        c_stats.push(stats);
    }
    // `config()`: the C default (the Rust `StepConfig::default()`) edited.
    let rust_config = StepConfig {
        substeps: 4,
        iterations: 2,
        damping: 0.5,
        zero_length: ZeroLength::Skip,
        ..StepConfig::default()
    };
    for stats in &c_stats {
        let mut world = World::new(&mut r.x, &mut rw.v, &r.w, &mut rw.contacts, &mut rw.scratch);
        world.links = &mut r.links;
        world.colliders = Some(Colliders {
            planes: &rw.planes,
            ..Default::default()
        });
        world.groups = Some(Constraints {
            bends: &mut r.bends,
            tets: &mut r.tets,
            tethers: &mut r.tethers,
            meshes: MeshVolumes {
                volumes: &mut r.meshes,
                triangles: &r.triangles,
                particles: &r.particles,
                scratch: &mut r.scratch,
            },
            attachments: &mut [],
            skin_constraints: &mut [],
        });
        assert_eq!(step(&mut world, 1.0 / 60.0, &rust_config).unwrap(), *stats);
    }
    assert_eq!(c.snapshot(), r.snapshot());
    assert_eq!(bytes(&cw.v), bytes(&rw.v));
}

#[test]
fn world_step_groups_refuses_null_and_aliased_groups() {
    let mut s = Scene::new();
    let mut store = WorldStore::new(&s);
    let mut world = store.world(&mut s);
    let g_ptr = store.groups_ptr();
    let block = store.groups.as_mut_ptr();
    let colliders = store.colliders.as_mut_ptr();
    let cfg = config();
    let mut stats = XpbdStepStats::default();
    let before = (s.snapshot(), bytes(&store.v));
    let world_ptr = ptr::addr_of_mut!(world);
    let cfg_ptr = ptr::addr_of!(cfg);
    let stats_ptr = ptr::addr_of_mut!(stats);
    // SAFETY: valid buffers; the overlapping ones are refused before use.
    unsafe {
        let good = *g_ptr;
        assert_eq!(
            xpbd_world3_step(world_ptr, 1.0 / 60.0, ptr::null(), stats_ptr),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_world3_step(ptr::null_mut(), 1.0 / 60.0, cfg_ptr, stats_ptr),
            XpbdStatus::NullPointer
        );
        let w = *world_ptr;
        // The memory: the step scratch (3 × 6 positions), then the contacts.
        let memory = w.memory.cast::<u8>();
        let contacts = memory.wrapping_add(18 * 24);
        let cases: Vec<(&str, XpbdConstraints3, *mut XpbdStepStats)> = vec![
            (
                "tethers over velocities",
                XpbdConstraints3 {
                    tethers: w.velocities.cast(),
                    ..good
                },
                stats_ptr,
            ),
            (
                "scratch over the memory's scratch",
                XpbdConstraints3 {
                    mesh_scratch: memory.cast(),
                    ..good
                },
                stats_ptr,
            ),
            (
                "bends over the memory's contacts",
                XpbdConstraints3 {
                    bends: contacts.cast(),
                    ..good
                },
                stats_ptr,
            ),
            (
                "tets over the world",
                XpbdConstraints3 {
                    tets: world_ptr.cast(),
                    ..good
                },
                stats_ptr,
            ),
            (
                "meshes over the config",
                XpbdConstraints3 {
                    mesh_volumes: cfg_ptr.cast_mut().cast(),
                    ..good
                },
                stats_ptr,
            ),
            (
                "tethers over the output",
                XpbdConstraints3 {
                    tethers: stats_ptr.cast(),
                    ..good
                },
                stats_ptr,
            ),
            (
                "triangles over positions",
                XpbdConstraints3 {
                    triangles: w.positions.cast_const().cast(),
                    ..good
                },
                stats_ptr,
            ),
            (
                "tets over the colliders block",
                XpbdConstraints3 {
                    tets: colliders.cast(),
                    ..good
                },
                stats_ptr,
            ),
            (
                "bends over the groups block's header",
                XpbdConstraints3 {
                    bends: block.cast(),
                    ..good
                },
                stats_ptr,
            ),
            (
                "triangles over the planes",
                XpbdConstraints3 {
                    triangles: store.planes.as_ptr().cast(),
                    ..good
                },
                stats_ptr,
            ),
            ("output over the groups block", good, block.cast()),
            ("output over the groups struct", good, g_ptr.cast()),
            ("output over the tethers", good, good.tethers.cast()),
            (
                "tethers NULL",
                XpbdConstraints3 {
                    tethers: ptr::null_mut(),
                    ..good
                },
                stats_ptr,
            ),
        ];
        for (what, bad, out) in cases {
            *g_ptr = bad;
            let want = if what.ends_with("NULL") {
                XpbdStatus::NullPointer
            } else {
                XpbdStatus::AliasedBuffers
            };
            (*world_ptr).error_index = 77;
            (*world_ptr).error_field = 77;
            assert_eq!(
                xpbd_world3_step(world_ptr, 1.0 / 60.0, cfg_ptr, out),
                want,
                "{what}"
            );
            assert_eq!((s.snapshot(), bytes(&store.v)), before, "{what}");
            assert_eq!(
                ((*world_ptr).error_index, (*world_ptr).error_field),
                (0, XPBD_FIELD_NONE),
                "{what}"
            );
        }
        assert_eq!(*stats_ptr, XpbdStepStats::default());
        *g_ptr = good;
        assert_eq!(
            xpbd_world3_step(world_ptr, 1.0 / 60.0, cfg_ptr, stats_ptr),
            XpbdStatus::Ok
        );
        assert_eq!((*stats_ptr).substeps, 4);
    }
}

// ---- The tether builder ----

#[test]
fn the_c_tether_builder_is_the_rust_one_and_writes_nothing_on_error() {
    let x = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.2, -1.0, 0.0],
        [0.9, -2.0, 0.0],
    ];
    let w = [0.0, 0.0, 1.0, 1.0];
    let anchors = [0u32, 1];
    let sentinel = Tether::new(9, 9, 9.0, 9.0);
    let mut out = [sentinel; 3];
    let mut count = 77usize;
    let mut rust = [Tether::default(); 3];
    assert_eq!(xpbd::tethers(&x, &w, &anchors, 1e-7, &mut rust), Ok(2));
    // SAFETY: every buffer valid for its count, disjoint.
    unsafe {
        let build = |x: *const f64,
                     n: usize,
                     a: *const u32,
                     na: usize,
                     out: *mut XpbdTether,
                     cap: usize,
                     count: *mut usize| {
            xpbd_build_tethers3(x, w.as_ptr(), n, a, na, 1e-7, out, cap, count)
        };
        assert_eq!(
            build(
                x.as_ptr().cast(),
                4,
                anchors.as_ptr(),
                2,
                out.as_mut_ptr(),
                3,
                &mut count
            ),
            XpbdStatus::Ok
        );
        assert_eq!((count, &out[..2], out[2]), (2, &rust[..2], sentinel));
        let mut out = [sentinel; 3];
        let mut count = 77usize;
        let o = out.as_mut_ptr();
        let refused = [
            (
                build(
                    x.as_ptr().cast(),
                    4,
                    anchors.as_ptr(),
                    2,
                    o,
                    3,
                    ptr::null_mut(),
                ),
                XpbdStatus::NullPointer,
            ),
            (
                build(ptr::null(), 4, anchors.as_ptr(), 2, o, 3, &mut count),
                XpbdStatus::NullPointer,
            ),
            (
                build(x.as_ptr().cast(), 4, ptr::null(), 2, o, 3, &mut count),
                XpbdStatus::NullPointer,
            ),
            (
                build(
                    x.as_ptr().cast(),
                    4,
                    anchors.as_ptr(),
                    2,
                    ptr::null_mut(),
                    3,
                    &mut count,
                ),
                XpbdStatus::NullPointer,
            ),
            (
                build(x.as_ptr().cast(), 4, anchors.as_ptr(), 0, o, 3, &mut count),
                XpbdStatus::InvalidArgument,
            ),
            (
                build(x.as_ptr().cast(), 4, [4u32].as_ptr(), 1, o, 3, &mut count),
                XpbdStatus::InvalidArgument,
            ),
            (
                build(x.as_ptr().cast(), 4, anchors.as_ptr(), 2, o, 1, &mut count),
                XpbdStatus::CapacityTooSmall,
            ),
            (
                build(o.cast(), 3, anchors.as_ptr(), 2, o, 3, &mut count),
                XpbdStatus::AliasedBuffers,
            ),
            (
                build(x.as_ptr().cast(), 4, anchors.as_ptr(), 2, o, 3, o.cast()),
                XpbdStatus::AliasedBuffers,
            ),
            (
                build(x.as_ptr().cast(), 4, x.as_ptr().cast(), 2, o, 3, &mut count),
                XpbdStatus::AliasedBuffers,
            ),
            (
                build(
                    x.as_ptr().cast::<u8>().wrapping_add(4).cast(),
                    3,
                    anchors.as_ptr(),
                    2,
                    o,
                    3,
                    &mut count,
                ),
                XpbdStatus::InvalidArgument,
            ),
        ];
        for (k, (got, want)) in refused.iter().enumerate() {
            assert_eq!(got, want, "case {k}");
        }
        let mut bad = x;
        bad[3][2] = f64::INFINITY;
        assert_eq!(
            xpbd_build_tethers3(
                bad.as_ptr().cast(),
                w.as_ptr(),
                4,
                anchors.as_ptr(),
                2,
                0.0,
                o,
                3,
                &mut count
            ),
            XpbdStatus::NonFinitePosition
        );
        assert_eq!((out, count), ([sentinel; 3], 77));
    }
}

// ---- The f32 twins ----

#[test]
fn the_f32_twins_match_the_rust_api() {
    let x0: Vec<[f32; 3]> = vec![[0.0, 0.0, 0.0], [0.0, -0.5, 0.0], [0.1, -1.6, 0.0]];
    let w = [0.0f32, 1.0, 1.0];
    let (mut cx, mut rx) = (x0.clone(), x0.clone());
    let (mut cl, mut rl) = (
        [Link::new(0, 1, 0.5f32, 0.0)],
        [Link::new(0, 1, 0.5f32, 0.0)],
    );
    let mut ct = [XpbdTetherF32::default(); 2];
    let mut count = 0;
    // SAFETY: every buffer valid for its count, disjoint.
    unsafe {
        let st = xpbd_build_tethers3_f32(
            x0.as_ptr().cast(),
            w.as_ptr(),
            3,
            [0u32].as_ptr(),
            1,
            0.0,
            ct.as_mut_ptr(),
            2,
            &mut count,
        );
        assert_eq!((st, count), (XpbdStatus::Ok, 2));
    }
    assert_eq!((ct[1].particle, ct[1].anchor), (2, 0));
    ct[1].max_distance = 1.0; // particle 2 is 1.6 m away: pulled
    let mut rt = ct;
    let mut sys = XpbdSystem3F32 {
        positions: cx.as_mut_ptr(),
        inverse_masses: w.as_ptr(),
        particle_count: 3,
        links: cl.as_mut_ptr(),
        link_count: 1,
        zero_length_policy: XPBD_ZERO_LENGTH_REJECT,
        substep_active: 0,
        h: 0.0,
        error_index: 0,
    };
    let g = XpbdConstraints3F32 {
        bends: ptr::null_mut(),
        bend_count: 0,
        tets: ptr::null_mut(),
        tet_count: 0,
        tethers: ct.as_mut_ptr(),
        tether_count: 2,
        mesh_volumes: ptr::null_mut(),
        mesh_volume_count: 0,
        triangles: ptr::null(),
        triangle_count: 0,
        mesh_scratch: ptr::null_mut(),
        mesh_scratch_count: 0,
        attachments: core::ptr::null_mut(),
        attachment_count: 0,
        mesh_particles: ptr::null(),
        mesh_particle_count: 0,
        skin_constraints: core::ptr::null_mut(),
        skin_constraint_count: 0,
    };
    let (mut s, mut m) = (XpbdSweepStatsF32::default(), XpbdSweepStatsF32::default());
    let mut conv = XpbdConvergenceF32::default();
    // SAFETY: as above.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_groups_f32(&mut sys, &g, 0.01),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_system3_iterate_groups_f32(&mut sys, &g, &mut s),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_system3_iterate_until_groups_f32(&mut sys, &g, 1e-6, 4, &mut conv),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_system3_measure_groups_f32(&mut sys, &g, &mut m),
            XpbdStatus::Ok
        );
    }
    {
        let mut system = System::new(&mut rx, &w, &mut rl)
            .unwrap()
            .with_constraints(Constraints {
                tethers: &mut rt,
                ..Constraints::default()
            });
        let mut sub = system.begin_substep(0.01).unwrap();
        assert_eq!(sub.iterate().unwrap(), s);
        assert_eq!(sub.iterate_until(1e-6, 4).unwrap(), conv);
        assert_eq!(sub.measure().unwrap(), m);
    }
    assert_eq!(cx, rx);
    assert_eq!(ct, rt);
    assert!(ct[1].lambda < 0.0, "the far tether pulls");
    // The stepped twin: the groups as a block.
    let mut v = [[0.0f32; 3]; 3];
    let mut world = xpbd_world3_default_f32();
    world.positions = cx.as_mut_ptr();
    world.velocities = v.as_mut_ptr();
    world.inverse_masses = w.as_ptr();
    world.particle_count = 3;
    world.links = cl.as_mut_ptr();
    world.link_count = 1;
    let mut block = xpbd_groups3_default_f32();
    block.groups = g;
    let bp = ptr::addr_of_mut!(block);
    let config = xpbd_step_config3_default_f32();
    let mut stats = XpbdStepStatsF32::default();
    // SAFETY: as above; the block outlives the world's use.
    let st = unsafe {
        assert_eq!(xpbd_world3_add_f32(&mut world, bp.cast()), XpbdStatus::Ok);
        let mut r = XpbdRequirements::default();
        assert_eq!(
            xpbd_world3_requirements_f32(&mut world, &mut r),
            XpbdStatus::Ok
        );
        assert_eq!(r.scratch, 11); // 3 × 3 particles + ⌈6 × 1 link / 3⌉
        let mut memory = vec![0u64; r.memory_size.div_ceil(8)];
        world.memory = memory.as_mut_ptr().cast();
        world.memory_size = r.memory_size;
        xpbd_world3_step_f32(&mut world, 1.0 / 60.0, &config, &mut stats)
    };
    assert_eq!(
        (st, stats.substeps),
        (XpbdStatus::Ok, xpbd::step::DEFAULT_SUBSTEPS)
    );
    let mut rv = [[0.0f32; 3]; 3];
    let mut rs = [[0.0f32; 3]; 11];
    let mut rworld = World::new(&mut rx, &mut rv, &w, &mut [], &mut rs);
    rworld.links = &mut rl;
    rworld.groups = Some(Constraints {
        tethers: &mut rt,
        ..Constraints::default()
    });
    // The C default configuration is the Rust default.
    let r = step(&mut rworld, 1.0 / 60.0, &StepConfig::default()).unwrap();
    assert_eq!(r, stats);
    assert_eq!((cx, v, ct), (rx, rv, rt));
}
