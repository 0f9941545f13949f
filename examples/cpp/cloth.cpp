// A cloth pinned at two corners, draped over a sphere, driven entirely
// through the xpbd C ABI from C++11 in single precision (the _f32 functions).
//
// Build with CMake (see CMakeLists.txt beside this file), with pkg-config:
//   c++ -std=c++11 examples/cpp/cloth.cpp $(pkg-config --cflags --libs xpbd) -o cloth
// or by hand from the repository root after `cargo c-lib`:
//   c++ -std=c++11 -Iinclude examples/cpp/cloth.cpp target/release/libxpbd.a -Wl,--gc-sections -o cloth
//
// The same scene as examples/c/cloth.c: a 10 x 10 cloth, 0.1 m spacing, flat
// in the x-z plane, the two corners of row 0 pinned, structural and shear
// links from xpbd_build_cloth3_f32, a static sphere under it; one
// xpbd_world3_step_f32 call per frame. The program checks that the pins did
// not move, no particle is inside the sphere, links stretch under 1 %, the
// cloth is at rest on the sphere, and exits non-zero otherwise.
#include <cstdio>
#include <cstring>

#include "xpbd.h"

namespace {

const int kRows = 10, kCols = 10, N = kRows * kCols;  // particles, row-major
const int kMaxLinks = 4 * N;       // >= xpbd_cloth_link_count(kRows, kCols, 1)
const float kSpacing = 0.1f;       // m
const float kMass = 0.01f;         // kg per particle: a 1 kg cloth
const float kCompliance = 1e-6f;   // m/N: nearly inextensible
const int kPins[2] = {0, kCols - 1};

// Every status an xpbd call can return, and what to do with it: true to go
// on, false to stop. `index` is the world's error_index (the particle, link,
// collider or contact concerned). On every error the step wrote nothing.
bool ok(XpbdStatus s, const char* call, size_t index) {
    switch (s) {
    case XPBD_STATUS_OK:       // done
    case XPBD_STATUS_SKIPPED:  // nothing to do: not an error
        return true;
    case XPBD_STATUS_CAPACITY_TOO_SMALL:  // more contacts than the buffer holds
    case XPBD_STATUS_NULL_POINTER:        // bugs in the caller: a missing or
    case XPBD_STATUS_ALIASED_BUFFERS:     // overlapping buffer, a bad config
    case XPBD_STATUS_INVALID_ARGUMENT:
    case XPBD_STATUS_INVALID_INVERSE_MASS:  // set-up errors: fix the data
    case XPBD_STATUS_INVALID_REST_LENGTH:
    case XPBD_STATUS_INVALID_COMPLIANCE:
    case XPBD_STATUS_INDEX_OUT_OF_RANGE:
    case XPBD_STATUS_SAME_PARTICLE:
    case XPBD_STATUS_INVALID_COLLIDER:       // NaN centre, negative radius, ...
    case XPBD_STATUS_INVALID_TIME_STEP:      // dt <= 0, NaN or infinite
    case XPBD_STATUS_UNREPRESENTABLE_SCALE:  // h too small for a compliance
    case XPBD_STATUS_NON_FINITE_POSITION:    // state errors: the simulation
    case XPBD_STATUS_NON_FINITE_VELOCITY:    // blew up or two particles of a
    case XPBD_STATUS_ZERO_LENGTH:            // link coincide; an engine would
    case XPBD_STATUS_INVALID_RESULT:         // reset this cloth
    case XPBD_STATUS_ENDPOINTS_NOT_ORDERED:  // 1D API only
    case XPBD_STATUS_NO_SUBSTEP:             // system API only
    default:                                 // a code from a newer library
        std::fprintf(stderr, "%s failed: %d, %s (index %lu)\n", call, static_cast<int>(s),
                     xpbd_status_str(s), static_cast<unsigned long>(index));
        return false;
    }
}

float dist2(const float* a, const float* b) {
    float d2 = 0.0f;
    for (int c = 0; c < 3; ++c) d2 += (a[c] - b[c]) * (a[c] - b[c]);
    return d2;
}

// The cloth owns every buffer; XpbdWorld3F32 only points at them.
struct Cloth {
    float x[N][3], v[N][3], w[N];  // m, m/s, 1/kg (0 = pinned)
    float scratch[3 * N][3];       // xpbd_step_scratch_len(N) entries
    XpbdLinkF32 links[kMaxLinks];
    XpbdContactF32 contacts[N];    // one sphere: at most one contact per particle
    XpbdSphere3F32 ball;
    XpbdWorld3F32 world;
    XpbdStepConfig3F32 config;

    // Lays the cloth out and writes its links; false on an error (reported).
    bool init() {
        for (int k = 0; k < N; ++k) {
            x[k][0] = kSpacing * static_cast<float>(k % kCols);  // column along x
            x[k][1] = 0.0f;
            x[k][2] = kSpacing * static_cast<float>(k / kCols);  // row along z
            v[k][0] = v[k][1] = v[k][2] = 0.0f;
            w[k] = k == kPins[0] || k == kPins[1] ? 0.0f : 1.0f / kMass;
        }
        const XpbdSphere3F32 sphere = {{0.45f, -0.5f, 0.3f}, 0.4f};  // centre, radius (m)
        ball = sphere;
        size_t count = 0;
        if (xpbd_cloth_link_count(kRows, kCols, 1) > static_cast<size_t>(kMaxLinks)) return false;
        if (!ok(xpbd_build_cloth3_f32(&x[0][0], kRows, kCols, 1, kCompliance, links, kMaxLinks,
                                      &count),
                "xpbd_build_cloth3_f32", 0))
            return false;
        std::memset(&world, 0, sizeof world);
        world.positions = x;
        world.velocities = v;
        world.inverse_masses = w;
        world.particle_count = N;
        world.links = links;
        world.link_count = count;
        world.spheres = &ball;
        world.sphere_count = 1;
        world.contacts = contacts;
        world.contact_capacity = N;
        world.scratch = scratch;
        world.scratch_count = xpbd_step_scratch_len(N);
        config = xpbd_step_config3_default_f32();  // g = (0, -9.81, 0)
        // Not the 32 x 4 of the C (double) version: in float that left the
        // cloth jittering at about 2 cm/s; 16 x 8 rests below 1 mm/s. Float
        // positions near 1 m move in ulps of 1.2e-7 m, so with short
        // substeps v = dx/h is coarse and damping is lost to rounding:
        // fewer, longer substeps in float (see docs/c-api.md, "Examples").
        config.substeps = 16;
        config.iterations = 8;
        config.damping = 2.0f;         // 1/s, so the cloth comes to rest
        config.particle_radius = 0.01f;  // m: the cloth's half-thickness
        config.static_friction = 0.5f;
        config.dynamic_friction = 0.3f;
        return true;
    }

