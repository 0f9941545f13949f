/* Field colliders (XpbdHeightfield3, XpbdSdf3) through xpbd_world3_step
 * and xpbd_world3_step_f32: a 3 × 3 cloth dropped at 10 m/s onto a tilted
 * heightfield (4 × 4 nodes) and free particles onto a signed distance
 * field sphere (8³ nodes, φ = |p − c| − R), one substep per frame: no
 * particle ends inside a surface, everything comes to rest on it. A bad
 * field (a NaN sample, a sample range past sample_count, a bad shape or
 * pose) is XPBD_STATUS_INVALID_COLLIDER naming its collider index (planes,
 * spheres, capsules, boxes, then heightfields and SDFs), NULL and aliased
 * field arrays are refused, and every refusal leaves positions,
 * velocities and the output byte for byte as they were. The scenario
 * itself (xpbd_c_fields_scenario[_f32]) is compared bit for bit with the
 * Rust step by ffi-tests/tests/step_trajectory/fields.rs. */
#include <math.h>

#include "ensure.h"

/* Particles: the cloth's 9, then 5 over the sphere. Must match
 * ffi-tests/src/lib.rs (FIELDS_N). */
#define FIELDS_CLOTH 9
#define FIELDS_N 14
#define FIELDS_LINKS 12
#define FIELDS_SDF_N 8
#define FIELDS_HF_SAMPLES 16
#define FIELDS_SAMPLES (FIELDS_HF_SAMPLES + FIELDS_SDF_N * FIELDS_SDF_N * FIELDS_SDF_N)

#define T double
#define TY(n) n
#define FN(n) n
#define LIT(x) x
#define TOL 1e-6
#include "fields_impl.h"
#undef T
#undef TY
#undef FN
#undef LIT
#undef TOL

#define T float
#define TY(n) n##F32
#define FN(n) n##_f32
#define LIT(x) x##f
#define TOL 1e-6
#include "fields_impl.h"
#undef T
#undef TY
#undef FN
#undef LIT
#undef TOL

void test_fields(void) {
    test_fields_of();
    test_fields_of_f32();
}
