//! Hostile C callers of the world's newest arrays (issue 16): moving
//! capsules, oriented boxes and engine contacts through `xpbd_world3_step`
//! and `xpbd_world3_step_f32`. Each array aliased with positions,
//! velocities, inverse masses, links, contacts, scratch, planes, the world
//! struct, the configuration, the output and the other two arrays
//! (`ALIASED_BUFFERS`), NULL with a count (`NULL_POINTER`), misaligned
//! (`INVALID_ARGUMENT`); a NaN (or a skewed axis, an out-of-range particle)
//! written between two steps (`INVALID_COLLIDER` naming the collider:
//! planes, spheres, capsules, boxes, then engine contacts); a force beyond
//! the float range (`INVALID_RESULT` naming the particle). Every refusal
//! writes nothing: positions, velocities, links, every engine contact
//! field, the output and `error_index` (but on the error that names).
//! Called from Rust so that Miri checks the slices the C layer forms;
//! small worlds, few substeps.

use core::ptr;
use xpbd::ffi::*;
use xpbd::step::{Capsule, Contact, EngineContact, OrientedBox, Plane, StepStats};
use xpbd::{rope, Link, Real};

#[path = "support/c_step.rs"]
mod c_step;
use c_step::{f, Prec};

fn v3<T: Real>(a: [f64; 3]) -> [T; 3] {
    a.map(f)
}

/// A 4-particle rope above the plane y = 0 (particle 0 pinned), one
/// capsule sweeping down onto it, one box under it and two engine
/// contacts: one plane (collider 0), capsule 1, box 2, engine contacts 3
/// and 4.
struct Store<T> {
    x: Vec<[T; 3]>,
    v: Vec<[T; 3]>,
    w: Vec<T>,
    links: Vec<Link<T>>,
    planes: Vec<Plane<T, 3>>,
    contacts: Vec<Contact<T>>,
    scratch: Vec<[T; 3]>,
    capsules: Vec<Capsule<T, 3>>,
    boxes: Vec<OrientedBox<T, 3>>,
    engine: Vec<EngineContact<T, 3>>,
    config: StepConfigC<T>,
    stats: StepStats<T>,
}

impl<T: Prec> Store<T> {
    fn new() -> Self {
        let x: Vec<[T; 3]> = (0..4)
            .map(|k| v3([0.5 * f64::from(k), 0.05, 0.0]))
            .collect();
        let mut links = vec![Link::default(); 3];
        rope(&x, T::ZERO, &mut links).unwrap();
        let mut capsule = Capsule::new(v3([0.5, 0.3, 0.0]), v3([0.0, 0.0, 0.2]), f(0.1));
        capsule.velocity = v3([0.0, -1.0, 0.0]);
        capsule.static_friction = f(0.2);
        let mut b = OrientedBox::new(v3([1.0, -0.2, 0.0]), v3([0.1, 0.2, 0.1]));
        b.angular_velocity = v3([0.0, 1.0, 0.0]);
        let mut e1 = EngineContact::new(3, v3([0.0, 2.0, 0.0]), v3([1.5, 0.02, 0.0]));
        e1.velocity = v3([0.1, 0.0, 0.0]);
        e1.static_friction = f(0.5);
        e1.dynamic_friction = f(0.4);
        let mut config = T::default_config();
        config.substeps = 2;
        config.particle_radius = f(0.01);
        Self {
            v: vec![[T::ZERO; 3]; 4],
            w: vec![T::ZERO, T::ONE, T::ONE, T::ONE],
            links,
            planes: vec![Plane {
                normal: v3([0.0, 1.0, 0.0]),
                offset: T::ZERO,
            }],
            contacts: vec![Contact::default(); 16],
            scratch: vec![[T::ZERO; 3]; xpbd_step_scratch_len(4)],
            capsules: vec![capsule],
            boxes: vec![b],
            engine: vec![
                EngineContact::new(2, v3([0.0, 1.0, 0.0]), v3([1.0, 0.0, 0.0])),
                e1,
            ],
            x,
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
            particle_count: self.x.len(),
            links: self.links.as_mut_ptr(),
            link_count: self.links.len(),
            planes: self.planes.as_ptr(),
            plane_count: self.planes.len(),
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
            capsules: self.capsules.as_ptr(),
            capsule_count: self.capsules.len(),
            boxes: self.boxes.as_ptr(),
            box_count: self.boxes.len(),
            engine_contacts: self.engine.as_mut_ptr(),
            engine_contact_count: self.engine.len(),
            particle_contacts: ptr::null_mut(),
            particle_contact_capacity: 0,
            hash_table: ptr::null_mut(),
            hash_table_count: 0,
            hash_ids: ptr::null_mut(),
            hash_id_count: 0,
            adjacency: ptr::null_mut(),
            adjacency_count: 0,
            rest_positions: ptr::null(),
        }
    }
}

