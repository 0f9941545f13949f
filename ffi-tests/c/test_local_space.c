/* Local space (issue 35: a cloth in a moving root frame, with inertia)
 * through xpbd_world3_step[_f32] with a local-space block
 * (XpbdLocalSpace3): a cape (a 5 x 4 cloth, its top row pinned) at
 * inertia 0 in a root that runs, turns about the gravity axis (y) and
 * teleports gives the bits of the same cape under a still root (and of
 * the cape without the block); after every successful step the block
 * reads previous == target and teleport == 0; xpbd_world3_step_colored
 * gives the bits (and the block) of xpbd_world3_step; and every rejected
 * block (a NaN translation, a non-unit or zero quaternion, an inertia of
 * 1.5 or NaN, a negative or NaN velocity or acceleration limit, a
 * non-finite added velocity) is
 * XPBD_STATUS_INVALID_LOCAL_SPACE naming its field, with positions,
 * velocities and the block untouched; a second local-space block is
 * INVALID_BLOCK. Double and float, from one body of code (the macros
 * below). */
#include <math.h>
#include <stddef.h>

#include "ensure.h"

#define CW 5               /* columns */
#define CH 4               /* rows; row 0 pinned */
#define CN (CW * CH)       /* particles */
#define CL 31              /* links: 4 x 4 across, 3 x 5 down */
#define FRAMES 40

/* The links in colored order: across from even columns, across from odd
 * columns, down from even rows, down from odd rows. */
static const size_t cape_starts[5] = {0, 8, 16, 26, 31};

static void cape_ends(uint32_t ends[CL][2]) {
    int r, c, k = 0, parity;
    for (parity = 0; parity < 2; ++parity)
        for (r = 0; r < CH; ++r)
            for (c = parity; c + 1 < CW; c += 2) {
                ends[k][0] = (uint32_t)(r * CW + c);
                ends[k][1] = (uint32_t)(r * CW + c + 1);
                ++k;
            }
    for (parity = 0; parity < 2; ++parity)
        for (r = parity; r + 1 < CH; r += 2)
            for (c = 0; c < CW; ++c) {
                ends[k][0] = (uint32_t)(r * CW + c);
                ends[k][1] = (uint32_t)((r + 1) * CW + c);
                ++k;
            }
}

/* The root at the end of frame f: running along x and z, bobbing in y,
 * turning about y (the gravity axis) by 2 rad/s; at frame 20 it jumps 50 m
 * and half a turn (a teleport). The rotation is stepped by the half-angle
 * sum formulas (no libm: the sanitizer builds link none). */
static void root_at(int f, double q[4], double c[3]) {
    const double sh = 0.01666589507244506, ch = 0.9998611143261019; /* sin, cos of 1/60 */
    const double t = (f + 1) / 60.0;
    double s = 0.0, co = 1.0, next;
    int k;
    for (k = 0; k <= f; ++k) { /* half-angle t: k + 1 steps of 1/60 */
        next = s * ch + co * sh;
        co = co * ch - s * sh;
        s = next;
    }
    if (f >= 20) { /* half a turn more: half-angle + pi/2 */
        next = co;
        co = -s;
        s = next;
    }
    q[0] = 0.0;
    q[1] = s;
    q[2] = 0.0;
    q[3] = co;
    c[0] = 6.0 * t + (f >= 20 ? 50.0 : 0.0);
    c[1] = 0.3 * t * (1.0 - t);
    c[2] = 2.0 * t * t;
}

/* One precision's cape, runs and refusals. S: the function suffix, T the
 * real, F the type suffix. */
