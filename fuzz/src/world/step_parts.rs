//! The step harness's generators of colliders (capsules, boxes,
//! heightfields, signed distance fields and their samples) and engine
//! contacts and its model of their documented field rules, one module per
//! precision (`step_parts!`, used by `super::step`).

/// The generators and field-rule model for one precision.
macro_rules! step_parts {
    ($m:ident, $T:ty, $World:ident, $Plane:ident, $Sphere:ident, $Capsule:ident, $Box:ident,
     $Hf:ident, $Sdf:ident, $Engine:ident, $Colliders:ident, $EngineB:ident, $SelfC:ident) => {
        /// Generators and field rules for one precision.
        pub mod $m {
            #[allow(unused_imports)]
            use super::*;
            use xpbd_scenarios::Scalar;

            /// A moderate float: a multiple of 1/16 in [−8, 8).
            pub(super) fn nice(inp: &mut Input<'_>) -> $T {
                #[allow(clippy::cast_possible_wrap)]
                let b = inp.byte() as i8;
                <$T>::from(b) / 16.0
            }

            pub(super) fn nice3(inp: &mut Input<'_>) -> [$T; 3] {
                [nice(inp), nice(inp), nice(inp)]
            }

            /// A moderate non-negative float (a radius, a friction).
            pub(super) fn small(inp: &mut Input<'_>) -> $T {
                nice(inp).abs() / 4.0
            }

            /// A hostile value for one field.
            pub(super) fn hostile(inp: &mut Input<'_>) -> $T {
                match inp.byte() % 10 {
                    0 => <$T>::NAN,
                    1 => <$T>::INFINITY,
                    2 => <$T>::NEG_INFINITY,
                    3 => <$T>::MAX,
                    4 => -<$T>::MAX,
                    5 => -1.0,
                    6 => 1e30,
                    7 => <$T>::MIN_POSITIVE / 4.0,
                    8 => -0.0,
                    _ => inp.real(),
                }
            }

            /// A capsule: valid, valid but for one hostile field, or raw.
            pub(super) fn capsule(inp: &mut Input<'_>) -> $Capsule {
                let mode = inp.byte() % 16;
                if mode == 15 {
                    return $Capsule {
                        center: [inp.real(), inp.real(), inp.real()],
                        half_axis: [inp.real(), inp.real(), inp.real()],
                        radius: inp.real(),
                        velocity: [inp.real(), inp.real(), inp.real()],
                        angular_velocity: [inp.real(), inp.real(), inp.real()],
                        static_friction: inp.real(),
                        dynamic_friction: inp.real(),
                    };
                }
                let mut c = $Capsule {
                    center: nice3(inp),
                    half_axis: nice3(inp).map(|v| v / 4.0),
                    radius: small(inp),
                    velocity: nice3(inp),
                    angular_velocity: nice3(inp),
                    static_friction: small(inp),
                    dynamic_friction: small(inp),
                };
                if mode >= 12 {
                    let v = hostile(inp);
                    let k = usize::from(inp.byte() % 15);
                    *match k {
                        0..=2 => &mut c.center[k],
                        3..=5 => &mut c.half_axis[k - 3],
                        6 => &mut c.radius,
                        7..=9 => &mut c.velocity[k - 7],
                        10..=12 => &mut c.angular_velocity[k - 10],
                        13 => &mut c.static_friction,
                        _ => &mut c.dynamic_friction,
                    } = v;
                }
                c
            }

            /// The rows of the rotation of a random quaternion (identity
            /// for a zero one).
            pub(super) fn rotation(inp: &mut Input<'_>) -> [[$T; 3]; 3] {
                let q = [nice(inp), nice(inp), nice(inp), nice(inp)];
                let l2: $T = q.iter().map(|v| v * v).sum();
                if l2 == 0.0 {
                    return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                }
                let [w, x, y, z] = q.map(|v| v / l2.sqrt());
                [
                    [
                        1.0 - 2.0 * (y * y + z * z),
                        2.0 * (x * y - w * z),
                        2.0 * (x * z + w * y),
                    ],
                    [
                        2.0 * (x * y + w * z),
                        1.0 - 2.0 * (x * x + z * z),
                        2.0 * (y * z - w * x),
                    ],
                    [
                        2.0 * (x * z - w * y),
                        2.0 * (y * z + w * x),
                        1.0 - 2.0 * (x * x + y * y),
                    ],
                ]
            }

            /// A box: valid (a random rotation), valid but for one hostile
            /// field or skewed, stretched, repeated or zeroed axes, or raw.
            pub(super) fn oriented_box(inp: &mut Input<'_>) -> $Box {
                let mode = inp.byte() % 16;
                if mode == 15 {
                    let r3 = |inp: &mut Input<'_>| [inp.real(), inp.real(), inp.real()];
                    return $Box {
                        center: r3(inp),
                        axes: [r3(inp), r3(inp), r3(inp)],
                        half_extents: r3(inp),
                        velocity: r3(inp),
                        angular_velocity: r3(inp),
                        static_friction: inp.real(),
                        dynamic_friction: inp.real(),
                    };
                }
                let mut b = $Box {
                    center: nice3(inp),
                    axes: rotation(inp),
                    half_extents: [small(inp), small(inp), small(inp)],
                    velocity: nice3(inp),
                    angular_velocity: nice3(inp),
                    static_friction: small(inp),
                    dynamic_friction: small(inp),
                };
                if mode >= 12 {
                    let (i, j) = (usize::from(inp.byte() % 3), usize::from(inp.byte() % 3));
                    match inp.byte() % 4 {
                        0 | 1 => {
                            let v = hostile(inp);
                            let k = usize::from(inp.byte() % 14);
                            *match k {
                                0..=2 => &mut b.center[k],
                                3 => &mut b.axes[i][j],
                                4..=6 => &mut b.half_extents[k - 4],
                                7..=9 => &mut b.velocity[k - 7],
                                10..=12 => &mut b.angular_velocity[k - 10],
                                _ => &mut b.static_friction,
                            } = v;
                        }
                        m => bad_axes(inp, &mut b.axes, (i, j), m == 2),
                    }
                }
                b
            }

            /// Axes made bad, or not: skewed (`skew`: off by a little,
            /// within 1e-3 or not, or a lot), else an axis repeated,
            /// zeroed, reversed (a reflection: still orthonormal) or
            /// stretched.
            pub(super) fn bad_axes(
                inp: &mut Input<'_>,
                axes: &mut [[$T; 3]; 3],
                (i, j): (usize, usize),
                skew: bool,
            ) {
                if skew {
                    const SKEW: [f64; 6] = [1e-5, 4e-4, 6e-4, 2e-3, 0.1, -0.5];
                    let d = SKEW[usize::from(inp.byte() % 6)];
                    axes[i][j] += <$T as xpbd::Real>::from_f64(d);
                } else {
                    match inp.byte() % 4 {
                        0 => axes[i] = axes[j],
                        1 => axes[i] = [0.0; 3],
                        2 => axes[i] = axes[i].map(|v| -v),
                        _ => axes[i] = axes[i].map(|v| v * 1.01),
                    }
                }
            }

            /// World axes.
            const IDENTITY: [[$T; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

            /// A field's axes: the world's or turned (`rotation`).
            fn field_axes(inp: &mut Input<'_>) -> [[$T; 3]; 3] {
                if inp.byte() % 2 == 0 {
                    IDENTITY
                } else {
                    rotation(inp)
                }
            }

            /// A valid field's nodes along one axis: 2 … 4.
            fn nodes(inp: &mut Input<'_>) -> u32 {
                2 + u32::from(inp.byte() % 3)
            }

            /// A valid node spacing (m): a multiple of 1/16 in [1/16, 2].
            fn spacing(inp: &mut Input<'_>) -> $T {
                small(inp) / 2.0 + 1.0 / 16.0
            }

            /// The first sample of a field reading `need` of `ns` samples:
            /// anywhere the range fits (0 when it cannot: out of range).
            fn first_in(inp: &mut Input<'_>, need: usize, ns: usize) -> usize {
                usize::from(inp.byte()) % (ns.saturating_sub(need) + 1)
            }

            /// A hostile first sample for `need` of `ns` samples: the range
            /// one past the end, starting at the end, `first + need`
            /// overflowing (by one or by far), huge, or any.
            fn first_hostile(inp: &mut Input<'_>, need: usize, ns: usize) -> usize {
                match inp.byte() % 6 {
                    0 => (ns + 1).saturating_sub(need),
                    1 => ns,
                    2 => usize::MAX,
                    3 => (usize::MAX - need).wrapping_add(1 + usize::from(inp.byte() % 2)),
                    4 => 1 << 40,
                    _ => {
                        #[allow(clippy::cast_possible_truncation)]
                        let f = inp.bits(8) as usize;
                        f
                    }
                }
            }

            /// A hostile node count (0, 1, huge, or more than any samples
            /// array holds).
            fn count_hostile(inp: &mut Input<'_>) -> u32 {
                match inp.byte() % 8 {
                    0 => 0,
                    1 => 1,
                    2 => u32::MAX,
                    3 => 1 << 31,
                    _ => 200,
                }
            }

            /// Samples a field of `counts` reads (None on overflow).
            fn need_of(counts: &[u32]) -> Option<usize> {
                counts
                    .iter()
                    .try_fold(1usize, |n, &c| n.checked_mul(usize::try_from(c).ok()?))
            }

            /// A raw field's node count: small now and then, else any.
            fn raw_count(inp: &mut Input<'_>) -> u32 {
                if inp.byte() % 2 == 0 {
                    u32::from(inp.byte() % 6)
                } else {
                    #[allow(clippy::cast_possible_truncation)]
                    let c = inp.bits(4) as u32;
                    c
                }
            }

            /// A raw field's first sample: small now and then, else any.
            fn raw_first(inp: &mut Input<'_>) -> usize {
                if inp.byte() % 2 == 0 {
                    usize::from(inp.byte())
                } else {
                    #[allow(clippy::cast_possible_truncation)]
                    let f = inp.bits(8) as usize;
                    f
                }
            }

            /// A heightfield reading from `ns` samples: valid (2 … 4 nodes
            /// per axis, moderate values, world or turned axes, its range
            /// inside the samples when they hold it), valid but for one
            /// hostile field (a float; skewed, stretched, repeated or
            /// zeroed axes; a bad count, a zero or negative spacing, a
            /// first sample out of range or overflowing), or raw.
            pub(super) fn heightfield(inp: &mut Input<'_>, ns: usize) -> $Hf {
                let mode = inp.byte() % 16;
                let r3 = |inp: &mut Input<'_>| [inp.real(), inp.real(), inp.real()];
                if mode == 15 {
                    return $Hf {
                        center: r3(inp),
                        axes: [r3(inp), r3(inp), r3(inp)],
                        velocity: r3(inp),
                        angular_velocity: r3(inp),
                        offset: r3(inp),
                        spacing: [inp.real(), inp.real()],
                        height_scale: inp.real(),
                        counts: [raw_count(inp), raw_count(inp)],
                        first: raw_first(inp),
                        static_friction: inp.real(),
                        dynamic_friction: inp.real(),
                    };
                }
                let counts = [nodes(inp), nodes(inp)];
                let need = need_of(&counts).unwrap_or(0);
                let mut f = $Hf {
                    center: nice3(inp),
                    axes: field_axes(inp),
                    velocity: nice3(inp).map(|v| v / 4.0),
                    angular_velocity: nice3(inp).map(|v| v / 4.0),
                    offset: nice3(inp),
                    spacing: [spacing(inp), spacing(inp)],
                    height_scale: nice(inp) / 4.0,
                    counts,
                    first: first_in(inp, need, ns),
                    static_friction: small(inp),
                    dynamic_friction: small(inp),
                };
                if mode >= 12 {
                    let (i, j) = (usize::from(inp.byte() % 3), usize::from(inp.byte() % 3));
                    match inp.byte() % 8 {
                        0 | 1 => {
                            let v = hostile(inp);
                            let k = usize::from(inp.byte() % 18);
                            *match k {
                                0..=2 => &mut f.center[k],
                                3 => &mut f.axes[i][j],
                                4..=6 => &mut f.velocity[k - 4],
                                7..=9 => &mut f.angular_velocity[k - 7],
                                10..=12 => &mut f.offset[k - 10],
                                13 | 14 => &mut f.spacing[k - 13],
                                15 => &mut f.height_scale,
                                16 => &mut f.static_friction,
                                _ => &mut f.dynamic_friction,
                            } = v;
                        }
                        m @ (2 | 3) => bad_axes(inp, &mut f.axes, (i, j), m == 2),
                        _ => match inp.byte() % 3 {
                            0 => f.counts[i % 2] = count_hostile(inp),
                            1 => f.first = first_hostile(inp, need, ns),
                            _ => f.spacing[i % 2] *= if j == 0 { 0.0 } else { -1.0 },
                        },
                    }
                }
                f
            }

            /// A signed distance field reading from `ns` samples, as
            /// `heightfield`: valid (2 … 4 nodes per axis, the grid about
            /// the local origin), valid but for one hostile field (the
            /// counts' product overflowing among the bad counts; a zero or
            /// negative cell), or raw.
            pub(super) fn sdf(inp: &mut Input<'_>, ns: usize) -> $Sdf {
                let mode = inp.byte() % 16;
                let r3 = |inp: &mut Input<'_>| [inp.real(), inp.real(), inp.real()];
                if mode == 15 {
                    return $Sdf {
                        center: r3(inp),
                        axes: [r3(inp), r3(inp), r3(inp)],
                        velocity: r3(inp),
                        angular_velocity: r3(inp),
                        offset: r3(inp),
                        cell: inp.real(),
                        counts: [raw_count(inp), raw_count(inp), raw_count(inp)],
                        first: raw_first(inp),
                        static_friction: inp.real(),
                        dynamic_friction: inp.real(),
                    };
                }
                let counts = [nodes(inp), nodes(inp), nodes(inp)];
                let need = need_of(&counts).unwrap_or(0);
                let cell = spacing(inp);
                let half = |c: u32| <$T as xpbd::Real>::from_f64(f64::from(c - 1) / 2.0);
                let mut f = $Sdf {
                    center: nice3(inp),
                    axes: field_axes(inp),
                    velocity: nice3(inp).map(|v| v / 4.0),
                    angular_velocity: nice3(inp).map(|v| v / 4.0),
                    offset: [0, 1, 2].map(|k| nice(inp) / 8.0 - cell * half(counts[k])),
                    cell,
                    counts,
                    first: first_in(inp, need, ns),
                    static_friction: small(inp),
                    dynamic_friction: small(inp),
                };
                if mode >= 12 {
                    let (i, j) = (usize::from(inp.byte() % 3), usize::from(inp.byte() % 3));
                    match inp.byte() % 8 {
                        0 | 1 => {
                            let v = hostile(inp);
                            let k = usize::from(inp.byte() % 16);
                            *match k {
                                0..=2 => &mut f.center[k],
                                3 => &mut f.axes[i][j],
                                4..=6 => &mut f.velocity[k - 4],
                                7..=9 => &mut f.angular_velocity[k - 7],
                                10..=12 => &mut f.offset[k - 10],
                                13 => &mut f.cell,
                                14 => &mut f.static_friction,
                                _ => &mut f.dynamic_friction,
                            } = v;
                        }
                        m @ (2 | 3) => bad_axes(inp, &mut f.axes, (i, j), m == 2),
                        _ => match inp.byte() % 4 {
                            0 => f.counts[i] = count_hostile(inp),
                            1 => f.counts = [u32::MAX; 3],
                            2 => f.first = first_hostile(inp, need, ns),
                            _ => f.cell *= if j == 0 { 0.0 } else { -1.0 },
                        },
                    }
                }
                f
            }

            /// A moderate sample value: heights and distances in [−8, 8)
            /// m or, half the time, [−1, 1) m.
            pub(super) fn sample(inp: &mut Input<'_>) -> $T {
                match inp.byte() % 2 {
                    0 => nice(inp) / 8.0,
                    _ => nice(inp),
                }
            }

            /// `ns` moderate samples from three bytes (so that short inputs
            /// reach the fields): all one level, or a pseudo-random walk
            /// (xorshift from a seed) of multiples of 1/16 m within
            /// [−`amp`, `amp`] with `amp` 1/16 … 8 m.
            pub(super) fn samples(inp: &mut Input<'_>, ns: usize) -> Vec<$T> {
                let mode = inp.byte();
                let mut x = inp.bits(2) | 0x9e37_0000;
                if mode % 8 == 0 {
                    let level = <$T>::from((x % 256) as u8) / 16.0 - 8.0;
                    return vec![level; ns];
                }
                let amp = <$T>::from(1 + mode % 128) / 16.0;
                (0..ns)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        <$T>::from((x % 256) as u8) / 128.0 * amp - amp
                    })
                    .collect()
            }

            /// An engine contact of one of `n` particles: valid, valid but
            /// for one hostile field, a particle out of range or a zero (or
            /// extreme) normal, or raw; λ, impulse and force arbitrary.
            pub(super) fn engine_contact(inp: &mut Input<'_>, n: usize) -> $Engine {
                let mode = inp.byte() % 16;
                let n32 = u32::try_from(n).unwrap_or(u32::MAX);
                if mode == 15 {
                    let r3 = |inp: &mut Input<'_>| [inp.real(), inp.real(), inp.real()];
                    #[allow(clippy::cast_possible_truncation)]
                    let particle = inp.bits(4) as u32;
                    return $Engine {
                        particle,
                        normal: r3(inp),
                        point: r3(inp),
                        velocity: r3(inp),
                        static_friction: inp.real(),
                        dynamic_friction: inp.real(),
                        lambda: inp.real(),
                        impulse: inp.real(),
                        force: inp.real(),
                    };
                }
                let mut e = $Engine {
                    particle: u32::from(inp.byte()) % n32.max(1),
                    normal: nice3(inp),
                    point: nice3(inp),
                    velocity: nice3(inp).map(|v| v / 4.0),
                    static_friction: small(inp),
                    dynamic_friction: small(inp),
                    lambda: inp.real(),
                    impulse: inp.real(),
                    force: inp.real(),
                };
                if mode >= 12 {
                    match inp.byte() % 4 {
                        0 | 1 => {
                            let v = hostile(inp);
                            let k = usize::from(inp.byte() % 11);
                            *match k {
                                0..=2 => &mut e.normal[k],
                                3..=5 => &mut e.point[k - 3],
                                6..=8 => &mut e.velocity[k - 6],
                                9 => &mut e.static_friction,
                                _ => &mut e.dynamic_friction,
                            } = v;
                        }
                        2 => {
                            e.particle = match inp.byte() % 4 {
                                0 => n32,
                                1 => n32.saturating_add(1),
                                2 => u32::MAX,
                                _ => 1 << 31,
                            }
                        }
                        _ => {
                            e.normal = match inp.byte() % 4 {
                                0 => [0.0; 3],
                                1 => [-0.0, 0.0, -0.0],
                                // Valid, of extreme length (rescaled).
                                2 => [<$T>::MIN_POSITIVE / 4.0, 0.0, 0.0],
                                _ => [<$T>::MAX, <$T>::MAX, 0.0],
                            }
                        }
                    }
                }
                e
            }

            /// A root transform (issue 35's local space): mostly a unit
            /// quaternion and a moderate translation (m); now and then a
            /// hostile component, a quaternion far from unit norm, or a
            /// zero quaternion.
            pub(super) fn transform(inp: &mut Input<'_>) -> xpbd::step::Transform<$T> {
                let q = [nice(inp), nice(inp), nice(inp), nice(inp)];
                let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
                let mut q = if n > 0.0 {
                    q.map(|c| c / n)
                } else {
                    [0.0, 0.0, 0.0, 1.0]
                };
                let mut c = nice3(inp).map(|v| 4.0 * v);
                match inp.byte() % 16 {
                    0 => q[usize::from(inp.byte() % 4)] = hostile(inp),
                    1 => {
                        let s = 1.01 + small(inp);
                        q = q.map(|v| v * s);
                    }
                    2 => q = [0.0; 4],
                    3 => c[usize::from(inp.byte() % 3)] = hostile(inp),
                    _ => {}
                }
                xpbd::step::Transform {
                    rotation: q,
                    translation: c,
                }
            }

            /// A local-space block's values: root transforms (`transform`;
            /// the target now and then the previous one), inertia scales
            /// (mostly in [0, 1]; now and then over 1, hostile), velocity
            /// limits (mostly off, 0 or moderate; now and then negative or
            /// hostile), a teleport now and then.
            pub(super) fn local_values(inp: &mut Input<'_>, l: &mut xpbd::step::LocalSpace<$T>) {
                l.previous = transform(inp);
                l.target = if inp.byte() % 4 == 0 {
                    l.previous
                } else {
                    transform(inp)
                };
                let scale = |inp: &mut Input<'_>| -> $T {
                    match inp.byte() % 8 {
                        0 => hostile(inp),
                        1 => 0.0,
                        2 => 1.0,
                        3 => 1.0 + 1.0 / 64.0 + small(inp),
                        _ => small(inp) / 2.0,
                    }
                };
                let limit = |inp: &mut Input<'_>| -> $T {
                    match inp.byte() % 8 {
                        0 => hostile(inp),
                        1 => 0.0,
                        2 => 8.0 * small(inp),
                        3 => -1.0 / 64.0 - small(inp),
                        _ => <$T>::INFINITY,
                    }
                };
                l.linear_inertia = scale(inp);
                l.angular_inertia = scale(inp);
                l.max_linear_velocity = limit(inp);
                l.max_angular_velocity = limit(inp);
                l.max_linear_acceleration = limit(inp);
                l.max_angular_acceleration = limit(inp);
                for c in l.linear_velocity.iter_mut().chain(&mut l.angular_velocity) {
                    *c = match inp.byte() % 8 {
                        0 => hostile(inp),
                        1 => 8.0 * small(inp),
                        _ => 0.0,
                    };
                }
                l.teleport = match inp.byte() % 4 {
                    0 => u32::from(inp.byte()),
                    _ => 0,
                };
            }

            /// The first bad value of a local-space block by the documented
            /// rules, in the documented order: the transforms (finite, the
            /// rotation's squared norm within 2e-3 of 1, i.e. its norm
            /// within 1e-3), the inertia scales (in [0, 1]), the velocity
            /// limits, the acceleration limits (≥ 0, +∞ allowed), the
            /// added velocities (finite).
            pub(super) fn local_bad(l: &xpbd::step::LocalSpace<$T>) -> Option<i32> {
                let ok = |t: &xpbd::step::Transform<$T>| {
                    let [x, y, z, w] = t.rotation;
                    let n2 = x * x + y * y + z * z + w * w;
                    fin(&t.rotation)
                        && fin(&t.translation)
                        && (n2 - 1.0).abs() <= <$T as xpbd::Real>::from_f64(2e-3)
                };
                let unit = |s: $T| (0.0..=1.0).contains(&s);
                if !ok(&l.previous) || !ok(&l.target) {
                    Some(XPBD_FIELD_ROOT_TRANSFORM)
                } else if !unit(l.linear_inertia) || !unit(l.angular_inertia) {
                    Some(XPBD_FIELD_INERTIA_SCALE)
                } else if !(l.max_linear_velocity >= 0.0 && l.max_angular_velocity >= 0.0) {
                    Some(XPBD_FIELD_FRAME_VELOCITY_LIMIT)
                } else if !(l.max_linear_acceleration >= 0.0 && l.max_angular_acceleration >= 0.0) {
                    Some(XPBD_FIELD_FRAME_ACCELERATION_LIMIT)
                } else if !(fin(&l.linear_velocity) && fin(&l.angular_velocity)) {
                    Some(XPBD_FIELD_FRAME_VELOCITY)
                } else {
                    None
                }
            }

            /// A local-space block's values, bit for bit.
            pub(super) fn local_bits(l: &xpbd::step::LocalSpace<$T>) -> (Vec<u64>, u32) {
                let reals = [&l.previous, &l.target]
                    .into_iter()
                    .flat_map(|t| t.rotation.iter().chain(&t.translation))
                    .chain([
                        &l.linear_inertia,
                        &l.angular_inertia,
                        &l.max_linear_velocity,
                        &l.max_angular_velocity,
                        &l.max_linear_acceleration,
                        &l.max_angular_acceleration,
                    ])
                    .chain(l.linear_velocity.iter().chain(&l.angular_velocity))
                    .map(|c| Scalar::bits(*c))
                    .collect();
                (reals, l.teleport)
            }

            // The model of the documented field rules (written from the
            // docs: every value finite, radii, extents and frictions ≥ 0,
            // normals non-zero, axes orthonormal within 1e-3).
            pub(super) fn fin(v: &[$T]) -> bool {
                v.iter().all(|x| x.is_finite())
            }
            pub(super) fn nonneg(x: $T) -> bool {
                x.is_finite() && x >= 0.0
            }
            pub(super) fn direction(v: &[$T; 3]) -> bool {
                fin(v) && v.iter().any(|x| *x != 0.0)
            }
            pub(super) fn dot(a: &[$T; 3], b: &[$T; 3]) -> $T {
                a.iter().zip(b).fold(0.0, |acc, (x, y)| acc + x * y)
            }
            pub(super) fn plane_ok(p: &$Plane) -> bool {
                direction(&p.normal) && p.offset.is_finite()
            }
            pub(super) fn sphere_ok(s: &$Sphere) -> bool {
                fin(&s.center) && nonneg(s.radius)
            }
            pub(super) fn capsule_ok(c: &$Capsule) -> bool {
                fin(&c.center)
                    && fin(&c.half_axis)
                    && fin(&c.velocity)
                    && fin(&c.angular_velocity)
                    && nonneg(c.radius)
                    && nonneg(c.static_friction)
                    && nonneg(c.dynamic_friction)
            }
            /// Axes finite, each of length within 1e-3 of 1, each pair's
            /// dot within 1e-3 of 0 (the library's rule).
            pub(super) fn axes_ok(axes: &[[$T; 3]; 3]) -> bool {
                let tolerance = <$T as xpbd::Real>::from_f64(1e-3);
                (0..3).all(|i| {
                    fin(&axes[i])
                        && (0..3).all(|j| {
                            let off = if i == j {
                                dot(&axes[i], &axes[i]).sqrt() - 1.0
                            } else {
                                dot(&axes[i], &axes[j])
                            };
                            off.abs() <= tolerance
                        })
                })
            }
            pub(super) fn box_ok(b: &$Box) -> bool {
                axes_ok(&b.axes)
                    && fin(&b.center)
                    && fin(&b.velocity)
                    && fin(&b.angular_velocity)
                    && b.half_extents.iter().all(|e| nonneg(*e))
                    && nonneg(b.static_friction)
                    && nonneg(b.dynamic_friction)
            }
            /// The samples `first .. first + product(counts)` lie within
            /// `samples` (the sum not overflowing) and are finite.
            pub(super) fn range_ok(samples: &[$T], first: usize, counts: &[u32]) -> bool {
                let mut need: u128 = 1;
                for &c in counts {
                    need = need.saturating_mul(u128::from(c));
                }
                let end = need.saturating_add(first as u128);
                // usize::MAX is the most a sum may be (64-bit targets).
                end <= usize::MAX as u128
                    && end <= samples.len() as u128
                    && fin(&samples[first..first + need as usize])
            }
            pub(super) fn positive(x: $T) -> bool {
                x.is_finite() && x > 0.0
            }
            pub(super) fn heightfield_ok(f: &$Hf, samples: &[$T]) -> bool {
                f.counts.iter().all(|&c| c >= 2)
                    && f.spacing.iter().all(|&s| positive(s))
                    && fin(&f.center)
                    && fin(&f.velocity)
                    && fin(&f.angular_velocity)
                    && fin(&f.offset)
                    && f.height_scale.is_finite()
                    && nonneg(f.static_friction)
                    && nonneg(f.dynamic_friction)
                    && axes_ok(&f.axes)
                    && range_ok(samples, f.first, &f.counts)
            }
            pub(super) fn sdf_ok(f: &$Sdf, samples: &[$T]) -> bool {
                f.counts.iter().all(|&c| c >= 2)
                    && positive(f.cell)
                    && fin(&f.center)
                    && fin(&f.velocity)
                    && fin(&f.angular_velocity)
                    && fin(&f.offset)
                    && nonneg(f.static_friction)
                    && nonneg(f.dynamic_friction)
                    && axes_ok(&f.axes)
                    && range_ok(samples, f.first, &f.counts)
            }
            pub(super) fn engine_ok(e: &$Engine, n: usize) -> bool {
                usize::try_from(e.particle).is_ok_and(|k| k < n)
                    && direction(&e.normal)
                    && fin(&e.point)
                    && fin(&e.velocity)
                    && nonneg(e.static_friction)
                    && nonneg(e.dynamic_friction)
            }

            /// The model's first invalid collider of an accepted world
            /// (planes, spheres, capsules, boxes, heightfields, signed
            /// distance fields, then engine contacts) of `n` particles,
            /// with its colliders and engine contacts blocks.
            pub(super) fn first_invalid(
                a: &Arena,
                base: *const u8,
                c: Option<&$Colliders>,
                e: Option<&$EngineB>,
                n: usize,
            ) -> Option<usize> {
                let (planes, spheres, capsules, boxes) = match c {
                    Some(c) => (
                        elems(a, base, c.planes, c.plane_count),
                        elems(a, base, c.spheres, c.sphere_count),
                        elems(a, base, c.capsules, c.capsule_count),
                        elems(a, base, c.boxes, c.box_count),
                    ),
                    None => (Vec::new(), Vec::new(), Vec::new(), Vec::new()),
                };
                let (heightfields, sdfs, samples) = match c {
                    Some(c) => (
                        elems(a, base, c.heightfields, c.heightfield_count),
                        elems(a, base, c.sdfs, c.sdf_count),
                        elems(a, base, c.samples, c.sample_count),
                    ),
                    None => (Vec::new(), Vec::new(), Vec::new()),
                };
                let engine = match e {
                    Some(e) => elems(a, base, e.contacts.cast_const(), e.count),
                    None => Vec::new(),
                };
                let ok = planes
                    .iter()
                    .map(plane_ok)
                    .chain(spheres.iter().map(sphere_ok))
                    .chain(capsules.iter().map(capsule_ok))
                    .chain(boxes.iter().map(box_ok))
                    .chain(heightfields.iter().map(|f| heightfield_ok(f, &samples)))
                    .chain(sdfs.iter().map(|f| sdf_ok(f, &samples)))
                    .chain(engine.iter().map(|e| engine_ok(e, n)));
                ok.enumerate().find(|(_, ok)| !ok).map(|(k, _)| k)
            }

            /// An engine contact's own fields, by bits (what the library
            /// never writes).
            pub(super) fn own_fields(e: &$Engine) -> [u64; 12] {
                let f = |v: $T| Scalar::bits(v);
                [
                    u64::from(e.particle),
                    f(e.normal[0]),
                    f(e.normal[1]),
                    f(e.normal[2]),
                    f(e.point[0]),
                    f(e.point[1]),
                    f(e.point[2]),
                    f(e.velocity[0]),
                    f(e.velocity[1]),
                    f(e.velocity[2]),
                    f(e.static_friction),
                    f(e.dynamic_friction),
                ]
            }

            /// An edit between frames: one capsule, box, heightfield,
            /// signed distance field or engine contact rewritten (valid or
            /// hostile: NaN, ±∞, …), one sample rewritten (moderate or
            /// hostile), one coordinate of a rest position made hostile, or
            /// one coordinate of a position made NaN, ±∞ or any float
            /// (through the blocks' arrays).
            pub(super) fn edit(
                inp: &mut Input<'_>,
                a: &mut Arena,
                c: &$Colliders,
                e: &$EngineB,
                sc: &$SelfC,
                w: &$World,
            ) {
                let base = a.base().cast_const();
                let n = w.particle_count;
                let k = usize::from(inp.byte());
                match inp.byte() % 8 {
                    0 if c.capsule_count > 0 => {
                        let at = c.capsules.wrapping_add(k % c.capsule_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let c = capsule(inp);
                            write_at(a, off, c);
                        }
                    }
                    1 if c.box_count > 0 => {
                        let at = c.boxes.wrapping_add(k % c.box_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let b = oriented_box(inp);
                            write_at(a, off, b);
                        }
                    }
                    2 if e.count > 0 => {
                        let at = e.contacts.wrapping_add(k % e.count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let e = engine_contact(inp, n);
                            write_at(a, off, e);
                        }
                    }
                    5 if c.heightfield_count > 0 => {
                        let at = c.heightfields.wrapping_add(k % c.heightfield_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let f = heightfield(inp, c.sample_count);
                            write_at(a, off, f);
                        }
                    }
                    6 if c.sdf_count > 0 => {
                        let at = c.sdfs.wrapping_add(k % c.sdf_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let f = sdf(inp, c.sample_count);
                            write_at(a, off, f);
                        }
                    }
                    7 if c.sample_count > 0 => {
                        let at = c.samples.wrapping_add(k % c.sample_count);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let v = if inp.byte() % 2 == 0 {
                                hostile(inp)
                            } else {
                                sample(inp)
                            };
                            write_at(a, off, v);
                        }
                    }
                    4 if n > 0 && !sc.rest_positions.is_null() => {
                        let at = sc.rest_positions.wrapping_add(k % n);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let d = usize::from(inp.byte() % 3);
                            let v = hostile(inp);
                            write_at(a, off + d * core::mem::size_of::<$T>(), v);
                        }
                    }
                    3 if n > 0 => {
                        let at = w.positions.wrapping_add(k % n);
                        if let Some(off) = offset_in(at.cast(), base) {
                            let d = usize::from(inp.byte() % 3);
                            let v: $T = match inp.byte() % 4 {
                                0 => <$T>::NAN,
                                1 => <$T>::INFINITY,
                                2 => <$T>::NEG_INFINITY,
                                _ => inp.real(),
                            };
                            write_at(a, off + d * core::mem::size_of::<$T>(), v);
                        }
                    }
                    _ => {}
                }
            }
        }
    };
}
