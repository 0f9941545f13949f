// A 24 x 24 cloth through include/xpbd.hpp, the C++17 layer: hung from two
// corners, with bending, self-collision and tearing, struck by a moving
// capsule. Views of std::vector and arrays (no casts), results (no codes).
//   c++ -std=c++17 -Iinclude examples/cpp/cloth.cpp target/release/c/libxpbd.a -o cloth
// Exit status 0 when the capsule tore links, the pins held and every
// position is finite.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "xpbd.hpp"

int main() {
    constexpr std::size_t rows = 24, cols = 24, n = rows * cols;
    std::vector<std::array<double, 3>> x(n), v(n);  // m, m/s: hanging in the x-y plane
    for (std::size_t k = 0; k < n; ++k) x[k] = {0.05 * double(k % cols), -0.05 * double(k / cols), 0};
    std::vector<double> w(n, double(n));             // 1/kg: a 1 kg cloth
    w[0] = w[cols - 1] = 0;                          // the top corners pinned
    const auto rest = x;                             // no self-contacts between neighbours at rest

    std::vector<xpbd::Link<double>> links(xpbd::cloth_link_count(rows, cols, false));
    std::vector<xpbd::Bend<double>> bends(xpbd::bends_cloth_count(rows, cols));
    const xpbd::Result built[] = {xpbd::build_cloth(x, rows, cols, false, 1e-7, links),
                                  xpbd::build_bends_cloth(x, rows, cols, 1e-2, bends)};
    for (const xpbd::Result& r : built)
        if (!r) return std::printf("build: %s\n", r.message()), 1;
    std::vector<double> max_force(links.size(), 35.0);  // N
    std::vector<std::uint32_t> torn(links.size());
    // Centre, half axis (along x), radius (m), velocity (1 m/s along z), spin, friction.
    xpbd::Capsule3<double> bar[] = {{{0.575, -0.75, -0.3}, {0.4, 0, 0}, 0.08, {0, 0, 1}, {}, 0.6, 0.3}};

    xpbd::World<double> world(x, v, w, links);
    world.set_bends(bends).set_self_collision(rest).set_capsules(bar).set_tearing(max_force, torn);
    const auto needs = world.requirements();         // the bytes the library carves its buffers from
    std::vector<std::uint64_t> memory(needs.value.memory_size / 8 + 1);
    world.set_memory(memory);

    std::size_t torn_links = 0, pairs = 0;
    for (int frame = 0; frame < 240; ++frame) {      // 4 s at 60 Hz, the default 20 substeps
        bar[0].center[2] = -0.3 + frame / 60.0;      // where the capsule is when the frame starts
        const auto r = world.step(1.0 / 60);
        if (!r) return std::printf("frame %d: %s (%s %zu)\n", frame, r.message(), r.field_name(),
                                   r.index()), 1;
        torn_links += r.stats.torn;
        pairs = std::max(pairs, r.stats.max_pairs);
    }
    bool finite = true;
    for (const auto& p : x) finite = finite && std::isfinite(p[0] + p[1] + p[2]);
    const bool pinned = x[0] == rest[0] && x[cols - 1] == rest[cols - 1];
    std::printf("xpbd %s (C++17 layer): %zu x %zu cloth, %zu links, %zu bends, %zu bytes of memory\n",
                XPBD_VERSION_STRING, rows, cols, links.size(), bends.size(), needs.value.memory_size);
    std::printf("links torn by the capsule: %zu; most self-contacts: %zu; pins held: %s; finite: %s\n",
                torn_links, pairs, pinned ? "yes" : "no", finite ? "yes" : "no");
    return torn_links > 0 && pinned && finite ? 0 : 1;
}
