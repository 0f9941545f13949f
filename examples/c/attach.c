/* Kinematic attachments and tearing, driven entirely through the xpbd C ABI
 * (C99, double).
 *
 * Build (from the repository root, after `cargo c-lib`):
 *   cc -std=c99 -ffp-contract=off -Iinclude examples/c/attach.c target/release/libxpbd.a -Wl,--gc-sections -lm -o attach
 * (-lm for the program's own sqrt, sin and cos; xpbd needs no libm).
 *
 * (a) A whirled rope. 21 particles of 10 g on 20 rigid links (1 m, from
 * xpbd_build_rope3) hang from particle 0, which is attached (XpbdAttachment,
 * compliance 0: rigid) to a target the program moves on a horizontal circle
 * of radius R = 1 m at v = 10 m/s (omega = v / R = 10 rad/s). Every frame
 * the program writes the target's new point to `target`; xpbd_world3_step
 * (the attachment in the world's groups block, XpbdGroups3) moves the
 * point from `previous` to `target` over the frame's 8 substeps (so the
 * fast target neither lags a frame behind nor jumps through the rope),
 * then reports the frame's mean force on the particle in `force` (N; the
 * engine would apply -force to the body that carries the attachment) and
 * sets previous = target. 20 s at 60 Hz, no damping.
 *
 * What to check: the attachment error, |x_0 - target| after each frame, is
 * below 1 cm over the whole run; and in steady rotation the force is the
 * rope's tension at the top, which Newton gives for the whole rope:
 * F = M (a_com - g), M = 0.21 kg, a_com the centripetal acceleration of the
 * centre of mass, omega^2 r towards the axis, with r the centre of mass's
 * distance from the axis (about 1.6 m: the rope flies out almost
 * horizontally, so m_total (g + v^2/R) with R = 1 m would not be the
 * tension). The program compares |F| with |M (a_com - g)| over the last
 * second and requires them within 1 % (and the directions within 0.02
 * rad: XPBD's velocity is the last substep's chord, slightly off the
 * rotation).
 *
 * (b) A tearing sheet: the scene of the determinism hash's part 6
 * (scenarios/src/tearing.rs), here with the C builder's links. A 6 x 10
 * sheet of 20 g particles, 5 cm apart, hanging in the xy plane on
 * structural links (xpbd_build_cloth3 without shear, compliance 1e-4 m/N);
 * its left and right columns are attached (compliance 1e-6 m/N) to targets
 * the program moves apart by 2 mm per side and frame. Every link has a
 * maximum force (the tearing block's `max_force`, XpbdTearing3): a
 * perforation between columns 4 and 5 holds 20 N in the top row and 1.5 N
 * more in each row below, every other link 60 N; the attachments are in a
 * groups block. After each successful frame the library disables
 * (XPBD_LINK_DISABLED) every link whose force |lambda|/h^2 exceeded its
 * maximum and writes their indices to the block's `torn` (the count in
 * XpbdStepStats.torn). 90 frames.
 *
 * What to check: links tear (a few frames after the start: the sheet holds
 * for a while), the tear runs down the perforation from the top row, and
 * at the end exactly the perforation's 6 links are torn: the sheet is in
 * two halves, torn along one line.
 *
 * The program prints its figures, checks them and exits non-zero on a
 * mismatch or a failed call. Every world and block starts from its
 * _default() function and the world's memory from xpbd_world3_requirements
 * and malloc; the other xpbd structs are zero-initialised, so fields a
 * later version appends at a struct's end start at 0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "xpbd.h"

#define FRAME_DT (1.0 / 60.0) /* s */
#define G 9.81                /* m/s^2 */

/* (a) The whirled rope. */
#define RN 21         /* particles */
#define RFRAMES 1200  /* 20 s */
#define RSUBSTEPS 8
static const double rope_mass = 0.01; /* kg per particle */
static const double radius = 1.0;     /* m, the target's circle */
static const double speed = 10.0;     /* m/s, the target's speed */

/* (b) The tearing sheet. */
#define ROWS 6
#define COLS 10
#define SN (ROWS * COLS)                                 /* particles */
#define SL (ROWS * (COLS - 1) + (ROWS - 1) * COLS)        /* structural links */
#define SA (2 * ROWS)                                    /* attachments */
#define GAP 4         /* the perforation: between column GAP and GAP + 1 */
#define SFRAMES 90
static const double spacing = 0.05;    /* m */
static const double sheet_mass = 0.02; /* kg per particle */
static const double pull = 0.002;      /* m per side and frame */
static const double weak = 20.0;       /* N, the perforation's top link */
static const double weak_step = 1.5;   /* N more per row down */
static const double strong = 60.0;     /* N, every other link */