/// Every value a refused or failed step must leave alone, bit for bit:
/// positions, velocities, links (all fields), engine contacts (all
/// fields: a refusal writes not even λ or the impulse), capsules, boxes.
#[derive(Debug, PartialEq, Eq)]
struct Snapshot(Vec<u64>);

fn snapshot<T: Prec>(
    x: *const [T; 3],
    v: *const [T; 3],
    links: *const Link<T>,
    caps: *const Capsule<T, 3>,
    boxes: *const OrientedBox<T, 3>,
    engine: *const EngineContact<T, 3>,
) -> Snapshot {
    let mut out = Vec::new();
    let mut put = |s: &[T]| out.extend(s.iter().map(|c| c.bits()));
    // SAFETY: the store's buffers (4 particles, 3 links, 1 capsule, 1 box,
    // 2 engine contacts), read by value between calls.
    unsafe {
        for k in 0..4 {
            put(&*x.add(k));
            put(&*v.add(k));
        }
        for k in 0..3 {
            let l = *links.add(k);
            put(&[l.rest, l.compliance, l.lambda]);
            put(&[f(f64::from(l.i)), f(f64::from(l.j)), f(f64::from(l.flags))]);
        }
        let c = *caps;
        put(&c.center);
        put(&c.half_axis);
        put(&c.velocity);
        put(&c.angular_velocity);
        put(&[c.radius, c.static_friction, c.dynamic_friction]);
        let b = *boxes;
        put(&b.center);
        put(b.axes.as_flattened());
        put(&b.half_extents);
        put(&b.velocity);
        put(&b.angular_velocity);
        put(&[b.static_friction, b.dynamic_friction]);
        for k in 0..2 {
            let e = *engine.add(k);
            put(&[f(f64::from(e.particle))]);
            put(&e.normal);
            put(&e.point);
            put(&e.velocity);
            put(&[
                e.static_friction,
                e.dynamic_friction,
                e.lambda,
                e.impulse,
                e.force,
            ]);
        }
    }
    Snapshot(out)
}

