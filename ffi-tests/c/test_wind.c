/* Wind (issue 35: drag and lift per triangle) through xpbd_world3_step[_f32]
 * with a wind block (XpbdWind3): a square plate of two triangles (4
 * particles, its 4 edges and one diagonal linked) facing a constant wind
 * along x moves downwind where the same plate without the block only
 * falls; xpbd_world3_step_colored gives the bits of xpbd_world3_step; and
 * every rejected input (a NaN wind, a negative density, a triangle index
 * out of range, two equal indices, a NaN lift coefficient, a NaN
 * per-particle wind) is XPBD_STATUS_INVALID_WIND naming its field and
 * entry, with positions, velocities, the triangles and the block
 * untouched; NULL triangles with a count are NULL_POINTER, a second wind
 * block INVALID_BLOCK. */
#include <math.h>
#include <stddef.h>

#include "ensure.h"

#define WN 4
#define WL 5

/* Two triangle arrays equal, byte for byte past the padding after
 * `particles` (a struct returned by value leaves it undefined: valgrind
 * reads it as uninitialised). */
static int tri_same(const XpbdAeroTriangle *a, const XpbdAeroTriangle *b, int n) {
    int k;
    const size_t at = offsetof(XpbdAeroTriangle, drag);
    for (k = 0; k < n; ++k) {
        if (memcmp(a[k].particles, b[k].particles, sizeof a[k].particles) != 0) return 0;
        if (memcmp((const char *)&a[k] + at, (const char *)&b[k] + at, sizeof a[k] - at) != 0) return 0;
    }
    return 1;
}

/* The wind block's fields, one by one (no padding read). */
static int wind_same(const XpbdWind3 *a, const XpbdWind3 *b) {
    return a->block.kind == b->block.kind && a->block.size == b->block.size && a->block.next == b->block.next &&
           a->triangles == b->triangles && a->triangle_count == b->triangle_count &&
           a->particle_velocities == b->particle_velocities &&
           memcmp(a->velocity, b->velocity, sizeof a->velocity) == 0 &&
           memcmp(&a->density, &b->density, sizeof a->density) == 0;
}

typedef struct {
    double x[WN][3], v[WN][3], w[WN];
    XpbdLink links[WL];
} Plate;

/* A 1 m square plate in the y-z plane at x = 0, 0.25 kg a particle, its
 * links in colored order: (0,1) (2,3) | (0,2) (1,3) | (1,2). */
static void plate(Plate *p) {
    static const uint32_t ends[WL][2] = {{0, 1}, {2, 3}, {0, 2}, {1, 3}, {1, 2}};
    int k;
    memset(p, 0, sizeof *p);
    for (k = 0; k < WN; ++k) {
        p->x[k][1] = (double)(k % 2);
        p->x[k][2] = (double)(k / 2);
        p->w[k] = 4.0;
    }
    for (k = 0; k < WL; ++k) {
        p->links[k].i = ends[k][0];
        p->links[k].j = ends[k][1];
        p->links[k].rest = k == WL - 1 ? sqrt(2.0) : 1.0;
        p->links[k].compliance = 1e-6;
    }
}

static const size_t starts[4] = {0, 2, 4, 5};

/* `frames` frames of a plate, with the wind block `wind` (NULL: none),
 * through xpbd_world3_step or (colored) xpbd_world3_step_colored. */
static XpbdStatus run(Plate *p, XpbdWind3 *wind, int colored, int frames) {
    XpbdWorld3 world = xpbd_world3_default();
    XpbdStepConfig3 config = xpbd_step_config3_default();
    XpbdGroupColors c;
    XpbdStatus st = XPBD_STATUS_OK;
    int f;
    world.positions = p->x; world.velocities = p->v; world.inverse_masses = p->w; world.particle_count = WN;
    world.links = p->links; world.link_count = WL;
    if (wind != NULL) st = xpbd_world3_add(&world, &wind->block);
    if (st == XPBD_STATUS_OK) st = test_world3_memory(&world);
    memset(&c, 0, sizeof c);
    c.link_color_starts = starts;
    c.link_color_count = 3;
    config.substeps = 8;
    for (f = 0; f < frames && st == XPBD_STATUS_OK; ++f) {
        st = colored ? xpbd_world3_step_colored(&world, &c, 1.0 / 60.0, &config, NULL, NULL)
                     : xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL);
    }
    test_world3_free(&world);
    return st;
}

