/* Constraint groups through the C ABI (issue 15): tethers built by
 * xpbd_build_tethers3 on a cloth from xpbd_build_cloth3, solved through
 * xpbd_system3_*_groups (λ reset by begin only, kept by iterate) and
 * stepped through xpbd_world3_step with a groups block; errors named after the links,
 * aliasing refused, nothing written on a rejected call; f64 and f32.
 * Colored groups: links, bends and tethers colored (xpbd_color_greedy,
 * xpbd_color_group, xpbd_color_order), solved by xpbd_system3_iterate_colored
 * and by xpbd_system3_solve_group_job (1, 2, 3, 7 jobs) with the bits of
 * the sequential xpbd_system3_iterate_groups; rejected calls write nothing. */
#include "ensure.h"

#include <math.h>

enum { ROWS = 10, COLS = 10, N = ROWS * COLS, LINKS = ROWS * (COLS - 1) + (ROWS - 1) * COLS };

static const double SPACING = 0.05; /* m */

/* A ROWS × COLS cloth hanging in the x-y plane, row 0 on top and pinned. */
static void hanging_cloth(double x[N][3], double w[N]) {
    int k;
    for (k = 0; k < N; ++k) {
        x[k][0] = SPACING * (k % COLS);
        x[k][1] = -SPACING * (k / COLS);
        x[k][2] = 0.0;
        w[k] = k < COLS ? 0.0 : 100.0;
    }
}

static double dist(const double a[3], const double b[3]) {
    double dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static XpbdConstraints3 tether_groups(XpbdTether *tethers, size_t count) {
    XpbdConstraints3 g;
    memset(&g, 0, sizeof g);
    g.tethers = tethers;
    g.tether_count = count;
    return g;
}

static void system_with_tethers(void) {
    static double x[N][3], w[N], x0[N][3];
    static XpbdLink links[LINKS];
    static XpbdTether tethers[N], saved[N];
    uint32_t anchors[COLS];
    size_t link_count = 0, tether_count = 0;
    XpbdSystem3 sys;
    XpbdConstraints3 g, bad;
    XpbdSweepStats stats;
    XpbdConvergence result;
    int k, pulling = 0, within = 1;

    hanging_cloth(x, w);
    for (k = 0; k < COLS; ++k) anchors[k] = (uint32_t)k;
    ENSURE(xpbd_cloth_link_count(ROWS, COLS, 0) == LINKS);
    ENSURE_STATUS(xpbd_build_cloth3(&x[0][0], ROWS, COLS, 0, 0.0, links, LINKS, &link_count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_build_tethers3(&x[0][0], w, N, anchors, COLS, 0.0, tethers, N, &tether_count), XPBD_STATUS_OK);
    ENSURE(tether_count == N - COLS);
    /* Each particle is tied to the pinned particle above it, at its rest distance. */
    ENSURE(tethers[0].particle == COLS && tethers[0].anchor == 0);
    ENSURE(tethers[N - COLS - 1].particle == N - 1 && tethers[N - COLS - 1].anchor == COLS - 1);
    ENSURE(fabs(tethers[N - COLS - 1].max_distance - SPACING * (ROWS - 1)) < 1e-12);

    /* Stretch the cloth: every free row 30 % further down. */
    for (k = COLS; k < N; ++k) x[k][1] *= 1.3;
    memset(&sys, 0, sizeof sys);
    sys.positions = x; sys.inverse_masses = w; sys.particle_count = N;
    sys.links = links; sys.link_count = link_count;
    sys.zero_length_policy = XPBD_ZERO_LENGTH_REJECT;
    g = tether_groups(tethers, tether_count);

    /* iterate before begin: refused, nothing written. */
    memcpy(x0, x, sizeof x);
    ENSURE_STATUS(xpbd_system3_iterate_groups(&sys, &g, NULL), XPBD_STATUS_NO_SUBSTEP);
    ENSURE(memcmp(x, x0, sizeof x) == 0);

    /* A stale λ is reset by begin. */
    tethers[3].lambda = -1.0;
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &g, 1.0 / 240.0), XPBD_STATUS_OK);
    ENSURE(sys.substep_active == 1);
    ENSURE_BITS64(tethers[3].lambda, 0.0);

    /* One sweep: links, then tethers; each tether moves only its own
     * particle, so after it every particle is within its radius. */
    ENSURE_STATUS(xpbd_system3_iterate_groups(&sys, &g, &stats), XPBD_STATUS_OK);
    ENSURE(stats.applied > 0);
    for (k = 0; k < (int)tether_count; ++k) {
        const XpbdTether *t = &tethers[k];
        if (dist(x[t->anchor], x[t->particle]) > t->max_distance + 1e-12) within = 0;
        if (t->lambda > 0.0) within = 0;
        if (t->lambda < 0.0) ++pulling;
    }
    ENSURE(within);
    ENSURE(pulling > 0);

    ENSURE_STATUS(xpbd_system3_iterate_until_groups(&sys, &g, 1e-9, 200, &result), XPBD_STATUS_OK);
    ENSURE(result.iterations >= 1);
    ENSURE(tethers[tether_count - 1].lambda < 0.0);
    ENSURE_STATUS(xpbd_system3_measure_groups(&sys, &g, &stats), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system3_measure_groups(&sys, &g, NULL), XPBD_STATUS_NULL_POINTER);

    /* Errors: named after the links, nothing written. */
    memcpy(x0, x, sizeof x);
    memcpy(saved, tethers, sizeof tethers);
    tethers[5].anchor = N; /* out of range */
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &g, 1.0 / 240.0), XPBD_STATUS_INDEX_OUT_OF_RANGE);
    ENSURE(sys.error_index == link_count + 5);
    ENSURE(sys.substep_active == 0);
    tethers[5] = saved[5];
    tethers[7].max_distance = -1.0;
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &g, 1.0 / 240.0), XPBD_STATUS_INVALID_REST_VALUE);
    ENSURE(sys.error_index == link_count + 7);
    tethers[7] = saved[7];
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(tethers, saved, sizeof tethers) == 0);

    /* Aliasing: a tether array over the positions, an output over the tethers. */
    bad = g;
    bad.tethers = (XpbdTether *)(void *)x;
    bad.tether_count = 2;
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &bad, 1.0 / 240.0), XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &g, 1.0 / 240.0), XPBD_STATUS_OK);
    memcpy(x0, x, sizeof x);
    memcpy(saved, tethers, sizeof tethers);
    ENSURE_STATUS(xpbd_system3_iterate_groups(&sys, &g, (XpbdSweepStats *)(void *)tethers),
                  XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE_STATUS(xpbd_system3_iterate_groups(&sys, NULL, &stats), XPBD_STATUS_NULL_POINTER);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(tethers, saved, sizeof tethers) == 0);
}

