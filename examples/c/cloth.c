/* A 24 x 24 cloth pinned at two corners, with bending, self-collision and
 * tearing, hit by a moving capsule: driven entirely through the xpbd C ABI
 * (C99, double), from defaults.
 *
 * Build (from the repository root, after `cargo c-lib`; or with
 * $(pkg-config --cflags --libs xpbd) after `cmake --install`):
 *   cc -std=c99 -Iinclude examples/c/cloth.c target/release/libxpbd.a -Wl,--gc-sections -o cloth
 *
 * Everything starts from the defaults: xpbd_world3_default(),
 * xpbd_step_config3_default() (gravity, 20 substeps, damping 0.1/s,
 * particle radius 1 cm) and one _default() per feature block. The program
 * assigns 12 fields of xpbd structs: the world's positions, velocities,
 * inverse_masses, particle_count, links, memory and memory_size (7);
 * groups.groups.bends, colliders.capsules, colliders.capsule_count and
 * tearing.max_force (4); bar.center, each frame (1). The builders write
 * the counts (&world.link_count, &groups.groups.bend_count); the
 * self-collision block and the configuration stay as made. (The capsule
 * `bar` is scene data, like the positions: its initializer gives its
 * centre, half axis, radius, velocity and friction.)
 *
 * The cloth hangs from its top corners in the x-y plane: links 4 cm long
 * (structural and shear, rigid), bends along every interior edge. At
 * t = 0.25 s a bar (a capsule 30 cm long, radius 5 cm) flies through it
 * along z at 8 m/s, swept over each frame (it never tunnels). A link tears
 * above max_force (10 N; hanging, the cloth pulls at most about 6 N): the
 * cloth cannot follow the bar and rips, across where it was hit and at
 * the pins.
 *
 * Checked: the pins have not moved (bit for bit), no position is NaN,
 * links tore (only once the bar touched the cloth), no intact link is
 * stretched by 10 % or more, no two particles are closer than twice the
 * particle radius less 1 mm. The exit status is 0 only if all of it holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpbd.h"

#define SIDE 24
#define N (SIDE * SIDE)          /* particles */
#define MAX_LINKS (4 * N)        /* >= xpbd_cloth_link_count(SIDE, SIDE, 1) */
#define MAX_BENDS (3 * N)        /* >= xpbd_bends_cloth_count(SIDE, SIDE) */
#define FRAMES 120               /* 2 s at 60 Hz */
#define FRAME_DT (1.0 / 60.0)    /* s */

static const double spacing = 0.04, mass = 0.002; /* m; kg per particle (a 1.15 kg cloth) */
static const double bend_compliance = 1.0;        /* rad^2/J: a soft fold */
static const double max_force = 10.0;             /* N: a link tears above it */
/* centre, half axis (m), radius (m), velocity (m/s), angular velocity, mu_s, mu_k */
static XpbdCapsule3 bar = {{0.46, -0.5, -2.0}, {0.15, 0.0, 0.0}, 0.05, {0.0, 0.0, 8.0}, {0.0, 0.0, 0.0}, 0.5, 0.5};

/* Every status an xpbd call can return, and what this program does with
 * it: returns 1 to go on, 0 to stop. `index` and `field` are the world's
 * error_index and error_field (XPBD_FIELD_*): what the error names. */