/// Every aliasing of a new array is refused with nothing written.
fn aliased_and_null_arrays_are_refused<T: Prec>() {
    let mut s = Store::<T>::new();
    let good = s.world();
    let mut world = good;
    let (wp, cp) = (ptr::addr_of_mut!(world), ptr::addr_of!(s.config));
    let out = ptr::addr_of_mut!(s.stats);
    let snap = || {
        snapshot(
            good.positions,
            good.velocities,
            good.links,
            good.capsules,
            good.boxes,
            good.engine_contacts,
        )
    };
    let dt = f::<T>(1.0 / 60.0);
    // The good world steps (so that the arrays are really used), then a
    // forced error_index tells whether a refusal wrote it.
    // SAFETY: valid, disjoint buffers.
    assert_eq!(unsafe { T::step(wp, dt, cp, out) }, XpbdStatus::Ok);
    let stats_after_ok = s.stats;
    let before = snap();
    let (caps, boxes, engine) = (good.capsules, good.boxes, good.engine_contacts);
    type Case<T> = (&'static str, WorldC<T>, *mut StepStats<T>, XpbdStatus);
    let aliased = XpbdStatus::AliasedBuffers;
    let mut cases: Vec<Case<T>> = Vec::new();
    // Each array over every other buffer, the world struct, the config and
    // the output.
    let targets: [(&str, *mut u8); 11] = [
        ("positions", good.positions.cast()),
        ("velocities", good.velocities.cast()),
        ("inverse masses", good.inverse_masses.cast_mut().cast()),
        ("links", good.links.cast()),
        ("contacts", good.contacts.cast()),
        ("scratch", good.scratch.cast()),
        ("planes", good.planes.cast_mut().cast()),
        ("the world", wp.cast()),
        ("the config", cp.cast_mut().cast()),
        ("the output", out.cast()),
        // An offset inside the world struct.
        (
            "the world's error_index",
            // SAFETY: a field of the world `wp` points to.
            unsafe { ptr::addr_of_mut!((*wp).error_index) }.cast(),
        ),
    ];
    for (what, at) in targets {
        cases.push((
            what,
            WorldC {
                capsules: at.cast_const().cast(),
                ..good
            },
            out,
            aliased,
        ));
        cases.push((
            what,
            WorldC {
                boxes: at.cast_const().cast(),
                ..good
            },
            out,
            aliased,
        ));
        cases.push((
            what,
            WorldC {
                engine_contacts: at.cast(),
                ..good
            },
            out,
            aliased,
        ));
    }
    // The three arrays over each other, and the output over each.
    let each_other: [Case<T>; 9] = [
        (
            "capsules over boxes",
            WorldC {
                capsules: boxes.cast(),
                ..good
            },
            out,
            aliased,
        ),
        (
            "boxes over engine contacts",
            WorldC {
                boxes: engine.cast_const().cast(),
                ..good
            },
            out,
            aliased,
        ),
        (
            "engine contacts over capsules",
            WorldC {
                engine_contacts: caps.cast_mut().cast(),
                ..good
            },
            out,
            aliased,
        ),
        (
            "engine contacts over boxes",
            WorldC {
                engine_contacts: boxes.cast_mut().cast(),
                ..good
            },
            out,
            aliased,
        ),
        (
            "output over capsules",
            good,
            caps.cast_mut().cast(),
            aliased,
        ),
        ("output over boxes", good, boxes.cast_mut().cast(), aliased),
        ("output over engine contacts", good, engine.cast(), aliased),
        // Two engine contacts whose second overlaps a capsule.
        (
            "engine contacts running into capsules",
            WorldC {
                engine_contacts: caps.cast_mut().cast::<u8>().wrapping_sub(8).cast(),
                ..good
            },
            out,
            aliased,
        ),
        (
            "capsule count past its array into the boxes",
            WorldC {
                capsules: boxes.cast::<u8>().wrapping_sub(8).cast(),
                capsule_count: 1,
                ..good
            },
            out,
            aliased,
        ),
    ];
    cases.extend(each_other);
    // NULL with a count; misaligned.
    cases.extend([
        (
            "capsules NULL",
            WorldC {
                capsules: ptr::null(),
                ..good
            },
            out,
            XpbdStatus::NullPointer,
        ),
        (
            "boxes NULL",
            WorldC {
                boxes: ptr::null(),
                ..good
            },
            out,
            XpbdStatus::NullPointer,
        ),
        (
            "engine contacts NULL",
            WorldC {
                engine_contacts: ptr::null_mut(),
                ..good
            },
            out,
            XpbdStatus::NullPointer,
        ),
        (
            "engine contacts misaligned",
            WorldC {
                engine_contacts: engine.cast::<u8>().wrapping_add(1).cast(),
                ..good
            },
            out,
            XpbdStatus::InvalidArgument,
        ),
        (
            "capsules misaligned",
            WorldC {
                capsules: caps.cast::<u8>().wrapping_add(2).cast(),
                ..good
            },
            out,
            XpbdStatus::InvalidArgument,
        ),
    ]);
    for (what, bad, o, want) in cases {
        // An output over an f32 array may also be misaligned for the
        // output (`usize` fields): refused as such first.
        let misaligned = (o as usize) % core::mem::align_of::<StepStats<T>>() != 0;
        let want = if misaligned {
            XpbdStatus::InvalidArgument
        } else {
            want
        };
        // SAFETY: the struct is plain data written through its own pointer;
        // every buffer is valid, and the overlapping, NULL or misaligned
        // ones are refused before any access.
        unsafe {
            *wp = bad;
            (*wp).error_index = 77;
            let got = T::step(wp, dt, cp, o);
            assert_eq!(got, want, "{what}");
            assert_eq!((*wp).error_index, 77, "{what}: error_index written");
        }
        assert_eq!(snap(), before, "{what}: a refused step wrote");
        // SAFETY: the store's output, read between calls.
        assert_eq!(unsafe { *out }, stats_after_ok, "{what}: output written");
    }
    // The same arrays, disjoint again: the step runs.
    // SAFETY: valid, disjoint buffers.
    unsafe {
        *wp = good;
        assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok);
    }
}

