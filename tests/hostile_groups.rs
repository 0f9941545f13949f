//! Hostile C callers of the constraint-group ABI (issue 15), the system
//! entry points (`xpbd_system3_*_groups`; the world step, the tether
//! builder and the f32 twins are in `hostile_groups_world.rs`), called from
//! Rust so that Miri checks every slice the C layer forms: NULL,
//! misaligned, oversized and aliased group arrays (against each other, the
//! system's or world's buffers, the structs and the outputs), bad indices
//! named after the links, forged active structs, edits inside a substep,
//! the work limit, and nothing written on every rejected call (every
//! buffer compared byte by byte, links field by field). The successful
//! calls are compared bit for bit with the Rust API they wrap.

#[path = "support/groups.rs"]
mod groups;

use core::ptr;
use groups::*;
use xpbd::ffi::*;
use xpbd::{Constraints, Group, MeshVolumes, System, Tether, ZeroLength};

// ---- Lifecycle ----

#[test]
fn iterate_without_begin_is_no_substep_and_writes_nothing() {
    let mut s = Scene::new();
    let mut sys = s.system();
    let g = s.groups();
    let (mut stats, mut conv) = (sentinel_stats(), sentinel_convergence());
    let before = s.snapshot();
    // SAFETY: valid, disjoint buffers.
    let r = unsafe { resumed_calls(&mut sys, &g, &mut stats, &mut conv) };
    assert_eq!(r, [XpbdStatus::NoSubstep; 3]);
    assert_eq!(s.snapshot(), before);
    assert_eq!((stats, conv), (sentinel_stats(), sentinel_convergence()));
    assert_eq!((sys.substep_active, sys.error_index), (0, 0));
}

#[test]
fn begin_resets_every_lambda_and_iterate_never_does() {
    let mut s = Scene::new();
    let mut sys = s.system();
    let g = s.groups();
    // SAFETY: valid, disjoint buffers.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut sys, &g, H),
            XpbdStatus::Ok
        );
        assert_eq!((sys.substep_active, sys.h), (1, H));
        let lambdas = |s: &Scene| {
            let mut v: Vec<u64> = s.links.iter().map(|l| l.lambda.to_bits()).collect();
            v.extend(s.bends.iter().map(|b| b.lambda.to_bits()));
            v.extend(s.tets.iter().map(|t| t.lambda.to_bits()));
            v.extend(s.tethers.iter().map(|t| t.lambda.to_bits()));
            v.extend(s.meshes.iter().map(|m| m.lambda.to_bits()));
            v
        };
        assert_eq!(lambdas(&s), vec![0; 8], "links and every group reset");
        assert_eq!(
            xpbd_system3_iterate_groups(&mut sys, &g, ptr::null_mut()),
            XpbdStatus::Ok
        );
        let first = s.tethers[0].lambda;
        // Particle 5 is held by its tether alone: one rigid sweep puts it
        // on its radius, the next one adds (almost) nothing to λ.
        assert!(first < -0.1, "the far tether pulls: λ {first}");
        assert!((distance(s.x[0], s.x[5]) - 1.0).abs() < 1e-12);
        assert_eq!(
            xpbd_system3_iterate_groups(&mut sys, &g, ptr::null_mut()),
            XpbdStatus::Ok
        );
        let second = s.tethers[0].lambda;
        assert!(
            (second - first).abs() < 1e-9 * first.abs(),
            "kept: {first} then {second}"
        );
        assert!(s.tethers.iter().all(|t| t.lambda <= 0.0));
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut sys, &g, H),
            XpbdStatus::Ok
        );
        assert_eq!(lambdas(&s), vec![0; 8]);
    }
}

