//! The step harness (`xpbd_world3_step`, f64 and f32): one module per
//! precision (`step_abi!`), its generators in `super::step_parts`.

use super::system::{s3, s3f};
#[allow(unused_imports)]
use super::*;

/// The step harness for one precision.
macro_rules! step_abi {
    ($m:ident, $parts:ident, $sysm:ident, $T:ty, $Link:ident, $World:ident, $Plane:ident,
     $Sphere:ident, $Contact:ident, $Capsule:ident, $Box:ident, $Engine:ident, $Pair:ident,
     $StepStats:ident, $default:ident, $step:ident) => {
        /// The step harness for one precision.
        pub mod $m {
            use super::$parts::*;
            #[allow(unused_imports)]
            use super::*;
            use xpbd_scenarios::Scalar;

            /// The step target: one world, up to 4 frames.
            pub fn step(data: &[u8]) {
                let mut inp = Input::new(data);
                let mut a = Arena([[0; REGION]; REGIONS]);
                let n = usize::from(inp.byte() % 10);
                let m = usize::from(inp.byte() % 12);
                super::$sysm::fill(&mut inp, &mut a, n, m);
                for k in 0..2 {
                    a.put(
                        PLANES,
                        k,
                        $Plane {
                            normal: [inp.real(), inp.real(), inp.real()],
                            offset: inp.real(),
                        },
                    );
                    a.put(
                        SPHERES,
                        k,
                        $Sphere {
                            center: [inp.real(), inp.real(), inp.real()],
                            radius: inp.real(),
                        },
                    );
                }
                // Moving colliders and engine contacts: a few each (the
                // rest of each region is zero: zero capsules are valid,
                // zero boxes and engine contacts are not).
                let nc = usize::from(inp.byte() % 4);
                let nb = usize::from(inp.byte() % 3);
                let ne = usize::from(inp.byte() % 7);
                for k in 0..nc {
                    let c = capsule(&mut inp);
                    a.put(CAPSULES, k, c);
                }
                for k in 0..nb {
                    let b = oriented_box(&mut inp);
                    a.put(BOXES, k, b);
                }
                for k in 0..ne {
                    let e = engine_contact(&mut inp, n);
                    a.put(ENGINE, k, e);
                }
                // Maximum forces: mostly positive (tearing runs), any float
                // now and then (NaN, 0, negative: INVALID_ARGUMENT).
                for k in 0..m {
                    let f: $T = inp.real();
                    a.put(MAXF, k, if inp.byte() % 4 == 0 { f } else { f.abs() });
                }
                let (pr, pc) = buffer::<[$T; 3]>(&mut inp, POS, n);
                let (vr, _) = buffer::<[$T; 3]>(&mut inp, VEL, n);
                let (mr, _) = buffer::<$T>(&mut inp, MASS, n);
                let (lr, lc) = buffer::<$Link>(&mut inp, LINKS, m);
                let (plr, plc) = buffer::<$Plane>(&mut inp, PLANES, 1);
                let (spr, spc) = buffer::<$Sphere>(&mut inp, SPHERES, 1);
                let (cr, cc) = buffer::<$Contact>(&mut inp, CONTACTS, 2 * n);
                let (scr, scc) = buffer::<[$T; 3]>(&mut inp, SCRATCH, 3 * n);
                // `link_max_force` has no count of its own (`link_count`):
                // NULL (no tearing) or a region.
                let (mfr, _) = buffer::<$T>(&mut inp, MAXF, m);
                let (tr, tc) = buffer::<u32>(&mut inp, TORN, m);
                let pc = pc.min(24);
                let mut world = Held::new($World {
                    positions: ptr_of(&mut a, pr),
                    velocities: ptr_of(&mut a, vr),
                    inverse_masses: ptr_of::<$T>(&mut a, mr),
                    particle_count: pc,
                    links: ptr_of(&mut a, lr),
                    link_count: lc,
                    planes: ptr_of::<$Plane>(&mut a, plr),
                    plane_count: plc.min(2),
                    spheres: ptr_of::<$Sphere>(&mut a, spr),
                    sphere_count: spc.min(2),
                    contacts: ptr_of(&mut a, cr),
                    contact_capacity: cc,
                    scratch: ptr_of(&mut a, scr),
                    scratch_count: scc,
                    error_index: 0,
                    link_max_force: ptr_of::<$T>(&mut a, mfr),
                    torn: ptr_of(&mut a, tr),
                    torn_capacity: tc,
                    capsules: core::ptr::null(),
                    capsule_count: 0,
                    boxes: core::ptr::null(),
                    box_count: 0,
                    engine_contacts: core::ptr::null_mut(),
                    engine_contact_count: 0,
                    particle_contacts: core::ptr::null_mut(),
                    particle_contact_capacity: 0,
                    hash_table: core::ptr::null_mut(),
                    hash_table_count: 0,
                    hash_ids: core::ptr::null_mut(),
                    hash_id_count: 0,
                    adjacency: core::ptr::null_mut(),
                    adjacency_count: 0,
                    rest_positions: core::ptr::null(),
                });
                let mut config = $default();
                if inp.byte() % 2 == 0 {
                    config.gravity = [inp.real(), inp.real(), inp.real()];
                    config.substeps = u32::from(inp.byte() % 6);
                    config.iterations = u32::from(inp.byte() % 6);
                    config.tolerance = inp.real();
                    config.damping = inp.real();
                    config.particle_radius = inp.real();
                    config.contact_compliance = inp.real();
                    config.static_friction = inp.real();
                    config.dynamic_friction = inp.real();
                    config.zero_length_policy = i32::from(inp.byte() % 3);
                    config.contact_overflow = i32::from(inp.byte() % 3);
                } else {
                    config.gravity = [0.0, -9.81, 0.0];
                    config.substeps = 2;
                    config.iterations = 2;
                }
                let mut config = Held::new(config);
                let size_world = core::mem::size_of::<$World>();
                let size_config = core::mem::size_of_val(&config.s);
                // The new arrays: their region, NULL with a count,
                // misaligned, over another buffer, the world or the
                // configuration (each refused).
                let structs = [
                    (core::ptr::addr_of_mut!(world.s).cast::<u8>(), size_world),
                    (core::ptr::addr_of_mut!(config.s).cast::<u8>(), size_config),
                ];
                let (caps, car, capc) = site::<$Capsule>(&mut inp, &mut a, CAPSULES, nc, structs);
                let (boxes, bxr, boxc) = site::<$Box>(&mut inp, &mut a, BOXES, nb, structs);
                let (engine, er, ec) = site::<$Engine>(&mut inp, &mut a, ENGINE, ne, structs);
                world.s.capsules = caps.cast_const();
                world.s.capsule_count = capc;
                world.s.boxes = boxes.cast_const();
                world.s.box_count = boxc;
                world.s.engine_contacts = engine;
                world.s.engine_contact_count = ec;
                // Self-collision in half the runs: the pair storage (a
                // capacity of 1, 2, every pair or any), the hash table, ids
                // and adjacency (sized by the length functions, one short
                // now and then), rest positions (NULL, given, a hostile
                // coordinate now and then); each array also NULL with a
                // count, misaligned, over another buffer, the world or the
                // configuration. The radius: 0, subnormal, tiny, huge, MAX,
                // any float or a usual one; half the time a cluster of
                // particles half a metre across (so that pairs are found).
                let (mut ppr, mut tbr, mut idr, mut adr, mut rsr) = (None, None, None, None, None);
                if inp.byte() % 2 == 1 {
                    let np = pc;
                    if inp.byte() % 2 == 0 {
                        for k in 0..np {
                            let x = nice3(&mut inp).map(|v| v / 8.0);
                            a.put(POS, k, x);
                            a.put(VEL, k, nice3(&mut inp).map(|v| v / 4.0));
                            let w: $T = if inp.byte() % 8 == 0 { 0.0 } else { 1.0 };
                            a.put(MASS, k, w);
                        }
                        let n32 = u32::try_from(np).unwrap_or(u32::MAX);
                        for k in 0..lc {
                            if np < 2 {
                                break;
                            }
                            let i = u32::from(inp.byte()) % n32;
                            let j = (i + 1 + u32::from(inp.byte()) % (n32 - 1)) % n32;
                            let link = $Link {
                                i,
                                j,
                                rest: small(&mut inp) + 0.05,
                                compliance: small(&mut inp) / 1024.0,
                                lambda: 0.0,
                                flags: u32::from(inp.byte() % 2),
                            };
                            a.put(LINKS, k, link);
                        }
                        let c = &mut config.s;
                        c.gravity = [0.0, -9.81, 0.0];
                        c.substeps = 1 + u32::from(inp.byte() % 4);
                        c.iterations = 1 + u32::from(inp.byte() % 3);
                        c.tolerance = 0.0;
                        c.damping = small(&mut inp);
                        c.contact_compliance = small(&mut inp) / 1024.0;
                        c.static_friction = small(&mut inp);
                        c.dynamic_friction = small(&mut inp);
                        c.zero_length_policy = 0;
                    }
                    config.s.particle_radius = match inp.byte() % 10 {
                        0 => 0.0,
                        1 => <$T>::MIN_POSITIVE / 4.0,
                        2 => <$T as xpbd::Real>::from_f64(1e-30),
                        3 => <$T as xpbd::Real>::from_f64(1e30),
                        4 => <$T>::MAX,
                        5 => inp.real(),
                        _ => small(&mut inp) / 4.0 + 0.01,
                    };
                    config.s.contact_overflow = i32::from(inp.byte() % 2);
                    // One short (or the count as chosen).
                    let short = |inp: &mut Input<'_>, c: usize| {
                        if inp.byte() % 8 == 0 {
                            c.saturating_sub(1)
                        } else {
                            c
                        }
                    };
                    let pairs = match inp.byte() % 4 {
                        0 => 1,
                        1 => 2,
                        _ => np * np.saturating_sub(1) / 2 + 1,
                    };
                    let (pp, r, pcap) = site::<$Pair>(&mut inp, &mut a, PAIRS, pairs, structs);
                    ppr = r;
                    let table = xpbd_self_collision_table_len(np);
                    let (tp, r, tcount) = site::<u32>(&mut inp, &mut a, TABLE, table, structs);
                    tbr = r;
                    let tcount = short(&mut inp, tcount);
                    let (ip, r, icount) = site::<u32>(&mut inp, &mut a, IDS, np, structs);
                    idr = r;
                    let icount = short(&mut inp, icount);
                    let adjacency = xpbd_self_collision_adjacency_len(np, lc);
                    let (ap, r, acount) = site::<u32>(&mut inp, &mut a, ADJ, adjacency, structs);
                    adr = r;
                    let acount = short(&mut inp, acount);
                    let rest = if inp.byte() % 3 == 0 {
                        core::ptr::null_mut()
                    } else {
                        for k in 0..np {
                            let x = nice3(&mut inp).map(|v| v / 8.0);
                            a.put(REST, k, x);
                        }
                        if np > 0 && inp.byte() % 4 == 0 {
                            let k = usize::from(inp.byte()) % (3 * np);
                            let v = hostile(&mut inp);
                            a.put(REST, k, v);
                        }
                        let (p, r, _) = site::<[$T; 3]>(&mut inp, &mut a, REST, np, structs);
                        rsr = r;
                        p
                    };
                    world.s.particle_contacts = pp;
                    world.s.particle_contact_capacity = pcap;
                    world.s.hash_table = tp;
                    world.s.hash_table_count = tcount;
                    world.s.hash_ids = ip;
                    world.s.hash_id_count = icount;
                    world.s.adjacency = ap;
                    world.s.adjacency_count = acount;
                    world.s.rest_positions = rest.cast_const();
                }
                let protected = [pr, vr, mr, plr, spr, mfr, car, bxr, rsr];
                let writable = [lr, cr, scr, tr, er, ppr, tbr, idr, adr];
                let base = a.base();
                for frame in 0..4 {
                    if frame > 0 && inp.byte() % 4 == 0 {
                        let w = world.s;
                        edit(&mut inp, &mut a, &w, n);
                    }
                    let before = a;
                    let wb = world.s;
                    // The frame: mostly a usual one (so that frames run),
                    // any float now and then (NaN, ±∞, 0, subnormal, …).
                    let dt: $T = match inp.byte() % 4 {
                        0 => inp.real(),
                        1 => 1.0 / 30.0,
                        _ => 1.0 / 60.0,
                    };
                    // The output: its own region, NULL, inside a buffer, over the
                    // world struct or the configuration, misaligned.
                    let size = core::mem::size_of::<$StepStats>();
                    let mut place =
                        Place::pick(&mut inp, REGIONS, OUT * REGION, size, size_world, None);
                    let wp = core::ptr::addr_of_mut!(world.s);
                    let cp = core::ptr::addr_of!(config.s);
                    let mut held = core::ptr::addr_of_mut!(world).cast::<u8>();
                    if let Place::Struct(o) = place {
                        if inp.byte() % 2 == 0 {
                            place = Place::Struct(o % size_config);
                            held = core::ptr::addr_of_mut!(config).cast::<u8>();
                        }
                    }
                    let out = place.ptr::<$StepStats>(base, held);
                    let cfg = if inp.byte() % 32 == 0 {
                        core::ptr::null()
                    } else {
                        cp
                    };
                    let w = &wb;
                    let n = w.particle_count;
                    let bufs = [
                        Span::of(w.positions, n),
                        Span::of(w.velocities, n),
                        Span::of(w.inverse_masses, n),
                        Span::of(w.links, w.link_count),
                        Span::of(w.planes, w.plane_count),
                        Span::of(w.spheres, w.sphere_count),
                        Span::of(w.contacts, w.contact_capacity),
                        Span::of(w.scratch, w.scratch_count),
                        Span::of(wp, 1),
                        Span::of(cp, 1),
                        Span::out(out),
                        Span::of(
                            w.link_max_force,
                            if w.link_max_force.is_null() {
                                0
                            } else {
                                w.link_count
                            },
                        ),
                        Span::of(w.torn, w.torn_capacity),
                        Span::of(w.capsules, w.capsule_count),
                        Span::of(w.boxes, w.box_count),
                        Span::of(w.engine_contacts, w.engine_contact_count),
                        Span::of(w.particle_contacts, w.particle_contact_capacity),
                        Span::of(w.hash_table, w.hash_table_count),
                        Span::of(w.hash_ids, w.hash_id_count),
                        Span::of(w.adjacency, w.adjacency_count),
                        Span::of(
                            w.rest_positions,
                            if w.rest_positions.is_null() { 0 } else { n },
                        ),
                    ];
                    let mut pre = Pre::default();
                    if cfg.is_null() {
                        pre.add(XpbdStatus::NullPointer);
                    } else {
                        pre.buffers(&bufs);
                        if !matches!(config.s.zero_length_policy, 0 | 1)
                            || !matches!(config.s.contact_overflow, 0 | 1)
                        {
                            pre.add(XpbdStatus::InvalidArgument);
                        }
                    }
                    // SAFETY: every pointer is NULL, into the arena with a count that
                    // fits its region, or into `world` / `config` (struct and slack;
                    // an array over them is refused before any access).
                    let status = unsafe { $step(wp, dt, cfg, out) };
                    assert!(documented(status), "undocumented status {}", status.code());
                    assert!(
                        world.slack == [0; 8] && config.slack == [0; 8],
                        "step wrote past a struct"
                    );
                    let ws = world.s;
                    let same_world = ws.positions == wb.positions
                        && ws.velocities == wb.velocities
                        && ws.inverse_masses == wb.inverse_masses
                        && ws.particle_count == wb.particle_count
                        && ws.links == wb.links
                        && ws.link_count == wb.link_count
                        && ws.planes == wb.planes
                        && ws.plane_count == wb.plane_count
                        && ws.spheres == wb.spheres
                        && ws.sphere_count == wb.sphere_count
                        && ws.contacts == wb.contacts
                        && ws.contact_capacity == wb.contact_capacity
                        && ws.scratch == wb.scratch
                        && ws.scratch_count == wb.scratch_count
                        && ws.link_max_force == wb.link_max_force
                        && ws.torn == wb.torn
                        && ws.torn_capacity == wb.torn_capacity
                        && ws.capsules == wb.capsules
                        && ws.capsule_count == wb.capsule_count
                        && ws.boxes == wb.boxes
                        && ws.box_count == wb.box_count
                        && ws.engine_contacts == wb.engine_contacts
                        && ws.engine_contact_count == wb.engine_contact_count
                        && ws.particle_contacts == wb.particle_contacts
                        && ws.particle_contact_capacity == wb.particle_contact_capacity
                        && ws.hash_table == wb.hash_table
                        && ws.hash_table_count == wb.hash_table_count
                        && ws.hash_ids == wb.hash_ids
                        && ws.hash_id_count == wb.hash_id_count
                        && ws.adjacency == wb.adjacency
                        && ws.adjacency_count == wb.adjacency_count
                        && ws.rest_positions == wb.rest_positions;
                    assert!(same_world, "step changed a buffer field of the world");
                    if !pre.is_empty() {
                        // Refused by the documented checks (an output or an
                        // array over a buffer, the world, the configuration;
                        // NULL with a count; misaligned): that status and no
                        // caller byte changed.
                        assert!(
                            pre.contains(status),
                            "step: status {} where the model refuses ({:#x})",
                            status.code(),
                            pre.0
                        );
                        assert!(a.0 == before.0, "step wrote on refused {}", status.code());
                        assert!(
                            ws.error_index == wb.error_index,
                            "refused step wrote error_index"
                        );
                        continue;
                    }
                    assert!(
                        !matches!(status, XpbdStatus::AliasedBuffers | XpbdStatus::NullPointer),
                        "step: {} though every buffer is valid and disjoint",
                        status.code()
                    );
                    // Per-substep state (λ, contacts, scratch, the engine
                    // contacts' λ and impulse) may be left written; the
                    // output only on success, positions and velocities too.
                    // Self-collision's pairs and hash scratch are per-substep
                    // state too; rest positions are never written.
                    let mut spans = [
                        bufs[3].range(),
                        bufs[6].range(),
                        bufs[7].range(),
                        bufs[15].range(),
                        bufs[16].range(),
                        bufs[17].range(),
                        bufs[18].range(),
                        bufs[19].range(),
                        None,
                        None,
                        None,
                        None,
                    ];
                    if status.code() >= 0 {
                        spans[8] = bufs[0].range();
                        spans[9] = bufs[1].range();
                        spans[10] = bufs[10].range();
                        spans[11] = bufs[12].range();
                    }
                    assert!(
                        same_outside(a.bytes(), before.bytes(), base as usize, &spans),
                        "step {} wrote outside its writable buffers",
                        status.code()
                    );
                    if status.code() < 0 {
                        for r in protected.iter().flatten() {
                            if !writable.contains(&Some(*r)) {
                                assert!(
                                    a.0[*r] == before.0[*r],
                                    "step wrote region {r} on error {}",
                                    status.code()
                                );
                            }
                        }
                    }
                    // The model of self-collision's rules: on (a pair
                    // capacity), it needs a radius > 0, the hash scratch of
                    // the length functions and finite rest positions (when
                    // given); otherwise the step fails before any write.
                    let sc_on = w.particle_contact_capacity > 0;
                    if sc_on {
                        let rest_bad = !w.rest_positions.is_null()
                            && elems(&before, base, w.rest_positions, n)
                                .iter()
                                .any(|p| !fin(p));
                        let r = config.s.particle_radius;
                        let bad = !(r > 0.0)
                            || w.hash_table_count < xpbd_self_collision_table_len(n)
                            || w.hash_id_count < n
                            || w.adjacency_count
                                < xpbd_self_collision_adjacency_len(n, w.link_count)
                            || rest_bad;
                        if bad {
                            assert!(
                                status.code() < 0,
                                "step {} with invalid self-collision",
                                status.code()
                            );
                            assert!(
                                a.0 == before.0,
                                "step {} wrote with invalid self-collision",
                                status.code()
                            );
                        }
                    }
                    // The statistics of a success: capacities bound the
                    // maxima; a drop only under keep-first, and only when a
                    // substep filled the contacts or the pairs.
                    if status == XpbdStatus::Ok {
                        if let Some(off) = offset_in(out.cast_const().cast(), base) {
                            let st: $StepStats = read_at(&a, off).expect("the output fits");
                            assert!(
                                st.max_pairs <= w.particle_contact_capacity
                                    && st.max_contacts <= w.contact_capacity,
                                "max_pairs {} / {} max_contacts {} / {}",
                                st.max_pairs,
                                w.particle_contact_capacity,
                                st.max_contacts,
                                w.contact_capacity
                            );
                            if !sc_on {
                                assert!(
                                    st.max_pairs == 0 && st.clamped == 0,
                                    "self-collision off: max_pairs {} clamped {}",
                                    st.max_pairs,
                                    st.clamped
                                );
                            }
                            if config.s.contact_overflow == 0 {
                                assert_eq!(st.contacts_dropped, 0, "reject policy dropped");
                            } else if st.contacts_dropped > 0 {
                                assert!(
                                    st.max_contacts == w.contact_capacity
                                        || (sc_on && st.max_pairs == w.particle_contact_capacity),
                                    "{} dropped, no capacity full: contacts {} / {}, \
                                     pairs {} / {}",
                                    st.contacts_dropped,
                                    st.max_contacts,
                                    w.contact_capacity,
                                    st.max_pairs,
                                    w.particle_contact_capacity
                                );
                            }
                        }
                    }
                    // The model of the colliders' field rules.
                    let first_bad = first_invalid(&before, base, w);
                    if status == XpbdStatus::InvalidCollider {
                        assert_eq!(
                            Some(ws.error_index),
                            first_bad,
                            "INVALID_COLLIDER names {} where the model's first invalid \
                             collider is {first_bad:?}",
                            ws.error_index
                        );
                    }
                    if let Some(k) = first_bad {
                        assert!(
                            status.code() < 0,
                            "step {} with collider {k} invalid",
                            status.code()
                        );
                    }
                    // Engine contacts: their own fields never written, the
                    // force only on success.
                    let eb = elems(
                        &before,
                        base,
                        w.engine_contacts.cast_const(),
                        w.engine_contact_count,
                    );
                    let ea = elems(
                        &a,
                        base,
                        w.engine_contacts.cast_const(),
                        w.engine_contact_count,
                    );
                    for (k, (x, y)) in eb.iter().zip(&ea).enumerate() {
                        assert!(
                            own_fields(x) == own_fields(y),
                            "step {} wrote engine contact {k}'s own fields",
                            status.code()
                        );
                        if status.code() < 0 {
                            assert!(
                                Scalar::bits(x.force) == Scalar::bits(y.force),
                                "step {} wrote engine contact {k}'s force",
                                status.code()
                            );
                        } else {
                            assert!(
                                y.lambda.is_finite()
                                    && y.impulse.is_finite()
                                    && y.force.is_finite()
                                    && y.lambda >= 0.0
                                    && y.force >= 0.0,
                                "step OK left engine contact {k} at λ {} impulse {} force {}",
                                y.lambda,
                                y.impulse,
                                y.force
                            );
                        }
                    }
                    if status.code() >= 0 {
                        let x = elems(&a, base, w.positions.cast_const(), n);
                        let v = elems(&a, base, w.velocities.cast_const(), n);
                        for (k, p) in x.iter().chain(&v).enumerate() {
                            assert!(fin(p), "step OK left state {k} non-finite: {p:?}");
                        }
                    }
                    if inp.is_empty() {
                        break;
                    }
                }
            }
        }
    };
}

