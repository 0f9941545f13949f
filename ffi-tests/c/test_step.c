/* Stepping through the C ABI: a hanging rope with a ground plane and a
 * sphere, friction and damping, in f64 and f32; errors leave positions and
 * velocities untouched. The scenario functions are also called from Rust
 * (ffi-tests/tests/step_trajectory.rs) to prove Rust and C trajectories are
 * bit-identical. */
#include "ensure.h"

#include <math.h>

enum { ROPE_N = 12 };

/* The scenario's configuration, every field set (whatever the defaults):
 * ffi-tests/tests/step_trajectory.rs states the same one in Rust. */
#define ROPE_CONFIG(config, T)                                                   \
    do {                                                                         \
        (config).gravity[0] = (T)0.0; (config).gravity[1] = (T)-9.81; (config).gravity[2] = (T)0.0; \
        (config).substeps = 8;                                                   \
        (config).iterations = 2;                                                 \
        (config).tolerance = (T)0.0;                                             \
        (config).damping = (T)0.5;                                               \
        (config).particle_radius = (T)0.02;                                      \
        (config).contact_compliance = (T)0.0;                                    \
        (config).static_friction = (T)0.4;                                       \
        (config).dynamic_friction = (T)0.3;                                      \
        (config).zero_length_policy = XPBD_ZERO_LENGTH_REJECT;                   \
        (config).contact_overflow = XPBD_CONTACT_OVERFLOW_REJECT;                \
        (config).max_distance_scale = (T)1.0;                                    \
    } while (0)

/* Runs `frames` frames of the fixed rope scenario in f64 through the C ABI
 * and writes the final positions and velocities (3·ROPE_N doubles each).
 * Returns the first non-OK status, or 0. */
int32_t xpbd_c_rope_scenario(int frames, double *out_x, double *out_v);
int32_t xpbd_c_rope_scenario(int frames, double *out_x, double *out_v) {
    double x[ROPE_N][3], v[ROPE_N][3], w[ROPE_N];
    XpbdLink links[ROPE_N - 1];
    XpbdPlane3 ground = {{0.0, 1.0, 0.0}, -1.0};
    XpbdSphere3 ball = {{0.6, -0.5, 0.0}, 0.25};
    XpbdWorld3 world = xpbd_world3_default();
    XpbdColliders3 colliders = xpbd_colliders3_default();
    XpbdStepConfig3 config = xpbd_step_config3_default();
    size_t count = 0;
    int k, f;
    int32_t status;
    for (k = 0; k < ROPE_N; ++k) {
        x[k][0] = 0.1 * k; x[k][1] = 0.0; x[k][2] = 0.0;
        v[k][0] = 0.0; v[k][1] = 0.0; v[k][2] = 0.0;
        w[k] = k == 0 ? 0.0 : 1.0;
    }
    status = xpbd_build_rope3(&x[0][0], ROPE_N, 1e-5, links, ROPE_N - 1, &count);
    if (status != XPBD_STATUS_OK) return status;
    for (k = 0; k < ROPE_N - 1; ++k) links[k].flags = XPBD_LINK_TENSION_ONLY;
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = ROPE_N;
    world.links = links; world.link_count = count;
    colliders.planes = &ground; colliders.plane_count = 1;
    colliders.spheres = &ball; colliders.sphere_count = 1;
    status = xpbd_world3_add(&world, &colliders.block);
    if (status == XPBD_STATUS_OK) status = test_world3_memory(&world);
    ROPE_CONFIG(config, double);
    for (f = 0; f < frames && status == XPBD_STATUS_OK; ++f) {
        status = xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL);
    }
    test_world3_free(&world);
    if (status != XPBD_STATUS_OK) return status;
    memcpy(out_x, x, sizeof x);
    memcpy(out_v, v, sizeof v);
    return 0;
}

