//! Hostile C callers of self-collision (issue 18) through
//! `xpbd_world3_step` and `xpbd_world3_step_f32`: each self-collision
//! buffer (pairs, hash table, ids, adjacency, rest positions) over
//! positions, velocities, inverse masses, links, contacts, scratch, planes,
//! the world struct, the configuration, the output and the other
//! self-collision buffers (`ALIASED_BUFFERS`, or `INVALID_ARGUMENT` when
//! the moved pointer is also misaligned for its type); NULL with a count
//! (`NULL_POINTER`, self-collision on or off); misaligned, one entry
//! short, NaN or infinite rest positions, radius 0 (`INVALID_ARGUMENT`);
//! a pair capacity of one under both overflow policies. Every refusal
//! writes nothing, bit for bit: positions, velocities, links, the
//! self-collision buffers, the output; `error_index` neither (0 for the
//! validation errors, which name no item). Called from Rust so that Miri
//! checks the slices the C layer forms; 4 particles, 2 substeps.

use core::ptr;
use xpbd::ffi::*;
use xpbd::step::{Contact, ParticleContact, Plane, StepStats};
use xpbd::Link;

#[path = "support/c_step.rs"]
mod c_step;
use c_step::{f, Prec};

const N: usize = 4;
const LINKS: usize = 2;

/// Two linked pairs, one 15 mm above the other (r = 10 mm: pairs 0–2 and
/// 1–3 touch), over the ground; rest positions 1 m apart in y (no
/// exclusion).
struct Store<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    planes: Vec<Plane<T, 3>>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
    pairs: Vec<ParticleContact<T>>,
    table: Vec<u32>,
    ids: Vec<u32>,
    adjacency: Vec<u32>,
    rest: Vec<[T; 3]>,
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
            contacts: vec![Contact::default(); 8],
            scratch: vec![[T::ZERO; 3]; xpbd_step_scratch_len(N)],
            pairs: vec![ParticleContact::default(); 8],
            table: vec![0; xpbd_self_collision_table_len(N)],
            ids: vec![0; N],
            adjacency: vec![0; xpbd_self_collision_adjacency_len(N, LINKS)],
            rest,
            config,
            stats: StepStats::default(),
        }
    }

    /// The C world over the store's buffers (raw pointers taken once).
    fn world(&mut self) -> WorldC<T> {
        WorldC {
            positions: self.x.as_mut_ptr(),
            velocities: self.v.as_mut_ptr(),
            inverse_masses: self.w.as_ptr(),
            particle_count: N,
            links: self.links.as_mut_ptr(),
            link_count: LINKS,
            planes: self.planes.as_ptr(),
            plane_count: 1,
            spheres: ptr::null(),
            sphere_count: 0,
            contacts: self.contacts.as_mut_ptr(),
            contact_capacity: self.contacts.len(),
            scratch: self.scratch.as_mut_ptr(),
            scratch_count: self.scratch.len(),
            error_index: 0,
            link_max_force: ptr::null(),
            torn: ptr::null_mut(),
            torn_capacity: 0,
            capsules: ptr::null(),
            capsule_count: 0,
            boxes: ptr::null(),
            box_count: 0,
            engine_contacts: ptr::null_mut(),
            engine_contact_count: 0,
            particle_contacts: self.pairs.as_mut_ptr(),
            particle_contact_capacity: self.pairs.len(),
            hash_table: self.table.as_mut_ptr(),
            hash_table_count: self.table.len(),
            hash_ids: self.ids.as_mut_ptr(),
            hash_id_count: self.ids.len(),
            adjacency: self.adjacency.as_mut_ptr(),
            adjacency_count: self.adjacency.len(),
            rest_positions: self.rest.as_ptr(),
        }
    }
}

/// Every value a refused step must leave alone, bit for bit.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot(Vec<u64>);