#[test]
fn aliased_null_and_misaligned_capsules_boxes_and_engine_contacts_are_refused() {
    aliased_and_null_arrays_are_refused::<f64>();
}

#[test]
fn aliased_null_and_misaligned_arrays_are_refused_in_f32() {
    aliased_and_null_arrays_are_refused::<f32>();
}

/// A bad value written between two steps is named, and nothing changes.
/// Under Miri (CI budget) the f64 test takes the even edits and the f32
/// test the odd ones (`half`); natively each takes all ten.
fn bad_values_between_steps_are_named<T: Prec>(half: usize) {
    let mut s = Store::<T>::new();
    let good = s.world();
    let mut world = good;
    let wp = ptr::addr_of_mut!(world);
    let cp = ptr::addr_of!(s.config);
    let out = ptr::addr_of_mut!(s.stats);
    let (caps, boxes, engine) = (
        good.capsules.cast_mut(),
        good.boxes.cast_mut(),
        good.engine_contacts,
    );
    let snap = || {
        snapshot(
            good.positions,
            good.velocities,
            good.links,
            good.capsules,
            good.boxes,
            good.engine_contacts,
        )
    };
    let dt = f::<T>(1.0 / 60.0);
    // Collider numbers: plane 0, capsule 1, box 2, engine contacts 3, 4.
    type Edit<T> = fn(&mut Capsule<T, 3>, &mut OrientedBox<T, 3>, &mut [EngineContact<T, 3>; 2]);
    let edits: [(&str, Edit<T>, usize); 10] = [
        ("NaN capsule radius", |c, _, _| c.radius = f(f64::NAN), 1),
        (
            "infinite capsule velocity",
            |c, _, _| c.velocity[1] = f(f64::NEG_INFINITY),
            1,
        ),
        (
            "negative capsule friction",
            |c, _, _| c.dynamic_friction = f(-0.5),
            1,
        ),
        ("NaN box centre", |_, b, _| b.center[2] = f(f64::NAN), 2),
        ("skewed box axis", |_, b, _| b.axes[0][1] = f(0.01), 2),
        (
            "negative box extent",
            |_, b, _| b.half_extents[1] = f(-0.1),
            2,
        ),
        (
            "NaN engine contact point",
            |_, _, e| e[1].point[0] = f(f64::NAN),
            4,
        ),
        (
            "zero engine contact normal",
            |_, _, e| e[0].normal = [T::ZERO; 3],
            3,
        ),
        (
            "engine contact particle out of range",
            |_, _, e| e[1].particle = 4,
            4,
        ),
        (
            "engine contact particle u32::MAX",
            |_, _, e| e[0].particle = u32::MAX,
            3,
        ),
    ];
    let frames = if cfg!(miri) { 1 } else { 3 };
    let (skip, stride) = if cfg!(miri) { (half, 2) } else { (0, 1) };
    for (what, edit, index) in edits.into_iter().skip(skip).step_by(stride) {
        // SAFETY: valid, disjoint buffers; the store's arrays are read and
        // written through its raw pointers between calls.
        unsafe {
            *wp = good;
            for _ in 0..frames {
                assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok, "{what}: before");
            }
            let stats = *out;
            let keep = (*caps, *boxes, [*engine, *engine.add(1)]);
            let (mut c, mut b, mut e) = keep;
            edit(&mut c, &mut b, &mut e);
            (*caps, *boxes, *engine, *engine.add(1)) = (c, b, e[0], e[1]);
            let before = snap();
            let got = T::step(wp, dt, cp, out);
            assert_eq!(
                (got, (*wp).error_index),
                (XpbdStatus::InvalidCollider, index),
                "{what}"
            );
            assert_eq!(snap(), before, "{what}: the refused step wrote");
            assert_eq!(*out, stats, "{what}: output written");
            (*caps, *boxes, *engine, *engine.add(1)) = (keep.0, keep.1, keep.2[0], keep.2[1]);
            // Restored: the world steps again, every force finite.
            assert_eq!(T::step(wp, dt, cp, out), XpbdStatus::Ok, "{what}: after");
            for k in 0..2 {
                let force = (*engine.add(k)).force;
                assert!(
                    force.is_finite() && force >= T::ZERO,
                    "{what}: force {force:?}"
                );
            }
        }
    }
}