/* The same scenario in f32. */
int32_t xpbd_c_rope_scenario_f32(int frames, float *out_x, float *out_v);
int32_t xpbd_c_rope_scenario_f32(int frames, float *out_x, float *out_v) {
    float x[ROPE_N][3], v[ROPE_N][3], w[ROPE_N];
    XpbdLinkF32 links[ROPE_N - 1];
    XpbdPlane3F32 ground = {{0.0f, 1.0f, 0.0f}, -1.0f};
    XpbdSphere3F32 ball = {{0.6f, -0.5f, 0.0f}, 0.25f};
    XpbdWorld3F32 world = xpbd_world3_default_f32();
    XpbdColliders3F32 colliders = xpbd_colliders3_default_f32();
    XpbdStepConfig3F32 config = xpbd_step_config3_default_f32();
    size_t count = 0;
    int k, f;
    int32_t status;
    for (k = 0; k < ROPE_N; ++k) {
        x[k][0] = 0.1f * (float)k; x[k][1] = 0.0f; x[k][2] = 0.0f;
        v[k][0] = 0.0f; v[k][1] = 0.0f; v[k][2] = 0.0f;
        w[k] = k == 0 ? 0.0f : 1.0f;
    }
    status = xpbd_build_rope3_f32(&x[0][0], ROPE_N, 1e-5f, links, ROPE_N - 1, &count);
    if (status != XPBD_STATUS_OK) return status;
    for (k = 0; k < ROPE_N - 1; ++k) links[k].flags = XPBD_LINK_TENSION_ONLY;
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = ROPE_N;
    world.links = links; world.link_count = count;
    colliders.planes = &ground; colliders.plane_count = 1;
    colliders.spheres = &ball; colliders.sphere_count = 1;
    status = xpbd_world3_add_f32(&world, &colliders.block);
    if (status == XPBD_STATUS_OK) status = test_world3_memory_f32(&world);
    ROPE_CONFIG(config, float);
    for (f = 0; f < frames && status == XPBD_STATUS_OK; ++f) {
        status = xpbd_world3_step_f32(&world, 1.0f / 60.0f, &config, NULL);
    }
    test_world3_free_f32(&world);
    if (status != XPBD_STATUS_OK) return status;
    memcpy(out_x, x, sizeof x);
    memcpy(out_v, v, sizeof v);
    return 0;
}

static void errors_leave_state_untouched(void) {
    double x[2][3] = {{0.0, 1.0, 0.0}, {0.0, 0.02, 0.0}};
    double v[2][3] = {{0.0, 0.0, 0.0}, {0.5, -3.0, 0.0}};
    double w[2] = {0.0, 1.0};
    double x0[2][3], v0[2][3];
    XpbdPlane3 ground = {{0.0, 1.0, 0.0}, 0.0};
    XpbdWorld3 world = xpbd_world3_default();
    XpbdColliders3 colliders = xpbd_colliders3_default();
    XpbdRequirements req;
    XpbdStepConfig3 config = test_bare_config3();
    XpbdStepStats stats;
    memcpy(x0, x, sizeof x);
    memcpy(v0, v, sizeof v);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = 2;
    colliders.planes = &ground; colliders.plane_count = 1;
    ENSURE_STATUS(xpbd_world3_add(&world, &colliders.block), XPBD_STATUS_OK);
    ENSURE(world.blocks == &colliders.block && colliders.block.next == NULL);
    ENSURE_STATUS(xpbd_world3_requirements(&world, &req), XPBD_STATUS_OK);
    ENSURE(req.scratch == xpbd_step_scratch_len(2, 0) && req.contacts == 2 && req.pairs == 0);
    ENSURE(req.memory_size >= req.scratch * sizeof(double[3]));
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    config.substeps = 4;

#define SAME() ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0)
    ENSURE_STATUS(xpbd_world3_step(NULL, 0.1, &config, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_world3_step(&world, 0.1, NULL, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_world3_step(&world, 0.0, &config, NULL), XPBD_STATUS_INVALID_TIME_STEP);
    ENSURE(world.error_field == XPBD_FIELD_FRAME_TIME);
    SAME();
    /* Memory one byte short: the size needed is named. */
    world.memory_size = req.memory_size - 1;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, &stats), XPBD_STATUS_CAPACITY_TOO_SMALL);
    ENSURE(world.error_field == XPBD_FIELD_MEMORY && world.error_index == req.memory_size);
    world.memory_size = req.memory_size;
    SAME();
    config.substeps = 0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_CONFIG);
    ENSURE(world.error_field == XPBD_FIELD_SUBSTEPS);
    config.substeps = 4;
    config.zero_length_policy = 9;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_CONFIG);
    ENSURE(world.error_field == XPBD_FIELD_ZERO_LENGTH_POLICY);
    config.zero_length_policy = XPBD_ZERO_LENGTH_REJECT;
    v[1][2] = HUGE_VAL; memcpy(v0, v, sizeof v);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_NON_FINITE_VELOCITY);
    ENSURE(world.error_index == 1);
    v[1][2] = 0.0; memcpy(v0, v, sizeof v);
    ground.normal[1] = 0.0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COLLIDER);
    ENSURE(world.error_index == 0);
    ground.normal[1] = 1.0;
    world.velocities = x; /* aliased with positions */
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    world.velocities = v;
    SAME();
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, &stats), XPBD_STATUS_OK);
    ENSURE(stats.substeps == 4 && stats.max_contacts == 1);
    ENSURE(x[1][1] >= -1e-12);
    ENSURE_BITS64(x[0][1], 1.0); /* static particle */
