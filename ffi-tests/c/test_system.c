/* Constraint systems through the C ABI: a one-link system against the 1D
 * seed, builders, convergence, the lifecycle checks, NULL, aliasing and bad
 * indices, f64 and f32, 2D and 3D. */
#include "ensure.h"

#include <math.h>

/* Links compared field by field: XpbdLink has tail padding, whose bytes
 * are unspecified (memcmp over them reads indeterminate values). */
static int same_links(const XpbdLink *a, const XpbdLink *b, size_t n) {
    size_t k;
    for (k = 0; k < n; ++k) {
        if (a[k].i != b[k].i || a[k].j != b[k].j || a[k].flags != b[k].flags ||
            memcmp(&a[k].rest, &b[k].rest, sizeof a[k].rest) != 0 ||
            memcmp(&a[k].compliance, &b[k].compliance, sizeof a[k].compliance) != 0 ||
            memcmp(&a[k].lambda, &b[k].lambda, sizeof a[k].lambda) != 0) {
            return 0;
        }
    }
    return 1;
}

static void one_link_matches_seed(void) {
    double x[2][3] = {{0.0, 0.0, 0.0}, {2.0, 0.0, 0.0}};
    const double w[2] = {1.0, 1.0};
    XpbdLink links[1] = {{0, 1, 1.0, 0.01, 0.0, 0}};
    XpbdSystem3 sys;
    XpbdSweepStats stats;
    XpbdDistanceConstraint seed = {0.0};
    double a = 0.0, b = 2.0;
    int i;
    memset(&sys, 0, sizeof sys);
    sys.positions = x;
    sys.inverse_masses = w;
    sys.particle_count = 2;
    sys.links = links;
    sys.link_count = 1;
    sys.zero_length_policy = XPBD_ZERO_LENGTH_REJECT;
    ENSURE_STATUS(xpbd_system3_begin_substep(&sys, 0.1), XPBD_STATUS_OK);
    ENSURE(sys.substep_active == 1);
    for (i = 0; i < 10; ++i) {
        ENSURE_STATUS(xpbd_system3_iterate(&sys, &stats), XPBD_STATUS_OK);
        ENSURE_STATUS(xpbd_distance_solve(&seed, &a, &b, 1.0, 1.0, 1.0, 0.01, 0.1), XPBD_STATUS_OK);
        ENSURE_BITS64(x[0][0], a);
        ENSURE_BITS64(x[1][0], b);
        ENSURE_BITS64(links[0].lambda, seed.lambda);
    }
    ENSURE_BITS64(x[1][0] - x[0][0] - 1.0, 0.3333333333333335);
    ENSURE(stats.applied == 1);
    /* A new substep resets λ. */
    ENSURE_STATUS(xpbd_system3_begin_substep(&sys, 0.1), XPBD_STATUS_OK);
    ENSURE_BITS64(links[0].lambda, 0.0);
}

