/* A cloth pinned at two corners, draped over a sphere, driven entirely
 * through the xpbd C ABI (C99, double).
 *
 * Build (from the repository root, after `cargo c-lib`):
 *   cc -std=c99 -Iinclude examples/c/cloth.c target/release/libxpbd.a -Wl,--gc-sections -o cloth
 * or with pkg-config after `cmake --install`:
 *   cc -std=c99 examples/c/cloth.c $(pkg-config --cflags --libs xpbd) -o cloth
 *
 * The cloth: ROWS x COLS particles 0.1 m apart, flat in the horizontal x-z
 * plane, row-major (particle r * COLS + c). The two corners of row 0 are
 * pinned (inverse mass 0). xpbd_build_cloth3 writes the structural links and,
 * with shear = 1, both diagonals of every cell; xpbd_cloth_link_count says
 * how many that is. A static sphere (radius 0.4 m) sits under the cloth,
 * behind the line of the pins: the cloth swings down, drapes over it and
 * settles.
 *
 * Each frame is one xpbd_world3_step call: 32 substeps with contacts
 * against the sphere (particle radius 1 cm, friction) and a little damping.
 *
 * What to check in the output: the pinned corners have not moved (bit for
 * bit), no particle is inside the sphere, the links are stretched by under
 * 1 %, the cloth is at rest and touches the sphere. The program checks all
 * of it and exits with 0 only if it holds. */
#include <stdio.h>
#include <string.h>

#include "xpbd.h"

#define ROWS 10
#define COLS 10
#define N (ROWS * COLS)                      /* particles */
#define MAX_LINKS (4 * N)                    /* >= xpbd_cloth_link_count(ROWS, COLS, 1) */
#define FRAMES 600                           /* 10 s at 60 Hz */
#define FRAME_DT (1.0 / 60.0)                /* s */

static const double spacing = 0.1;      /* m */
static const double mass = 0.01;        /* kg per particle: a 1 kg cloth */
static const double compliance = 1e-6;  /* m/N: nearly inextensible */
static const XpbdSphere3 ball = {{0.45, -0.5, 0.3}, 0.4}; /* centre (m), radius (m) */

/* Every status an xpbd call can return, and what this program does with
 * it: returns 1 to go on, 0 to stop. `index` is the world's error_index:
 * the particle, link, collider or contact the error names. */
static int xpbd_ok(XpbdStatus s, const char *call, size_t index) {
    switch (s) {
    case XPBD_STATUS_OK:      /* done */
    case XPBD_STATUS_SKIPPED: /* nothing to do: not an error */
        return 1;
    /* Errors. xpbd_world3_step leaves positions and velocities exactly as
     * they were, so an engine can log, fix and retry, or reset the cloth. */
    case XPBD_STATUS_CAPACITY_TOO_SMALL: /* more contacts than the buffer holds:
                                            grow it (see the end of main) */
    case XPBD_STATUS_NULL_POINTER:       /* bugs in the caller: a buffer */
    case XPBD_STATUS_ALIASED_BUFFERS:    /* missing or two buffers overlap */
    case XPBD_STATUS_INVALID_ARGUMENT:   /* config: substeps 0, bad policy, ... */
    case XPBD_STATUS_INVALID_INVERSE_MASS: /* set-up errors: fix the data */
    case XPBD_STATUS_INVALID_REST_LENGTH:
    case XPBD_STATUS_INVALID_COMPLIANCE:
    case XPBD_STATUS_INDEX_OUT_OF_RANGE:
    case XPBD_STATUS_SAME_PARTICLE:
    case XPBD_STATUS_INVALID_COLLIDER:    /* NaN centre, negative radius, ... */
    case XPBD_STATUS_INVALID_TIME_STEP:     /* dt <= 0, NaN or infinite */
    case XPBD_STATUS_UNREPRESENTABLE_SCALE: /* h too small for a compliance */
    case XPBD_STATUS_NON_FINITE_POSITION:   /* state errors: the simulation */
    case XPBD_STATUS_NON_FINITE_VELOCITY:   /* blew up, or two particles of */
    case XPBD_STATUS_ZERO_LENGTH:           /* a link coincide; an engine */
    case XPBD_STATUS_INVALID_RESULT:        /* would reset this cloth */
    case XPBD_STATUS_ENDPOINTS_NOT_ORDERED: /* 1D API only */
    case XPBD_STATUS_NO_SUBSTEP:            /* system API only */
    default:                                /* a code from a newer library */
        fprintf(stderr, "%s failed: %d, %s (index %lu)\n", call, (int)s, xpbd_status_str(s),
                (unsigned long)index);
        return 0;
    }
}