/* `index` and `field` are the world's error_index and error_field
 * (XPBD_FIELD_*): the particle, link, size or value the error names. */
static int check(XpbdStatus s, const char *call, size_t index, int field) {
    if (s == XPBD_STATUS_OK || s == XPBD_STATUS_SKIPPED) {
        return 1;
    }
    fprintf(stderr, "%s failed: %d, %s (index %lu, field %d)\n", call, (int)s, xpbd_status_str(s),
            (unsigned long)index, field);
    return 0;
}

/* Sizes the world's memory for its particles, links and blocks
 * (xpbd_world3_requirements) and allocates it; 1 on success. */
static int allocate(XpbdWorld3 *world) {
    XpbdRequirements needs;
    if (!check(xpbd_world3_requirements(world, &needs), "xpbd_world3_requirements",
               world->error_index, world->error_field)) {
        return 0;
    }
    world->memory = malloc(needs.memory_size); /* aligned to 8, XPBD_MEMORY_ALIGN */
    world->memory_size = needs.memory_size;
    return world->memory != NULL;
}

static double norm(const double a[3]) {
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* The target of the whirled rope at time t (s). */
static void circle(double t, double p[3]) {
    double omega = speed / radius;
    p[0] = radius * cos(omega * t);
    p[1] = 0.0;
    p[2] = radius * sin(omega * t);
}

/* The centre of mass of the rope's particles (equal masses). */
static void mean(double p[RN][3], double out[3]) {
    int k, c;
    for (c = 0; c < 3; ++c) {
        out[c] = 0.0;
        for (k = 0; k < RN; ++k) {
            out[c] += p[k][c];
        }
        out[c] /= (double)RN;
    }
}

/* Part (a); returns 1 if its figures hold. */
static int whirled_rope(void) {
    static double x[RN][3], v[RN][3], w[RN];
    static XpbdLink links[RN - 1];
    static XpbdAttachment top[1];
    XpbdWorld3 world = xpbd_world3_default();
    XpbdGroups3 groups = xpbd_groups3_default();
    XpbdStepConfig3 config = xpbd_step_config3_default(); /* g = (0, -9.81, 0) */
    double omega = speed / radius, total = rope_mass * RN;
    double error = 0.0, worst = 0.0, angle = 0.0, got = 0.0, want = 0.0, r = 0.0;
    double com0[3];
    int k, frame, ok;

    for (k = 0; k < RN; ++k) {
        x[k][0] = radius;
        x[k][1] = -0.05 * (double)k;
        x[k][2] = 0.0;
        w[k] = 1.0 / rope_mass; /* the top particle too: the attachment holds it */
    }
    if (!check(xpbd_build_rope3(&x[0][0], RN, 0.0, links, RN - 1, &world.link_count),
               "xpbd_build_rope3", 0, 0)) {
        return 0;
    }
    top[0].particle = 0;
    circle(0.0, top[0].previous);
    circle(0.0, top[0].target);
    top[0].compliance = 0.0; /* rigid */

    world.positions = x;
    world.velocities = v;
    world.inverse_masses = w;
    world.particle_count = RN;
    world.links = links;
    groups.groups.attachments = top;
    groups.groups.attachment_count = 1;
    if (!check(xpbd_world3_add(&world, &groups.block), "xpbd_world3_add", 0, 0) || !allocate(&world)) {
        return 0;
    }
    config.substeps = RSUBSTEPS;
    config.damping = 0.0; /* Newton's balance below holds without it */

    printf("(a) whirled rope: %d particles of %.0f g on %lu rigid links, the top one attached "
           "rigidly to a target on a circle of R = %.1f m at %.1f m/s; %u substeps, 60 Hz, %.0f s\n",
           RN, rope_mass * 1e3, (unsigned long)world.link_count, radius, speed,
           (unsigned)config.substeps, RFRAMES * FRAME_DT);
    printf("  t (s)   |F| (N)   |M(a_com - g)| (N)   r_com (m)   error (m)\n");
    mean(x, com0);
    for (frame = 1; frame <= RFRAMES; ++frame) {
        double target[3], d[3], com[3], mid[2], u[2], expected[3], e, f, cosine, h;
        circle(frame * FRAME_DT, target);
        top[0].target[0] = target[0];
        top[0].target[1] = target[1];
        top[0].target[2] = target[2];
        if (!check(xpbd_world3_step(&world, FRAME_DT, &config, NULL), "xpbd_world3_step",
                   world.error_index, world.error_field)) {
            free(world.memory);
            return 0;
        }
        for (k = 0; k < 3; ++k) {
            d[k] = x[0][k] - target[k];
        }
        e = norm(d);
        error = e > error ? e : error;
        /* Expected: M (a_com - g), a_com = omega^2 r towards the axis, r
         * the centre of mass's distance from the axis at the frame's end,
         * the direction that of the frame's mid-point (the mean of the
         * centre of mass's start and end). */
        mean(x, com);
        r = sqrt(com[0] * com[0] + com[2] * com[2]);
        mid[0] = com0[0] + com[0];
        mid[1] = com0[2] + com[2];
        h = sqrt(mid[0] * mid[0] + mid[1] * mid[1]);
        u[0] = mid[0] / h;
        u[1] = mid[1] / h;
        expected[0] = -total * omega * omega * r * u[0];
        expected[1] = total * G;
        expected[2] = -total * omega * omega * r * u[1];
        for (k = 0; k < 3; ++k) {
            com0[k] = com[k];
        }
        got = norm(top[0].force);
        want = norm(expected);
        if (frame + 60 > RFRAMES) { /* the last second */
            f = fabs(got - want) / want;
            worst = f > worst ? f : worst;
            cosine = (top[0].force[0] * expected[0] + top[0].force[1] * expected[1] +
                      top[0].force[2] * expected[2]) /
                     (got * want);
            cosine = cosine > 1.0 ? 1.0 : cosine;
            f = acos(cosine);
            angle = f > angle ? f : angle;
        }
        if (frame % 240 == 0) {
            printf("  %5.1f   %7.4f   %18.4f   %9.4f   %9.1e\n", frame * FRAME_DT, got, want, r, e);
        }
    }
    free(world.memory);
    ok = error < 0.01 && worst < 0.01 && angle < 0.02;
    printf("  attachment error: %.1e m at most over the run (limit 1e-2 m)\n", error);
    printf("  force over the last second: |F| within %.3f %% of |M(a_com - g)| (limit 1 %%), "
           "directions within %.4f rad (limit 0.02)\n",
           100.0 * worst, angle);
    printf("  the last frame: F = (%.4f, %.4f, %.4f) N, |F| = %.4f N, expected %.4f N: %s\n",
           top[0].force[0], top[0].force[1], top[0].force[2], got, want, ok ? "ok" : "MISMATCH");
    return ok;
}

/* Whether link l joins column GAP to column GAP + 1 (crosses the perforation). */
static int crosses(const XpbdLink *l) {
    uint32_t a = l->i % COLS, b = l->j % COLS;
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    return lo <= GAP && hi > GAP;
}

/* Part (b); returns 1 if its figures hold. */
static int tearing_sheet(void) {
    static double x[SN][3], v[SN][3], w[SN], max_force[SL];
    static double start[SA][3];
    static XpbdLink links[SL];
    static XpbdAttachment sides[SA];
    static uint32_t torn[ROWS];
    XpbdWorld3 world = xpbd_world3_default();
    XpbdGroups3 groups = xpbd_groups3_default();
    XpbdTearing3 tearing = xpbd_tearing3_default();
    XpbdStepConfig3 config = xpbd_step_config3_default();
    XpbdStepStats stats = {0};
    size_t link_count = 0, k, total = 0, crossing = 0, along = 0, stray = 0;
    int r, c, frame, first = 0, top_down = 1, last_row = -1, ok;

    for (r = 0; r < ROWS; ++r) {
        for (c = 0; c < COLS; ++c) {
            k = (size_t)(r * COLS + c);
            x[k][0] = c * spacing;
            x[k][1] = 1.0 - r * spacing;
            x[k][2] = 0.0;
            /* A small push out of the plane, largest in the middle. */
            v[k][2] = 0.002 * (double)(r * (ROWS - 1 - r) * c * (COLS - 1 - c));
            w[k] = 1.0 / sheet_mass;
        }
    }
    if (!check(xpbd_build_cloth3(&x[0][0], ROWS, COLS, 0, 1e-4, links, SL, &link_count),
               "xpbd_build_cloth3", 0, 0)) {
        return 0;
    }
    /* Horizontal links first, row by row: link k of row r is k / (COLS - 1). */
    for (k = 0; k < link_count; ++k) {
        int row = (int)(links[k].i / COLS);
        max_force[k] = crosses(&links[k]) ? weak + weak_step * row : strong;
    }
    /* Left column (rows in order), then right column. */
    for (k = 0; k < SA; ++k) {
        uint32_t p = k < ROWS ? (uint32_t)(k * COLS) : (uint32_t)((k - ROWS) * COLS + COLS - 1);
        sides[k].particle = p;
        for (c = 0; c < 3; ++c) {
            start[k][c] = sides[k].previous[c] = sides[k].target[c] = x[p][c];
        }
        sides[k].compliance = 1e-6;
    }

    world.positions = x;
    world.velocities = v;
    world.inverse_masses = w;
    world.particle_count = SN;
    world.links = links;
    world.link_count = link_count;
    tearing.max_force = max_force;
    tearing.torn = torn;
    tearing.torn_capacity = ROWS;
    groups.groups.attachments = sides;
    groups.groups.attachment_count = SA;
    if (!check(xpbd_world3_add(&world, &groups.block), "xpbd_world3_add", 0, 0) ||
        !check(xpbd_world3_add(&world, &tearing.block), "xpbd_world3_add", 0, 0) || !allocate(&world)) {
        return 0;
    }
    config.substeps = 8;
    config.damping = 0.5;

    printf("(b) tearing sheet: %d x %d particles, %lu structural links, %d attachments moving "
           "apart %.0f mm per side and frame; perforation between columns %d and %d "
           "(%.1f N at the top, +%.1f N per row), %.0f N elsewhere; %d frames\n",
           ROWS, COLS, (unsigned long)link_count, SA, pull * 1e3, GAP, GAP + 1, weak, weak_step,
           strong, SFRAMES);
    for (frame = 1; frame <= SFRAMES; ++frame) {
        for (k = 0; k < SA; ++k) {
            double d = pull * (double)frame;
            sides[k].target[0] = k < ROWS ? start[k][0] - d : start[k][0] + d;
        }
        if (!check(xpbd_world3_step(&world, FRAME_DT, &config, &stats), "xpbd_world3_step",
                   world.error_index, world.error_field)) {
            free(world.memory);
            return 0;
        }
        if (stats.torn == 0) {
            continue;
        }
        first = first ? first : frame;
        total += stats.torn;
        printf("  frame %2d: %lu torn:", frame, (unsigned long)stats.torn);
        for (k = 0; k < stats.torn && k < ROWS; ++k) {
            const XpbdLink *l = &links[torn[k]];
            int row = (int)(l->i / COLS);
            printf(" link %u (row %d, particles %u-%u)", (unsigned)torn[k], row, (unsigned)l->i,
                   (unsigned)l->j);
            top_down = top_down && row >= last_row;
            last_row = row;
        }
        printf("\n");
    }
    /* Exactly the perforation's links are torn: the sheet is in two halves. */
    for (k = 0; k < link_count; ++k) {
        int disabled = (links[k].flags & XPBD_LINK_DISABLED) != 0, across = crosses(&links[k]);
        crossing += across ? 1u : 0u;
        along += disabled && across ? 1u : 0u;
        if (disabled != across) {
            printf("  link %lu: %s\n", (unsigned long)k,
                   disabled ? "torn off the perforation" : "crosses the perforation, not torn");
            ++stray;
        }
    }
    printf("  gap between columns %d and %d at the end: %.3f m (a link is %.3f m)\n", GAP,
           GAP + 1, x[GAP + 1][0] - x[GAP][0], spacing);
    free(world.memory);
    ok = total > 0 && first > 1 && top_down && stray == 0 && along == total;
    printf("  torn: %lu links from frame %d on, %lu of them across the perforation (%lu cross "
           "it), top row first: %s\n",
           (unsigned long)total, first, (unsigned long)along, (unsigned long)crossing,
           ok ? "ok" : "MISMATCH");
    return ok;
}

int main(void) {
    int a, b;
    if (xpbd_version() != XPBD_VERSION_NUMBER) {
        fprintf(stderr, "xpbd.h is %s (%d) but the library is %u\n", XPBD_VERSION_STRING,
                XPBD_VERSION_NUMBER, (unsigned)xpbd_version());
        return 1;
    }
    printf("xpbd %s: kinematic attachments and tearing (C99, double)\n", XPBD_VERSION_STRING);
    a = whirled_rope();
    b = tearing_sheet();
    printf("%s\n", a && b ? "ok" : "MISMATCH");
    return a && b ? 0 : 1;
}