static int xpbd_ok(XpbdStatus s, const char *call, size_t index, int field) {
    switch (s) {
    case XPBD_STATUS_OK:      /* done */
    case XPBD_STATUS_SKIPPED: /* nothing to do: not an error */
        return 1;
    /* Errors: xpbd_world3_step leaves positions and velocities as they were,
     * so an engine can log, fix and retry, or reset the cloth. */
    case XPBD_STATUS_CAPACITY_TOO_SMALL:  /* field MEMORY: index = bytes needed; CONTACTS,
                                             PAIRS: index = the count a budget lacked */
    case XPBD_STATUS_INVALID_CONFIG:      /* field: the config value (SUBSTEPS, GRAVITY, ...) */
    case XPBD_STATUS_INVALID_SELF_COLLISION: /* field PARTICLE_RADIUS (0) or REST_POSITIONS */
    case XPBD_STATUS_INVALID_MAX_FORCE:   /* index: the link whose max force is not > 0 */
    case XPBD_STATUS_INVALID_BLOCK:       /* index: the block's place in the chain */
    case XPBD_STATUS_NULL_POINTER:        /* bugs in the caller: a buffer missing */
    case XPBD_STATUS_ALIASED_BUFFERS:     /* or two buffers (or the memory) overlap */
    case XPBD_STATUS_INVALID_ARGUMENT:    /* a group's colors or shape */
    case XPBD_STATUS_INVALID_INVERSE_MASS: /* set-up errors: fix the data */
    case XPBD_STATUS_INVALID_REST_LENGTH:
    case XPBD_STATUS_INVALID_COMPLIANCE:
    case XPBD_STATUS_INVALID_REST_VALUE:
    case XPBD_STATUS_INDEX_OUT_OF_RANGE:
    case XPBD_STATUS_SAME_PARTICLE:
    case XPBD_STATUS_INVALID_COLLIDER:     /* NaN centre, negative radius, ... */
    case XPBD_STATUS_INVALID_TIME_STEP:    /* dt <= 0, NaN or infinite (field FRAME_TIME) */
    case XPBD_STATUS_UNREPRESENTABLE_SCALE: /* h too small for a compliance */
    case XPBD_STATUS_WORK_LIMIT:           /* more substeps or sweeps than one call may */
    case XPBD_STATUS_NON_FINITE_POSITION:  /* state errors: the simulation */
    case XPBD_STATUS_NON_FINITE_VELOCITY:  /* blew up, or two particles of */
    case XPBD_STATUS_ZERO_LENGTH:          /* a link coincide; an engine */
    case XPBD_STATUS_DEGENERATE:           /* would reset this cloth */
    case XPBD_STATUS_INVALID_RESULT:
    case XPBD_STATUS_ENDPOINTS_NOT_ORDERED: /* 1D, system and colored APIs only */
    case XPBD_STATUS_NO_SUBSTEP:
    case XPBD_STATUS_UNSUPPORTED_FLAG:
    case XPBD_STATUS_JOB_CONTRACT:
    default:                               /* a code from a newer library */
        fprintf(stderr, "%s failed: %d, %s (index %lu, field %d)\n", call, (int)s, xpbd_status_str(s),
                (unsigned long)index, field);
        return 0;
    }
}

