/* Colored stepping through the C ABI (issue 19 item 1):
 * xpbd_world3_step_colored on a cloth with links, bends and tethers (each
 * in colored order, in a groups block) falling onto a plane gives the bits
 * of xpbd_world3_step on the same world, with no job system, a job
 * system of two POSIX threads (8 tasks per phase) and one that runs the
 * tasks in reverse; a job system that skips a task is JOB_CONTRACT with
 * the positions and velocities unchanged; an improper coloring is
 * refused; color boundaries overlapping the world's memory (where the
 * coloring stamp lives) are ALIASED_BUFFERS.
 * Colorings over the moving particles (xpbd_color_greedy_moving,
 * xpbd_color_group_moving): a pinned particle is no conflict (100 tethers
 * to one pinned anchor: 1 color, where xpbd_color_group refuses), the
 * refusals; a hanging cloth tethered to one pinned corner, colored so,
 * stepped colored on 1, 2, 3 and 7 threads gives the bits of
 * xpbd_world3_step. */
#include <pthread.h>

#include "ensure.h"

enum { SR = 12, SC = 12, SN = SR * SC, SLINKS = SR * (SC - 1) + (SR - 1) * SC,
       SBENDS = (SR - 2) * (SC - 1) + (SR - 1) * (SC - 2) + (SR - 1) * (SC - 1) };

typedef struct {
    double x[SN][3], v[SN][3], w[SN];
    XpbdLink links[SLINKS];
    XpbdBend bends[SBENDS];
    XpbdTether tethers[SN];
    size_t link_count, bend_count, tether_count;
    size_t starts[3][65];
    uint32_t colors[3];
} StepScene;

/* Puts `count` items of `size` bytes in colored order (colors given). */
static int in_colored_order(void *items, size_t size, size_t count, const uint32_t *colors,
                            uint32_t color_count, size_t *starts) {
    static unsigned char copy[SBENDS * sizeof(XpbdBend)];
    static uint32_t order[SBENDS];
    size_t k;
    if (count * size > sizeof copy || count > SBENDS) return 0;
    if (xpbd_color_order(colors, count, color_count, starts, order) != XPBD_STATUS_OK) return 0;
    memcpy(copy, items, count * size);
    for (k = 0; k < count; ++k) memcpy((unsigned char *)items + k * size, copy + order[k] * size, size);
    return 1;
}

/* The cloth, its top row pinned; `moving` = 0: tethers to the top row,
 * every group colored by xpbd_color_greedy / xpbd_color_group; 1: tethers
 * to the pinned corner 0 only, colored over the moving particles
 * (xpbd_color_greedy_moving / xpbd_color_group_moving). */
