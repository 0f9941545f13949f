// xpbd.hpp: a header-only C++17 layer over the xpbd C API (include/xpbd.h).
//
// - Views, not casts: `xpbd::View<E>` (pointer + count) converts from C
//   arrays, std::array, std::vector, any container with data() and size(),
//   and (C++20) std::span; `xpbd::View3<E>` is the same over rows of three
//   (`E[n][3]` or `std::array<E, 3>`: positions, triangles) and hands the C
//   API its `E (*)[3]`. `xpbd::view(container)` makes either explicitly.
// - Results, not codes: every call returns an `xpbd::Result` (the
//   XpbdStatus, and on an error the index and `xpbd::Field` the library
//   named, `message()`), or one with a value (`StepResult<T>::stats`,
//   `Counted::count`, `ResultOf<V>::value`). No exceptions: the header
//   compiles and is tested with -fno-exceptions; nothing needs RTTI.
// - No heap, no hidden state: every buffer is the caller's, the world's
//   memory too (`World::requirements()` says how many bytes). The wrappers
//   hold the C structs; `c()` hands them out for what is not wrapped (the
//   colored and 2D systems).
// - `T` is double or float: `World<float>` calls xpbd_world3_step_f32, and
//   `xpbd::Link<float>` is XpbdLinkF32, and so on for every type.
//
// One frame is `world.step(dt, config)`, with whatever features the world
// was given (colliders, self-collision, tearing, engine contacts, constraint
// groups, wind, local space); `world.step_colored(colors, dt, config, jobs)` solves the same
// frame in colored order on the engine's job system (`xpbd::Jobs` adapts any
// `run(count, task)` callable), bit-identical to `step`. `xpbd::Config` is
// xpbd_step_config3_default(): 20 substeps of 1 iteration, damping 0.1/s,
// particle radius 0.01 m, friction 0.6/0.3. Examples: examples/cpp/cloth.cpp,
// world.cpp and cape.cpp; examples/cpp/hpp_test.cpp tests every wrapper against C.
#ifndef XPBD_HPP
#define XPBD_HPP

#if __cplusplus < 201703L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 201703L)
#error "xpbd.hpp needs C++17 (include xpbd.h alone from C++11)"
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <type_traits>
#include <utility>

#if defined(__has_include)
#if __has_include(<span>) && __cplusplus >= 202002L
#include <span>
#define XPBD_HPP_HAS_SPAN 1
#endif
#endif

#include "xpbd.h"