#[test]
fn c_calls_match_the_rust_api_bit_for_bit() {
    let mut c = Scene::new();
    let mut r = c.clone();
    let mut sys = c.system();
    let g = c.groups();
    let (mut s1, mut s2, mut m) = (
        XpbdSweepStats::default(),
        XpbdSweepStats::default(),
        XpbdSweepStats::default(),
    );
    let mut conv = XpbdConvergence::default();
    // SAFETY: valid, disjoint buffers.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut sys, &g, H),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_system3_iterate_groups(&mut sys, &g, &mut s1),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_system3_iterate_groups(&mut sys, &g, &mut s2),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_system3_iterate_until_groups(&mut sys, &g, 1e-12, 5, &mut conv),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_system3_measure_groups(&mut sys, &g, &mut m),
            XpbdStatus::Ok
        );
    }
    {
        let mut system = System::new(&mut r.x, &r.w, &mut r.links)
            .unwrap()
            .with_zero_length(ZeroLength::Skip)
            .with_constraints(Constraints {
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
        let mut sub = system.begin_substep(H).unwrap();
        assert_eq!(sub.iterate().unwrap(), s1);
        assert_eq!(sub.iterate().unwrap(), s2);
        assert_eq!(sub.iterate_until(1e-12, 5).unwrap(), conv);
        assert_eq!(sub.measure().unwrap(), m);
    }
    assert_eq!(c.snapshot(), r.snapshot());
    assert!(s1.applied > 0);
}

// ---- NULL, alignment, size ----

#[test]
fn null_groups_and_null_arrays_with_counts_are_refused() {
    let mut s = Scene::new();
    let mut sys = s.system();
    let g = s.groups();
    let (mut stats, mut conv) = (sentinel_stats(), sentinel_convergence());
    let before = s.snapshot();
    // SAFETY: valid buffers; the NULLs are the point.
    unsafe {
        sys.substep_active = 1; // a stale active flag: a failed begin clears it
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut sys, ptr::null(), H),
            XpbdStatus::NullPointer
        );
        assert_eq!(sys.substep_active, 0);
        assert_eq!(
            xpbd_system3_begin_substep_groups(ptr::null_mut(), &g, H),
            XpbdStatus::NullPointer
        );
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut sys, &g, H),
            XpbdStatus::Ok
        );
        let begun = s.snapshot();
        let r = resumed_calls(&mut sys, ptr::null(), &mut stats, &mut conv);
        assert_eq!(r, [XpbdStatus::NullPointer; 3]);
        let r = resumed_calls(ptr::null_mut(), &g, &mut stats, &mut conv);
        assert_eq!(r, [XpbdStatus::NullPointer; 3]);
        assert_eq!(
            xpbd_system3_measure_groups(&mut sys, &g, ptr::null_mut()),
            XpbdStatus::NullPointer
        );
        // Each array NULL with its count kept.
        let nulls: [fn(&mut XpbdConstraints3); 6] = [
            |g| g.bends = ptr::null_mut(),
            |g| g.tets = ptr::null_mut(),
            |g| g.tethers = ptr::null_mut(),
            |g| g.mesh_volumes = ptr::null_mut(),
            |g| g.triangles = ptr::null(),
            |g| g.mesh_scratch = ptr::null_mut(),
        ];
        for (k, f) in nulls.iter().enumerate() {
            let mut bad = g;
            f(&mut bad);
            let r = resumed_calls(&mut sys, &bad, &mut stats, &mut conv);
            assert_eq!(r, [XpbdStatus::NullPointer; 3], "array {k}");
            assert_eq!(
                xpbd_system3_begin_substep_groups(&mut sys, &bad, H),
                XpbdStatus::NullPointer
            );
            assert_eq!(sys.substep_active, 0, "array {k}");
            sys.substep_active = 1;
        }
        assert_eq!(s.snapshot(), begun);
        assert_eq!((stats, conv), (sentinel_stats(), sentinel_convergence()));
        assert_eq!(sys.error_index, 0);
    }
    assert_ne!(before, s.snapshot(), "the successful begin did reset λ");
    // NULL with a zero count is no group at all.
    let mut empty = XpbdConstraints3 {
        bends: ptr::null_mut(),
        bend_count: 0,
        tets: ptr::null_mut(),
        tet_count: 0,
        tethers: ptr::null_mut(),
        tether_count: 0,
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
        skin_constraints: ptr::null_mut(),
        skin_constraint_count: 0,
    };
    // SAFETY: valid buffers, empty groups.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut sys, &empty, H),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_system3_iterate_groups(&mut sys, &empty, ptr::null_mut()),
            XpbdStatus::Ok
        );
        empty.tether_count = 1;
        assert_eq!(
            xpbd_system3_iterate_groups(&mut sys, &empty, ptr::null_mut()),
            XpbdStatus::NullPointer
        );
    }
}

