//! Hostile C callers of self-collision (issue 18) through
//! `xpbd_world3_step` and `xpbd_world3_step_f32`, with the world of issue
//! 33: a self-collision block (rest positions, a pair budget) whose
//! buffers (pairs, hash table, ids, adjacency) the library carves from
//! the world's memory. The rest positions over positions, velocities,
//! inverse masses, links, the memory, planes, the world struct, the
//! blocks, the configuration and the output (`ALIASED_BUFFERS`, or
//! `INVALID_ARGUMENT` when the moved pointer is also misaligned for its
//! type); the memory over each of them and the rest positions
//! (`ALIASED_BUFFERS`, or `CAPACITY_TOO_SMALL` with `XPBD_FIELD_MEMORY`
//! when it is also misaligned); the memory NULL, misaligned, or one byte
//! short, with self-collision on or off (`CAPACITY_TOO_SMALL`,
//! `XPBD_FIELD_MEMORY`, the bytes needed); NaN or infinite rest
//! positions, radius 0 (`INVALID_SELF_COLLISION` naming the field); a pair
//! budget of one under both overflow policies (`CAPACITY_TOO_SMALL` with
//! `XPBD_FIELD_PAIRS` and the pairs needed). Every refusal writes nothing,
//! bit for bit: positions, velocities, links, rest positions, the
//! output; `error_index` and `error_field` say what was refused. Called
//! from Rust so that Miri checks the slices the C layer forms; 4
//! particles, 2 substeps.

use core::ptr;
use xpbd::ffi::*;
use xpbd::step::{Contact, Plane, StepStats};
use xpbd::Link;

#[path = "support/c_step.rs"]
mod c_step;
use c_step::{f, Prec};

const N: usize = 4;
const LINKS: usize = 2;

/// Two linked pairs, one 15 mm above the other (r = 10 mm: pairs 0–2 and
/// 1–3 touch), over the ground; rest positions 1 m apart in y (no
/// exclusion). The blocks live in vectors (stable addresses, one origin
/// for every pointer to them).
struct Store<T: Prec> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    planes: Vec<Plane<T, 3>>,
    rest: Vec<[T; 3]>,
    colliders_block: Vec<CollidersC<T>>,
    sc_block: Vec<SelfCollisionC<T>>,
    memory: Vec<u64>,
    config: StepConfigC<T>,
    stats: StepStats<T>,
}

impl<T: Prec> Store<T> {
    fn new() -> Self {
        let p = |a: f64, b: f64| [f(a), f(b), T::ZERO];
        let x = vec![p(0.0, 0.1), p(0.05, 0.1), p(0.0, 0.115), p(0.05, 0.115)];
        let rest = vec![p(0.0, 0.1), p(0.05, 0.1), p(0.0, 1.1), p(0.05, 1.1)];
        let link = |i, j| Link::new(i, j, f(0.05), T::ZERO);
        let mut config = T::default_config();
        config.substeps = 2;
        config.particle_radius = f(0.01);
        Self {
            x,
            v: vec![[T::ZERO; 3]; N],
            w: vec![T::ONE; N],
            links: vec![link(0, 1), link(2, 3)],
            planes: vec![Plane {
                normal: [T::ZERO, T::ONE, T::ZERO],
                offset: T::ZERO,
            }],
            rest,
            colliders_block: vec![T::default_colliders()],
            sc_block: vec![T::default_self_collision()],
            memory: Vec::new(),
            config,
            stats: StepStats::default(),
        }
    }

    /// The C world over the store's buffers (raw pointers taken once):
    /// the colliders block (a contact budget of 8), then the
    /// self-collision block (a pair budget of 8) at the chain's head, and
    /// the memory.
    fn world(&mut self) -> WorldC<T> {
        let mut w = T::default_world();
        w.positions = self.x.as_mut_ptr();
        w.velocities = self.v.as_mut_ptr();
        w.inverse_masses = self.w.as_ptr();
        w.particle_count = N;
        w.links = self.links.as_mut_ptr();
        w.link_count = LINKS;
        let mut c = T::default_colliders();
        c.planes = self.planes.as_ptr();
        c.plane_count = 1;
        c.contact_budget = 8;
        self.colliders_block[0] = c;
        let mut sc = T::default_self_collision();
        sc.rest_positions = self.rest.as_mut_ptr();
        sc.pair_budget = 8;
        self.sc_block[0] = sc;
        // SAFETY: the world and its blocks are valid; the blocks outlive
        // the world's use (the store's vectors).
        unsafe {
            let (cb, sb) = (self.colliders(), self.self_collision());
            assert_eq!(T::add_block(&mut w, cb.cast()), XpbdStatus::Ok);
            assert_eq!(T::add_block(&mut w, sb.cast()), XpbdStatus::Ok);
            self.memory = c_step::give_memory(&mut w);
        }
        w
    }

