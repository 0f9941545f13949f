/* Stepping through the C ABI: a hanging rope with a ground plane and a
 * sphere, friction and damping, in f64 and f32; errors leave positions and
 * velocities untouched. The scenario functions are also called from Rust
 * (ffi-tests/tests/step_trajectory.rs) to prove Rust and C trajectories are
 * bit-identical. */
#include "ensure.h"

#include <math.h>

enum { ROPE_N = 12 };

/* Runs `frames` frames of the fixed rope scenario in f64 through the C ABI
 * and writes the final positions and velocities (3·ROPE_N doubles each).
 * Returns the first non-OK status, or 0. */
int32_t xpbd_c_rope_scenario(int frames, double *out_x, double *out_v);
int32_t xpbd_c_rope_scenario(int frames, double *out_x, double *out_v) {
    double x[ROPE_N][3], v[ROPE_N][3], w[ROPE_N], scratch[3 * ROPE_N][3];
    XpbdLink links[ROPE_N - 1];
    XpbdContact contacts[4 * ROPE_N];
    XpbdPlane3 ground = {{0.0, 1.0, 0.0}, -1.0};
    XpbdSphere3 ball = {{0.6, -0.5, 0.0}, 0.25};
    XpbdWorld3 world;
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
    memset(&world, 0, sizeof world);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = ROPE_N;
    world.links = links; world.link_count = count;
    world.planes = &ground; world.plane_count = 1;
    world.spheres = &ball; world.sphere_count = 1;
    world.contacts = contacts; world.contact_capacity = 4 * ROPE_N;
    world.scratch = scratch; world.scratch_count = xpbd_step_scratch_len(ROPE_N);
    config.substeps = 8;
    config.iterations = 2;
    config.damping = 0.5;
    config.particle_radius = 0.02;
    config.static_friction = 0.4;
    config.dynamic_friction = 0.3;
    for (f = 0; f < frames; ++f) {
        status = xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL);
        if (status != XPBD_STATUS_OK) return status;
    }
    memcpy(out_x, x, sizeof x);
    memcpy(out_v, v, sizeof v);
    return 0;
}

/* The same scenario in f32. */
int32_t xpbd_c_rope_scenario_f32(int frames, float *out_x, float *out_v);
int32_t xpbd_c_rope_scenario_f32(int frames, float *out_x, float *out_v) {
    float x[ROPE_N][3], v[ROPE_N][3], w[ROPE_N], scratch[3 * ROPE_N][3];
    XpbdLinkF32 links[ROPE_N - 1];
    XpbdContactF32 contacts[4 * ROPE_N];
    XpbdPlane3F32 ground = {{0.0f, 1.0f, 0.0f}, -1.0f};
    XpbdSphere3F32 ball = {{0.6f, -0.5f, 0.0f}, 0.25f};
    XpbdWorld3F32 world;
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
    memset(&world, 0, sizeof world);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = ROPE_N;
    world.links = links; world.link_count = count;
    world.planes = &ground; world.plane_count = 1;
    world.spheres = &ball; world.sphere_count = 1;
    world.contacts = contacts; world.contact_capacity = 4 * ROPE_N;
    world.scratch = scratch; world.scratch_count = xpbd_step_scratch_len(ROPE_N);
    config.substeps = 8;
    config.iterations = 2;
    config.damping = 0.5f;
    config.particle_radius = 0.02f;
    config.static_friction = 0.4f;
    config.dynamic_friction = 0.3f;
    for (f = 0; f < frames; ++f) {
        status = xpbd_world3_step_f32(&world, 1.0f / 60.0f, &config, NULL);
        if (status != XPBD_STATUS_OK) return status;
    }
    memcpy(out_x, x, sizeof x);
    memcpy(out_v, v, sizeof v);
    return 0;
}

static void errors_leave_state_untouched(void) {
    double x[2][3] = {{0.0, 1.0, 0.0}, {0.0, 0.02, 0.0}};
    double v[2][3] = {{0.0, 0.0, 0.0}, {0.5, -3.0, 0.0}};
    double w[2] = {0.0, 1.0};
    double scratch[6][3];
    double x0[2][3], v0[2][3];
    XpbdPlane3 ground = {{0.0, 1.0, 0.0}, 0.0};
    XpbdWorld3 world;
    XpbdStepConfig3 config = xpbd_step_config3_default();
    XpbdStepStats stats;
    memcpy(x0, x, sizeof x);
    memcpy(v0, v, sizeof v);
    memset(&world, 0, sizeof world);
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = 2;
    world.planes = &ground; world.plane_count = 1;
    world.scratch = scratch; world.scratch_count = 6;
    config.substeps = 4;

#define SAME() ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0)
    ENSURE_STATUS(xpbd_world3_step(NULL, 0.1, &config, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_world3_step(&world, 0.1, NULL, NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_world3_step(&world, 0.0, &config, NULL), XPBD_STATUS_INVALID_TIME_STEP);
    SAME();
    /* No contact storage: the particle reaches the ground mid-frame. */
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, &stats), XPBD_STATUS_CAPACITY_TOO_SMALL);
    SAME();
    config.substeps = 0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_ARGUMENT);
    config.substeps = 4;
    config.zero_length_policy = 9;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_ARGUMENT);
    config.zero_length_policy = XPBD_ZERO_LENGTH_REJECT;
    v[1][2] = HUGE_VAL; memcpy(v0, v, sizeof v);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_NON_FINITE_VELOCITY);
    ENSURE(world.error_index == 1);
    v[1][2] = 0.0; memcpy(v0, v, sizeof v);
    ground.normal[1] = 0.0;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COLLIDER);
    ground.normal[1] = 1.0;
    world.scratch_count = 5;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_CAPACITY_TOO_SMALL);
    world.scratch_count = 6;
    world.velocities = x; /* aliased with positions */
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    world.velocities = v;
    SAME();
    {
        XpbdContact contacts[4];
        world.contacts = contacts; world.contact_capacity = 4;
        ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, &stats), XPBD_STATUS_OK);
        ENSURE(stats.substeps == 4 && stats.max_contacts == 1);
        ENSURE(x[1][1] >= -1e-12);
        ENSURE_BITS64(x[0][1], 1.0); /* static particle */
    }
#undef SAME
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
}