static void rope_converges(void) {
    enum { N = 10 };
    double x[N][3];
    double w[N];
    XpbdLink links[N];
    size_t count = 0;
    XpbdSystem3 sys;
    XpbdConvergence result;
    int k;
    for (k = 0; k < N; ++k) {
        x[k][0] = 0.1 * k; x[k][1] = 0.0; x[k][2] = 0.0;
        w[k] = k == 0 ? 0.0 : 1.0;
    }
    ENSURE_STATUS(xpbd_build_rope3(&x[0][0], N, 1e-6, links, N, &count), XPBD_STATUS_OK);
    ENSURE(count == N - 1);
    ENSURE(links[3].i == 3 && links[3].j == 4);
    x[N - 1][1] = 0.05; /* disturb */
    memset(&sys, 0, sizeof sys);
    sys.positions = x; sys.inverse_masses = w; sys.particle_count = N;
    sys.links = links; sys.link_count = count;
    /* iterate before begin_substep: refused, nothing written. */
    ENSURE_STATUS(xpbd_system3_iterate(&sys, NULL), XPBD_STATUS_NO_SUBSTEP);
    ENSURE_STATUS(xpbd_system3_begin_substep(&sys, 1.0 / 120.0), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system3_iterate_until(&sys, 1e-10, 1000, &result), XPBD_STATUS_OK);
    ENSURE(result.converged == 1);
    ENSURE(result.iterations > 1 && result.iterations < 1000);
    ENSURE(result.last.max_residual <= 1e-10);
    ENSURE_STATUS(xpbd_system3_iterate_until(&sys, -1.0, 10, &result), XPBD_STATUS_INVALID_ARGUMENT);
    {
        XpbdSweepStats m;
        ENSURE_STATUS(xpbd_system3_measure(&sys, NULL), XPBD_STATUS_NULL_POINTER);
        ENSURE_STATUS(xpbd_system3_measure(&sys, &m), XPBD_STATUS_OK);
        ENSURE(m.applied == N - 1);
    }
    /* Loop and builder errors. */
    ENSURE_STATUS(xpbd_build_loop3(&x[0][0], N, 1e-6, links, N, &count), XPBD_STATUS_OK);
    ENSURE(count == N && links[N - 1].i == N - 1 && links[N - 1].j == 0);
    ENSURE_STATUS(xpbd_build_loop3(&x[0][0], N, 1e-6, links, N - 1, &count), XPBD_STATUS_CAPACITY_TOO_SMALL);
    ENSURE_STATUS(xpbd_build_rope3(&x[0][0], 1, 1e-6, links, N, &count), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_build_rope3(&x[0][0], N, 1e-6, links, N, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_rope3(NULL, N, 1e-6, links, N, &count), XPBD_STATUS_NULL_POINTER);
    {
        /* Output count inside the link buffer, links over the positions. */
        XpbdLink before[N];
        memcpy(before, links, sizeof links);
        ENSURE_STATUS(xpbd_build_rope3(&x[0][0], N, 1e-6, links, N, (size_t *)(void *)&links[2]),
                      XPBD_STATUS_ALIASED_BUFFERS);
        ENSURE_STATUS(xpbd_build_rope3(&x[0][0], N, 1e-6, (XpbdLink *)(void *)x, 3, &count),
                      XPBD_STATUS_ALIASED_BUFFERS);
        ENSURE(same_links(before, links, N));
    }
}

static void cloth_f32_converges(void) {
    enum { R = 4, C = 5 };
    float x[R * C][3];
    float w[R * C];
    XpbdLinkF32 links[64];
    size_t count = 0, want = xpbd_cloth_link_count(R, C, 1);
    XpbdSystem3F32 sys;
    XpbdConvergenceF32 result;
    int k;
    ENSURE(want == (size_t)(R * (C - 1) + (R - 1) * C + 2 * (R - 1) * (C - 1)));
    ENSURE(xpbd_cloth_link_count(1, 5, 1) == 0);
    for (k = 0; k < R * C; ++k) {
        x[k][0] = 0.1f * (float)(k % C); x[k][1] = 0.0f; x[k][2] = 0.1f * (float)(k / C);
        w[k] = k < C ? 0.0f : 1.0f; /* top row pinned */
    }
    ENSURE_STATUS(xpbd_build_cloth3_f32(&x[0][0], R, C, 1, 1e-6f, links, 64, &count), XPBD_STATUS_OK);
    ENSURE(count == want);
    ENSURE_STATUS(xpbd_build_cloth3_f32(&x[0][0], R, C, 1, 1e-6f, links, want - 1, &count), XPBD_STATUS_CAPACITY_TOO_SMALL);
    ENSURE_STATUS(xpbd_build_cloth3_f32(&x[0][0], 0, C, 1, 1e-6f, links, 64, &count), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_build_cloth3_f32(&x[0][0], 1, C, 1, 1e-6f, links, 64, &count), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_build_cloth3_f32(&x[0][0], R, C, 1, 1e-6f, links, 64, &count), XPBD_STATUS_OK);
    x[R * C - 1][0] += 0.03f; /* in-plane disturbance */
    memset(&sys, 0, sizeof sys);
    sys.positions = x; sys.inverse_masses = w; sys.particle_count = R * C;
    sys.links = links; sys.link_count = count; sys.zero_length_policy = XPBD_ZERO_LENGTH_SKIP;
    ENSURE_STATUS(xpbd_system3_begin_substep_f32(&sys, 1.0f / 60.0f), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system3_iterate_until_f32(&sys, 1e-5f, 500, &result), XPBD_STATUS_OK);
    ENSURE(result.converged == 1);
}

/* Every rejection leaves positions and λ as they were (bit for bit). */
static void rejections_change_nothing(void) {
    double x[3][2] = {{0.0, 0.0}, {1.0, 0.0}, {2.0, 0.0}};
    double w[3] = {1.0, 1.0, 1.0};
    XpbdLink links[2] = {{0, 1, 1.0, 0.01, 0.5, 0}, {1, 2, 1.0, 0.01, 0.5, 0}};
    double x0[3][2];
    XpbdLink l0[2];
    XpbdSystem2 sys;
    memcpy(x0, x, sizeof x);
    memcpy(l0, links, sizeof links);
    memset(&sys, 0, sizeof sys);
    sys.positions = x; sys.inverse_masses = w; sys.particle_count = 3;
    sys.links = links; sys.link_count = 2;

#define EXPECT_REJECT(status, index)                                              \
    do {                                                                         \
        ENSURE_STATUS(xpbd_system2_begin_substep(&sys, 0.1), status);           \
        ENSURE(sys.error_index == (size_t)(index));                              \
        ENSURE(sys.substep_active == 0);                                         \
        ENSURE(memcmp(x, x0, sizeof x) == 0);                                    \
        ENSURE(same_links(links, l0, 2));                                        \
    } while (0)

    ENSURE_STATUS(xpbd_system2_begin_substep(NULL, 0.1), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system2_begin_substep(&sys, 0.0), XPBD_STATUS_INVALID_TIME_STEP);
    ENSURE_STATUS(xpbd_system2_begin_substep(&sys, 1e-200), XPBD_STATUS_UNREPRESENTABLE_SCALE);
    links[1].j = 3; l0[1].j = 3;
    EXPECT_REJECT(XPBD_STATUS_INDEX_OUT_OF_RANGE, 1);
    links[1].j = 1; l0[1].j = 1;
    EXPECT_REJECT(XPBD_STATUS_SAME_PARTICLE, 1);
    links[1].j = 2; l0[1].j = 2;
    links[0].rest = -1.0; l0[0].rest = -1.0;
    EXPECT_REJECT(XPBD_STATUS_INVALID_REST_LENGTH, 0);
    links[0].rest = 1.0; l0[0].rest = 1.0;
    w[2] = -1.0;
    EXPECT_REJECT(XPBD_STATUS_INVALID_INVERSE_MASS, 2);
    w[2] = 1.0;
    x[1][1] = 0.0 * HUGE_VAL; memcpy(x0, x, sizeof x);
    EXPECT_REJECT(XPBD_STATUS_NON_FINITE_POSITION, 1);
    x[1][1] = 0.0; x[1][0] = 0.0; memcpy(x0, x, sizeof x);
    EXPECT_REJECT(XPBD_STATUS_ZERO_LENGTH, 0);
    x[1][0] = 1.0; memcpy(x0, x, sizeof x);
    sys.zero_length_policy = 7;
    EXPECT_REJECT(XPBD_STATUS_INVALID_ARGUMENT, 0);
    sys.zero_length_policy = XPBD_ZERO_LENGTH_REJECT;

    /* Aliasing: inverse masses inside the position buffer, links over the
     * system struct itself. */
    sys.inverse_masses = &x[0][0];
    EXPECT_REJECT(XPBD_STATUS_ALIASED_BUFFERS, 0);
    sys.inverse_masses = w;
    sys.links = (XpbdLink *)(void *)x;
    ENSURE_STATUS(xpbd_system2_begin_substep(&sys, 0.1), XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE(memcmp(x, x0, sizeof x) == 0);
    sys.links = links;
    /* NULL buffers are accepted only with a zero count. */
    sys.positions = NULL;
    ENSURE_STATUS(xpbd_system2_begin_substep(&sys, 0.1), XPBD_STATUS_NULL_POINTER);
    sys.positions = x;
    sys.links = NULL; sys.link_count = 0;
    ENSURE_STATUS(xpbd_system2_begin_substep(&sys, 0.1), XPBD_STATUS_OK);
    sys.links = links; sys.link_count = 2;
    ENSURE_STATUS(xpbd_system2_begin_substep(&sys, 0.1), XPBD_STATUS_OK);
    /* An index broken mid-substep (against the rule) is still caught. */
    links[1].i = 99;
    ENSURE_STATUS(xpbd_system2_iterate(&sys, NULL), XPBD_STATUS_INDEX_OUT_OF_RANGE);
    ENSURE(sys.error_index == 1);
    links[1].i = 1;
#undef EXPECT_REJECT
}

static void f32_2d_smoke(void) {
    float x[3][2] = {{0.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 1.5f}};
    float w[3] = {0.0f, 1.0f, 1.0f};
    XpbdLinkF32 links[2];
    size_t count;
    XpbdSystem2F32 sys;
    XpbdSweepStatsF32 s;
    ENSURE_STATUS(xpbd_build_rope2_f32(&x[0][0], 3, 0.0f, links, 2, &count), XPBD_STATUS_OK);
    ENSURE(count == 2);
    ENSURE_BITS32(links[1].rest, 1.5f);
    x[2][1] = 2.0f;
    memset(&sys, 0, sizeof sys);
    sys.positions = x; sys.inverse_masses = w; sys.particle_count = 3;
    sys.links = links; sys.link_count = count;
    ENSURE_STATUS(xpbd_system2_begin_substep_f32(&sys, 0.01f), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system2_iterate_f32(&sys, &s), XPBD_STATUS_OK);
    ENSURE(s.applied == 2);
    ENSURE_BITS32(x[0][0], 0.0f); /* static particle never moves */
    ENSURE(x[2][1] < 2.0f);
    {
        XpbdLinkF32 l0[2];
        float xb[3][2];
        memcpy(xb, x, sizeof x);
        memcpy(l0, links, sizeof links);
        ENSURE_STATUS(xpbd_build_loop2_f32(&x[0][0], 3, 0.0f, links, 2, &count), XPBD_STATUS_CAPACITY_TOO_SMALL);
        ENSURE(memcmp(links, l0, sizeof links) == 0);
        ENSURE(memcmp(x, xb, sizeof x) == 0);
    }
}

void test_system(void) {
    one_link_matches_seed();
    rope_converges();
    cloth_f32_converges();
    rejections_change_nothing();
    f32_2d_smoke();
    test_system_null();
}

/* Every system function refuses NULL with XPBD_STATUS_NULL_POINTER. */
void test_system_null(void) {
    XpbdSweepStats s64;
    XpbdSweepStatsF32 s32;
    XpbdConvergence c64;
    XpbdConvergenceF32 c32;
    XpbdLink l64[4];
    XpbdLinkF32 l32[4];
    double x64[12] = {0};
    float x32[12] = {0};
    size_t n = 99;
    ENSURE_STATUS(xpbd_system2_begin_substep(NULL, 0.1), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system3_begin_substep(NULL, 0.1), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system2_begin_substep_f32(NULL, 0.1f), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system3_begin_substep_f32(NULL, 0.1f), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system2_iterate(NULL, &s64), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system3_iterate(NULL, &s64), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system2_iterate_f32(NULL, &s32), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system3_iterate_f32(NULL, &s32), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system2_iterate_until(NULL, 0.0, 1, &c64), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system3_iterate_until(NULL, 0.0, 1, &c64), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system2_iterate_until_f32(NULL, 0.0f, 1, &c32), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system3_iterate_until_f32(NULL, 0.0f, 1, &c32), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system2_measure(NULL, &s64), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system3_measure(NULL, &s64), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system2_measure_f32(NULL, &s32), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system3_measure_f32(NULL, &s32), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_rope2(NULL, 3, 0.0, l64, 4, &n), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_rope3(x64, 3, 0.0, NULL, 4, &n), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_rope2_f32(x32, 3, 0.0f, l32, 4, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_rope3_f32(NULL, 3, 0.0f, l32, 4, &n), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_loop2(x64, 3, 0.0, NULL, 4, &n), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_loop3(NULL, 3, 0.0, l64, 4, &n), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_loop2_f32(x32, 3, 0.0f, l32, 4, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_loop3_f32(x32, 3, 0.0f, NULL, 4, &n), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_cloth2(NULL, 2, 2, 1, 0.0, l64, 4, &n), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_cloth3(x64, 2, 2, 0, 0.0, l64, 4, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_cloth2_f32(x32, 2, 2, 0, 0.0f, NULL, 4, &n), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_cloth3_f32(NULL, 2, 2, 0, 0.0f, l32, 4, &n), XPBD_STATUS_NULL_POINTER);
    ENSURE(n == 99); /* never written on error */
    /* Coincident particles: the builders reject, naming nothing half-written. */
    ENSURE_STATUS(xpbd_build_cloth2(x64, 2, 2, 0, 0.0, l64, 4, &n), XPBD_STATUS_INVALID_REST_LENGTH);
    ENSURE(n == 99);
}
