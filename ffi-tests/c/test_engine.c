/* Engine-supplied contacts and moving colliders (issue 16, items 2 and 3)
 * through xpbd_world3_step[_f32]: a particle resting on an engine contact
 * reports its weight as the contact's force; a particle resting on a box
 * moving sideways is carried by friction; a capsule sweeping a particle
 * never has it inside; a bad capsule, box or engine contact is named by
 * error_index (colliders: planes, spheres, capsules, boxes, then the
 * engine contacts) with nothing written. The engine contacts and the
 * colliders are blocks of the world (XpbdEngineContacts3, XpbdColliders3). */
#include <math.h>

#include "ensure.h"

/* A world of two particles with no block; the caller adds its blocks,
 * then sizes the memory (test_world3_memory). */
static void engine_world(XpbdWorld3 *world, double x[2][3], double v[2][3], double w[2]) {
    test_world3_free(world);
    *world = xpbd_world3_default();
    world->positions = x; world->velocities = v; world->inverse_masses = w;
    world->particle_count = 2;
}

void test_engine(void) {
    static double x[2][3], v[2][3], w[2], x0[2][3], v0[2][3];
    XpbdEngineContact e[1], e0[1];
    XpbdCapsule3 cap[1];
    XpbdBox3 box[1];
    XpbdWorld3 world = xpbd_world3_default();
    XpbdEngineContacts3 engine = xpbd_engine_contacts3_default();
    XpbdColliders3 colliders = xpbd_colliders3_default();
    XpbdStepConfig3 config = test_bare_config3(); /* g = (0, -9.81, 0) */
    XpbdRequirements req;
    int f;

    /* A 0.5 kg particle on an engine contact (plane y = 0, normal not unit). */
    memset(x, 0, sizeof x); memset(v, 0, sizeof v);
    x[1][0] = 5.0; /* particle 1 pinned far away */
    w[0] = 2.0; w[1] = 0.0;
    memset(e, 0, sizeof e);
    e[0].particle = 0; e[0].normal[1] = 3.0;
    engine_world(&world, x, v, w);
    engine.contacts = e; engine.count = 1;
    ENSURE_STATUS(xpbd_world3_add(&world, &engine.block), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    for (f = 0; f < 30; ++f) ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    ENSURE(fabs(e[0].force - 0.5 * 9.81) < 1e-9);
    ENSURE(fabs(x[0][1]) < 1e-12);

    /* A bad engine contact: named after the (zero) colliders; nothing written. */
    memcpy(x0, x, sizeof x); memcpy(v0, v, sizeof v); memcpy(e0, e, sizeof e);
    e[0].particle = 2;
    memcpy(e0, e, sizeof e);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COLLIDER);
    ENSURE(world.error_index == 0);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0 && memcmp(e, e0, sizeof e) == 0);
    e[0].particle = 0;
    e[0].dynamic_friction = -1.0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COLLIDER);
    e[0].dynamic_friction = 0.0;

    /* A box moving at 1 m/s along x carries a particle resting on it. */
    memset(x, 0, sizeof x); memset(v, 0, sizeof v);
    x[0][1] = 0.1; x[1][0] = 5.0;
    engine_world(&world, x, v, w);
    memset(box, 0, sizeof box);
    box[0].axes[0][0] = 1.0; box[0].axes[1][1] = 1.0; box[0].axes[2][2] = 1.0;
    box[0].half_extents[0] = 2.0; box[0].half_extents[1] = 0.1; box[0].half_extents[2] = 2.0;
    box[0].velocity[0] = 1.0;
    box[0].dynamic_friction = 1.0;
    colliders.boxes = box; colliders.box_count = 1;
    ENSURE_STATUS(xpbd_world3_add(&world, &colliders.block), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    for (f = 0; f < 60; ++f) {
        ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
        box[0].center[0] += 1.0 / 60.0;
    }
    ENSURE(fabs(v[0][0] - 1.0) < 1e-6);
    ENSURE(fabs(x[0][1] - 0.1) < 1e-9);

    /* A capsule sweeping at 5 m/s through a resting particle: never inside. */
    memset(x, 0, sizeof x); memset(v, 0, sizeof v);
    x[1][0] = 5.0;
    engine_world(&world, x, v, w);
    memset(cap, 0, sizeof cap);
    cap[0].center[0] = -0.3; cap[0].center[1] = 0.01;
    cap[0].half_axis[2] = 0.2; cap[0].radius = 0.05;
    cap[0].velocity[0] = 5.0;
    colliders = xpbd_colliders3_default();
    colliders.capsules = cap; colliders.capsule_count = 1;
    ENSURE_STATUS(xpbd_world3_add(&world, &colliders.block), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    config.gravity[1] = 0.0;
    for (f = 0; f < 12; ++f) {
        double dx, dy;
        ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
        cap[0].center[0] += 5.0 / 60.0;
        dx = x[0][0] - cap[0].center[0]; dy = x[0][1] - cap[0].center[1];
        ENSURE(sqrt(dx * dx + dy * dy) >= 0.05 - 1e-9);
    }
    ENSURE(x[0][0] > 0.5); /* pushed along */

    /* A bad capsule (collider 0) and a skewed box (collider 1). A second
     * collider doubles the default contact budget: the memory sized for
     * one is too small until it is sized again. */
    memcpy(x0, x, sizeof x); memcpy(v0, v, sizeof v);
    colliders.boxes = box; colliders.box_count = 1;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_CAPACITY_TOO_SMALL);
    ENSURE(world.error_field == XPBD_FIELD_MEMORY && world.error_index > world.memory_size);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_requirements(&world, &req), XPBD_STATUS_OK);
    ENSURE(req.contacts == 2 * 2);
    cap[0].radius = -0.05;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COLLIDER);
    ENSURE(world.error_index == 0);
    cap[0].radius = 0.05;
    box[0].axes[1][0] = 0.5;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COLLIDER);
    ENSURE(world.error_index == 1);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);
    box[0].axes[1][0] = 0.0;

    /* Aliased: an engine contact array over the positions. */
    engine = xpbd_engine_contacts3_default();
    engine.contacts = (XpbdEngineContact *)(void *)x; engine.count = 1;
    ENSURE_STATUS(xpbd_world3_add(&world, &engine.block), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    engine.contacts = NULL; engine.count = 1;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);
    engine.count = 0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    test_world3_free(&world);
}
