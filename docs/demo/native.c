/* The browser demo's driver (docs/demo/xpbd-demo.js) in C, native: the
 * same bending cloth, rope and cape in the wind (its body on the scripted
 * path), the same calls in the same order, the same default settings.
 * Prints the FNV-1a 64 state hash after N frames (default 240),
 * which must equal the page's (CI step 83 compares them).
 *
 *   tools/c-lib.sh && cc -std=c99 -O2 -ffp-contract=off -Iinclude docs/demo/native.c \
 *       target/release/c/libxpbd.a -lm -o demo_native && ./demo_native 240
 *
 * Options: -reset (λ reset every iteration), -iterations N, -substeps N (the
 * cloth's and the rope's; the cape has its own). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpbd.h"

#define CLOTH_N 16
#define NC (CLOTH_N * CLOTH_N)
#define ROPE_N 20
static const double DT = 1.0 / 60.0, GRAVITY = -9.81;
static const double CLOTH_SPACING = 0.05, CLOTH_MASS = 0.005, CLOTH_COMPLIANCE = 1e-7;
static const double ROPE_SPACING = 0.05, ROPE_MASS = 0.05, ROPE_X = 0.95, ROPE_TOP = 0.6;
static const double ROPE_DAMPING = 0.5;
static const double CLOTH_BEND_COMPLIANCE = 30; /* rad²/J */
/* The cape scene (xpbd-demo.js has the comments). */
#define CAPE_COLS 10
#define CAPE_ROWS 14
#define NK (CAPE_COLS * CAPE_ROWS)
#define CAPE_TRIANGLES (2 * (CAPE_ROWS - 1) * (CAPE_COLS - 1))
static const double CAPE_SPACING = 0.04, CAPE_MASS = 0.002, CAPE_COMPLIANCE = 1e-7;
static const double CAPE_BEND_COMPLIANCE = 1000, CAPE_GAP = 0.02, CAPE_WRAP = 2;
static const unsigned CAPE_SUBSTEPS = 16, CAPE_ITERATIONS = 4;
static const double BODY_RADIUS = 0.11, BODY_HALF_HEIGHT = 0.16, HEAD_RADIUS = 0.09, HEAD_Y = 0.34;
static const double BODY_STATIC_FRICTION = 0.6, BODY_DYNAMIC_FRICTION = 0.4;
static const double BODY_SWAY = 0.3, BODY_SWAY_PERIOD = 4, BODY_BOB = 0.02, BODY_BOB_PERIOD = 0.8;
static const double BODY_MAX_SPEED = 3, WIND_SPEED = 6, WIND_GUST = 0.3, WIND_GUST_PERIOD = 1.5;
static const double WIND_DIRECTION[2] = {-1, 0}; /* the page's default, towards -x */

static double cx[NC][3], cv[NC][3], cw[NC];
static XpbdLink cl[4 * NC];
static XpbdBend cb[3 * NC];
static double rx[ROPE_N][3], rw[ROPE_N], rv[ROPE_N][3], rp[ROPE_N][3];
static XpbdLink rl[ROPE_N - 1];
static double kx[NK][3], kv[NK][3], kw[NK];
static XpbdLink kl[4 * NK];
static XpbdBend kb[3 * NK];
static XpbdAeroTriangle kt[CAPE_TRIANGLES];

static void ok(XpbdStatus s, const char *what) {
    if (s < 0) {
        fprintf(stderr, "%s: %s\n", what, xpbd_status_str(s));
        exit(1);
    }
}

static double attachment_x(double t) {
    const double u = t / 4 - floor(t / 4);
    return ROPE_X + 0.25 * (u < 0.5 ? 4 * u - 1 : 3 - 4 * u);
}

/* A smooth periodic wave of period 1 in [-1, 1]: two parabolas. */
static double wave(double u) {
    const double f = u - floor(u);
    return f < 0.5 ? 16 * f * (0.5 - f) : 16 * (f - 0.5) * (f - 1);
}

/* The body's scripted centre (x, y) at time t (s). */
static void body_path(double t, double *x, double *y) {
    *x = BODY_SWAY * wave(t / BODY_SWAY_PERIOD);
    *y = BODY_BOB * wave(t / BODY_BOB_PERIOD);
}

