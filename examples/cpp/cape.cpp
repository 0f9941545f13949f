// Character cloth (issue 35) through include/xpbd.hpp, the C++17 layer: the
// scene and checks of examples/character_cloth.rs, figure for figure. A cape
// on a capsule character that runs a circle at 6 m/s, turns, hops and
// teleports, simulated in the character's frame (World::set_local_space,
// inertia 0.8) with skinned max distances and backstops
// (set_skin_constraints), the body as a capsule collider and a wind
// (set_wind); then the checks: the limits at α = 0, inertia 0 and 1, the
// teleport, a plate's terminal velocity and a flag at three frame rates.
//   c++ -std=c++17 -Iinclude examples/cpp/cape.cpp target/release/c/libxpbd.a -o cape
// Exit status 0 when every check holds. The models: docs/character-cloth.md.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "xpbd.hpp"

namespace {

using Vec3 = std::array<double, 3>;
using Transform = xpbd::Transform<double>;
constexpr double dt = 1.0 / 60;
constexpr std::size_t cols = 8, rows = 10;

// A step or a builder that fails ends the program (the checks need every frame).
void must(const xpbd::Result& r, const char* what) {
    if (r) return;
    std::printf("%s: %s (%s %zu)\n", what, r.message(), r.field_name(), r.index());
    std::exit(1);
}

// A turn of `angle` (rad) about the unit `axis`: {x, y, z, w}.
std::array<double, 4> turn(const Vec3& axis, double angle) {
    const double s = std::sin(angle / 2), c = std::cos(angle / 2);
    return {axis[0] * s, axis[1] * s, axis[2] * s, c};
}
Transform transform(const std::array<double, 4>& q, const Vec3& c) {
    return Transform{{q[0], q[1], q[2], q[3]}, {c[0], c[1], c[2]}};
}
// R(q) v + c: a local point in the world.
Vec3 place(const Transform& t, const Vec3& v) {
    const double x = t.rotation[0], y = t.rotation[1], z = t.rotation[2], w = t.rotation[3];
    const double m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                            {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                            {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    Vec3 p;
    for (int i = 0; i < 3; ++i) p[i] = m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2] + t.translation[i];
    return p;
}
double distance(const Vec3& a, const Vec3& b) {
    double s = 0;
    for (int i = 0; i < 3; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
    return std::sqrt(s);
}

// The character's root at frame k: a circle of radius 3 m at 6 m/s (heading
// along the velocity), back the other way from frame 240, a 0.5 s hop every
// 1.5 s, a 10 m teleport at frame 400.
Transform root(int k) {
    const double t = k * dt, back = 240 * dt;
    const double angle = t < back ? 2 * t : 4 * back - 2 * t;
    const double hop = std::fmod(t, 1.5);
    const double y = hop < 0.5 ? 4.9 * hop * (0.5 - hop) : 0.0;
    return transform(turn({0, 1, 0}, -angle), {3 * std::cos(angle) + (k >= 400 ? 10.0 : 0.0), y,
                                               3 * std::sin(angle)});
}

// StepConfig::new of the Rust example: no damping, radius or friction.
xpbd::Config<double> bare() {
    xpbd::Config<double> c;
    c.damping = c.particle_radius = c.static_friction = c.dynamic_friction = 0;
    return c;
}

// The library's memory for a world made anew each frame (as the Rust
// example makes its World), grown to what the world needs.
struct Memory {
    std::vector<std::uint64_t> bytes;
    void step(xpbd::World<double>& world, double h, const xpbd::Config<double>& config, const char* what) {
        const auto need = world.requirements();
        must(need, what);
        if (bytes.size() * 8 < need.value.memory_size) bytes.assign(need.value.memory_size / 8 + 1, 0);
        must(world.set_memory(bytes).step(h, config), what);
    }
};

// Two wind triangles per cell of an n x m grid.
std::vector<xpbd::AeroTriangle<double>> sail(std::size_t n, std::size_t m) {
    std::vector<xpbd::AeroTriangle<double>> t;
    for (std::uint32_t j = 0; j + 1 < n; ++j) {
        for (std::uint32_t i = 0; i + 1 < m; ++i) {
            const std::uint32_t k = j * std::uint32_t(m) + i, r = k + 1, d = k + std::uint32_t(m);
            t.push_back(xpbd::aero_triangle<double>(k, r, d + 1));
            t.push_back(xpbd::aero_triangle<double>(k, d + 1, d));
        }
    }
    return t;
}

// The body: a capsule from the hips to the shoulders, radius 0.18 m.
const xpbd::Capsule3<double> body[] = {{{0, 1.1, 0}, {0, 0.35, 0}, 0.18, {0, 0, 0}, {0, 0, 0}, 0, 0}};

// The cape in the character's frame: 8 x 10 particles 5 cm apart from the
// shoulders (y 1.5 m) down, 0.25 m behind the body's axis (-z), 50 g each;
// the top row pinned, the others within 4 cm per row of their skinned
// point and at most 2 cm nearer the body (a backstop sphere of 1 m).
struct Cape {
    std::vector<Vec3> x, v;
    std::vector<double> w;
    std::vector<xpbd::Link<double>> links;
    std::vector<xpbd::SkinConstraint<double>> skin;
    std::vector<xpbd::AeroTriangle<double>> triangles = sail(rows, cols);
    xpbd::LocalSpace<double> local = xpbd::local_space<double>();
    Vec3 wind = {4, 0, 1};  // m/s, world
    bool dressed = true;    // the skinned limits and the body act
    Memory memory;

    explicit Cape(double inertia) : x(rows * cols), v(rows * cols), w(rows * cols, 1 / 0.05) {
        for (std::size_t k = 0; k < x.size(); ++k)
            x[k] = {0.05 * double(k % cols) - 0.175, 1.5 - 0.05 * double(k / cols), -0.25};
        links.resize(xpbd::cloth_link_count(rows, cols, true));
        must(xpbd::build_cloth(x, rows, cols, true, 0.0, links), "build_cloth");
        std::fill(w.begin(), w.begin() + cols, 0.0);
        for (std::size_t k = cols; k < x.size(); ++k) {
            auto c = xpbd::skin_constraint(std::uint32_t(k), x[k], {0, 0, -1});
            c.max_distance = 0.04 * double(k / cols);
            c.backstop_distance = -0.02;
            c.backstop_radius = 1.0;
            skin.push_back(c);
        }
        local.previous = local.target = root(0);
        local.linear_inertia = local.angular_inertia = inertia;
    }
    // The cape without pins, limits or body, falling free (no wind).
    static Cape free() {
        Cape c(1.0);
        std::fill(c.w.begin(), c.w.end(), 1 / 0.05);
        c.dressed = false;
        c.wind = {0, 0, 0};
        return c;
    }
    // One frame in the root's frame moving to `target` (null: in world
    // space); the wind always on (still air drags too).
    void frame(const Transform* target, bool teleport) {
        xpbd::Config<double> config;  // the defaults, 12 substeps
        config.substeps = 12;
        config.particle_radius = 0.01;
        xpbd::World<double> world(x, v, w, links);
        world.set_wind(triangles, wind);
        if (dressed) world.set_capsules(body).set_skin_constraints(skin);
        if (target) {
            local.target = *target;
            local.teleport = teleport ? 1 : 0;
            world.set_local_space(local);
        }
        memory.step(world, dt, config, "a cape frame");
    }
    // The worst excess over the max distances and the deepest point inside
    // a backstop sphere (m).
    std::pair<double, double> limits() const {
        double over = 0, inside = 0;
        for (const auto& c : skin) {
            const Vec3& p = x[c.particle];
            const Vec3 target = {c.target[0], c.target[1], c.target[2]};
            over = std::max(over, distance(p, target) - c.max_distance);
            Vec3 centre;
            for (int i = 0; i < 3; ++i)
                centre[i] = c.target[i] - c.target_normal[i] * (c.backstop_distance + c.backstop_radius);
            inside = std::max(inside, c.backstop_radius - distance(p, centre));
        }
        return {over, inside};
    }
};

// The running cape: the worst limits over 600 frames.
std::pair<double, double> run_cape() {
    Cape cape(0.8);
    double over = 0, inside = 0;
    for (int k = 1; k <= 600; ++k) {
        const Transform r = root(k);
        cape.frame(&r, k == 400);
        const auto [o, i] = cape.limits();
        over = std::max(over, o), inside = std::max(inside, i);
    }
    return {over, inside};
}

// A compliant max distance of radius 0 holding a 1 kg particle: its sag
// after 2 s (λ kept: α m g whatever the iterations).
double sag(std::uint32_t iterations) {
    std::vector<Vec3> x(1), v(1);
    const double w[] = {1};
    xpbd::SkinConstraint<double> skin[] = {xpbd::skin_constraint<double>(0, {0, 0, 0}, {0, 1, 0})};
    skin[0].max_distance = 0;
    skin[0].compliance = 1e-4;
    auto config = bare();
    config.iterations = iterations;
    config.damping = 5;
    Memory memory;
    for (int k = 0; k < 120; ++k) {
        xpbd::World<double> world(x, v, w);
        world.set_skin_constraints(skin);
        memory.step(world, dt, config, "a hanging frame");
    }
    return -x[0][1];
}

// Inertia 0: the running cape's local positions and velocities against a
// still root's after every frame (no wind: a world wind turns with the
// root), bit for bit.
bool inertia_zero() {
    Cape still(0.0), running(0.0);
    still.local.previous = xpbd::identity_transform<double>();
    still.wind = running.wind = {0, 0, 0};
    const Transform id = xpbd::identity_transform<double>();
    for (int k = 1; k <= 600; ++k) {
        const Transform r = root(k);
        still.frame(&id, false);
        running.frame(&r, k == 400);
        if (still.x != running.x || still.v != running.v) return false;
    }
    return true;
}

// A root that accelerates along a curve and tumbles about a tilted axis.
Transform tumbling(int k) {
    const double t = k * dt;
    return transform(turn({0.48, 0.6, 0.64}, 1.5 * t + 0.8 * t * t), {2 * t * t, std::sin(3 * t), -t});
}

// Inertia 1: the free cape in the tumbling root against the same cape in
// world space; the worst distance over 120 frames (m).
double inertia_one() {
    Cape local = Cape::free(), world = Cape::free();
    local.local = xpbd::local_space<double>();
    local.local.previous = local.local.target = tumbling(0);
    for (std::size_t k = 0; k < world.x.size(); ++k) world.x[k] = place(tumbling(0), local.x[k]);
    double worst = 0;
    for (int k = 1; k <= 120; ++k) {
        const Transform t = tumbling(k);
        local.frame(&t, false);
        world.frame(nullptr, false);
        for (std::size_t p = 0; p < world.x.size(); ++p)
            worst = std::max(worst, distance(place(t, local.x[p]), world.x[p]));
    }
    return worst;
}

// Teleport: the cape (inertia 1, no wind) after a frame that jumps 100 m and
// turns half round with `teleport`, against a frame with a still root; the
// largest difference of the local positions (m).
double teleport() {
    auto run = [](bool jump) {
        Cape c(1.0);
        c.wind = {0, 0, 0};
        for (int k = 1; k <= 90; ++k) {
            const Transform r = root(k);
            c.frame(&r, false);
        }
        const Transform target = jump ? transform(turn({0, 1, 0}, 3.0), {100, 5, -40}) : c.local.target;
        c.frame(&target, jump);
        return c.x;
    };
    const auto a = run(true), b = run(false);
    double worst = 0;
    for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, distance(a[k], b[k]));
    return worst;
}

// Wind: a 0.5 m x 0.5 m, 10 g plate falling face-first (drag 1.2, no lift)
// for 1 s: its speed, and sqrt(2mg/(ρ C_d A)).
std::pair<double, double> terminal() {
    std::vector<Vec3> x = {Vec3{0, 0, 0}, Vec3{0.5, 0, 0}, Vec3{0, 0, 0.5}, Vec3{0.5, 0, 0.5}}, v(4);
    const std::vector<double> w(4, 400.0);
    std::vector<xpbd::Link<double>> links(xpbd::cloth_link_count(2, 2, true));
    must(xpbd::build_cloth(x, 2, 2, true, 0.0, links), "build_cloth");
    xpbd::AeroTriangle<double> triangles[] = {xpbd::aero_triangle<double>(0, 1, 3),
                                              xpbd::aero_triangle<double>(0, 3, 2)};
    for (auto& t : triangles) t.lift = 0;
    Memory memory;
    for (int k = 0; k < 60; ++k) {
        xpbd::World<double> world(x, v, w, links);
        world.set_wind(triangles, {0, 0, 0});
        memory.step(world, dt, bare(), "a plate frame");
    }
    double sum = 0;
    for (const Vec3& u : v) sum += u[1];
    return {-sum / 4, std::sqrt(2 * 0.01 * 9.81 / (1.225 * 1.2 * 0.25))};
}

// Wind: a flag on a pole in a wind of (8, 0, 1) m/s with h = 1/960 s at 30,
// 60 and 120 frames per second (32, 16, 8 substeps), 6 s: the mean tip over
// the last second; the largest distance between them (m).
double flag() {
    std::vector<Vec3> means;
    for (const int rate : {30, 60, 120}) {
        const std::size_t n = 6, m = 10;  // rows, columns
        std::vector<Vec3> x(n * m), v(n * m);
        std::vector<double> w(n * m);
        for (std::size_t k = 0; k < x.size(); ++k) {
            x[k] = {0.05 * double(k % m), 1.0 - 0.05 * double(k / m), 0};
            w[k] = k % m == 0 ? 0 : 500;  // the pole
        }
        std::vector<xpbd::Link<double>> links(xpbd::cloth_link_count(n, m, true));
        must(xpbd::build_cloth(x, n, m, true, 0.0, links), "build_cloth");
        const auto triangles = sail(n, m);
        auto config = bare();
        config.substeps = std::uint32_t(960 / rate);
        config.damping = 2;
        Memory memory;
        Vec3 sum = {0, 0, 0};
        for (int k = 1; k <= 6 * rate; ++k) {
            xpbd::World<double> world(x, v, w, links);
            world.set_wind(triangles, {8, 0, 1});
            memory.step(world, 1.0 / rate, config, "a flag frame");
            if (k > 5 * rate)
                for (int i = 0; i < 3; ++i) sum[i] += x[3 * m + m - 1][i] / rate;
        }
        means.push_back(sum);
    }
    double worst = 0;
    for (const Vec3& m : means) worst = std::max(worst, distance(m, means[0]));
    return worst;
}

// Rust's {:.Ne}: 1.110e-16, 0.000e0.
std::string sci(double value, int digits) {
    char s[64];
    std::snprintf(s, sizeof s, "%.*e", digits, value);
    std::string out(s);
    const std::size_t e = out.find('e');
    return out.substr(0, e + 1) + std::to_string(std::atoi(s + e + 1));
}

int failed = 0;
void check(bool ok) { failed += ok ? 0 : 1; }

}  // namespace

int main() {
    std::printf("xpbd %s through xpbd.hpp\n", XPBD_VERSION_STRING);
    const auto [over, inside] = run_cape();
    std::printf("character cloth (issue 35): an 8 × 10 cape, 600 frames at 60 Hz, 12 substeps\n");
    std::printf("max distance, α = 0: worst excess after a frame %s m (bound 1e-9 m)\n", sci(over, 3).c_str());
    check(over <= 1e-9);
    std::printf("backstop, α = 0: deepest point inside a sphere %s m (bound 1e-9 m)\n", sci(inside, 3).c_str());
    check(inside <= 1e-9);
    const double sags[] = {sag(1), sag(8), sag(32)};
    std::printf("compliant max distance (α = 1e-4 m/N, 1 kg): sag %.9f / %.9f / %.9f m for 1 / 8 / 32 "
                "iterations (α m g = %.9f m)\n", sags[0], sags[1], sags[2], 1e-4 * 9.81);
    for (const double s : sags) check(std::fabs(s - 1e-4 * 9.81) < 1e-9);
    const bool rigid = inertia_zero();
    std::printf("inertia 0: local positions unchanged by the run, turns, hops and teleport: %s\n",
                rigid ? "yes, bit for bit" : "no");
    check(rigid);
    const double one = inertia_one();
    std::printf("inertia 1: a free cape in a tumbling root against world space: %s m (bound 1e-9 m)\n",
                sci(one, 3).c_str());
    check(one < 1e-9);
    const double jump = teleport();
    std::printf("teleport (100 m, half a turn): local shape against a still root: %s m (bound 1e-12 m)\n",
                sci(jump, 3).c_str());
    check(jump < 1e-12);
    const auto [speed, analytic] = terminal();
    const double error = (speed / analytic - 1) * 100;
    std::printf("wind: a face-first plate falls at %.6f m/s, sqrt(2mg/(ρ C_d A)) = %.6f m/s (%+.3f %%)\n", speed,
                analytic, error);
    check(std::fabs(error) < 1);
    const double spread = flag();
    std::printf("wind: a flag's mean tip over the last second at 30, 60 and 120 Hz (same h) agrees within %s m "
                "(bound 1e-3 m)\n", sci(spread, 2).c_str());
    check(spread < 1e-3);
    if (failed != 0) return std::printf("%d checks failed\n", failed), 1;
    std::printf("ok\n");
    return 0;
}
