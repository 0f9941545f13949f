/* A hanging rope driven entirely through the xpbd C ABI (C99).
 *
 * Build (from the repository root, after `cargo c-lib`):
 *   cc -std=c99 -Iinclude examples/c/rope.c target/release/libxpbd.a -Wl,--gc-sections -o rope
 * or with pkg-config after `cmake --install`:
 *   cc -std=c99 examples/c/rope.c $(pkg-config --cflags --libs xpbd) -o rope
 *
 * The rope: N particles on a vertical line, y in m measured downwards from
 * the anchor. Particle 0 is pinned (inverse mass 0). Link i joins particles
 * i and i+1 and owns one XpbdDistanceConstraint, i.e. that link's λ.
 *
 * One frame = SUBSTEPS substeps of h = FRAME_DT / SUBSTEPS. Each substep:
 *   1. predict:  v += g h,  y_prev = y,  y += v h
 *   2. begin:    xpbd_distance_begin_substep on every link (λ = 0 here only)
 *   3. solve:    ITERATIONS Gauss-Seidel sweeps over the links, each link
 *                solved with the same h, rest length and compliance
 *   4. velocity: v = (y - y_prev) / h, times a little damping
 *
 * What to check in the output: at rest a soft link stretches by its
 * compliance times the weight it carries, stretch_i = α m g (N - 1 - i).
 * Each link's λ lives for the whole substep, so one link's stiffness does
 * not depend on the iteration count; the sweeps are there for the coupling
 * between links (Gauss-Seidel): with 8 the chain matches to 4 digits, with
 * 2 the top link reads 6.98 mm instead of 6.87 mm.
 *
 * Switching to the 3D rope/cloth API later: positions and velocities become
 * 3-vectors (predict and velocity update then run per component), the link
 * list may come from a mesh for cloth, and only rope_solve_link() calls a
 * different solve function. The frame loop, the substep/iteration structure
 * and rope_check() stay as they are. */
#include <stdio.h>
#include <math.h>

#include "xpbd.h"

#define N 8              /* particles */
#define SUBSTEPS 4       /* substeps per frame */
#define ITERATIONS 8     /* Gauss-Seidel sweeps per substep */
#define FRAME_DT (1.0 / 60.0) /* s */

static const double gravity = 9.81;     /* m/s², along +y (down) */
static const double mass = 0.1;         /* kg per free particle */
static const double rest = 0.1;         /* m, rest length of every link */
static const double compliance = 1e-3;  /* m/N: 1 N stretches a link 1 mm */
static const double damping = 2.0;      /* 1/s, velocity damping rate */

typedef struct Rope {
    double y[N], y_prev[N], v[N]; /* m, m, m/s */
    double w[N];                  /* inverse masses, 1/kg (0 = pinned) */
    XpbdDistanceConstraint link[N - 1]; /* one per link: owns its λ */
} Rope;

/* Every status an xpbd call can return, and what this program does with
 * it. Returns 1 to go on, 0 to stop. */
static int rope_check(XpbdStatus s, const char *call, int link) {
    switch (s) {
    case XPBD_STATUS_OK:      /* correction applied */
    case XPBD_STATUS_SKIPPED: /* both ends pinned: nothing to do, not an error */
        return 1;
    /* Errors: nothing was written, the rope is as before the call. */
    case XPBD_STATUS_NULL_POINTER:         /* a bug in the caller */
    case XPBD_STATUS_INVALID_INVERSE_MASS: /* set-up errors: fix the parameters */
    case XPBD_STATUS_INVALID_REST_LENGTH:
    case XPBD_STATUS_INVALID_COMPLIANCE:
    case XPBD_STATUS_INVALID_TIME_STEP:
    case XPBD_STATUS_UNREPRESENTABLE_SCALE: /* h too small for this compliance */
    case XPBD_STATUS_NON_FINITE_POSITION:   /* state errors: the simulation */
    case XPBD_STATUS_ENDPOINTS_NOT_ORDERED: /* blew up or the rope folded; an */
    case XPBD_STATUS_INVALID_RESULT:        /* engine would reset this rope */
    default:                                /* a code from a newer library */
        fprintf(stderr, "%s (link %d) failed: %d, %s\n", call, link, (int)s,
                xpbd_status_str(s));
        return 0;
    }
}