#undef SAME
    test_world3_free(&world);
}

void test_step(void) {
    double x[ROPE_N * 3], v[ROPE_N * 3];
    float xf[ROPE_N * 3], vf[ROPE_N * 3];
    int k;
    ENSURE_STATUS(xpbd_c_rope_scenario(120, x, v), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_c_rope_scenario_f32(120, xf, vf), XPBD_STATUS_OK);
    for (k = 0; k < ROPE_N; ++k) {
        ENSURE(x[3 * k + 1] >= -1.0 + 0.02 - 1e-9); /* above the ground plane */
        ENSURE(fabs((double)xf[3 * k + 1] - x[3 * k + 1]) < 1e-3); /* f32 tracks f64 */
    }
    ENSURE_BITS64(x[0], 0.0); /* the pin */
    errors_leave_state_untouched();
    {
        /* The default configuration works as it is (issue 33): the
         * header's XPBD_DEFAULT_* values, float and double. */
        const XpbdStepConfig3 c = xpbd_step_config3_default();
        const XpbdStepConfig3F32 cf = xpbd_step_config3_default_f32();
        ENSURE(c.substeps == XPBD_DEFAULT_SUBSTEPS && c.iterations == XPBD_DEFAULT_ITERATIONS);
        ENSURE_BITS64(c.gravity[1], -9.81);
        ENSURE_BITS64(c.damping, XPBD_DEFAULT_DAMPING);
        ENSURE_BITS64(c.particle_radius, XPBD_DEFAULT_PARTICLE_RADIUS);
        ENSURE_BITS64(c.static_friction, XPBD_DEFAULT_STATIC_FRICTION);
        ENSURE_BITS64(c.dynamic_friction, XPBD_DEFAULT_DYNAMIC_FRICTION);
        ENSURE_BITS64(c.tolerance, 0.0);
        ENSURE_BITS64(c.contact_compliance, 0.0);
        ENSURE(c.zero_length_policy == XPBD_ZERO_LENGTH_REJECT && c.contact_overflow == XPBD_CONTACT_OVERFLOW_REJECT);
        ENSURE(cf.substeps == XPBD_DEFAULT_SUBSTEPS && cf.iterations == XPBD_DEFAULT_ITERATIONS);
        ENSURE_BITS32(cf.damping, (float)XPBD_DEFAULT_DAMPING);
        ENSURE_BITS32(cf.particle_radius, (float)XPBD_DEFAULT_PARTICLE_RADIUS);
        ENSURE_BITS32(cf.static_friction, (float)XPBD_DEFAULT_STATIC_FRICTION);
        ENSURE_BITS32(cf.dynamic_friction, (float)XPBD_DEFAULT_DYNAMIC_FRICTION);
    }
}
