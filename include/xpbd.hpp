// xpbd.hpp: a header-only C++17 layer over the xpbd C API (include/xpbd.h).
//
// - Views, not casts: `xpbd::Points3<T>` is a pointer + count over 3-vectors
//   and converts from `T[][3]`, `std::array<T, 3>` arrays, `std::vector` of
//   them and (C++20) `std::span`; `xpbd::View<T>` is the same for scalars,
//   links, colliders and contacts.
// - Errors are values, never exceptions: every call returns `xpbd::Status`
//   (`ok()` for XPBD_STATUS_OK and XPBD_STATUS_SKIPPED, `message()` is
//   xpbd_status_str) or `xpbd::Result<T>` (a status and, when ok, a value).
//   The header compiles with -fno-exceptions. Mark them [[nodiscard]].
// - No heap, no hidden state: every buffer is the caller's; the wrappers
//   hold the C structs (XpbdWorld3, XpbdSystem3, ...) and whether the views'
//   particle counts agreed, nothing else; `c()` hands out the C struct for
//   the functions not wrapped here (the colored solver, 2D systems).
// - One template per concept for double and float: `World3<double>` calls
//   xpbd_world3_step, `World3<float>` xpbd_world3_step_f32, and so on.
//
// The λ rule is the C API's: `System3::begin_substep(h)` resets every λ and
// is called once per substep, `iterate()` as often as the budget allows.
// See docs/install.md ("C++") and examples/cpp/world.cpp.
#ifndef XPBD_HPP
#define XPBD_HPP

#if __cplusplus < 201703L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 201703L)
#error "xpbd.hpp needs C++17 (include xpbd.h alone from C++11)"
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__has_include)
#if __has_include(<span>) && __cplusplus >= 202002L
#include <span>
#define XPBD_HPP_HAS_SPAN 1
#endif
#endif

#include "xpbd.h"