static double dist2(const double a[3], const double b[3]) {
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

int main(void) {
    static double x[N][3], v[N][3], w[N]; /* m, m/s, 1/kg (0 = pinned) */
    static double scratch[3 * N][3];      /* xpbd_step_scratch_len(N) entries */
    static XpbdLink links[MAX_LINKS];
    static XpbdContact contacts[N]; /* one sphere: at most one contact per particle */
    static double start[N][3], before[N][3];
    const size_t pins[2] = {0, COLS - 1};
    size_t link_count = 0, k, lowest = 0;
    XpbdWorld3 world = {0};
    XpbdStepConfig3 config = xpbd_step_config3_default(); /* g = (0, -9.81, 0) */
    XpbdStepStats stats;
    XpbdStatus s;
    double strain = 0.0, speed2 = 0.0, clearance2 = 1e300, r_min;
    int frame, ok = 1;

    if (xpbd_version() != XPBD_VERSION_NUMBER) {
        fprintf(stderr, "xpbd.h is %s (%d) but the library is %u\n", XPBD_VERSION_STRING,
                XPBD_VERSION_NUMBER, (unsigned)xpbd_version());
        return 1;
    }

    for (k = 0; k < N; ++k) {
        x[k][0] = spacing * (double)(k % COLS); /* column along x */
        x[k][1] = 0.0;
        x[k][2] = spacing * (double)(k / COLS); /* row along z */
        v[k][0] = v[k][1] = v[k][2] = 0.0;
        w[k] = 1.0 / mass;
    }
    w[pins[0]] = w[pins[1]] = 0.0;
    memcpy(start, x, sizeof x);
    if (xpbd_cloth_link_count(ROWS, COLS, 1) > MAX_LINKS) {
        fprintf(stderr, "MAX_LINKS is too small\n");
        return 1;
    }
    s = xpbd_build_cloth3(&x[0][0], ROWS, COLS, 1, compliance, links, MAX_LINKS, &link_count);
    if (!xpbd_ok(s, "xpbd_build_cloth3", 0)) {
        return 1;
    }

    world.positions = x;
    world.velocities = v;
    world.inverse_masses = w;
    world.particle_count = N;
    world.links = links;
    world.link_count = link_count;
    world.spheres = &ball;
    world.sphere_count = 1;
    world.contacts = contacts;
    world.contact_capacity = N;
    world.scratch = scratch;
    world.scratch_count = xpbd_step_scratch_len(N);
    config.substeps = 32;           /* many small substeps, */
    config.iterations = 4;          /* few sweeps each */
    config.damping = 2.0;           /* 1/s, so the cloth comes to rest */
    config.particle_radius = 0.01;  /* m: the cloth's half-thickness */
    config.static_friction = 0.6;  /* 0.5 holds this drape in a 1 cm/s stick-slip cycle */
    config.dynamic_friction = 0.3;

    printf("xpbd %s: cloth %dx%d (%lu links with shear), %u substeps x %u iterations, "
           "%d frames\n",
           XPBD_VERSION_STRING, ROWS, COLS, (unsigned long)link_count, (unsigned)config.substeps,
           (unsigned)config.iterations, FRAMES);
    for (frame = 0; frame < FRAMES; ++frame) {
        s = xpbd_world3_step(&world, FRAME_DT, &config, &stats);
        if (!xpbd_ok(s, "xpbd_world3_step", world.error_index)) {
            return 1;
        }
    }

    /* Measure the rest state: strain of the worst link (squared lengths, so
     * no libm), fastest particle, closest approach to the sphere, lowest point. */
    for (k = 0; k < link_count; ++k) {
        double d2 = dist2(x[links[k].i], x[links[k].j]), r2 = links[k].rest * links[k].rest;
        double e = (d2 - r2) / (2.0 * r2); /* ~ (len - rest) / rest for small strains */
        strain = e > strain ? e : strain;
    }
    for (k = 0; k < N; ++k) {
        double s2 = v[k][0] * v[k][0] + v[k][1] * v[k][1] + v[k][2] * v[k][2];
        double c2 = dist2(x[k], ball.center);
        speed2 = s2 > speed2 ? s2 : speed2;
        clearance2 = c2 < clearance2 ? c2 : clearance2;
        lowest = x[k][1] < x[lowest][1] ? k : lowest;
    }
    printf("pinned corners: (%.3f, %.3f, %.3f) and (%.3f, %.3f, %.3f) m\n", x[pins[0]][0],
           x[pins[0]][1], x[pins[0]][2], x[pins[1]][0], x[pins[1]][1], x[pins[1]][2]);
    printf("free corners:   (%.3f, %.3f, %.3f) and (%.3f, %.3f, %.3f) m\n", x[N - COLS][0],
           x[N - COLS][1], x[N - COLS][2], x[N - 1][0], x[N - 1][1], x[N - 1][2]);
    printf("lowest point: particle %lu at y = %.3f m\n", (unsigned long)lowest, x[lowest][1]);
    printf("contacts with the sphere: %lu; largest link strain %.3f %%; fastest particle %s\n",
           (unsigned long)stats.max_contacts, strain * 100.0,
           speed2 < 1e-4 ? "< 1 cm/s" : "> 1 cm/s");
    r_min = ball.radius + config.particle_radius - 1e-3; /* 1 mm of slack */
    printf("inside the sphere (closer than radius + particle radius - 1 mm): %s\n",
           clearance2 < r_min * r_min ? "yes" : "none");
    ok = ok && memcmp(x[pins[0]], start[pins[0]], sizeof x[0]) == 0 &&
         memcmp(x[pins[1]], start[pins[1]], sizeof x[0]) == 0;
    ok = ok && stats.max_contacts > 0 && strain < 0.01 && speed2 < 1e-4 &&
         clearance2 >= r_min * r_min;

    /* A rejected call: no room for contacts. The status says why, and
     * nothing moves; an engine would grow the buffer and step again. */
    memcpy(before, x, sizeof x);
    world.contact_capacity = 0;
    s = xpbd_world3_step(&world, FRAME_DT, &config, NULL);
    printf("contact_capacity = 0 is rejected: %d, %s; positions unchanged: %s\n", (int)s,
           xpbd_status_str(s), memcmp(before, x, sizeof x) == 0 ? "yes" : "no");
    ok = ok && s == XPBD_STATUS_CAPACITY_TOO_SMALL && memcmp(before, x, sizeof x) == 0;

    printf("%s\n", ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
}
