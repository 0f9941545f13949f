//! Issue 35's blocks through the C entry points: hostile wind and
//! local-space values are named by their field and write nothing; with
//! every block kind in the chain every header is in the overlap check.

use super::*;

// ---- Issue 35: the wind block ----

/// The fields of wind triangles, bit for bit (not their bytes: the
/// padding after `particles`).
fn triangle_bits(t: &[XpbdAeroTriangle]) -> Vec<([u32; 3], u64, u64)> {
    t.iter()
        .map(|t| (t.particles, t.drag.to_bits(), t.lift.to_bits()))
        .collect()
}

/// A wind block's fields, bit for bit.
fn wind_bits(b: &XpbdWind3) -> (usize, usize, usize, [u64; 3], u64) {
    (
        b.triangles as usize,
        b.triangle_count,
        b.particle_velocities as usize,
        b.velocity.map(f64::to_bits),
        b.density.to_bits(),
    )
}

/// The wind's inputs as one test edits them: the block, its triangles,
/// the per-particle wind; and where the world's positions are.
struct WindInputs {
    block: XpbdWind3,
    triangles: [XpbdAeroTriangle; 2],
    gust: [[f64; 3]; 3],
    positions: *mut [f64; 3],
    gust_at: *mut [f64; 3],
}

#[test]
fn hostile_wind_values_are_named_by_their_field_writing_nothing() {
    let (mut x, mut v, w, mut links) = three();
    let before = (state(&x, &v), link_bits(&links));
    let mut tris = [
        xpbd_aero_triangle_default(0, 1, 2),
        xpbd_aero_triangle_default(2, 1, 0),
    ];
    assert_eq!(
        triangle_bits(&tris[..1]),
        [([0, 1, 2], 1.2f64.to_bits(), 0.1f64.to_bits())]
    );
    let mut gust = [[1.0, 0.0, 0.0]; 3];
    let mut wind = xpbd_wind3_default();
    assert_eq!(
        (wind.block.kind, wind.block.size as usize),
        (XPBD_BLOCK_WIND, core::mem::size_of::<XpbdWind3>())
    );
    assert_eq!((wind.density, wind.velocity), (1.225, [0.0; 3]));
    assert!(wind.triangles.is_null() && wind.particle_velocities.is_null());
    // One raw pointer each: the world reads them, the test edits them
    // between calls.
    let tp = tris.as_mut_ptr();
    let gp = gust.as_mut_ptr();
    wind.triangles = tp;
    wind.triangle_count = 2;
    wind.velocity = [0.0, 0.0, 5.0];
    let wb = ptr::addr_of_mut!(wind);
    let mut world = world3(&mut x, &mut v, &w, &mut links);
    // SAFETY: valid world and block.
    let _memory = unsafe {
        assert_eq!(xpbd_world3_add(&mut world, wb.cast()), XpbdStatus::Ok);
        give_memory(&mut world)
    };
    let wp = ptr::addr_of_mut!(world);
    let mut config = xpbd_step_config3_default();
    config.substeps = 2;
    // SAFETY: the block and its arrays, read through their pointers.
    let good = unsafe {
        WindInputs {
            block: *wb,
            triangles: [*tp, *tp.add(1)],
            gust: [*gp, *gp.add(1), *gp.add(2)],
            positions: (*wp).positions,
            gust_at: gp,
        }
    };
    type Edit = fn(&mut WindInputs);
    let cases: [(&str, Edit, XpbdStatus, usize, i32); 11] = [
        (
            "NaN wind",
            |i| i.block.velocity[1] = f64::NAN,
            XpbdStatus::InvalidWind,
            0,
            XPBD_FIELD_WIND_VELOCITY,
        ),
        (
            "infinite wind",
            |i| i.block.velocity[0] = f64::NEG_INFINITY,
            XpbdStatus::InvalidWind,
            0,
            XPBD_FIELD_WIND_VELOCITY,
        ),
        (
            "negative density",
            |i| i.block.density = -1e-300,
            XpbdStatus::InvalidWind,
            0,
            XPBD_FIELD_FLUID_DENSITY,
        ),
        (
            "NaN density",
            |i| i.block.density = f64::NAN,
            XpbdStatus::InvalidWind,
            0,
            XPBD_FIELD_FLUID_DENSITY,
        ),
        (
            "an index out of range",
            |i| i.triangles[1].particles[2] = 3,
            XpbdStatus::InvalidWind,
            1,
            XPBD_FIELD_AERO_TRIANGLES,
        ),
        (
            "index u32::MAX",
            |i| i.triangles[0].particles[0] = u32::MAX,
            XpbdStatus::InvalidWind,
            0,
            XPBD_FIELD_AERO_TRIANGLES,
        ),
        (
            "two equal indices",
            |i| i.triangles[1].particles[1] = 2,
            XpbdStatus::InvalidWind,
            1,
            XPBD_FIELD_AERO_TRIANGLES,
        ),
        (
            "a NaN lift coefficient",
            |i| i.triangles[0].lift = f64::NAN,
            XpbdStatus::InvalidWind,
            0,
            XPBD_FIELD_AERO_TRIANGLES,
        ),
        (
            "a NaN per-particle wind",
            |i| {
                i.block.particle_velocities = i.gust_at;
                i.gust[2][2] = f64::NAN;
            },
            XpbdStatus::InvalidWind,
            2,
            XPBD_FIELD_PARTICLE_WIND,
        ),
        (
            "the triangles over the positions",
            |i| {
                i.block.triangles = i.positions.cast_const().cast();
                i.block.triangle_count = 1;
            },
            XpbdStatus::AliasedBuffers,
            0,
            XPBD_FIELD_NONE,
        ),
        (
            "NULL triangles with a count",
            |i| i.block.triangles = ptr::null(),
            XpbdStatus::NullPointer,
            0,
            XPBD_FIELD_NONE,
        ),
    ];
    for (what, edit, status, index, field) in cases {
        let mut inputs = WindInputs { ..good };
        edit(&mut inputs);
        let edited = (
            wind_bits(&inputs.block),
            triangle_bits(&inputs.triangles),
            state(&inputs.gust, &[]),
        );
        // SAFETY: the block, the triangles and the per-particle wind,
        // written between calls through their one pointer each; the
        // world's buffers are valid (an array over the positions is
        // refused before any access).
        let (got, after) = unsafe {
            *wb = inputs.block;
            (*tp, *tp.add(1)) = (inputs.triangles[0], inputs.triangles[1]);
            (*gp, *gp.add(1), *gp.add(2)) = (inputs.gust[0], inputs.gust[1], inputs.gust[2]);
            let got = step_named(wp, 1.0 / 60.0, &config);
            let after = (
                wind_bits(&*wb),
                triangle_bits(&[*tp, *tp.add(1)]),
                state(&[*gp, *gp.add(1), *gp.add(2)], &[]),
            );
            (got, after)
        };
        assert_eq!(got, (status, index, field), "{what}");
        assert_eq!(after, edited, "{what}: the block or its arrays written");
        assert_eq!(
            (state(&x, &v), link_bits(&links)),
            before,
            "{what}: a refused step wrote"
        );
    }
    // Everything restored: the step runs, the wind blows along z.
    // SAFETY: as above.
    let got = unsafe {
        *wb = good.block;
        (*tp, *tp.add(1)) = (good.triangles[0], good.triangles[1]);
        step_named(wp, 1.0 / 60.0, &config)
    };
    assert_eq!(got, (XpbdStatus::Ok, 0, XPBD_FIELD_NONE));
    assert!(x[1][2] > 0.0 && x[2][2] > 0.0, "{x:?}");
}