namespace xpbd {

// ----------------------------------------------------------------- results ---

/// What an error concerns beside its status (`XpbdWorld3::error_field`).
enum class Field : std::int32_t {
    None = XPBD_FIELD_NONE, Substeps = XPBD_FIELD_SUBSTEPS, Iterations = XPBD_FIELD_ITERATIONS,
    Gravity = XPBD_FIELD_GRAVITY, Tolerance = XPBD_FIELD_TOLERANCE, Damping = XPBD_FIELD_DAMPING,
    ParticleRadius = XPBD_FIELD_PARTICLE_RADIUS, ContactCompliance = XPBD_FIELD_CONTACT_COMPLIANCE,
    StaticFriction = XPBD_FIELD_STATIC_FRICTION, DynamicFriction = XPBD_FIELD_DYNAMIC_FRICTION,
    ZeroLengthPolicy = XPBD_FIELD_ZERO_LENGTH_POLICY, ContactOverflow = XPBD_FIELD_CONTACT_OVERFLOW,
    HashTable = XPBD_FIELD_HASH_TABLE, HashIds = XPBD_FIELD_HASH_IDS, Adjacency = XPBD_FIELD_ADJACENCY,
    RestPositions = XPBD_FIELD_REST_POSITIONS, Contacts = XPBD_FIELD_CONTACTS, Pairs = XPBD_FIELD_PAIRS,
    Scratch = XPBD_FIELD_SCRATCH, Memory = XPBD_FIELD_MEMORY, Block = XPBD_FIELD_BLOCK,
    FrameTime = XPBD_FIELD_FRAME_TIME, MaxDistanceScale = XPBD_FIELD_MAX_DISTANCE_SCALE,
    WindVelocity = XPBD_FIELD_WIND_VELOCITY, FluidDensity = XPBD_FIELD_FLUID_DENSITY,
    ParticleWind = XPBD_FIELD_PARTICLE_WIND, AeroTriangles = XPBD_FIELD_AERO_TRIANGLES,
    RootTransform = XPBD_FIELD_ROOT_TRANSFORM, InertiaScale = XPBD_FIELD_INERTIA_SCALE,
    FrameVelocityLimit = XPBD_FIELD_FRAME_VELOCITY_LIMIT,
    FrameAccelerationLimit = XPBD_FIELD_FRAME_ACCELERATION_LIMIT, FrameVelocity = XPBD_FIELD_FRAME_VELOCITY,
};

/// The field's name as in the C structs ("substeps", "memory", ...; "" for None).
constexpr const char* field_name(Field f) noexcept {
    constexpr const char* names[] = {
        "", "substeps", "iterations", "gravity", "tolerance", "damping", "particle_radius",
        "contact_compliance", "static_friction", "dynamic_friction", "zero_length_policy",
        "contact_overflow", "hash_table", "hash_ids", "adjacency", "rest_positions", "contacts",
        "pairs", "scratch", "memory", "block", "frame_time", "max_distance_scale", "wind_velocity",
        "fluid_density", "particle_wind", "aero_triangles", "root_transform", "inertia_scale",
        "frame_velocity_limit", "frame_acceleration_limit", "frame_velocity"};
    const auto k = static_cast<std::size_t>(f);
    return k < sizeof names / sizeof names[0] ? names[k] : "unknown field";
}

/// The outcome of one call: its status (XPBD_STATUS_OK, XPBD_STATUS_SKIPPED
/// or a negative error) and, on an error, the index and field the library
/// named (a particle, link, collider, block position, or with
/// XPBD_STATUS_CAPACITY_TOO_SMALL the count or bytes needed). On an error
/// the call changed nothing of the caller's (scratch aside; see xpbd.h).
class [[nodiscard]] Result {
public:
    constexpr Result() noexcept = default;
    constexpr explicit Result(XpbdStatus status, std::size_t index = 0, Field field = Field::None) noexcept
        : status_(status), index_(index), field_(field) {}
    constexpr XpbdStatus status() const noexcept { return status_; }
    constexpr std::int32_t code() const noexcept { return static_cast<std::int32_t>(status_); }
    /// Done, or nothing to do (XPBD_STATUS_SKIPPED): not an error.
    constexpr bool ok() const noexcept { return code() >= 0; }
    constexpr bool skipped() const noexcept { return status_ == XPBD_STATUS_SKIPPED; }
    constexpr explicit operator bool() const noexcept { return ok(); }
    constexpr std::size_t index() const noexcept { return index_; }
    constexpr Field field() const noexcept { return field_; }
    constexpr const char* field_name() const noexcept { return xpbd::field_name(field_); }
    /// A static English sentence (xpbd_status_str); never null.
    const char* message() const noexcept { return xpbd_status_str(code()); }
    friend constexpr bool operator==(const Result& r, XpbdStatus s) noexcept { return r.status_ == s; }
    friend constexpr bool operator!=(const Result& r, XpbdStatus s) noexcept { return r.status_ != s; }

private:
    XpbdStatus status_ = XPBD_STATUS_OK;
    std::size_t index_ = 0;
    Field field_ = Field::None;
};

/// A result and a value (written on success): statistics, requirements, ...
template <class V>
struct [[nodiscard]] ResultOf : Result {
    V value{};
};
/// A result and a count: the entries a builder wrote (the triangle and tet
/// builders: the entries needed on XPBD_STATUS_CAPACITY_TOO_SMALL) or the
/// colors a coloring used.
struct [[nodiscard]] Counted : Result {
    std::size_t count = 0;
};

// ------------------------------------------------------------------- views ---

namespace detail {
template <class X> struct identity { using type = X; };
template <class X> using id = typename identity<X>::type;  // keeps T from being deduced here
template <class C> using data_t = decltype(std::declval<C&>().data());
template <class C, class = void> struct has_data : std::false_type {};
template <class C>
struct has_data<C, std::void_t<data_t<C>, decltype(std::declval<C&>().size())>> : std::true_type {};
// A P views as E* without slicing or dropping const.
template <class P, class E>
constexpr bool fits = std::is_pointer_v<P> && std::is_convertible_v<std::remove_pointer_t<P> (*)[], E (*)[]>;
template <class C, class E>
using if_container = std::enable_if_t<has_data<C>::value && !std::is_array_v<C> && fits<data_t<C>, E>>;
}  // namespace detail

/// Pointer + count over caller memory; never owns, never allocates.
template <class E>
class View {
public:
    using element_type = E;
    constexpr View() noexcept = default;
    constexpr View(E* data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <std::size_t N>
    constexpr View(E (&array)[N]) noexcept : data_(array), size_(N) {}
    /// std::vector, std::array, ...: any lvalue with data() and size().
    template <class C, class = detail::if_container<C, E>>
    constexpr View(C& container) noexcept : data_(container.data()), size_(container.size()) {}
    template <class U, class = std::enable_if_t<detail::fits<U*, E>>>
    constexpr View(const View<U>& other) noexcept : data_(other.data()), size_(other.size()) {}
#ifdef XPBD_HPP_HAS_SPAN
    template <class U, std::size_t X, class = std::enable_if_t<detail::fits<U*, E>>>
    constexpr View(std::span<U, X> s) noexcept : data_(s.data()), size_(s.size()) {}
#endif
    constexpr E* data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr E& operator[](std::size_t k) const noexcept { return data_[k]; }
    constexpr E* begin() const noexcept { return data_; }
    constexpr E* end() const noexcept { return data_ + size_; }

private:
    E* data_ = nullptr;
    std::size_t size_ = 0;
};

/// Pointer + count over rows of N values, `E (*)[N]` as the C API takes
/// them, from `E[][N]`, arrays of `std::array<E, N>` and containers of
/// either, with no cast in the caller's code. `E` is const for inputs.
template <class E, std::size_t N>
class Rows {
    using S = std::remove_const_t<E>;
    using Array = std::conditional_t<std::is_const_v<E>, const std::array<S, N>, std::array<S, N>>;
    static_assert(sizeof(std::array<S, N>) == N * sizeof(S) && alignof(std::array<S, N>) == alignof(S),
                  "std::array<E, N> must be laid out as E[N]");

public:
    using Row = E[N];
    constexpr Rows() noexcept = default;
    constexpr Rows(Row* data, std::size_t count) noexcept : data_(data), count_(count) {}
    Rows(Array* data, std::size_t count) noexcept : data_(rows_of(data)), count_(count) {}
    template <std::size_t M>
    constexpr Rows(Row (&rows)[M]) noexcept : data_(rows), count_(M) {}
    template <std::size_t M>
    Rows(Array (&rows)[M]) noexcept : data_(rows_of(rows)), count_(M) {}
    template <class C, class = std::enable_if_t<detail::fits<detail::data_t<C>, Array> ||
                                                detail::fits<detail::data_t<C>, Row>>,
              class = std::enable_if_t<detail::has_data<C>::value && !std::is_array_v<C>>>
    Rows(C& container) noexcept : data_(rows_of(container.data())), count_(container.size()) {}
    template <class U, class = std::enable_if_t<detail::fits<U*, E>>>
    constexpr Rows(const Rows<U, N>& other) noexcept : data_(other.data()), count_(other.size()) {}
#ifdef XPBD_HPP_HAS_SPAN
    template <class U, std::size_t X,
              class = std::enable_if_t<detail::fits<U*, Row> || detail::fits<U*, Array>>>
    Rows(std::span<U, X> s) noexcept : data_(rows_of(s.data())), count_(s.size()) {}
#endif
    /// The C form, `E (*)[N]`.
    constexpr Row* data() const noexcept { return data_; }
    /// The flat form the builders take, `E*` (N per row).
    constexpr E* flat() const noexcept { return data_ ? &data_[0][0] : nullptr; }
    constexpr std::size_t size() const noexcept { return count_; }
    constexpr bool empty() const noexcept { return count_ == 0; }
    constexpr Row& operator[](std::size_t k) const noexcept { return data_[k]; }

private:
    static constexpr Row* rows_of(Row* p) noexcept { return p; }
    // std::array<S, N> is a standard-layout aggregate whose one member is
    // S[N] (size and alignment checked above): its address is the array's.
    static Row* rows_of(Array* p) noexcept { return reinterpret_cast<Row*>(p); }
    Row* data_ = nullptr;
    std::size_t count_ = 0;
};
template <class E> using View3 = Rows<E, 3>;  // positions, velocities, triangles, scratch
template <class E> using View4 = Rows<E, 4>;  // tets (particle indices)

namespace detail {
template <class X> struct row { static constexpr std::size_t n = 0; };
template <class E, std::size_t N> struct row<E[N]> { using type = E; static constexpr std::size_t n = N; };
template <class E, std::size_t N> struct row<std::array<E, N>> : row<E[N]> {};
template <class E, std::size_t N> struct row<const std::array<E, N>> : row<const E[N]> {};
}  // namespace detail

/// A view of a container or array: Rows for rows (`E[N]`, `std::array<E, N>`;
/// View3 for positions), else View.
template <class C>
auto view(C& c) noexcept {
    using P = std::remove_pointer_t<decltype(std::data(c))>;
    if constexpr (detail::row<P>::n != 0) {
        return Rows<typename detail::row<P>::type, detail::row<P>::n>(c);
    } else {
        return View<P>(c);
    }
}

// -------------------------------------------------- the C API, per precision ---

namespace detail {
template <class T> struct Api;
#define XPBD_HPP_FN(S, name) static constexpr auto name = &xpbd_##name##S;
#define XPBD_HPP_API(T, S, F)                                                                      \
    template <> struct Api<T> {                                                                    \
        using Link = XpbdLink##F; using Distance = XpbdDistanceConstraint##F;                      \
        using System3 = XpbdSystem3##F; using SweepStats = XpbdSweepStats##F;                      \
        using Convergence = XpbdConvergence##F; using World = XpbdWorld3##F;                       \
        using Config = XpbdStepConfig3##F; using StepStats = XpbdStepStats##F;                     \
        using Plane = XpbdPlane3##F; using Sphere = XpbdSphere3##F; using Capsule = XpbdCapsule3##F; \
        using Box = XpbdBox3##F; using EngineContact = XpbdEngineContact##F;                       \
        using Heightfield = XpbdHeightfield3##F; using Sdf = XpbdSdf3##F;                          \
        using Bend = XpbdBend##F; using Tet = XpbdTet##F; using Tether = XpbdTether##F;            \
        using MeshVolume = XpbdMeshVolume##F; using Attachment = XpbdAttachment##F;                \
        using Constraints = XpbdConstraints3##F; using Colliders = XpbdColliders3##F;              \
        using SelfCollision = XpbdSelfCollision3##F; using Tearing = XpbdTearing3##F;              \
        using EngineContacts = XpbdEngineContacts3##F; using Groups = XpbdGroups3##F;              \
        using Wind = XpbdWind3##F; using AeroTriangle = XpbdAeroTriangle##F;                       \
        using LocalSpace3 = XpbdLocalSpace3##F; using LocalSpace = XpbdLocalSpace##F;              \
        using Transform = XpbdTransform##F; using SkinConstraint = XpbdSkinConstraint##F;          \
        XPBD_HPP_FN(S, step_config3_default) XPBD_HPP_FN(S, world3_default)                              \
        XPBD_HPP_FN(S, colliders3_default) XPBD_HPP_FN(S, self_collision3_default)                       \
        XPBD_HPP_FN(S, tearing3_default) XPBD_HPP_FN(S, engine_contacts3_default)                        \
        XPBD_HPP_FN(S, groups3_default) XPBD_HPP_FN(S, wind3_default)                                    \
        XPBD_HPP_FN(S, local_space3_default) XPBD_HPP_FN(S, transform_identity)                          \
        XPBD_HPP_FN(S, skin_constraint_default)                                                          \
        XPBD_HPP_FN(S, aero_triangle_default) XPBD_HPP_FN(S, world3_add) XPBD_HPP_FN(S, world3_requirements) \
        XPBD_HPP_FN(S, world3_step) XPBD_HPP_FN(S, world3_step_colored) XPBD_HPP_FN(S, world3_precision) \
        XPBD_HPP_FN(S, build_rope3) XPBD_HPP_FN(S, build_loop3) XPBD_HPP_FN(S, build_cloth3)             \
        XPBD_HPP_FN(S, build_bends_cloth3) XPBD_HPP_FN(S, build_links_from_triangles3)                   \
        XPBD_HPP_FN(S, build_bends_from_triangles3) XPBD_HPP_FN(S, build_links_from_tets3)               \
        XPBD_HPP_FN(S, build_tets3) XPBD_HPP_FN(S, build_tethers3)                                       \
        XPBD_HPP_FN(S, build_tethers_along_links3) XPBD_HPP_FN(S, build_tet_block3)                      \
        XPBD_HPP_FN(S, build_icosphere3) XPBD_HPP_FN(S, build_mesh_volume3) XPBD_HPP_FN(S, color_greedy) \
        XPBD_HPP_FN(S, color_group) XPBD_HPP_FN(S, color_greedy_moving)                                  \
        XPBD_HPP_FN(S, color_group_moving) XPBD_HPP_FN(S, distance_begin_substep)                        \
        XPBD_HPP_FN(S, distance_solve) XPBD_HPP_FN(S, system3_begin_substep)                             \
        XPBD_HPP_FN(S, system3_iterate) XPBD_HPP_FN(S, system3_iterate_until)                            \
        XPBD_HPP_FN(S, system3_measure)                                                                  \
    };
XPBD_HPP_API(double, , )
XPBD_HPP_API(float, _f32, F32)
#undef XPBD_HPP_API
#undef XPBD_HPP_FN

template <class T> using In3 = id<View3<const T>>;  // builder parameters: T comes from a scalar
template <class X> using Out = id<View<X>>;
// Calls f(args..., &count): the status and the count it wrote.
template <class F, class... Args>
Counted count(F f, Args... args) noexcept {
    std::size_t n = 0;
    const XpbdStatus s = f(args..., &n);
    return {Result(s), n};
}
inline Counted refused() noexcept { return {Result(XPBD_STATUS_INVALID_ARGUMENT), 0}; }
}  // namespace detail

/// The C structs for T = double or float: `xpbd::Link<float>` is
/// XpbdLinkF32, `xpbd::Capsule3<double>` is XpbdCapsule3, ...
template <class T> using Link = typename detail::Api<T>::Link;
template <class T> using Plane3 = typename detail::Api<T>::Plane;
template <class T> using Sphere3 = typename detail::Api<T>::Sphere;
template <class T> using Capsule3 = typename detail::Api<T>::Capsule;
template <class T> using Box3 = typename detail::Api<T>::Box;
/// A moving heightfield (XpbdHeightfield3) and signed distance field
/// (XpbdSdf3): grids whose samples are World::set_samples' array.
template <class T> using Heightfield3 = typename detail::Api<T>::Heightfield;
template <class T> using Sdf3 = typename detail::Api<T>::Sdf;
template <class T> using EngineContact = typename detail::Api<T>::EngineContact;
template <class T> using Bend = typename detail::Api<T>::Bend;
template <class T> using Tet = typename detail::Api<T>::Tet;
template <class T> using Tether = typename detail::Api<T>::Tether;
template <class T> using MeshVolume = typename detail::Api<T>::MeshVolume;
template <class T> using Attachment = typename detail::Api<T>::Attachment;
/// A triangle the wind acts on (XpbdAeroTriangle): make it with aero_triangle().
template <class T> using AeroTriangle = typename detail::Api<T>::AeroTriangle;
/// A rigid transform (XpbdTransform): rotation, a unit quaternion
/// {x, y, z, w}, and translation (m); make it with identity_transform().
template <class T> using Transform = typename detail::Api<T>::Transform;
/// The local-space values (XpbdLocalSpace: root transforms, inertia scales,
/// velocity and acceleration limits, added velocities, teleport); make them
/// with local_space().
template <class T> using LocalSpace = typename detail::Api<T>::LocalSpace;
/// A skinned constraint of character cloth (XpbdSkinConstraint: a max
/// distance from a skinned point, a backstop sphere behind it); make it
/// with skin_constraint().
template <class T> using SkinConstraint = typename detail::Api<T>::SkinConstraint;
template <class T> using StepStats = typename detail::Api<T>::StepStats;
template <class T> using SweepStats = typename detail::Api<T>::SweepStats;
template <class T> using Convergence = typename detail::Api<T>::Convergence;

/// The step configuration, born as xpbd_step_config3_default(): gravity
/// (0, -9.81, 0) m/s², 20 substeps of 1 iteration, no tolerance, damping
/// 0.1/s, particle radius 0.01 m, rigid contacts with static friction 0.6
/// and dynamic friction 0.3, XPBD_ZERO_LENGTH_REJECT and
/// XPBD_CONTACT_OVERFLOW_REJECT. It is the C struct: set its fields.
template <class T>
struct Config : detail::Api<T>::Config {
    Config() noexcept : detail::Api<T>::Config(detail::Api<T>::step_config3_default()) {}
};

/// A wind triangle over particles a, b, c with the default drag (1.2) and
/// lift (0.1) coefficients: aero_triangle<float>(0, 1, 2).
template <class T>
AeroTriangle<T> aero_triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c) noexcept {
    return detail::Api<T>::aero_triangle_default(a, b, c);
}

/// The identity transform: rotation {0, 0, 0, 1}, translation 0.
template <class T>
Transform<T> identity_transform() noexcept {
    return detail::Api<T>::transform_identity();
}

/// Local-space values as xpbd_local_space3_default() has them: the identity
/// root at the frame's start (`previous`) and end (`target`), inertia 1
/// (the world-space simulation), no velocity limits (+inf), no teleport.
template <class T>
LocalSpace<T> local_space() noexcept {
    return detail::Api<T>::local_space3_default().local;
}

/// A skinned constraint as xpbd_skin_constraint_default() has it: `particle`
/// at the skinned `point` (m, previous and target) with the skinned `normal`
/// (any length; only a backstop reads it), no max distance (+inf), no
/// backstop (radius 0), rigid, λ 0. Set max_distance (0 pins the particle
/// to the skin) and the backstop fields you want: skin_constraint(k, p, {0, 0, -1}).
template <class T>
SkinConstraint<T> skin_constraint(std::uint32_t particle, const std::array<T, 3>& point,
                                  const std::array<T, 3>& normal) noexcept {
    return detail::Api<T>::skin_constraint_default(particle, point[0], point[1], point[2], normal[0],
                                                   normal[1], normal[2]);
}

/// The library's version, major * 10000 + minor * 100 + patch
/// (XPBD_VERSION_NUMBER when header and library match).
inline std::uint32_t version() noexcept { return xpbd_version(); }
/// The thread's floating-point environment: 0 (IEEE default) or XPBD_FP_* bits.
inline std::uint32_t fp_environment() noexcept { return xpbd_fp_environment(); }

// ---------------------------------------------------------------- builders ---
// Each writes the caller's arrays and returns the count written. T comes
// from the compliance (1e-6f for float) or is named: build_cloth<float>(...).

/// Links between consecutive particles (rest = their distance, λ = 0).
template <class T>
Counted build_rope(detail::In3<T> x, T compliance, detail::Out<Link<T>> out) noexcept {
    using A = detail::Api<T>;
    return detail::count(A::build_rope3, x.flat(), x.size(), compliance, out.data(), out.size());
}
/// The rope's links and (n - 1, 0).
template <class T>
Counted build_loop(detail::In3<T> x, T compliance, detail::Out<Link<T>> out) noexcept {
    using A = detail::Api<T>;
    return detail::count(A::build_loop3, x.flat(), x.size(), compliance, out.data(), out.size());
}
/// A rows x cols cloth over row-major particles: horizontal and vertical
/// links, with `shear` both diagonals of each cell (cloth_link_count).
template <class T>
Counted build_cloth(detail::In3<T> x, std::size_t rows, std::size_t cols, bool shear, T compliance,
                    detail::Out<Link<T>> out) noexcept {
    using A = detail::Api<T>;
    if (x.size() != rows * cols) return detail::refused();
    return detail::count(A::build_cloth3, x.flat(), rows, cols, std::int32_t(shear), compliance, out.data(),
                         out.size());
}
/// One dihedral bend per interior edge of that grid (bends_cloth_count).
template <class T>
Counted build_bends_cloth(detail::In3<T> x, std::size_t rows, std::size_t cols, T compliance,
                          detail::Out<Bend<T>> out) noexcept {
    using A = detail::Api<T>;
    if (x.size() != rows * cols) return detail::refused();
    return detail::count(A::build_bends_cloth3, x.flat(), rows, cols, compliance, out.data(), out.size());
}
/// One link per distinct edge of any triangle mesh; scratch >= 3 x triangles.
template <class T>
Counted build_links_from_triangles(detail::In3<T> x, View3<const std::uint32_t> triangles, T compliance,
                                   View3<std::uint32_t> scratch, detail::Out<Link<T>> out) noexcept {
    using A = detail::Api<T>;
    return detail::count(A::build_links_from_triangles3, x.flat(), x.size(), triangles.flat(),
                         triangles.size(), compliance, scratch.flat(), scratch.size(), out.data(),
                         out.size());
}
/// One bend per edge that two triangles share; scratch >= 3 x triangles.
template <class T>
Counted build_bends_from_triangles(detail::In3<T> x, View3<const std::uint32_t> triangles, T compliance,
                                   View3<std::uint32_t> scratch, detail::Out<Bend<T>> out) noexcept {
    using A = detail::Api<T>;
    return detail::count(A::build_bends_from_triangles3, x.flat(), x.size(), triangles.flat(),
                         triangles.size(), compliance, scratch.flat(), scratch.size(), out.data(),
                         out.size());
}
/// One link per distinct edge of a tet mesh; scratch >= 6 x tets.
template <class T>
Counted build_links_from_tets(detail::In3<T> x, View4<const std::uint32_t> tets, T compliance,
                              View3<std::uint32_t> scratch, detail::Out<Link<T>> out) noexcept {
    using A = detail::Api<T>;
    return detail::count(A::build_links_from_tets3, x.flat(), x.size(), tets.flat(), tets.size(), compliance,
                         scratch.flat(), scratch.size(), out.data(), out.size());
}
/// One volume constraint per tet (signed rest volumes from the positions).
template <class T>
Counted build_tets(detail::In3<T> x, View4<const std::uint32_t> tets, T compliance,
                   detail::Out<Tet<T>> out) noexcept {
    using A = detail::Api<T>;
    return detail::count(A::build_tets3, x.flat(), x.size(), tets.flat(), tets.size(), compliance, out.data(),
                         out.size());
}
/// A tether from each moving particle to its nearest anchor (straight line).
template <class T>
Counted build_tethers(detail::In3<T> x, detail::id<View<const T>> inverse_masses,
                      View<const std::uint32_t> anchors, T compliance, detail::Out<Tether<T>> out) noexcept {
    using A = detail::Api<T>;
    if (inverse_masses.size() != x.size()) return detail::refused();
    return detail::count(A::build_tethers3, x.flat(), inverse_masses.data(), x.size(), anchors.data(),
                         anchors.size(), compliance, out.data(), out.size());
}
/// The same along the links (path length); `distance` and `anchor` are
/// scratch, one entry per particle.
template <class T>
Counted build_tethers_along_links(detail::In3<T> x, detail::id<View<const T>> inverse_masses,
                                  detail::id<View<const Link<T>>> links, View<const std::uint32_t> anchors,
                                  T compliance, detail::Out<T> distance, View<std::uint32_t> anchor,
                                  detail::Out<Tether<T>> out) noexcept {
    using A = detail::Api<T>;
    if (inverse_masses.size() != x.size() || distance.size() != anchor.size()) return detail::refused();
    return detail::count(A::build_tethers_along_links3, x.flat(), inverse_masses.data(), x.size(),
                         links.data(), links.size(), anchors.data(), anchors.size(), compliance,
                         distance.data(), anchor.data(), anchor.size(), out.data(), out.size());
}
/// A tet block's or an icosphere's particles and tets or triangles.
struct MeshCounts {
    std::size_t particles = 0, elements = 0;
};
inline ResultOf<MeshCounts> tet_block_counts(std::size_t nx, std::size_t ny, std::size_t nz) noexcept {
    MeshCounts c;
    const XpbdStatus s = xpbd_tet_block_counts(nx, ny, nz, &c.particles, &c.elements);
    return {Result(s), c};
}
inline ResultOf<MeshCounts> icosphere_counts(std::size_t frequency) noexcept {
    MeshCounts c;
    const XpbdStatus s = xpbd_icosphere_counts(frequency, &c.particles, &c.elements);
    return {Result(s), c};
}
/// nx x ny x nz cubes of side `spacing` from `origin`: positions, 6 tets each.
template <class T>
ResultOf<MeshCounts> build_tet_block(std::size_t nx, std::size_t ny, std::size_t nz, T spacing,
                                     const std::array<T, 3>& origin, T compliance, detail::id<View3<T>> x,
                                     detail::Out<Tet<T>> tets) noexcept {
    MeshCounts c;
    const XpbdStatus s = detail::Api<T>::build_tet_block3(nx, ny, nz, spacing, origin.data(), compliance,
        x.flat(), x.size(), tets.data(), tets.size(), &c.particles, &c.elements);
    return {Result(s), c};
}
/// A geodesic sphere: positions and triangles (counter-clockwise outside).
template <class T>
ResultOf<MeshCounts> build_icosphere(std::size_t frequency, T radius, const std::array<T, 3>& center,
                                     detail::id<View3<T>> x, View3<std::uint32_t> triangles) noexcept {
    MeshCounts c;
    const XpbdStatus s = detail::Api<T>::build_icosphere3(frequency, radius, center.data(), x.flat(),
        x.size(), triangles.flat(), triangles.size(), &c.particles, &c.elements);
    return {Result(s), c};
}
/// The volume constraint of triangles first .. first + count into `out`
/// and its particle list into `mesh_particles` from `first_particle`;
/// `scratch` >= one row per particle.
template <class T>
Result build_mesh_volume(View3<const std::uint32_t> triangles, std::uint32_t first, std::uint32_t count,
                         detail::In3<T> x, T pressure, T compliance, View<std::uint32_t> mesh_particles,
                         std::uint32_t first_particle, detail::id<View3<T>> scratch,
                         MeshVolume<T>& out) noexcept {
    return Result(detail::Api<T>::build_mesh_volume3(triangles.flat(), triangles.size(), first, count,
        x.flat(), x.size(), pressure, compliance, mesh_particles.data(), mesh_particles.size(),
        first_particle, scratch.flat(), scratch.size(), &out));
}
inline std::size_t cloth_link_count(std::size_t rows, std::size_t cols, bool shear) noexcept {
    return xpbd_cloth_link_count(rows, cols, shear);
}
inline std::size_t bends_cloth_count(std::size_t rows, std::size_t cols) noexcept {
    return xpbd_bends_cloth_count(rows, cols);
}

// ---------------------------------------------------------------- coloring ---
// For step_colored: color the links (and bends, tets, tethers), sort the
// colors with color_order (`order[k]`: the original entry at colored
// position k; `starts`: colors + 1 boundaries) and copy with reorder.

/// The even/odd colors of a rope's links (`closed`: a loop's).
inline Counted color_rope(std::size_t links, bool closed, View<std::uint32_t> colors) noexcept {
    std::uint32_t n = 0;
    const XpbdStatus s = xpbd_color_rope(links, closed, colors.data(), colors.size(), &n);
    return {Result(s), n};
}
/// The fixed colors of build_cloth's links (4, 8 with shear).
inline Counted color_cloth(std::size_t rows, std::size_t cols, bool shear,
                           View<std::uint32_t> colors) noexcept {
    std::uint32_t n = 0;
    const XpbdStatus s = xpbd_color_cloth(rows, cols, shear, colors.data(), colors.size(), &n);
    return {Result(s), n};
}
/// Greedy colors of any links (a container of Link<T>); `scratch` >= particles.
template <class L>
Counted color_greedy(const L& links, std::size_t particles, View<std::uint64_t> scratch,
                     View<std::uint32_t> colors) noexcept {
    using T = std::remove_const_t<decltype(std::data(links)->rest)>;
    const View<const Link<T>> in(links);
    if (scratch.size() < particles || colors.size() < in.size()) return detail::refused();
    std::uint32_t n = 0;
    const XpbdStatus s =
        detail::Api<T>::color_greedy(in.data(), in.size(), particles, scratch.data(), colors.data(), &n);
    return {Result(s), n};
}
/// color_greedy over the moving particles (inverse mass != 0; `w`, one per
/// particle, 1/kg): links sharing only a static particle may share a color.
/// For world3_step_colored only.
template <class L, class T = std::remove_const_t<decltype(std::data(std::declval<const L&>())->rest)>>
Counted color_greedy_moving(const L& links, detail::id<View<const T>> w, View<std::uint64_t> scratch,
                            View<std::uint32_t> colors) noexcept {
    const View<const Link<T>> in(links);
    if (scratch.size() < w.size() || colors.size() < in.size()) return detail::refused();
    std::uint32_t n = 0;
    const XpbdStatus s = detail::Api<T>::color_greedy_moving(in.data(), in.size(), w.data(), w.size(),
                                                             scratch.data(), colors.data(), &n);
    return {Result(s), n};
}
namespace detail {
/// The groups struct holding one group (a container of bends, tets or
/// tethers; only read by the coloring) and its group code.
template <class A, class G>
std::pair<typename A::Constraints, std::int32_t> one_group(const G& group) noexcept {
    using E = std::remove_const_t<std::remove_pointer_t<decltype(std::data(group))>>;
    typename A::Constraints c{};
    E* p = const_cast<E*>(std::data(group));  // only read by xpbd_color_group[_moving]
    std::int32_t code = XPBD_GROUP_TETHERS;
    if constexpr (std::is_same_v<E, typename A::Bend>) {
        code = XPBD_GROUP_BENDS, c.bends = p, c.bend_count = std::size(group);
    } else if constexpr (std::is_same_v<E, typename A::Tet>) {
        code = XPBD_GROUP_TETS, c.tets = p, c.tet_count = std::size(group);
    } else {
        static_assert(std::is_same_v<E, typename A::Tether>, "the groups colored are bends, tets or tethers");
        c.tethers = p, c.tether_count = std::size(group);
    }
    return {c, code};
}
}  // namespace detail
/// Greedy colors of bends, tets or tethers (a container of one kind);
/// `scratch` >= particles. On an error index() names the instance.
template <class G>
Counted color_group(const G& group, std::size_t particles, View<std::uint64_t> scratch,
                    View<std::uint32_t> colors) noexcept {
    using A = detail::Api<std::remove_const_t<decltype(std::data(group)->compliance)>>;
    auto [c, code] = detail::one_group<A>(group);
    if (colors.size() < std::size(group)) return detail::refused();
    std::uint32_t n = 0;
    std::size_t index = 0;
    const XpbdStatus s = A::color_group(&c, code, particles, scratch.data(), colors.data(), &n, &index);
    return {Result(s, s < 0 ? index : 0), n};
}
/// color_group over the moving particles (inverse mass != 0; `w`, one per
/// particle, 1/kg): tethers to one pinned anchor take one color. For
/// world3_step_colored only.
template <class G, class T = std::remove_const_t<decltype(std::data(std::declval<const G&>())->compliance)>>
Counted color_group_moving(const G& group, detail::id<View<const T>> w, View<std::uint64_t> scratch,
                           View<std::uint32_t> colors) noexcept {
    using A = detail::Api<T>;
    auto [c, code] = detail::one_group<A>(group);
    if (colors.size() < std::size(group) || scratch.size() < w.size()) return detail::refused();
    std::uint32_t n = 0;
    std::size_t index = 0;
    const XpbdStatus s =
        A::color_group_moving(&c, code, w.data(), w.size(), scratch.data(), colors.data(), &n, &index);
    return {Result(s, s < 0 ? index : 0), n};
}
/// Sorts by color: `order` (one per entry) and `starts` (color_count + 1).
inline Result color_order(View<const std::uint32_t> colors, std::uint32_t color_count,
                          View<std::size_t> starts, View<std::uint32_t> order) noexcept {
    if (starts.size() != std::size_t(color_count) + 1 || order.size() != colors.size()) {
        return Result(XPBD_STATUS_INVALID_ARGUMENT);
    }
    return Result(xpbd_color_order(colors.data(), colors.size(), color_count, starts.data(), order.data()));
}
/// out[k] = in[order[k]]: links, bends, max forces, ... copied into colored
/// order (`in` and `out` containers or views of one type, not the same).
template <class I, class O>
Result reorder(const I& in, View<const std::uint32_t> order, O&& out) noexcept {
    using E = std::remove_pointer_t<decltype(std::data(out))>;
    const View<const E> from(in);
    const View<E> to(out);
    if (order.size() != to.size() || from.data() == to.data()) return Result(XPBD_STATUS_INVALID_ARGUMENT);
    for (std::size_t k = 0; k < order.size(); ++k) {
        if (order[k] >= from.size()) return Result(XPBD_STATUS_INDEX_OUT_OF_RANGE, k);
        to[k] = from[order[k]];
    }
    return Result();
}

/// The color boundaries step_colored reads (XpbdGroupColors): those of the
/// links and of the groups' bends, tets and tethers (each color_count + 1).
class Colors {
public:
    explicit Colors(View<const std::size_t> links, View<const std::size_t> bends = {},
                    View<const std::size_t> tets = {}, View<const std::size_t> tethers = {}) noexcept
        : c_{links.data(), n(links), bends.data(), n(bends), tets.data(), n(tets), tethers.data(),
             n(tethers)} {}
    const XpbdGroupColors& c() const noexcept { return c_; }

private:
    static std::size_t n(View<const std::size_t> s) noexcept { return s.empty() ? 0 : s.size() - 1; }
    XpbdGroupColors c_;
};

// -------------------------------------------------------------- job system ---

/// One task of a phase: call it once for each index below the count given.
class Task {
public:
    Task(XpbdTaskFn fn, void* context) noexcept : fn_(fn), context_(context) {}
    void operator()(std::uint32_t index) const noexcept { fn_(context_, index); }

private:
    XpbdTaskFn fn_;
    void* context_;
};

/// The engine's job system for step_colored, from any callable
/// `run(std::uint32_t count, xpbd::Task task)` that calls task(i) once for
/// every i < count, on any threads in any order, and returns once all have
/// returned (a thread pool's parallel-for). `split`: tasks per phase, the
/// worker count (1 ..= XPBD_MAX_JOBS). Holds `run` by value, no heap; the
/// C struct it makes points at this object.
template <class Run>
class Jobs {
public:
    Jobs(Run run, std::uint32_t split) noexcept : run_(std::move(run)), split_(split) {}
    XpbdJobSystem c() const noexcept { return XpbdJobSystem{&trampoline, &run_, split_}; }

private:
    static void trampoline(void* user, std::uint32_t count, XpbdTaskFn fn, void* context) noexcept {
        (*static_cast<Run*>(user))(count, Task(fn, context));
    }
    mutable Run run_;
    std::uint32_t split_;
};

// ------------------------------------------------------------------- world ---

/// A world's optional features, one C block each.
enum class Feature : std::uint32_t {
    Colliders = XPBD_BLOCK_COLLIDERS, SelfCollision = XPBD_BLOCK_SELF_COLLISION, Tearing = XPBD_BLOCK_TEARING,
    EngineContacts = XPBD_BLOCK_ENGINE_CONTACTS, Groups = XPBD_BLOCK_GROUPS, Wind = XPBD_BLOCK_WIND,
    LocalSpace = XPBD_BLOCK_LOCAL_SPACE,
};

/// A step's result and, on success, what it did (substeps, contacts, torn links, ...).
template <class T>
struct [[nodiscard]] StepResult : Result {
    StepStats<T> stats{};
};
/// xpbd_world3_precision: the float spacing at `particle` (the farthest)
/// over the shortest length; above XPBD_PRECISION_LIMIT, too coarse.
template <class T>
struct Precision {
    T ratio = 0;
    std::size_t particle = 0;
};

/// A 3D world over the caller's buffers: particles, links, the library's
/// memory, and the features set on it (each setter switches its feature on,
/// remove() off). Copyable: it holds the C world and its seven blocks (made
/// by their _default functions) and chains the ones on at every call.
template <class T>
class World {
    using A = detail::Api<T>;
    using CConfig = typename A::Config;

public:
    /// Positions (m), velocities (m/s), inverse masses (1/kg, 0: pinned):
    /// one per particle, or every call fails with INVALID_ARGUMENT.
    World(View3<T> positions, View3<T> velocities, View<const T> inverse_masses,
          View<Link<T>> links = {}) noexcept
        : w_(A::world3_default()), col_(A::colliders3_default()), self_(A::self_collision3_default()),
          tear_(A::tearing3_default()), eng_(A::engine_contacts3_default()), grp_(A::groups3_default()),
          wind_(A::wind3_default()), loc_(A::local_space3_default()),
          sizes_ok_(velocities.size() == positions.size() && inverse_masses.size() == positions.size()) {
        w_.positions = positions.data();
        w_.velocities = velocities.data();
        w_.inverse_masses = inverse_masses.data();
        w_.particle_count = positions.size();
        set_links(links);
    }
    World& set_links(View<Link<T>> links) noexcept {
        w_.links = links.data();
        w_.link_count = links.size();
        return *this;
    }
    /// The library's memory: requirements().value.memory_size bytes or more,
    /// 8-aligned (a buffer of double or std::uint64_t is): a container, an
    /// array, or a pointer and a byte count.
    World& set_memory(void* bytes, std::size_t size) noexcept {
        w_.memory = bytes;
        w_.memory_size = size;
        return *this;
    }
    template <class C>
    World& set_memory(C& buffer) noexcept {
        return set_memory(std::data(buffer), sizeof buffer[0] * std::size(buffer));
    }

