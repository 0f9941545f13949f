/* Self-collision (issue 18) through xpbd_world3_step with a self-collision
 * block: a particle dropped onto a static one comes to rest on it at the
 * contact distance 2r (1 + 1/64); its buffers (pairs, hash table, ids,
 * adjacency) come from the world's memory, so memory shorter than
 * xpbd_world3_requirements says, or NULL, is CAPACITY_TOO_SMALL naming
 * XPBD_FIELD_MEMORY and the size, with nothing written; radius 0 is
 * INVALID_SELF_COLLISION naming the radius; memory overlapping the
 * velocities is ALIASED_BUFFERS. */
#include <math.h>

#include "ensure.h"

void test_self(void) {
    static double x[2][3], v[2][3], w[2], x0[2][3], v0[2][3];
    XpbdWorld3 world = xpbd_world3_default();
    XpbdSelfCollision3 self = xpbd_self_collision3_default();
    XpbdRequirements req;
    XpbdStepConfig3 config = test_bare_config3();
    const double r = 0.01, d = 2.0 * r * (1.0 + 1.0 / 64.0);
    void *memory;
    int f;
    ENSURE(xpbd_self_collision_table_len(2) == 6);
    ENSURE(xpbd_self_collision_adjacency_len(2, 0) == 3);
    memset(x, 0, sizeof x); memset(v, 0, sizeof v);
    x[1][1] = 0.05;
    w[0] = 0.0; w[1] = 1.0;
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = 2;
    ENSURE(self.block.kind == XPBD_BLOCK_SELF_COLLISION && self.block.size == sizeof self);
    ENSURE_STATUS(xpbd_world3_add(&world, &self.block), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_world3_requirements(&world, &req), XPBD_STATUS_OK);
    /* The lengths the old scratch had to have: now carved from the memory. */
    ENSURE(req.hash_table == xpbd_self_collision_table_len(2) && req.hash_ids == 2);
    ENSURE(req.adjacency == xpbd_self_collision_adjacency_len(2, 0));
    ENSURE(req.pairs == XPBD_DEFAULT_PAIRS_PER_PARTICLE * 2 && req.contacts == 0);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    config.particle_radius = r;
    config.damping = 2.0;
    for (f = 0; f < 120; ++f) ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    ENSURE(fabs(x[1][1] - d) < 1e-9);
    ENSURE(fabs(x[1][0]) < 1e-12 && fabs(x[1][2]) < 1e-12);

    /* Short or missing memory: rejected, the size named, nothing written. */
    memcpy(x0, x, sizeof x); memcpy(v0, v, sizeof v);
    world.memory_size = req.memory_size - 1;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_CAPACITY_TOO_SMALL);
    ENSURE(world.error_field == XPBD_FIELD_MEMORY && world.error_index == req.memory_size);
    world.memory_size = req.memory_size;
    memory = world.memory;
    world.memory = NULL;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_CAPACITY_TOO_SMALL);
    ENSURE(world.error_field == XPBD_FIELD_MEMORY && world.error_index == req.memory_size);
    world.memory = memory;
    config.particle_radius = 0.0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_SELF_COLLISION);
    ENSURE(world.error_field == XPBD_FIELD_PARTICLE_RADIUS);
    config.particle_radius = r;
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);

    /* The memory over the velocities (it holds more than the 48 bytes). */
    ENSURE(req.memory_size >= sizeof v);
    world.velocities = (double (*)[3])world.memory;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    world.velocities = v;
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    test_world3_free(&world);
}