#[test]
fn misaligned_and_oversized_arrays_are_invalid_arguments() {
    let mut s = Scene::new();
    let mut sys = s.system();
    let g = s.groups();
    // SAFETY: valid buffers; the misaligned pointers are never dereferenced.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut sys, &g, H),
            XpbdStatus::Ok
        );
        let before = s.snapshot();
        let cases: [fn(&mut XpbdConstraints3); 8] = [
            |g| g.bends = g.bends.cast::<u8>().wrapping_add(1).cast(),
            |g| g.tets = g.tets.cast::<u8>().wrapping_add(4).cast(),
            |g| g.tethers = g.tethers.cast::<u8>().wrapping_add(1).cast(),
            |g| g.mesh_volumes = g.mesh_volumes.cast::<u8>().wrapping_add(2).cast(),
            |g| g.triangles = g.triangles.cast::<u8>().wrapping_add(1).cast(),
            |g| g.mesh_scratch = g.mesh_scratch.cast::<u8>().wrapping_add(4).cast(),
            |g| g.tether_count = usize::MAX,
            |g| g.triangle_count = usize::MAX / 4,
        ];
        let (mut stats, mut conv) = (sentinel_stats(), sentinel_convergence());
        for (k, f) in cases.iter().enumerate() {
            let mut bad = g;
            f(&mut bad);
            let r = resumed_calls(&mut sys, &bad, &mut stats, &mut conv);
            assert_eq!(r, [XpbdStatus::InvalidArgument; 3], "case {k}");
            assert_eq!(
                xpbd_system3_begin_substep_groups(&mut sys, &bad, H),
                XpbdStatus::InvalidArgument
            );
            sys.substep_active = 1;
        }
        assert_eq!(s.snapshot(), before);
        assert_eq!((stats, conv), (sentinel_stats(), sentinel_convergence()));
    }
}

// ---- Aliasing ----

#[test]
fn group_arrays_overlapping_anything_else_are_refused() {
    let mut s = Scene::new();
    let mut sys = s.system();
    let mut g = s.groups();
    let (x, w, links) = (sys.positions, sys.inverse_masses, sys.links);
    let sys_ptr = ptr::addr_of_mut!(sys);
    let g_ptr = ptr::addr_of_mut!(g);
    // SAFETY: valid buffers; the overlapping ones are refused before use.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_groups(sys_ptr, g_ptr, H),
            XpbdStatus::Ok
        );
        let before = s.snapshot();
        let good = *g_ptr;
        let cases: Vec<(&str, XpbdConstraints3)> = vec![
            (
                "tethers over bends",
                XpbdConstraints3 {
                    tethers: good.bends.cast(),
                    ..good
                },
            ),
            (
                "tets over meshes",
                XpbdConstraints3 {
                    tets: good.mesh_volumes.cast(),
                    ..good
                },
            ),
            (
                "scratch over tethers",
                XpbdConstraints3 {
                    mesh_scratch: good.tethers.cast(),
                    ..good
                },
            ),
            (
                "triangles over tets",
                XpbdConstraints3 {
                    triangles: good.tets.cast_const().cast(),
                    ..good
                },
            ),
            (
                "tethers over positions",
                XpbdConstraints3 {
                    tethers: x.cast(),
                    ..good
                },
            ),
            (
                "scratch over positions",
                XpbdConstraints3 {
                    mesh_scratch: x,
                    ..good
                },
            ),
            (
                "bends over links",
                XpbdConstraints3 {
                    bends: links.cast(),
                    ..good
                },
            ),
            (
                "tets over inverse masses",
                XpbdConstraints3 {
                    tets: w.cast_mut().cast(),
                    ..good
                },
            ),
            (
                "meshes over the system struct",
                XpbdConstraints3 {
                    mesh_volumes: sys_ptr.cast(),
                    ..good
                },
            ),
            (
                "tethers over the groups struct",
                XpbdConstraints3 {
                    tethers: g_ptr.cast(),
                    ..good
                },
            ),
        ];
        let (mut stats, mut conv) = (sentinel_stats(), sentinel_convergence());
        for (what, bad) in cases {
            *g_ptr = bad;
            let r = resumed_calls(sys_ptr, g_ptr, &mut stats, &mut conv);
            assert_eq!(r, [XpbdStatus::AliasedBuffers; 3], "{what}");
            assert_eq!(
                xpbd_system3_begin_substep_groups(sys_ptr, g_ptr, H),
                XpbdStatus::AliasedBuffers,
                "{what}"
            );
            (*sys_ptr).substep_active = 1;
            assert_eq!(s.snapshot(), before, "{what}");
        }
        *g_ptr = good;
        // Outputs over a group array or over the groups struct.
        let over_tethers = good.tethers.cast::<XpbdSweepStats>();
        assert_eq!(
            xpbd_system3_iterate_groups(sys_ptr, g_ptr, over_tethers),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_system3_measure_groups(sys_ptr, g_ptr, good.bends.cast()),
            XpbdStatus::AliasedBuffers
        );
        let over_scratch = good.mesh_scratch.cast::<XpbdConvergence>();
        assert_eq!(
            xpbd_system3_iterate_until_groups(sys_ptr, g_ptr, 0.0, 3, over_scratch),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_system3_iterate_groups(sys_ptr, g_ptr, g_ptr.cast()),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(s.snapshot(), before);
        assert_eq!((*sys_ptr).error_index, 0);
        assert_eq!((stats, conv), (sentinel_stats(), sentinel_convergence()));
        // The groups struct is a buffer of the call wherever it lives: an
        // output inside it is refused.
        let mut shared = [0u64; 32];
        let inner = shared.as_mut_ptr().cast::<XpbdConstraints3>();
        ptr::write(inner, good);
        assert_eq!(
            xpbd_system3_iterate_groups(sys_ptr, inner, inner.cast::<u8>().wrapping_add(48).cast()),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_system3_iterate_groups(sys_ptr, inner, ptr::null_mut()),
            XpbdStatus::Ok
        );
    }
}