/// Reads the good world's buffers (its own pointers and counts).
fn snapshot<T: Prec>(w: &WorldC<T>) -> Snapshot {
    let mut out = Vec::new();
    let mut put = |s: &[T]| out.extend(s.iter().map(|c| c.bits()));
    // SAFETY: the store's buffers at their counts, read by value between
    // calls.
    unsafe {
        for k in 0..N {
            put(&*w.positions.add(k));
            put(&*w.velocities.add(k));
            put(&*w.rest_positions.add(k));
        }
        for k in 0..LINKS {
            let l = *w.links.add(k);
            put(&[l.rest, l.compliance, l.lambda]);
            put(&[f(f64::from(l.i)), f(f64::from(l.j)), f(f64::from(l.flags))]);
        }
        for k in 0..w.particle_contact_capacity {
            let p = *w.particle_contacts.add(k);
            put(&[p.lambda]);
            put(&[f(f64::from(p.i)), f(f64::from(p.j))]);
        }
        for (p, n) in [
            (w.hash_table, w.hash_table_count),
            (w.hash_ids, w.hash_id_count),
            (w.adjacency, w.adjacency_count),
        ] {
            for k in 0..n {
                put(&[f(f64::from(*p.add(k)))]);
            }
        }
    }
    Snapshot(out)
}

/// ALIASED_BUFFERS for a pointer `p` to `E` over another buffer, unless it
/// is also misaligned for `E` (refused as such first).
fn over<E>(p: *const E) -> XpbdStatus {
    if (p as usize) % core::mem::align_of::<E>() == 0 {
        XpbdStatus::AliasedBuffers
    } else {
        XpbdStatus::InvalidArgument
    }
}

type Case<T> = (String, WorldC<T>, *const StepConfigC<T>, XpbdStatus);