    /// Colliders: static planes and spheres; capsules, boxes, heightfields
    /// and signed distance fields moving over the frame (collider indices
    /// in that order).
    World& set_planes(View<const Plane3<T>> v) noexcept {
        return put(col_.planes, col_.plane_count, v, col_);
    }
    World& set_spheres(View<const Sphere3<T>> v) noexcept {
        return put(col_.spheres, col_.sphere_count, v, col_);
    }
    World& set_capsules(View<const Capsule3<T>> v) noexcept {
        return put(col_.capsules, col_.capsule_count, v, col_);
    }
    World& set_boxes(View<const Box3<T>> v) noexcept { return put(col_.boxes, col_.box_count, v, col_); }
    World& set_heightfields(View<const Heightfield3<T>> v) noexcept {
        return put(col_.heightfields, col_.heightfield_count, v, col_);
    }
    World& set_sdfs(View<const Sdf3<T>> v) noexcept { return put(col_.sdfs, col_.sdf_count, v, col_); }
    /// The samples the heightfields and signed distance fields read (each
    /// names its first): heights, or distances in m.
    World& set_samples(View<const T> v) noexcept { return put(col_.samples, col_.sample_count, v, col_); }
    /// Contacts a substep may hold (0, the default: particles x colliders).
    World& set_contact_budget(std::size_t n) noexcept { col_.contact_budget = n; return on(col_); }
    /// Self-collision (needs particle_radius > 0): pairs closer than two
    /// radii in `rest` (empty, or one per particle) never collide;
    /// `pair_budget` 0 is 6 per particle.
    World& set_self_collision(View3<const T> rest = {}, std::size_t pair_budget = 0) noexcept {
        self_.pair_budget = pair_budget;
        // The C field is not const (for C99 callers); the library only reads it.
        self_.rest_positions = const_cast<T(*)[3]>(rest.data());
        rest_size_ = rest.size();
        return on(self_);
    }
    /// Tearing: after a successful step each link whose force exceeded its
    /// max_force (N, one per link) is disabled, its index written to `torn`.
    World& set_tearing(View<const T> max_force, View<std::uint32_t> torn = {}) noexcept {
        tear_.max_force = max_force.data();
        max_force_size_ = max_force.size();
        return put(tear_.torn, tear_.torn_capacity, torn, tear_);
    }
    /// The contacts the engine found for this frame (λ, impulse, force written).
    World& set_engine_contacts(View<EngineContact<T>> v) noexcept {
        return put(eng_.contacts, eng_.count, v, eng_);
    }
    /// Constraint groups, solved after the links in every iteration.
    World& set_bends(View<Bend<T>> v) noexcept { return put(g().bends, g().bend_count, v, grp_); }
    World& set_tets(View<Tet<T>> v) noexcept { return put(g().tets, g().tet_count, v, grp_); }
    World& set_tethers(View<Tether<T>> v) noexcept { return put(g().tethers, g().tether_count, v, grp_); }
    World& set_attachments(View<Attachment<T>> v) noexcept {
        return put(g().attachments, g().attachment_count, v, grp_);
    }
    /// Skinned constraints (character cloth; skin_constraint()), solved
    /// last; a successful step writes previous = target (point and normal).
    World& set_skin_constraints(View<SkinConstraint<T>> v) noexcept {
        return put(g().skin_constraints, g().skin_constraint_count, v, grp_);
    }
    /// Closed-mesh volumes over `triangles`, their particle lists
    /// (build_mesh_volume) and a gradient scratch of one row per particle.
    World& set_mesh_volumes(View<MeshVolume<T>> meshes, View3<const std::uint32_t> triangles,
                            View<const std::uint32_t> mesh_particles, View3<T> scratch) noexcept {
        put(g().triangles, g().triangle_count, triangles, grp_);
        put(g().mesh_particles, g().mesh_particle_count, mesh_particles, grp_);
        put(g().mesh_scratch, g().mesh_scratch_count, scratch, grp_);
        return put(g().mesh_volumes, g().mesh_volume_count, meshes, grp_);
    }
    /// Wind: drag and lift on `triangles` (aero_triangle()) from their
    /// velocity relative to the air, `velocity` (m/s) plus, when given, the
    /// particles' own `particle_velocities` (m/s, one per particle), in a
    /// fluid of `density` (kg/m³; air by default).
    World& set_wind(View<const AeroTriangle<T>> triangles, const std::array<T, 3>& velocity,
                    View3<const T> particle_velocities = {}, T density = T(XPBD_AIR_DENSITY)) noexcept {
        for (std::size_t k = 0; k < 3; ++k) wind_.velocity[k] = velocity[k];
        wind_.density = density;
        // The C field is not const (for C99 callers); the library only reads it.
        wind_.particle_velocities = const_cast<T(*)[3]>(particle_velocities.data());
        particle_wind_size_ = particle_velocities.size();
        return put(wind_.triangles, wind_.triangle_count, triangles, wind_);
    }
    /// Local space: the particles live in a root frame moving from
    /// `local.previous` to `local.target` over each frame, its motion felt as
    /// `local`'s inertia scales say (local_space()). The world keeps a
    /// pointer to `local` (it must outlive the world's steps; a copy of the
    /// world shares it): every step reads it, and a successful one writes
    /// `local.previous = local.target` and `local.teleport = 0` into it (a
    /// failed one nothing). Set `local.target` before each step.
    World& set_local_space(LocalSpace<T>& local) noexcept {
        local_ = &local;
        return on(loc_);
    }
    World& remove(Feature f) noexcept { on_ &= ~bit(static_cast<std::uint32_t>(f)); return *this; }
    bool has(Feature f) const noexcept { return (on_ & bit(static_cast<std::uint32_t>(f))) != 0; }

