// Tests of include/xpbd.hpp, the C++17 layer: every wrapper gives the C
// API's result bit for bit (worlds with every feature, both steps, the job
// adapter, every builder and coloring), views convert without casts, and
// errors come back as results naming their index and field.
// Built by .ci/steps/33-cpp.sh with g++ and clang++, C++17 and C++20,
// -Wall -Wextra -Wpedantic -Werror, with and without -fno-exceptions:
//   c++ -std=c++17 -Iinclude examples/cpp/hpp_test.cpp target/release/c/libxpbd.a -o hpp_test
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "xpbd.hpp"

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
// A result that must be ok, printed when it is not.
#define CHECK_OK(r)                                                                                   \
    do {                                                                                              \
        const xpbd::Result& r_ = (r);                                                                 \
        if (!r_) std::printf("  %s: %s (index %zu, field '%s')\n", #r, r_.message(), r_.index(),      \
                             r_.field_name());                                                        \
        check(r_.ok(), #r, __LINE__);                                                                 \
    } while (0)

template <class X>
bool same_bits(const X& a, const X& b) {
    return std::memcmp(&a, &b, sizeof(X)) == 0;
}
template <class X>
bool same_vec(const std::vector<X>& a, const std::vector<X>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(X)) == 0);
}
// Links and attachments field by field (they have padding).
template <class L>
bool same_links(const std::vector<L>& a, const std::vector<L>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
        if (a[k].i != b[k].i || a[k].j != b[k].j || !same_bits(a[k].rest, b[k].rest) ||
            !same_bits(a[k].compliance, b[k].compliance) || !same_bits(a[k].lambda, b[k].lambda) ||
            a[k].flags != b[k].flags)
            return false;
    }
    return true;
}
template <class A>
bool same_attachments(const std::vector<A>& a, const std::vector<A>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k) {
        if (a[k].particle != b[k].particle || !same_bits(a[k].previous, b[k].previous) ||
            !same_bits(a[k].force, b[k].force) || !same_bits(a[k].lambda, b[k].lambda))
            return false;
    }
    return true;
}

// ------------------------------------------------------- types and results

static_assert(std::is_same_v<xpbd::Link<double>, XpbdLink>);
static_assert(std::is_same_v<xpbd::Link<float>, XpbdLinkF32>);
static_assert(std::is_same_v<xpbd::Capsule3<float>, XpbdCapsule3F32>);
static_assert(std::is_same_v<xpbd::Box3<double>, XpbdBox3>);
static_assert(std::is_same_v<xpbd::EngineContact<float>, XpbdEngineContactF32>);
static_assert(std::is_same_v<xpbd::Attachment<double>, XpbdAttachment>);
static_assert(std::is_same_v<xpbd::StepStats<float>, XpbdStepStatsF32>);
static_assert(std::is_same_v<xpbd::AeroTriangle<float>, XpbdAeroTriangleF32>);
static_assert(std::is_same_v<xpbd::LocalSpace<double>, XpbdLocalSpace>);
static_assert(std::is_same_v<xpbd::Transform<float>, XpbdTransformF32>);
static_assert(std::is_same_v<xpbd::SkinConstraint<double>, XpbdSkinConstraint>);
static_assert(std::is_same_v<xpbd::SkinConstraint<float>, XpbdSkinConstraintF32>);
static_assert(std::is_base_of_v<XpbdStepConfig3F32, xpbd::Config<float>>);
static_assert(!std::is_convertible_v<xpbd::Result, int>, "a result is no int");
static_assert(!std::is_convertible_v<XpbdStatus, xpbd::Result>, "and no status either");
static_assert(xpbd::Result().ok() && xpbd::Result(XPBD_STATUS_SKIPPED).ok() &&
              !xpbd::Result(XPBD_STATUS_INVALID_TIME_STEP).ok());
static_assert(std::is_base_of_v<xpbd::Result, xpbd::StepResult<double>> &&
              std::is_base_of_v<xpbd::Result, xpbd::Counted>);
static_assert(xpbd::field_name(xpbd::Field::Memory)[0] == 'm' && xpbd::field_name(xpbd::Field::None)[0] == 0);
static_assert(std::is_copy_constructible_v<xpbd::World<float>>, "a world is plain data");

void results() {
    const xpbd::Result r(XPBD_STATUS_CAPACITY_TOO_SMALL, 42, xpbd::Field::Pairs);
    CHECK(!r && r == XPBD_STATUS_CAPACITY_TOO_SMALL && r != XPBD_STATUS_OK && r.code() == -16);
    CHECK(r.index() == 42 && r.field() == xpbd::Field::Pairs && std::strcmp(r.field_name(), "pairs") == 0);
    CHECK(std::strcmp(r.message(), xpbd_status_str(XPBD_STATUS_CAPACITY_TOO_SMALL)) == 0);
    CHECK(xpbd::Result(XPBD_STATUS_SKIPPED).skipped() && xpbd::Result(XPBD_STATUS_SKIPPED));
    CHECK(std::strcmp(xpbd::field_name(xpbd::Field(999)), "unknown field") == 0);
    CHECK(std::strcmp(xpbd::field_name(xpbd::Field::FrameTime), "frame_time") == 0);
    // Config is the C default.
    const xpbd::Config<double> c;
    const XpbdStepConfig3 d = xpbd_step_config3_default();
    CHECK(same_bits(static_cast<const XpbdStepConfig3&>(c), d) && c.substeps == 20 && c.iterations == 1);
    const xpbd::Config<float> f;
    const XpbdStepConfig3F32 df = xpbd_step_config3_default_f32();
    CHECK(same_bits(static_cast<const XpbdStepConfig3F32&>(f), df) && f.damping == 0.1f);
    CHECK(xpbd::version() == XPBD_VERSION_NUMBER && xpbd::fp_environment() == xpbd_fp_environment());
}

// The seed's four figures through DistanceConstraint.
template <class T>
T residual_after(int n, bool reset_every_iteration, T h) {
    xpbd::DistanceConstraint<T> link;
    T a = 0, b = 2;
    CHECK(link.begin_substep().ok());
    for (int k = 0; k < n; ++k) {
        if (reset_every_iteration) CHECK(link.begin_substep().ok());  // the bug, on purpose
        CHECK(link.solve(a, b, 1, 1, 1, T(0.01), h).ok());
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
    const xpbd::Result s = link.solve(a2, b2, 1, 1, 1, 0.01, 0.0);
    CHECK(s == XPBD_STATUS_INVALID_TIME_STEP && !s && a2 == 0 && b2 == 2);
    CHECK(link.solve(a2, b2, 0, 0, 1, 0.01, 0.1).skipped());  // both static
}

// ------------------------------------------------------------------ views

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
    std::vector<XpbdLink> want(n - 1), got(n - 1);
    std::size_t count = 0;
    CHECK(xpbd_build_rope3(&raw[0][0], n, 1e-4, want.data(), n - 1, &count) == XPBD_STATUS_OK);
    const auto same = [&](const xpbd::Counted& r) {
        const bool ok = r.ok() && r.count == n - 1 && same_links(want, got);
        std::memset(got.data(), 0xff, got.size() * sizeof got[0]);
        return ok;
    };
    CHECK(same(xpbd::build_rope(raw, 1e-4, got)));
    CHECK(same(xpbd::build_rope(arr, 1e-4, got)));
    CHECK(same(xpbd::build_rope(vec, 1e-4, got)));
    CHECK(same(xpbd::build_rope(plain, 1e-4, got)));
    CHECK(same(xpbd::build_rope<double>(xpbd::view(vec), 1e-4, xpbd::view(got))));
    const std::vector<std::array<double, 3>>& cvec = vec;
    CHECK(same(xpbd::build_rope(cvec, 1e-4, got)));
    XpbdLink links[n - 1];
    CHECK(xpbd::build_rope(raw, 1e-4, links).count == n - 1 && links[3].j == 4);
#ifdef XPBD_HPP_HAS_SPAN
    CHECK(same(xpbd::build_rope(std::span<std::array<double, 3>>(vec), 1e-4, std::span<XpbdLink>(got))));
    CHECK(same(xpbd::build_rope(std::span<const double[3]>(raw), 1e-4, got)));
#endif
    // view(): the right view for each container, pointing at its data.
    static_assert(std::is_same_v<decltype(xpbd::view(vec)), xpbd::View3<double>>);
    static_assert(std::is_same_v<decltype(xpbd::view(cvec)), xpbd::View3<const double>>);
    static_assert(std::is_same_v<decltype(xpbd::view(raw)), xpbd::View3<double>>);
    static_assert(std::is_same_v<decltype(xpbd::view(got)), xpbd::View<XpbdLink>>);
    std::vector<std::array<std::uint32_t, 4>> quads(2);
    static_assert(std::is_same_v<decltype(xpbd::view(quads)), xpbd::View4<std::uint32_t>>);
    const xpbd::View3<const double> v3 = xpbd::view(vec);
    CHECK(v3.size() == n && v3.flat() == &vec[0][0] && &v3[2][1] == &vec[2][1]);
    CHECK(xpbd::View3<double>().flat() == nullptr && xpbd::View3<double>().empty());
    const xpbd::View<const XpbdLink> vl = xpbd::view(got);  // mutable converts to const
    CHECK(vl.size() == n - 1 && vl.begin() + (n - 1) == vl.end() && !vl.empty() && &vl[1] == &got[1]);
    // Mutable views do not take const data (checked at compile time).
    static_assert(!std::is_constructible_v<xpbd::View3<double>, const std::vector<std::array<double, 3>>&>);
    static_assert(!std::is_constructible_v<xpbd::View<double>, const std::vector<double>&>);
    static_assert(!std::is_constructible_v<xpbd::View<double>, std::vector<float>&>);
    static_assert(!std::is_constructible_v<xpbd::View<double>, std::vector<double>&&>, "no temporaries");

    // Too little room: an error, nothing written.
    XpbdLink small[2];
    std::memset(small, 0, sizeof small);
    const auto r = xpbd::build_rope(raw, 1e-4, small);
    CHECK(!r && r == XPBD_STATUS_CAPACITY_TOO_SMALL && small[0].rest == 0);
}

