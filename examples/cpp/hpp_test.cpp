// Tests of include/xpbd.hpp, the C++17 layer: every wrapper gives the C
// API's result bit for bit, views convert without casts, errors are values.
// Built by .ci/steps/33-cpp.sh with g++ and clang++, C++17 and C++20,
// -Wall -Wextra -Wpedantic -Werror, with and without -fno-exceptions:
//   c++ -std=c++17 -Iinclude examples/cpp/hpp_test.cpp target/release/c/libxpbd.a -o hpp_test
#include <array>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "xpbd.hpp"

// The C call the World3 test compares with.
bool detail_step(XpbdWorld3& c, const XpbdStepConfig3& config) {
    return xpbd_world3_step(&c, 1.0 / 60, &config, nullptr) == XPBD_STATUS_OK;
}
bool detail_step(XpbdWorld3F32& c, const XpbdStepConfig3F32& config) {
    return xpbd_world3_step_f32(&c, 1.0f / 60, &config, nullptr) == XPBD_STATUS_OK;
}

namespace {

int passed = 0, failed = 0;

void check(bool ok, const char* what, int line) {
    if (ok) {
        ++passed;
    } else {
        ++failed;
        std::printf("FAILED line %d: %s\n", line, what);
    }
}
#define CHECK(e) check((e), #e, __LINE__)

template <class T>
bool same_bits(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Links field by field (their tail padding is not compared).
template <class L>
bool same_links(const L* a, const L* b, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
        if (a[k].i != b[k].i || a[k].j != b[k].j || !same_bits(a[k].rest, b[k].rest) ||
            !same_bits(a[k].compliance, b[k].compliance) || !same_bits(a[k].lambda, b[k].lambda) ||
            a[k].flags != b[k].flags)
            return false;
    }
    return true;
}

static_assert(std::is_same_v<xpbd::Link<double>, XpbdLink>);
static_assert(std::is_same_v<xpbd::Link<float>, XpbdLinkF32>);
static_assert(std::is_same_v<xpbd::StepConfig3<float>, XpbdStepConfig3F32>);
static_assert(std::is_same_v<xpbd::Sphere3<double>, XpbdSphere3>);
static_assert(!std::is_convertible_v<xpbd::Status, int>, "a status is no int");
static_assert(xpbd::Status().ok() && xpbd::Status(XPBD_STATUS_SKIPPED).ok() &&
              !xpbd::Status(XPBD_STATUS_INVALID_TIME_STEP).ok());

// The seed's four figures through DistanceConstraint.
template <class Real>
Real residual_after(int n, bool reset_every_iteration, Real h) {
    xpbd::DistanceConstraint<Real> link;
    Real a = 0, b = 2;
    CHECK(link.begin_substep().ok());
    for (int k = 0; k < n; ++k) {
        if (reset_every_iteration) CHECK(link.begin_substep().ok());  // the bug, on purpose
        CHECK(link.solve(a, b, 1, 1, 1, Real(0.01), h).ok());
    }
    return b - a - 1;
}

void golden() {
    CHECK(residual_after<double>(1, false, 0.1) == 0.3333333333333335);
    CHECK(residual_after<double>(10, false, 0.1) == 0.3333333333333335);
    CHECK(residual_after<double>(10, true, 0.1) == 1.6935087808533922e-05);
    CHECK(residual_after<double>(1, false, 0.05) == 0.6666666666666665);
    XpbdDistanceConstraintF32 c{};
    float a = 0, b = 2;
    for (int k = 0; k < 10; ++k) (void)xpbd_distance_solve_f32(&c, &a, &b, 1, 1, 1, 0.01f, 0.1f);
    CHECK(residual_after<float>(10, false, 0.1f) == b - a - 1);

    xpbd::DistanceConstraint<double> link;
    double a2 = 0, b2 = 2;
    const xpbd::Status s = link.solve(a2, b2, 1, 1, 1, 0.01, 0.0);
    CHECK(s == XPBD_STATUS_INVALID_TIME_STEP && !s && a2 == 0 && b2 == 2);
    CHECK(s.message() != nullptr && std::strlen(s.message()) > 0);
    CHECK(link.solve(a2, b2, 0, 0, 1, 0.01, 0.1).skipped());  // both static
}

// One rope from every kind of buffer: the links are the same bits.
void views() {
    constexpr std::size_t n = 5;
    double raw[n][3] = {};
    std::array<std::array<double, 3>, n> arr{};
    std::vector<std::array<double, 3>> vec(n);
    std::array<double, 3> plain[n] = {};
    for (std::size_t k = 0; k < n; ++k) {
        raw[k][0] = arr[k][0] = vec[k][0] = plain[k][0] = 0.1 * double(k);
        raw[k][1] = arr[k][1] = vec[k][1] = plain[k][1] = 0.01 * double(k * k);
    }
    XpbdLink want[n - 1], got[n - 1];
    std::size_t count = 0;
    CHECK(xpbd_build_rope3(&raw[0][0], n, 1e-4, want, n - 1, &count) == XPBD_STATUS_OK);
    CHECK(count == n - 1);
    const auto same = [&](const xpbd::Result<std::size_t>& r) {
        return r.ok() && r.value == n - 1 && same_links(want, got, n - 1);
    };
    std::memset(got, 0xff, sizeof got);
    CHECK(same(xpbd::build_rope<double>(raw, 1e-4, got)));
    std::memset(got, 0xff, sizeof got);
    CHECK(same(xpbd::build_rope<double>(arr, 1e-4, got)));
    std::memset(got, 0xff, sizeof got);
    CHECK(same(xpbd::build_rope<double>(vec, 1e-4, got)));
    std::memset(got, 0xff, sizeof got);
    CHECK(same(xpbd::build_rope<double>(plain, 1e-4, got)));
    std::vector<XpbdLink> links(n - 1);
    CHECK(xpbd::build_rope<double>(vec, 1e-4, links).ok() && same_links(want, links.data(), n - 1));
#ifdef XPBD_HPP_HAS_SPAN
    std::memset(got, 0xff, sizeof got);
    CHECK(same(xpbd::build_rope<double>(std::span<std::array<double, 3>>(vec), 1e-4,
                                        std::span<XpbdLink>(got))));
    std::memset(got, 0xff, sizeof got);
    CHECK(same(xpbd::build_rope<double>(std::span<const double[3]>(raw), 1e-4, got)));
#endif
    // Too little room: an error, nothing written.
    XpbdLink small[2];
    std::memset(small, 0, sizeof small);
    const auto r = xpbd::build_rope<double>(raw, 1e-4, small);
    CHECK(!r && r.status == XPBD_STATUS_CAPACITY_TOO_SMALL && small[0].rest == 0);

    // Cloth: the count matches cloth_link_count; a wrong particle count is
    // caught before the call.
    std::vector<std::array<float, 3>> grid(12);
    for (std::size_t k = 0; k < grid.size(); ++k) grid[k] = {0.1f * float(k % 4), 0, 0.1f * float(k / 4)};
    std::vector<XpbdLinkF32> cl(xpbd::cloth_link_count(3, 4, true));
    const auto c = xpbd::build_cloth<float>(grid, 3, 4, true, 1e-6f, cl);
    CHECK(c.ok() && c.value == cl.size());
    CHECK(xpbd::build_cloth<float>(grid, 4, 4, true, 1e-6f, cl).status == XPBD_STATUS_INVALID_ARGUMENT);
}

// System3: the λ lifecycle in the caller's loop, against the C functions.
void system() {
    double x[3][3] = {{0, 0, 0}, {0.1, 0, 0}, {0.2, 0, 0}};
    double y[3][3];
    const double w[3] = {0, 1, 1};
    XpbdLink links[2], links_c[2];
    CHECK(xpbd::build_rope<double>(x, 1e-4, links).ok());
    x[2][0] = 0.3;
    std::memcpy(y, x, sizeof x);
    std::memcpy(links_c, links, sizeof links);

    xpbd::System3<double> sys(x, w, links);
    CHECK(sys.iterate().status == XPBD_STATUS_NO_SUBSTEP);  // begin_substep first
    CHECK(sys.begin_substep(1.0 / 240).ok());
    const auto conv = sys.iterate_until(1e-12, 50);
    CHECK(conv.ok() && conv.value.converged == 1);

    XpbdSystem3 c{};
    c.positions = y;
    c.inverse_masses = w;
    c.particle_count = 3;
    c.links = links_c;
    c.link_count = 2;
    XpbdConvergence cc{};
    CHECK(xpbd_system3_begin_substep(&c, 1.0 / 240) == XPBD_STATUS_OK);
    CHECK(xpbd_system3_iterate_until(&c, 1e-12, 50, &cc) == XPBD_STATUS_OK);
    CHECK(same_bits(x, y) && same_links(links, links_c, 2) && conv.value.iterations == cc.iterations);
    CHECK(links[0].lambda != 0.0);
    CHECK(sys.begin_substep(1.0 / 240).ok() && links[0].lambda == 0.0 && links[1].lambda == 0.0);
    const auto m = sys.measure();
    CHECK(m.ok() && m.value.applied == 2 && m.value.max_abs_c > 0);  // λ = 0: the stretch shows
    CHECK(sys.begin_substep(-1.0) == XPBD_STATUS_INVALID_TIME_STEP);

    const double w2[2] = {0, 1};
    xpbd::System3<double> bad(x, w2, links);
    CHECK(bad.begin_substep(0.01) == XPBD_STATUS_INVALID_ARGUMENT);
}

// World3: 120 frames of a hanging rope, bit for bit the C call's result.
template <class Real>
void world() {
    constexpr std::size_t n = 8;
    std::vector<std::array<Real, 3>> x(n), v(n), scratch(xpbd::step_scratch_len(n));
    std::vector<Real> w(n, Real(10));
    w[0] = 0;
    for (std::size_t k = 0; k < n; ++k) x[k] = {Real(0.1) * Real(k), 0, 0};
    std::vector<xpbd::Link<Real>> links(n - 1);
    CHECK(xpbd::build_rope<Real>(x, Real(1e-5), links).ok());
    const xpbd::Sphere3<Real> ball[1] = {{{Real(0.3), Real(-0.4), 0}, Real(0.1)}};
    xpbd::Contact<Real> contacts[n];

    auto x2 = x, v2 = v, scratch2 = scratch;
    auto links2 = links;
    xpbd::Contact<Real> contacts2[n];

    auto config = xpbd::default_step_config<Real>();
    config.substeps = 8;
    config.iterations = 2;
    config.particle_radius = Real(0.01);

    xpbd::WorldBuffers<Real> b;
    b.positions = x;
    b.velocities = v;
    b.inverse_masses = w;
    b.links = links;
    b.scratch = scratch;
    b.spheres = ball;
    b.contacts = contacts;
    xpbd::World3<Real> world(b);

    typename xpbd::detail::Api<Real>::World3 c{};
    c.positions = reinterpret_cast<Real(*)[3]>(x2.data());
    c.velocities = reinterpret_cast<Real(*)[3]>(v2.data());
    c.inverse_masses = w.data();
    c.particle_count = n;
    c.links = links2.data();
    c.link_count = n - 1;
    c.spheres = ball;
    c.sphere_count = 1;
    c.contacts = contacts2;
    c.contact_capacity = n;
    c.scratch = reinterpret_cast<Real(*)[3]>(scratch2.data());
    c.scratch_count = scratch2.size();

    bool all_ok = true;
    xpbd::StepStats<Real> stats{};
    for (int f = 0; f < 120; ++f) {
        all_ok = all_ok && world.step(Real(1) / 60, config, &stats).ok();
        all_ok = all_ok && detail_step(c, config);
    }
    CHECK(all_ok && stats.substeps == 8);
    CHECK(std::memcmp(x.data(), x2.data(), n * sizeof x[0]) == 0);
    CHECK(std::memcmp(v.data(), v2.data(), n * sizeof v[0]) == 0);
    CHECK(x[0][0] == 0 && x[0][1] == 0 && x[n - 1][1] < Real(-0.2));

    // A rejected step: the status says why, nothing moves.
    const auto before = x;
    CHECK(world.step(0, config) == XPBD_STATUS_INVALID_TIME_STEP && x == before);
    config.substeps = 0;
    CHECK(world.step(Real(1) / 60, config) == XPBD_STATUS_INVALID_ARGUMENT && x == before);

    xpbd::WorldBuffers<Real> short_v = b;
    short_v.velocities = xpbd::Points3<Real>(v.data(), n - 1);
    xpbd::World3<Real> bad(short_v);
    CHECK(bad.step(Real(1) / 60, xpbd::default_step_config<Real>()) == XPBD_STATUS_INVALID_ARGUMENT);
}

}  // namespace

int main() {
    CHECK(xpbd::version() == XPBD_VERSION_NUMBER);
    golden();
    views();
    system();
    world<double>();
    world<float>();
    std::printf("xpbd.hpp (C++%ld): %d passed, %d failed\n", long(__cplusplus / 100 % 100), passed, failed);
    return failed == 0 ? 0 : 1;
}
