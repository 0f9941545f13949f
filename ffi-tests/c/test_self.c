/* Self-collision (issue 18) through xpbd_world3_step: a particle dropped
 * onto a static one comes to rest on it at the contact distance
 * 2r (1 + 1/64); scratch shorter than xpbd_self_collision_table_len /
 * xpbd_self_collision_adjacency_len is INVALID_ARGUMENT with nothing
 * written; a contact buffer overlapping the positions is ALIASED_BUFFERS. */
#include <math.h>

#include "ensure.h"

void test_self(void) {
    static double x[2][3], v[2][3], w[2], scratch[6][3], x0[2][3], v0[2][3];
    static XpbdContact contacts[2];
    static XpbdParticleContact pairs[4];
    static uint32_t table[8], ids[2], adjacency[8];
    XpbdWorld3 world;
    XpbdStepConfig3 config = xpbd_step_config3_default();
    const double r = 0.01, d = 2.0 * r * (1.0 + 1.0 / 64.0);
    int f;
    ENSURE(xpbd_self_collision_table_len(2) == 6);
    ENSURE(xpbd_self_collision_adjacency_len(2, 0) == 3);
    memset(x, 0, sizeof x); memset(v, 0, sizeof v);
    x[1][1] = 0.05;
    w[0] = 0.0; w[1] = 1.0;
    memset(&world, 0, sizeof world);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = 2;
    world.contacts = contacts; world.contact_capacity = 2;
    world.scratch = scratch; world.scratch_count = xpbd_step_scratch_len(2);
    world.particle_contacts = pairs; world.particle_contact_capacity = 4;
    world.hash_table = table; world.hash_table_count = 6;
    world.hash_ids = ids; world.hash_id_count = 2;
    world.adjacency = adjacency; world.adjacency_count = 3;
    config.particle_radius = r;
    config.damping = 2.0;
    for (f = 0; f < 120; ++f) ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    ENSURE(fabs(x[1][1] - d) < 1e-9);
    ENSURE(fabs(x[1][0]) < 1e-12 && fabs(x[1][2]) < 1e-12);

    /* Short scratch: rejected, nothing written. */
    memcpy(x0, x, sizeof x); memcpy(v0, v, sizeof v);
    world.hash_table_count = 5;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_ARGUMENT);
    world.hash_table_count = 6;
    world.adjacency_count = 2;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_ARGUMENT);
    world.adjacency_count = 3;
    config.particle_radius = 0.0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_ARGUMENT);
    config.particle_radius = r;
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0);

    /* The pair storage over the positions. */
    world.particle_contacts = (XpbdParticleContact *)(void *)x;
    world.particle_contact_capacity = 1;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    world.particle_contacts = NULL;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_NULL_POINTER);
}