/* The largest distance between a column's top and bottom particles over
 * its rest value, minus 1. */
static double height_stretch(double x[N][3]) {
    double worst = -1.0, rest = SPACING * (ROWS - 1);
    int c;
    for (c = 0; c < COLS; ++c) {
        double s = dist(x[c], x[(ROWS - 1) * COLS + c]) / rest - 1.0;
        if (s > worst) worst = s;
    }
    return worst;
}

/* A rigid cloth stepped 60 frames at 4 substeps × 1 iteration, with or
 * without tethers; returns the largest height stretch seen, or 10 on an
 * error. */
static double stepped_cloth(int with_tethers) {
    static double x[N][3], v[N][3], w[N];
    static XpbdLink links[LINKS];
    static XpbdTether tethers[N];
    uint32_t anchors[COLS];
    size_t link_count = 0, tether_count = 0;
    XpbdWorld3 world = xpbd_world3_default();
    XpbdGroups3 groups = xpbd_groups3_default();
    XpbdStepConfig3 config = test_bare_config3();
    XpbdStepStats stats;
    double worst = -1.0;
    int k, f;
    hanging_cloth(x, w);
    memset(v, 0, sizeof v);
    for (k = 0; k < COLS; ++k) anchors[k] = (uint32_t)k;
    if (xpbd_build_cloth3(&x[0][0], ROWS, COLS, 0, 0.0, links, LINKS, &link_count) != XPBD_STATUS_OK) return 10.0;
    if (with_tethers &&
        xpbd_build_tethers3(&x[0][0], w, N, anchors, COLS, 0.0, tethers, N, &tether_count) != XPBD_STATUS_OK) return 10.0;
    /* Tilt the cloth 0.01 rad about its top edge. */
    for (k = 0; k < N; ++k) {
        double y = x[k][1];
        x[k][1] = y * cos(0.01);
        x[k][2] = -y * sin(0.01);
    }
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = N;
    world.links = links; world.link_count = link_count;
    groups.groups = tether_groups(tethers, tether_count);
    if (with_tethers && xpbd_world3_add(&world, &groups.block) != XPBD_STATUS_OK) return 10.0;
    if (test_world3_memory(&world) != XPBD_STATUS_OK) return 10.0;
    config.substeps = 4;
    config.iterations = 1;
    for (f = 0; f < 60; ++f) {
        XpbdStatus s = xpbd_world3_step(&world, 1.0 / 60.0, &config, &stats);
        double h;
        if (s != XPBD_STATUS_OK || stats.substeps != 4) {
            test_world3_free(&world);
            return 10.0;
        }
        h = height_stretch(x);
        if (h > worst) worst = h;
    }
    test_world3_free(&world);
    for (k = 0; k < (int)tether_count; ++k) {
        if (!(tethers[k].lambda <= 0.0)) return 10.0;
    }
    return worst;
}

