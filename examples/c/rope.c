/* A hanging 3D rope driven entirely through the xpbd C ABI (C99, double).
 *
 * Build (from the repository root, after `cargo c-lib`):
 *   cc -std=c99 -Iinclude examples/c/rope.c target/release/libxpbd.a -Wl,--gc-sections -o rope
 * or with pkg-config after `cmake --install`:
 *   cc -std=c99 examples/c/rope.c $(pkg-config --cflags --libs xpbd) -o rope
 * (the program's own sqrt may need -lm on some platforms; xpbd needs no libm).
 *
 * The rope: N particles, 0.1 m apart, laid out straight and slanted in 3D;
 * particle 0 is pinned (inverse mass 0). xpbd_build_rope3 writes the N - 1
 * links (rest lengths from the positions); each is made tension-only, like a
 * real rope: it resists stretching but never pushes.
 *
 * The world (xpbd_world3_default) points at the caller's buffers and at one
 * block of memory the library carves its scratch from: its size comes from
 * xpbd_world3_requirements, the block from malloc (no feature blocks here:
 * no colliders, self-collision, tearing or constraint groups).
 *
 * xpbd_world3_step advances one frame: SUBSTEPS substeps of
 * h = FRAME_DT / SUBSTEPS, each predicting x += h v + h² g, resetting every
 * λ, running up to ITERATIONS Gauss-Seidel sweeps over the links (stopping
 * early once max |C + α̃λ| <= TOLERANCE) and setting v = (x - x_prev) / h,
 * with a little damping. The rope falls, swings and comes to rest hanging
 * straight down from the pin.
 *
 * What to check in the output: at rest a link stretches by its compliance
 * times the weight it carries, stretch_i = α m g (N - 1 - i), and the tip
 * hangs right below the pin (x = z = 0). The program checks both (1 %) and
 * exits with 0 only if they hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "xpbd.h"

#define N 8                   /* particles */
#define FRAMES 600            /* 10 s at 60 Hz */
#define FRAME_DT (1.0 / 60.0) /* s */

static const double mass = 0.1;        /* kg per free particle */
static const double spacing = 0.1;     /* m, rest length of every link */
static const double compliance = 1e-3; /* m/N: 1 N stretches a link 1 mm */

/* Every status an xpbd call can return, and what this program does with
 * it: returns 1 to go on, 0 to stop. `index` and `field` are the world's
 * error_index and error_field (an XPBD_FIELD_* code): the particle, link,
 * collider, size or configuration value the error names. */
static int xpbd_ok(XpbdStatus s, const char *call, size_t index, int field) {
    switch (s) {
    case XPBD_STATUS_OK:      /* done */
    case XPBD_STATUS_SKIPPED: /* nothing to do (both ends pinned): not an error */
        return 1;
    /* Errors. xpbd_world3_step leaves positions and velocities exactly as
     * they were, so an engine can log, fix and retry, or reset the rope. */
    case XPBD_STATUS_NULL_POINTER:     /* bugs in the caller: a buffer */
    case XPBD_STATUS_ALIASED_BUFFERS:  /* missing or two buffers overlap */
    case XPBD_STATUS_INVALID_CONFIG:   /* field: the config value (SUBSTEPS, ...) */
    case XPBD_STATUS_CAPACITY_TOO_SMALL:  /* field MEMORY: index = the bytes needed */
    case XPBD_STATUS_INVALID_BLOCK:       /* index: a block's place in the chain */
    case XPBD_STATUS_INVALID_SELF_COLLISION: /* (feature blocks this rope */
    case XPBD_STATUS_INVALID_MAX_FORCE:      /*  does not use) */
    case XPBD_STATUS_INVALID_ARGUMENT:
    case XPBD_STATUS_INVALID_INVERSE_MASS: /* set-up errors: fix the data */
    case XPBD_STATUS_INVALID_REST_LENGTH:
    case XPBD_STATUS_INVALID_COMPLIANCE:
    case XPBD_STATUS_INDEX_OUT_OF_RANGE:
    case XPBD_STATUS_SAME_PARTICLE:
    case XPBD_STATUS_INVALID_COLLIDER:
    case XPBD_STATUS_INVALID_REST_VALUE:
    case XPBD_STATUS_INVALID_TIME_STEP:     /* dt <= 0, NaN or infinite */
    case XPBD_STATUS_UNREPRESENTABLE_SCALE: /* h too small for a compliance */
    case XPBD_STATUS_WORK_LIMIT:            /* more work than one call may do */
    case XPBD_STATUS_NON_FINITE_POSITION:   /* state errors: the simulation */
    case XPBD_STATUS_NON_FINITE_VELOCITY:   /* blew up, or two particles of */
    case XPBD_STATUS_ZERO_LENGTH:           /* a link coincide; an engine */
    case XPBD_STATUS_DEGENERATE:            /* would reset this rope */
    case XPBD_STATUS_INVALID_RESULT:
    case XPBD_STATUS_ENDPOINTS_NOT_ORDERED: /* 1D API only */
    case XPBD_STATUS_NO_SUBSTEP:            /* system API only */
    case XPBD_STATUS_UNSUPPORTED_FLAG:      /* colored API only */
    case XPBD_STATUS_JOB_CONTRACT:
    default:                                /* a code from a newer library */
        fprintf(stderr, "%s failed: %d, %s (index %lu, field %d)\n", call, (int)s,
                xpbd_status_str(s), (unsigned long)index, field);
        return 0;
    }
}