static void step_scene(StepScene *s, int moving) {
    static uint64_t scratch[SN];
    static uint32_t colors[SBENDS];
    uint32_t anchors[SC], strict = 0;
    XpbdConstraints3 g;
    int k;
    memset(s, 0, sizeof *s);
    for (k = 0; k < SN; ++k) {
        s->x[k][0] = 0.02 * (double)(k % SC);
        s->x[k][1] = 0.2 - 0.02 * (double)(k / SC);
        s->x[k][2] = 0.003 * (double)(k % 3);
        s->w[k] = k < SC ? 0.0 : 500.0;
        s->v[k][2] = k < SC ? 0.0 : 0.4;
    }
    for (k = 0; k < SC; ++k) anchors[k] = (uint32_t)k;
    ENSURE_STATUS(xpbd_build_cloth3(&s->x[0][0], SR, SC, 0, 1e-7, s->links, SLINKS, &s->link_count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_build_bends_cloth3(&s->x[0][0], SR, SC, 1e-3, s->bends, SBENDS, &s->bend_count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_build_tethers3(&s->x[0][0], s->w, SN, anchors, moving ? 1 : SC, 0.0, s->tethers, SN,
                                      &s->tether_count),
                  XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_color_greedy(s->links, s->link_count, SN, scratch, colors, &strict), XPBD_STATUS_OK);
    if (moving) {
        ENSURE_STATUS(xpbd_color_greedy_moving(s->links, s->link_count, s->w, SN, scratch, colors, &s->colors[0]),
                      XPBD_STATUS_OK);
        ENSURE(s->colors[0] >= 2 && s->colors[0] <= strict);
    } else {
        s->colors[0] = strict;
    }
    ENSURE(in_colored_order(s->links, sizeof s->links[0], s->link_count, colors, s->colors[0], s->starts[0]));
    memset(&g, 0, sizeof g);
    g.bends = s->bends; g.bend_count = s->bend_count;
    g.tethers = s->tethers; g.tether_count = s->tether_count;
    if (moving) {
        ENSURE_STATUS(xpbd_color_group_moving(&g, XPBD_GROUP_BENDS, s->w, SN, scratch, colors, &s->colors[1], NULL),
                      XPBD_STATUS_OK);
    } else {
        ENSURE_STATUS(xpbd_color_group(&g, XPBD_GROUP_BENDS, SN, scratch, colors, &s->colors[1], NULL), XPBD_STATUS_OK);
    }
    ENSURE(in_colored_order(s->bends, sizeof s->bends[0], s->bend_count, colors, s->colors[1], s->starts[1]));
    if (moving) {
        /* Every tether shares the corner: too many colors for xpbd_color_group. */
        ENSURE_STATUS(xpbd_color_group(&g, XPBD_GROUP_TETHERS, SN, scratch, colors, &strict, NULL),
                      XPBD_STATUS_INVALID_ARGUMENT);
        ENSURE_STATUS(xpbd_color_group_moving(&g, XPBD_GROUP_TETHERS, s->w, SN, scratch, colors, &s->colors[2], NULL),
                      XPBD_STATUS_OK);
    } else {
        ENSURE_STATUS(xpbd_color_group(&g, XPBD_GROUP_TETHERS, SN, scratch, colors, &s->colors[2], NULL), XPBD_STATUS_OK);
    }
    ENSURE(in_colored_order(s->tethers, sizeof s->tethers[0], s->tether_count, colors, s->colors[2], s->starts[2]));
}

/* `threads` POSIX threads (the `user` pointer): thread t runs tasks
 * t, t + threads, ... (the calling thread is thread 0). */
#define MAX_TEST_THREADS 7
typedef struct {
    uint32_t first, count, stride;
    XpbdTaskFn task;
    void *context;
} Worker;

static void *worker_main(void *arg) {
    Worker *wk = (Worker *)arg;
    uint32_t i;
    for (i = wk->first; i < wk->count; i += wk->stride) wk->task(wk->context, i);
    return NULL;
}

static void n_threads(void *user, uint32_t count, XpbdTaskFn task, void *context) {
    uint32_t n = *(const uint32_t *)user, t;
    pthread_t thread[MAX_TEST_THREADS];
    int started[MAX_TEST_THREADS] = {0};
    Worker wk[MAX_TEST_THREADS];
    if (n < 1) n = 1;
    if (n > MAX_TEST_THREADS) n = MAX_TEST_THREADS;
    for (t = 0; t < n; ++t) {
        wk[t].first = t; wk[t].count = count; wk[t].stride = n;
        wk[t].task = task; wk[t].context = context;
    }
    for (t = 1; t < n; ++t) started[t] = pthread_create(&thread[t], NULL, worker_main, &wk[t]) == 0;
    worker_main(&wk[0]);
    for (t = 1; t < n; ++t) {
        if (started[t]) pthread_join(thread[t], NULL);
        else worker_main(&wk[t]); /* no thread: run its share here */
    }
}

static void reversed(void *user, uint32_t count, XpbdTaskFn task, void *context) {
    (void)user;
    while (count > 0) task(context, --count);
}

static void skips_last(void *user, uint32_t count, XpbdTaskFn task, void *context) {
    uint32_t i;
    (void)user;
    for (i = 0; i + 1 < count; ++i) task(context, i);
}

/* Steps `frames` frames: sequential (colored 0) or colored with `jobs`;
 * `memory_over_colors` puts the link color boundaries in the world's
 * memory (aliasing, refused). */
/* `a` ended where `b` did: positions, velocities, every group's λ, the
 * step counts and the last sweep's largest residual, bit for bit. */
static void ensure_same_frames(const StepScene *a, const StepScene *b, const XpbdStepStats *sa,
                               const XpbdStepStats *sb) {
    ENSURE(memcmp(a->x, b->x, sizeof a->x) == 0);
    ENSURE(memcmp(a->v, b->v, sizeof a->v) == 0);
    ENSURE(memcmp(a->links, b->links, sizeof a->links) == 0);
    ENSURE(memcmp(a->bends, b->bends, sizeof a->bends) == 0);
    ENSURE(memcmp(a->tethers, b->tethers, sizeof a->tethers) == 0);
    ENSURE(sa->substeps == sb->substeps && sa->iterations == sb->iterations);
    ENSURE(memcmp(&sa->last.max_residual, &sb->last.max_residual, sizeof(double)) == 0);
}

static XpbdStatus run_frames(StepScene *s, int frames, const XpbdJobSystem *jobs, int colored,
                             int memory_over_colors, XpbdStepStats *out) {
    const XpbdPlane3 ground = {{0.0, 1.0, 0.0}, 0.0};
    XpbdWorld3 world = xpbd_world3_default();
    XpbdColliders3 colliders = xpbd_colliders3_default();
    XpbdGroups3 groups = xpbd_groups3_default();
    XpbdGroupColors c;
    XpbdStepConfig3 config = test_bare_config3();
    XpbdStatus st = XPBD_STATUS_OK;
    int f;
    world.positions = s->x; world.velocities = s->v; world.inverse_masses = s->w; world.particle_count = SN;
    world.links = s->links; world.link_count = s->link_count;
    colliders.planes = &ground; colliders.plane_count = 1;
    groups.groups.bends = s->bends; groups.groups.bend_count = s->bend_count;
    groups.groups.tethers = s->tethers; groups.groups.tether_count = s->tether_count;
    st = xpbd_world3_add(&world, &colliders.block);
    if (st == XPBD_STATUS_OK) st = xpbd_world3_add(&world, &groups.block);
    if (st == XPBD_STATUS_OK) st = test_world3_memory(&world);
    if (st != XPBD_STATUS_OK) {
        test_world3_free(&world);
        return st;
    }
    memset(&c, 0, sizeof c);
    c.link_color_starts = memory_over_colors ? (const size_t *)world.memory : s->starts[0];
    c.link_color_count = s->colors[0];
    c.bend_color_starts = s->starts[1]; c.bend_color_count = s->colors[1];
    c.tether_color_starts = s->starts[2]; c.tether_color_count = s->colors[2];
    if (memory_over_colors) memcpy(world.memory, s->starts[0], (s->colors[0] + 1) * sizeof(size_t));
    config.substeps = 4;
    config.particle_radius = 0.005;
    config.static_friction = 0.3;
    config.dynamic_friction = 0.2;
    for (f = 0; f < frames && st == XPBD_STATUS_OK; ++f) {
        st = colored ? xpbd_world3_step_colored(&world, &c, 1.0 / 60.0, &config, jobs, out)
                     : xpbd_world3_step(&world, 1.0 / 60.0, &config, out);
    }
    test_world3_free(&world);
    return st;
}

/* The colorings over the moving particles: a particle of inverse mass 0
 * is no conflict; the refusals write nothing but the scratch. */
enum { FAN = 100 };
static void moving_colorings(void) {
    static double w[FAN + 1];
    static float wf[FAN + 1];
    static XpbdTether tethers[FAN];
    static XpbdTetherF32 tethers_f[FAN];
    static XpbdLink links[FAN];
    static XpbdLinkF32 links_f[FAN];
    static uint64_t scratch[FAN + 1];
    static uint32_t colors[FAN], untouched[FAN];
    XpbdConstraints3 g;
    XpbdConstraints3F32 gf;
    uint32_t count = 77, strict = 0, k;
    size_t index = 77;
    for (k = 0; k <= FAN; ++k) {
        w[k] = k == 0 ? 0.0 : 2.0;
        wf[k] = k == 0 ? 0.0f : 2.0f;
    }
    /* Tethers from particles 1..100 to the pinned particle 0; links: the
     * same fan, then (from link 10 on) a rope 10-11-...-100. */
    memset(tethers, 0, sizeof tethers); memset(tethers_f, 0, sizeof tethers_f);
    memset(links, 0, sizeof links); memset(links_f, 0, sizeof links_f);
    for (k = 0; k < FAN; ++k) {
        tethers[k].anchor = 0; tethers[k].particle = k + 1; tethers[k].max_distance = 1.0;
        tethers_f[k].anchor = 0; tethers_f[k].particle = k + 1; tethers_f[k].max_distance = 1.0f;
        links[k].i = k < 10 ? 0 : k; links[k].j = k + 1; links[k].rest = 1.0;
        links_f[k].i = links[k].i; links_f[k].j = links[k].j; links_f[k].rest = 1.0f;
    }
    memset(&g, 0, sizeof g); g.tethers = tethers; g.tether_count = FAN;
    memset(&gf, 0, sizeof gf); gf.tethers = tethers_f; gf.tether_count = FAN;
    for (k = 0; k < FAN; ++k) untouched[k] = 77;
    memcpy(colors, untouched, sizeof colors);

    /* 100 tethers to one anchor: more than 64 colors, refused ... */
    ENSURE_STATUS(xpbd_color_group(&g, XPBD_GROUP_TETHERS, FAN + 1, scratch, colors, &count, &index),
                  XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE(count == 77 && index == 77 && memcmp(colors, untouched, sizeof colors) == 0);
    /* ... but nobody writes the pinned anchor: one color. */
    ENSURE_STATUS(xpbd_color_group_moving(&g, XPBD_GROUP_TETHERS, w, FAN + 1, scratch, colors, &count, &index),
                  XPBD_STATUS_OK);
    ENSURE(count == 1 && index == 77);
    for (k = 0; k < FAN; ++k) ENSURE(colors[k] == 0);
    count = 77;
    ENSURE_STATUS(xpbd_color_group_moving_f32(&gf, XPBD_GROUP_TETHERS, wf, FAN + 1, scratch, colors, &count, NULL),
                  XPBD_STATUS_OK);
    ENSURE(count == 1);
    /* A moving anchor is a conflict again. */
    w[0] = 2.0;
    memcpy(colors, untouched, sizeof colors); count = 77;
    ENSURE_STATUS(xpbd_color_group_moving(&g, XPBD_GROUP_TETHERS, w, FAN + 1, scratch, colors, &count, NULL),
                  XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE(count == 77 && memcmp(colors, untouched, sizeof colors) == 0);
    w[0] = 0.0;

    /* Links sharing the pinned particle: fewer colors over the moving ones
     * (the fan's 10 links take 10 colors, or one with the rope's two). */
    ENSURE_STATUS(xpbd_color_greedy(links, FAN, FAN + 1, scratch, colors, &strict), XPBD_STATUS_OK);
    ENSURE(strict == 10);
    ENSURE_STATUS(xpbd_color_greedy_moving(links, FAN, w, FAN + 1, scratch, colors, &count), XPBD_STATUS_OK);
    ENSURE(count == 2 && count < strict);
    for (k = 0; k < 10; ++k) ENSURE(colors[k] == 0);
    for (k = 10; k < FAN; ++k) ENSURE(colors[k] == (k % 2 == 0 ? 1u : 0u));
    count = 77;
    ENSURE_STATUS(xpbd_color_greedy_moving_f32(links_f, FAN, wf, FAN + 1, scratch, colors, &count), XPBD_STATUS_OK);
    ENSURE(count == 2);

    /* NULL inverse masses: NULL_POINTER, nothing written (an empty set of
     * particles may be NULL). */
    memcpy(colors, untouched, sizeof colors); count = 77;
    ENSURE_STATUS(xpbd_color_greedy_moving(links, FAN, NULL, FAN + 1, scratch, colors, &count),
                  XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_color_group_moving(&g, XPBD_GROUP_TETHERS, NULL, FAN + 1, scratch, colors, &count, &index),
                  XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_color_greedy_moving_f32(links_f, FAN, NULL, FAN + 1, scratch, colors, &count),
                  XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_color_group_moving_f32(&gf, XPBD_GROUP_TETHERS, NULL, FAN + 1, scratch, colors, &count, NULL),
                  XPBD_STATUS_NULL_POINTER);
    ENSURE(count == 77 && index == 77 && memcmp(colors, untouched, sizeof colors) == 0);
    ENSURE_STATUS(xpbd_color_greedy_moving(links, 0, NULL, 0, NULL, NULL, &count), XPBD_STATUS_OK);
    ENSURE(count == 0);
    /* The other refusals of the family: inverse masses over the scratch,
     * a NULL count, another group, a tether out of range (named). */
    memcpy(colors, untouched, sizeof colors); count = 77;
    ENSURE_STATUS(xpbd_color_greedy_moving(links, FAN, (const double *)(const void *)scratch, FAN + 1, scratch, colors,
                                           &count),
                  XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE_STATUS(xpbd_color_group_moving(&g, XPBD_GROUP_TETHERS, w, FAN + 1, scratch, colors, NULL, NULL),
                  XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_color_group_moving(&g, XPBD_GROUP_LINKS, w, FAN + 1, scratch, colors, &count, &index),
                  XPBD_STATUS_INVALID_ARGUMENT);
    tethers[42].particle = FAN + 1;
    ENSURE_STATUS(xpbd_color_group_moving(&g, XPBD_GROUP_TETHERS, w, FAN + 1, scratch, colors, &count, &index),
                  XPBD_STATUS_INDEX_OUT_OF_RANGE);
    ENSURE(index == 42);
    tethers[42].particle = 43;
    ENSURE(count == 77 && memcmp(colors, untouched, sizeof colors) == 0);
}

/* A cloth hanging from its pinned top row, tethered to the pinned corner,
 * colored over the moving particles: xpbd_world3_step_colored on 1, 2, 3
 * and 7 threads gives the bits of xpbd_world3_step; the colored group
 * system (strict check) refuses the coloring. */
static void moving_step(void) {
    static StepScene start, reference, other;
    static uint32_t stamp[SN];
    static const uint32_t threads[4] = {1, 2, 3, 7};
    XpbdStepStats ref_stats, stats;
    XpbdJobSystem jobs;
    XpbdSystem3 sys;
    XpbdConstraints3 g;
    XpbdGroupColors c;
    int k;
    step_scene(&start, 1);
    ENSURE(start.tether_count == SN - SC && start.colors[2] == 1);
    reference = start;
    ENSURE_STATUS(run_frames(&reference, 20, NULL, 0, 0, &ref_stats), XPBD_STATUS_OK);
    ENSURE(memcmp(reference.x, start.x, sizeof start.x) != 0);
    ENSURE(memcmp(reference.x, start.x, SC * sizeof start.x[0]) == 0); /* the pinned row */
    for (k = 0; k < 4; ++k) {
        memset(&jobs, 0, sizeof jobs);
        jobs.split = 8;
        jobs.user = (void *)&threads[k];
        jobs.run = n_threads;
        other = start;
        memset(&stats, 0, sizeof stats);
        ENSURE_STATUS(run_frames(&other, 20, &jobs, 1, 0, &stats), XPBD_STATUS_OK);
        ensure_same_frames(&other, &reference, &stats, &ref_stats);
    }
    /* The colored group system checks strictly: refused. */
    other = start;
    memset(&sys, 0, sizeof sys);
    sys.positions = other.x; sys.inverse_masses = other.w; sys.particle_count = SN;
    sys.links = other.links; sys.link_count = other.link_count;
    sys.zero_length_policy = XPBD_ZERO_LENGTH_REJECT;
    memset(&g, 0, sizeof g);
    g.bends = other.bends; g.bend_count = other.bend_count;
    g.tethers = other.tethers; g.tether_count = other.tether_count;
    memset(&c, 0, sizeof c);
    c.link_color_starts = other.starts[0]; c.link_color_count = other.colors[0];
    c.bend_color_starts = other.starts[1]; c.bend_color_count = other.colors[1];
    c.tether_color_starts = other.starts[2]; c.tether_color_count = other.colors[2];
    ENSURE_STATUS(xpbd_system3_begin_substep_colored(&sys, &g, &c, stamp, 1.0 / 240.0), XPBD_STATUS_INVALID_ARGUMENT);
}

void test_colored_step(void) {
    static StepScene start, reference, other;
    static double x0[SN][3], v0[SN][3];
    XpbdStepStats ref_stats, stats;
    XpbdJobSystem jobs;
    int k;
    step_scene(&start, 0);
    ENSURE(start.colors[0] >= 2 && start.colors[1] >= 2 && start.colors[2] >= 2);
    reference = start;
    ENSURE_STATUS(run_frames(&reference, 40, NULL, 0, 0, &ref_stats), XPBD_STATUS_OK);
    ENSURE(ref_stats.max_contacts > 0);
    /* No job system (the calling thread), 1, 2, 3 and 7 threads, reversed. */
    for (k = 0; k < 6; ++k) {
        static const uint32_t threads[6] = {0, 1, 2, 3, 7, 0};
        memset(&jobs, 0, sizeof jobs);
        jobs.split = k == 4 ? 15 : 8;
        jobs.user = (void *)&threads[k];
        jobs.run = k == 0 ? NULL : k == 5 ? reversed : n_threads;
        other = start;
        memset(&stats, 0, sizeof stats);
        ENSURE_STATUS(run_frames(&other, 40, &jobs, 1, 0, &stats), XPBD_STATUS_OK);
        ensure_same_frames(&other, &reference, &stats, &ref_stats);
        ENSURE(stats.max_contacts == ref_stats.max_contacts && stats.last.applied == ref_stats.last.applied);
        ENSURE(memcmp(&stats.last.max_abs_c, &ref_stats.last.max_abs_c, sizeof(double)) == 0);
    }
    /* No job system at all: the calling thread. */
    other = start;
    ENSURE_STATUS(run_frames(&other, 40, NULL, 1, 0, &stats), XPBD_STATUS_OK);
    ENSURE(memcmp(other.x, reference.x, sizeof other.x) == 0);

    /* A job system that skips a task: JOB_CONTRACT, nothing moved. */
    other = start;
    memcpy(x0, other.x, sizeof x0); memcpy(v0, other.v, sizeof v0);
    jobs.run = skips_last;
    jobs.split = 4;
    ENSURE_STATUS(run_frames(&other, 1, &jobs, 1, 0, NULL), XPBD_STATUS_JOB_CONTRACT);
    ENSURE(memcmp(other.x, x0, sizeof x0) == 0 && memcmp(other.v, v0, sizeof v0) == 0);

    /* An improper coloring: refused, nothing moved. */
    other.starts[0][1] = other.starts[0][2];
    ENSURE(run_frames(&other, 1, NULL, 1, 0, NULL) != XPBD_STATUS_OK);
    ENSURE(memcmp(other.x, x0, sizeof x0) == 0 && memcmp(other.v, v0, sizeof v0) == 0);

    /* The color boundaries in the world's memory (the stamp's home). */
    other = start;
    ENSURE_STATUS(run_frames(&other, 1, NULL, 1, 1, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE(memcmp(other.x, start.x, sizeof x0) == 0);

    moving_colorings();
    moving_step();
}
