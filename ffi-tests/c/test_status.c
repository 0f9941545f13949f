/* Every status code through the C ABI, with state unchanged on each error. */
#include "ensure.h"

#include <float.h>
#include <math.h>

struct input {
    double a, b, wa, wb, rest, compliance, dt;
    int32_t expected;
};

static void check_one(const struct input *in, int line) {
    XpbdDistanceConstraint c = {-0.125};
    double a = in->a, b = in->b;
    int32_t got = xpbd_distance_solve(&c, &a, &b, in->wa, in->wb, in->rest, in->compliance, in->dt);
    ++xpbd_test_checks;
    if (got != in->expected) {
        ++xpbd_test_failures;
        fprintf(stderr, "test_status.c case at line %d: got %d (%s), expected %d (%s)\n", line,
                (int)got, xpbd_status_str(got), (int)in->expected, xpbd_status_str(in->expected));
    }
    if (got < 0 || got == XPBD_STATUS_SKIPPED) {
        /* Bit-identical: memcmp also distinguishes -0.0 and NaN payloads. */
        ENSURE(memcmp(&a, &in->a, sizeof a) == 0);
        ENSURE(memcmp(&b, &in->b, sizeof b) == 0);
        ENSURE_BITS64(c.lambda, -0.125);
    }
}

#define CASE(a, b, wa, wb, rest, compliance, dt, status)                          \
    do {                                                                         \
        struct input in_ = {a, b, wa, wb, rest, compliance, dt, status};         \
        check_one(&in_, __LINE__);                                               \
    } while (0)