int main(void) {
    double x[N][3], v[N][3], w[N]; /* m, m/s, 1/kg (0 = pinned) */
    XpbdLink links[N - 1];
    size_t k;
    XpbdWorld3 world = xpbd_world3_default();
    XpbdRequirements needs;
    XpbdStepConfig3 config = xpbd_step_config3_default(); /* g = (0, -9.81, 0) */
    XpbdStepStats stats;
    XpbdStatus s;
    double before[N][3];
    int frame, same, ok = 1;

    /* The library linked must be the one the header describes. */
    if (xpbd_version() != XPBD_VERSION_NUMBER) {
        fprintf(stderr, "xpbd.h is %s (%d) but the library is %u\n", XPBD_VERSION_STRING,
                XPBD_VERSION_NUMBER, (unsigned)xpbd_version());
        return 1;
    }

    /* A straight rope from the pin at the origin, slanted out in x and z. */
    for (k = 0; k < N; ++k) {
        x[k][0] = 0.6 * spacing * (double)k;
        x[k][1] = 0.0;
        x[k][2] = 0.8 * spacing * (double)k;
        v[k][0] = v[k][1] = v[k][2] = 0.0;
        w[k] = k == 0 ? 0.0 : 1.0 / mass;
    }
    s = xpbd_build_rope3(&x[0][0], N, compliance, links, N - 1, &world.link_count);
    if (!xpbd_ok(s, "xpbd_build_rope3", 0, 0)) {
        return 1;
    }
    for (k = 0; k < world.link_count; ++k) {
        links[k].flags = XPBD_LINK_TENSION_ONLY;
    }

    /* The world points at the caller's buffers and at the memory the
     * library works in (here only the step's scratch: 3 N positions). */
    world.positions = x;
    world.velocities = v;
    world.inverse_masses = w;
    world.particle_count = N;
    world.links = links;
    s = xpbd_world3_requirements(&world, &needs);
    if (!xpbd_ok(s, "xpbd_world3_requirements", world.error_index, world.error_field)) {
        return 1;
    }
    world.memory = malloc(needs.memory_size); /* aligned to 8, XPBD_MEMORY_ALIGN */
    world.memory_size = needs.memory_size;
    if (world.memory == NULL) {
        return 1;
    }
    config.substeps = 8;
    config.iterations = 20;    /* a budget: */
    config.tolerance = 1e-9;   /* most substeps need far fewer sweeps */
    config.damping = 2.0;      /* 1/s, so the swinging dies out */

    printf("xpbd %s: 3D rope of %d particles, %u substeps x <= %u iterations, %d frames\n",
           XPBD_VERSION_STRING, N, (unsigned)config.substeps, (unsigned)config.iterations,
           FRAMES);
    for (frame = 0; frame < FRAMES; ++frame) {
        s = xpbd_world3_step(&world, FRAME_DT, &config, &stats);
        if (!xpbd_ok(s, "xpbd_world3_step", world.error_index, world.error_field)) {
            free(world.memory);
            return 1;
        }
    }
    printf("last frame: %u of %u substeps converged, residual %.1e m\n",
           (unsigned)stats.converged_substeps, (unsigned)stats.substeps,
           stats.last.max_residual);

    printf("link  stretch (mm)  expected a*m*g*(N-1-i) (mm)\n");
    for (k = 0; k + 1 < N; ++k) {
        double d[3], got, want = compliance * mass * 9.81 * (double)(N - 1 - k);
        int c;
        for (c = 0; c < 3; ++c) {
            d[c] = x[k + 1][c] - x[k][c];
        }
        got = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - spacing;
        printf("%4lu  %12.4f  %12.4f\n", (unsigned long)k, got * 1e3, want * 1e3);
        ok = ok && fabs(got - want) <= 0.01 * want; /* 1 % */
    }
    {
        /* The tip's distance from the vertical through the pin, and its depth. */
        double off = sqrt(x[N - 1][0] * x[N - 1][0] + x[N - 1][2] * x[N - 1][2]);
        printf("tip %.4f m below the pin, %.4f m off the vertical (unstretched length %.4f m)\n",
               -x[N - 1][1], off, (N - 1) * spacing);
        ok = ok && off < 1e-4;
    }

    /* A rejected call: dt = 0. The status says why and nothing is written. */
    for (k = 0; k < N; ++k) {
        before[k][0] = x[k][0];
        before[k][1] = x[k][1];
        before[k][2] = x[k][2];
    }
    s = xpbd_world3_step(&world, 0.0, &config, NULL);
    same = 1;
    for (k = 0; k < N; ++k) {
        same = same && x[k][0] == before[k][0] && x[k][1] == before[k][1] &&
               x[k][2] == before[k][2];
    }
    printf("dt = 0 is rejected: %d, %s; positions unchanged: %s\n", (int)s, xpbd_status_str(s),
           same ? "yes" : "no");
    ok = ok && s == XPBD_STATUS_INVALID_TIME_STEP && world.error_field == XPBD_FIELD_FRAME_TIME && same;
    free(world.memory);

    printf("%s\n", ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
}
