/* Negative controls for .ci/steps/65-sanitizers.sh: deliberate misuse of the
 * C API that the tools must catch *inside the Rust library*, proving that
 * the clean runs of the real C test program mean something.
 *
 *   negative oob     b points one past a 1-element heap array: ASan (the
 *                    archive is built with -Zsanitizer=address) must report a
 *                    heap-buffer-overflow in xpbd's read of *b.
 *   negative uninit  a is uninitialised: valgrind must report a conditional
 *                    jump on an uninitialised value in xpbd's checks.
 *
 * Not part of the C test program (ffi-tests/c); never run it expecting 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpbd.h"

int main(int argc, char **argv) {
    XpbdDistanceConstraint c = {0.0};
    XpbdStatus s;
    if (argc != 2) {
        return 2;
    }
    if (strcmp(argv[1], "oob") == 0) {
        double *one = malloc(sizeof *one);
        if (one == NULL) {
            return 2;
        }
        *one = 0.0;
        s = xpbd_distance_solve(&c, one, one + 1, 1.0, 1.0, 1.0, 0.01, 0.1);
        free(one);
    } else if (strcmp(argv[1], "uninit") == 0) {
        double *a = malloc(sizeof *a); /* never written */
        double b = 2.0;
        if (a == NULL) {
            return 2;
        }
        s = xpbd_distance_solve(&c, a, &b, 1.0, 1.0, 1.0, 0.01, 0.1);
        free(a);
    } else {
        return 2;
    }
    printf("status %d\n", (int)s);
    return 0;
}
