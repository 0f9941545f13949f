/* The browser demo's driver (docs/demo/xpbd-demo.js) in C, native: the
 * same bending cloth and rope, the same calls in the same order, the same default
 * settings. Prints the FNV-1a 64 state hash after N frames (default 240),
 * which must equal the page's (CI step 83 compares them).
 *
 *   tools/c-lib.sh && cc -std=c99 -O2 -ffp-contract=off -Iinclude docs/demo/native.c \
 *       target/release/c/libxpbd.a -lm -o demo_native && ./demo_native 240
 *
 * Options: -reset (λ reset every iteration), -iterations N, -substeps N. */
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

static double cx[NC][3], cv[NC][3], cw[NC];
static XpbdLink cl[4 * NC];
static XpbdBend cb[3 * NC];
static double rx[ROPE_N][3], rw[ROPE_N], rv[ROPE_N][3], rp[ROPE_N][3];
static XpbdLink rl[ROPE_N - 1];

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
    XpbdStepConfig3 config;
    uint64_t hash = 0xcbf29ce484222325u;
    size_t b;
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

    memset(&config, 0, sizeof config);
    config.gravity[1] = GRAVITY;
    config.substeps = substeps; config.iterations = iterations;
    config.damping = 0.5; config.particle_radius = 0.01;
    config.static_friction = 0.6; config.dynamic_friction = 0.4;

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
    }

    for (b = 0; b < sizeof cx; ++b) hash = (hash ^ ((const unsigned char *)cx)[b]) * 0x100000001b3u;
    for (b = 0; b < sizeof rx; ++b) hash = (hash ^ ((const unsigned char *)rx)[b]) * 0x100000001b3u;
    printf("%016llx\n", (unsigned long long)hash);
    free(world.memory);
    return 0;
}