    /// The colliders block.
    fn colliders(&mut self) -> *mut CollidersC<T> {
        self.colliders_block.as_mut_ptr()
    }

    /// The self-collision block.
    fn self_collision(&mut self) -> *mut SelfCollisionC<T> {
        self.sc_block.as_mut_ptr()
    }
}

/// Every value a refused step must leave alone, bit for bit.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot(Vec<u64>);

/// Reads the good world's buffers (its own pointers and counts) and the
/// rest positions at `rest`.
fn snapshot<T: Prec>(w: &WorldC<T>, rest: *const [T; 3]) -> Snapshot {
    let mut out = Vec::new();
    let mut put = |s: &[T]| out.extend(s.iter().map(|c| c.bits()));
    // SAFETY: the store's buffers at their counts, read by value between
    // calls.
    unsafe {
        for k in 0..N {
            put(&*w.positions.add(k));
            put(&*w.velocities.add(k));
            put(&*rest.add(k));
        }
        for k in 0..LINKS {
            let l = *w.links.add(k);
            put(&[l.rest, l.compliance, l.lambda]);
            put(&[f(f64::from(l.i)), f(f64::from(l.j)), f(f64::from(l.flags))]);
        }
    }
    Snapshot(out)
}

/// What a refusal answers: the status, `error_index`, `error_field`.
type Want = (XpbdStatus, usize, i32);

/// ALIASED_BUFFERS for a pointer `p` to `E` over another buffer, unless it
/// is also misaligned for `E` (refused as such first).
fn over<E>(p: *const E) -> Want {
    if (p as usize) % core::mem::align_of::<E>() == 0 {
        (XpbdStatus::AliasedBuffers, 0, XPBD_FIELD_NONE)
    } else {
        (XpbdStatus::InvalidArgument, 0, XPBD_FIELD_NONE)
    }
}

/// The memory (`needed` bytes) at `p` over another buffer:
/// ALIASED_BUFFERS, unless `p` is not 8-aligned (refused as memory the
/// library cannot use first).
fn memory_over(p: *const u8, needed: usize) -> Want {
    if (p as usize) % XPBD_MEMORY_ALIGN == 0 {
        (XpbdStatus::AliasedBuffers, 0, XPBD_FIELD_NONE)
    } else {
        (XpbdStatus::CapacityTooSmall, needed, XPBD_FIELD_MEMORY)
    }
}

/// (what, the world, the self-collision block, the answer)
type Case<T> = (String, WorldC<T>, SelfCollisionC<T>, Want);