// ---------------------------------------------------------------- builders

template <class T>
void builders() {
    using V3 = std::array<T, 3>;
    // Cloth links and bends.
    constexpr std::size_t rows = 4, cols = 5;
    std::vector<V3> grid(rows * cols);
    for (std::size_t k = 0; k < grid.size(); ++k) grid[k] = {T(0.1) * T(k % cols), T(0.01) * T(k % 3), T(0.1) * T(k / cols)};
    std::vector<xpbd::Link<T>> cl(xpbd::cloth_link_count(rows, cols, true)), cl_c(cl.size());
    std::size_t n = 0;
    CHECK(xpbd::detail::Api<T>::build_cloth3(&grid[0][0], rows, cols, 1, T(1e-6), cl_c.data(), cl_c.size(), &n) == 0);
    const auto c = xpbd::build_cloth<T>(grid, rows, cols, true, T(1e-6), cl);
    CHECK(c.ok() && c.count == cl.size() && n == cl.size() && same_links(cl, cl_c));
    CHECK(xpbd::build_cloth<T>(grid, rows + 1, cols, true, T(1e-6), cl) == XPBD_STATUS_INVALID_ARGUMENT);
    std::vector<xpbd::Bend<T>> bends(xpbd::bends_cloth_count(rows, cols)), bends_c(bends.size());
    CHECK(xpbd::detail::Api<T>::build_bends_cloth3(&grid[0][0], rows, cols, T(1e-3), bends_c.data(), bends_c.size(), &n) == 0);
    const auto b = xpbd::build_bends_cloth<T>(grid, rows, cols, T(1e-3), bends);
    CHECK(b.ok() && b.count == bends.size() && same_vec(bends, bends_c));

    // An icosphere; its links, bends and volume.
    const auto counts = xpbd::icosphere_counts(2);
    CHECK(counts.ok() && counts.value.particles == 42 && counts.value.elements == 80);
    std::vector<V3> ball(counts.value.particles), ball_c(ball.size());
    std::vector<std::array<std::uint32_t, 3>> tris(counts.value.elements), tris_c(tris.size()), scratch(3 * tris.size());
    const std::array<T, 3> center = {T(0.1), T(0.5), T(-0.2)};
    const auto ico = xpbd::build_icosphere(2, T(0.25), center, ball, tris);
    std::size_t np = 0, nt = 0;
    CHECK(xpbd::detail::Api<T>::build_icosphere3(2, T(0.25), center.data(), &ball_c[0][0], ball_c.size(), &tris_c[0][0],
                                                 tris_c.size(), &np, &nt) == 0);
    CHECK(ico.ok() && ico.value.particles == np && ico.value.elements == nt && same_vec(ball, ball_c) && same_vec(tris, tris_c));
    std::vector<xpbd::Link<T>> tl(3 * tris.size()), tl_c(tl.size());
    const auto tlr = xpbd::build_links_from_triangles(ball, tris, T(1e-7), scratch, tl);
    CHECK(xpbd::detail::Api<T>::build_links_from_triangles3(&ball[0][0], ball.size(), &tris[0][0], tris.size(), T(1e-7),
                                                            &scratch[0][0], scratch.size(), tl_c.data(), tl_c.size(), &n) == 0);
    CHECK(tlr.ok() && tlr.count == 120 && n == 120 && same_links(tl, tl_c));
    std::vector<xpbd::Bend<T>> tb(tris.size() * 3 / 2), tb_c(tb.size());
    const auto tbr = xpbd::build_bends_from_triangles(ball, tris, T(1e-2), scratch, tb);
    CHECK(xpbd::detail::Api<T>::build_bends_from_triangles3(&ball[0][0], ball.size(), &tris[0][0], tris.size(), T(1e-2),
                                                            &scratch[0][0], scratch.size(), tb_c.data(), tb_c.size(), &n) == 0);
    CHECK(tbr.ok() && tbr.count == 120 && same_vec(tb, tb_c));
    // Too small: the count needed comes back.
    std::vector<xpbd::Link<T>> few(3);
    const auto fr = xpbd::build_links_from_triangles(ball, tris, T(1e-7), scratch, few);
    CHECK(fr == XPBD_STATUS_CAPACITY_TOO_SMALL && fr.count == 120);
    xpbd::MeshVolume<T> mesh{}, mesh_c{};
    std::vector<std::uint32_t> plist(ball.size()), plist_c(ball.size());
    std::vector<V3> ms(ball.size());
    CHECK_OK(xpbd::build_mesh_volume(tris, 0, std::uint32_t(tris.size()), ball, T(1.5), T(1e-6), plist, 0, ms, mesh));
    CHECK(xpbd::detail::Api<T>::build_mesh_volume3(&tris[0][0], tris.size(), 0, std::uint32_t(tris.size()), &ball[0][0],
                                                   ball.size(), T(1.5), T(1e-6), plist_c.data(), plist_c.size(), 0,
                                                   &ms[0][0], ms.size(), &mesh_c) == 0);
    CHECK(same_bits(mesh, mesh_c) && same_vec(plist, plist_c) && mesh.particle_count == 42);

    // A tet block, its links and tets.
    const auto bc = xpbd::tet_block_counts(2, 1, 1);
    CHECK(bc.ok() && bc.value.particles == 12 && bc.value.elements == 12);
    std::vector<V3> block(bc.value.particles), block_c(block.size());
    std::vector<xpbd::Tet<T>> tets(bc.value.elements), tets_c(tets.size());
    const std::array<T, 3> origin = {0, 0, 0};
    const auto blk = xpbd::build_tet_block(2, 1, 1, T(0.1), origin, T(1e-6), block, tets);
    CHECK(xpbd::detail::Api<T>::build_tet_block3(2, 1, 1, T(0.1), origin.data(), T(1e-6), &block_c[0][0], block_c.size(),
                                                 tets_c.data(), tets_c.size(), &np, &nt) == 0);
    CHECK(blk.ok() && blk.value.particles == 12 && same_vec(block, block_c) && same_vec(tets, tets_c));
    std::vector<std::array<std::uint32_t, 4>> quads(tets.size());
    for (std::size_t k = 0; k < tets.size(); ++k)
        for (int q = 0; q < 4; ++q) quads[k][q] = tets[k].particles[q];
    std::vector<xpbd::Tet<T>> tets2(tets.size());
    const auto t2 = xpbd::build_tets(block, quads, T(1e-6), tets2);
    CHECK(t2.ok() && t2.count == tets.size() && same_vec(tets, tets2));
    std::vector<std::array<std::uint32_t, 3>> tscratch(6 * tets.size());
    std::vector<xpbd::Link<T>> bl(6 * tets.size()), bl_c(bl.size());
    const auto blr = xpbd::build_links_from_tets(block, quads, T(0), tscratch, bl);
    CHECK(xpbd::detail::Api<T>::build_links_from_tets3(&block[0][0], block.size(), &quads[0][0], quads.size(), T(0),
                                                       &tscratch[0][0], tscratch.size(), bl_c.data(), bl_c.size(), &n) == 0);
    CHECK(blr.ok() && blr.count == n && same_links(bl, bl_c));

    // Tethers, straight and along the links.
    std::vector<T> w(grid.size(), T(1));
    w[0] = w[cols - 1] = 0;
    const std::uint32_t anchors[] = {0, std::uint32_t(cols - 1)};
    std::vector<xpbd::Tether<T>> th(grid.size()), th_c(th.size());
    const auto tr = xpbd::build_tethers(grid, w, anchors, T(0), th);
    CHECK(xpbd::detail::Api<T>::build_tethers3(&grid[0][0], w.data(), grid.size(), anchors, 2, T(0), th_c.data(),
                                               th_c.size(), &n) == 0);
    CHECK(tr.ok() && tr.count == grid.size() - 2 && same_vec(th, th_c));
    std::vector<T> dist(grid.size()), dist_c(grid.size());
    std::vector<std::uint32_t> anc(grid.size()), anc_c(grid.size());
    const auto ta = xpbd::build_tethers_along_links(grid, w, cl, anchors, T(0), dist, anc, th);
    CHECK(xpbd::detail::Api<T>::build_tethers_along_links3(&grid[0][0], w.data(), grid.size(), cl.data(), cl.size(), anchors,
                                                           2, T(0), dist_c.data(), anc_c.data(), grid.size(), th_c.data(),
                                                           th_c.size(), &n) == 0);
    CHECK(ta.ok() && ta.count == n && same_vec(th, th_c) && same_vec(dist, dist_c));
    CHECK(xpbd::build_tethers(grid, xpbd::View<const T>(w.data(), 3), anchors, T(0), th) == XPBD_STATUS_INVALID_ARGUMENT);

    // A loop.
    std::vector<xpbd::Link<T>> loop(grid.size()), loop_c(grid.size());
    CHECK(xpbd::build_loop(grid, T(0), loop).count == grid.size());
    CHECK(xpbd::detail::Api<T>::build_loop3(&grid[0][0], grid.size(), T(0), loop_c.data(), loop_c.size(), &n) == 0);
    CHECK(same_links(loop, loop_c));
}