// ---- Issue 35: the local-space block ----

/// A local-space block's fields, bit for bit (not its bytes: the padding
/// after `teleport`): the header, the reals, `teleport`.
fn local_bits(b: &XpbdLocalSpace3) -> (u32, u32, usize, Vec<u64>, u32) {
    let l = &b.local;
    let reals = [&l.previous, &l.target]
        .into_iter()
        .flat_map(|t| t.rotation.iter().chain(&t.translation))
        .chain([
            &l.linear_inertia,
            &l.angular_inertia,
            &l.max_linear_velocity,
            &l.max_angular_velocity,
        ])
        .map(|c| c.to_bits())
        .collect();
    (
        b.block.kind,
        b.block.size,
        b.block.next as usize,
        reals,
        l.teleport,
    )
}

/// One colored step of `world` (two colors of one link each, the
/// three-particle rope of `three`): status, error_index, error_field.
///
/// # Safety
/// As `xpbd_world3_step_colored`.
unsafe fn step_colored_named(
    world: *mut XpbdWorld3,
    dt: f64,
    config: &XpbdStepConfig3,
) -> (XpbdStatus, usize, i32) {
    let starts = [0usize, 1, 2];
    let colors = XpbdGroupColors {
        link_color_starts: starts.as_ptr(),
        link_color_count: 2,
        bend_color_starts: ptr::null(),
        bend_color_count: 0,
        tet_color_starts: ptr::null(),
        tet_color_count: 0,
        tether_color_starts: ptr::null(),
        tether_color_count: 0,
    };
    // SAFETY: forwarded; the colors are valid for the call.
    unsafe {
        (*world).error_index = 77;
        (*world).error_field = 77;
        let s = xpbd_world3_step_colored(world, &colors, dt, config, ptr::null(), ptr::null_mut());
        (s, (*world).error_index, (*world).error_field)
    }
}

