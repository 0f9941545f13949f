/* A soft block of tetrahedra dropped on a ground plane, driven entirely
 * through the xpbd C ABI (C99, double).
 *
 * Build (from the repository root, after `cargo c-lib`):
 *   cc -std=c99 -ffp-contract=off -Iinclude examples/c/soft_body.c target/release/libxpbd.a -Wl,--gc-sections -o soft_body
 *
 * The block: NX x NY x NZ cubes of 10 cm from xpbd_build_tet_block3 (6 tets
 * per cube, rest volumes from the positions, tet compliance 1e-9 m^6/J:
 * nearly incompressible), plus one link along every distinct tet edge
 * (xpbd_build_links_from_tets3, rest lengths from the positions) for
 * shape. It starts 20 cm above the plane y = 0 and falls under
 * gravity; each frame is one xpbd_world3_step call, the plane in the
 * world's colliders block (XpbdColliders3) and the tets in its groups
 * block (XpbdGroups3). The world's memory (scratch and contacts) comes from
 * xpbd_world3_requirements and malloc.
 *
 * Printed: the volume ratio V/V0 (V the sum of the signed tet volumes
 * computed here from the positions, V0 the sum of the rest volumes) as
 * min and max over each range of 30 frames, and the lowest particle. The
 * program exits non-zero if any call fails or the final ratio is outside
 * [0.98, 1.02]. */
#include <stdio.h>
#include <stdlib.h>

#include "xpbd.h"

#define NX 2
#define NY 2
#define NZ 2
#define NP ((NX + 1) * (NY + 1) * (NZ + 1)) /* particles */
#define NT (6 * NX * NY * NZ)               /* tets */
#define NL (6 * NT)                         /* link capacity: 6 edges per tet, shared ones built once */
/* The block's distinct tet edges: per axis, per face diagonal, body diagonals. */
#define NE                                                                                       \
    (NX * (NY + 1) * (NZ + 1) + (NX + 1) * NY * (NZ + 1) + (NX + 1) * (NY + 1) * NZ +           \
     NX * NY * (NZ + 1) + NX * (NY + 1) * NZ + (NX + 1) * NY * NZ + NX * NY * NZ)
#define FRAMES 120                          /* 2 s at 60 Hz */
#define RANGE 30                            /* frames per printed range */
#define FRAME_DT (1.0 / 60.0)               /* s */

static const double spacing = 0.1;          /* m */
static const double mass = 0.05;            /* kg per particle */
static const double tet_compliance = 1e-9;  /* m^6/J */
static const double link_compliance = 1e-4; /* m/N */

/* `index` and `field` are the world's error_index and error_field
 * (XPBD_FIELD_*): the particle, link, tet, size or value the error names. */
static int check(XpbdStatus s, const char *call, size_t index, int field) {
    if (s == XPBD_STATUS_OK || s == XPBD_STATUS_SKIPPED) {
        return 1;
    }
    fprintf(stderr, "%s failed: %d, %s (index %lu, field %d)\n", call, (int)s, xpbd_status_str(s),
            (unsigned long)index, field);
    return 0;
}

/* The signed volume of tet (a, b, c, d): (b − a)·((c − a) × (d − a)) / 6 (m^3). */
static double tet_volume(double x[][3], const uint32_t p[4]) {
    const double *a = x[p[0]], *b = x[p[1]], *c = x[p[2]], *d = x[p[3]];
    double u[3], v[3], t[3];
    int k;
    for (k = 0; k < 3; ++k) {
        u[k] = b[k] - a[k];
        v[k] = c[k] - a[k];
        t[k] = d[k] - a[k];
    }
    return (u[0] * (v[1] * t[2] - v[2] * t[1]) + u[1] * (v[2] * t[0] - v[0] * t[2]) +
            u[2] * (v[0] * t[1] - v[1] * t[0])) /
           6.0;
}

static double volume(double x[][3], const XpbdTet *tets) {
    double v = 0.0;
    size_t k;
    for (k = 0; k < NT; ++k) {
        v += tet_volume(x, tets[k].particles);
    }
    return v;
}