// ------------------------------------------------------------------ colors

void coloring() {
    std::vector<std::uint32_t> colors(7), colors_c(7);
    std::uint32_t n = 0;
    const auto r = xpbd::color_rope(7, true, colors);
    CHECK(xpbd_color_rope(7, 1, colors_c.data(), 7, &n) == 0 && r.ok() && r.count == n && n == 3 && colors == colors_c);
    CHECK(xpbd::color_rope(8, false, colors) == XPBD_STATUS_CAPACITY_TOO_SMALL);
    std::vector<std::uint32_t> cc(xpbd::cloth_link_count(3, 4, true)), cc_c(cc.size());
    const auto c = xpbd::color_cloth(3, 4, true, cc);
    CHECK(xpbd_color_cloth(3, 4, 1, cc_c.data(), cc_c.size(), &n) == 0 && c.count == 8 && n == 8 && cc == cc_c);
    std::vector<std::size_t> starts(9), starts_c(9);
    std::vector<std::uint32_t> order(cc.size()), order_c(cc.size());
    CHECK_OK(xpbd::color_order(cc, 8, starts, order));
    CHECK(xpbd_color_order(cc.data(), cc.size(), 8, starts_c.data(), order_c.data()) == 0);
    CHECK(starts == starts_c && order == order_c && starts[8] == cc.size());
    CHECK(xpbd::color_order(cc, 7, starts, order) == XPBD_STATUS_INVALID_ARGUMENT);
    // Greedy links and groups, and a bad bend named by its index.
    std::vector<std::array<double, 3>> x(12);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = {0.1 * double(k % 4), 0, 0.1 * double(k / 4)};
    std::vector<XpbdLink> links(xpbd::cloth_link_count(3, 4, true));
    CHECK(xpbd::build_cloth(x, 3, 4, true, 0.0, links).ok());
    std::vector<std::uint64_t> scratch(12);
    std::vector<std::uint32_t> g(links.size()), g_c(links.size());
    const auto gr = xpbd::color_greedy(links, 12, scratch, g);
    CHECK(xpbd_color_greedy(links.data(), links.size(), 12, scratch.data(), g_c.data(), &n) == 0);
    CHECK(gr.ok() && gr.count == n && g == g_c);
    std::vector<XpbdBend> bends(xpbd::bends_cloth_count(3, 4));
    CHECK(xpbd::build_bends_cloth(x, 3, 4, 0.0, bends).ok());
    std::vector<std::uint32_t> bc(bends.size()), bc_c(bends.size());
    const auto br = xpbd::color_group(bends, 12, scratch, bc);
    XpbdConstraints3 groups{};
    groups.bends = bends.data();
    groups.bend_count = bends.size();
    std::size_t index = 0;
    CHECK(xpbd_color_group(&groups, XPBD_GROUP_BENDS, 12, scratch.data(), bc_c.data(), &n, &index) == 0);
    CHECK(br.ok() && br.count == n && bc == bc_c);
    bends[3].particles[2] = 99;
    const auto bad = xpbd::color_group(bends, 12, scratch, bc);
    CHECK(bad == XPBD_STATUS_INDEX_OUT_OF_RANGE && bad.index() == 3);
    std::vector<XpbdTetherF32> tethers(3);
    for (std::uint32_t k = 0; k < 3; ++k) tethers[k] = {k + 1, 0, 1.0f, 0.0f, 0.0f};
    std::vector<std::uint32_t> tc(3);
    std::vector<std::uint64_t> s4(4);
    const auto trr = xpbd::color_group(tethers, 4, s4, tc);
    CHECK(trr.ok() && trr.count == 3 && tc[2] == 2);  // all share the anchor
    // Over the moving particles: the pinned anchor is no conflict.
    const std::vector<float> w4{0.0f, 1.0f, 1.0f, 1.0f};
    const auto tm = xpbd::color_group_moving(tethers, w4, s4, tc);
    CHECK(tm.ok() && tm.count == 1 && tc[2] == 0);
    std::vector<double> w12(12, 1.0);
    w12[0] = 0.0;
    const auto gm = xpbd::color_greedy_moving(links, w12, scratch, g);
    CHECK(xpbd_color_greedy_moving(links.data(), links.size(), w12.data(), 12, scratch.data(), g_c.data(), &n) == 0);
    CHECK(gm.ok() && gm.count == n && g == g_c && gm.count <= gr.count);
    // reorder: by value, checked.
    const std::vector<double> in = {10, 11, 12};
    std::vector<double> out(3);
    const std::uint32_t perm[] = {2, 0, 1}, wrong[] = {0, 3, 1};
    CHECK(xpbd::reorder(in, perm, out).ok() && out[0] == 12 && out[1] == 10 && out[2] == 11);
    const auto rr = xpbd::reorder(in, wrong, out);
    CHECK(rr == XPBD_STATUS_INDEX_OUT_OF_RANGE && rr.index() == 1);
    CHECK(xpbd::reorder(out, perm, out) == XPBD_STATUS_INVALID_ARGUMENT);  // in place: refused
}

// ------------------------------------------------------------ low level

void system() {
    double x[3][3] = {{0, 0, 0}, {0.1, 0, 0}, {0.2, 0, 0}};
    double y[3][3];
    const double w[3] = {0, 1, 1};
    std::vector<XpbdLink> links(2), links_c;
    CHECK(xpbd::build_rope(x, 1e-4, links).ok());
    x[2][0] = 0.3;
    std::memcpy(y, x, sizeof x);
    links_c = links;

    xpbd::System3<double> sys(x, w, links);
    CHECK(sys.iterate() == XPBD_STATUS_NO_SUBSTEP);  // begin_substep first
    CHECK(sys.begin_substep(1.0 / 240).ok());
    const auto conv = sys.iterate_until(1e-12, 50);
    CHECK(conv.ok() && conv.value.converged == 1);

    XpbdSystem3 c{};
    c.positions = y;
    c.inverse_masses = w;
    c.particle_count = 3;
    c.links = links_c.data();
    c.link_count = 2;
    XpbdConvergence cc{};
    CHECK(xpbd_system3_begin_substep(&c, 1.0 / 240) == XPBD_STATUS_OK);
    CHECK(xpbd_system3_iterate_until(&c, 1e-12, 50, &cc) == XPBD_STATUS_OK);
    CHECK(same_bits(x, y) && same_links(links, links_c) && conv.value.iterations == cc.iterations);
    CHECK(sys.begin_substep(1.0 / 240).ok() && links[0].lambda == 0.0 && links[1].lambda == 0.0);
    const auto m = sys.measure();
    CHECK(m.ok() && m.value.applied == 2 && m.value.max_abs_c > 0);
    CHECK(sys.iterate().ok());
    CHECK(sys.begin_substep(-1.0) == XPBD_STATUS_INVALID_TIME_STEP);
    links[1].j = 7;
    const auto bad = sys.begin_substep(0.01);
    CHECK(bad == XPBD_STATUS_INDEX_OUT_OF_RANGE && bad.index() == 1);
    const double w2[2] = {0, 1};
    xpbd::System3<double> short_w(x, w2, links);
    CHECK(short_w.begin_substep(0.01) == XPBD_STATUS_INVALID_ARGUMENT);
}

// ------------------------------------------------------------------ worlds

