//! The system and stepping C ABI called from Rust, so that Miri checks the
//! slices it builds from raw parts: valid buffers, NULL, overlapping
//! buffers, buffers over the system struct itself, and bad indices.

use core::ptr;
use xpbd::ffi::XpbdStatus;
use xpbd::ffi::{
    xpbd_build_rope3, xpbd_build_rope3_f32, xpbd_system3_begin_substep,
    xpbd_system3_begin_substep_f32, xpbd_system3_iterate, xpbd_system3_iterate_f32,
    xpbd_system3_iterate_until, xpbd_system3_measure,
};
use xpbd::ffi::{
    xpbd_colliders3_default, xpbd_step_config3_default, xpbd_step_scratch_len, xpbd_world3_add,
    xpbd_world3_default, xpbd_world3_requirements, xpbd_world3_step, XpbdPlane3, XpbdRequirements,
    XpbdStepStats,
};
use xpbd::ffi::{
    XpbdConvergence, XpbdLink, XpbdLinkF32, XpbdSweepStats, XpbdSystem3, XpbdSystem3F32,
    XPBD_ZERO_LENGTH_REJECT,
};

fn system(x: &mut [[f64; 3]], w: &[f64], links: &mut [XpbdLink]) -> XpbdSystem3 {
    XpbdSystem3 {
        positions: x.as_mut_ptr(),
        inverse_masses: w.as_ptr(),
        particle_count: x.len(),
        links: links.as_mut_ptr(),
        link_count: links.len(),
        zero_length_policy: XPBD_ZERO_LENGTH_REJECT,
        substep_active: 0,
        h: 0.0,
        error_index: 0,
    }
}

#[test]
fn rope_through_the_c_abi() {
    let mut x = [
        [0.0, 0.0, 0.0],
        [0.5, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.5, 0.0, 0.0],
    ];
    let w = [0.0, 1.0, 1.0, 1.0];
    let mut links = [XpbdLink::default(); 3];
    let mut count = 0usize;
    // SAFETY: the buffers are valid for the counts given.
    let s = unsafe {
        xpbd_build_rope3(
            x.as_ptr().cast(),
            4,
            1e-6,
            links.as_mut_ptr(),
            3,
            &mut count,
        )
    };
    assert_eq!((s, count), (XpbdStatus::Ok, 3));
    x[3][1] = 0.2;
    let mut sys = system(&mut x, &w, &mut links);
    let mut stats = XpbdSweepStats::default();
    // SAFETY: `sys` names valid, disjoint buffers; `stats` is valid.
    unsafe {
        assert_eq!(
            xpbd_system3_iterate(&mut sys, &mut stats),
            XpbdStatus::NoSubstep
        );
        assert_eq!(
            xpbd_system3_begin_substep(&mut sys, 1.0 / 60.0),
            XpbdStatus::Ok
        );
        assert_eq!(xpbd_system3_iterate(&mut sys, &mut stats), XpbdStatus::Ok);
        assert_eq!(stats.applied, 3);
        let mut r = XpbdConvergence::default();
        assert_eq!(
            xpbd_system3_iterate_until(&mut sys, 1e-9, 100, &mut r),
            XpbdStatus::Ok
        );
        assert_eq!(r.converged, 1);
        assert_eq!(
            xpbd_system3_measure(&mut sys, ptr::null_mut()),
            XpbdStatus::NullPointer
        );
        assert_eq!(xpbd_system3_measure(&mut sys, &mut stats), XpbdStatus::Ok);
        assert!(stats.max_residual <= 1e-9);
        assert_eq!(
            xpbd_system3_begin_substep(ptr::null_mut(), 0.1),
            XpbdStatus::NullPointer
        );
    }
    assert_eq!(x[0], [0.0, 0.0, 0.0]);
}

#[test]
fn overlapping_buffers_and_bad_indices_are_refused() {
    let mut x = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
    let w = [1.0, 1.0];
    let mut links = [XpbdLink {
        i: 0,
        j: 1,
        rest: 1.0,
        compliance: 0.0,
        lambda: 0.5,
        flags: 0,
    }];
    let before = (x, links);
    let mut sys = system(&mut x, &w, &mut links);
    // Inverse masses inside the positions: two views of one buffer.
    sys.inverse_masses = sys.positions.cast::<f64>();
    // SAFETY: every pointer is valid; the overlap is what is tested.
    assert_eq!(
        unsafe { xpbd_system3_begin_substep(&mut sys, 0.1) },
        XpbdStatus::AliasedBuffers
    );
    sys.inverse_masses = w.as_ptr();
    // Links over the system struct itself.
    // (Written through the raw pointer only: a write through `sys` itself
    // would invalidate `sys_ptr` under Stacked Borrows, which Miri reported.)
    let sys_ptr: *mut XpbdSystem3 = &mut sys;
    // SAFETY: `sys_ptr` points at `sys`, which is not otherwise used until
    // the call returns.
    unsafe {
        (*sys_ptr).links = sys_ptr.cast();
        (*sys_ptr).link_count = 1;
    }
    // SAFETY: as above.
    assert_eq!(
        unsafe { xpbd_system3_begin_substep(sys_ptr, 0.1) },
        XpbdStatus::AliasedBuffers
    );
    sys.links = links.as_mut_ptr();
    // NULL with a count.
    sys.positions = ptr::null_mut();
    // SAFETY: as above.
    assert_eq!(
        unsafe { xpbd_system3_begin_substep(&mut sys, 0.1) },
        XpbdStatus::NullPointer
    );
    sys.positions = x.as_mut_ptr();
    // Through the system's own pointer: a write through `links` would
    // invalidate `sys.links` under Stacked Borrows.
    // SAFETY: `sys.links` points at `links[0]`.
    unsafe { (*sys.links).j = 5 };
    // SAFETY: as above.
    assert_eq!(
        unsafe { xpbd_system3_begin_substep(&mut sys, 0.1) },
        XpbdStatus::IndexOutOfRange
    );
    assert_eq!(sys.error_index, 0);
    // SAFETY: as above.
    unsafe { (*sys.links).j = 1 };
    assert_eq!(x, before.0);
    assert_eq!(links[0].lambda, before.1[0].lambda);
}

