/* Golden figures of SPEC.md through the C ABI, bit for bit (f64). */
#include "ensure.h"

/* The SPEC's fixed case: a = 0, b = 2, wa = wb = 1, rest = 1,
 * compliance = 0.01, dt = 0.1; returns C = b - a - rest after n solves. */
static double residual_after(int n, int reset_every_iteration, double dt) {
    XpbdDistanceConstraint c = {0.0};
    double a = 0.0, b = 2.0;
    int i;
    ENSURE_STATUS(xpbd_distance_begin_substep(&c), XPBD_STATUS_OK);
    for (i = 0; i < n; ++i) {
        if (reset_every_iteration) {
            /* The bug this library exists to prevent, done on purpose. */
            ENSURE_STATUS(xpbd_distance_begin_substep(&c), XPBD_STATUS_OK);
        }
        ENSURE_STATUS(xpbd_distance_solve(&c, &a, &b, 1.0, 1.0, 1.0, 0.01, dt), XPBD_STATUS_OK);
    }
    return b - a - 1.0;
}

void test_golden(void) {
    ENSURE_BITS64(residual_after(1, 0, 0.1), 0.3333333333333335);
    ENSURE_BITS64(residual_after(10, 0, 0.1), 0.3333333333333335);
    ENSURE_BITS64(residual_after(10, 1, 0.1), 1.6935087808533922e-05);
    ENSURE_BITS64(residual_after(1, 0, 0.05), 0.6666666666666665);

    /* λ after the first solve is -1/3, and begin_substep is the only reset. */
    {
        XpbdDistanceConstraint c = {0.0};
        double a = 0.0, b = 2.0;
        ENSURE_STATUS(xpbd_distance_solve(&c, &a, &b, 1.0, 1.0, 1.0, 0.01, 0.1), XPBD_STATUS_OK);
        ENSURE(c.lambda < -0.333 && c.lambda > -0.334);
        ENSURE_STATUS(xpbd_distance_solve(&c, &a, &b, 1.0, 1.0, 1.0, 0.01, 0.1), XPBD_STATUS_OK);
        ENSURE(c.lambda != 0.0);
        ENSURE_STATUS(xpbd_distance_begin_substep(&c), XPBD_STATUS_OK);
        ENSURE_BITS64(c.lambda, 0.0);
    }

    /* A static endpoint: the other one carries the whole displacement. */
    {
        XpbdDistanceConstraint c = {0.0};
        double a = 0.0, b = 2.0;
        ENSURE_STATUS(xpbd_distance_solve(&c, &a, &b, 0.0, 1.0, 1.0, 0.0, 0.1), XPBD_STATUS_OK);
        ENSURE_BITS64(a, 0.0);
        ENSURE_BITS64(b, 1.0);
    }

    /* Both static: skipped, nothing written. */
    {
        XpbdDistanceConstraint c = {0.25};
        double a = 0.0, b = 2.0;
        ENSURE_STATUS(xpbd_distance_solve(&c, &a, &b, 0.0, 0.0, 1.0, 0.01, 0.1), XPBD_STATUS_SKIPPED);
        ENSURE_BITS64(a, 0.0);
        ENSURE_BITS64(b, 2.0);
        ENSURE_BITS64(c.lambda, 0.25);
    }
}