/* One rejected step: the status, error_field and error_index expected;
 * positions, velocities, triangles and block unchanged. */
static void refused(XpbdWorld3 *world, XpbdWind3 *wind, const XpbdAeroTriangle *tris, int32_t status, int32_t field,
                    size_t index, int line) {
    static double x0[WN][3], v0[WN][3];
    XpbdAeroTriangle t0[2];
    XpbdWind3 w0 = *wind;
    const XpbdStepConfig3 config = xpbd_step_config3_default();
    int32_t got;
    memcpy(x0, world->positions, sizeof x0);
    memcpy(v0, world->velocities, sizeof v0);
    memcpy(t0, tris, sizeof t0);
    world->error_index = 77;
    world->error_field = 77;
    got = xpbd_world3_step(world, 1.0 / 60.0, &config, NULL);
    ENSURE_STATUS(got, status);
    if (got != status || world->error_field != field || world->error_index != index) {
        fprintf(stderr, "test_wind.c:%d: got field %d index %zu, expected field %d index %zu\n", line,
                (int)world->error_field, world->error_index, (int)field, index);
    }
    ENSURE(world->error_field == field && world->error_index == index);
    ENSURE(memcmp(world->positions, x0, sizeof x0) == 0 && memcmp(world->velocities, v0, sizeof v0) == 0);
    ENSURE(tri_same(tris, t0, 2) && wind_same(wind, &w0));
}

