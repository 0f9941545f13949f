/* Aliased pointers are legal C: a == b must be rejected cleanly as
 * ENDPOINTS_NOT_ORDERED (never two mutable references in Rust). */
#include "ensure.h"

void test_alias(void) {
    {
        XpbdDistanceConstraint c = {0.0};
        double x = 1.0;
        ENSURE_STATUS(xpbd_distance_solve(&c, &x, &x, 1.0, 1.0, 1.0, 0.01, 0.1),
                      XPBD_STATUS_ENDPOINTS_NOT_ORDERED);
        ENSURE_BITS64(x, 1.0);
        ENSURE_BITS64(c.lambda, 0.0);
        /* Both static and aliased: still an ordering error, not a skip. */
        ENSURE_STATUS(xpbd_distance_solve(&c, &x, &x, 0.0, 0.0, 1.0, 0.01, 0.1),
                      XPBD_STATUS_ENDPOINTS_NOT_ORDERED);
        ENSURE_BITS64(x, 1.0);
    }
    {
        XpbdDistanceConstraintF32 c = {0.0f};
        float x = 1.0f;
        ENSURE_STATUS(xpbd_distance_solve_f32(&c, &x, &x, 1.0f, 1.0f, 1.0f, 0.01f, 0.1f),
                      XPBD_STATUS_ENDPOINTS_NOT_ORDERED);
        ENSURE_BITS32(x, 1.0f);
        ENSURE_BITS32(c.lambda, 0.0f);
    }
    {
        /* Endpoints inside one caller array, adjacent: the ordinary layout. */
        XpbdDistanceConstraint c = {0.0};
        double x[2] = {0.0, 2.0};
        ENSURE_STATUS(xpbd_distance_solve(&c, &x[0], &x[1], 1.0, 1.0, 1.0, 0.01, 0.1), XPBD_STATUS_OK);
        ENSURE_BITS64(x[1] - x[0] - 1.0, 0.3333333333333335);
        /* Swapped pointers make b < a: rejected, nothing written. */
        ENSURE_STATUS(xpbd_distance_solve(&c, &x[1], &x[0], 1.0, 1.0, 1.0, 0.01, 0.1),
                      XPBD_STATUS_ENDPOINTS_NOT_ORDERED);
        ENSURE_BITS64(x[1] - x[0] - 1.0, 0.3333333333333335);
    }
}