#[test]
fn hostile_local_space_values_are_named_by_their_field_writing_nothing() {
    let (mut x, mut v, w, mut links) = three();
    let before = (state(&x, &v), link_bits(&links));
    let mut local = xpbd_local_space3_default();
    assert_eq!(
        (local.block.kind, local.block.size as usize),
        (
            XPBD_BLOCK_LOCAL_SPACE,
            core::mem::size_of::<XpbdLocalSpace3>()
        )
    );
    let id = xpbd_transform_identity();
    assert_eq!(
        id,
        XpbdTransform {
            rotation: [0.0, 0.0, 0.0, 1.0],
            translation: [0.0; 3]
        }
    );
    let l = local.local;
    assert_eq!((l.previous, l.target, l.teleport), (id, id, 0));
    assert_eq!(
        [
            l.linear_inertia,
            l.angular_inertia,
            l.max_linear_velocity,
            l.max_angular_velocity
        ],
        [1.0, 1.0, f64::INFINITY, f64::INFINITY]
    );
    // A root turned and moved since the last frame, teleporting: a step
    // that wrote the block would show.
    local.local.target = XpbdTransform {
        rotation: [0.0, 0.6, 0.0, 0.8],
        translation: [1.0, 2.0, 3.0],
    };
    local.local.linear_inertia = 0.5;
    local.local.teleport = 1;
    let lb = ptr::addr_of_mut!(local);
    let mut world = world3(&mut x, &mut v, &w, &mut links);
    // SAFETY: valid world and block.
    let _memory = unsafe {
        assert_eq!(xpbd_world3_add(&mut world, lb.cast()), XpbdStatus::Ok);
        give_memory(&mut world)
    };
    let wp = ptr::addr_of_mut!(world);
    let mut config = xpbd_step_config3_default();
    config.substeps = 2;
    // SAFETY: the block, read through its one pointer.
    let good = unsafe { *lb };
    type Edit = fn(&mut XpbdLocalSpace);
    let cases: [(&str, Edit, i32); 13] = [
        (
            "a NaN translation",
            |l| l.target.translation[1] = f64::NAN,
            XPBD_FIELD_ROOT_TRANSFORM,
        ),
        (
            "an infinite previous translation",
            |l| l.previous.translation[0] = f64::INFINITY,
            XPBD_FIELD_ROOT_TRANSFORM,
        ),
        (
            "the quaternion {0, 0, 0, 2}",
            |l| l.target.rotation = [0.0, 0.0, 0.0, 2.0],
            XPBD_FIELD_ROOT_TRANSFORM,
        ),
        (
            "a zero quaternion",
            |l| l.previous.rotation = [0.0; 4],
            XPBD_FIELD_ROOT_TRANSFORM,
        ),
        (
            "a quaternion 1 % long",
            |l| l.previous.rotation = [0.0, 0.0, 0.0, 1.01],
            XPBD_FIELD_ROOT_TRANSFORM,
        ),
        (
            "a NaN quaternion",
            |l| l.target.rotation[2] = f64::NAN,
            XPBD_FIELD_ROOT_TRANSFORM,
        ),
        (
            "linear inertia 1.5",
            |l| l.linear_inertia = 1.5,
            XPBD_FIELD_INERTIA_SCALE,
        ),
        (
            "a negative angular inertia",
            |l| l.angular_inertia = -1e-300,
            XPBD_FIELD_INERTIA_SCALE,
        ),
        (
            "a NaN angular inertia",
            |l| l.angular_inertia = f64::NAN,
            XPBD_FIELD_INERTIA_SCALE,
        ),
        (
            "an infinite inertia",
            |l| l.linear_inertia = f64::INFINITY,
            XPBD_FIELD_INERTIA_SCALE,
        ),
        (
            "a negative max linear velocity",
            |l| l.max_linear_velocity = -1.0,
            XPBD_FIELD_FRAME_VELOCITY_LIMIT,
        ),
        (
            "a NaN max angular velocity",
            |l| l.max_angular_velocity = f64::NAN,
            XPBD_FIELD_FRAME_VELOCITY_LIMIT,
        ),
        (
            "max angular velocity −∞",
            |l| l.max_angular_velocity = f64::NEG_INFINITY,
            XPBD_FIELD_FRAME_VELOCITY_LIMIT,
        ),
    ];
    for (k, (what, edit, field)) in cases.into_iter().enumerate() {
        // The colored step for one case of each field (Miri's time); under
        // Miri (CI budget) only those cases, on both paths: the others take
        // the same C calls and reads, refused by other values.
        let paths: &[bool] = if matches!(k, 0 | 6 | 10) {
            &[false, true]
        } else if cfg!(miri) {
            &[]
        } else {
            &[false]
        };
        for &colored in paths {
            let mut block = good;
            edit(&mut block.local);
            let edited = local_bits(&block);
            // SAFETY: the block, written between calls through its one
            // pointer; the world's buffers are valid.
            let (got, after) = unsafe {
                *lb = block;
                let got = if colored {
                    step_colored_named(wp, 1.0 / 60.0, &config)
                } else {
                    step_named(wp, 1.0 / 60.0, &config)
                };
                (got, local_bits(&*lb))
            };
            let what = format!("{what} (colored: {colored})");
            assert_eq!(got, (XpbdStatus::InvalidLocalSpace, 0, field), "{what}");
            assert_eq!(after, edited, "{what}: the block written");
            assert_eq!(
                (state(&x, &v), link_bits(&links)),
                before,
                "{what}: a refused step wrote"
            );
        }
    }
    // The domain's edges are accepted: inertia 0 and 1, limits 0 and +∞,
    // a quaternion 0.05 % long (within 1e-3 of unit norm).
    let mut edges = good;
    edges.local.linear_inertia = 0.0;
    edges.local.max_linear_velocity = 0.0;
    edges.local.previous.rotation = [0.0, 0.0, 0.0, 1.0005];
    // A second local-space block: the kind twice, named by its position;
    // nothing written.
    let mut second = xpbd_local_space3_default();
    // SAFETY: as above; `second` outlives the step.
    let got = unsafe {
        *lb = good;
        assert_eq!(
            xpbd_world3_add(wp, ptr::addr_of_mut!(second).cast()),
            XpbdStatus::Ok
        );
        let got = step_named(wp, 1.0 / 60.0, &config);
        (*wp).blocks = lb.cast();
        got
    };
    assert_eq!(got, (XpbdStatus::InvalidBlock, 1, XPBD_FIELD_BLOCK));
    // SAFETY: as above.
    assert_eq!(unsafe { local_bits(&*lb) }, local_bits(&good));
    assert_eq!((state(&x, &v), link_bits(&links)), before);
    // Everything restored (at the edges): the step runs and writes
    // `previous ← target`, `teleport ← 0`, nothing else of the block.
    let mut expected = edges;
    expected.local.previous = edges.local.target;
    expected.local.teleport = 0;
    // SAFETY: as above.
    let (got, after) = unsafe {
        *lb = edges;
        let got = step_named(wp, 1.0 / 60.0, &config);
        (got, local_bits(&*lb))
    };
    assert_eq!(got, (XpbdStatus::Ok, 0, XPBD_FIELD_NONE));
    assert_eq!(after, local_bits(&expected));
    assert_ne!(state(&x, &v), before.0, "the step moved nothing");
    // The colored step writes the same.
    // SAFETY: as above.
    let (got, after) = unsafe {
        *lb = edges;
        let got = step_colored_named(wp, 1.0 / 60.0, &config);
        (got, local_bits(&*lb))
    };
    assert_eq!(got, (XpbdStatus::Ok, 0, XPBD_FIELD_NONE));
    assert_eq!(after, local_bits(&expected));

    // Float: a non-unit quaternion and an inertia over 1 refused, nothing
    // written; then the write-back.
    let (mut xf, mut vf) = ([[0.0f32, 1.0, 0.0], [0.5, 1.0, 0.0]], [[0.5f32; 3]; 2]);
    let wf = [0.0f32, 1.0];
    let mut lf = [XpbdLinkF32::default()];
    lf[0].j = 1;
    lf[0].rest = 0.5;
    let mut blockf = xpbd_local_space3_default_f32();
    assert_eq!(blockf.block.kind, XPBD_BLOCK_LOCAL_SPACE | XPBD_BLOCK_F32);
    assert_eq!(blockf.local.target, xpbd_transform_identity_f32());
    blockf.local.target.translation = [0.0, 0.0, 2.0];
    blockf.local.teleport = 1;
    let goodf = blockf;
    let bf = ptr::addr_of_mut!(blockf);
    let mut worldf = xpbd_world3_default_f32();
    worldf.positions = xf.as_mut_ptr();
    worldf.velocities = vf.as_mut_ptr();
    worldf.inverse_masses = wf.as_ptr();
    worldf.particle_count = 2;
    worldf.links = lf.as_mut_ptr();
    worldf.link_count = 1;
    let mut memoryf = vec![0u64; 64];
    worldf.memory = memoryf.as_mut_ptr().cast();
    worldf.memory_size = memoryf.len() * 8;
    let mut configf = xpbd_step_config3_default_f32();
    configf.substeps = 2;
    let bits32 = |b: &XpbdLocalSpace3F32| {
        let l = &b.local;
        let reals: Vec<u32> = [&l.previous, &l.target]
            .into_iter()
            .flat_map(|t| t.rotation.iter().chain(&t.translation))
            .chain([&l.linear_inertia, &l.max_linear_velocity])
            .map(|c| c.to_bits())
            .collect();
        (reals, l.teleport)
    };
    let state0 = (xf, vf);
    type EditF = fn(&mut XpbdLocalSpaceF32);
    let editsf: [(EditF, i32); 2] = [
        (
            |l| l.target.rotation = [0.0, 0.0, 0.0, 2.0],
            XPBD_FIELD_ROOT_TRANSFORM,
        ),
        (|l| l.linear_inertia = 1.5, XPBD_FIELD_INERTIA_SCALE),
    ];
    // SAFETY: the world's buffers are valid; the block, written between
    // calls through its one pointer.
    unsafe {
        assert_eq!(xpbd_world3_add_f32(&mut worldf, bf.cast()), XpbdStatus::Ok);
        let mut need = XpbdRequirements::default();
        assert_eq!(
            xpbd_world3_requirements_f32(&mut worldf, &mut need),
            XpbdStatus::Ok
        );
        assert!(need.memory_size <= worldf.memory_size);
        for (edit, field) in editsf {
            let mut b = goodf;
            edit(&mut b.local);
            *bf = b;
            let got = xpbd_world3_step_f32(&mut worldf, 1.0 / 60.0, &configf, ptr::null_mut());
            assert_eq!(
                (got, worldf.error_index, worldf.error_field),
                (XpbdStatus::InvalidLocalSpace, 0, field)
            );
            assert_eq!(bits32(&*bf), bits32(&b), "f32: the block written");
            assert_eq!((xf, vf), state0, "f32: a refused step wrote");
        }
        *bf = goodf;
        let got = xpbd_world3_step_f32(&mut worldf, 1.0 / 60.0, &configf, ptr::null_mut());
        assert_eq!(got, XpbdStatus::Ok);
        assert_eq!(
            ((*bf).local.previous, (*bf).local.teleport),
            (goodf.local.target, 0)
        );
    }
}