    /// Every length the world needs with its features on: `memory_size`
    /// bytes of memory, and how they are carved.
    ResultOf<XpbdRequirements> requirements() noexcept {
        ResultOf<XpbdRequirements> r;
        static_cast<Result&>(r) = chain();
        if (r) static_cast<Result&>(r) = result(A::world3_requirements(&w_, &r.value));
        return r;
    }
    /// One frame of `dt` s: config.substeps substeps, each predicting,
    /// finding contacts, resetting λ, sweeping config.iterations times and
    /// updating velocities. On an error nothing of the caller's changed.
    StepResult<T> step(T dt, const CConfig& config = Config<T>()) noexcept {
        StepResult<T> r;
        static_cast<Result&>(r) = chain();
        if (r) static_cast<Result&>(r) = result(A::world3_step(&w_, dt, &config, &r.stats));
        if (r) write_back();
        return r;
    }
    /// The same frame in colored order (the links and the groups' bends,
    /// tets and tethers stored color by color, `colors` their boundaries),
    /// its phases run by `jobs` (none: this thread). Bit-identical to step().
    StepResult<T> step_colored(const Colors& colors, T dt, const CConfig& config = Config<T>(),
                               const XpbdJobSystem* jobs = nullptr) noexcept {
        StepResult<T> r;
        static_cast<Result&>(r) = chain();
        if (r) static_cast<Result&>(r) = result(A::world3_step_colored(&w_, &colors.c(), dt, &config, jobs,
                                                                       &r.stats));
        if (r) write_back();
        return r;
    }
    template <class Run>
    StepResult<T> step_colored(const Colors& colors, T dt, const CConfig& config,
                               const Jobs<Run>& jobs) noexcept {
        const XpbdJobSystem c = jobs.c();
        return step_colored(colors, dt, config, &c);
    }
    /// Whether float is precise enough for this world (xpbd_world3_precision).
    ResultOf<Precision<T>> precision(const CConfig& config = Config<T>()) const noexcept {
        Precision<T> p;
        const XpbdStatus s = A::world3_precision(&w_, &config, &p.ratio, &p.particle);
        return {Result(s), p};
    }
    /// The C world (the chain of its blocks is linked at every call above).
    typename A::World& c() noexcept { return w_; }

private:
    static constexpr std::uint32_t bit(std::uint32_t kind) noexcept { return 1u << kind % XPBD_BLOCK_F32; }
    template <class B>
    World& on(const B& b) noexcept { on_ |= bit(b.block.kind); return *this; }
    typename A::Constraints& g() noexcept { return grp_.groups; }
    template <class P, class V, class B>  // a view into a block's pointer and count: the feature on
    World& put(P& data, std::size_t& size, const V& v, const B& block) noexcept {
        data = v.data();
        size = v.size();
        return on(block);
    }
    Result result(XpbdStatus s) const noexcept {
        return s < 0 ? Result(s, w_.error_index, static_cast<Field>(w_.error_field)) : Result(s);
    }
    // The lengths the C structs cannot check, then the chain of the blocks on.
    Result chain() noexcept {
        if (!sizes_ok_) return Result(XPBD_STATUS_INVALID_ARGUMENT);
        if (has(Feature::SelfCollision) && rest_size_ != 0 && rest_size_ != w_.particle_count)
            return Result(XPBD_STATUS_INVALID_ARGUMENT, 0, Field::RestPositions);
        if (has(Feature::Tearing) && max_force_size_ != w_.link_count) {
            return Result(XPBD_STATUS_INVALID_ARGUMENT);
        }
        if (has(Feature::Wind) && particle_wind_size_ != 0 && particle_wind_size_ != w_.particle_count)
            return Result(XPBD_STATUS_INVALID_ARGUMENT, 0, Field::ParticleWind);
        if (has(Feature::LocalSpace)) loc_.local = *local_;
        w_.blocks = nullptr;
        for (XpbdBlock* b : {&loc_.block, &wind_.block, &grp_.block, &eng_.block, &tear_.block, &self_.block,
                             &col_.block}) {
            if (!(on_ & bit(b->kind))) continue;
            if (const XpbdStatus s = A::world3_add(&w_, b); s < 0) return Result(s, 0, Field::Block);
        }
        return Result();
    }
    // After a successful step: what the library wrote into the block, to
    // the caller's local space.
    void write_back() noexcept {
        if (!has(Feature::LocalSpace)) return;
        local_->previous = loc_.local.previous;
        local_->teleport = loc_.local.teleport;
    }
    typename A::World w_;
    typename A::Colliders col_;
    typename A::SelfCollision self_;
    typename A::Tearing tear_;
    typename A::EngineContacts eng_;
    typename A::Groups grp_;
    typename A::Wind wind_;
    typename A::LocalSpace3 loc_;
    LocalSpace<T>* local_ = nullptr;
    bool sizes_ok_;
    std::uint32_t on_ = 0;
    std::size_t rest_size_ = 0, max_force_size_ = 0, particle_wind_size_ = 0;
};

// ------------------------------------------------------- low-level systems ---

/// One 1D distance link and its λ (kg·m): begin_substep() once per
/// substep, solve() once per iteration.
template <class T>
class DistanceConstraint {
public:
    Result begin_substep() noexcept { return Result(detail::Api<T>::distance_begin_substep(&c_)); }
    Result solve(T& a, T& b, T wa, T wb, T rest, T compliance, T h) noexcept {
        return Result(detail::Api<T>::distance_solve(&c_, &a, &b, wa, wb, rest, compliance, h));
    }
    T lambda() const noexcept { return c_.lambda; }
    typename detail::Api<T>::Distance& c() noexcept { return c_; }

private:
    typename detail::Api<T>::Distance c_{};
};

/// Links over 3D particles solved by the caller's loop: begin_substep(h)
/// validates, resets every λ (the only reset) and fixes h; iterate() sweeps
/// every link once, keeping λ. An error's index() names the particle or link.
template <class T>
class System3 {
    using A = detail::Api<T>;

public:
    System3(View3<T> positions, View<const T> inverse_masses, View<Link<T>> links) noexcept
        : sizes_ok_(inverse_masses.size() == positions.size()) {
        s_.positions = positions.data();
        s_.inverse_masses = inverse_masses.data();
        s_.particle_count = positions.size();
        s_.links = links.data();
        s_.link_count = links.size();
        s_.zero_length_policy = XPBD_ZERO_LENGTH_REJECT;
    }
    Result begin_substep(T h) noexcept {
        return sizes_ok_ ? result(A::system3_begin_substep(&s_, h)) : Result(XPBD_STATUS_INVALID_ARGUMENT);
    }
    ResultOf<SweepStats<T>> iterate() noexcept { return sweep(A::system3_iterate); }
    ResultOf<SweepStats<T>> measure() noexcept { return sweep(A::system3_measure); }
    ResultOf<Convergence<T>> iterate_until(T tolerance, std::uint32_t max_iterations) noexcept {
        Convergence<T> c{};
        const XpbdStatus s = A::system3_iterate_until(&s_, tolerance, max_iterations, &c);
        return {result(s), c};
    }
    typename A::System3& c() noexcept { return s_; }

private:
    Result result(XpbdStatus s) const noexcept { return Result(s, s < 0 ? s_.error_index : 0); }
    template <class F>
    ResultOf<SweepStats<T>> sweep(F f) noexcept {
        SweepStats<T> stats{};
        const XpbdStatus s = f(&s_, &stats);
        return {result(s), stats};
    }
    typename A::System3 s_{};
    bool sizes_ok_;
};

}  // namespace xpbd

#endif  // XPBD_HPP