/* Where the cape's top-row particle c sits relative to the body's centre. */
static void cape_anchor(int c, double o[3]) {
    const double z = ((double)c - (CAPE_COLS - 1) / 2.0) * CAPE_SPACING;
    o[0] = CAPE_WRAP * z * z - (BODY_RADIUS + CAPE_GAP);
    o[1] = BODY_HALF_HEIGHT;
    o[2] = z;
}

int main(int argc, char **argv) {
    long frames = 240, frame;
    unsigned substeps = 8, iterations = 4, s, k;
    int reset_every_iteration = 0, i, c, r;
    double compliance = 3e-3;
    size_t count = 0, cloth_links = xpbd_cloth_link_count(CLOTH_N, CLOTH_N, 1);
    XpbdSphere3 sphere = {{0.0, 0.0, 0.0}, 0.3};
    XpbdPlane3 floor_plane = {{0.0, 1.0, 0.0}, -0.45};
    XpbdWorld3 world = xpbd_world3_default();
    XpbdColliders3 colliders = xpbd_colliders3_default();
    XpbdGroups3 groups = xpbd_groups3_default();
    XpbdRequirements needs;
    size_t cloth_bends = xpbd_bends_cloth_count(CLOTH_N, CLOTH_N);
    XpbdSystem3 rope;
    XpbdStepConfig3 config, cape_config;
    uint64_t hash = 0xcbf29ce484222325u;
    size_t b;
    size_t cape_links = xpbd_cloth_link_count(CAPE_ROWS, CAPE_COLS, 1);
    size_t cape_bends = xpbd_bends_cloth_count(CAPE_ROWS, CAPE_COLS);
    XpbdWorld3 cape = xpbd_world3_default();
    XpbdColliders3 body = xpbd_colliders3_default();
    XpbdGroups3 cape_groups = xpbd_groups3_default();
    XpbdWind3 wind = xpbd_wind3_default();
    XpbdCapsule3 capsules[2];
    double body_x, body_y, o[3];
    int t = 0;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-reset")) reset_every_iteration = 1;
        else if (!strcmp(argv[i], "-iterations") && i + 1 < argc) iterations = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-substeps") && i + 1 < argc) substeps = (unsigned)atoi(argv[++i]);
        else frames = atol(argv[i]);
    }

    for (r = 0; r < CLOTH_N; ++r) {
        for (c = 0; c < CLOTH_N; ++c) {
            double *p = cx[r * CLOTH_N + c];
            p[0] = -0.375 + (double)c * CLOTH_SPACING + 0.01;
            p[1] = 0.5;
            p[2] = -0.375 + (double)r * CLOTH_SPACING;
        }
    }
    for (i = 0; i < NC; ++i) cw[i] = 1 / CLOTH_MASS;
    ok(xpbd_build_cloth3(&cx[0][0], CLOTH_N, CLOTH_N, 1, CLOTH_COMPLIANCE, cl, cloth_links, &count),
       "xpbd_build_cloth3");
    /* Bends from the flat rest shape (rest angle 0). */
    ok(xpbd_build_bends_cloth3(&cx[0][0], CLOTH_N, CLOTH_N, CLOTH_BEND_COMPLIANCE, cb, cloth_bends, &count),
       "xpbd_build_bends_cloth3");
    /* The world: the cloth, a colliders block (the floor and the sphere, the
     * default contact budget: particles x colliders) and a groups block (the
     * bends); the chain is groups -> colliders, as the page writes it. */
    groups.groups.bends = cb; groups.groups.bend_count = cloth_bends;
    colliders.planes = &floor_plane; colliders.plane_count = 1;
    colliders.spheres = &sphere; colliders.sphere_count = 1;
    world.positions = cx; world.velocities = cv; world.inverse_masses = cw; world.particle_count = NC;
    world.links = cl; world.link_count = cloth_links;
    ok(xpbd_world3_add(&world, &colliders.block), "xpbd_world3_add");
    ok(xpbd_world3_add(&world, &groups.block), "xpbd_world3_add");
    ok(xpbd_world3_requirements(&world, &needs), "xpbd_world3_requirements");
    world.memory = malloc(needs.memory_size); /* aligned to 8 */
    world.memory_size = needs.memory_size;
    if (world.memory == NULL) ok(XPBD_STATUS_CAPACITY_TOO_SMALL, "malloc");

    for (i = 0; i < ROPE_N; ++i) {
        rx[i][0] = ROPE_X;
        rx[i][1] = ROPE_TOP - (double)i * ROPE_SPACING;
        rx[i][2] = 0;
        rw[i] = i == 0 ? 0 : 1 / ROPE_MASS;
    }
    ok(xpbd_build_rope3(&rx[0][0], ROPE_N, compliance, rl, ROPE_N - 1, &count), "xpbd_build_rope3");
    memset(&rope, 0, sizeof rope);
    rope.positions = rx; rope.inverse_masses = rw; rope.particle_count = ROPE_N;
    rope.links = rl; rope.link_count = ROPE_N - 1;

    /* The cape: hanging straight down from the body at its path's start. */
    body_path(0, &body_x, &body_y);
    for (r = 0; r < CAPE_ROWS; ++r) {
        for (c = 0; c < CAPE_COLS; ++c) {
            double *p = kx[r * CAPE_COLS + c];
            cape_anchor(c, o);
            p[0] = body_x + o[0];
            p[1] = body_y + o[1] - (double)r * CAPE_SPACING;
            p[2] = o[2];
            kw[r * CAPE_COLS + c] = r == 0 ? 0 : 1 / CAPE_MASS;
        }
    }
    if (cape_links > sizeof kl / sizeof kl[0] || cape_bends > sizeof kb / sizeof kb[0])
        ok(XPBD_STATUS_CAPACITY_TOO_SMALL, "cape arrays");
    ok(xpbd_build_cloth3(&kx[0][0], CAPE_ROWS, CAPE_COLS, 1, CAPE_COMPLIANCE, kl, cape_links, &count),
       "xpbd_build_cloth3");
    ok(xpbd_build_bends_cloth3(&kx[0][0], CAPE_ROWS, CAPE_COLS, CAPE_BEND_COMPLIANCE, kb, cape_bends, &count),
       "xpbd_build_bends_cloth3");
    for (r = 0; r + 1 < CAPE_ROWS; ++r) { /* two per cell, split along (r, c)-(r+1, c+1) */
        for (c = 0; c + 1 < CAPE_COLS; ++c) {
            const uint32_t a = (uint32_t)(r * CAPE_COLS + c), d = a + CAPE_COLS + 1;
            kt[t++] = xpbd_aero_triangle_default(a, a + 1, d);
            kt[t++] = xpbd_aero_triangle_default(a, d, a + CAPE_COLS);
        }
    }
    /* Its world: the chain wind -> groups -> colliders, as the page writes it. */
    wind.triangles = kt; wind.triangle_count = CAPE_TRIANGLES;
    cape_groups.groups.bends = kb; cape_groups.groups.bend_count = cape_bends;
    memset(capsules, 0, sizeof capsules);
    body.capsules = capsules; body.capsule_count = 2;
    cape.positions = kx; cape.velocities = kv; cape.inverse_masses = kw; cape.particle_count = NK;
    cape.links = kl; cape.link_count = cape_links;
    ok(xpbd_world3_add(&cape, &body.block), "xpbd_world3_add");
    ok(xpbd_world3_add(&cape, &cape_groups.block), "xpbd_world3_add");
    ok(xpbd_world3_add(&cape, &wind.block), "xpbd_world3_add");
    ok(xpbd_world3_requirements(&cape, &needs), "xpbd_world3_requirements");
    cape.memory = malloc(needs.memory_size);
    cape.memory_size = needs.memory_size;
    if (cape.memory == NULL) ok(XPBD_STATUS_CAPACITY_TOO_SMALL, "malloc");

    memset(&config, 0, sizeof config);
    config.gravity[1] = GRAVITY;
    config.substeps = substeps; config.iterations = iterations;
    config.damping = 0.5; config.particle_radius = 0.01;
    config.static_friction = 0.6; config.dynamic_friction = 0.4;
    cape_config = config; /* the cape's own substeps and iterations */
    cape_config.substeps = CAPE_SUBSTEPS; cape_config.iterations = CAPE_ITERATIONS;

    for (frame = 0; frame < frames; ++frame) {
        const double h = DT / substeps, damp = 1 - ROPE_DAMPING * h;
        ok(xpbd_world3_step(&world, DT, &config, NULL), "xpbd_world3_step");
        for (s = 0; s < substeps; ++s) {
            rx[0][0] = attachment_x(((double)frame + (double)(s + 1) / substeps) / 60);
            for (i = 1; i < ROPE_N; ++i) {
                rv[i][1] += h * GRAVITY;
                for (c = 0; c < 3; ++c) {
                    rp[i][c] = rx[i][c];
                    rx[i][c] += h * rv[i][c];
                }
            }
            if (!reset_every_iteration) {
                ok(xpbd_system3_begin_substep(&rope, h), "begin_substep"); /* λ = 0, once */
                for (k = 0; k < iterations; ++k) ok(xpbd_system3_iterate(&rope, NULL), "iterate");
            } else {
                for (k = 0; k < iterations; ++k) { /* the bug, on purpose */
                    ok(xpbd_system3_begin_substep(&rope, h), "begin_substep");
                    ok(xpbd_system3_iterate(&rope, NULL), "iterate");
                }
            }
            for (i = 1; i < ROPE_N; ++i)
                for (c = 0; c < 3; ++c) rv[i][c] = (rx[i][c] - rp[i][c]) / h * damp;
        }
        { /* the cape: the body to its path's next point (at most BODY_MAX_SPEED), swept */
            double tx, ty, dx, dy, d2, nx, ny, vx, vy, speed;
            const double reach = BODY_MAX_SPEED * DT;
            body_path(((double)frame + 1) / 60, &tx, &ty);
            dx = tx - body_x; dy = ty - body_y;
            d2 = dx * dx + dy * dy;
            if (d2 > reach * reach) {
                const double q = reach / sqrt(d2);
                dx = dx * q; dy = dy * q;
            }
            nx = body_x + dx; ny = body_y + dy;
            vx = (nx - body_x) / DT; vy = (ny - body_y) / DT;
            for (i = 0; i < 2; ++i) {
                capsules[i].center[0] = body_x;
                capsules[i].center[1] = i == 0 ? body_y : body_y + HEAD_Y;
                capsules[i].half_axis[1] = i == 0 ? BODY_HALF_HEIGHT : 0;
                capsules[i].radius = i == 0 ? BODY_RADIUS : HEAD_RADIUS;
                capsules[i].velocity[0] = vx; capsules[i].velocity[1] = vy;
                capsules[i].static_friction = BODY_STATIC_FRICTION;
                capsules[i].dynamic_friction = BODY_DYNAMIC_FRICTION;
            }
            for (c = 0; c < CAPE_COLS; ++c) { /* the top row: carried with the shoulders over the frame */
                cape_anchor(c, o);
                kv[c][0] = (nx + o[0] - kx[c][0]) / DT;
                kv[c][1] = (ny + o[1] - kx[c][1]) / DT;
                kv[c][2] = (o[2] - kx[c][2]) / DT;
            }
            speed = WIND_SPEED * (1 + WIND_GUST * wave((double)frame / 60 / WIND_GUST_PERIOD)); /* gusts */
            wind.velocity[0] = speed * WIND_DIRECTION[0];
            wind.velocity[2] = speed * WIND_DIRECTION[1];
            ok(xpbd_world3_step(&cape, DT, &cape_config, NULL), "xpbd_world3_step (cape)");
            body_x = nx; body_y = ny;
        }
    }

    for (b = 0; b < sizeof cx; ++b) hash = (hash ^ ((const unsigned char *)cx)[b]) * 0x100000001b3u;
    for (b = 0; b < sizeof rx; ++b) hash = (hash ^ ((const unsigned char *)rx)[b]) * 0x100000001b3u;
    for (b = 0; b < sizeof kx; ++b) hash = (hash ^ ((const unsigned char *)kx)[b]) * 0x100000001b3u;
    printf("%016llx\n", (unsigned long long)hash);
    free(world.memory);
    free(cape.memory);
    return 0;
}