/// Under Miri (CI budget) the f64 test takes the even cases and the f32
/// test the odd ones (`half`); natively each takes all of them.
fn hostile_buffers_are_refused<T: Prec>(half: usize) {
    let mut s = Store::<T>::new();
    let good = s.world();
    let (cbp, sbp) = (s.colliders(), s.self_collision());
    // SAFETY: the store's block, read through its pointer.
    let gs = unsafe { *sbp };
    let rest = gs.rest_positions;
    let needed = good.memory_size;
    let memory = good.memory.cast::<u8>();
    let mut world = good;
    let wp = ptr::addr_of_mut!(world);
    let cp = ptr::addr_of!(s.config);
    let out = ptr::addr_of_mut!(s.stats);
    let dt = f::<T>(1.0 / 60.0);
    // The good world steps and finds the two pairs.
    // SAFETY: valid, disjoint buffers.
    unsafe {
        assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok);
        assert_eq!((*out).max_pairs, 2);
    }
    let stats_after_ok = s.stats;
    let before = snapshot(&good, rest);
    let mut cases: Vec<Case<T>> = Vec::new();
    // SAFETY: a field of the world `wp` points to (address only).
    let error_index = unsafe { ptr::addr_of_mut!((*wp).error_index) }.cast::<u8>();
    let targets: [(&str, *mut u8); 13] = [
        ("positions", good.positions.cast()),
        ("velocities", good.velocities.cast()),
        ("inverse masses", good.inverse_masses.cast_mut().cast()),
        ("links", good.links.cast()),
        ("planes", s.planes.as_mut_ptr().cast()),
        ("the world", wp.cast()),
        ("the world's error_index", error_index),
        ("the config", cp.cast_mut().cast()),
        ("the output", out.cast()),
        ("the colliders block", cbp.cast()),
        ("the self-collision block", sbp.cast()),
        ("the memory", memory),
        // The pairs, hash table, ids, adjacency and stamp are carved
        // after the step scratch and the contacts: near the end.
        ("the memory's end", memory.wrapping_add(needed - 8)),
    ];
    let rest_target = ("rest positions", rest.cast::<u8>());
    for (what, at) in targets.into_iter().chain([rest_target]) {
        if at != rest.cast() {
            let p = at.cast::<[T; 3]>();
            cases.push((
                format!("rest over {what}"),
                good,
                SelfCollisionC {
                    rest_positions: p,
                    ..gs
                },
                over(p),
            ));
        }
        if !what.starts_with("the memory") {
            cases.push((
                format!("memory over {what}"),
                WorldC {
                    memory: at.cast(),
                    ..good
                },
                gs,
                memory_over(at, needed),
            ));
        }
    }
    // Running into each other: the rest positions into the memory's
    // start, the memory's end into the rest positions.
    let p = memory.wrapping_sub(8).cast::<[T; 3]>();
    cases.push((
        "rest running into the memory".into(),
        good,
        SelfCollisionC {
            rest_positions: p,
            ..gs
        },
        over(p),
    ));
    let r = rest as usize;
    let back = needed - 8 + r.wrapping_add(8).wrapping_sub(needed) % 8;
    let m = rest.cast::<u8>().wrapping_sub(back);
    cases.push((
        "memory running into the rest positions".into(),
        WorldC {
            memory: m.cast(),
            ..good
        },
        gs,
        memory_over(m, needed),
    ));
    // The memory NULL, misaligned or short (self-collision on, and off:
    // the chain from the colliders block).
    let small = |n: usize| (XpbdStatus::CapacityTooSmall, n, XPBD_FIELD_MEMORY);
    let off = WorldC {
        blocks: cbp.cast(),
        ..good
    };
    // SAFETY: a valid world and its chain (read only).
    let needed_off = unsafe { c_step::memory_size(&mut { off }) };
    assert!(needed_off < needed, "{needed_off} < {needed}");
    cases.extend([
        (
            "memory NULL".into(),
            WorldC {
                memory: ptr::null_mut(),
                ..good
            },
            gs,
            small(needed),
        ),
        (
            "memory one byte short".into(),
            WorldC {
                memory_size: needed - 1,
                ..good
            },
            gs,
            small(needed),
        ),
        (
            "memory the size without self-collision".into(),
            WorldC {
                memory_size: needed_off,
                ..good
            },
            gs,
            small(needed),
        ),
        (
            "memory misaligned by 4".into(),
            WorldC {
                memory: memory.wrapping_add(4).cast(),
                ..good
            },
            gs,
            small(needed),
        ),
        (
            "memory misaligned by 1".into(),
            WorldC {
                memory: memory.wrapping_add(1).cast(),
                ..good
            },
            gs,
            small(needed),
        ),
        (
            "memory NULL, self-collision off".into(),
            WorldC {
                memory: ptr::null_mut(),
                ..off
            },
            gs,
            small(needed_off),
        ),
        (
            "memory over positions, self-collision off".into(),
            WorldC {
                memory: good.positions.cast(),
                ..off
            },
            gs,
            memory_over(good.positions.cast(), needed_off),
        ),
        (
            "rest misaligned".into(),
            good,
            SelfCollisionC {
                rest_positions: rest.cast::<u8>().wrapping_add(3).cast(),
                ..gs
            },
            (XpbdStatus::InvalidArgument, 0, XPBD_FIELD_NONE),
        ),
    ]);
    let (skip, stride) = if cfg!(miri) { (half, 2) } else { (0, 1) };
    for (what, w, b, want) in cases.into_iter().skip(skip).step_by(stride) {
        // SAFETY: the structs are plain data written through their own
        // pointers; every buffer is valid, and the overlapping, NULL,
        // misaligned or short ones are refused before any access.
        unsafe {
            *wp = w;
            *sbp = b;
            (*wp).error_index = 77;
            (*wp).error_field = 77;
            let got = T::step(wp, dt, cp, out);
            assert_eq!((got, (*wp).error_index, (*wp).error_field), want, "{what}");
        }
        assert_eq!(
            snapshot(&good, rest),
            before,
            "{what}: a refused step wrote"
        );
        // SAFETY: the store's output, read between calls.
        assert_eq!(unsafe { *out }, stats_after_ok, "{what}: output written");
    }
    // The same buffers, disjoint again: the step runs.
    // SAFETY: valid, disjoint buffers.
    unsafe {
        *wp = good;
        *sbp = gs;
        assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok);
    }
}