#define LOCAL_SPACE_TESTS(S, T, F)                                                                             \
    typedef struct {                                                                                           \
        T x[CN][3], v[CN][3], w[CN];                                                                           \
        XpbdLink##F links[CL];                                                                                 \
    } Cape##F;                                                                                                 \
                                                                                                               \
    /* A cape hanging in the x-y plane 0.1 m in front of the root, top row                                     \
     * pinned, 0.25 kg a particle, its links at rest but for a sideways                                        \
     * kick. */                                                                                                \
    static void cape##S(Cape##F *p) {                                                                          \
        uint32_t ends[CL][2];                                                                                  \
        int k;                                                                                                 \
        memset(p, 0, sizeof *p);                                                                               \
        cape_ends(ends);                                                                                       \
        for (k = 0; k < CN; ++k) {                                                                             \
            p->x[k][0] = (T)(0.25 * (k % CW) - 0.5);                                                           \
            p->x[k][1] = (T)(-0.25 * (k / CW));                                                                \
            p->x[k][2] = (T)0.1;                                                                               \
            p->v[k][2] = (T)(k >= CW ? 0.5 : 0.0);                                                             \
            p->w[k] = (T)(k < CW ? 0.0 : 4.0);                                                                 \
        }                                                                                                      \
        for (k = 0; k < CL; ++k) {                                                                             \
            p->links[k].i = ends[k][0];                                                                        \
            p->links[k].j = ends[k][1];                                                                        \
            p->links[k].rest = (T)0.25;                                                                        \
            p->links[k].compliance = (T)1e-7;                                                                  \
        }                                                                                                      \
    }                                                                                                          \
                                                                                                               \
    /* The block's fields (no padding read): the header and the values up                                      \
     * to `teleport` (the transforms and reals have no padding between                                         \
     * them). */                                                                                               \
    static int local_same##S(const XpbdLocalSpace3##F *a, const XpbdLocalSpace3##F *b) {                       \
        const size_t n = offsetof(XpbdLocalSpace##F, teleport) + sizeof a->local.teleport;                     \
        return a->block.kind == b->block.kind && a->block.size == b->block.size &&                             \
               a->block.next == b->block.next && memcmp(&a->local, &b->local, n) == 0;                         \
    }                                                                                                          \
                                                                                                               \
    /* `FRAMES` frames of a cape with the block `ls` (NULL: none) through                                      \
     * xpbd_world3_step or (colored) xpbd_world3_step_colored; `moving`:                                       \
     * the root runs (root_at), else it stays at the identity. After                                           \
     * every step: previous == target, teleport 0, the rest unchanged. */                                      \
    static XpbdStatus run##S(Cape##F *p, XpbdLocalSpace3##F *ls, int colored, int moving) {                    \
        XpbdWorld3##F world = xpbd_world3_default##S();                                                        \
        XpbdStepConfig3##F config = xpbd_step_config3_default##S();                                            \
        XpbdGroupColors c;                                                                                     \
        XpbdStatus st = XPBD_STATUS_OK;                                                                        \
        int f, k;                                                                                              \
        world.positions = p->x; world.velocities = p->v; world.inverse_masses = p->w;                          \
        world.particle_count = CN;                                                                             \
        world.links = p->links; world.link_count = CL;                                                         \
        if (ls != NULL) st = xpbd_world3_add##S(&world, &ls->block);                                           \
        if (st == XPBD_STATUS_OK) st = test_world3_memory##S(&world);                                          \
        memset(&c, 0, sizeof c);                                                                               \
        c.link_color_starts = cape_starts;                                                                     \
        c.link_color_count = 4;                                                                                \
        config.substeps = 8;                                                                                   \
        for (f = 0; f < FRAMES && st == XPBD_STATUS_OK; ++f) {                                                 \
            XpbdLocalSpace3##F before = xpbd_local_space3_default##S();                                        \
            if (ls != NULL && moving) {                                                                        \
                double q[4], t[3];                                                                             \
                root_at(f, q, t);                                                                              \
                for (k = 0; k < 4; ++k) ls->local.target.rotation[k] = (T)q[k];                                \
                for (k = 0; k < 3; ++k) ls->local.target.translation[k] = (T)t[k];                             \
                ls->local.teleport = f == 20 ? 1u : 0u;                                                        \
            }                                                                                                  \
            if (ls != NULL) before = *ls;                                                                      \
            st = colored ? xpbd_world3_step_colored##S(&world, &c, (T)(1.0 / 60.0), &config, NULL, NULL)       \
                         : xpbd_world3_step##S(&world, (T)(1.0 / 60.0), &config, NULL);                        \
            if (ls != NULL && st == XPBD_STATUS_OK) {                                                          \
                /* The write-back: previous <- target, teleport <- 0, the                                      \
                 * added velocities (0 at inertia 0 and after a teleport). */                                  \
                before.local.previous = before.local.target;                                                   \
                before.local.teleport = 0;                                                                     \
                for (k = 0; k < 3; ++k) {                                                                      \
                    ENSURE(isfinite(ls->local.linear_velocity[k]) && isfinite(ls->local.angular_velocity[k])); \
                    before.local.linear_velocity[k] = ls->local.linear_velocity[k];                            \
                    before.local.angular_velocity[k] = ls->local.angular_velocity[k];                          \
                }                                                                                              \
                ENSURE(local_same##S(ls, &before));                                                            \
                ENSURE(memcmp(&ls->local.previous, &ls->local.target, sizeof ls->local.target) == 0);          \
                ENSURE(ls->local.teleport == 0);                                                               \
            }                                                                                                  \
        }                                                                                                      \
        test_world3_free##S(&world);                                                                           \
        return st;                                                                                             \
    }                                                                                                          \
                                                                                                               \
    /* The refusals, each named by its field, positions, velocities and                                        \
     * the block unchanged (teleport stays 1, previous != target); then a                                      \
     * second block; then everything restored. */                                                              \
    static void hostile##S(void) {                                                                             \
        static Cape##F h;                                                                                      \
        static T x0[CN][3], v0[CN][3];                                                                         \
        XpbdLocalSpace3##F ls = xpbd_local_space3_default##S(), second = xpbd_local_space3_default##S();       \
        XpbdLocalSpace3##F good, b0;                                                                           \
        XpbdWorld3##F world = xpbd_world3_default##S();                                                        \
        const XpbdStepConfig3##F config = xpbd_step_config3_default##S();                                      \
        int k;                                                                                                 \
        cape##S(&h);                                                                                           \
        world.positions = h.x; world.velocities = h.v; world.inverse_masses = h.w;                             \
        world.particle_count = CN;                                                                             \
        world.links = h.links; world.link_count = CL;                                                          \
        ls.local.target.translation[0] = (T)0.5;                                                               \
        ls.local.target.rotation[1] = (T)0.6;                                                                  \
        ls.local.target.rotation[3] = (T)0.8;                                                                  \
        ls.local.linear_inertia = (T)0.5;                                                                      \
        ls.local.teleport = 1;                                                                                 \
        ENSURE_STATUS(xpbd_world3_add##S(&world, &ls.block), XPBD_STATUS_OK);                                  \
        ENSURE_STATUS(test_world3_memory##S(&world), XPBD_STATUS_OK);                                          \
        good = ls;                                                                                             \
        for (k = 0; k < 13; ++k) {                                                                             \
            int32_t field = XPBD_FIELD_ROOT_TRANSFORM, got;                                                    \
            ls = good;                                                                                         \
            switch (k) {                                                                                       \
            case 0: ls.local.target.translation[1] = (T)NAN; break;                                            \
            case 1: ls.local.previous.translation[2] = (T)INFINITY; break;                                     \
            case 2:                                                                                            \
                ls.local.target.rotation[0] = ls.local.target.rotation[1] = (T)0.0;                            \
                ls.local.target.rotation[2] = (T)0.0;                                                          \
                ls.local.target.rotation[3] = (T)2.0;                                                          \
                break;                                                                                         \
            case 3: memset(ls.local.previous.rotation, 0, sizeof ls.local.previous.rotation); break;           \
            case 4: ls.local.linear_inertia = (T)1.5; field = XPBD_FIELD_INERTIA_SCALE; break;                 \
            case 5: ls.local.angular_inertia = (T)NAN; field = XPBD_FIELD_INERTIA_SCALE; break;                \
            case 6: ls.local.max_linear_velocity = (T)-1.0; field = XPBD_FIELD_FRAME_VELOCITY_LIMIT; break;    \
            case 7: ls.local.max_angular_velocity = (T)NAN; field = XPBD_FIELD_FRAME_VELOCITY_LIMIT; break;    \
            case 8: ls.local.max_linear_acceleration = (T)-1.0; field = XPBD_FIELD_FRAME_ACCELERATION_LIMIT; break; \
            case 9: ls.local.max_angular_acceleration = (T)NAN; field = XPBD_FIELD_FRAME_ACCELERATION_LIMIT; break; \
            case 10: ls.local.linear_velocity[1] = (T)INFINITY; field = XPBD_FIELD_FRAME_VELOCITY; break;      \
            case 11: ls.local.angular_velocity[2] = (T)NAN; field = XPBD_FIELD_FRAME_VELOCITY; break;          \
            default: ls.local.angular_inertia = (T)-0.25; field = XPBD_FIELD_INERTIA_SCALE; break;             \
            }                                                                                                  \
            b0 = ls;                                                                                           \
            memcpy(x0, h.x, sizeof x0);                                                                        \
            memcpy(v0, h.v, sizeof v0);                                                                        \
            world.error_index = 77;                                                                            \
            world.error_field = 77;                                                                            \
            got = xpbd_world3_step##S(&world, (T)(1.0 / 60.0), &config, NULL);                                 \
            ENSURE_STATUS(got, XPBD_STATUS_INVALID_LOCAL_SPACE);                                               \
            if (world.error_field != field || world.error_index != 0) {                                        \
                fprintf(stderr, "test_local_space.c (%s, case %d): field %d index %zu, expected %d\n",         \
                        #T, k, (int)world.error_field, world.error_index, (int)field);                         \
            }                                                                                                  \
            ENSURE(world.error_field == field && world.error_index == 0);                                      \
            ENSURE(memcmp(h.x, x0, sizeof x0) == 0 && memcmp(h.v, v0, sizeof v0) == 0);                        \
            ENSURE(local_same##S(&ls, &b0) && ls.local.teleport == 1);                                         \
        }                                                                                                      \
        /* A second local-space block: the kind twice, named by its                                            \
         * position; nothing written. */                                                                       \
        ls = good;                                                                                             \
        ENSURE_STATUS(xpbd_world3_add##S(&world, &second.block), XPBD_STATUS_OK);                              \
        b0 = ls;                                                                                               \
        ENSURE_STATUS(xpbd_world3_step##S(&world, (T)(1.0 / 60.0), &config, NULL), XPBD_STATUS_INVALID_BLOCK); \
        ENSURE(world.error_field == XPBD_FIELD_BLOCK && world.error_index == 1);                               \
        ENSURE(memcmp(h.x, x0, sizeof x0) == 0 && memcmp(h.v, v0, sizeof v0) == 0);                            \
        ENSURE(local_same##S(&ls, &b0));                                                                       \
        /* Restored: the step runs and writes previous <- target, teleport                                     \
         * <- 0. */                                                                                            \
        world.blocks = &ls.block;                                                                              \
        ENSURE_STATUS(xpbd_world3_step##S(&world, (T)(1.0 / 60.0), &config, NULL), XPBD_STATUS_OK);            \
        ENSURE(world.error_field == XPBD_FIELD_NONE && world.error_index == 0);                                \
        ENSURE(memcmp(&ls.local.previous, &good.local.target, sizeof ls.local.previous) == 0);                 \
        ENSURE(ls.local.teleport == 0 && memcmp(&ls.local.target, &good.local.target, sizeof ls.local.target) == 0); \
        test_world3_free##S(&world);                                                                           \
    }                                                                                                          \
                                                                                                               \
    static void local_space##S(void) {                                                                         \
        static Cape##F still, moving, bare, colored, felt;                                                     \
        XpbdLocalSpace3##F a = xpbd_local_space3_default##S(), b, c, d;                                        \
        const XpbdTransform##F id = xpbd_transform_identity##S();                                              \
        int k;                                                                                                 \
        /* The defaults. */                                                                                    \
        ENSURE(a.block.kind == (XPBD_BLOCK_LOCAL_SPACE | (sizeof(T) == 4 ? XPBD_BLOCK_F32 : 0u)));             \
        ENSURE(a.block.size == sizeof a && a.block.next == NULL);                                              \
        ENSURE(id.rotation[0] == 0 && id.rotation[1] == 0 && id.rotation[2] == 0 && id.rotation[3] == 1);      \
        ENSURE(id.translation[0] == 0 && id.translation[1] == 0 && id.translation[2] == 0);                    \
        ENSURE(memcmp(&a.local.previous, &id, sizeof id) == 0 && memcmp(&a.local.target, &id, sizeof id) == 0); \
        ENSURE(a.local.linear_inertia == 1 && a.local.angular_inertia == 1 && a.local.teleport == 0);          \
        ENSURE(isinf(a.local.max_linear_velocity) && a.local.max_linear_velocity > 0);                         \
        ENSURE(isinf(a.local.max_angular_velocity) && a.local.max_angular_velocity > 0);                       \
        ENSURE(isinf(a.local.max_linear_acceleration) && a.local.max_linear_acceleration > 0);                 \
        ENSURE(isinf(a.local.max_angular_acceleration) && a.local.max_angular_acceleration > 0);               \
        ENSURE(a.local.linear_velocity[0] == 0 && a.local.linear_velocity[1] == 0);                             \
        ENSURE(a.local.linear_velocity[2] == 0 && a.local.angular_velocity[0] == 0);                            \
        ENSURE(a.local.angular_velocity[1] == 0 && a.local.angular_velocity[2] == 0);                           \
        /* Inertia 0: the moving root's cape has the still root's bits (and                                    \
         * those of no block at all). */                                                                       \
        a.local.linear_inertia = a.local.angular_inertia = 0;                                                  \
        b = a;                                                                                                 \
        cape##S(&still);                                                                                       \
        cape##S(&moving);                                                                                      \
        cape##S(&bare);                                                                                        \
        ENSURE_STATUS(run##S(&still, &a, 0, 0), XPBD_STATUS_OK);                                               \
        ENSURE_STATUS(run##S(&moving, &b, 0, 1), XPBD_STATUS_OK);                                              \
        ENSURE_STATUS(run##S(&bare, NULL, 0, 0), XPBD_STATUS_OK);                                              \
        ENSURE(memcmp(moving.x, still.x, sizeof still.x) == 0 && memcmp(moving.v, still.v, sizeof still.v) == 0); \
        ENSURE(memcmp(bare.x, still.x, sizeof still.x) == 0 && memcmp(bare.v, still.v, sizeof still.v) == 0);  \
        ENSURE(still.x[CN - 1][1] < (T)-0.7 && still.x[CN - 1][2] > (T)0.15); /* it hangs, kicked out */       \
        ENSURE(b.local.target.translation[0] > 50 && b.local.teleport == 0);                                   \
        /* Inertia felt: the colored step gives the step's bits and block;                                     \
         * the cape differs from the still root's. */                                                          \
        c = xpbd_local_space3_default##S();                                                                    \
        c.local.linear_inertia = (T)0.5;                                                                       \
        c.local.angular_inertia = (T)0.25;                                                                     \
        c.local.max_linear_velocity = (T)40.0;                                                                 \
        d = c;                                                                                                 \
        cape##S(&felt);                                                                                        \
        cape##S(&colored);                                                                                     \
        ENSURE_STATUS(run##S(&felt, &c, 0, 1), XPBD_STATUS_OK);                                                \
        ENSURE_STATUS(run##S(&colored, &d, 1, 1), XPBD_STATUS_OK);                                             \
        ENSURE(memcmp(colored.x, felt.x, sizeof felt.x) == 0 && memcmp(colored.v, felt.v, sizeof felt.v) == 0); \
        ENSURE(local_same##S(&c, &d));                                                                         \
        for (k = CW; k < CN; ++k) ENSURE(memcmp(felt.x[k], still.x[k], sizeof felt.x[k]) != 0);                \
        hostile##S();                                                                                          \
    }

LOCAL_SPACE_TESTS(, double, )
LOCAL_SPACE_TESTS(_f32, float, F32)

void test_local_space(void) {
    local_space();
    local_space_f32();
}
