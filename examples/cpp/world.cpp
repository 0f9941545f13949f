// The hanging rope of rope.cpp through include/xpbd.hpp, the C++17 layer:
// std::vector buffers handed over as views (no casts), results as values
// (no exceptions), every buffer the caller's, the world's memory too (no
// heap inside xpbd).
//
//   c++ -std=c++17 -Iinclude examples/cpp/world.cpp target/release/c/libxpbd.a -o world
//
// Particle 0 pinned, 8 particles 0.1 m apart on a slanted line, tension-only
// links; after 10 s at 60 Hz link i stretches by α·m·g·(particles below it)
// and the tip hangs right below the pin. Exit status 0 when both hold.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "xpbd.hpp"

int main() {
    using Vec3 = std::array<double, 3>;
    const std::size_t n = 8;
    const double mass = 0.1, compliance = 1e-3;  // kg per free particle, m/N
    std::vector<Vec3> x(n), v(n);
    std::vector<double> w(n, 1.0 / mass);
    w[0] = 0.0;                                   // pinned
    for (std::size_t k = 0; k < n; ++k) x[k] = {0.06 * double(k), 0.0, 0.08 * double(k)};
    std::vector<xpbd::Link<double>> links(n - 1);

    const auto built = xpbd::build_rope(x, compliance, links);
    if (!built) {
        std::fprintf(stderr, "build_rope: %s\n", built.message());
        return 1;
    }
    for (auto& link : links) link.flags = XPBD_LINK_TENSION_ONLY;

    xpbd::World<double> world(x, v, w, links);  // no feature: particles and links only
    std::vector<std::uint64_t> memory(world.requirements().value.memory_size / 8 + 1);
    world.set_memory(memory);                     // the library's scratch, 8-aligned
    xpbd::Config<double> config;                  // g = (0, -9.81, 0) m/s², 20 substeps
    config.substeps = 8;
    config.iterations = 20;
    config.tolerance = 1e-9;
    config.damping = 2.0;

    for (int frame = 0; frame < 600; ++frame) {
        if (const auto r = world.step(1.0 / 60.0, config); !r) {
            std::fprintf(stderr, "step: %s (index %zu, field '%s')\n", r.message(), r.index(),
                         r.field_name());
            return 1;
        }
    }
    bool good = true;
    for (std::size_t i = 0; i + 1 < n; ++i) {
        const Vec3& a = x[i];
        const Vec3& b = x[i + 1];
        const double stretch = std::hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]) - 0.1;
        const double want = compliance * mass * 9.81 * double(n - 1 - i);
        good = good && std::fabs(stretch - want) <= 0.01 * want;
    }
    const double off = std::hypot(x[n - 1][0], x[n - 1][2]);
    std::printf("xpbd %s (C++17 layer): tip %.4f m below the pin, %.1e m off the vertical; %s\n",
                XPBD_VERSION_STRING, -x[n - 1][1], off, good && off < 1e-4 ? "ok" : "MISMATCH");

    // A rejected call changes nothing and says why: the status and the field.
    config.substeps = 0;
    const Vec3 tip = x[n - 1];
    const auto r = world.step(1.0 / 60.0, config);
    std::printf("substeps = 0: %s (field '%s'); tip unchanged: %s\n", r.message(), r.field_name(),
                x[n - 1] == tip ? "yes" : "no");
    const bool refused = r == XPBD_STATUS_INVALID_CONFIG && r.field() == xpbd::Field::Substeps;
    return good && off < 1e-4 && refused && x[n - 1] == tip ? 0 : 1;
}
