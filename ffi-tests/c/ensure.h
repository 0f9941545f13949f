/* Minimal ENSURE-style checks for the xpbd C tests (Box2D v3 style).
 * Each failed check prints file:line and the expression and counts a
 * failure; tests keep going so one run reports every failure. */
#ifndef XPBD_TEST_ENSURE_H
#define XPBD_TEST_ENSURE_H

#include <stdio.h>
#include <stdlib.h>
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

/* (Re)sizes a world's memory for its particles, links and blocks:
 * xpbd_world3_requirements, then malloc (8-aligned, XPBD_MEMORY_ALIGN).
 * Call it after the blocks are added and again when they change; free the
 * memory with test_world3_free. Returns the requirements' status. */
static inline int32_t test_world3_memory(XpbdWorld3 *world) {
    XpbdRequirements req;
    int32_t s = xpbd_world3_requirements(world, &req);
    free(world->memory);
    world->memory = NULL;
    world->memory_size = 0;
    if (s != XPBD_STATUS_OK) return s;
    world->memory = malloc(req.memory_size > 0 ? req.memory_size : 1);
    world->memory_size = world->memory != NULL ? req.memory_size : 0;
    return world->memory != NULL ? XPBD_STATUS_OK : XPBD_STATUS_CAPACITY_TOO_SMALL;
}

static inline int32_t test_world3_memory_f32(XpbdWorld3F32 *world) {
    XpbdRequirements req;
    int32_t s = xpbd_world3_requirements_f32(world, &req);
    free(world->memory);
    world->memory = NULL;
    world->memory_size = 0;
    if (s != XPBD_STATUS_OK) return s;
    world->memory = malloc(req.memory_size > 0 ? req.memory_size : 1);
    world->memory_size = world->memory != NULL ? req.memory_size : 0;
    return world->memory != NULL ? XPBD_STATUS_OK : XPBD_STATUS_CAPACITY_TOO_SMALL;
}

static inline void test_world3_free(XpbdWorld3 *world) {
    free(world->memory);
    world->memory = NULL;
    world->memory_size = 0;
}

static inline void test_world3_free_f32(XpbdWorld3F32 *world) {
    free(world->memory);
    world->memory = NULL;
    world->memory_size = 0;
}

/* The bare step configuration: xpbd_step_config3_default() without its
 * damping, particle radius and friction (the defaults before issue 33):
 * what the tests written against those defaults assume. */
static inline XpbdStepConfig3 test_bare_config3(void) {
    XpbdStepConfig3 c = xpbd_step_config3_default();
    c.damping = 0.0;
    c.particle_radius = 0.0;
    c.static_friction = 0.0;
    c.dynamic_friction = 0.0;
    return c;
}

static inline XpbdStepConfig3F32 test_bare_config3_f32(void) {
    XpbdStepConfig3F32 c = xpbd_step_config3_default_f32();
    c.damping = 0.0f;
    c.particle_radius = 0.0f;
    c.static_friction = 0.0f;
    c.dynamic_friction = 0.0f;
    return c;
}

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
void test_skin(void);
void test_wind(void);
void test_local_space(void);
void test_engine(void);
void test_self(void);
void test_tear(void);
void test_colored_step(void);
void test_causes(void);
void test_fields(void);

#endif
