/* Colored solving through the C ABI: a plain C implementation of the
 * documented colored equations is matched bit for bit by
 * xpbd_simd_links3_iterate (AoS and SoA) and by xpbd_simd_links3_solve_job for
 * several job counts run in any order; f32; greedy and cloth colorings; the
 * rejections (NULL, no substep, layout, aliasing, improper coloring, bad
 * input with nothing written); every SIMD kernel level the CPU has. */
#include "ensure.h"

#include <float.h>
#include <math.h>

#define N 41          /* particles: 40 links, colors of 20 and 20 */
#define M (N - 1)
#define SWEEPS 5

typedef struct {
    uint32_t colors[M], order[M], i[M], j[M];
    size_t starts[3];
    double rest[M], compliance[M], lambda[M], alpha[M], g[M];
    uint32_t stamp[N];
    double w[N];
    double x0[N][3];
} Rope;

static void make_rope(Rope *r) {
    XpbdLink links[M];
    size_t count = 0;
    uint32_t colors = 0;
    int k;
    for (k = 0; k < N; ++k) {
        r->x0[k][0] = 0.1 * k;
        r->x0[k][1] = 0.0;
        r->x0[k][2] = 0.0;
        r->w[k] = k == 0 ? 0.0 : 1.0 + 0.1 * (k % 3);
    }
    ENSURE_STATUS(xpbd_build_rope3(&r->x0[0][0], N, 1e-5, links, M, &count), XPBD_STATUS_OK);
    ENSURE(count == M);
    ENSURE_STATUS(xpbd_color_rope(M, 0, r->colors, M, &colors), XPBD_STATUS_OK);
    ENSURE(colors == 2);
    ENSURE_STATUS(xpbd_color_order(r->colors, M, 2, r->starts, r->order), XPBD_STATUS_OK);
    ENSURE(r->starts[0] == 0 && r->starts[1] == M / 2 && r->starts[2] == M);
    ENSURE_STATUS(xpbd_colored_links_fill(links, M, r->order, M, r->i, r->j, r->rest,
                                          r->compliance, r->lambda),
                  XPBD_STATUS_OK);
    /* Stretch and bend. */
    for (k = 0; k < N; ++k) {
        r->x0[k][0] *= 1.2;
        r->x0[k][1] = 0.01 * (k % 4);
        r->x0[k][2] = 0.003 * (k % 5);
    }
}

/* The colored equations of xpbd (src/colored/kernel/), link by link. */
static void reference(const Rope *r, double x[N][3], double lambda[M], double h) {
    double h2 = h * h, alpha[M], g[M];
    int k, s;
    for (k = 0; k < M; ++k) {
        double ws = r->w[r->i[k]] + r->w[r->j[k]];
        alpha[k] = r->compliance[k] / h2;
        g[k] = ws == 0.0 ? 0.0 : 1.0 / (ws + alpha[k]);
        lambda[k] = 0.0;
    }
    for (s = 0; s < SWEEPS; ++s) {
        for (k = 0; k < M; ++k) {
            double *a = x[r->i[k]], *b = x[r->j[k]];
            double wi = r->w[r->i[k]], wj = r->w[r->j[k]];
            double d0 = b[0] - a[0], d1 = b[1] - a[1], d2 = b[2] - a[2];
            double len2 = 0.0 + d0 * d0 + d1 * d1 + d2 * d2;
            double len, rr, c, num, delta, si, sj;
            if (wi + wj == 0.0 || !(len2 >= DBL_MIN)) continue;
            len = sqrt(len2);
            rr = 1.0 / len;
            c = len - r->rest[k];
            num = -c - alpha[k] * lambda[k];
            delta = num * g[k];
            si = wi * delta;
            sj = wj * delta;
            a[0] = a[0] - si * (d0 * rr); a[1] = a[1] - si * (d1 * rr); a[2] = a[2] - si * (d2 * rr);
            b[0] = b[0] + sj * (d0 * rr); b[1] = b[1] + sj * (d1 * rr); b[2] = b[2] + sj * (d2 * rr);
            lambda[k] = lambda[k] + delta;
        }
    }
}

static void setup(XpbdSimdLinks3 *sys, Rope *r) {
    memset(sys, 0, sizeof *sys);
    sys->inverse_masses = r->w;
    sys->particle_count = N;
    sys->i = r->i;
    sys->j = r->j;
    sys->rest = r->rest;
    sys->compliance = r->compliance;
    sys->lambda = r->lambda;
    sys->alpha = r->alpha;
    sys->inv_denominator = r->g;
    sys->link_count = M;
    sys->color_starts = r->starts;
    sys->color_count = 2;
    sys->stamp = r->stamp;
    sys->zero_length_policy = XPBD_ZERO_LENGTH_REJECT;
}