// Every array a world may use; empty = feature off.
template <class T>
struct Scene {
    using V3 = std::array<T, 3>;
    std::vector<V3> x, v, rest;
    std::vector<T> w, max_force;
    std::vector<xpbd::Link<T>> links;
    std::vector<xpbd::Plane3<T>> planes;
    std::vector<xpbd::Sphere3<T>> spheres;
    std::vector<xpbd::Capsule3<T>> capsules;
    std::vector<xpbd::Box3<T>> boxes;
    bool self = false;
    std::vector<std::uint32_t> torn;
    std::vector<xpbd::EngineContact<T>> engine;
    std::vector<xpbd::Bend<T>> bends;
    std::vector<xpbd::Tet<T>> tets;
    std::vector<xpbd::Tether<T>> tethers;
    std::vector<xpbd::MeshVolume<T>> meshes;
    std::vector<std::array<std::uint32_t, 3>> triangles;
    std::vector<std::uint32_t> mesh_particles;
    std::vector<V3> mesh_scratch;
    std::vector<xpbd::Attachment<T>> attachments;
    std::vector<std::size_t> link_starts, bend_starts, tether_starts;  // colored order
    bool colliders() const { return !(planes.empty() && spheres.empty() && capsules.empty() && boxes.empty()); }
    bool groups() const { return !(bends.empty() && tets.empty() && tethers.empty() && meshes.empty() && attachments.empty()); }
};

// What moves between frames: the capsule and the attachment's target.
template <class T>
void advance(Scene<T>& s, int frame) {
    for (auto& c : s.capsules) c.center[2] = T(-0.5) + c.velocity[2] * T(frame) / T(60);
    for (auto& a : s.attachments) a.target[1] = T(0.002) * T(frame);
}