#[test]
fn invalid_group_constraints_are_named_and_nothing_is_written() {
    // Under Miri (CI budget) the even cases; hostile_groups_world.rs takes
    // the odd ones through `xpbd_world3_step` there. Every case is a value
    // refused after the same C reads; natively both take all.
    let cases = bad_cases()
        .into_iter()
        .step_by(if cfg!(miri) { 2 } else { 1 });
    for (what, edit, status, index) in cases {
        let mut s = Scene::new();
        edit(&mut s);
        let mut sys = s.system();
        let g = s.groups();
        sys.substep_active = 1;
        let before = s.snapshot();
        // SAFETY: valid, disjoint buffers.
        let got = unsafe { xpbd_system3_begin_substep_groups(&mut sys, &g, H) };
        assert_eq!(
            (got, sys.error_index, sys.substep_active),
            (status, index, 0),
            "{what}"
        );
        assert_eq!(s.snapshot(), before, "{what}: stale λ and positions kept");
        // The index rule, read back by the Rust API.
        let c = Constraints {
            bends: &mut s.bends,
            tets: &mut s.tets,
            tethers: &mut s.tethers,
            meshes: MeshVolumes {
                volumes: &mut s.meshes,
                triangles: &s.triangles,
                particles: &s.particles,
                scratch: &mut s.scratch,
            },
            attachments: &mut [],
            skin_constraints: &mut [],
        };
        let expected = match what.split(' ').next().unwrap() {
            "bend" => (Group::Bends, 0),
            "tet" => (Group::Tets, 0),
            "tether" => (Group::Tethers, index - TETHER),
            "mesh" if status == XpbdStatus::CapacityTooSmall => continue, // a count
            _ => (Group::Meshes, 0),
        };
        assert_eq!(c.locate(L, index), Some(expected), "{what}");
    }
}

// ---- Forged structs, edits inside a substep ----

#[test]
fn a_forged_active_struct_has_its_h_positions_and_scratch_rechecked() {
    let mut s = Scene::new();
    let mut sys = s.system();
    let mut g = s.groups();
    let (mut stats, mut conv) = (sentinel_stats(), sentinel_convergence());
    let before = s.snapshot();
    // SAFETY: valid, disjoint buffers; edits go through the structs' pointers.
    unsafe {
        for h in [0.0, -H, f64::NAN, f64::INFINITY] {
            sys.substep_active = 1;
            sys.h = h;
            let r = resumed_calls(&mut sys, &g, &mut stats, &mut conv);
            assert_eq!(r, [XpbdStatus::InvalidTimeStep; 3], "h = {h}");
        }
        // A shortened scratch with a mesh attached.
        sys.h = H;
        g.mesh_scratch_count = 5;
        let r = resumed_calls(&mut sys, &g, &mut stats, &mut conv);
        assert_eq!((r, sys.error_index), ([XpbdStatus::CapacityTooSmall; 3], 6));
        g.mesh_scratch_count = 6;
        // A particle made NaN: named, nothing written.
        let saved = *sys.positions.add(4);
        (*sys.positions.add(4))[1] = f64::NAN;
        let mid = s.snapshot();
        let r = resumed_calls(&mut sys, &g, &mut stats, &mut conv);
        assert_eq!(
            (r, sys.error_index),
            ([XpbdStatus::NonFinitePosition; 3], 4)
        );
        assert_eq!(s.snapshot(), mid);
        *sys.positions.add(4) = saved;
        assert_eq!(s.snapshot(), before);
        assert_eq!((stats, conv), (sentinel_stats(), sentinel_convergence()));
        // A forged struct with a valid h runs (stale λ are not reset:
        // only begin_substep resets).
        assert_eq!(
            xpbd_system3_iterate_groups(&mut sys, &g, &mut stats),
            XpbdStatus::Ok
        );
        assert!(stats.applied > 0);
    }
}