static double dist2(const double a[3], const double b[3]) {
    return (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
}

int main(void) {
    static double x[N][3], v[N][3], w[N], start[N][3], limit[MAX_LINKS]; /* m, m/s, 1/kg, m, N */
    static XpbdLink links[MAX_LINKS];
    static XpbdBend bends[MAX_BENDS];
    const size_t pins[2] = {0, SIDE - 1};
    XpbdWorld3 world = xpbd_world3_default();
    XpbdGroups3 groups = xpbd_groups3_default();
    XpbdColliders3 colliders = xpbd_colliders3_default();
    XpbdSelfCollision3 self = xpbd_self_collision3_default();
    XpbdTearing3 tearing = xpbd_tearing3_default();
    XpbdStepConfig3 config = xpbd_step_config3_default();
    XpbdRequirements needs;
    XpbdStepStats stats;
    XpbdStatus s;
    size_t k, j, torn = 0, disabled = 0;
    int frame, first_touch = 0, first_tear = 0, finite = 1, pinned, ok;
    double strain = 0.0, closest = 1e300, d2;

    if (xpbd_version() != XPBD_VERSION_NUMBER) {
        fprintf(stderr, "xpbd.h is %s (%d) but the library is %u\n", XPBD_VERSION_STRING,
                XPBD_VERSION_NUMBER, (unsigned)xpbd_version());
        return 1;
    }
    for (k = 0; k < N; ++k) { /* hanging in the x-y plane, row 0 on top */
        x[k][0] = spacing * (double)(k % SIDE);
        x[k][1] = 0.0 - spacing * (double)(k / SIDE);
        x[k][2] = 0.0;
        w[k] = 1.0 / mass;
        limit[k] = limit[N + k] = limit[2 * N + k] = limit[3 * N + k] = max_force;
    }
    w[pins[0]] = w[pins[1]] = 0.0;
    memcpy(start, x, sizeof x);

    world.positions = x;
    world.velocities = v;
    world.inverse_masses = w;
    world.particle_count = N;
    world.links = links;
    groups.groups.bends = bends;
    colliders.capsules = &bar;
    colliders.capsule_count = 1;
    tearing.max_force = limit;
    if (!xpbd_ok(xpbd_build_cloth3(&x[0][0], SIDE, SIDE, 1, 0.0, links, MAX_LINKS, &world.link_count),
                 "xpbd_build_cloth3", 0, 0) ||
        !xpbd_ok(xpbd_build_bends_cloth3(&x[0][0], SIDE, SIDE, bend_compliance, bends, MAX_BENDS,
                                         &groups.groups.bend_count),
                 "xpbd_build_bends_cloth3", 0, 0) ||
        !xpbd_ok(xpbd_world3_add(&world, &groups.block), "xpbd_world3_add", 0, 0) ||
        !xpbd_ok(xpbd_world3_add(&world, &colliders.block), "xpbd_world3_add", 0, 0) ||
        !xpbd_ok(xpbd_world3_add(&world, &self.block), "xpbd_world3_add", 0, 0) ||
        !xpbd_ok(xpbd_world3_add(&world, &tearing.block), "xpbd_world3_add", 0, 0) ||
        !xpbd_ok(xpbd_world3_requirements(&world, &needs), "xpbd_world3_requirements", world.error_index,
                 world.error_field)) {
        return 1;
    }
    world.memory = malloc(needs.memory_size); /* aligned to 8 (XPBD_MEMORY_ALIGN) */
    world.memory_size = needs.memory_size;
    if (world.memory == NULL) {
        return 1;
    }
    printf("xpbd %s: cloth %dx%d, %lu links, %lu bends, self-collision, tearing above %.1f N, "
           "a capsule at %.1f m/s; %u substeps; world memory %lu bytes\n",
           XPBD_VERSION_STRING, SIDE, SIDE, (unsigned long)world.link_count,
           (unsigned long)groups.groups.bend_count, max_force, bar.velocity[2],
           (unsigned)config.substeps, (unsigned long)needs.memory_size);

    for (frame = 1; frame <= FRAMES; ++frame) {
        s = xpbd_world3_step(&world, FRAME_DT, &config, &stats);
        if (!xpbd_ok(s, "xpbd_world3_step", world.error_index, world.error_field)) {
            free(world.memory);
            return 1;
        }
        bar.center[2] += bar.velocity[2] * FRAME_DT; /* where the next frame starts */
        first_touch = first_touch ? first_touch : (stats.max_contacts > 0 ? frame : 0);
        first_tear = first_tear ? first_tear : (stats.torn > 0 ? frame : 0);
        torn += stats.torn;
    }

    /* Measure (squared lengths: no libm): NaN, the closest pair of particles
     * (self-collision keeps them 2r apart), the worst strain of an intact link. */
    for (k = 0; k < N; ++k) {
        finite = finite && x[k][0] == x[k][0] && x[k][1] == x[k][1] && x[k][2] == x[k][2];
        for (j = k + 1; j < N; ++j) {
            d2 = dist2(x[k], x[j]);
            closest = d2 < closest ? d2 : closest;
        }
    }
    for (k = 0; k < world.link_count; ++k) {
        double r2 = links[k].rest * links[k].rest, e = (dist2(x[links[k].i], x[links[k].j]) - r2) / (2.0 * r2);
        disabled += (links[k].flags & XPBD_LINK_DISABLED) ? 1u : 0u;
        strain = !(links[k].flags & XPBD_LINK_DISABLED) && e > strain ? e : strain; /* ~ (len - rest) / rest */
    }
    d2 = 2.0 * config.particle_radius - 1e-3; /* 1 mm of slack */
    printf("bar touches the cloth at frame %d; first tear at frame %d; %lu links torn (%lu disabled)\n",
           first_touch, first_tear, (unsigned long)torn, (unsigned long)disabled);
    printf("largest strain of an intact link: %.2f %%; closest particles %s 2r - 1 mm apart; "
           "positions finite: %s\n", strain * 100.0, closest >= d2 * d2 ? "at least" : "LESS than",
           finite ? "yes" : "NO");
    pinned = memcmp(x[pins[0]], start[pins[0]], sizeof x[0]) == 0 && memcmp(x[pins[1]], start[pins[1]], sizeof x[0]) == 0;
    printf("pinned corners unmoved (bit for bit): %s, at (%.2f, %.2f, %.2f) and (%.2f, %.2f, %.2f) m\n",
           pinned ? "yes" : "NO", x[pins[0]][0], x[pins[0]][1], x[pins[0]][2], x[pins[1]][0], x[pins[1]][1],
           x[pins[1]][2]);
    ok = pinned && finite && torn > 0 && torn == disabled && first_touch > 0 && first_tear >= first_touch &&
         strain < 0.10 && closest >= d2 * d2;

    /* A rejected call: dt = 0. The status and the field say why; nothing moves. */
    memcpy(start, x, sizeof x);
    s = xpbd_world3_step(&world, 0.0, &config, NULL);
    ok = ok && s == XPBD_STATUS_INVALID_TIME_STEP && world.error_field == XPBD_FIELD_FRAME_TIME &&
         memcmp(start, x, sizeof x) == 0;
    printf("dt = 0: %d, %s (field %d, XPBD_FIELD_FRAME_TIME); positions unchanged: %s\n", (int)s,
           xpbd_status_str(s), world.error_field, memcmp(start, x, sizeof x) == 0 ? "yes" : "no");
    free(world.memory);
    printf("%s\n", ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
}
