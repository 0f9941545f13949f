//! The step harness (`xpbd_world3_step`, f64 and f32): one module per
//! precision (`step_abi!`), its generators and its models of the field
//! rules and of the world's chain and memory in `super::step_parts`.

use super::system::{s3, s3f};
#[allow(unused_imports)]
use super::*;

/// The step harness for one precision.
macro_rules! step_abi {
    ($m:ident, $parts:ident, $sysm:ident, $T:ty, $Link:ident, $World:ident, $Plane:ident,
     $Sphere:ident, $Contact:ident, $Capsule:ident, $Box:ident, $Hf:ident, $Sdf:ident,
     $Engine:ident, $Pair:ident,
     $StepStats:ident, $Colliders:ident, $SelfC:ident, $Tearing:ident, $EngineB:ident,
     $Wind:ident, $Tri:ident, $Local:ident,
     $default:ident, $step:ident, $requirements:ident, $add:ident, $world_default:ident,
     $colliders_default:ident, $self_default:ident, $tearing_default:ident,
     $engine_default:ident, $wind_default:ident, $tri_default:ident,
     $local_default:ident) => {
        /// The step harness for one precision.
        pub mod $m {
            use super::$parts::*;
            #[allow(unused_imports)]
            use super::*;
            use xpbd_scenarios::Scalar;

            /// The world's blocks (and a second colliders block and a
            /// forged header, for the hostile chains), followed by slack.
            #[repr(C)]
            #[derive(Clone, Copy)]
            pub(super) struct Blocks {
                pub(super) colliders: $Colliders,
                pub(super) colliders2: $Colliders,
                pub(super) sc: $SelfC,
                pub(super) tearing: $Tearing,
                pub(super) engine: $EngineB,
                pub(super) wind: $Wind,
                pub(super) local: $Local,
                pub(super) forged: XpbdBlock,
                pub(super) slack: [u64; 8],
            }

            fn same_header(x: &XpbdBlock, y: &XpbdBlock) -> bool {
                x.kind == y.kind && x.size == y.size && x.next == y.next
            }

            /// Every field of every block is the same (blocks are only read,
            /// but for a local-space block's write-back after a success).
            fn same_blocks(x: &Blocks, y: &Blocks) -> bool {
                let c = |p: &$Colliders, q: &$Colliders| {
                    same_header(&p.block, &q.block)
                        && p.planes == q.planes
                        && p.plane_count == q.plane_count
                        && p.spheres == q.spheres
                        && p.sphere_count == q.sphere_count
                        && p.capsules == q.capsules
                        && p.capsule_count == q.capsule_count
                        && p.boxes == q.boxes
                        && p.box_count == q.box_count
                        && p.heightfields == q.heightfields
                        && p.heightfield_count == q.heightfield_count
                        && p.sdfs == q.sdfs
                        && p.sdf_count == q.sdf_count
                        && p.samples == q.samples
                        && p.sample_count == q.sample_count
                        && p.contact_budget == q.contact_budget
                };
                c(&x.colliders, &y.colliders)
                    && c(&x.colliders2, &y.colliders2)
                    && same_header(&x.sc.block, &y.sc.block)
                    && x.sc.rest_positions == y.sc.rest_positions
                    && x.sc.pair_budget == y.sc.pair_budget
                    && same_header(&x.tearing.block, &y.tearing.block)
                    && x.tearing.max_force == y.tearing.max_force
                    && x.tearing.torn == y.tearing.torn
                    && x.tearing.torn_capacity == y.tearing.torn_capacity
                    && same_header(&x.engine.block, &y.engine.block)
                    && x.engine.contacts == y.engine.contacts
                    && x.engine.count == y.engine.count
                    && same_header(&x.wind.block, &y.wind.block)
                    && x.wind.triangles == y.wind.triangles
                    && x.wind.triangle_count == y.wind.triangle_count
                    && x.wind.particle_velocities == y.wind.particle_velocities
                    && x.wind.velocity.map(Scalar::bits) == y.wind.velocity.map(Scalar::bits)
                    && Scalar::bits(x.wind.density) == Scalar::bits(y.wind.density)
                    && same_header(&x.local.block, &y.local.block)
                    && local_bits(&x.local.local) == local_bits(&y.local.local)
                    && same_header(&x.forged, &y.forged)
                    && x.slack == y.slack
            }

            /// Every field of the world but `error_index` and `error_field`
            /// is the same.
            fn same_world(x: &$World, y: &$World) -> bool {
                x.positions == y.positions
                    && x.velocities == y.velocities
                    && x.inverse_masses == y.inverse_masses
                    && x.particle_count == y.particle_count
                    && x.links == y.links
                    && x.link_count == y.link_count
                    && x.memory == y.memory
                    && x.memory_size == y.memory_size
                    && x.blocks == y.blocks
            }

            /// The chain as the documented rules read it (`XpbdBlock`): at
            /// most `XPBD_MAX_BLOCKS` blocks, each of a kind of this
            /// precision with this library's size, each kind once. The
            /// blocks met (copies), or the position of the first bad one.
            fn chain_model(head: *const XpbdBlock) -> Result<Chain, usize> {
                let flag = if core::mem::size_of::<$T>() == 4 { XPBD_BLOCK_F32 } else { 0 };
                let sizes = [
                    core::mem::size_of::<$Colliders>(),
                    core::mem::size_of::<$SelfC>(),
                    core::mem::size_of::<$Tearing>(),
                    core::mem::size_of::<$EngineB>(),
                    core::mem::size_of::<xpbd::ffi::GroupsC<$T>>(),
                    core::mem::size_of::<$Wind>(),
                    core::mem::size_of::<$Local>(),
                ];
                let mut seen = [false; 7];
                let mut chain = Chain::default();
                let mut p = head;
                let mut at = 0;
                while !p.is_null() {
                    if at >= XPBD_MAX_BLOCKS {
                        return Err(at);
                    }
                    // SAFETY: the harness's chains only hold its own blocks.
                    let h = unsafe { p.read() };
                    let kinds = [
                        XPBD_BLOCK_COLLIDERS,
                        XPBD_BLOCK_SELF_COLLISION,
                        XPBD_BLOCK_TEARING,
                        XPBD_BLOCK_ENGINE_CONTACTS,
                        XPBD_BLOCK_GROUPS,
                        XPBD_BLOCK_WIND,
                        XPBD_BLOCK_LOCAL_SPACE,
                    ];
                    let Some(k) = kinds.iter().position(|&b| h.kind == b | flag) else {
                        return Err(at);
                    };
                    if h.size as usize != sizes[k] || seen[k] {
                        return Err(at);
                    }
                    seen[k] = true;
                    // SAFETY: as above; the header says which block it heads.
                    unsafe {
                        match k {
                            0 => chain.colliders = Some(p.cast::<$Colliders>().read()),
                            1 => chain.sc = Some(p.cast::<$SelfC>().read()),
                            2 => chain.tearing = Some(p.cast::<$Tearing>().read()),
                            3 => chain.engine = Some(p.cast::<$EngineB>().read()),
                            5 => chain.wind = Some(p.cast::<$Wind>().read()),
                            6 => chain.local = true,
                            _ => chain.groups = true,
                        }
                    }
                    chain.spans[at] = (p as usize, sizes[k]);
                    p = h.next;
                    at += 1;
                }
                Ok(chain)
            }

            /// A valid chain's blocks (read when the chain was).
            #[derive(Default)]
            struct Chain {
                colliders: Option<$Colliders>,
                sc: Option<$SelfC>,
                tearing: Option<$Tearing>,
                engine: Option<$EngineB>,
                wind: Option<$Wind>,
                /// The local-space block is in the chain (its values are
                /// read from the blocks before each frame).
                local: bool,
                groups: bool,
                /// Address and size of each block, in chain order.
                spans: [(usize, usize); XPBD_MAX_BLOCKS],
            }

            impl Chain {
                fn colliders(&self) -> usize {
                    self.colliders.map_or(0, |c| {
                        c.plane_count
                            + c.sphere_count
                            + c.capsule_count
                            + c.box_count
                            + c.heightfield_count
                            + c.sdf_count
                    })
                }
                fn contact_budget(&self, n: usize) -> usize {
                    match self.colliders {
                        Some(c) if c.contact_budget != 0 => c.contact_budget,
                        _ => n * self.colliders(),
                    }
                }
                fn pair_budget(&self, n: usize) -> usize {
                    match self.sc {
                        Some(s) if s.pair_budget != 0 => s.pair_budget,
                        Some(_) => n * XPBD_DEFAULT_PAIRS_PER_PARTICLE,
                        None => 0,
                    }
                }
            }

            /// The requirements the documented rules give a valid chain
            /// (`XpbdRequirements`, entries) and the bytes their buffers
            /// take (`memory_size` is at least that, plus at most 7 bytes
            /// of alignment before each of the 7 buffers).
            fn requirements_model(ch: &Chain, n: usize, links: usize) -> (XpbdRequirements, usize) {
                let sc = ch.sc.is_some();
                let on = |v: usize| if sc { v } else { 0 };
                let r = XpbdRequirements {
                    memory_size: 0,
                    // The frame's start and x_prev, then the links'
                    // state (α̃, g, λ, signed rest, two for the indices:
                    // 6 per link).
                    scratch: 3 * n + (6 * links).div_ceil(3),
                    contacts: ch.contact_budget(n),
                    pairs: ch.pair_budget(n),
                    hash_table: on(2 * n + 2),
                    hash_ids: on(n),
                    adjacency: on(n + 1 + 2 * links),
                    stamp: n,
                };
                let bytes = r.scratch * core::mem::size_of::<[$T; 3]>()
                    + r.contacts * core::mem::size_of::<$Contact>()
                    + r.pairs * core::mem::size_of::<$Pair>()
                    + 4 * (r.hash_table + r.hash_ids + r.adjacency + r.stamp);
                (r, bytes)
            }

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
                // Fields and their samples: up to three heightfields and
                // three SDFs (2 … 4 nodes per axis) over `ns` samples
                // (mostly nearly the region's worth, now and then any
                // number), their ranges anywhere inside (overlapping or
                // not); moderate samples (`samples`), up to two of the
                // region made hostile (NaN, ±∞, ±MAX, …: inside a field's
                // range or not, inside the array or past it).
                let cap = REGION / core::mem::size_of::<$T>();
                let ns = match inp.byte() % 4 {
                    0 => usize::from(inp.byte()) % (cap + 1),
                    _ => cap - usize::from(inp.byte() % 32),
                };
                let nh = usize::from(inp.byte() % 4);
                let nsd = usize::from(inp.byte() % 4);
                for k in 0..nh {
                    let f = heightfield(&mut inp, ns);
                    a.put(HFIELDS, k, f);
                }
                for k in 0..nsd {
                    let f = sdf(&mut inp, ns);
                    a.put(SDFS, k, f);
                }
                for (k, v) in samples(&mut inp, ns).into_iter().enumerate() {
                    a.put(SAMPLES, k, v);
                }
                for _ in 0..2 {
                    if inp.byte() % 4 == 0 {
                        let k = usize::from(inp.byte()) % cap;
                        let v = hostile(&mut inp);
                        a.put(SAMPLES, k, v);
                    }
                }
                // Maximum forces: mostly positive (tearing runs), any float
                // now and then (NaN, 0, negative: INVALID_MAX_FORCE).
                for k in 0..m {
                    let f: $T = inp.real();
                    a.put(MAXF, k, if inp.byte() % 4 == 0 { f } else { f.abs() });
                }
                let (pr, pc) = buffer::<[$T; 3]>(&mut inp, POS, n);
                let (vr, _) = buffer::<[$T; 3]>(&mut inp, VEL, n);
                let (mr, _) = buffer::<$T>(&mut inp, MASS, n);
                let (lr, lc) = buffer::<$Link>(&mut inp, LINKS, m);
                let pc = pc.min(24);
                let mut world = Held::new($world_default());
                world.s.positions = ptr_of(&mut a, pr);
                world.s.velocities = ptr_of(&mut a, vr);
                world.s.inverse_masses = ptr_of::<$T>(&mut a, mr);
                world.s.particle_count = pc;
                world.s.links = ptr_of(&mut a, lr);
                world.s.link_count = lc;
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
                let mut blocks = Held::new(Blocks {
                    colliders: $colliders_default(),
                    colliders2: $colliders_default(),
                    sc: $self_default(),
                    tearing: $tearing_default(),
                    engine: $engine_default(),
                    wind: $wind_default(),
                    local: $local_default(),
                    forged: XpbdBlock {
                        kind: 0,
                        size: 0,
                        next: core::ptr::null_mut(),
                    },
                    slack: [0; 8],
                });
                let size_world = core::mem::size_of::<$World>();
                let size_config = core::mem::size_of_val(&config.s);
                // The blocks in use: colliders (seven runs in eight), engine
                // contacts (three in four), tearing and self-collision (half
                // the runs each).
                let use_colliders = inp.byte() % 8 != 0;
                let use_engine = inp.byte() % 4 != 0;
                let use_tearing = inp.byte() % 2 == 0;
                let use_sc = inp.byte() % 2 == 1;
                let use_wind = inp.byte() % 4 == 0;
                let use_local = inp.byte() % 4 == 1;
                // The arrays: their region, NULL with a count, misaligned,
                // over another buffer, the world, the configuration or a
                // block in use (each refused; a block out of the chain
                // would be a buffer like another).
                let mut structs = vec![
                    (core::ptr::addr_of_mut!(world.s).cast::<u8>(), size_world),
                    (core::ptr::addr_of_mut!(config.s).cast::<u8>(), size_config),
                ];
                for (on, p, size) in [
                    (
                        use_colliders,
                        core::ptr::addr_of_mut!(blocks.s.colliders).cast::<u8>(),
                        core::mem::size_of::<$Colliders>(),
                    ),
                    (
                        use_engine,
                        core::ptr::addr_of_mut!(blocks.s.engine).cast::<u8>(),
                        core::mem::size_of::<$EngineB>(),
                    ),
                    (
                        use_tearing,
                        core::ptr::addr_of_mut!(blocks.s.tearing).cast::<u8>(),
                        core::mem::size_of::<$Tearing>(),
                    ),
                    (
                        use_sc,
                        core::ptr::addr_of_mut!(blocks.s.sc).cast::<u8>(),
                        core::mem::size_of::<$SelfC>(),
                    ),
                    (
                        use_wind,
                        core::ptr::addr_of_mut!(blocks.s.wind).cast::<u8>(),
                        core::mem::size_of::<$Wind>(),
                    ),
                    (
                        use_local,
                        core::ptr::addr_of_mut!(blocks.s.local).cast::<u8>(),
                        core::mem::size_of::<$Local>(),
                    ),
                ] {
                    if on {
                        structs.push((p, size));
                    }
                }
                // The colliders block: planes, spheres, capsules, boxes,
                // heightfields, SDFs, samples, a contact budget (0: the
                // default, particles × colliders).
                let (plr, plc) = buffer::<$Plane>(&mut inp, PLANES, 1);
                let (spr, spc) = buffer::<$Sphere>(&mut inp, SPHERES, 1);
                let (caps, car, capc) = site::<$Capsule>(&mut inp, &mut a, CAPSULES, nc, &structs);
                let (boxes, bxr, boxc) = site::<$Box>(&mut inp, &mut a, BOXES, nb, &structs);
                // The fields' three arrays: in their regions (three runs in
                // four, so that most steps with fields run), else each
                // placed as the capsules.
                let ((hfs, hfr, hfc), (sdfs, sdr, sdc), (smp, smr, smc)) = if inp.byte() % 4 != 3 {
                    (
                        (a.region(HFIELDS).cast::<$Hf>(), Some(HFIELDS), nh),
                        (a.region(SDFS).cast::<$Sdf>(), Some(SDFS), nsd),
                        (a.region(SAMPLES).cast::<$T>(), Some(SAMPLES), ns),
                    )
                } else {
                    (
                        site::<$Hf>(&mut inp, &mut a, HFIELDS, nh, &structs),
                        site::<$Sdf>(&mut inp, &mut a, SDFS, nsd, &structs),
                        site::<$T>(&mut inp, &mut a, SAMPLES, ns, &structs),
                    )
                };
                {
                    let c = &mut blocks.s.colliders;
                    c.planes = ptr_of::<$Plane>(&mut a, plr);
                    c.plane_count = plc.min(2);
                    c.spheres = ptr_of::<$Sphere>(&mut a, spr);
                    c.sphere_count = spc.min(2);
                    c.capsules = caps.cast_const();
                    c.capsule_count = capc;
                    c.boxes = boxes.cast_const();
                    c.box_count = boxc;
                    c.heightfields = hfs.cast_const();
                    c.heightfield_count = hfc;
                    c.sdfs = sdfs.cast_const();
                    c.sdf_count = sdc;
                    c.samples = smp.cast_const();
                    c.sample_count = smc;
                    c.contact_budget = match inp.byte() % 8 {
                        0 => 1,
                        1 => 2,
                        2 => usize::from(inp.byte()),
                        _ => 0,
                    };
                }
                // The engine contacts block.
                let (engine, er, ec) = site::<$Engine>(&mut inp, &mut a, ENGINE, ne, &structs);
                blocks.s.engine.contacts = engine;
                blocks.s.engine.count = ec;
                // The tearing block: the maximum forces (NULL: no tearing,
                // or a region) and the torn list.
                // `max_force` has no count of its own (`link_count`).
                let (mfr, _) = buffer::<$T>(&mut inp, MAXF, m);
                let (tr, tc) = buffer::<u32>(&mut inp, TORN, m);
                blocks.s.tearing.max_force = ptr_of::<$T>(&mut a, mfr);
                blocks.s.tearing.torn = ptr_of(&mut a, tr);
                blocks.s.tearing.torn_capacity = tc;
                // Self-collision: a pair budget (the
                // default, 1, 2, every pair or any), rest positions (NULL,
                // given, a hostile coordinate now and then; the array
                // also NULL with a count, misaligned, over another buffer
                // or a struct). The radius: 0, subnormal, tiny, huge, MAX,
                // any float or a usual one; half the time a cluster of
                // particles half a metre across (so that pairs are found).
                let mut rsr = None;
                if use_sc {
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
                    blocks.s.sc.pair_budget = match inp.byte() % 6 {
                        0 => 1,
                        1 => 2,
                        2 => np * np.saturating_sub(1) / 2 + 1,
                        3 => usize::from(inp.byte()),
                        _ => 0,
                    };
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
                        let (p, r, _) = site::<[$T; 3]>(&mut inp, &mut a, REST, np, &structs);
                        rsr = r;
                        p
                    };
                    blocks.s.sc.rest_positions = rest;
                }
                // Wind: a few triangles (mostly valid; now and then an
                // index out of range or twice, a hostile coefficient), a
                // wind and a density (mostly usual, now and then hostile),
                // a per-particle wind (NULL, or one per particle, now and
                // then a hostile entry). The arrays: their region, NULL
                // with a count, misaligned, over another buffer or a
                // struct.
                let (mut tri_r, mut pw_r) = (None, None);
                if use_wind {
                    let nt = usize::from(inp.byte() % 6);
                    let span = u32::try_from(pc).unwrap_or(u32::MAX).max(1);
                    for k in 0..nt {
                        let mut t = $tri_default(0, 1, 2);
                        for c in 0..3 {
                            t.particles[c] = u32::from(inp.byte()) % span;
                        }
                        match inp.byte() % 8 {
                            0 => t.particles[usize::from(inp.byte() % 3)] = u32::from(inp.byte()),
                            1 => t.drag = hostile(&mut inp),
                            2 => t.lift = hostile(&mut inp),
                            3 => {
                                t.drag = small(&mut inp);
                                t.lift = small(&mut inp);
                            }
                            _ => {}
                        }
                        a.put(TRIS, k, t);
                    }
                    let (tris, tr, tc) = site::<$Tri>(&mut inp, &mut a, TRIS, nt, &structs);
                    tri_r = tr;
                    let wd = &mut blocks.s.wind;
                    wd.triangles = tris.cast_const();
                    wd.triangle_count = tc;
                    wd.velocity = if inp.byte() % 8 == 0 {
                        [hostile(&mut inp), nice(&mut inp), nice(&mut inp)]
                    } else {
                        nice3(&mut inp).map(|c| 4.0 * c)
                    };
                    wd.density = match inp.byte() % 8 {
                        0 => hostile(&mut inp),
                        1 => small(&mut inp),
                        _ => <$T as xpbd::Real>::from_f64(1.225),
                    };
                    if inp.byte() % 2 == 0 {
                        for k in 0..pc {
                            let u = nice3(&mut inp);
                            a.put(PWIND, k, u);
                        }
                        if pc > 0 && inp.byte() % 4 == 0 {
                            let k = usize::from(inp.byte()) % (3 * pc);
                            let v = hostile(&mut inp);
                            a.put(PWIND, k / 3, {
                                let mut u = [0.0; 3];
                                u[k % 3] = v;
                                u
                            });
                        }
                        let (p, r, _) = site::<[$T; 3]>(&mut inp, &mut a, PWIND, pc, &structs);
                        pw_r = r;
                        blocks.s.wind.particle_velocities = p;
                    }
                }
                // Local space: its values (`local_values`: mostly valid,
                // now and then a non-finite or non-unit transform, an
                // inertia or a limit out of its domain).
                if use_local {
                    local_values(&mut inp, &mut blocks.s.local.local);
                }
                // The chain: the blocks in use in a byte-chosen order, added
                // with `xpbd_world3_add` (which prepends).
                let bp = core::ptr::addr_of_mut!(blocks.s);
                // SAFETY: fields of the blocks `bp` points to (addresses).
                let (pcol, pcol2, psc, ptear, peng, pwind, plocal, pforged) = unsafe {
                    (
                        core::ptr::addr_of_mut!((*bp).colliders).cast::<XpbdBlock>(),
                        core::ptr::addr_of_mut!((*bp).colliders2).cast::<XpbdBlock>(),
                        core::ptr::addr_of_mut!((*bp).sc).cast::<XpbdBlock>(),
                        core::ptr::addr_of_mut!((*bp).tearing).cast::<XpbdBlock>(),
                        core::ptr::addr_of_mut!((*bp).engine).cast::<XpbdBlock>(),
                        core::ptr::addr_of_mut!((*bp).wind).cast::<XpbdBlock>(),
                        core::ptr::addr_of_mut!((*bp).local).cast::<XpbdBlock>(),
                        core::ptr::addr_of_mut!((*bp).forged),
                    )
                };
                let mut order: Vec<*mut XpbdBlock> = [
                    (use_colliders, pcol),
                    (use_engine, peng),
                    (use_tearing, ptear),
                    (use_sc, psc),
                    (use_wind, pwind),
                    (use_local, plocal),
                ]
                .into_iter()
                .filter_map(|(on, p)| on.then_some(p))
                .collect();
                for k in (1..order.len()).rev() {
                    order.swap(k, usize::from(inp.byte()) % (k + 1));
                }
                let wp = core::ptr::addr_of_mut!(world.s);
                for &p in order.iter().rev() {
                    // SAFETY: the world and the block are valid and disjoint.
                    let s = unsafe { $add(wp, p) };
                    assert_eq!(s, XpbdStatus::Ok, "xpbd_world3_add refused a new block");
                }
                if let Some(&head) = order.first() {
                    // The head added again: refused, nothing changed.
                    // SAFETY: as above.
                    let s = unsafe { $add(wp, head) };
                    assert_eq!(s, XpbdStatus::InvalidBlock, "the head added twice");
                    assert!(world.s.blocks == head, "a refused add changed the chain");
                }
                // Now and then a hostile chain: a block of a kind given
                // twice, a forged header (an unknown kind, the other
                // precision's flag, a wrong size) or a cycle.
                let forge = inp.byte();
                if forge % 8 == 0 {
                    let at = |inp: &mut Input<'_>, len: usize| usize::from(inp.byte()) % (len + 1);
                    // SAFETY: the blocks' headers, written through `bp`'s fields.
                    unsafe {
                        match (forge / 8) % 6 {
                            0 => {
                                (*bp).colliders2 = (*bp).colliders;
                                let k = at(&mut inp, order.len());
                                order.insert(k, pcol2);
                            }
                            1 => {
                                (*pforged).kind = match inp.byte() % 4 {
                                    0 => 0,
                                    1 => 8 | (*pforged).kind & XPBD_BLOCK_F32,
                                    2 => XPBD_BLOCK_F32,
                                    _ => inp.bits(4) as u32,
                                };
                                (*pforged).size = core::mem::size_of::<XpbdBlock>() as u32;
                                let k = at(&mut inp, order.len());
                                order.insert(k, pforged);
                            }
                            2 | 3 if !order.is_empty() => {
                                let p = order[usize::from(inp.byte()) % order.len()];
                                if forge / 8 % 6 == 2 {
                                    (*p).kind ^= XPBD_BLOCK_F32;
                                } else {
                                    (*p).size = match inp.byte() % 3 {
                                        0 => (*p).size.wrapping_add(8),
                                        1 => (*p).size.wrapping_sub(8),
                                        _ => inp.bits(4) as u32,
                                    };
                                }
                            }
                            _ => {}
                        }
                        for k in 0..order.len() {
                            (*order[k]).next = order.get(k + 1).copied().unwrap_or(core::ptr::null_mut());
                        }
                        if forge / 8 % 6 >= 4 && !order.is_empty() {
                            // A cycle: the last block's next an earlier one.
                            let last = order[order.len() - 1];
                            (*last).next = order[usize::from(inp.byte()) % order.len()];
                        }
                        (*wp).blocks = order.first().copied().unwrap_or(core::ptr::null_mut());
                    }
                }
                let chain = chain_model(world.s.blocks);
                // The requirements: refused (naming the block) for a bad
                // chain, else the documented counts.
                let mut req = XpbdRequirements {
                    memory_size: 7,
                    ..Default::default()
                };
                // SAFETY: the world, its chain and the output are valid.
                let rs = unsafe { $requirements(wp, &mut req) };
                let needed = match &chain {
                    Err(at) => {
                        assert_eq!(
                            (rs, world.s.error_index, world.s.error_field),
                            (XpbdStatus::InvalidBlock, *at, XPBD_FIELD_BLOCK),
                            "requirements of a bad chain"
                        );
                        assert_eq!(req.memory_size, 7, "requirements written on a refusal");
                        64 * usize::from(inp.byte())
                    }
                    Ok(ch) => {
                        assert_eq!(rs, XpbdStatus::Ok, "requirements of a valid chain");
                        let (want, bytes) = requirements_model(ch, pc, lc);
                        assert!(
                            XpbdRequirements { memory_size: 0, ..req } == want
                                && req.memory_size >= bytes
                                && req.memory_size <= bytes + 7 * 7,
                            "requirements {req:?} where the model gives {want:?}, {bytes} bytes"
                        );
                        req.memory_size
                    }
                };
                // The memory: its own area (the size asked, one byte short,
                // more), NULL, misaligned, another region, or over a struct.
                let mem = MEM * REGION;
                let room = MEM_BYTES - 8;
                let (mp, msize): (*mut u8, usize) = match inp.byte() % 32 {
                    0 => (core::ptr::null_mut(), needed),
                    1 => (core::ptr::null_mut(), 0),
                    2 => (a.base().wrapping_add(mem), needed.saturating_sub(1)),
                    3 => (a.base().wrapping_add(mem + 1 + usize::from(inp.byte() % 7)), needed),
                    4 => {
                        let r = usize::from(inp.byte()) % REGIONS;
                        let r = if r * REGION + needed <= REGIONS * REGION { r } else { MEM };
                        (a.region(r), needed)
                    }
                    5 => {
                        let (p, len) = structs[usize::from(inp.byte()) % structs.len()];
                        (p.wrapping_add(8 * (usize::from(inp.byte()) % (len / 8))), needed)
                    }
                    6 => (a.base().wrapping_add(mem), needed + usize::from(inp.byte())),
                    _ => (a.base().wrapping_add(mem), needed),
                };
                // A memory too large for its area (never the harness's
                // generators) goes NULL.
                let (mp, msize) = if needed > room { (core::ptr::null_mut(), needed) } else { (mp, msize) };
                world.s.memory = mp.cast();
                world.s.memory_size = msize;
                let protected = [pr, vr, mr, plr, spr, mfr, car, bxr, hfr, sdr, smr, rsr, tri_r, pw_r];
                let writable = [lr, tr, er];
                let base = a.base();
                for frame in 0..4 {
                    if frame > 0 && inp.byte() % 4 == 0 {
                        edit(&mut inp, &mut a, &blocks.s.colliders, &blocks.s.engine, &blocks.s.sc, &world.s);
                    }
                    if use_local && frame > 0 && inp.byte() % 2 == 0 {
                        // The root moves on (now and then hostile), now and
                        // then a teleport.
                        let target = transform(&mut inp);
                        let teleport = u32::from(inp.byte() % 4 == 0);
                        // SAFETY: the local-space block, written through `bp`.
                        unsafe {
                            (*bp).local.local.target = target;
                            (*bp).local.local.teleport = teleport;
                        }
                    }
                    let before = a;
                    let wb = world.s;
                    // The blocks as they are (their next fields included).
                    // SAFETY: plain data, read through `bp`.
                    let bb = unsafe { core::ptr::read(bp) };
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
                    let links = w.link_count;
                    let zl_bad = !matches!(config.s.zero_length_policy, 0 | 1);
                    let ov_bad = !matches!(config.s.contact_overflow, 0 | 1);
                    // The documented refusals before the step proper, each
                    // with the world's report (`error_index`, `error_field`).
                    let mut pre = Pre::default();
                    let mut bufs: Vec<Span> = Vec::new();
                    if cfg.is_null() {
                        pre.add(XpbdStatus::NullPointer);
                    } else {
                        match &chain {
                            Err(_) => pre.add(XpbdStatus::InvalidBlock),
                            Ok(ch) => {
                                if zl_bad || ov_bad {
                                    pre.add(XpbdStatus::InvalidConfig);
                                }
                                let aligned = (w.memory as usize) % XPBD_MEMORY_ALIGN == 0;
                                if w.memory_size < needed || (needed > 0 && (w.memory.is_null() || !aligned)) {
                                    pre.add(XpbdStatus::CapacityTooSmall);
                                }
                                // A NULL memory is refused as memory, not as a
                                // NULL buffer.
                                let mem_bytes = if w.memory.is_null() { 0 } else { needed };
                                bufs.extend([
                                    Span::of(w.positions, n),
                                    Span::of(w.velocities, n),
                                    Span::of(w.inverse_masses, n),
                                    Span::of(w.links, links),
                                    Span::of(w.memory.cast_const().cast::<u8>(), mem_bytes),
                                    Span::of(wp, 1),
                                    Span::of(cp, 1),
                                    Span::out(out),
                                ]);
                                for &(addr, size) in &ch.spans {
                                    if addr != 0 {
                                        bufs.push(Span::of((addr as *const u8).cast::<u64>(), size / 8));
                                    }
                                }
                                if let Some(c) = ch.colliders {
                                    bufs.extend([
                                        Span::of(c.planes, c.plane_count),
                                        Span::of(c.spheres, c.sphere_count),
                                        Span::of(c.capsules, c.capsule_count),
                                        Span::of(c.boxes, c.box_count),
                                        Span::of(c.heightfields, c.heightfield_count),
                                        Span::of(c.sdfs, c.sdf_count),
                                        Span::of(c.samples, c.sample_count),
                                    ]);
                                }
                                if let Some(s) = ch.sc {
                                    let rest = if s.rest_positions.is_null() { 0 } else { n };
                                    bufs.push(Span::of(s.rest_positions, rest));
                                }
                                if let Some(t) = ch.tearing {
                                    let mf = if t.max_force.is_null() { 0 } else { links };
                                    bufs.push(Span::of(t.max_force, mf));
                                    bufs.push(Span::of(t.torn, t.torn_capacity));
                                }
                                if let Some(e) = ch.engine {
                                    bufs.push(Span::of(e.contacts, e.count));
                                }
                                if let Some(v) = ch.wind {
                                    let pw = if v.particle_velocities.is_null() { 0 } else { n };
                                    bufs.push(Span::of(v.triangles, v.triangle_count));
                                    bufs.push(Span::of(v.particle_velocities, pw));
                                }
                                pre.buffers(&bufs);
                            }
                        }
                    }
                    // SAFETY: every pointer is NULL, into the arena with a count
                    // that fits its region, or into a held struct (an array over
                    // one is refused before any access); the chain holds the
                    // harness's blocks only.
                    let status = unsafe { $step(wp, dt, cfg, out) };
                    assert!(documented(status), "undocumented status {}", status.code());
                    assert!(
                        world.slack == [0; 8] && config.slack == [0; 8],
                        "step wrote past a struct"
                    );
                    let ws = world.s;
                    assert!(same_world(&ws, &wb), "step changed a field of the world");
                    // The blocks are only read, but for a local-space block
                    // in a valid chain after a success: `previous ←
                    // target`, `teleport ← 0`, and the added velocities
                    // (any finite values: the model does not carry them).
                    let local_on = chain.as_ref().is_ok_and(|ch| ch.local);
                    let mut want = bb;
                    if local_on && status == XpbdStatus::Ok {
                        want.local.local.previous = bb.local.local.target;
                        want.local.local.teleport = 0;
                        // SAFETY: as below, plain data read through `bp`.
                        let got = unsafe { (*bp).local.local };
                        let added = got.linear_velocity.iter().chain(&got.angular_velocity);
                        assert!(added.into_iter().all(|c| c.is_finite()), "added velocity not finite");
                        want.local.local.linear_velocity = got.linear_velocity;
                        want.local.local.angular_velocity = got.angular_velocity;
                    }
                    // SAFETY: as above.
                    assert!(same_blocks(unsafe { &*bp }, &want), "step wrote a block");
                    let report = (ws.error_index, ws.error_field);
                    if status != XpbdStatus::Ok {
                        assert!(ws.error_field >= 0 && ws.error_field <= XPBD_FIELD_FRAME_VELOCITY, "unknown error_field {}", ws.error_field);
                    }
                    let ch = match &chain {
                        Ok(ch) => ch,
                        Err(at) => {
                            // A bad chain: named, nothing else read or written.
                            assert!(pre.contains(status), "step: {} on a bad chain", status.code());
                            assert!(a.0 == before.0, "step wrote on a bad chain");
                            if status == XpbdStatus::InvalidBlock {
                                assert_eq!(report, (*at, XPBD_FIELD_BLOCK), "INVALID_BLOCK");
                            }
                            continue;
                        }
                    };
                    if !pre.is_empty() {
                        // Refused by the documented checks (a bad policy code,
                        // the memory, an output or an array over a buffer, a
                        // struct or a block; NULL with a count; misaligned):
                        // that status, its report, and no caller byte changed.
                        assert!(
                            pre.contains(status),
                            "step: status {} where the model refuses ({:#x})",
                            status.code(),
                            pre.0
                        );
                        assert!(a.0 == before.0, "step wrote on refused {}", status.code());
                        match status {
                            XpbdStatus::CapacityTooSmall => {
                                assert_eq!(report, (needed, XPBD_FIELD_MEMORY), "memory refused")
                            }
                            XpbdStatus::InvalidConfig => assert!(
                                report.0 == 0
                                    && ((zl_bad && report.1 == XPBD_FIELD_ZERO_LENGTH_POLICY)
                                        || (ov_bad && report.1 == XPBD_FIELD_CONTACT_OVERFLOW)),
                                "policy refused with {report:?}"
                            ),
                            // NULL config: nothing read, nothing written.
                            XpbdStatus::NullPointer if cfg.is_null() => {
                                assert_eq!(report, (wb.error_index, wb.error_field))
                            }
                            _ => assert_eq!(report, (0, XPBD_FIELD_NONE), "refusal {}", status.code()),
                        }
                        continue;
                    }
                    assert!(
                        !matches!(
                            status,
                            XpbdStatus::AliasedBuffers
                                | XpbdStatus::NullPointer
                                | XpbdStatus::InvalidBlock
                        ),
                        "step: {} though the chain, the memory and every buffer are valid and disjoint",
                        status.code()
                    );
                    let cr = ch.colliders;
                    let sr = ch.sc;
                    let tb = ch.tearing;
                    let eb = ch.engine;
                    let (engine_p, engine_n) = eb.map_or((core::ptr::null_mut(), 0), |e| (e.contacts, e.count));
                    // Per-substep state (λ, the memory, the engine contacts'
                    // λ and impulse) may be left written; the output only on
                    // success, positions, velocities and the torn list too.
                    let mem_span = Span::of(w.memory.cast_const().cast::<u8>(), needed).range();
                    let torn_span = tb.and_then(|t| Span::of(t.torn, t.torn_capacity).range());
                    let mut spans = [
                        bufs[3].range(),
                        mem_span,
                        Span::of(engine_p, engine_n).range(),
                        None,
                        None,
                        None,
                        None,
                    ];
                    if status.code() >= 0 {
                        spans[3] = bufs[0].range();
                        spans[4] = bufs[1].range();
                        spans[5] = bufs[7].range();
                        spans[6] = torn_span;
                    }
                    assert!(
                        same_outside(a.bytes(), before.bytes(), base as usize, &spans),
                        "step {} wrote outside its writable buffers",
                        status.code()
                    );
                    let mem_regions = |r: usize| {
                        mem_span.is_some_and(|(lo, hi)| {
                            let (rlo, rhi) = (base as usize + r * REGION, base as usize + (r + 1) * REGION);
                            lo < rhi && rlo < hi
                        })
                    };
                    if status.code() < 0 {
                        for r in protected.iter().flatten() {
                            if !writable.contains(&Some(*r)) && !mem_regions(*r) {
                                assert!(
                                    a.0[*r] == before.0[*r],
                                    "step wrote region {r} on error {}",
                                    status.code()
                                );
                            }
                        }
                    }
                    // The model of the values the step validates before it
                    // writes anything, each naming its field (or index). (The
                    // memory is the library's once accepted: it may be written.)
                    let untouched =
                        |a: &Arena| same_outside(a.bytes(), before.bytes(), base as usize, &[mem_span]);
                    let fin1 = |v: $T| v.is_finite();
                    let nonneg = |v: $T| v.is_finite() && v >= 0.0;
                    let c = &config.s;
                    let dt_bad = !(dt.is_finite() && dt > 0.0);
                    let mut config_bad: Vec<i32> = Vec::new();
                    if c.substeps == 0 {
                        config_bad.push(XPBD_FIELD_SUBSTEPS);
                    }
                    if c.iterations == 0 {
                        config_bad.push(XPBD_FIELD_ITERATIONS);
                    }
                    if !c.gravity.iter().all(|g| fin1(*g)) {
                        config_bad.push(XPBD_FIELD_GRAVITY);
                    }
                    for (v, field) in [
                        (c.tolerance, XPBD_FIELD_TOLERANCE),
                        (c.damping, XPBD_FIELD_DAMPING),
                        (c.particle_radius, XPBD_FIELD_PARTICLE_RADIUS),
                        (c.contact_compliance, XPBD_FIELD_CONTACT_COMPLIANCE),
                        (c.static_friction, XPBD_FIELD_STATIC_FRICTION),
                        (c.dynamic_friction, XPBD_FIELD_DYNAMIC_FRICTION),
                    ] {
                        if !nonneg(v) {
                            config_bad.push(field);
                        }
                    }
                    if dt_bad || !config_bad.is_empty() {
                        assert!(
                            matches!(status, XpbdStatus::InvalidTimeStep | XpbdStatus::InvalidConfig),
                            "step {} with dt {dt} / bad config fields {config_bad:?}",
                            status.code()
                        );
                        assert!(untouched(&a), "step wrote with a bad frame time or configuration");
                    }
                    match status {
                        XpbdStatus::InvalidTimeStep => {
                            let field = if dt_bad { XPBD_FIELD_FRAME_TIME } else { XPBD_FIELD_NONE };
                            assert_eq!(report.1, field, "INVALID_TIME_STEP with dt {dt}");
                        }
                        XpbdStatus::InvalidConfig => assert!(
                            report.0 == 0 && config_bad.contains(&report.1),
                            "INVALID_CONFIG names {report:?}, bad fields {config_bad:?}"
                        ),
                        _ => {}
                    }
                    // Self-collision (a block in the chain) needs a radius
                    // > 0 and finite rest positions (when given).
                    let rest_bad = sr.is_some_and(|s| {
                        !s.rest_positions.is_null()
                            && elems(&before, base, s.rest_positions, n).iter().any(|p| !fin(p))
                    });
                    let radius_bad = sr.is_some() && !(c.particle_radius > 0.0);
                    if rest_bad || radius_bad {
                        assert!(status.code() < 0, "step {} with invalid self-collision", status.code());
                        assert!(untouched(&a), "step {} wrote with invalid self-collision", status.code());
                    }
                    if status == XpbdStatus::InvalidSelfCollision {
                        assert!(
                            report.0 == 0
                                && ((radius_bad && report.1 == XPBD_FIELD_PARTICLE_RADIUS)
                                    || (rest_bad && report.1 == XPBD_FIELD_REST_POSITIONS)),
                            "INVALID_SELF_COLLISION names {report:?} (radius bad {radius_bad}, rest bad {rest_bad})"
                        );
                    }
                    // Tearing: each maximum force > 0 (when given); the first
                    // that is not is named.
                    let max_bad = tb.and_then(|t| {
                        if t.max_force.is_null() {
                            return None;
                        }
                        elems(&before, base, t.max_force, links).iter().position(|f| !(*f > 0.0))
                    });
                    if let Some(k) = max_bad {
                        assert!(status.code() < 0, "step {} with maximum force {k} invalid", status.code());
                        assert!(untouched(&a), "step {} wrote with an invalid maximum force", status.code());
                    }
                    if status == XpbdStatus::InvalidMaxForce {
                        assert_eq!(Some(report), max_bad.map(|k| (k, XPBD_FIELD_NONE)), "INVALID_MAX_FORCE");
                    }
                    // A full buffer under the reject policy names the count
                    // the substep needed, beyond its budget.
                    let contact_budget = ch.contact_budget(n);
                    let pair_budget = ch.pair_budget(n);
                    if status == XpbdStatus::CapacityTooSmall {
                        assert_eq!(config.s.contact_overflow, 0, "CAPACITY_TOO_SMALL under keep-first");
                        assert!(
                            (report.1 == XPBD_FIELD_CONTACTS && report.0 > contact_budget)
                                || (report.1 == XPBD_FIELD_PAIRS && sr.is_some() && report.0 > pair_budget),
                            "CAPACITY_TOO_SMALL names {report:?}: contact budget {contact_budget}, \
                             pair budget {pair_budget}"
                        );
                    }
                    // Wind: the documented order (velocity, density, the
                    // per-particle wind, the triangles), the first bad value
                    // named; nothing written.
                    let wind_bad = ch.wind.and_then(|v| {
                        if !v.velocity.iter().all(|c| c.is_finite()) {
                            return Some((0, XPBD_FIELD_WIND_VELOCITY));
                        }
                        if !(v.density.is_finite() && v.density >= 0.0) {
                            return Some((0, XPBD_FIELD_FLUID_DENSITY));
                        }
                        if !v.particle_velocities.is_null() {
                            let pw = elems(&before, base, v.particle_velocities.cast_const(), n);
                            if let Some(k) = pw.iter().position(|u| !fin(u)) {
                                return Some((k, XPBD_FIELD_PARTICLE_WIND));
                            }
                        }
                        let tris = elems(&before, base, v.triangles, v.triangle_count);
                        tris.iter()
                            .position(|t| {
                                let [i, j, k] = t.particles.map(|p| p as usize);
                                !(i < n && j < n && k < n && i != j && j != k && i != k)
                                    || !(t.drag.is_finite() && t.drag >= 0.0)
                                    || !(t.lift.is_finite() && t.lift >= 0.0)
                            })
                            .map(|k| (k, XPBD_FIELD_AERO_TRIANGLES))
                    });
                    if let Some(bad) = wind_bad {
                        assert!(status.code() < 0, "step {} with wind {bad:?} invalid", status.code());
                        assert!(untouched(&a), "step {} wrote with invalid wind", status.code());
                    }
                    if status == XpbdStatus::InvalidWind {
                        assert_eq!(Some(report), wind_bad, "INVALID_WIND");
                    }
                    // Local space: the documented order (the transforms,
                    // the inertia scales, the limits), the first bad value
                    // named with index 0; nothing written (the block
                    // included: `want` above).
                    let local_bad = if ch.local { local_bad(&bb.local.local) } else { None };
                    if let Some(field) = local_bad {
                        assert!(status.code() < 0, "step {} with local space invalid ({field})", status.code());
                        assert!(untouched(&a), "step {} wrote with invalid local space", status.code());
                    }
                    // A valid block whose motion overflows a velocity (a
                    // finite jump over a substep: |translation| / h or
                    // π / h not finite) may be refused as its root
                    // transform, before anything runs.
                    let extreme = ch.local && local_bad.is_none() && {
                        let l = &bb.local.local;
                        let h = dt / (c.substeps.max(1) as $T);
                        let over = |v: $T| !(v / h).is_finite();
                        (0..3).any(|k| {
                            let (p, q) = (l.previous.translation[k], l.target.translation[k]);
                            over(p) || over(q) || over(q - p)
                        }) || over(core::f64::consts::PI as $T)
                    };
                    if status == XpbdStatus::InvalidLocalSpace {
                        let want = if extreme { Some(XPBD_FIELD_ROOT_TRANSFORM) } else { local_bad };
                        assert_eq!(Some(report), want.map(|f| (0, f)), "INVALID_LOCAL_SPACE");
                        assert!(untouched(&a), "step wrote with a refused local space");
                    }
                    if !matches!(
                        status,
                        XpbdStatus::Ok
                            | XpbdStatus::InvalidTimeStep
                            | XpbdStatus::InvalidConfig
                            | XpbdStatus::InvalidSelfCollision
                            | XpbdStatus::CapacityTooSmall
                            | XpbdStatus::InvalidWind
                            | XpbdStatus::InvalidLocalSpace
                    ) {
                        assert_eq!(report.1, XPBD_FIELD_NONE, "status {} names a field", status.code());
                    }
                    // The statistics of a success: budgets bound the maxima;
                    // a drop only under keep-first, and only when a substep
                    // filled the contacts or the pairs.
                    if status == XpbdStatus::Ok {
                        if let Some(off) = offset_in(out.cast_const().cast(), base) {
                            let st: $StepStats = read_at(&a, off).expect("the output fits");
                            assert!(
                                st.max_pairs <= pair_budget && st.max_contacts <= contact_budget,
                                "max_pairs {} / {} max_contacts {} / {}",
                                st.max_pairs,
                                pair_budget,
                                st.max_contacts,
                                contact_budget
                            );
                            if sr.is_none() {
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
                                    st.max_contacts == contact_budget
                                        || (sr.is_some() && st.max_pairs == pair_budget),
                                    "{} dropped, no budget full: contacts {} / {}, \
                                     pairs {} / {}",
                                    st.contacts_dropped,
                                    st.max_contacts,
                                    contact_budget,
                                    st.max_pairs,
                                    pair_budget
                                );
                            }
                            if tb.is_none() || tb.is_some_and(|t| t.max_force.is_null()) {
                                assert_eq!(st.torn, 0, "torn without tearing");
                            }
                        }
                    }
                    // The model of the colliders' field rules.
                    let first_bad = first_invalid(&before, base, cr.as_ref(), eb.as_ref(), n);
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
                    // Heightfields, SDFs and their samples: never written
                    // (whatever the status).
                    if let Some(c) = cr {
                        for (what, span) in [
                            ("heightfields", Span::of(c.heightfields, c.heightfield_count)),
                            ("SDFs", Span::of(c.sdfs, c.sdf_count)),
                            ("samples", Span::of(c.samples, c.sample_count)),
                        ] {
                            if let Some((start, end)) = span.range() {
                                let lo = offset_in(start as *const u8, base).expect("an accepted array is in the arena");
                                let hi = lo + (end - start);
                                assert!(
                                    a.bytes()[lo..hi] == before.bytes()[lo..hi],
                                    "step {} wrote the {what}",
                                    status.code()
                                );
                            }
                        }
                    }
                    // Engine contacts: their own fields never written, the
                    // force only on success.
                    let eb_ = elems(&before, base, engine_p.cast_const(), engine_n);
                    let ea = elems(&a, base, engine_p.cast_const(), engine_n);
                    for (k, (x, y)) in eb_.iter().zip(&ea).enumerate() {
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
    XpbdHeightfield3,
    XpbdSdf3,
    XpbdEngineContact,
    XpbdColliders3,
    XpbdEngineContacts3,
    XpbdSelfCollision3
);
step_parts!(
    p3f,
    f32,
    XpbdWorld3F32,
    XpbdPlane3F32,
    XpbdSphere3F32,
    XpbdCapsule3F32,
    XpbdBox3F32,
    XpbdHeightfield3F32,
    XpbdSdf3F32,
    XpbdEngineContactF32,
    XpbdColliders3F32,
    XpbdEngineContacts3F32,
    XpbdSelfCollision3F32
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
    XpbdHeightfield3,
    XpbdSdf3,
    XpbdEngineContact,
    XpbdParticleContact,
    XpbdStepStats,
    XpbdColliders3,
    XpbdSelfCollision3,
    XpbdTearing3,
    XpbdEngineContacts3,
    XpbdWind3,
    XpbdAeroTriangle,
    XpbdLocalSpace3,
    xpbd_step_config3_default,
    xpbd_world3_step,
    xpbd_world3_requirements,
    xpbd_world3_add,
    xpbd_world3_default,
    xpbd_colliders3_default,
    xpbd_self_collision3_default,
    xpbd_tearing3_default,
    xpbd_engine_contacts3_default,
    xpbd_wind3_default,
    xpbd_aero_triangle_default,
    xpbd_local_space3_default
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
    XpbdHeightfield3F32,
    XpbdSdf3F32,
    XpbdEngineContactF32,
    XpbdParticleContactF32,
    XpbdStepStatsF32,
    XpbdColliders3F32,
    XpbdSelfCollision3F32,
    XpbdTearing3F32,
    XpbdEngineContacts3F32,
    XpbdWind3F32,
    XpbdAeroTriangleF32,
    XpbdLocalSpace3F32,
    xpbd_step_config3_default_f32,
    xpbd_world3_step_f32,
    xpbd_world3_requirements_f32,
    xpbd_world3_add_f32,
    xpbd_world3_default_f32,
    xpbd_colliders3_default_f32,
    xpbd_self_collision3_default_f32,
    xpbd_tearing3_default_f32,
    xpbd_engine_contacts3_default_f32,
    xpbd_wind3_default_f32,
    xpbd_aero_triangle_default_f32,
    xpbd_local_space3_default_f32
);
