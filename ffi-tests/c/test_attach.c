/* Kinematic attachments (issue 16) through xpbd_world3_step[_f32] with a
 * groups block (XpbdGroups3):
 * a mass hanging on an attachment reports its weight as the force, a
 * moved target is reached within the frame and becomes `previous`, and a
 * rejected attachment is named by `error_index` with nothing written. */
#include <math.h>

#include "ensure.h"

#define AN 3

/* Two free particles and a pinned one, a rigid link 2–1, particle 1
 * hanging on a rigid attachment at the origin. */
static void attach_scene(double x[AN][3], double w[AN]) {
    memset(x, 0, sizeof(double) * AN * 3);
    x[1][1] = 0.0;
    x[2][1] = -0.1;
    x[0][0] = 5.0;
    w[0] = 0.0;
    w[1] = 2.0; /* 0.5 kg */
    w[2] = 4.0; /* 0.25 kg */
}

void test_attach(void) {
    static double x[AN][3], v[AN][3], w[AN], x0[AN][3], v0[AN][3];
    XpbdLink links[1];
    XpbdAttachment a[1], a0[1];
    XpbdWorld3 world = xpbd_world3_default();
    XpbdGroups3 groups = xpbd_groups3_default();
    XpbdConstraints3 *g = &groups.groups;
    XpbdStepConfig3 config = test_bare_config3(); /* g = (0, -9.81, 0) */
    int f;
    attach_scene(x, w);
    memset(v, 0, sizeof v);
    memset(a, 0, sizeof a);
    links[0].i = 1; links[0].j = 2; links[0].rest = 0.1; links[0].compliance = 0.0;
    links[0].lambda = 0.0; links[0].flags = 0;
    a[0].particle = 1; /* previous = target = origin, rigid */
    world.positions = x; world.velocities = v; world.inverse_masses = w; world.particle_count = AN;
    world.links = links; world.link_count = 1;
    g->attachments = a;
    g->attachment_count = 1;
    ENSURE_STATUS(xpbd_world3_add(&world, &groups.block), XPBD_STATUS_OK);
    ENSURE_STATUS(test_world3_memory(&world), XPBD_STATUS_OK);
    config.substeps = 8;
    for (f = 0; f < 30; ++f) ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    /* The whole hanging mass, 0.75 kg, pulls on the attachment. */
    ENSURE(fabs(a[0].force[1] - 0.75 * 9.81) < 1e-9);
    ENSURE(fabs(a[0].force[0]) < 1e-12 && fabs(a[0].force[2]) < 1e-12);
    ENSURE(fabs(x[1][1]) < 1e-12 && fabs(x[2][1] + 0.1) < 1e-3); /* one sweep: the link lags */

    /* A moved target: reached at the frame's end, then `previous`. */
    a[0].target[0] = 0.05;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_OK);
    ENSURE_BITS64(x[1][0], 0.05);
    ENSURE_BITS64(a[0].previous[0], 0.05);
    ENSURE(a[0].force[0] > 0.0);

    /* Rejected: named after the one link, nothing written. */
    memcpy(x0, x, sizeof x);
    memcpy(v0, v, sizeof v);
    a[0].target[1] = NAN;
    memcpy(a0, a, sizeof a);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_REST_VALUE);
    ENSURE(world.error_index == 1);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0 && memcmp(a, a0, sizeof a) == 0);
    a[0].target[1] = 0.0;
    a[0].particle = AN;
    memcpy(a0, a, sizeof a);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INDEX_OUT_OF_RANGE);
    ENSURE(world.error_index == 1);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(v, v0, sizeof v) == 0 && memcmp(a, a0, sizeof a) == 0);
    a[0].particle = 1;
    a[0].compliance = -1.0;
    memcpy(a0, a, sizeof a);
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_INVALID_COMPLIANCE);
    ENSURE(memcmp(x, x0, sizeof x) == 0 && memcmp(a, a0, sizeof a) == 0);
    a[0].compliance = 0.0;
    /* The array overlapping the positions. */
    g->attachments = (XpbdAttachment *)(void *)x;
    ENSURE_STATUS(xpbd_world3_step(&world, 1.0 / 60.0, &config, NULL), XPBD_STATUS_ALIASED_BUFFERS);
    ENSURE(memcmp(x, x0, sizeof x) == 0);
    g->attachments = a;
    test_world3_free(&world);

    /* Float, from the same code: a 0.5 kg mass hanging alone. */
    {
        float xf[1][3] = {{0.0f, 0.0f, 0.0f}}, vf[1][3] = {{0.0f, 0.0f, 0.0f}}, wf[1] = {2.0f};
        XpbdAttachmentF32 af[1];
        XpbdWorld3F32 wd = xpbd_world3_default_f32();
        XpbdGroups3F32 gf = xpbd_groups3_default_f32();
        XpbdStepConfig3F32 cf = test_bare_config3_f32();
        memset(af, 0, sizeof af);
        wd.positions = xf; wd.velocities = vf; wd.inverse_masses = wf; wd.particle_count = 1;
        gf.groups.attachments = af;
        gf.groups.attachment_count = 1;
        ENSURE(gf.block.kind == (XPBD_BLOCK_GROUPS | XPBD_BLOCK_F32));
        ENSURE_STATUS(xpbd_world3_add_f32(&wd, &gf.block), XPBD_STATUS_OK);
        ENSURE_STATUS(test_world3_memory_f32(&wd), XPBD_STATUS_OK);
        cf.substeps = 8;
        for (f = 0; f < 10; ++f) ENSURE_STATUS(xpbd_world3_step_f32(&wd, 1.0f / 60.0f, &cf, NULL), XPBD_STATUS_OK);
        ENSURE(fabs(af[0].force[1] - 0.5 * 9.81) < 1e-3);
        test_world3_free_f32(&wd);
    }
}