static void world_with_tethers(void) {
    static double x[N][3], v[N][3], w[N], x0[N][3], v0[N][3];
    static XpbdLink links[LINKS];
    static XpbdTether tethers[N];
    uint32_t anchors[1] = {0};
    size_t link_count = 0, tether_count = 0;
    XpbdWorld3 world = xpbd_world3_default();
    XpbdGroups3 groups = xpbd_groups3_default(), other = xpbd_groups3_default();
    XpbdStepConfig3 config = test_bare_config3();
    double with = stepped_cloth(1), without = stepped_cloth(0);
    printf("C groups: 10x10 rigid cloth, 4 substeps x 1 iteration, 60 frames: height stretch %.4f %% with tethers, %.4f %% without\n",
           100.0 * with, 100.0 * without);
    ENSURE(with < 0.01);
    ENSURE(without > with + 0.01);

    /* Errors: positions and velocities as before, the item named. */
    hanging_cloth(x, w);
    memset(v, 0, sizeof v);
    ENSURE_STATUS(xpbd_build_cloth3(&x[0][0], ROWS, COLS, 0, 0.0, links, LINKS, &link_count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_build_tethers3(&x[0][0], w, N, anchors, 1, 0.0, tethers, N, &tether_count), XPBD_STATUS_OK);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = N;
    world.links = links; world.link_count = link_count;
    groups.groups = tether_groups(tethers, tether_count);
    memcpy(x0, x, sizeof x);
    memcpy(v0, v, sizeof v);
    ENSURE_STATUS(xpbd_world3_add(&world, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_world3_add(NULL, &groups.block), XPBD_STATUS_NULL_POINTER);
    ENSURE(world.blocks == NULL);
    ENSURE_STATUS(xpbd_world3_add(&world, &groups.block), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    tethers[2].compliance = -1.0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COMPLIANCE);
    ENSURE(world.error_index == link_count + 2);
    tethers[2].compliance = 0.0;
    /* The tethers over the world's memory (the old scratch). */
    ENSURE(world.memory_size >= tether_count * sizeof(XpbdTether));
    groups.groups.tethers = (XpbdTether *)world.memory;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    groups.groups.tethers = tethers;
    /* A second groups block: the chain holds one block per kind. */
    ENSURE_STATUS(xpbd_world3_add(&world, &other.block), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_BLOCK);
    ENSURE(world.error_index == 1 && world.error_field == XPBD_FIELD_BLOCK);
    world.blocks = &groups.block;
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    test_world3_free(&world);
}

static void float_twins(void) {
    float x[3][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, -0.5f, 0.0f}, {0.1f, -1.6f, 0.0f}};
    float v[3][3] = {{0.0f}};
    const float w[3] = {0.0f, 1.0f, 1.0f};
    const uint32_t anchor = 0;
    XpbdLinkF32 links[1] = {{0, 1, 0.5f, 0.0f, 0.0f, 0}};
    XpbdTetherF32 tethers[2];
    size_t count = 0;
    XpbdSystem3F32 sys;
    XpbdConstraints3F32 g;
    XpbdSweepStatsF32 stats;
    XpbdConvergenceF32 result;
    XpbdWorld3F32 world = xpbd_world3_default_f32();
    XpbdGroups3F32 groups = xpbd_groups3_default_f32();
    XpbdStepConfig3F32 config = test_bare_config3_f32();
    float first;
    ENSURE_STATUS(xpbd_build_tethers3_f32(&x[0][0], w, 3, &anchor, 1, 0.0f, tethers, 2, &count), XPBD_STATUS_OK);
    ENSURE(count == 2);
    tethers[1].max_distance = 1.0f; /* particle 2 is 1.6 m away */
    memset(&sys, 0, sizeof sys);
    sys.positions = x; sys.inverse_masses = w; sys.particle_count = 3;
    sys.links = links; sys.link_count = 1;
    memset(&g, 0, sizeof g);
    g.tethers = tethers; g.tether_count = 2;
    ENSURE_STATUS(xpbd_system3_iterate_groups_f32(&sys, &g, NULL), XPBD_STATUS_NO_SUBSTEP);
    ENSURE_STATUS(xpbd_system3_begin_substep_groups_f32(&sys, &g, 0.01f), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system3_iterate_groups_f32(&sys, &g, &stats), XPBD_STATUS_OK);
    first = tethers[1].lambda;
    ENSURE(first < -0.1f);
    ENSURE(fabsf(sqrtf(x[2][0] * x[2][0] + x[2][1] * x[2][1]) - 1.0f) < 1e-6f);
    /* Particle 2 is held by its tether alone, now at its radius: the next
     * sweep keeps λ (a reset would bring it back near 0). */
    ENSURE_STATUS(xpbd_system3_iterate_groups_f32(&sys, &g, &stats), XPBD_STATUS_OK);
    ENSURE(fabsf(tethers[1].lambda - first) <= 1e-5f * fabsf(first));
    ENSURE_STATUS(xpbd_system3_iterate_until_groups_f32(&sys, &g, 1e-6f, 4, &result), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system3_measure_groups_f32(&sys, &g, &stats), XPBD_STATUS_OK);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = 3;
    world.links = links; world.link_count = 1;
    groups.groups = g;
    ENSURE_STATUS(xpbd_world3_add_f32(&world, &groups.block), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory_f32(&world), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_step_f32(&world, 1.0f / 60.0f, &config, NULL), XPBD_STATUS_OK);
    ENSURE(sqrtf(x[2][0] * x[2][0] + x[2][1] * x[2][1]) <= 1.0f + 1e-6f);
    test_world3_free_f32(&world);
}

enum { BENDS = (ROWS - 2) * (COLS - 1) + (ROWS - 1) * (COLS - 2) + (ROWS - 1) * (COLS - 1) };

/* One scene in colored order: positions, links, bends, tethers and the
 * boundaries of each group. */
typedef struct {
    double x[N][3], w[N];
    XpbdLink links[LINKS];
    XpbdBend bends[BENDS];
    XpbdTether tethers[N];
    size_t link_count, bend_count, tether_count;
    size_t link_starts[65], bend_starts[65], tether_starts[65];
    uint32_t link_colors, bend_colors, tether_colors;
} ColoredScene;

/* Colors `count` items of `size` bytes (color[k] given), writes them into
 * `items` in colored order and the boundaries into `starts`. */
static int to_colored_order(void *items, size_t size, size_t count, const uint32_t *colors,
                            uint32_t color_count, size_t *starts) {
    static unsigned char copy[32768];
    static uint32_t order[N * 4];
    size_t k;
    if (count * size > sizeof copy || count > N * 4) return 0;
    if (xpbd_color_order(colors, count, color_count, starts, order) != XPBD_STATUS_OK) return 0;
    memcpy(copy, items, count * size);
    for (k = 0; k < count; ++k) memcpy((unsigned char *)items + k * size, copy + order[k] * size, size);
    return 1;
}

static void colored_scene(ColoredScene *s) {
    static uint64_t scratch[N];
    static uint32_t colors[N * 4];
    uint32_t anchors[COLS];
    XpbdConstraints3 g;
    size_t bad_index = 999;
    int k;
    memset(s, 0, sizeof *s);
    hanging_cloth(s->x, s->w);
    for (k = 0; k < COLS; ++k) anchors[k] = (uint32_t)k;
    ENSURE_STATUS(xpbd_build_cloth3(&s->x[0][0], ROWS, COLS, 0, 1e-7, s->links, LINKS, &s->link_count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_build_bends_cloth3(&s->x[0][0], ROWS, COLS, 1e-3, s->bends, BENDS, &s->bend_count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_build_tethers3(&s->x[0][0], s->w, N, anchors, COLS, 0.0, s->tethers, N, &s->tether_count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_color_greedy(s->links, s->link_count, N, scratch, colors, &s->link_colors), XPBD_STATUS_OK);
    ENSURE(to_colored_order(s->links, sizeof s->links[0], s->link_count, colors, s->link_colors, s->link_starts));
    memset(&g, 0, sizeof g);
    g.bends = s->bends; g.bend_count = s->bend_count;
    g.tethers = s->tethers; g.tether_count = s->tether_count;
    ENSURE_STATUS(xpbd_color_group(&g, XPBD_GROUP_BENDS, N, scratch, colors, &s->bend_colors, &bad_index), XPBD_STATUS_OK);
    ENSURE(bad_index == 999);
    ENSURE(to_colored_order(s->bends, sizeof s->bends[0], s->bend_count, colors, s->bend_colors, s->bend_starts));
    ENSURE_STATUS(xpbd_color_group(&g, XPBD_GROUP_TETHERS, N, scratch, colors, &s->tether_colors, NULL), XPBD_STATUS_OK);
    ENSURE(to_colored_order(s->tethers, sizeof s->tethers[0], s->tether_count, colors, s->tether_colors, s->tether_starts));
    /* Stretched and crumpled, so that every group acts. */
    for (k = COLS; k < N; ++k) {
        s->x[k][1] *= 1.3;
        s->x[k][2] = 0.01 * (double)(k % 3) - 0.004 * (double)(k % 5);
    }
}

static void wire(ColoredScene *s, XpbdSystem3 *sys, XpbdConstraints3 *g, XpbdGroupColors *c) {
    memset(sys, 0, sizeof *sys);
    sys->positions = s->x; sys->inverse_masses = s->w; sys->particle_count = N;
    sys->links = s->links; sys->link_count = s->link_count;
    memset(g, 0, sizeof *g);
    g->bends = s->bends; g->bend_count = s->bend_count;
    g->tethers = s->tethers; g->tether_count = s->tether_count;
    memset(c, 0, sizeof *c);
    c->link_color_starts = s->link_starts; c->link_color_count = s->link_colors;
    c->bend_color_starts = s->bend_starts; c->bend_color_count = s->bend_colors;
    c->tether_color_starts = s->tether_starts; c->tether_color_count = s->tether_colors;
}

/* 0: sequential iterate_groups, 1: iterate_colored, else that many jobs
 * minus one (2 → 1 job, 3 → 2, 4 → 3, 8 → 7). Returns the last stats. */
static XpbdSweepStats run_colored(ColoredScene *s, int how) {
    static uint32_t stamp[N];
    XpbdSystem3 sys;
    XpbdConstraints3 g;
    XpbdGroupColors c;
    XpbdSweepStats total;
    int it;
    memset(&total, 0, sizeof total);
    wire(s, &sys, &g, &c);
    if (how == 0) {
        ENSURE_STATUS(xpbd_system3_begin_substep_groups(&sys, &g, 1.0 / 240.0), XPBD_STATUS_OK);
    } else {
        ENSURE_STATUS(xpbd_system3_begin_substep_colored(&sys, &g, &c, stamp, 1.0 / 240.0), XPBD_STATUS_OK);
    }
    for (it = 0; it < 3; ++it) {
        memset(&total, 0, sizeof total);
        if (how == 0) {
            ENSURE_STATUS(xpbd_system3_iterate_groups(&sys, &g, &total), XPBD_STATUS_OK);
        } else if (how == 1) {
            ENSURE_STATUS(xpbd_system3_iterate_colored(&sys, &g, &c, &total), XPBD_STATUS_OK);
        } else {
            const int32_t groups[3] = {XPBD_GROUP_LINKS, XPBD_GROUP_BENDS, XPBD_GROUP_TETHERS};
            const uint32_t counts[3] = {s->link_colors, s->bend_colors, s->tether_colors};
            size_t jobs = (size_t)how - 1, color, job;
            int k;
            for (k = 0; k < 3; ++k) {
                for (color = 0; color < counts[k]; ++color) {
                    for (job = jobs; job-- > 0;) { /* in reverse: the order does not matter */
                        XpbdSweepStats part;
                        size_t index = 12345;
                        ENSURE_STATUS(xpbd_system3_solve_group_job(&sys, &g, &c, groups[k], color, job, jobs, &part, &index),
                                      XPBD_STATUS_OK);
                        ENSURE(index == 12345);
                        ENSURE_STATUS(xpbd_sweep_stats_merge(&total, &part), XPBD_STATUS_OK);
                    }
                }
            }
        }
    }
    return total;
}

static void colored_groups(void) {
    static ColoredScene reference, other, start;
    static uint32_t stamp[N], colors[BENDS];
    XpbdSweepStats ref_stats, stats;
    XpbdSystem3 sys;
    XpbdConstraints3 g;
    XpbdGroupColors c, bad;
    size_t one_color[2], index = 777;
    uint32_t count = 55;
    const int runs[5] = {1, 2, 3, 4, 8};
    int k;

    colored_scene(&start);
    ENSURE(start.bend_colors >= 2 && start.tether_colors >= 2 && start.link_colors >= 2);
    reference = start;
    ref_stats = run_colored(&reference, 0);
    ENSURE(ref_stats.applied > 0);
    ENSURE(memcmp(reference.x, start.x, sizeof start.x) != 0);
    for (k = 0; k < 5; ++k) {
        other = start;
        stats = run_colored(&other, runs[k]);
        ENSURE(memcmp(other.x, reference.x, sizeof other.x) == 0);
        ENSURE(memcmp(other.links, reference.links, sizeof other.links) == 0);
        ENSURE(memcmp(other.bends, reference.bends, sizeof other.bends) == 0);
        ENSURE(memcmp(other.tethers, reference.tethers, sizeof other.tethers) == 0);
        ENSURE(memcmp(&stats, &ref_stats, sizeof stats) == 0);
    }

    /* Rejected calls: nothing written. */
    other = start;
    wire(&other, &sys, &g, &c);
    memset(colors, 0xab, sizeof colors);
    ENSURE_STATUS(xpbd_color_group(&g, XPBD_GROUP_LINKS, N, NULL, colors, &count, &index),
                  XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_color_group(&g, 99, N, NULL, colors, &count, &index), XPBD_STATUS_INVALID_ARGUMENT);
    other.bends[4].particles[2] = N;
    {
        static uint64_t scratch[N];
        ENSURE_STATUS(xpbd_color_group(&g, XPBD_GROUP_BENDS, N, scratch, colors, &count, &index),
                      XPBD_STATUS_INDEX_OUT_OF_RANGE);
        ENSURE(index == 4);
        ENSURE_STATUS(xpbd_color_group(&g, XPBD_GROUP_TETHERS, N, scratch, (uint32_t *)(void *)other.tethers, &count, NULL),
                      XPBD_STATUS_ALIASED_BUFFERS);
    }
    ENSURE(count == 55);
    for (k = 0; k < BENDS; ++k) ENSURE(colors[k] == 0xabababab);
    other.bends[4] = start.bends[4];

    /* A job before a colored begin, an improper coloring, bad codes. */
    ENSURE_STATUS(xpbd_system3_solve_group_job(&sys, &g, &c, XPBD_GROUP_BENDS, 0, 0, 1, NULL, NULL),
                  XPBD_STATUS_NO_SUBSTEP);
    one_color[0] = 0; one_color[1] = other.bend_count;
    bad = c;
    bad.bend_color_starts = one_color; bad.bend_color_count = 1;
    ENSURE_STATUS(xpbd_system3_begin_substep_colored(&sys, &g, &bad, stamp, 1.0 / 240.0), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE(sys.substep_active == 0);
    one_color[1] = other.bend_count - 1;
    ENSURE_STATUS(xpbd_system3_begin_substep_colored(&sys, &g, &bad, stamp, 1.0 / 240.0), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_system3_begin_substep_colored(&sys, &g, NULL, stamp, 1.0 / 240.0), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_system3_begin_substep_colored(&sys, &g, &c, (uint32_t *)(void *)other.w, 1.0 / 240.0),
                  XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE(memcmp(other.x, start.x, sizeof start.x) == 0 && memcmp(other.bends, start.bends, sizeof start.bends) == 0);
    ENSURE(memcmp(other.links, start.links, sizeof start.links) == 0);
    ENSURE(memcmp(other.tethers, start.tethers, sizeof start.tethers) == 0);
    ENSURE_STATUS(xpbd_system3_begin_substep_colored(&sys, &g, &c, stamp, 1.0 / 240.0), XPBD_STATUS_OK);
    memset(&stats, 0x5a, sizeof stats);
    index = 777;
    ENSURE_STATUS(xpbd_system3_solve_group_job(&sys, &g, &c, 5, 0, 0, 1, &stats, &index), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_system3_solve_group_job(&sys, &g, &c, XPBD_GROUP_BENDS, other.bend_colors, 0, 1, &stats, &index),
                  XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_system3_solve_group_job(&sys, &g, &c, XPBD_GROUP_BENDS, 0, 1, 1, &stats, &index),
                  XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_system3_solve_group_job(&sys, &g, &c, XPBD_GROUP_MESHES, 0, 0, 1, &stats, &index),
                  XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_system3_solve_group_job(&sys, &g, &c, XPBD_GROUP_BENDS, 0, 0, 1, (XpbdSweepStats *)(void *)other.bends, &index),
                  XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE_STATUS(xpbd_system3_iterate_colored(&sys, &g, &bad, &stats), XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE(index == 777);
    {
        XpbdSweepStats sentinel;
        memset(&sentinel, 0x5a, sizeof sentinel);
        ENSURE(memcmp(&stats, &sentinel, sizeof stats) == 0);
    }
    ENSURE(memcmp(other.x, start.x, sizeof start.x) == 0);
    ENSURE(memcmp(other.bends, start.bends, sizeof start.bends) == 0);
}

/* The float twins of the colored group calls on one tet. */
static void colored_float_twins(void) {
    float x[4][3] = {{0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 0.5f}};
    const float w[4] = {0.0f, 0.0f, 0.0f, 1.0f};
    XpbdTetF32 tets[1] = {{{0, 1, 2, 3}, 1.0f / 6.0f, 0.0f, 0.0f}};
    uint64_t scratch[4];
    uint32_t colors[1] = {9}, count = 0, stamp[4];
    size_t starts[2] = {0, 1};
    XpbdSystem3F32 sys;
    XpbdConstraints3F32 g;
    XpbdGroupColors c;
    XpbdSweepStatsF32 stats;
    memset(&sys, 0, sizeof sys);
    sys.positions = x; sys.inverse_masses = w; sys.particle_count = 4;
    memset(&g, 0, sizeof g);
    g.tets = tets; g.tet_count = 1;
    memset(&c, 0, sizeof c);
    c.tet_color_starts = starts; c.tet_color_count = 1;
    ENSURE_STATUS(xpbd_color_group_f32(&g, XPBD_GROUP_TETS, 4, scratch, colors, &count, NULL), XPBD_STATUS_OK);
    ENSURE(count == 1 && colors[0] == 0);
    ENSURE_STATUS(xpbd_system3_begin_substep_colored_f32(&sys, &g, &c, stamp, 0.01f), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_system3_solve_group_job_f32(&sys, &g, &c, XPBD_GROUP_TETS, 0, 0, 1, &stats, NULL), XPBD_STATUS_OK);
    ENSURE(stats.applied == 1);
    ENSURE(fabsf(x[3][2] - 1.0f) < 1e-6f); /* rigid: back to its rest volume */
    ENSURE_STATUS(xpbd_system3_iterate_colored_f32(&sys, &g, &c, &stats), XPBD_STATUS_OK);
}

void test_groups(void) {
    system_with_tethers();
    world_with_tethers();
    float_twins();
    colored_groups();
    colored_float_twins();
}
