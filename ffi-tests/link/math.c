/* A C program that calls the C library's math functions and xpbd, linked
 * against the raw archive (`cargo c-lib`) with the documented flags by CI
 * step 30. The archive carries compiler_builtins' weak `fmod`, `sqrt`,
 * `floor`, ...: a program calling `fmod` pulls such a member in before `-lm`
 * is read, and that member's unwind table names `rust_eh_personality`, which
 * the archive must define (it did not: the link failed). The calls go
 * through volatile function pointers so that every one is a real reference
 * to the symbol, whatever the compiler folds. */
#include <math.h>
#include <stdio.h>

#include "xpbd.h"

static int failures;

static void check(const char *what, double got, double want) {
    if (got != want) {
        printf("FAIL %s: %.17g, expected %.17g\n", what, got, want);
        failures++;
    }
}

int main(void) {
    double (*volatile fmod_)(double, double) = fmod;
    double (*volatile sin_)(double) = sin;
    double (*volatile sqrt_)(double) = sqrt;
    double (*volatile floor_)(double) = floor;
    /* fmod is exact: these are the only right answers. */
    check("fmod(5.5, 2)", fmod_(5.5, 2.0), 1.5);
    check("fmod(-7.25, 2)", fmod_(-7.25, 2.0), -1.25);
    check("fmod(1e300, 3)", fmod_(1e300, 3.0), 0.0);
    check("fmod(0.1, 0.03)", fmod_(0.1, 0.03), 0.010000000000000009);
    check("sqrt(2)", sqrt_(2.0), 1.4142135623730951);
    check("floor(-2.5)", floor_(-2.5), -3.0);
    {
        double s = sin_(0.5), want = 0.479425538604203;
        if (!(fabs(s - want) <= 1e-15)) {
            printf("FAIL sin(0.5): %.17g\n", s);
            failures++;
        }
    }
    if (xpbd_version() != XPBD_VERSION_NUMBER) {
        printf("FAIL xpbd_version: %u\n", (unsigned)xpbd_version());
        failures++;
    }
    printf("math through the raw archive: %s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