namespace xpbd {

// ---------------------------------------------------------------- status ---

/// The status of one call: XPBD_STATUS_OK (0), XPBD_STATUS_SKIPPED (1,
/// nothing to do, not an error) or a negative error code; on an error the
/// call changed nothing.
class [[nodiscard]] Status {
public:
    constexpr Status() noexcept : code_(XPBD_STATUS_OK) {}
    constexpr explicit Status(std::int32_t code) noexcept : code_(code) {}
    /// The C code (compare with the XPBD_STATUS_* constants).
    constexpr std::int32_t code() const noexcept { return code_; }
    /// Done or nothing to do (both endpoints static, ...).
    constexpr bool ok() const noexcept { return code_ >= 0; }
    constexpr bool skipped() const noexcept { return code_ == XPBD_STATUS_SKIPPED; }
    constexpr explicit operator bool() const noexcept { return ok(); }
    /// A static English sentence (xpbd_status_str); never null.
    const char* message() const noexcept { return xpbd_status_str(code_); }
    friend constexpr bool operator==(Status a, Status b) noexcept { return a.code_ == b.code_; }
    friend constexpr bool operator!=(Status a, Status b) noexcept { return a.code_ != b.code_; }
    friend constexpr bool operator==(Status a, std::int32_t b) noexcept { return a.code_ == b; }
    friend constexpr bool operator!=(Status a, std::int32_t b) noexcept { return a.code_ != b; }

private:
    std::int32_t code_;
};

/// A status and, when `ok()`, a value (a link count, convergence data, ...).
template <class T>
struct [[nodiscard]] Result {
    Status status;
    T value{};
    constexpr bool ok() const noexcept { return status.ok(); }
    constexpr explicit operator bool() const noexcept { return status.ok(); }
};

// ----------------------------------------------------------------- views ---

/// Pointer + count over caller memory; never owns, never allocates.
template <class T>
class View {
public:
    using value_type = T;
    constexpr View() noexcept = default;
    constexpr View(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <std::size_t N>
    constexpr View(T (&array)[N]) noexcept : data_(array), size_(N) {}
    /// Any contiguous container: std::vector, std::array, ... (data(), size()).
    template <class C, class = std::enable_if_t<
                           std::is_convertible_v<decltype(std::declval<C&>().data()), T*> &&
                           !std::is_array_v<std::remove_reference_t<C>>>>
    constexpr View(C& container) noexcept : data_(container.data()), size_(container.size()) {}
    /// A view of T converts to a view of const T.
    template <class U, class = std::enable_if_t<std::is_same_v<const U, T> && !std::is_same_v<U, T>>>
    constexpr View(View<U> other) noexcept : data_(other.data()), size_(other.size()) {}
#ifdef XPBD_HPP_HAS_SPAN
    template <class U, std::size_t E, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
    constexpr View(std::span<U, E> s) noexcept : data_(s.data()), size_(s.size()) {}
#endif
    constexpr T* data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T& operator[](std::size_t k) const noexcept { return data_[k]; }
    constexpr T* begin() const noexcept { return data_; }
    constexpr T* end() const noexcept { return data_ + size_; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

/// Pointer + count over 3-vectors (m, m/s): `Real (*)[3]` as the C structs
/// take it, built from `Real[][3]`, `std::array<Real, 3>[]`, a
/// `std::vector<std::array<Real, 3>>` or a `std::span` of either, without a
/// cast in the caller's code. `Real` may be const for read-only inputs.
template <class Real>
class Points3 {
    using Scalar = std::remove_const_t<Real>;
    using Vec = std::conditional_t<std::is_const_v<Real>, const std::array<Scalar, 3>,
                                   std::array<Scalar, 3>>;
    static_assert(std::is_same_v<Scalar, double> || std::is_same_v<Scalar, float>,
                  "xpbd::Points3 is for double and float");
    static_assert(sizeof(std::array<Scalar, 3>) == 3 * sizeof(Scalar) &&
                      alignof(std::array<Scalar, 3>) == alignof(Scalar),
                  "std::array<Real, 3> must be laid out as Real[3]");

public:
    using Row = Real[3];
    constexpr Points3() noexcept = default;
    constexpr Points3(Row* data, std::size_t count) noexcept : data_(data), count_(count) {}
    template <std::size_t N>
    constexpr Points3(Row (&rows)[N]) noexcept : data_(rows), count_(N) {}
    // std::array<Real, 3> is a standard-layout struct whose only member is
    // Real[3]: its address is that of the array (pointer-interconvertible).
    Points3(Vec* data, std::size_t count) noexcept
        : data_(reinterpret_cast<Row*>(data)), count_(count) {}
    template <std::size_t N>
    Points3(Vec (&rows)[N]) noexcept : Points3(rows, N) {}
    template <std::size_t N>
    Points3(std::array<Vec, N>& rows) noexcept : Points3(rows.data(), N) {}
    template <std::size_t N, class R = Real, class = std::enable_if_t<std::is_const_v<R>>>
    Points3(const std::array<std::array<Scalar, 3>, N>& rows) noexcept : Points3(rows.data(), N) {}
    /// std::vector<std::array<Real, 3>> and other contiguous containers.
    template <class C, class = std::enable_if_t<
                           std::is_convertible_v<decltype(std::declval<C&>().data()), Vec*>>>
    Points3(C& container) noexcept : Points3(container.data(), container.size()) {}
    /// Mutable points convert to read-only ones.
    template <class U, class = std::enable_if_t<std::is_same_v<const U, Real> && !std::is_same_v<U, Real>>>
    constexpr Points3(Points3<U> other) noexcept : data_(other.rows()), count_(other.size()) {}
#ifdef XPBD_HPP_HAS_SPAN
    template <class U, std::size_t E, class = std::enable_if_t<std::is_convertible_v<U*, Vec*>>>
    Points3(std::span<U, E> s) noexcept : Points3(static_cast<Vec*>(s.data()), s.size()) {}
    template <class U, std::size_t E, class = std::enable_if_t<std::is_convertible_v<U*, Row*>>,
              class = void>
    constexpr Points3(std::span<U, E> s) noexcept : data_(s.data()), count_(s.size()) {}
#endif
    /// The C form, `Real (*)[3]`.
    constexpr Row* rows() const noexcept { return data_; }
    /// The flat form the builders take, `Real*` (3 per point).
    constexpr Real* flat() const noexcept { return data_ ? &data_[0][0] : nullptr; }
    constexpr std::size_t size() const noexcept { return count_; }
    constexpr bool empty() const noexcept { return count_ == 0; }
    constexpr Row& operator[](std::size_t k) const noexcept { return data_[k]; }

private:
    Row* data_ = nullptr;
    std::size_t count_ = 0;
};

// ------------------------------------------------------- the C types, per Real

namespace detail {
template <class Real>
struct Api;

#define XPBD_HPP_API(REAL, SUFFIX, TYPE_SUFFIX)                                                    \
    template <>                                                                                     \
    struct Api<REAL> {                                                                              \
        using Link = XpbdLink##TYPE_SUFFIX;                                                         \
        using Distance = XpbdDistanceConstraint##TYPE_SUFFIX;                                       \
        using System3 = XpbdSystem3##TYPE_SUFFIX;                                                   \
        using SweepStats = XpbdSweepStats##TYPE_SUFFIX;                                             \
        using Convergence = XpbdConvergence##TYPE_SUFFIX;                                           \
        using World3 = XpbdWorld3##TYPE_SUFFIX;                                                     \
        using StepConfig3 = XpbdStepConfig3##TYPE_SUFFIX;                                           \
        using StepStats = XpbdStepStats##TYPE_SUFFIX;                                               \
        using Plane3 = XpbdPlane3##TYPE_SUFFIX;                                                     \
        using Sphere3 = XpbdSphere3##TYPE_SUFFIX;                                                   \
        using Contact = XpbdContact##TYPE_SUFFIX;                                                   \
        static XpbdStatus distance_begin(Distance* c) {                                             \
            return xpbd_distance_begin_substep##SUFFIX(c);                                          \
        }                                                                                           \
        static XpbdStatus distance_solve(Distance* c, REAL* a, REAL* b, REAL wa, REAL wb,           \
                                         REAL rest, REAL compliance, REAL dt) {                     \
            return xpbd_distance_solve##SUFFIX(c, a, b, wa, wb, rest, compliance, dt);              \
        }                                                                                           \
        static XpbdStatus rope3(const REAL* x, std::size_t n, REAL alpha, Link* l,                  \
                                std::size_t cap, std::size_t* count) {                              \
            return xpbd_build_rope3##SUFFIX(x, n, alpha, l, cap, count);                            \
        }                                                                                           \
        static XpbdStatus loop3(const REAL* x, std::size_t n, REAL alpha, Link* l,                  \
                                std::size_t cap, std::size_t* count) {                              \
            return xpbd_build_loop3##SUFFIX(x, n, alpha, l, cap, count);                            \
        }                                                                                           \
        static XpbdStatus cloth3(const REAL* x, std::size_t rows, std::size_t cols,                 \
                                 std::int32_t shear, REAL alpha, Link* l, std::size_t cap,          \
                                 std::size_t* count) {                                              \
            return xpbd_build_cloth3##SUFFIX(x, rows, cols, shear, alpha, l, cap, count);           \
        }                                                                                           \
        static XpbdStatus begin(System3* s, REAL h) {                                               \
            return xpbd_system3_begin_substep##SUFFIX(s, h);                                        \
        }                                                                                           \
        static XpbdStatus iterate(System3* s, SweepStats* out) {                                    \
            return xpbd_system3_iterate##SUFFIX(s, out);                                            \
        }                                                                                           \
        static XpbdStatus iterate_until(System3* s, REAL tol, std::uint32_t max, Convergence* out) { \
            return xpbd_system3_iterate_until##SUFFIX(s, tol, max, out);                            \
        }                                                                                           \
        static XpbdStatus measure(System3* s, SweepStats* out) {                                    \
            return xpbd_system3_measure##SUFFIX(s, out);                                            \
        }                                                                                           \
        static StepConfig3 config_default() { return xpbd_step_config3_default##SUFFIX(); }         \
        static XpbdStatus step(World3* w, REAL dt, const StepConfig3* c, StepStats* out) {          \
            return xpbd_world3_step##SUFFIX(w, dt, c, out);                                         \
        }                                                                                           \
    };
XPBD_HPP_API(double, , )
XPBD_HPP_API(float, _f32, F32)
#undef XPBD_HPP_API
}  // namespace detail

/// The C structs for `Real` = double or float: `xpbd::Link<float>` is
/// XpbdLinkF32, `xpbd::StepConfig3<double>` is XpbdStepConfig3, ...
template <class Real> using Link = typename detail::Api<Real>::Link;
template <class Real> using SweepStats = typename detail::Api<Real>::SweepStats;
template <class Real> using Convergence = typename detail::Api<Real>::Convergence;
template <class Real> using StepConfig3 = typename detail::Api<Real>::StepConfig3;
template <class Real> using StepStats = typename detail::Api<Real>::StepStats;
template <class Real> using Plane3 = typename detail::Api<Real>::Plane3;
template <class Real> using Sphere3 = typename detail::Api<Real>::Sphere3;
template <class Real> using Contact = typename detail::Api<Real>::Contact;

/// The library's version, major * 10000 + minor * 100 + patch; equal to
/// XPBD_VERSION_NUMBER when header and library match.
inline std::uint32_t version() noexcept { return xpbd_version(); }
/// Scratch 3-vectors `World3` needs for `particles` particles.
inline std::size_t step_scratch_len(std::size_t particles) noexcept {
    return xpbd_step_scratch_len(particles);
}
/// Links of a rows x cols cloth (with both diagonals per cell if `shear`).
inline std::size_t cloth_link_count(std::size_t rows, std::size_t cols, bool shear) noexcept {
    return xpbd_cloth_link_count(rows, cols, shear ? 1 : 0);
}
/// The default step configuration (xpbd_step_config3_default): gravity
/// (0, -9.81, 0) m/s², 20 substeps (DEFAULT_SUBSTEPS) of 1 iteration
/// (DEFAULT_ITERATIONS), no tolerance, no damping, particle radius 0, rigid
/// frictionless contacts, XPBD_ZERO_LENGTH_REJECT,
/// XPBD_CONTACT_OVERFLOW_REJECT. Set `substeps = 1` for the single-substep
/// behaviour of earlier releases.
template <class Real>
StepConfig3<Real> default_step_config() noexcept {
    return detail::Api<Real>::config_default();
}

// -------------------------------------------------------------- builders ---

/// Links between consecutive particles (rest = current distance, compliance
/// α in m/N, λ = 0); the value is the number written (positions.size() - 1).
template <class Real>
Result<std::size_t> build_rope(Points3<const Real> positions, Real compliance,
                               View<Link<Real>> links) noexcept {
    Result<std::size_t> r;
    r.status = Status(detail::Api<Real>::rope3(positions.flat(), positions.size(), compliance,
                                               links.data(), links.size(), &r.value));
    return r;
}
/// The rope's links plus (n-1, 0); the value is positions.size().
template <class Real>
Result<std::size_t> build_loop(Points3<const Real> positions, Real compliance,
                               View<Link<Real>> links) noexcept {
    Result<std::size_t> r;
    r.status = Status(detail::Api<Real>::loop3(positions.flat(), positions.size(), compliance,
                                               links.data(), links.size(), &r.value));
    return r;
}
/// A rows x cols cloth over row-major positions (rows * cols of them):
/// horizontal, vertical and, with `shear`, diagonal links.
template <class Real>
Result<std::size_t> build_cloth(Points3<const Real> positions, std::size_t rows, std::size_t cols,
                                bool shear, Real compliance, View<Link<Real>> links) noexcept {
    Result<std::size_t> r;
    if (positions.size() != rows * cols) {
        r.status = Status(XPBD_STATUS_INVALID_ARGUMENT);
        return r;
    }
    r.status = Status(detail::Api<Real>::cloth3(positions.flat(), rows, cols, shear ? 1 : 0,
                                                compliance, links.data(), links.size(), &r.value));
    return r;
}

// ------------------------------------------------------------- 1D link ---

/// One 1D distance link and its λ (kg·m): begin_substep() once per substep,
/// solve() once per iteration.
template <class Real>
class DistanceConstraint {
public:
    DistanceConstraint() noexcept : c_() {}
    Status begin_substep() noexcept { return Status(detail::Api<Real>::distance_begin(&c_)); }
    Status solve(Real& a, Real& b, Real wa, Real wb, Real rest, Real compliance, Real h) noexcept {
        return Status(detail::Api<Real>::distance_solve(&c_, &a, &b, wa, wb, rest, compliance, h));
    }
    Real lambda() const noexcept { return c_.lambda; }
    typename detail::Api<Real>::Distance& c() noexcept { return c_; }

private:
    typename detail::Api<Real>::Distance c_;
};

// --------------------------------------------------------------- systems ---

/// Links over 3D particles, solved by the caller's loop: begin_substep(h)
/// validates everything, resets every λ (the only reset) and fixes h;
/// iterate() sweeps every link once, keeping λ.
template <class Real>
class System3 {
public:
    System3(Points3<Real> positions, View<const Real> inverse_masses,
            View<Link<Real>> links) noexcept
        : s_() {
        s_.positions = positions.rows();
        s_.inverse_masses = inverse_masses.data();
        s_.particle_count = positions.size();
        s_.links = links.data();
        s_.link_count = links.size();
        s_.zero_length_policy = XPBD_ZERO_LENGTH_REJECT;
        // The C struct has one particle count: the weights must match it.
        counts_match_ = inverse_masses.size() == positions.size();
    }
    /// XPBD_STATUS_INVALID_ARGUMENT if the views' particle counts differ.
    Status begin_substep(Real h) noexcept {
        if (!counts_match_) return Status(XPBD_STATUS_INVALID_ARGUMENT);
        return Status(detail::Api<Real>::begin(&s_, h));
    }
    Result<SweepStats<Real>> iterate() noexcept {
        Result<SweepStats<Real>> r;
        r.status = Status(detail::Api<Real>::iterate(&s_, &r.value));
        return r;
    }
    Result<Convergence<Real>> iterate_until(Real tolerance, std::uint32_t max_iterations) noexcept {
        Result<Convergence<Real>> r;
        r.status = Status(detail::Api<Real>::iterate_until(&s_, tolerance, max_iterations, &r.value));
        return r;
    }
    Result<SweepStats<Real>> measure() noexcept {
        Result<SweepStats<Real>> r;
        r.status = Status(detail::Api<Real>::measure(&s_, &r.value));
        return r;
    }
    /// The particle or link of the last error.
    std::size_t error_index() const noexcept { return s_.error_index; }
    typename detail::Api<Real>::System3& c() noexcept { return s_; }

private:
    typename detail::Api<Real>::System3 s_;
    bool counts_match_;
};

// ----------------------------------------------------------------- world ---

/// Everything one frame step reads and writes; every buffer is the caller's.
template <class Real>
struct WorldBuffers {
    Points3<Real> positions;          // m
    Points3<Real> velocities;         // m/s, one per particle
    View<const Real> inverse_masses;  // 1/kg, one per particle (0 = pinned)
    View<Link<Real>> links;
    Points3<Real> scratch;            // step_scratch_len(particles) entries
    View<const Plane3<Real>> planes = {};
    View<const Sphere3<Real>> spheres = {};
    View<Contact<Real>> contacts = {};  // room for the contacts of a substep
};

/// A frame stepper: per substep it predicts, resets λ once, sweeps the links
/// and contacts `config.iterations` times and updates the velocities. An
/// error leaves positions and velocities as they were.
template <class Real>
class World3 {
public:
    explicit World3(const WorldBuffers<Real>& b) noexcept : w_() {
        w_.positions = b.positions.rows();
        w_.velocities = b.velocities.rows();
        w_.inverse_masses = b.inverse_masses.data();
        w_.particle_count = b.positions.size();
        w_.links = b.links.data();
        w_.link_count = b.links.size();
        w_.planes = b.planes.data();
        w_.plane_count = b.planes.size();
        w_.spheres = b.spheres.data();
        w_.sphere_count = b.spheres.size();
        w_.contacts = b.contacts.data();
        w_.contact_capacity = b.contacts.size();
        w_.scratch = b.scratch.rows();
        w_.scratch_count = b.scratch.size();
        // The C struct has one particle count: velocities and weights must
        // match it.
        counts_match_ = b.velocities.size() == b.positions.size() &&
                        b.inverse_masses.size() == b.positions.size();
    }
    /// One frame of `dt` seconds; `stats` (optional) is written on success.
    /// XPBD_STATUS_INVALID_ARGUMENT if the views' particle counts differ.
    Status step(Real dt, const StepConfig3<Real>& config, StepStats<Real>* stats = nullptr) noexcept {
        if (!counts_match_) return Status(XPBD_STATUS_INVALID_ARGUMENT);
        return Status(detail::Api<Real>::step(&w_, dt, &config, stats));
    }
    /// The particle, link, collider or contact of the last error.
    std::size_t error_index() const noexcept { return w_.error_index; }
    typename detail::Api<Real>::World3& c() noexcept { return w_; }

private:
    typename detail::Api<Real>::World3 w_;
    bool counts_match_;
};

}  // namespace xpbd

#endif  // XPBD_HPP