step_parts!(
    p3,
    f64,
    XpbdWorld3,
    XpbdPlane3,
    XpbdSphere3,
    XpbdCapsule3,
    XpbdBox3,
    XpbdEngineContact
);
step_parts!(
    p3f,
    f32,
    XpbdWorld3F32,
    XpbdPlane3F32,
    XpbdSphere3F32,
    XpbdCapsule3F32,
    XpbdBox3F32,
    XpbdEngineContactF32
);
step_abi!(
    w3,
    p3,
    s3,
    f64,
    XpbdLink,
    XpbdWorld3,
    XpbdPlane3,
    XpbdSphere3,
    XpbdContact,
    XpbdCapsule3,
    XpbdBox3,
    XpbdEngineContact,
    XpbdParticleContact,
    XpbdStepStats,
    xpbd_step_config3_default,
    xpbd_world3_step
);
step_abi!(
    w3f,
    p3f,
    s3f,
    f32,
    XpbdLinkF32,
    XpbdWorld3F32,
    XpbdPlane3F32,
    XpbdSphere3F32,
    XpbdContactF32,
    XpbdCapsule3F32,
    XpbdBox3F32,
    XpbdEngineContactF32,
    XpbdParticleContactF32,
    XpbdStepStatsF32,
    xpbd_step_config3_default_f32,
    xpbd_world3_step_f32
);