// The C reference: the same world through xpbd.h alone.
XpbdWorld3 c_world(double) { return xpbd_world3_default(); }
XpbdWorld3F32 c_world(float) { return xpbd_world3_default_f32(); }
template <class T>
struct CWorld {
    using A = xpbd::detail::Api<T>;
    typename A::World w = c_world(T());
    typename A::Colliders col;
    typename A::SelfCollision self;
    typename A::Tearing tear;
    typename A::EngineContacts eng;
    typename A::Groups grp;
    std::vector<std::uint64_t> memory;
};
#define XPBD_TEST_C(T, S)                                                                                \
    void c_defaults(CWorld<T>& c) {                                                                      \
        c.col = xpbd_colliders3_default##S(); c.self = xpbd_self_collision3_default##S();                \
        c.tear = xpbd_tearing3_default##S(); c.eng = xpbd_engine_contacts3_default##S();                 \
        c.grp = xpbd_groups3_default##S();                                                               \
    }                                                                                                    \
    XpbdStatus c_add(CWorld<T>& c, XpbdBlock* b) { return xpbd_world3_add##S(&c.w, b); }                 \
    XpbdStatus c_requirements(CWorld<T>& c, XpbdRequirements* r) { return xpbd_world3_requirements##S(&c.w, r); } \
    XpbdStatus c_step(CWorld<T>& c, T dt, const xpbd::Config<T>& cfg, xpbd::StepStats<T>* s) {          \
        return xpbd_world3_step##S(&c.w, dt, &cfg, s);                                                  \
    }                                                                                                    \
    XpbdStatus c_step_colored(CWorld<T>& c, const XpbdGroupColors* colors, T dt, const xpbd::Config<T>& cfg, \
                              const XpbdJobSystem* jobs, xpbd::StepStats<T>* s) {                        \
        return xpbd_world3_step_colored##S(&c.w, colors, dt, &cfg, jobs, s);                             \
    }
XPBD_TEST_C(double, )
XPBD_TEST_C(float, _f32)
#undef XPBD_TEST_C

template <class T>
void c_build(CWorld<T>& c, Scene<T>& s) {
    c_defaults(c);
    c.w.positions = reinterpret_cast<T(*)[3]>(s.x.data());  // the cast xpbd.hpp spares its users
    c.w.velocities = reinterpret_cast<T(*)[3]>(s.v.data());
    c.w.inverse_masses = s.w.data();
    c.w.particle_count = s.x.size();
    c.w.links = s.links.data();
    c.w.link_count = s.links.size();
    if (s.colliders()) {
        c.col.planes = s.planes.data(), c.col.plane_count = s.planes.size();
        c.col.spheres = s.spheres.data(), c.col.sphere_count = s.spheres.size();
        c.col.capsules = s.capsules.data(), c.col.capsule_count = s.capsules.size();
        c.col.boxes = s.boxes.data(), c.col.box_count = s.boxes.size();
        CHECK(c_add(c, &c.col.block) == 0);
    }
    if (s.self) {
        c.self.rest_positions = s.rest.empty() ? nullptr : reinterpret_cast<T(*)[3]>(s.rest.data());
        CHECK(c_add(c, &c.self.block) == 0);
    }
    if (!s.max_force.empty()) {
        c.tear.max_force = s.max_force.data();
        c.tear.torn = s.torn.data(), c.tear.torn_capacity = s.torn.size();
        CHECK(c_add(c, &c.tear.block) == 0);
    }
    if (!s.engine.empty()) {
        c.eng.contacts = s.engine.data(), c.eng.count = s.engine.size();
        CHECK(c_add(c, &c.eng.block) == 0);
    }
    if (s.groups()) {
        auto& g = c.grp.groups;
        g.bends = s.bends.data(), g.bend_count = s.bends.size();
        g.tets = s.tets.data(), g.tet_count = s.tets.size();
        g.tethers = s.tethers.data(), g.tether_count = s.tethers.size();
        g.mesh_volumes = s.meshes.data(), g.mesh_volume_count = s.meshes.size();
        g.triangles = reinterpret_cast<const std::uint32_t(*)[3]>(s.triangles.data());
        g.triangle_count = s.triangles.size();
        g.mesh_particles = s.mesh_particles.data(), g.mesh_particle_count = s.mesh_particles.size();
        g.mesh_scratch = reinterpret_cast<T(*)[3]>(s.mesh_scratch.data()), g.mesh_scratch_count = s.mesh_scratch.size();
        g.attachments = s.attachments.data(), g.attachment_count = s.attachments.size();
        CHECK(c_add(c, &c.grp.block) == 0);
    }
    XpbdRequirements r{};
    CHECK(c_requirements(c, &r) == 0);
    c.memory.assign(r.memory_size / 8 + 1, 0);
    c.w.memory = c.memory.data();
    c.w.memory_size = c.memory.size() * 8;
}

// The same world through xpbd.hpp: views of the same vectors, no cast.
template <class T>
xpbd::World<T> hpp_world(Scene<T>& s, std::vector<std::uint64_t>& memory) {
    xpbd::World<T> world(s.x, s.v, s.w, s.links);
    if (s.colliders()) world.set_planes(s.planes).set_spheres(s.spheres).set_capsules(s.capsules).set_boxes(s.boxes);
    if (s.self) world.set_self_collision(s.rest);
    if (!s.max_force.empty()) world.set_tearing(s.max_force, s.torn);
    if (!s.engine.empty()) world.set_engine_contacts(s.engine);
    if (s.groups()) {
        world.set_bends(s.bends).set_tets(s.tets).set_tethers(s.tethers).set_attachments(s.attachments);
        if (!s.meshes.empty()) world.set_mesh_volumes(s.meshes, s.triangles, s.mesh_particles, s.mesh_scratch);
    }
    const auto needs = world.requirements();
    CHECK_OK(needs);
    memory.assign(needs.value.memory_size / 8 + 1, 0);
    world.set_memory(memory);
    return world;
}

// Two scenes hold the same values, bit for bit.
template <class T>
bool same_scene(const Scene<T>& a, const Scene<T>& b) {
    return same_vec(a.x, b.x) && same_vec(a.v, b.v) && same_links(a.links, b.links) && same_vec(a.torn, b.torn) &&
           same_vec(a.engine, b.engine) && same_vec(a.bends, b.bends) && same_vec(a.tets, b.tets) &&
           same_vec(a.tethers, b.tethers) && same_vec(a.meshes, b.meshes) &&
           same_attachments(a.attachments, b.attachments);
}
template <class S>
bool same_stats(const S& a, const S& b) {
    return a.substeps == b.substeps && a.iterations == b.iterations && a.max_contacts == b.max_contacts &&
           a.torn == b.torn && a.max_pairs == b.max_pairs && a.clamped == b.clamped &&
           same_bits(a.last.max_residual, b.last.max_residual);
}

// A 6 x 8 cloth with every feature but tets and meshes: pinned corners,
// bends, tethers, an attached corner, colliders of all four kinds (the
// capsule moving), self-collision, tearing (weak links along a row), one
// engine contact. In colored order (links, bends, tethers) when `colored`.
template <class T>
Scene<T> cloth_scene(bool colored, std::size_t rows = 6, std::size_t cols = 8) {
    const std::size_t n = rows * cols;
    Scene<T> s;
    s.x.resize(n), s.v.resize(n), s.w.assign(n, T(n));
    for (std::size_t k = 0; k < n; ++k) s.x[k] = {T(0.06) * T(k % cols), T(0.3), T(0.06) * T(k / cols)};
    s.w[0] = s.w[cols - 1] = 0;
    s.rest = s.x;
    s.self = true;
    s.links.resize(xpbd::cloth_link_count(rows, cols, true));
    s.bends.resize(xpbd::bends_cloth_count(rows, cols));
    s.tethers.resize(n);
    CHECK_OK(xpbd::build_cloth(s.x, rows, cols, true, T(1e-7), s.links));
    CHECK_OK(xpbd::build_bends_cloth(s.x, rows, cols, T(1e-2), s.bends));
    const std::uint32_t anchors[] = {0, std::uint32_t(cols - 1)};
    const auto tn = xpbd::build_tethers(s.x, s.w, anchors, T(0), s.tethers);
    s.tethers.resize(std::min<std::size_t>(tn.count, 40));  // tethers share anchors: one color each
    s.max_force.assign(s.links.size(), T(1e9));
    for (std::size_t k = 3 * (cols - 1); k < 4 * (cols - 1); ++k) s.max_force[k] = T(0.2);  // row 3 is weak
    s.torn.resize(8);
    s.planes.push_back({{0, 1, 0}, T(-0.6)});
    // In the way of the falling cloth, which swings down about the pins' line.
    s.spheres.push_back({{T(0.1), T(0.05), T(0.02)}, T(0.05)});
    s.capsules.push_back({{T(0.21), T(0.12), T(-0.5)}, {T(0.2), 0, 0}, T(0.04), {0, 0, T(1)}, {0, 0, 0}, T(0.5), T(0.3)});
    xpbd::Box3<T> box{};
    box.center[0] = T(0.35), box.center[1] = T(0.17), box.center[2] = T(0.13);
    box.axes[0][0] = box.axes[1][1] = box.axes[2][2] = 1;
    box.half_extents[0] = box.half_extents[1] = box.half_extents[2] = T(0.03);
    box.static_friction = T(0.5), box.dynamic_friction = T(0.3);
    s.boxes.push_back(box);
    xpbd::EngineContact<T> e{};
    e.particle = std::uint32_t(n - 1), e.normal[1] = 1, e.point[1] = T(-0.2), e.static_friction = T(0.4), e.dynamic_friction = T(0.2);
    s.engine.push_back(e);
    xpbd::Attachment<T> a{};
    a.particle = std::uint32_t(n - cols);  // the last row's first particle follows a target
    for (int c = 0; c < 3; ++c) a.previous[c] = a.target[c] = s.x[n - cols][c];
    a.compliance = T(1e-6);
    s.attachments.push_back(a);
    if (colored) {
        std::vector<std::uint32_t> colors(s.links.size()), order(s.links.size());
        const auto nc = xpbd::color_cloth(rows, cols, true, colors);
        s.link_starts.resize(nc.count + 1);
        CHECK_OK(xpbd::color_order(colors, std::uint32_t(nc.count), s.link_starts, order));
        const auto links = s.links;
        const auto max_force = s.max_force;
        CHECK_OK(xpbd::reorder(links, order, s.links));
        CHECK_OK(xpbd::reorder(max_force, order, s.max_force));
        std::vector<std::uint64_t> scratch(n);
        const auto color_group = [&](auto& group, std::vector<std::size_t>& starts) {
            std::vector<std::uint32_t> gc(group.size()), go(group.size());
            const auto ng = xpbd::color_group(group, n, scratch, gc);
            CHECK_OK(ng);
            starts.resize(ng.count + 1);
            CHECK_OK(xpbd::color_order(gc, std::uint32_t(ng.count), starts, go));
            const auto copy = group;
            CHECK_OK(xpbd::reorder(copy, go, group));
        };
        color_group(s.bends, s.bend_starts);
        color_group(s.tethers, s.tether_starts);
    }
    return s;
}

// Two soft bodies: a pressurised icosphere (links, bends, mesh volume) and
// a tet block (links, tets), on a plane.
template <class T>
Scene<T> soft_scene() {
    Scene<T> s;
    const auto ic = xpbd::icosphere_counts(2);
    const auto tc = xpbd::tet_block_counts(2, 1, 1);
    const std::size_t nb = ic.value.particles, n = nb + tc.value.particles;
    s.x.resize(n), s.v.resize(n), s.w.assign(n, T(10));
    s.triangles.resize(ic.value.elements);
    CHECK(xpbd::build_icosphere(2, T(0.2), {0, T(0.25), 0}, xpbd::View3<T>(s.x.data(), nb), s.triangles).ok());
    std::vector<std::array<std::uint32_t, 3>> scratch(3 * s.triangles.size());
    s.links.resize(3 * s.triangles.size());
    s.links.resize(xpbd::build_links_from_triangles(s.x, s.triangles, T(1e-6), scratch, s.links).count);
    s.bends.resize(3 * s.triangles.size() / 2);
    s.bends.resize(xpbd::build_bends_from_triangles(s.x, s.triangles, T(1e-1), scratch, s.bends).count);
    s.meshes.resize(1);
    s.mesh_particles.resize(nb);
    s.mesh_scratch.resize(n);
    CHECK_OK(xpbd::build_mesh_volume(s.triangles, 0, std::uint32_t(s.triangles.size()), s.x, T(1.2), T(1e-7),
                                     s.mesh_particles, 0, s.mesh_scratch, s.meshes[0]));
    const xpbd::View3<T> block(s.x.data() + nb, tc.value.particles);
    s.tets.resize(tc.value.elements);
    CHECK(xpbd::build_tet_block(2, 1, 1, T(0.1), {T(0.5), T(0.05), 0}, T(1e-6), block, s.tets).ok());
    std::vector<std::array<std::uint32_t, 4>> quads(s.tets.size());
    for (auto& t : s.tets)
        for (auto& p : t.particles) p += std::uint32_t(nb);  // after the ball's particles
    for (std::size_t k = 0; k < quads.size(); ++k)
        for (int q = 0; q < 4; ++q) quads[k][q] = s.tets[k].particles[q];
    std::vector<xpbd::Link<T>> tl(6 * quads.size());
    std::vector<std::array<std::uint32_t, 3>> tscratch(6 * quads.size());
    tl.resize(xpbd::build_links_from_tets(s.x, quads, T(1e-6), tscratch, tl).count);
    s.links.insert(s.links.end(), tl.begin(), tl.end());
    s.planes.push_back({{0, 1, 0}, 0});
    return s;
}

// `frames` frames of one scene through xpbd.hpp and through xpbd.h: the
// same bits, every frame ok.
template <class T>
void world_vs_c(Scene<T> (*make)(), int frames, const xpbd::Config<T>& config, const char* what) {
    Scene<T> a = make(), b = make();
    std::vector<std::uint64_t> memory;
    xpbd::World<T> world = hpp_world(a, memory);
    CWorld<T> c;
    c_build(c, b);
    bool ok = true;
    std::size_t torn = 0, contacts = 0, pairs = 0;
    for (int f = 0; f < frames && ok; ++f) {
        advance(a, f), advance(b, f);
        const xpbd::StepResult<T> r = world.step(T(1) / 60, config);
        xpbd::StepStats<T> sc{};
        const XpbdStatus s = c_step(c, T(1) / 60, config, &sc);
        if (!r) std::printf("  %s frame %d: %s (index %zu, %s)\n", what, f, r.message(), r.index(), r.field_name());
        ok = r.ok() && s == XPBD_STATUS_OK && same_stats(r.stats, sc) && same_scene(a, b);
        torn += r.stats.torn;
        contacts = std::max(contacts, r.stats.max_contacts);
        pairs = std::max(pairs, r.stats.max_pairs);
    }
    check(ok, what, __LINE__);
    check(contacts > 0, what, __LINE__);
    bool finite = true;
    for (const auto& p : a.x) finite = finite && std::isfinite(double(p[0] + p[1] + p[2]));
    check(finite, what, __LINE__);
    if (!a.max_force.empty()) check(torn > 0 && a.torn[0] != 0, what, __LINE__);  // the weak row tore
}

template <class T> Scene<T> plain_cloth() { return cloth_scene<T>(false); }

// The job adapter: runs a phase's tasks in reverse order (any order is
// allowed), counting them.
struct Reverse {
    std::size_t* tasks;
    void operator()(std::uint32_t count, xpbd::Task task) const {
        for (std::uint32_t i = count; i-- > 0;) task(i), ++*tasks;
    }
};
struct CJobs {  // a C job system by hand, for the reference
    static void run(void* user, std::uint32_t count, XpbdTaskFn task, void* context) {
        for (std::uint32_t i = 0; i < count; ++i) task(context, i);
        ++*static_cast<std::size_t*>(user);
    }
};

// step_colored through the adapter, without jobs, with a raw
// XpbdJobSystem, and the C call: all bit-identical to step() on the same
// colored-order arrays.
template <class T>
void colored() {
    const Scene<T> big = cloth_scene<T>(true, 16, 20);  // enough work for phases of several tasks
    Scene<T> s[5] = {big, big, big, big, big};
    std::vector<std::uint64_t> memory[4];
    std::vector<xpbd::World<T>> worlds;
    for (int k = 0; k < 4; ++k) worlds.push_back(hpp_world(s[k], memory[k]));
    CWorld<T> c;
    c_build(c, s[4]);
    const xpbd::Colors colors(s[0].link_starts, s[0].bend_starts, {}, s[0].tether_starts);
    CHECK(colors.c().link_color_count == 8 && colors.c().tet_color_starts == nullptr && colors.c().tet_color_count == 0);
    std::size_t tasks = 0, c_phases = 0;
    const xpbd::Jobs jobs(Reverse{&tasks}, 3);
    const XpbdJobSystem raw{&CJobs::run, &c_phases, 2};
    xpbd::Config<T> config;
    config.substeps = 8;
    bool ok = true;
    for (int f = 0; f < 40 && ok; ++f) {
        for (auto& scene : s) advance(scene, f);
        const auto r0 = worlds[0].step(T(1) / 60, config);
        const auto r1 = worlds[1].step_colored(colors, T(1) / 60, config, jobs);
        const auto r2 = worlds[2].step_colored(colors, T(1) / 60, config);
        const auto r3 = worlds[3].step_colored(colors, T(1) / 60, config, &raw);
        xpbd::StepStats<T> sc{};
        const XpbdStatus s4 = c_step_colored(c, &colors.c(), T(1) / 60, config, &raw, &sc);
        for (const xpbd::Result* r : {&r0, &r1, &r2, &r3}) {
            if (!*r) std::printf("  colored frame %d: %s (index %zu, %s)\n", f, r->message(), r->index(), r->field_name());
        }
        ok = r0 && r1 && r2 && r3 && s4 == XPBD_STATUS_OK && same_stats(r0.stats, r1.stats) &&
             same_stats(r0.stats, r2.stats) && same_stats(r0.stats, r3.stats) && same_stats(r0.stats, sc);
        for (int k = 1; k < 5; ++k) ok = ok && same_scene(s[0], s[k]);
    }
    CHECK(ok);
    CHECK(tasks > 0 && c_phases > 0);  // both job systems ran phases
    // An improper coloring is refused, nothing moved.
    std::vector<std::size_t> one = {0, s[1].links.size()};
    const auto x = s[1].x;
    const auto bad = worlds[1].step_colored(xpbd::Colors(one, s[1].bend_starts, {}, s[1].tether_starts), T(1) / 60,
                                            config, jobs);
    CHECK(bad == XPBD_STATUS_INVALID_ARGUMENT && s[1].x == x);
}

// Errors: each a result with its index and field, nothing of the caller's moved.
template <class T>
void errors() {
    Scene<T> s = cloth_scene<T>(false);
    std::vector<std::uint64_t> memory;
    xpbd::World<T> world = hpp_world(s, memory);
    const auto x = s.x;
    const auto links = s.links;
    xpbd::Config<T> config;
    const auto fails = [&](const xpbd::Result& r, XpbdStatus status, xpbd::Field field, std::size_t index) {
        const bool ok = r == status && r.field() == field && r.index() == index && s.x == x &&
                        same_links(s.links, links);
        if (!ok) std::printf("  got %s, field '%s', index %zu\n", r.message(), r.field_name(), r.index());
        return ok;
    };
    config.substeps = 0;
    CHECK(fails(world.step(T(1) / 60, config), XPBD_STATUS_INVALID_CONFIG, xpbd::Field::Substeps, 0));
    config = xpbd::Config<T>();
    config.damping = -1;
    CHECK(fails(world.step(T(1) / 60, config), XPBD_STATUS_INVALID_CONFIG, xpbd::Field::Damping, 0));
    config = xpbd::Config<T>();
    CHECK(fails(world.step(T(std::nan("")), config), XPBD_STATUS_INVALID_TIME_STEP, xpbd::Field::FrameTime, 0));
    config.particle_radius = 0;  // self-collision needs a radius
    CHECK(fails(world.step(T(1) / 60, config), XPBD_STATUS_INVALID_SELF_COLLISION, xpbd::Field::ParticleRadius, 0));
    config = xpbd::Config<T>();
    s.spheres[0].radius = -1;  // collider 1: planes first
    CHECK(fails(world.step(T(1) / 60, config), XPBD_STATUS_INVALID_COLLIDER, xpbd::Field::None, 1));
    s.spheres[0].radius = T(0.1);
    s.max_force[5] = 0;
    CHECK(fails(world.step(T(1) / 60, config), XPBD_STATUS_INVALID_MAX_FORCE, xpbd::Field::None, 5));
    s.max_force[5] = T(1e9);
    // Memory: too small names the bytes needed.
    const std::size_t need = world.requirements().value.memory_size;
    world.set_memory(memory.data(), need - 8);
    CHECK(fails(world.step(T(1) / 60, config), XPBD_STATUS_CAPACITY_TOO_SMALL, xpbd::Field::Memory, need));
    world.set_memory(memory);
    // Budgets: a substep needing more contacts or pairs names the count.
    world.set_contact_budget(1);
    world.set_memory(nullptr, 0);
    const std::size_t need1 = world.requirements().value.memory_size;
    world.set_memory(memory);
    s.planes[0].offset = T(0.35);  // every particle under the plane
    const auto rc = world.step(T(1) / 60, config);
    CHECK(rc == XPBD_STATUS_CAPACITY_TOO_SMALL && rc.field() == xpbd::Field::Contacts && rc.index() > 1);
    CHECK(need1 < need && s.x == x);
    s.planes[0].offset = T(-0.6);
    world.set_contact_budget(0).set_self_collision({}, 1);  // no rest shape: neighbours 2 apart collide
    config.particle_radius = T(0.07);
    const auto rp = world.step(T(1) / 60, config);
    CHECK(rp == XPBD_STATUS_CAPACITY_TOO_SMALL && rp.field() == xpbd::Field::Pairs && rp.index() > 1 && s.x == x);
    config = xpbd::Config<T>();
    // The wrapper's own checks: lengths the C structs cannot carry.
    world.set_self_collision(xpbd::View3<const T>(s.rest.data(), 3));
    CHECK(fails(world.step(T(1) / 60, config), XPBD_STATUS_INVALID_ARGUMENT, xpbd::Field::RestPositions, 0));
    world.set_self_collision(s.rest);
    world.set_tearing(xpbd::View<const T>(s.max_force.data(), 2));
    CHECK(fails(world.step(T(1) / 60, config), XPBD_STATUS_INVALID_ARGUMENT, xpbd::Field::None, 0));
    world.set_tearing(s.max_force, s.torn);
    xpbd::World<T> short_v(s.x, xpbd::View3<T>(s.v.data(), 2), s.w, s.links);
    CHECK(short_v.step(T(1) / 60) == XPBD_STATUS_INVALID_ARGUMENT);
    // Features off and on again: remove() is a step without them.
    CHECK(world.has(xpbd::Feature::Tearing) && world.has(xpbd::Feature::Groups));
    world.remove(xpbd::Feature::SelfCollision).remove(xpbd::Feature::Tearing).remove(xpbd::Feature::Groups);
    world.remove(xpbd::Feature::EngineContacts).remove(xpbd::Feature::Colliders);
    CHECK(!world.has(xpbd::Feature::Tearing) && !world.has(xpbd::Feature::Colliders));
    const auto small = world.requirements();
    CHECK(small.ok() && small.value.memory_size < need && small.value.pairs == 0 && small.value.contacts == 0);
    const auto r = world.step(T(1) / 60, config);
    CHECK(r.ok() && r.stats.substeps == 20 && r.stats.max_contacts == 0 && s.x != x);
    world.set_self_collision(s.rest);
    CHECK(world.has(xpbd::Feature::SelfCollision) && world.requirements().value.pairs == 6 * s.x.size());
    // A raw world stays reachable; the precision check reads it.
    CHECK(world.c().particle_count == s.x.size());
    const auto p = world.precision();
    CHECK(p.ok() && p.value.ratio > 0 && p.value.particle < s.x.size());
}

// Wind: a plate in a crosswind through xpbd.hpp moves as the C block
// makes it move, bit for bit, downwind; a bad value is a result naming
// its field and entry, nothing moved.
template <class T>
void wind() {
    using A = xpbd::detail::Api<T>;
    using P = std::array<T, 3>;
    const std::vector<P> x0 = {P{0, 1, 0}, P{1, 1, 0}, P{0, 1, 1}, P{1, 1, 1}};
    const std::vector<T> w = {0, 1, 1, 1};
    std::vector<xpbd::Link<T>> links(5);
    const std::uint32_t ends[5][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {1, 2}};
    for (int k = 0; k < 5; ++k) {
        links[k] = xpbd::Link<T>{};
        links[k].i = ends[k][0], links[k].j = ends[k][1];
        links[k].rest = k == 4 ? T(std::sqrt(2.0)) : T(1);
    }
    std::vector<xpbd::AeroTriangle<T>> tris = {xpbd::aero_triangle<T>(0, 1, 2), xpbd::aero_triangle<T>(1, 3, 2)};
    CHECK(tris[1].particles[1] == 3 && tris[0].drag == T(1.2) && tris[0].lift == T(0.1));
    const P gust = {T(0), T(8), T(0)};  // m/s, up through the plate
    // Through xpbd.hpp.
    std::vector<P> x = x0, v(4, P{0, 0, 0});
    std::vector<xpbd::Link<T>> l = links;
    std::vector<std::uint64_t> memory;
    xpbd::World<T> world(x, v, w, l);
    world.set_wind(tris, gust);
    CHECK(world.has(xpbd::Feature::Wind));
    const auto needs = world.requirements();
    CHECK_OK(needs);
    memory.assign(needs.value.memory_size / 8 + 1, 0);
    world.set_memory(memory);
    // Through the C API.
    std::vector<P> cx = x0, cv(4, P{0, 0, 0});
    std::vector<xpbd::Link<T>> cl = links;
    typename A::World cw = A::world3_default();
    typename A::Wind cwind = A::wind3_default();
    CHECK(cwind.triangles == nullptr && cwind.density == T(XPBD_AIR_DENSITY) && cwind.velocity[1] == T(0));
    cw.positions = reinterpret_cast<T(*)[3]>(cx.data());
    cw.velocities = reinterpret_cast<T(*)[3]>(cv.data());
    cw.inverse_masses = w.data(), cw.particle_count = 4;
    cw.links = cl.data(), cw.link_count = cl.size();
    cwind.triangles = tris.data(), cwind.triangle_count = tris.size();
    cwind.velocity[1] = gust[1];
    CHECK(A::world3_add(&cw, &cwind.block) == XPBD_STATUS_OK);
    XpbdRequirements r{};
    CHECK(A::world3_requirements(&cw, &r) == XPBD_STATUS_OK);
    std::vector<std::uint64_t> cmemory(r.memory_size / 8 + 1, 0);
    cw.memory = cmemory.data(), cw.memory_size = cmemory.size() * 8;
    xpbd::Config<T> config;
    // Without the block: where the plate falls to.
    std::vector<P> fx = x0, fv(4, P{0, 0, 0});
    std::vector<xpbd::Link<T>> fl = links;
    std::vector<std::uint64_t> fmemory;
    xpbd::World<T> still(fx, fv, w, fl);
    fmemory.assign(still.requirements().value.memory_size / 8 + 1, 0);
    still.set_memory(fmemory);
    bool ok = true;
    for (int f = 0; f < 30; ++f) {
        ok = ok && world.step(T(1) / 60, config).ok() && still.step(T(1) / 60, config).ok();
        ok = ok && A::world3_step(&cw, T(1) / 60, &config, nullptr) == XPBD_STATUS_OK;
    }
    CHECK(ok && x == cx && v == cv && x[3][1] > fx[3][1] + T(0.1));
    // Errors: a NaN wind, then a triangle out of range; nothing moved.
    const auto x1 = x, v1 = v;
    world.set_wind(tris, P{T(std::nan("")), 0, 0});
    const auto e = world.step(T(1) / 60, config);
    CHECK(e == XPBD_STATUS_INVALID_WIND && e.field() == xpbd::Field::WindVelocity && e.index() == 0);
    CHECK(std::strcmp(e.field_name(), "wind_velocity") == 0);
    tris[1].particles[2] = 4;
    world.set_wind(tris, gust);
    const auto t = world.step(T(1) / 60, config);
    CHECK(t == XPBD_STATUS_INVALID_WIND && t.field() == xpbd::Field::AeroTriangles && t.index() == 1);
    tris[1].particles[2] = 2;
    // Per-particle wind: one per particle, or the wrapper refuses it.
    world.set_wind(tris, gust, xpbd::View3<const T>(reinterpret_cast<const T(*)[3]>(v1.data()), 2));
    const auto p = world.step(T(1) / 60, config);
    CHECK(p == XPBD_STATUS_INVALID_ARGUMENT && p.field() == xpbd::Field::ParticleWind);
    CHECK(x == x1 && v == v1);
    world.remove(xpbd::Feature::Wind);
    CHECK(!world.has(xpbd::Feature::Wind) && world.step(T(1) / 60, config).ok());
}

// Local space: a strip pinned at its top in a root that runs and turns
// through xpbd.hpp moves as the C block makes it move, bit for bit; the
// step's write-back (previous = target, teleport = 0) reaches the caller's
// struct; a bad value is a result naming its field, nothing moved and the
// caller's struct unwritten.
template <class T>
void local_space() {
    using A = xpbd::detail::Api<T>;
    using P = std::array<T, 3>;
    const std::vector<P> x0 = {P{0, 0, T(0.1)}, P{T(0.5), 0, T(0.1)}, P{0, T(-0.5), T(0.1)},
                               P{T(0.5), T(-0.5), T(0.1)}};
    const std::vector<T> w = {0, 0, 2, 2};
    std::vector<xpbd::Link<T>> links(5);
    const std::uint32_t ends[5][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {1, 2}};
    for (int k = 0; k < 5; ++k) {
        links[k] = xpbd::Link<T>{};
        links[k].i = ends[k][0], links[k].j = ends[k][1];
        links[k].rest = k == 4 ? T(std::sqrt(0.5)) : T(0.5);
    }
    const xpbd::Transform<T> id = xpbd::identity_transform<T>();
    CHECK(id.rotation[3] == T(1) && id.rotation[1] == T(0) && id.translation[0] == T(0));
    xpbd::LocalSpace<T> local = xpbd::local_space<T>();
    CHECK(local.linear_inertia == T(1) && local.angular_inertia == T(1) && local.teleport == 0);
    CHECK(std::isinf(local.max_linear_velocity) && local.target.rotation[3] == T(1));
    local.linear_inertia = T(0.5), local.angular_inertia = T(0.25);
    // Through xpbd.hpp.
    std::vector<P> x = x0, v(4, P{0, 0, 0});
    std::vector<xpbd::Link<T>> l = links;
    std::vector<std::uint64_t> memory;
    xpbd::World<T> world(x, v, w, l);
    world.set_local_space(local);
    CHECK(world.has(xpbd::Feature::LocalSpace));
    memory.assign(world.requirements().value.memory_size / 8 + 1, 0);
    world.set_memory(memory);
    // Through the C API.
    std::vector<P> cx = x0, cv(4, P{0, 0, 0});
    std::vector<xpbd::Link<T>> cl = links;
    typename A::World cw = A::world3_default();
    typename A::LocalSpace3 cls = A::local_space3_default();
    CHECK(cls.block.kind % XPBD_BLOCK_F32 == XPBD_BLOCK_LOCAL_SPACE && cls.block.size == sizeof cls);
    cls.local = local;
    cw.positions = reinterpret_cast<T(*)[3]>(cx.data());
    cw.velocities = reinterpret_cast<T(*)[3]>(cv.data());
    cw.inverse_masses = w.data(), cw.particle_count = 4;
    cw.links = cl.data(), cw.link_count = cl.size();
    CHECK(A::world3_add(&cw, &cls.block) == XPBD_STATUS_OK);
    XpbdRequirements r{};
    CHECK(A::world3_requirements(&cw, &r) == XPBD_STATUS_OK);
    std::vector<std::uint64_t> cmemory(r.memory_size / 8 + 1, 0);
    cw.memory = cmemory.data(), cw.memory_size = cmemory.size() * 8;
    xpbd::Config<T> config;
    bool ok = true, written = true;
    for (int f = 0; f < 30; ++f) {
        // The root runs along x at 3 m/s and turns about y at 2 rad/s.
        const double t = (f + 1) / 60.0;
        const T target[7] = {0, T(std::sin(t)), 0, T(std::cos(t)), T(3 * t), 0, 0};
        for (int k = 0; k < 4; ++k) local.target.rotation[k] = cls.local.target.rotation[k] = target[k];
        for (int k = 0; k < 3; ++k) local.target.translation[k] = cls.local.target.translation[k] = target[4 + k];
        local.teleport = cls.local.teleport = f == 10 ? 1 : 0;
        ok = ok && world.step(T(1) / 60, config).ok();
        ok = ok && A::world3_step(&cw, T(1) / 60, &config, nullptr) == XPBD_STATUS_OK;
        written = written && local.teleport == 0 && local.previous.translation[0] == local.target.translation[0] &&
                  local.previous.rotation[1] == local.target.rotation[1] &&
                  cls.local.previous.rotation[1] == local.previous.rotation[1];
    }
    CHECK(ok && written && x == cx && v == cv && x[3][2] != x0[3][2]);
    // Errors: a non-unit rotation, then an inertia over 1; nothing moved,
    // the caller's struct unwritten.
    const auto x1 = x, v1 = v;
    local.teleport = 1;
    local.target.rotation[3] = T(2);
    const auto e = world.step(T(1) / 60, config);
    CHECK(e == XPBD_STATUS_INVALID_LOCAL_SPACE && e.field() == xpbd::Field::RootTransform && e.index() == 0);
    CHECK(std::strcmp(e.field_name(), "root_transform") == 0 && local.teleport == 1);
    local.target = local.previous;
    local.linear_inertia = T(1.5);
    const auto i = world.step(T(1) / 60, config);
    CHECK(i == XPBD_STATUS_INVALID_LOCAL_SPACE && i.field() == xpbd::Field::InertiaScale);
    CHECK(std::strcmp(i.field_name(), "inertia_scale") == 0);
    local.linear_inertia = T(0.5), local.max_angular_velocity = T(-1);
    const auto m = world.step(T(1) / 60, config);
    CHECK(m == XPBD_STATUS_INVALID_LOCAL_SPACE && m.field() == xpbd::Field::FrameVelocityLimit);
    CHECK(x == x1 && v == v1 && local.teleport == 1);
    local.max_angular_velocity = T(INFINITY);
    CHECK(world.step(T(1) / 60, config).ok() && local.teleport == 0);
    world.remove(xpbd::Feature::LocalSpace);
    CHECK(!world.has(xpbd::Feature::LocalSpace) && world.step(T(1) / 60, config).ok());
}

// Skinned constraints: skin_constraint() is xpbd_skin_constraint_default;
// a square pinned at one corner, its other corners held within 5 cm of
// skinned points that move and behind backstops, steps through xpbd.hpp as
// through the C groups block, bit for bit, previous = target written; a
// bad max distance is a result naming the constraint, nothing moved.
template <class T>
void skin() {
    using A = xpbd::detail::Api<T>;
    using P = std::array<T, 3>;
    const xpbd::SkinConstraint<T> s = xpbd::skin_constraint(2, P{1, T(0.5), 0}, {0, 0, -1});
    const xpbd::SkinConstraint<T> c = A::skin_constraint_default(2, 1, T(0.5), 0, 0, 0, -1);
    CHECK(s.particle == 2 && same_bits(s.previous, c.previous) && same_bits(s.target, c.target));
    CHECK(same_bits(s.target_normal, c.target_normal) && s.target_normal[2] == T(-1) && s.target[1] == T(0.5));
    CHECK(std::isinf(s.max_distance) && s.backstop_radius == T(0) && s.compliance == T(0));
    const std::vector<P> x0 = {P{0, 0, 0}, P{T(0.5), 0, 0}, P{0, T(-0.5), 0}, P{T(0.5), T(-0.5), 0}};
    const std::vector<T> w = {0, 2, 2, 2};
    std::vector<xpbd::Link<T>> links(5);
    const std::uint32_t ends[5][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {1, 2}};
    for (int k = 0; k < 5; ++k) {
        links[k] = xpbd::Link<T>{};
        links[k].i = ends[k][0], links[k].j = ends[k][1];
        links[k].rest = k == 4 ? T(std::sqrt(0.5)) : T(0.5);
    }
    std::vector<xpbd::SkinConstraint<T>> skins;
    for (std::uint32_t k = 1; k < 4; ++k) {
        skins.push_back(xpbd::skin_constraint<T>(k, x0[k], {0, 0, -1}));
        skins.back().max_distance = T(0.05);
        skins.back().backstop_distance = T(-0.01), skins.back().backstop_radius = T(1);
    }
    // Through xpbd.hpp.
    std::vector<P> x = x0, v(4, P{0, 0, 0});
    std::vector<xpbd::Link<T>> l = links;
    std::vector<xpbd::SkinConstraint<T>> sk = skins;
    std::vector<std::uint64_t> memory;
    xpbd::World<T> world(x, v, w, l);
    world.set_skin_constraints(sk);
    CHECK(world.has(xpbd::Feature::Groups));
    memory.assign(world.requirements().value.memory_size / 8 + 1, 0);
    world.set_memory(memory);
    // Through the C API.
    std::vector<P> cx = x0, cv(4, P{0, 0, 0});
    std::vector<xpbd::Link<T>> cl = links;
    std::vector<xpbd::SkinConstraint<T>> csk = skins;
    typename A::World cw = A::world3_default();
    typename A::Groups cg = A::groups3_default();
    cw.positions = reinterpret_cast<T(*)[3]>(cx.data());
    cw.velocities = reinterpret_cast<T(*)[3]>(cv.data());
    cw.inverse_masses = w.data(), cw.particle_count = 4;
    cw.links = cl.data(), cw.link_count = cl.size();
    cg.groups.skin_constraints = csk.data(), cg.groups.skin_constraint_count = csk.size();
    CHECK(A::world3_add(&cw, &cg.block) == XPBD_STATUS_OK);
    XpbdRequirements r{};
    CHECK(A::world3_requirements(&cw, &r) == XPBD_STATUS_OK);
    std::vector<std::uint64_t> cmemory(r.memory_size / 8 + 1, 0);
    cw.memory = cmemory.data(), cw.memory_size = cmemory.size() * 8;
    xpbd::Config<T> config;
    bool ok = true, written = true;
    T worst = 0;
    for (int f = 0; f < 30; ++f) {
        // The skinned points sway along z.
        const T dz = T(0.1 * std::sin((f + 1) / 10.0));
        for (std::size_t k = 0; k < sk.size(); ++k) sk[k].target[2] = csk[k].target[2] = x0[k + 1][2] + dz;
        ok = ok && world.step(T(1) / 60, config).ok();
        ok = ok && A::world3_step(&cw, T(1) / 60, &config, nullptr) == XPBD_STATUS_OK;
        for (std::size_t k = 0; k < sk.size(); ++k) {
            written = written && same_bits(sk[k].previous, sk[k].target) &&
                      same_bits(sk[k].lambda, csk[k].lambda) && same_bits(csk[k].previous, sk[k].previous);
            T d2 = 0;
            for (int i = 0; i < 3; ++i) d2 += (x[k + 1][i] - sk[k].target[i]) * (x[k + 1][i] - sk[k].target[i]);
            worst = std::max(worst, std::sqrt(d2) - sk[k].max_distance);
        }
    }
    CHECK(ok && written && x == cx && v == cv && x[3][2] != x0[3][2] && worst < T(1e-4));
    // An error: a negative max distance; nothing moved.
    const auto x1 = x, v1 = v;
    sk[1].max_distance = T(-1);
    const auto e = world.step(T(1) / 60, config);
    // The C world names the same constraint (its index after the links').
    csk[1].max_distance = T(-1);
    CHECK(A::world3_step(&cw, T(1) / 60, &config, nullptr) == XPBD_STATUS_INVALID_REST_VALUE);
    CHECK(e == XPBD_STATUS_INVALID_REST_VALUE && e.index() == cw.error_index && e.index() == l.size() + 1);
    CHECK(x == x1 && v == v1 && x == cx);
    sk[1].max_distance = T(0.05);
    CHECK(world.step(T(1) / 60, config).ok());
    world.remove(xpbd::Feature::Groups);
    CHECK(!world.has(xpbd::Feature::Groups) && world.step(T(1) / 60, config).ok());
}

}  // namespace

int main() {
    results();
    golden();
    views();
    builders<double>();
    builders<float>();
    coloring();
    system();
    xpbd::Config<double> cd;
    xpbd::Config<float> cf;
    world_vs_c<double>(plain_cloth<double>, 90, cd, "cloth world (double) = C");
    world_vs_c<float>(plain_cloth<float>, 90, cf, "cloth world (float) = C");
    world_vs_c<double>(soft_scene<double>, 60, cd, "soft bodies (double) = C");
    world_vs_c<float>(soft_scene<float>, 60, cf, "soft bodies (float) = C");
    colored<double>();
    colored<float>();
    errors<double>();
    errors<float>();
    wind<double>();
    wind<float>();
    local_space<double>();
    local_space<float>();
    skin<double>();
    skin<float>();
    std::printf("xpbd.hpp (C++%ld): %d passed, %d failed\n", long(__cplusplus / 100 % 100), passed, failed);
    return failed == 0 ? 0 : 1;
}