#[test]
fn f32_system_through_the_c_abi() {
    let mut x = [[0.0_f32, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let w = [1.0_f32, 1.0];
    let mut links = [XpbdLinkF32::default(); 1];
    let mut n = 0;
    // SAFETY: valid buffers for the counts given.
    let s =
        unsafe { xpbd_build_rope3_f32(x.as_ptr().cast(), 2, 0.0, links.as_mut_ptr(), 1, &mut n) };
    assert_eq!(s, XpbdStatus::Ok);
    links[0].rest = 1.0;
    let mut sys = XpbdSystem3F32 {
        positions: x.as_mut_ptr(),
        inverse_masses: w.as_ptr(),
        particle_count: 2,
        links: links.as_mut_ptr(),
        link_count: 1,
        zero_length_policy: XPBD_ZERO_LENGTH_REJECT,
        substep_active: 0,
        h: 0.0,
        error_index: 0,
    };
    // SAFETY: `sys` names valid, disjoint buffers.
    unsafe {
        assert_eq!(
            xpbd_system3_begin_substep_f32(&mut sys, 0.1),
            XpbdStatus::Ok
        );
        assert_eq!(
            xpbd_system3_iterate_f32(&mut sys, ptr::null_mut()),
            XpbdStatus::Ok
        );
    }
    assert_eq!(x[1][0] - x[0][0], 1.0);
}

#[test]
fn world_step_through_the_c_abi() {
    let mut x = [[0.0, 0.05, 0.0], [0.3, 0.05, 0.0]];
    let mut v = [[0.0, -1.0, 0.0], [0.0, -1.0, 0.0]];
    let w = [1.0, 1.0];
    let mut links = [XpbdLink {
        i: 0,
        j: 1,
        rest: 0.3,
        compliance: 0.0,
        lambda: 0.0,
        flags: 1,
    }];
    let ground = [XpbdPlane3 {
        normal: [0.0, 1.0, 0.0],
        offset: 0.0,
    }];
    assert_eq!(xpbd_step_scratch_len(2, 1), 8);
    let mut world = xpbd_world3_default();
    world.positions = x.as_mut_ptr();
    world.velocities = v.as_mut_ptr();
    world.inverse_masses = w.as_ptr();
    world.particle_count = 2;
    world.links = links.as_mut_ptr();
    world.link_count = 1;
    let mut colliders = xpbd_colliders3_default();
    colliders.planes = ground.as_ptr();
    colliders.plane_count = 1;
    colliders.contact_budget = 4;
    let mut req = XpbdRequirements::default();
    // SAFETY: the world and the block are valid and disjoint.
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
    assert_eq!((req.scratch, req.contacts), (8, 4));
    let mut memory = vec![0u64; req.memory_size.div_ceil(8)];
    world.memory = memory.as_mut_ptr().cast();
    world.memory_size = req.memory_size;
    let mut config = xpbd_step_config3_default();
    config.substeps = 4;
    // The bare configuration (no damping, radius or friction).
    config.damping = 0.0;
    config.particle_radius = 0.0;
    config.static_friction = 0.0;
    config.dynamic_friction = 0.0;
    let mut stats = XpbdStepStats::default();
    // SAFETY: the world names valid, disjoint buffers.
    unsafe {
        assert_eq!(
            xpbd_world3_step(&mut world, 1.0 / 30.0, &config, &mut stats),
            XpbdStatus::Ok
        );
        assert_eq!(stats.substeps, 4);
        // Velocities aliasing positions: refused, nothing written.
        world.velocities = world.positions;
        assert_eq!(
            xpbd_world3_step(&mut world, 1.0 / 30.0, &config, ptr::null_mut()),
            XpbdStatus::AliasedBuffers
        );
        assert_eq!(
            xpbd_world3_step(ptr::null_mut(), 1.0 / 30.0, &config, ptr::null_mut()),
            XpbdStatus::NullPointer
        );
    }
    assert!(x.iter().all(|p| p[1] >= -1e-12));
}
