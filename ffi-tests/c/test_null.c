/* NULL pointers: XPBD_STATUS_NULL_POINTER, and nothing written anywhere. */
#include "ensure.h"

void test_null(void) {
    XpbdDistanceConstraint c = {0.5};
    XpbdDistanceConstraintF32 cf = {0.5f};
    double a = 0.0, b = 2.0;
    float af = 0.0f, bf = 2.0f;

    ENSURE_STATUS(xpbd_distance_begin_substep(NULL), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_distance_begin_substep_f32(NULL), XPBD_STATUS_NULL_POINTER);

    ENSURE_STATUS(xpbd_distance_solve(NULL, &a, &b, 1.0, 1.0, 1.0, 0.01, 0.1), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_distance_solve(&c, NULL, &b, 1.0, 1.0, 1.0, 0.01, 0.1), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_distance_solve(&c, &a, NULL, 1.0, 1.0, 1.0, 0.01, 0.1), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_distance_solve(NULL, NULL, NULL, 1.0, 1.0, 1.0, 0.01, 0.1), XPBD_STATUS_NULL_POINTER);
    /* NULL is checked before any value: even with bad values the code is NULL_POINTER. */
    ENSURE_STATUS(xpbd_distance_solve(&c, NULL, &b, -1.0, 1.0, 0.0, -1.0, 0.0), XPBD_STATUS_NULL_POINTER);
    ENSURE_BITS64(a, 0.0);
    ENSURE_BITS64(b, 2.0);
    ENSURE_BITS64(c.lambda, 0.5);

    ENSURE_STATUS(xpbd_distance_solve_f32(NULL, &af, &bf, 1.0f, 1.0f, 1.0f, 0.01f, 0.1f), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_distance_solve_f32(&cf, NULL, &bf, 1.0f, 1.0f, 1.0f, 0.01f, 0.1f), XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_distance_solve_f32(&cf, &af, NULL, 1.0f, 1.0f, 1.0f, 0.01f, 0.1f), XPBD_STATUS_NULL_POINTER);
    ENSURE_BITS32(af, 0.0f);
    ENSURE_BITS32(bf, 2.0f);
    ENSURE_BITS32(cf.lambda, 0.5f);
}
