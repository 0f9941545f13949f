/* The header's version macros and xpbd_version() describe the same release. */
#include "ensure.h"

void test_version(void) {
    char text[32];
    uint32_t v = xpbd_version();
    ENSURE(v == (uint32_t)XPBD_VERSION_NUMBER);
    ENSURE(v / 10000u == (uint32_t)XPBD_VERSION_MAJOR);
    ENSURE(v / 100u % 100u == (uint32_t)XPBD_VERSION_MINOR);
    ENSURE(v % 100u == (uint32_t)XPBD_VERSION_PATCH);
    sprintf(text, "%d.%d.%d", XPBD_VERSION_MAJOR, XPBD_VERSION_MINOR, XPBD_VERSION_PATCH);
    /* XPBD_VERSION_STRING may carry a pre-release suffix after X.Y.Z. */
    ENSURE(strncmp(XPBD_VERSION_STRING, text, strlen(text)) == 0);
}