void test_wind(void) {
    static Plate calm, windy, colored, h;
    static double gust[WN][3];
    XpbdAeroTriangle tris[2];
    XpbdWind3 wind = xpbd_wind3_default(), second = xpbd_wind3_default();
    XpbdWorld3 world = xpbd_world3_default();
    int k;

    /* The defaults: an empty block in still air, the header filled in. */
    ENSURE(wind.block.kind == XPBD_BLOCK_WIND && wind.block.size == sizeof(XpbdWind3) && wind.block.next == NULL);
    ENSURE(wind.triangles == NULL && wind.triangle_count == 0 && wind.particle_velocities == NULL);
    ENSURE(wind.velocity[0] == 0.0 && wind.velocity[1] == 0.0 && wind.velocity[2] == 0.0);
    ENSURE(wind.density == XPBD_AIR_DENSITY && XPBD_AIR_DENSITY == 1.225);
    tris[0] = xpbd_aero_triangle_default(0, 1, 2);
    tris[1] = xpbd_aero_triangle_default(1, 3, 2);
    ENSURE(tris[1].particles[0] == 1 && tris[1].particles[1] == 3 && tris[1].particles[2] == 2);
    ENSURE(tris[0].drag == XPBD_DEFAULT_DRAG_COEFFICIENT && tris[0].lift == XPBD_DEFAULT_LIFT_COEFFICIENT);
    wind.triangles = tris;
    wind.triangle_count = 2;
    wind.velocity[0] = 10.0; /* m/s along x, through the plate */

    /* Downwind: the plate without the block falls in its plane (x stays
     * 0, bit for bit), with it every particle is blown along +x (2 to 3 m
     * in 0.5 s). */
    plate(&calm);
    plate(&windy);
    ENSURE_STATUS(run(&calm, NULL, 0, 30), XPBD_STATUS_OK);
    ENSURE_STATUS(run(&windy, &wind, 0, 30), XPBD_STATUS_OK);
    for (k = 0; k < WN; ++k) {
        ENSURE(calm.x[k][0] == 0.0 && windy.x[k][0] > 1.0 && windy.v[k][0] > 1.0);
        ENSURE(calm.x[k][1] < (double)(k % 2) - 1.0); /* 0.5 s of free fall */
    }
    /* The colored step: the same bits. */
    plate(&colored);
    ENSURE_STATUS(run(&colored, &wind, 1, 30), XPBD_STATUS_OK);
    ENSURE(memcmp(colored.x, windy.x, sizeof windy.x) == 0 && memcmp(colored.v, windy.v, sizeof windy.v) == 0);
    /* A per-particle wind of -10 m/s along x cancels the block's: the
     * plate falls as without wind (edge-on to its relative velocity). */
    for (k = 0; k < WN; ++k) gust[k][0] = -10.0;
    wind.particle_velocities = gust;
    plate(&colored);
    ENSURE_STATUS(run(&colored, &wind, 0, 30), XPBD_STATUS_OK);
    for (k = 0; k < WN; ++k) {
        ENSURE(fabs(colored.x[k][0]) < 1e-9 && fabs(colored.x[k][1] - calm.x[k][1]) < 1e-9);
    }

    /* The refusals, each named, nothing written. */
    plate(&h);
    h.v[3][2] = 0.5;
    world.positions = h.x; world.velocities = h.v; world.inverse_masses = h.w; world.particle_count = WN;
    world.links = h.links; world.link_count = WL;
    wind.block.next = NULL;
    ENSURE_STATUS(xpbd_world3_add(&world, &wind.block), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    gust[2][1] = NAN;
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_WIND, XPBD_FIELD_PARTICLE_WIND, 2, __LINE__);
    wind.particle_velocities = NULL;
    wind.velocity[2] = NAN;
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_WIND, XPBD_FIELD_WIND_VELOCITY, 0, __LINE__);
    wind.velocity[2] = INFINITY;
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_WIND, XPBD_FIELD_WIND_VELOCITY, 0, __LINE__);
    wind.velocity[2] = 0.0;
    wind.density = -1.0;
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_WIND, XPBD_FIELD_FLUID_DENSITY, 0, __LINE__);
    wind.density = NAN;
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_WIND, XPBD_FIELD_FLUID_DENSITY, 0, __LINE__);
    wind.density = XPBD_AIR_DENSITY;
    tris[1].particles[1] = WN;
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_WIND, XPBD_FIELD_AERO_TRIANGLES, 1, __LINE__);
    tris[1].particles[1] = 3;
    tris[0].particles[2] = 0;
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_WIND, XPBD_FIELD_AERO_TRIANGLES, 0, __LINE__);
    tris[0].particles[2] = 2;
    tris[1].lift = NAN;
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_WIND, XPBD_FIELD_AERO_TRIANGLES, 1, __LINE__);
    tris[1].lift = 0.1;
    tris[0].drag = -0.5;
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_WIND, XPBD_FIELD_AERO_TRIANGLES, 0, __LINE__);
    tris[0].drag = 1.2;
    /* NULL triangles with a count: the NULL status, no field. */
    wind.triangles = NULL;
    refused(&world, &wind, tris, XPBD_STATUS_NULL_POINTER, XPBD_FIELD_NONE, 0, __LINE__);
    wind.triangles = tris;
    /* The triangles over the velocities: aliased. */
    wind.triangles = (const XpbdAeroTriangle *)(const void *)h.v;
    wind.triangle_count = 1;
    refused(&world, &wind, tris, XPBD_STATUS_ALIASED_BUFFERS, XPBD_FIELD_NONE, 0, __LINE__);
    wind.triangles = tris;
    wind.triangle_count = 2;
    /* A second wind block: the kind twice, named by its position. */
    ENSURE_STATUS(xpbd_world3_add(&world, &second.block), XPBD_STATUS_OK);
    refused(&world, &wind, tris, XPBD_STATUS_INVALID_BLOCK, XPBD_FIELD_BLOCK, 1, __LINE__);
    world.blocks = &wind.block;
    /* Everything restored: the step runs and the plate moves downwind. */
    {
        const XpbdStepConfig3 config = xpbd_step_config3_default();
        ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
        ENSURE(world.error_field == XPBD_FIELD_NONE && h.x[0][0] > 0.0);
    }
    test_world3_free(&world);

    /* Float, from the same code: the plate blown downwind, a bad density
     * refused. */
    {
        static float xf[WN][3], vf[WN][3], x0[WN][3], v0[WN][3];
        float wf[WN] = {4.0f, 4.0f, 4.0f, 4.0f};
        XpbdLinkF32 lf[WL];
        XpbdAeroTriangleF32 tf[2];
        XpbdWorld3F32 wd = xpbd_world3_default_f32();
        XpbdWind3F32 bf = xpbd_wind3_default_f32();
        XpbdStepConfig3F32 cf = xpbd_step_config3_default_f32();
        int f;
        ENSURE(bf.block.kind == (XPBD_BLOCK_WIND | XPBD_BLOCK_F32) && bf.block.size == sizeof(XpbdWind3F32));
        ENSURE(bf.density == (float)XPBD_AIR_DENSITY);
        memset(xf, 0, sizeof xf);
        memset(vf, 0, sizeof vf);
        memset(lf, 0, sizeof lf);
        for (k = 0; k < WN; ++k) {
            xf[k][1] = (float)(k % 2);
            xf[k][2] = (float)(k / 2);
        }
        for (k = 0; k < WL; ++k) {
            lf[k].i = h.links[k].i;
            lf[k].j = h.links[k].j;
            lf[k].rest = (float)h.links[k].rest;
            lf[k].compliance = 1e-6f;
        }
        tf[0] = xpbd_aero_triangle_default_f32(0, 1, 2);
        tf[1] = xpbd_aero_triangle_default_f32(1, 3, 2);
        ENSURE(tf[0].drag == 1.2f && tf[1].lift == 0.1f);
        bf.triangles = tf;
        bf.triangle_count = 2;
        bf.velocity[0] = 10.0f;
        wd.positions = xf; wd.velocities = vf; wd.inverse_masses = wf; wd.particle_count = WN;
        wd.links = lf; wd.link_count = WL;
        ENSURE_STATUS(xpbd_world3_add_f32(&wd, &bf.block), XPBD_STATUS_OK);
        ENSURE_STATUS(test_world3_memory_f32(&wd), XPBD_STATUS_OK);
        cf.substeps = 8;
        for (f = 0; f < 30; ++f) ENSURE_STATUS(xpbd_world3_step_f32(&wd, 1.0f / 60.0f, &cf, NULL), XPBD_STATUS_OK);
        for (k = 0; k < WN; ++k) ENSURE(xf[k][0] > 1.0f && vf[k][0] > 1.0f);
        memcpy(x0, xf, sizeof xf);
        memcpy(v0, vf, sizeof vf);
        bf.density = -1.0f;
        ENSURE_STATUS(xpbd_world3_step_f32(&wd, 1.0f / 60.0f, &cf, NULL), XPBD_STATUS_INVALID_WIND);
        ENSURE(wd.error_field == XPBD_FIELD_FLUID_DENSITY && wd.error_index == 0);
        bf.density = 1.225f;
        tf[1].particles[0] = tf[1].particles[2];
        ENSURE_STATUS(xpbd_world3_step_f32(&wd, 1.0f / 60.0f, &cf, NULL), XPBD_STATUS_INVALID_WIND);
        ENSURE(wd.error_field == XPBD_FIELD_AERO_TRIANGLES && wd.error_index == 1);
        ENSURE(memcmp(xf, x0, sizeof xf) == 0 && memcmp(vf, v0, sizeof vf) == 0);
        test_world3_free_f32(&wd);
    }
}