void test_status(void) {
    const double inf = HUGE_VAL;
    const double nan = 0.0 * HUGE_VAL;

    CASE(0.0, 2.0, 1.0, 1.0, 1.0, 0.01, 0.1, XPBD_STATUS_OK);
    CASE(0.0, 2.0, 0.0, 0.0, 1.0, 0.01, 0.1, XPBD_STATUS_SKIPPED);

    CASE(nan, 2.0, 1.0, 1.0, 1.0, 0.01, 0.1, XPBD_STATUS_NON_FINITE_POSITION);
    CASE(0.0, inf, 1.0, 1.0, 1.0, 0.01, 0.1, XPBD_STATUS_NON_FINITE_POSITION);
    CASE(-inf, 2.0, 1.0, 1.0, 1.0, 0.01, 0.1, XPBD_STATUS_NON_FINITE_POSITION);

    CASE(0.0, 2.0, -1.0, 1.0, 1.0, 0.01, 0.1, XPBD_STATUS_INVALID_INVERSE_MASS);
    CASE(0.0, 2.0, 1.0, nan, 1.0, 0.01, 0.1, XPBD_STATUS_INVALID_INVERSE_MASS);
    CASE(0.0, 2.0, inf, 1.0, 1.0, 0.01, 0.1, XPBD_STATUS_INVALID_INVERSE_MASS);

    CASE(0.0, 2.0, 1.0, 1.0, 0.0, 0.01, 0.1, XPBD_STATUS_INVALID_REST_LENGTH);
    CASE(0.0, 2.0, 1.0, 1.0, -0.0, 0.01, 0.1, XPBD_STATUS_INVALID_REST_LENGTH);
    CASE(0.0, 2.0, 1.0, 1.0, -1.0, 0.01, 0.1, XPBD_STATUS_INVALID_REST_LENGTH);
    CASE(0.0, 2.0, 1.0, 1.0, inf, 0.01, 0.1, XPBD_STATUS_INVALID_REST_LENGTH);

    CASE(0.0, 2.0, 1.0, 1.0, 1.0, -0.01, 0.1, XPBD_STATUS_INVALID_COMPLIANCE);
    CASE(0.0, 2.0, 1.0, 1.0, 1.0, nan, 0.1, XPBD_STATUS_INVALID_COMPLIANCE);

    CASE(0.0, 2.0, 1.0, 1.0, 1.0, 0.01, 0.0, XPBD_STATUS_INVALID_TIME_STEP);
    CASE(0.0, 2.0, 1.0, 1.0, 1.0, 0.01, -0.1, XPBD_STATUS_INVALID_TIME_STEP);
    CASE(0.0, 2.0, 1.0, 1.0, 1.0, 0.01, inf, XPBD_STATUS_INVALID_TIME_STEP);

    CASE(2.0, 2.0, 1.0, 1.0, 1.0, 0.01, 0.1, XPBD_STATUS_ENDPOINTS_NOT_ORDERED);
    CASE(3.0, 2.0, 1.0, 1.0, 1.0, 0.01, 0.1, XPBD_STATUS_ENDPOINTS_NOT_ORDERED);
    /* Ordering is checked even when both endpoints are static. */
    CASE(3.0, 2.0, 0.0, 0.0, 1.0, 0.01, 0.1, XPBD_STATUS_ENDPOINTS_NOT_ORDERED);
    /* So is dt: a bad dt with both endpoints static is an error, not a skip. */
    CASE(0.0, 2.0, 0.0, 0.0, 1.0, 0.01, 0.0, XPBD_STATUS_INVALID_TIME_STEP);

    CASE(0.0, 2.0, 1.0, 1.0, 1.0, 0.01, 1e-200, XPBD_STATUS_UNREPRESENTABLE_SCALE);
    CASE(0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 1e-200, XPBD_STATUS_UNREPRESENTABLE_SCALE);
    CASE(0.0, 2.0, DBL_MAX, DBL_MAX, 1.0, 0.01, 0.1, XPBD_STATUS_UNREPRESENTABLE_SCALE);

    CASE(-1e308, 1e308, 1.0, 1.0, 1.0, 0.01, 0.1, XPBD_STATUS_INVALID_RESULT);

    /* The first failing check in SPEC order wins. */
    CASE(nan, 2.0, -1.0, 1.0, 0.0, -1.0, 0.0, XPBD_STATUS_NON_FINITE_POSITION);
    CASE(0.0, 2.0, -1.0, 1.0, 0.0, -1.0, 0.0, XPBD_STATUS_INVALID_INVERSE_MASS);
    CASE(0.0, 2.0, 1.0, 1.0, 0.0, -1.0, 0.0, XPBD_STATUS_INVALID_REST_LENGTH);
    CASE(2.0, 0.0, 1.0, 1.0, 1.0, -1.0, 0.0, XPBD_STATUS_INVALID_COMPLIANCE);
    CASE(2.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, XPBD_STATUS_INVALID_TIME_STEP);

    /* The codes: OK 0, SKIPPED 1, every error negative and distinct. */
    {
        const int32_t errors[] = {XPBD_STATUS_NULL_POINTER, XPBD_STATUS_NON_FINITE_POSITION,
                                  XPBD_STATUS_INVALID_INVERSE_MASS, XPBD_STATUS_INVALID_REST_LENGTH,
                                  XPBD_STATUS_INVALID_COMPLIANCE, XPBD_STATUS_INVALID_TIME_STEP,
                                  XPBD_STATUS_ENDPOINTS_NOT_ORDERED, XPBD_STATUS_UNREPRESENTABLE_SCALE,
                                  XPBD_STATUS_INVALID_RESULT, XPBD_STATUS_INDEX_OUT_OF_RANGE,
                                  XPBD_STATUS_SAME_PARTICLE, XPBD_STATUS_ZERO_LENGTH,
                                  XPBD_STATUS_ALIASED_BUFFERS, XPBD_STATUS_NO_SUBSTEP,
                                  XPBD_STATUS_INVALID_ARGUMENT, XPBD_STATUS_CAPACITY_TOO_SMALL,
                                  XPBD_STATUS_NON_FINITE_VELOCITY, XPBD_STATUS_INVALID_COLLIDER,
                                  XPBD_STATUS_UNSUPPORTED_FLAG, XPBD_STATUS_WORK_LIMIT,
                                  XPBD_STATUS_JOB_CONTRACT, XPBD_STATUS_INVALID_REST_VALUE,
                                  XPBD_STATUS_DEGENERATE, XPBD_STATUS_INVALID_CONFIG,
                                  XPBD_STATUS_INVALID_SELF_COLLISION, XPBD_STATUS_INVALID_MAX_FORCE,
                                  XPBD_STATUS_INVALID_BLOCK, XPBD_STATUS_INVALID_WIND,
                                  XPBD_STATUS_INVALID_LOCAL_SPACE};
        const size_t n = sizeof errors / sizeof errors[0];
        size_t i, j;
        ENSURE(XPBD_STATUS_OK == 0);
        ENSURE(XPBD_STATUS_SKIPPED == 1);
        ENSURE(sizeof(XpbdStatus) == 4);
        for (i = 0; i < n; ++i) {
            ENSURE(errors[i] < 0);
            for (j = i + 1; j < n; ++j) {
                ENSURE(errors[i] != errors[j]);
            }
        }
    }

    /* xpbd_status_str: a distinct static text for every code, a generic
     * one for any other integer, never NULL. */
    {
        const int32_t codes[] = {XPBD_STATUS_OK, XPBD_STATUS_SKIPPED, XPBD_STATUS_NULL_POINTER,
                                 XPBD_STATUS_NON_FINITE_POSITION, XPBD_STATUS_INVALID_INVERSE_MASS,
                                 XPBD_STATUS_INVALID_REST_LENGTH, XPBD_STATUS_INVALID_COMPLIANCE,
                                 XPBD_STATUS_INVALID_TIME_STEP, XPBD_STATUS_ENDPOINTS_NOT_ORDERED,
                                 XPBD_STATUS_UNREPRESENTABLE_SCALE, XPBD_STATUS_INVALID_RESULT,
                                 XPBD_STATUS_INDEX_OUT_OF_RANGE, XPBD_STATUS_SAME_PARTICLE,
                                 XPBD_STATUS_ZERO_LENGTH, XPBD_STATUS_ALIASED_BUFFERS,
                                 XPBD_STATUS_NO_SUBSTEP, XPBD_STATUS_INVALID_ARGUMENT,
                                 XPBD_STATUS_CAPACITY_TOO_SMALL, XPBD_STATUS_NON_FINITE_VELOCITY,
                                 XPBD_STATUS_INVALID_COLLIDER, XPBD_STATUS_UNSUPPORTED_FLAG,
                                 XPBD_STATUS_WORK_LIMIT, XPBD_STATUS_JOB_CONTRACT,
                                 XPBD_STATUS_INVALID_REST_VALUE, XPBD_STATUS_DEGENERATE,
                                 XPBD_STATUS_INVALID_CONFIG, XPBD_STATUS_INVALID_SELF_COLLISION,
                                 XPBD_STATUS_INVALID_MAX_FORCE, XPBD_STATUS_INVALID_BLOCK,
                                 XPBD_STATUS_INVALID_WIND, XPBD_STATUS_INVALID_LOCAL_SPACE};
        const int32_t unknown[] = {2, 3, -30, -100, 1000, INT32_MAX, INT32_MIN};
        const char *generic = xpbd_status_str(INT32_MIN);
        const size_t n = sizeof codes / sizeof codes[0];
        size_t i, j;
        ENSURE(generic != NULL && strlen(generic) > 0);
        for (i = 0; i < n; ++i) {
            const char *s = xpbd_status_str(codes[i]);
            ENSURE(s != NULL && strlen(s) > 0);
            ENSURE(s != NULL && strcmp(s, generic) != 0);
            for (j = i + 1; j < n; ++j) {
                ENSURE(strcmp(s, xpbd_status_str(codes[j])) != 0);
            }
        }
        ENSURE(strstr(xpbd_status_str(XPBD_STATUS_NULL_POINTER), "null") != NULL);
        ENSURE(strstr(xpbd_status_str(XPBD_STATUS_INVALID_TIME_STEP), "time step") != NULL);
        for (i = 0; i < sizeof unknown / sizeof unknown[0]; ++i) {
            const char *s = xpbd_status_str(unknown[i]);
            ENSURE(s != NULL && strcmp(s, generic) == 0);
        }
    }
}