/// Under Miri (CI budget) the f64 test takes the even cases and the f32
/// test the odd ones (`half`); natively each takes all of them.
fn hostile_buffers_are_refused<T: Prec>(half: usize) {
    let mut s = Store::<T>::new();
    let good = s.world();
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
    let before = snapshot(&good);
    let mut cases: Vec<Case<T>> = Vec::new();
    // SAFETY: a field of the world `wp` points to (address only).
    let error_index = unsafe { ptr::addr_of_mut!((*wp).error_index) }.cast::<u8>();
    let targets: [(&str, *mut u8); 15] = [
        ("positions", good.positions.cast()),
        ("velocities", good.velocities.cast()),
        ("inverse masses", good.inverse_masses.cast_mut().cast()),
        ("links", good.links.cast()),
        ("contacts", good.contacts.cast()),
        ("scratch", good.scratch.cast()),
        ("planes", good.planes.cast_mut().cast()),
        ("the world", wp.cast()),
        ("the world's error_index", error_index),
        ("the config", cp.cast_mut().cast()),
        ("the output", out.cast()),
        ("pairs", good.particle_contacts.cast()),
        ("the hash table", good.hash_table.cast()),
        ("the ids", good.hash_ids.cast()),
        ("the adjacency", good.adjacency.cast()),
    ];
    let rest_target = (
        "rest positions",
        good.rest_positions.cast_mut().cast::<u8>(),
    );
    for (what, at) in targets.into_iter().chain([rest_target]) {
        let mut push = |name: &str, w: WorldC<T>, want: XpbdStatus| {
            cases.push((format!("{name} over {what}"), w, cp, want));
        };
        if at != good.particle_contacts.cast() {
            let p = at.cast::<ParticleContact<T>>();
            push(
                "pairs",
                WorldC {
                    particle_contacts: p,
                    ..good
                },
                over(p),
            );
        }
        if at != good.hash_table.cast() {
            let p = at.cast::<u32>();
            push(
                "hash table",
                WorldC {
                    hash_table: p,
                    ..good
                },
                over(p),
            );
        }
        if at != good.hash_ids.cast() {
            let p = at.cast::<u32>();
            push(
                "ids",
                WorldC {
                    hash_ids: p,
                    ..good
                },
                over(p),
            );
        }
        if at != good.adjacency.cast() {
            let p = at.cast::<u32>();
            push(
                "adjacency",
                WorldC {
                    adjacency: p,
                    ..good
                },
                over(p),
            );
        }
        if at != good.rest_positions.cast_mut().cast() {
            let p = at.cast_const().cast::<[T; 3]>();
            push(
                "rest",
                WorldC {
                    rest_positions: p,
                    ..good
                },
                over(p),
            );
        }
    }
    // Running into the next buffer: the table one entry before the ids.
    let p = good.hash_ids.wrapping_sub(1);
    cases.push((
        "hash table running into the ids".into(),
        WorldC {
            hash_table: p,
            ..good
        },
        cp,
        XpbdStatus::AliasedBuffers,
    ));
    // NULL with a count (self-collision on, and off for the scratch).
    let null = XpbdStatus::NullPointer;
    let off = WorldC {
        particle_contacts: ptr::null_mut(),
        particle_contact_capacity: 0,
        ..good
    };
    cases.extend([
        (
            "pairs NULL".into(),
            WorldC {
                particle_contacts: ptr::null_mut(),
                ..good
            },
            cp,
            null,
        ),
        (
            "table NULL".into(),
            WorldC {
                hash_table: ptr::null_mut(),
                ..good
            },
            cp,
            null,
        ),
        (
            "ids NULL".into(),
            WorldC {
                hash_ids: ptr::null_mut(),
                ..good
            },
            cp,
            null,
        ),
        (
            "adjacency NULL".into(),
            WorldC {
                adjacency: ptr::null_mut(),
                ..good
            },
            cp,
            null,
        ),
        (
            "table NULL, self-collision off".into(),
            WorldC {
                hash_table: ptr::null_mut(),
                ..off
            },
            cp,
            null,
        ),
        (
            "adjacency over positions, self-collision off".into(),
            WorldC {
                adjacency: good.positions.cast(),
                ..off
            },
            cp,
            over(good.positions.cast::<u32>()),
        ),
    ]);
    // Misaligned.
    let bad = XpbdStatus::InvalidArgument;
    cases.extend([
        (
            "pairs misaligned".into(),
            WorldC {
                particle_contacts: good.particle_contacts.cast::<u8>().wrapping_add(1).cast(),
                ..good
            },
            cp,
            bad,
        ),
        (
            "table misaligned".into(),
            WorldC {
                hash_table: good.hash_table.cast::<u8>().wrapping_add(2).cast(),
                ..good
            },
            cp,
            bad,
        ),
        (
            "rest misaligned".into(),
            WorldC {
                rest_positions: good.rest_positions.cast::<u8>().wrapping_add(3).cast(),
                ..good
            },
            cp,
            bad,
        ),
    ]);
    let (skip, stride) = if cfg!(miri) { (half, 2) } else { (0, 1) };
    for (what, w, c, want) in cases.into_iter().skip(skip).step_by(stride) {
        // SAFETY: the struct is plain data written through its own pointer;
        // every buffer is valid, and the overlapping, NULL or misaligned
        // ones are refused before any access.
        unsafe {
            *wp = w;
            (*wp).error_index = 77;
            let got = T::step(wp, dt, c, out);
            assert_eq!(got, want, "{what}");
            assert_eq!((*wp).error_index, 77, "{what}: error_index written");
        }
        assert_eq!(snapshot(&good), before, "{what}: a refused step wrote");
        // SAFETY: the store's output, read between calls.
        assert_eq!(unsafe { *out }, stats_after_ok, "{what}: output written");
    }
    // The same buffers, disjoint again: the step runs.
    // SAFETY: valid, disjoint buffers.
    unsafe {
        *wp = good;
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

/// Short scratch, bad rest positions and radius 0: INVALID_ARGUMENT with
/// nothing written; a pair capacity of one: CAPACITY_TOO_SMALL with
/// positions and velocities restored (reject), or a success counting the
/// dropped pair (keep-first).
fn invalid_self_collision_writes_nothing<T: Prec>() {
    let mut s = Store::<T>::new();
    let good = s.world();
    let mut world = good;
    let wp = ptr::addr_of_mut!(world);
    let out = ptr::addr_of_mut!(s.stats);
    let mut zero_radius = s.config;
    zero_radius.particle_radius = T::ZERO;
    let mut tiny = s.config;
    tiny.particle_radius = f(1e-30);
    let cp = ptr::addr_of!(s.config);
    let rest = good.rest_positions.cast_mut();
    let dt = f::<T>(1.0 / 60.0);
    // SAFETY: valid, disjoint buffers.
    unsafe { assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok) };
    let stats = s.stats;
    let before = snapshot(&good);
    let short: [(&str, WorldC<T>); 4] = [
        (
            "table one short",
            WorldC {
                hash_table_count: good.hash_table_count - 1,
                ..good
            },
        ),
        (
            "ids one short",
            WorldC {
                hash_id_count: N - 1,
                ..good
            },
        ),
        (
            "adjacency one short",
            WorldC {
                adjacency_count: good.adjacency_count - 1,
                ..good
            },
        ),
        (
            "adjacency empty",
            WorldC {
                adjacency: ptr::null_mut(),
                adjacency_count: 0,
                ..good
            },
        ),
    ];
    let check = move |what: &str, c: *const StepConfigC<T>, edit: &dyn Fn()| {
        // SAFETY: plain data through the store's pointers, between calls.
        unsafe {
            edit();
            let before = snapshot(&good);
            (*wp).error_index = 77;
            let got = T::step(wp, dt, c, out);
            assert_eq!(
                (got, (*wp).error_index),
                (XpbdStatus::InvalidArgument, 0),
                "{what}"
            );
            assert_eq!(snapshot(&good), before, "{what}: a refused step wrote");
            assert_eq!(*out, stats, "{what}: output written");
        }
    };
    for (what, w) in short {
        // SAFETY: the struct through its own pointer.
        unsafe { *wp = w };
        check(what, cp, &|| {});
    }
    // SAFETY: as above.
    unsafe { *wp = good };
    check("radius 0", ptr::addr_of!(zero_radius), &|| {});
    for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        // SAFETY: the rest positions, written between calls.
        check(&format!("rest {v}"), cp, &|| unsafe {
            (*rest.add(2))[1] = f(v)
        });
    }
    // SAFETY: as above; restored.
    unsafe { (*rest.add(2))[1] = f(1.1) };
    assert_eq!(snapshot(&good), before);
    // A tiny radius (1/q overflows in f32) steps or fails cleanly.
    // SAFETY: valid, disjoint buffers.
    unsafe {
        let got = T::step(wp, dt, ptr::addr_of!(tiny), out);
        assert!(matches!(got, XpbdStatus::Ok), "tiny radius: {got:?}");
        for k in 0..N {
            assert!((*good.positions.add(k)).iter().all(|c| c.is_finite()));
        }
    }
    // Capacity one: reject restores, keep-first counts the dropped pair.
    let one = WorldC {
        particle_contact_capacity: 1,
        ..good
    };
    let mut keep = s.config;
    keep.contact_overflow = XPBD_CONTACT_OVERFLOW_KEEP_FIRST;
    // SAFETY: valid, disjoint buffers; read between calls.
    unsafe {
        *wp = one;
        let start = snapshot(&good);
        let stats = *out;
        let got = T::step(wp, dt, cp, out);
        assert_eq!(got, XpbdStatus::CapacityTooSmall);
        let after = snapshot(&good);
        // Positions, velocities and rest (the first 3·3·N words) restored.
        assert_eq!(after.0[..9 * N], start.0[..9 * N], "reject: not restored");
        assert_eq!(*out, stats, "reject: output written");
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
    invalid_self_collision_writes_nothing::<f64>();
}

#[test]
fn invalid_self_collision_is_refused_writing_nothing_in_f32() {
    invalid_self_collision_writes_nothing::<f32>();
}

/// Found by fuzzing (`fuzz/src/world/step.rs`, f32): a plane whose normal is
/// finite but whose length overflows, 3e38 m from a particle, throws it to
/// a velocity near `f32::MAX`; the next frame's dynamic friction turned
/// that velocity into NaN after the finiteness check, and the step
/// returned OK with a NaN velocity. Now INVALID_RESULT, rolled back.
#[test]
fn dynamic_friction_overflow_is_an_invalid_result_not_a_nan_success() {
    use xpbd::step::{step, Sphere, StepConfig, World};
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
    world.planes = &planes;
    world.spheres = &spheres;
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