static void colored_matches_reference(void) {
    static Rope r;
    double want[N][3], want_lambda[M], aos[N][3], xs[N], ys[N], zs[N];
    const double h = 1.0 / 240.0;
    XpbdSimdLinks3 sys;
    XpbdSweepStats st;
    int k, s, jobs;
    make_rope(&r);
    memcpy(want, r.x0, sizeof want);
    reference(&r, want, want_lambda, h);

    /* AoS, whole sweeps. */
    memcpy(aos, r.x0, sizeof aos);
    setup(&sys, &r);
    sys.positions = aos;
    ENSURE_STATUS(xpbd_simd_links3_iterate(&sys, &st), XPBD_STATUS_NO_SUBSTEP);
    ENSURE_STATUS(xpbd_simd_links3_begin_substep(&sys, h), XPBD_STATUS_OK);
    ENSURE(sys.substep_active == 1);
    for (s = 0; s < SWEEPS; ++s) ENSURE_STATUS(xpbd_simd_links3_iterate(&sys, &st), XPBD_STATUS_OK);
    ENSURE(st.applied == M - 0 && st.skipped_static == 0);
    for (k = 0; k < N; ++k) {
        ENSURE_BITS64(aos[k][0], want[k][0]);
        ENSURE_BITS64(aos[k][1], want[k][1]);
        ENSURE_BITS64(aos[k][2], want[k][2]);
    }
    for (k = 0; k < M; ++k) ENSURE_BITS64(r.lambda[k], want_lambda[k]);

    /* SoA, jobs: 1, 2, 3 and 7 jobs per color, run last job first. */
    for (jobs = 1; jobs <= 7; jobs += (jobs == 3 ? 4 : 1)) {
        for (k = 0; k < N; ++k) { xs[k] = r.x0[k][0]; ys[k] = r.x0[k][1]; zs[k] = r.x0[k][2]; }
        setup(&sys, &r);
        sys.x = xs; sys.y = ys; sys.z = zs;
        ENSURE_STATUS(xpbd_simd_links3_begin_substep(&sys, h), XPBD_STATUS_OK);
        for (s = 0; s < SWEEPS; ++s) {
            size_t c;
            XpbdSweepStats total;
            memset(&total, 0, sizeof total);
            for (c = 0; c < sys.color_count; ++c) {
                int job;
                for (job = jobs - 1; job >= 0; --job) {
                    XpbdSweepStats part;
                    size_t bad = 99;
                    ENSURE_STATUS(xpbd_simd_links3_solve_job(&sys, c, (size_t)job, (size_t)jobs, &part, &bad),
                                  XPBD_STATUS_OK);
                    ENSURE(bad == 99);
                    ENSURE_STATUS(xpbd_sweep_stats_merge(&total, &part), XPBD_STATUS_OK);
                }
            }
            ENSURE(total.applied == M);
        }
        for (k = 0; k < N; ++k) {
            ENSURE_BITS64(xs[k], want[k][0]);
            ENSURE_BITS64(ys[k], want[k][1]);
            ENSURE_BITS64(zs[k], want[k][2]);
        }
        for (k = 0; k < M; ++k) ENSURE_BITS64(r.lambda[k], want_lambda[k]);
    }
}

