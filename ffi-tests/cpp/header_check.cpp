// The committed header must compile as C++ (-std=c++11 -Wall -Wextra
// -Wpedantic -Werror) and be usable without casts.
#include "xpbd.h"

extern "C" int xpbd_cpp_header_check(void);

extern "C" int xpbd_cpp_header_check(void) {
    XpbdDistanceConstraint c = {0.0};
    double a = 0.0, b = 2.0;
    XpbdStatus s = xpbd_distance_solve(&c, &a, &b, 1.0, 1.0, 1.0, 0.01, 0.1);
    return s == XPBD_STATUS_OK ? 0 : 1;
}