#[test]
fn a_tether_broken_inside_a_substep_is_named_after_the_links() {
    let mut s = Scene::new();
    let mut sys = s.system();
    let g = s.groups();
    // SAFETY: valid, disjoint buffers; edits go through the struct's pointer.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut sys, &g, H),
            XpbdStatus::Ok
        );
        (*g.tethers.add(1)).anchor = 6;
        let (tether, mesh) = (bytes(&s.tethers[1..]), bytes(&s.meshes));
        let mut stats = sentinel_stats();
        assert_eq!(
            xpbd_system3_iterate_groups(&mut sys, &g, &mut stats),
            XpbdStatus::IndexOutOfRange
        );
        assert_eq!(sys.error_index, TETHER + 1);
        // It and the mesh after it are untouched; the out is not written.
        assert_eq!((bytes(&s.tethers[1..]), bytes(&s.meshes)), (tether, mesh));
        assert_eq!(stats, sentinel_stats());
        // The links and the tether before it were applied.
        assert!(s.tethers[0].lambda < 0.0 && s.links.iter().any(|l| l.lambda != 0.0));
        let mut m = sentinel_stats();
        assert_eq!(
            xpbd_system3_measure_groups(&mut sys, &g, &mut m),
            XpbdStatus::IndexOutOfRange
        );
        assert_eq!(m, sentinel_stats());
    }
}

// ---- Work limit ----

#[test]
#[cfg_attr(
    miri,
    ignore = "begins a substep over 16,382 tethers: a minute in the interpreter (CI budget); \
              the world step's case below runs"
)]
fn unbounded_work_with_groups_fails_at_once() {
    // 65 536 iterations × (3 links + 16 382 tethers) > 2^30 visits.
    let mut s = Scene::new();
    s.tethers = vec![Tether::new(5, 0, 10.0, 0.0); 16_382];
    let mut sys = s.system();
    let g = s.groups();
    // SAFETY: valid, disjoint buffers.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_groups(&mut sys, &g, H),
            XpbdStatus::Ok
        );
        let before = s.snapshot();
        let mut conv = sentinel_convergence();
        let r = xpbd_system3_iterate_until_groups(&mut sys, &g, 0.0, 65_536, &mut conv);
        assert_eq!(r, XpbdStatus::WorkLimit);
        assert_eq!(conv, sentinel_convergence());
        let mut world_store = WorldStore::new(&s);
        let mut world = world_store.world(&mut s);
        let mut config = config();
        (config.substeps, config.iterations) = (4096, 16);
        let r = xpbd_world3_step(&mut world, 1.0 / 60.0, &config, ptr::null_mut());
        assert_eq!(r, XpbdStatus::WorkLimit);
        assert_eq!(s.snapshot(), before);
    }
}

#[test]
fn the_world_steps_work_counts_the_groups() {
    // 4096 substeps × 16 384 iterations = 2^26 sweeps: 2^26 × (3 links + 12
    // contact slots) ≤ 2^30 visits, the scene's 5 group constraints take it
    // over. (Small enough for Miri, unlike the 16 382 tethers above.)
    let mut s = Scene::new();
    let before = s.snapshot();
    let mut world_store = WorldStore::new(&s);
    let mut world = world_store.world(&mut s);
    let mut config = config();
    (config.substeps, config.iterations) = (4096, 16_384);
    // SAFETY: valid, disjoint buffers.
    let r = unsafe { xpbd_world3_step(&mut world, 1.0 / 60.0, &config, ptr::null_mut()) };
    assert_eq!(r, XpbdStatus::WorkLimit);
    assert_eq!(s.snapshot(), before);
}
