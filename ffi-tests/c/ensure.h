/* Minimal ENSURE-style checks for the xpbd C tests (Box2D v3 style).
 * Each failed check prints file:line and the expression and counts a
 * failure; tests keep going so one run reports every failure. */
#ifndef XPBD_TEST_ENSURE_H
#define XPBD_TEST_ENSURE_H

#include <stdio.h>
#include <string.h>
#include <stdint.h>

#include "xpbd.h"

extern int xpbd_test_failures;
extern int xpbd_test_checks;

#define ENSURE(cond)                                                             \
    do {                                                                         \
        ++xpbd_test_checks;                                                      \
        if (!(cond)) {                                                           \
            ++xpbd_test_failures;                                                \
            fprintf(stderr, "%s:%d: ENSURE failed: %s\n", __FILE__, __LINE__,    \
                    #cond);                                                      \
        }                                                                        \
    } while (0)

/* Status equality, printing both codes and their descriptions on failure. */
#define ENSURE_STATUS(got, want)                                                 \
    do {                                                                         \
        int32_t got_ = (int32_t)(got);                                           \
        int32_t want_ = (int32_t)(want);                                         \
        ++xpbd_test_checks;                                                      \
        if (got_ != want_) {                                                     \
            ++xpbd_test_failures;                                                \
            fprintf(stderr, "%s:%d: status %d (%s), expected %d (%s)\n",         \
                    __FILE__, __LINE__, (int)got_, xpbd_status_str(got_),        \
                    (int)want_, xpbd_status_str(want_));                         \
        }                                                                        \
    } while (0)

/* Bit-exact equality of two doubles (compares the IEEE-754 bits). */
#define ENSURE_BITS64(got, want)                                                 \
    do {                                                                         \
        double g_ = (got), w_ = (want);                                          \
        ++xpbd_test_checks;                                                      \
        if (memcmp(&g_, &w_, sizeof g_) != 0) {                                  \
            ++xpbd_test_failures;                                                \
            fprintf(stderr, "%s:%d: %s = %.17g, expected bits of %.17g\n",       \
                    __FILE__, __LINE__, #got, g_, w_);                           \
        }                                                                        \
    } while (0)

/* Bit-exact equality of two floats. */
#define ENSURE_BITS32(got, want)                                                 \
    do {                                                                         \
        float g_ = (got), w_ = (want);                                           \
        ++xpbd_test_checks;                                                      \
        if (memcmp(&g_, &w_, sizeof g_) != 0) {                                  \
            ++xpbd_test_failures;                                                \
            fprintf(stderr, "%s:%d: %s = %.9g, expected bits of %.9g\n",         \
                    __FILE__, __LINE__, #got, (double)g_, (double)w_);           \
        }                                                                        \
    } while (0)

/* One function per test area, each defined in its test_*.c file. */
void test_golden(void);
void test_status(void);
void test_null(void);
void test_alias(void);
void test_f32(void);
void test_system(void);
void test_system_null(void);
void test_step(void);
void test_version(void);
void test_colored(void);
void test_fenv(void);
void test_groups(void);
void test_tethers(void);
void test_attach(void);
void test_engine(void);
void test_self(void);
void test_tear(void);
void test_colored_step(void);

#endif
