/* The f32 entry points: the same equation evaluated in binary32. */
#include "ensure.h"

#include <math.h>

/* The same formula written inline in C (float, no contraction), to compare
 * bit for bit with the library's f32 path. */
static void reference_f32(float *a, float *b, float *lambda, float wa, float wb, float rest,
                          float compliance, float dt) {
    float alpha = compliance / (dt * dt);
    float denominator = wa + wb + alpha;
    float c = *b - *a - rest;
    float delta = (-c - alpha * *lambda) / denominator;
    *a = *a - wa * delta;
    *b = *b + wb * delta;
    *lambda = *lambda + delta;
}

void test_f32(void) {
    XpbdDistanceConstraintF32 c = {0.0f};
    float a = 0.0f, b = 2.0f;
    float ra = 0.0f, rb = 2.0f, rl = 0.0f;
    int i;
    ENSURE_STATUS(xpbd_distance_begin_substep_f32(&c), XPBD_STATUS_OK);
    for (i = 0; i < 10; ++i) {
        ENSURE_STATUS(xpbd_distance_solve_f32(&c, &a, &b, 1.0f, 1.0f, 1.0f, 0.01f, 0.1f), XPBD_STATUS_OK);
        reference_f32(&ra, &rb, &rl, 1.0f, 1.0f, 1.0f, 0.01f, 0.1f);
        ENSURE_BITS32(a, ra);
        ENSURE_BITS32(b, rb);
        ENSURE_BITS32(c.lambda, rl);
    }
    /* α̃ = 0.01f/0.1f² is close to, not exactly, 1: the stretch is near 1/3. */
    ENSURE(fabs((double)(b - a - 1.0f) - 1.0 / 3.0) < 1e-5);

    {
        /* Rejections leave state bit-identical in f32 too. */
        XpbdDistanceConstraintF32 k = {0.75f};
        float x = 0.0f, y = 2.0f;
        ENSURE_STATUS(xpbd_distance_solve_f32(&k, &x, &y, 1.0f, 1.0f, 1.0f, 0.01f, 1e-30f),
                      XPBD_STATUS_UNREPRESENTABLE_SCALE);
        ENSURE_STATUS(xpbd_distance_solve_f32(&k, &x, &y, 1.0f, 1.0f, 1.0f, 0.01f, (float)HUGE_VAL),
                      XPBD_STATUS_INVALID_TIME_STEP);
        ENSURE_STATUS(xpbd_distance_solve_f32(&k, &x, &y, 1.0f, 1.0f, 1.0f, -0.01f, 0.1f),
                      XPBD_STATUS_INVALID_COMPLIANCE);
        ENSURE_STATUS(xpbd_distance_solve_f32(&k, &x, &y, 0.0f, 0.0f, 1.0f, 0.01f, 0.1f),
                      XPBD_STATUS_SKIPPED);
        {
            float lo = -3e38f, hi = 3e38f;
            ENSURE_STATUS(xpbd_distance_solve_f32(&k, &lo, &hi, 1.0f, 1.0f, 1.0f, 0.01f, 0.1f),
                          XPBD_STATUS_INVALID_RESULT);
            ENSURE_BITS32(lo, -3e38f);
            ENSURE_BITS32(hi, 3e38f);
        }
        ENSURE_BITS32(x, 0.0f);
        ENSURE_BITS32(y, 2.0f);
        ENSURE_BITS32(k.lambda, 0.75f);
    }
}