#[test]
fn aliased_null_and_misaligned_self_collision_buffers_are_refused() {
    hostile_buffers_are_refused::<f64>(0);
}

#[test]
fn aliased_null_and_misaligned_self_collision_buffers_are_refused_in_f32() {
    hostile_buffers_are_refused::<f32>(1);
}

/// Short memory, bad rest positions and radius 0: refused naming what,
/// with nothing written; a pair budget of one: CAPACITY_TOO_SMALL naming
/// the pairs needed, with positions and velocities restored (reject), or
/// a success counting the dropped pair (keep-first). Under Miri (CI
/// budget) the f64 test takes half of the cases and the f32 test the
/// other half (`half`; the same generic code behind each C entry point);
/// natively each takes all.
fn invalid_self_collision_writes_nothing<T: Prec>(half: usize) {
    // Whether case `k` of a list runs here.
    let mine = |k: usize| !cfg!(miri) || k % 2 == half;
    let mut s = Store::<T>::new();
    let good = s.world();
    let sbp = s.self_collision();
    // SAFETY: the store's block, read through its pointer.
    let gs = unsafe { *sbp };
    let rest = s.rest.as_mut_ptr();
    let needed = good.memory_size;
    let mut world = good;
    let wp = ptr::addr_of_mut!(world);
    let out = ptr::addr_of_mut!(s.stats);
    let mut zero_radius = s.config;
    zero_radius.particle_radius = T::ZERO;
    let mut tiny = s.config;
    tiny.particle_radius = f(1e-30);
    let cp = ptr::addr_of!(s.config);
    let dt = f::<T>(1.0 / 60.0);
    // SAFETY: valid, disjoint buffers.
    unsafe { assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok) };
    let stats = s.stats;
    let before = snapshot(&good, rest);
    let small = (XpbdStatus::CapacityTooSmall, needed, XPBD_FIELD_MEMORY);
    let short: [(&str, WorldC<T>); 2] = [
        (
            "memory one byte short",
            WorldC {
                memory_size: needed - 1,
                ..good
            },
        ),
        (
            "memory empty",
            WorldC {
                memory_size: 0,
                ..good
            },
        ),
    ];
    let check = move |what: &str, c: *const StepConfigC<T>, want: Want, edit: &dyn Fn()| {
        // SAFETY: plain data through the store's pointers, between calls.
        unsafe {
            edit();
            let before = snapshot(&good, rest);
            (*wp).error_index = 77;
            (*wp).error_field = 77;
            let got = T::step(wp, dt, c, out);
            assert_eq!((got, (*wp).error_index, (*wp).error_field), want, "{what}");
            assert_eq!(
                snapshot(&good, rest),
                before,
                "{what}: a refused step wrote"
            );
            assert_eq!(*out, stats, "{what}: output written");
        }
    };
    for (k, (what, w)) in short.into_iter().enumerate() {
        if !mine(k) {
            continue;
        }
        // SAFETY: the struct through its own pointer.
        unsafe { *wp = w };
        check(what, cp, small, &|| {});
    }
    // SAFETY: as above.
    unsafe { *wp = good };
    if mine(0) {
        check(
            "radius 0",
            ptr::addr_of!(zero_radius),
            (
                XpbdStatus::InvalidSelfCollision,
                0,
                XPBD_FIELD_PARTICLE_RADIUS,
            ),
            &|| {},
        );
    }
    for (k, v) in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY]
        .into_iter()
        .enumerate()
    {
        if !mine(k) {
            continue;
        }
        // SAFETY: the rest positions, written between calls.
        check(
            &format!("rest {v}"),
            cp,
            (
                XpbdStatus::InvalidSelfCollision,
                0,
                XPBD_FIELD_REST_POSITIONS,
            ),
            &|| unsafe { (*rest.add(2))[1] = f(v) },
        );
    }
    // SAFETY: as above; restored.
    unsafe { (*rest.add(2))[1] = f(1.1) };
    assert_eq!(snapshot(&good, rest), before);
    // A tiny radius (1/q overflows in f32) steps or fails cleanly.
    if mine(1) {
        // SAFETY: valid, disjoint buffers; read between calls.
        unsafe {
            let got = T::step(wp, dt, ptr::addr_of!(tiny), out);
            assert!(matches!(got, XpbdStatus::Ok), "tiny radius: {got:?}");
            for k in 0..N {
                assert!((*good.positions.add(k)).iter().all(|c| c.is_finite()));
            }
        }
    }
    // A pair budget of one: reject restores and names the pairs needed,
    // keep-first counts the dropped pair.
    let mut keep = s.config;
    keep.contact_overflow = XPBD_CONTACT_OVERFLOW_KEEP_FIRST;
    // SAFETY: valid, disjoint buffers; read between calls.
    unsafe {
        *sbp = SelfCollisionC {
            pair_budget: 1,
            ..gs
        };
        if mine(0) {
            let start = snapshot(&good, rest);
            let stats = *out;
            let got = T::step(wp, dt, cp, out);
            assert_eq!(
                (got, (*wp).error_index, (*wp).error_field),
                (XpbdStatus::CapacityTooSmall, 2, XPBD_FIELD_PAIRS)
            );
            let after = snapshot(&good, rest);
            // Positions, velocities and rest (the first 3·3·N words)
            // restored.
            assert_eq!(after.0[..9 * N], start.0[..9 * N], "reject: not restored");
            assert_eq!(*out, stats, "reject: output written");
        }
        if !mine(1) {
            return;
        }
        let got = T::step(wp, dt, ptr::addr_of!(keep), out);
        assert_eq!(got, XpbdStatus::Ok);
        let st = *out;
        assert_eq!(st.max_pairs, 1);
        assert!(st.contacts_dropped >= 1, "keep-first: {st:?}");
        for k in 0..N {
            let (x, v) = (*good.positions.add(k), *good.velocities.add(k));
            assert!(x.iter().chain(&v).all(|c| c.is_finite()));
        }
    }
}