int main(void) {
    static double x[NP][3], v[NP][3], w[NP]; /* m, m/s, 1/kg */
    static XpbdTet tets[NT];
    static XpbdLink links[NL];
    static uint32_t tet_ids[NT][4];       /* the tets' particles, 4 per tet */
    static uint32_t edge_keys[6 * NT][3]; /* the link builder's scratch: 6 per tet */
    const double origin[3] = {-0.1, 0.2, -0.1}; /* m: the block's lowest corner, 20 cm up */
    const XpbdPlane3 ground = {{0.0, 1.0, 0.0}, 0.0};
    size_t particles = 0, count = 0, want_particles = 0, want_tets = 0, k, lowest = 0;
    XpbdWorld3 world = xpbd_world3_default();
    XpbdColliders3 colliders = xpbd_colliders3_default(); /* contact budget: one per particle */
    XpbdGroups3 groups = xpbd_groups3_default();
    XpbdStepConfig3 config = xpbd_step_config3_default(); /* g = (0, -9.81, 0) */
    XpbdRequirements needs;
    XpbdStepStats stats;
    double v0 = 0.0, ratio = 1.0, lo = 1e300, hi = -1e300;
    int frame, e;

    if (!check(xpbd_tet_block_counts(NX, NY, NZ, &want_particles, &want_tets),
               "xpbd_tet_block_counts", 0, 0)) {
        return 1;
    }
    if (want_particles != NP || want_tets != NT) {
        fprintf(stderr, "counts %lu, %lu: expected %d, %d\n", (unsigned long)want_particles,
                (unsigned long)want_tets, NP, NT);
        return 1;
    }
    if (!check(xpbd_build_tet_block3(NX, NY, NZ, spacing, origin, tet_compliance, &x[0][0], NP,
                                     tets, NT, &particles, &count),
               "xpbd_build_tet_block3", 0, 0)) {
        return 1;
    }
    for (k = 0; k < NP; ++k) {
        v[k][0] = v[k][1] = v[k][2] = 0.0;
        w[k] = 1.0 / mass;
    }
    /* Every distinct edge of the tets (the tets as 4 indices each), rest
     * lengths from the positions, sorted by (i, j). */
    for (k = 0; k < NT; ++k) {
        for (e = 0; e < 4; ++e) {
            tet_ids[k][e] = tets[k].particles[e];
        }
    }
    if (!check(xpbd_build_links_from_tets3(&x[0][0], NP, &tet_ids[0][0], NT, link_compliance,
                                           &edge_keys[0][0], 6 * NT, links, NL, &world.link_count),
               "xpbd_build_links_from_tets3", 0, 0)) {
        return 1;
    }
    if (world.link_count != NE) {
        fprintf(stderr, "%lu links: expected %d (each tet edge once)\n", (unsigned long)world.link_count,
                NE);
        return 1;
    }
    for (k = 0; k < NT; ++k) {
        v0 += tets[k].rest_volume;
    }

    world.positions = x;
    world.velocities = v;
    world.inverse_masses = w;
    world.particle_count = NP;
    world.links = links;
    colliders.planes = &ground;
    colliders.plane_count = 1;
    groups.groups.tets = tets;
    groups.groups.tet_count = NT;
    if (!check(xpbd_world3_add(&world, &colliders.block), "xpbd_world3_add", 0, 0) ||
        !check(xpbd_world3_add(&world, &groups.block), "xpbd_world3_add", 0, 0) ||
        !check(xpbd_world3_requirements(&world, &needs), "xpbd_world3_requirements",
               world.error_index, world.error_field)) {
        return 1;
    }
    world.memory = malloc(needs.memory_size); /* aligned to 8, XPBD_MEMORY_ALIGN */
    world.memory_size = needs.memory_size;
    if (world.memory == NULL) {
        return 1;
    }
    config.substeps = 10;
    config.iterations = 5;
    config.damping = 2.0; /* 1/s */

    printf("xpbd %s: tet block %dx%dx%d (%lu particles, %lu tets, %lu links), V0 = %.6f m^3\n",
           XPBD_VERSION_STRING, NX, NY, NZ, (unsigned long)particles, (unsigned long)count,
           (unsigned long)world.link_count, v0);
    for (frame = 0; frame < FRAMES; ++frame) {
        if (!check(xpbd_world3_step(&world, FRAME_DT, &config, &stats), "xpbd_world3_step",
                   world.error_index, world.error_field)) {
            free(world.memory);
            return 1;
        }
        ratio = volume(x, tets) / v0;
        lo = ratio < lo ? ratio : lo;
        hi = ratio > hi ? ratio : hi;
        if ((frame + 1) % RANGE == 0) {
            for (k = 0; k < NP; ++k) {
                lowest = x[k][1] < x[lowest][1] ? k : lowest;
            }
            printf("frames %3d-%3d: V/V0 in [%.5f, %.5f], lowest y = %.4f m, contacts %lu\n",
                   frame + 2 - RANGE, frame + 1, lo, hi, x[lowest][1],
                   (unsigned long)stats.max_contacts);
            lo = 1e300;
            hi = -1e300;
        }
    }
    free(world.memory);
    if (ratio < 0.98 || ratio > 1.02) {
        printf("final V/V0 = %.5f outside [0.98, 1.02]: MISMATCH\n", ratio);
        return 1;
    }
    printf("final V/V0 = %.5f: ok\n", ratio);
    return 0;
}