static void rope_init(Rope *r) {
    int i;
    for (i = 0; i < N; ++i) {
        r->y[i] = r->y_prev[i] = i * rest; /* straight, unstretched */
        r->v[i] = 0.0;
        r->w[i] = i == 0 ? 0.0 : 1.0 / mass;
    }
    for (i = 0; i < N - 1; ++i) {
        r->link[i].lambda = 0.0;
    }
}

/* The only call that knows the rope is one-dimensional. */
static XpbdStatus rope_solve_link(Rope *r, int i, double h) {
    return xpbd_distance_solve(&r->link[i], &r->y[i], &r->y[i + 1], r->w[i], r->w[i + 1], rest,
                               compliance, h);
}

/* Advances the rope by one frame; returns 1 on success, 0 on an error. */
static int rope_frame(Rope *r) {
    const double h = FRAME_DT / SUBSTEPS; /* the substep: what solve takes */
    int s, it, i;
    for (s = 0; s < SUBSTEPS; ++s) {
        for (i = 0; i < N; ++i) { /* 1. predict */
            if (r->w[i] > 0.0) {
                r->v[i] += gravity * h;
            }
            r->y_prev[i] = r->y[i];
            r->y[i] += r->v[i] * h;
        }
        for (i = 0; i < N - 1; ++i) { /* 2. λ = 0, once per substep */
            if (!rope_check(xpbd_distance_begin_substep(&r->link[i]), "begin_substep", i)) {
                return 0;
            }
        }
        for (it = 0; it < ITERATIONS; ++it) { /* 3. Gauss-Seidel sweeps */
            for (i = 0; i < N - 1; ++i) {
                if (!rope_check(rope_solve_link(r, i, h), "solve", i)) {
                    return 0;
                }
            }
        }
        for (i = 0; i < N; ++i) { /* 4. velocity from the corrected positions */
            r->v[i] = (r->y[i] - r->y_prev[i]) / h * (1.0 - damping * h);
        }
    }
    return 1;
}

int main(void) {
    Rope rope;
    int frame, i, ok = 1;
    double y0, y1;
    XpbdStatus s;

    /* The library linked must be the one the header describes. */
    if (xpbd_version() != XPBD_VERSION_NUMBER) {
        fprintf(stderr, "xpbd.h is %s (%d) but the library is %u\n", XPBD_VERSION_STRING,
                XPBD_VERSION_NUMBER, (unsigned)xpbd_version());
        return 1;
    }
    printf("xpbd %s: rope of %d particles, %d substeps x %d iterations, 10 s\n",
           XPBD_VERSION_STRING, N, SUBSTEPS, ITERATIONS);

    rope_init(&rope);
    for (frame = 0; frame < 600; ++frame) { /* 10 s at 60 Hz */
        if (!rope_frame(&rope)) {
            return 1;
        }
    }

    printf("link  stretch (mm)  expected a*m*g*(N-1-i) (mm)\n");
    for (i = 0; i < N - 1; ++i) {
        double got = rope.y[i + 1] - rope.y[i] - rest;
        double want = compliance * mass * gravity * (N - 1 - i);
        printf("%4d  %12.4f  %12.4f\n", i, got * 1e3, want * 1e3);
        ok = ok && fabs(got - want) <= 0.01 * want; /* 1 % */
    }
    printf("tip at %.4f m (unstretched %.4f m)\n", rope.y[N - 1], (N - 1) * rest);

    /* A rejected call: h = 0. The status says why and nothing is written. */
    y0 = rope.y[0];
    y1 = rope.y[1];
    s = xpbd_distance_solve(&rope.link[0], &rope.y[0], &rope.y[1], rope.w[0], rope.w[1], rest,
                            compliance, 0.0);
    printf("h = 0 is rejected: %d, %s; positions unchanged: %s\n", (int)s, xpbd_status_str(s),
           rope.y[0] == y0 && rope.y[1] == y1 ? "yes" : "no");
    ok = ok && s == XPBD_STATUS_INVALID_TIME_STEP && rope.y[0] == y0 && rope.y[1] == y1;

    printf("%s\n", ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
}