#[test]
fn a_bad_capsule_box_or_engine_contact_between_steps_is_named() {
    bad_values_between_steps_are_named::<f64>(0);
}

#[test]
fn a_bad_capsule_box_or_engine_contact_between_steps_is_named_in_f32() {
    bad_values_between_steps_are_named::<f32>(1);
}

#[test]
fn a_force_beyond_the_float_range_is_an_invalid_result_writing_nothing() {
    // f32: particle 1 weighs 2·10³⁷ kg (w = 5e-38) and starts 1 m inside
    // engine contact 0's plane: λ = 2e37 is an f32, λ/h is not. The step
    // fails naming the particle (it used to succeed with force +inf).
    let mut s = Store::<f32>::new();
    s.links.clear();
    s.w[1] = 5e-38;
    s.engine[0] = EngineContact::new(1, [0.0, 1.0, 0.0], [0.5, 1.05, 0.0]);
    s.engine[0].force = 3.0;
    s.engine[1].force = 4.0;
    s.capsules[0].center = [9.0, 9.0, 9.0];
    let mut world = s.world();
    let wp = ptr::addr_of_mut!(world);
    let out = ptr::addr_of_mut!(s.stats);
    let (x, v, e) = (world.positions, world.velocities, world.engine_contacts);
    let bits = |p: *const [f32; 3]| -> Vec<u32> {
        // SAFETY: the store's 4 entries, read between calls.
        (0..4)
            .flat_map(|k| unsafe { *p.add(k) }.map(f32::to_bits))
            .collect()
    };
    let before = (bits(x), bits(v));
    // SAFETY: valid, disjoint buffers.
    let got = unsafe { xpbd_world3_step_f32(wp, 1.0 / 60.0, &s.config, out) };
    // SAFETY: as above; read between calls.
    unsafe {
        assert_eq!((got, (*wp).error_index), (XpbdStatus::InvalidResult, 1));
        assert_eq!((bits(x), bits(v)), before);
        assert_eq!(((*e).force, (*e.add(1)).force), (3.0, 4.0));
        assert_eq!(*out, XpbdStepStatsF32::default());
    }
}