/// Every block kind at once (seven: the chain's longest): every block and
/// every array is in the overlap check, the last one pushed (the groups
/// block's header) too; then the world steps and the local-space block
/// gets its write-back.
#[test]
fn with_every_block_kind_every_header_is_in_the_overlap_check() {
    let (mut x, mut v, w, mut links) = three();
    let before = (state(&x, &v), link_bits(&links));
    let plane = [XpbdPlane3 {
        normal: [0.0, 1.0, 0.0],
        offset: -10.0,
    }];
    let max_force = [1e9, 1e9];
    let tris = [xpbd_aero_triangle_default(0, 1, 2)];
    let mut colliders = xpbd_colliders3_default();
    colliders.planes = plane.as_ptr();
    colliders.plane_count = 1;
    let mut sc = xpbd_self_collision3_default();
    let mut tearing = xpbd_tearing3_default();
    let mut engine = xpbd_engine_contacts3_default();
    let mut groups = xpbd_groups3_default();
    let mut wind = xpbd_wind3_default();
    wind.triangles = tris.as_ptr();
    wind.triangle_count = 1;
    let mut local = xpbd_local_space3_default();
    local.local.target.translation = [0.0, 0.0, 1.0];
    let lp = ptr::addr_of_mut!(local);
    let tp = ptr::addr_of_mut!(tearing);
    let gp = ptr::addr_of_mut!(groups);
    let blocks = [
        ptr::addr_of_mut!(colliders).cast::<XpbdBlock>(),
        ptr::addr_of_mut!(sc).cast(),
        tp.cast(),
        ptr::addr_of_mut!(engine).cast(),
        ptr::addr_of_mut!(wind).cast(),
        lp.cast(),
        // Added last: the head of the chain, its header read first and
        // pushed last into the overlap check.
        gp.cast(),
    ];
    assert_eq!(blocks.len(), XPBD_MAX_BLOCKS);
    let mut world = world3(&mut x, &mut v, &w, &mut links);
    let wp = ptr::addr_of_mut!(world);
    let mut config = xpbd_step_config3_default();
    config.substeps = 2;
    // SAFETY: the world, its buffers and every block are valid; each block
    // is reached through its one raw pointer; the maximum forces (2 reals,
    // `link_count`) over the groups block's header are refused before any
    // access.
    unsafe {
        for b in blocks {
            assert_eq!(xpbd_world3_add(wp, b), XpbdStatus::Ok);
        }
        let _memory = give_memory(&mut *wp);
        // The maximum forces (16 bytes) over the groups block's header
        // (16 bytes) and nothing else: aliased.
        assert_eq!(core::mem::size_of::<XpbdBlock>(), 16);
        (*tp).max_force = gp.cast::<f64>().cast_const();
        let local_before = local_bits(&*lp);
        let got = step_named(wp, 1.0 / 60.0, &config);
        assert_eq!(got, (XpbdStatus::AliasedBuffers, 0, XPBD_FIELD_NONE));
        assert_eq!((state(&x, &v), link_bits(&links)), before);
        assert_eq!(local_bits(&*lp), local_before);
        // Valid maximum forces: the world steps with its seven blocks.
        (*tp).max_force = max_force.as_ptr();
        let got = step_named(wp, 1.0 / 60.0, &config);
        assert_eq!(got, (XpbdStatus::Ok, 0, XPBD_FIELD_NONE));
        assert_ne!(state(&x, &v), before.0);
        assert_eq!((*lp).local.previous.translation, [0.0, 0.0, 1.0]);
    }
}