#[test]
fn invalid_self_collision_is_refused_writing_nothing() {
    invalid_self_collision_writes_nothing::<f64>(0);
}

#[test]
fn invalid_self_collision_is_refused_writing_nothing_in_f32() {
    invalid_self_collision_writes_nothing::<f32>(1);
}

/// Found by fuzzing (`fuzz/src/world/step.rs`, f32): a plane whose normal is
/// finite but whose length overflows, 3e38 m from a particle, throws it to
/// a velocity near `f32::MAX`; the next frame's dynamic friction turned
/// that velocity into NaN after the finiteness check, and the step
/// returned OK with a NaN velocity. Now INVALID_RESULT, rolled back.
#[test]
fn dynamic_friction_overflow_is_an_invalid_result_not_a_nan_success() {
    use xpbd::step::{step, Colliders, Sphere, StepConfig, World};
    let mut x = [[0.5_f32; 3]];
    let mut v = [[0.5_f32; 3]];
    let mut contacts = [Contact::default(); 2];
    let mut scratch = [[0.0; 3]; 3];
    let planes = [Plane {
        normal: [0.5, 3e38, 3e38],
        offset: 3e38,
    }];
    let spheres = [Sphere {
        center: [0.5; 3],
        radius: 0.5,
    }];
    let mut config = StepConfig::new([0.5, 0.01, 0.01]);
    config.substeps = 3;
    config.iterations = 3;
    config.damping = 0.01;
    config.particle_radius = 0.01;
    config.contact_compliance = 0.01;
    config.static_friction = 0.01;
    config.dynamic_friction = 0.01;
    let mut world = World::new(&mut x, &mut v, &[0.5], &mut contacts, &mut scratch);
    world.colliders = Some(Colliders {
        planes: &planes,
        spheres: &spheres,
        ..Default::default()
    });
    for dt in [0.01, 1.0 / 60.0, 1.0 / 60.0] {
        let before = (world.positions[0], world.velocities[0]);
        match step(&mut world, dt, &config) {
            Ok(_) => {
                let (x, v) = (world.positions[0], world.velocities[0]);
                assert!(
                    x.iter().chain(&v).all(|c| c.is_finite()),
                    "OK with x {x:?} v {v:?}"
                );
            }
            Err(_) => assert_eq!((world.positions[0], world.velocities[0]), before),
        }
    }
}