    // One frame of dt seconds; false on an error (already reported).
    bool step(float dt, XpbdStepStatsF32* stats) {
        return ok(xpbd_world3_step_f32(&world, dt, &config, stats), "xpbd_world3_step_f32",
                  world.error_index);
    }
};

Cloth cloth;  // 40 KB: static rather than on the stack

}  // namespace

int main() {
    if (xpbd_version() != XPBD_VERSION_NUMBER) {
        std::fprintf(stderr, "xpbd.h is %s but the library is %u\n", XPBD_VERSION_STRING,
                     static_cast<unsigned>(xpbd_version()));
        return 1;
    }
    if (!cloth.init()) return 1;
    float start[N][3];
    std::memcpy(start, cloth.x, sizeof start);
    std::printf("xpbd %s (C++, f32): cloth %dx%d (%lu links with shear), %u substeps x %u "
                "iterations, 600 frames\n",
                XPBD_VERSION_STRING, kRows, kCols,
                static_cast<unsigned long>(cloth.world.link_count),
                static_cast<unsigned>(cloth.config.substeps),
                static_cast<unsigned>(cloth.config.iterations));
    XpbdStepStatsF32 stats;
    for (int frame = 0; frame < 600; ++frame) {  // 10 s at 60 Hz
        if (!cloth.step(1.0f / 60.0f, &stats)) return 1;
    }

    // The rest state, from squared lengths (no libm needed).
    float strain = 0.0f, speed2 = 0.0f, clearance2 = 1e30f;
    int lowest = 0;
    for (size_t k = 0; k < cloth.world.link_count; ++k) {
        const XpbdLinkF32& l = cloth.links[k];
        const float r2 = l.rest * l.rest;
        const float e = (dist2(cloth.x[l.i], cloth.x[l.j]) - r2) / (2.0f * r2);  // ~ strain
        if (e > strain) strain = e;
    }
    const float zero[3] = {0.0f, 0.0f, 0.0f};
    for (int k = 0; k < N; ++k) {
        const float s2 = dist2(cloth.v[k], zero), c2 = dist2(cloth.x[k], cloth.ball.center);
        if (s2 > speed2) speed2 = s2;
        if (c2 < clearance2) clearance2 = c2;
        if (cloth.x[k][1] < cloth.x[lowest][1]) lowest = k;
    }
    const float(&x)[N][3] = cloth.x;
    std::printf("pinned corners: (%.3f, %.3f, %.3f) and (%.3f, %.3f, %.3f) m\n",
                static_cast<double>(x[kPins[0]][0]), static_cast<double>(x[kPins[0]][1]),
                static_cast<double>(x[kPins[0]][2]), static_cast<double>(x[kPins[1]][0]),
                static_cast<double>(x[kPins[1]][1]), static_cast<double>(x[kPins[1]][2]));
    std::printf("lowest point: particle %d at y = %.3f m\n", lowest,
                static_cast<double>(x[lowest][1]));
    std::printf("contacts with the sphere: %lu; largest link strain under 1 %%: %s; at rest "
                "(< 1 cm/s): %s\n",
                static_cast<unsigned long>(stats.max_contacts), strain < 0.01f ? "yes" : "no",
                speed2 < 1e-4f ? "yes" : "no");
    const float r_min = cloth.ball.radius + cloth.config.particle_radius - 1e-3f;  // 1 mm slack
    std::printf("inside the sphere (closer than radius + particle radius - 1 mm): %s\n",
                clearance2 < r_min * r_min ? "yes" : "none");
    bool good = std::memcmp(x[kPins[0]], start[kPins[0]], sizeof x[0]) == 0 &&
                std::memcmp(x[kPins[1]], start[kPins[1]], sizeof x[0]) == 0;
    good = good && stats.max_contacts > 0 && strain < 0.01f && speed2 < 1e-4f &&
           clearance2 >= r_min * r_min;

    // A rejected call: a sphere with a negative radius. The status names the
    // collider in error_index, and nothing moves.
    cloth.ball.radius = -1.0f;
    const float y = x[lowest][1];
    const XpbdStatus s = xpbd_world3_step_f32(&cloth.world, 1.0f / 60.0f, &cloth.config, NULL);
    std::printf("radius -1 is rejected: %d, %s, collider %lu; unchanged: %s\n",
                static_cast<int>(s), xpbd_status_str(s),
                static_cast<unsigned long>(cloth.world.error_index),
                x[lowest][1] == y ? "yes" : "no");
    good = good && s == XPBD_STATUS_INVALID_COLLIDER && x[lowest][1] == y;

    std::printf("%s\n", good ? "ok" : "MISMATCH");
    return good ? 0 : 1;
}