static void f32_and_cloth(void) {
    enum { R = 6, C = 7, P = R * C };
    float x[P][3];
    float w[P];
    XpbdLinkF32 links[2 * R * C * 2];
    uint32_t colors[2 * R * C * 2], order[2 * R * C * 2], ii[2 * R * C * 2], jj[2 * R * C * 2];
    float rest[2 * R * C * 2], comp[2 * R * C * 2], lam[2 * R * C * 2], alpha[2 * R * C * 2], g[2 * R * C * 2];
    uint64_t scratch[P];
    uint32_t stamp[P];
    size_t starts[65], m = 0, k;
    uint32_t count = 0, fixed = 0;
    XpbdSimdLinks3F32 sys;
    XpbdSweepStatsF32 st;
    int s;
    for (k = 0; k < P; ++k) {
        x[k][0] = 0.1f * (float)(k % C);
        x[k][1] = 0.1f * (float)(k / C);
        x[k][2] = 0.0f;
        w[k] = k < C ? 0.0f : 1.0f;
    }
    ENSURE_STATUS(xpbd_build_cloth3_f32(&x[0][0], R, C, 1, 1e-6f, links, sizeof links / sizeof links[0], &m),
                  XPBD_STATUS_OK);
    ENSURE(m == xpbd_cloth_link_count(R, C, 1));
    ENSURE_STATUS(xpbd_color_cloth(R, C, 1, colors, m, &fixed), XPBD_STATUS_OK);
    ENSURE(fixed == 8);
    ENSURE_STATUS(xpbd_color_greedy_f32(links, m, P, scratch, colors, &count), XPBD_STATUS_OK);
    ENSURE(count >= 2 && count <= 64);
    ENSURE_STATUS(xpbd_color_order(colors, m, count, starts, order), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_colored_links_fill_f32(links, m, order, m, ii, jj, rest, comp, lam), XPBD_STATUS_OK);
    for (k = 0; k < P; ++k) x[k][2] = 0.02f * (float)(k % 3);
    memset(&sys, 0, sizeof sys);
    sys.positions = x;
    sys.inverse_masses = w;
    sys.particle_count = P;
    sys.i = ii; sys.j = jj; sys.rest = rest; sys.compliance = comp;
    sys.lambda = lam; sys.alpha = alpha; sys.inv_denominator = g;
    sys.link_count = m;
    sys.color_starts = starts;
    sys.color_count = count;
    sys.stamp = stamp;
    ENSURE_STATUS(xpbd_simd_links3_begin_substep_f32(&sys, 1.0f / 120.0f), XPBD_STATUS_OK);
    for (s = 0; s < 20; ++s) ENSURE_STATUS(xpbd_simd_links3_iterate_f32(&sys, &st), XPBD_STATUS_OK);
    ENSURE(st.applied + st.skipped_static == m);
    ENSURE(st.max_residual < 1e-2f);
    for (k = 0; k < P; ++k) ENSURE(isfinite(x[k][0]) && isfinite(x[k][1]) && isfinite(x[k][2]));

    /* An improper coloring (everything one color) is rejected at begin. */
    starts[0] = 0;
    starts[1] = m;
    sys.color_count = 1;
    ENSURE_STATUS(xpbd_simd_links3_begin_substep_f32(&sys, 1.0f / 120.0f), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE(sys.substep_active == 0);
}

static void rejections(void) {
    static Rope r;
    double aos[N][3], xs[N];
    XpbdSimdLinks3 sys;
    size_t b = 0, e = 0;
    int k;
    make_rope(&r);
    memcpy(aos, r.x0, sizeof aos);
    ENSURE_STATUS(xpbd_simd_links3_begin_substep(NULL, 0.01), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_simd_links3_iterate(NULL, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_simd_links3_solve_job(NULL, 0, 0, 1, NULL, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_sweep_stats_merge(NULL, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_job_range(0, 10, 0, 1, NULL, &e), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_job_range(0, 200, 1, 2, &b, &e), XPBD_STATUS_OK);
    ENSURE(b == 128 && e == 200);
    ENSURE_STATUS(xpbd_job_range(0, 200, 2, 2, &b, &e), XPBD_STATUS_INVALID_ARGUMENT);

    /* Both layouts at once. */
    setup(&sys, &r);
    sys.positions = aos;
    sys.x = xs;
    ENSURE_STATUS(xpbd_simd_links3_begin_substep(&sys, 0.01), XPBD_STATUS_INVALID_ARGUMENT);
    /* Aliased: lambda is the alpha scratch. */
    setup(&sys, &r);
    sys.positions = aos;
    sys.alpha = r.lambda;
    ENSURE_STATUS(xpbd_simd_links3_begin_substep(&sys, 0.01), XPBD_STATUS_ALIASED_BUFFERS);
    /* A NaN position: named, nothing written. */
    setup(&sys, &r);
    sys.positions = aos;
    for (k = 0; k < M; ++k) { r.lambda[k] = -2.0; r.alpha[k] = 5.0; }
    aos[7][1] = NAN;
    ENSURE_STATUS(xpbd_simd_links3_begin_substep(&sys, 0.01), XPBD_STATUS_NON_FINITE_POSITION);
    ENSURE(sys.error_index == 7);
    ENSURE(sys.substep_active == 0);
    for (k = 0; k < M; ++k) {
        ENSURE_BITS64(r.lambda[k], -2.0);
        ENSURE_BITS64(r.alpha[k], 5.0);
    }
    ENSURE_STATUS(xpbd_simd_links3_solve_job(&sys, 0, 0, 1, NULL, NULL), XPBD_STATUS_NO_SUBSTEP);
    /* Bad h; bad job arguments on an active system. */
    aos[7][1] = 0.0;
    ENSURE_STATUS(xpbd_simd_links3_begin_substep(&sys, 0.0), XPBD_STATUS_INVALID_TIME_STEP);
    ENSURE_STATUS(xpbd_simd_links3_begin_substep(&sys, 0.01), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_simd_links3_solve_job(&sys, 2, 0, 1, NULL, NULL), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_simd_links3_solve_job(&sys, 0, 1, 1, NULL, NULL), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_simd_links3_solve_job(&sys, 0, 0, 0, NULL, NULL), XPBD_STATUS_INVALID_ARGUMENT);
    /* An index changed behind the library's back is caught, nothing written. */
    r.i[3] = N + 5;
    ENSURE_STATUS(xpbd_simd_links3_iterate(&sys, NULL), XPBD_STATUS_INDEX_OUT_OF_RANGE);
    ENSURE(sys.error_index == 3);
}

/* Every SIMD kernel the CPU has (xpbd_simd_detect) matches the plain C
 * reference bit for bit (SoA: the neighbour fast path in float); the
 * setter refuses, writing nothing, bits the CPU lacks or this version does
 * not define; an undefined bit written directly is refused by the solving
 * calls. */
static void simd_levels(void) {
    static Rope r;
    double want[N][3], want_lambda[M], xs[N], ys[N], zs[N];
    const double h = 1.0 / 240.0;
    const uint32_t detected = xpbd_simd_detect();
    const uint32_t bits[4] = {0, XPBD_SIMD_AVX2, XPBD_SIMD_AVX512, XPBD_SIMD_NEON};
    XpbdSimdLinks3 sys;
    XpbdSweepStats st;
    int k, s, b;
    uint32_t bit;
    make_rope(&r);
    memcpy(want, r.x0, sizeof want);
    reference(&r, want, want_lambda, h);
    ENSURE((detected & ~(uint32_t)(XPBD_SIMD_AVX2 | XPBD_SIMD_AVX512 | XPBD_SIMD_NEON)) == 0);
    for (b = 0; b < 4; ++b) {
        if ((detected & bits[b]) != bits[b]) continue;
        for (k = 0; k < N; ++k) { xs[k] = r.x0[k][0]; ys[k] = r.x0[k][1]; zs[k] = r.x0[k][2]; }
        setup(&sys, &r);
        sys.x = xs; sys.y = ys; sys.z = zs;
        ENSURE_STATUS(xpbd_simd_links3_set_simd(&sys, bits[b]), XPBD_STATUS_OK);
        ENSURE(sys.simd == bits[b]);
        ENSURE_STATUS(xpbd_simd_links3_begin_substep(&sys, h), XPBD_STATUS_OK);
        for (s = 0; s < SWEEPS; ++s) ENSURE_STATUS(xpbd_simd_links3_iterate(&sys, &st), XPBD_STATUS_OK);
        for (k = 0; k < N; ++k) {
            ENSURE_BITS64(xs[k], want[k][0]);
            ENSURE_BITS64(ys[k], want[k][1]);
            ENSURE_BITS64(zs[k], want[k][2]);
        }
        for (k = 0; k < M; ++k) ENSURE_BITS64(r.lambda[k], want_lambda[k]);
    }
    /* Refusals: nothing written. */
    setup(&sys, &r);
    ENSURE_STATUS(xpbd_simd_links3_set_simd(NULL, 0), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_simd_links3_set_simd(&sys, detected), XPBD_STATUS_OK);
    for (bit = 1; bit != 0; bit <<= 1) {
        if (detected & bit) continue;
        ENSURE_STATUS(xpbd_simd_links3_set_simd(&sys, detected | bit), XPBD_STATUS_UNSUPPORTED_FLAG);
        ENSURE(sys.simd == detected);
    }
    {
        XpbdSimdLinks3F32 s32;
        memset(&s32, 0, sizeof s32);
        ENSURE_STATUS(xpbd_simd_links3_set_simd_f32(&s32, 0x80000000u), XPBD_STATUS_UNSUPPORTED_FLAG);
        ENSURE(s32.simd == 0);
    }
    /* An undefined bit written directly. */
    for (k = 0; k < N; ++k) { xs[k] = r.x0[k][0]; ys[k] = r.x0[k][1]; zs[k] = r.x0[k][2]; }
    setup(&sys, &r);
    sys.x = xs; sys.y = ys; sys.z = zs;
    ENSURE_STATUS(xpbd_simd_links3_begin_substep(&sys, h), XPBD_STATUS_OK);
    sys.simd = 8;
    ENSURE_STATUS(xpbd_simd_links3_iterate(&sys, &st), XPBD_STATUS_INVALID_ARGUMENT);
}

void test_colored(void) {
    colored_matches_reference();
    simd_levels();
    f32_and_cloth();
    rejections();
}
