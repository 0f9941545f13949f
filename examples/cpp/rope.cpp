// A hanging 3D rope driven entirely through the xpbd C ABI, from C++11, in
// single precision (the _f32 functions) as a game engine would use them.
//
// Build with CMake (see CMakeLists.txt beside this file), with pkg-config:
//   c++ -std=c++11 examples/cpp/rope.cpp $(pkg-config --cflags --libs xpbd) -o rope
// or by hand from the repository root after `cargo c-lib`:
//   c++ -std=c++11 -Iinclude examples/cpp/rope.cpp target/release/libxpbd.a -Wl,--gc-sections -o rope
//
// The same rope as examples/c/rope.c: N particles 0.1 m apart on a slanted
// line, particle 0 pinned, tension-only links from xpbd_build_rope3_f32, one
// xpbd_world3_step_f32 call per frame, the library's memory a static buffer
// sized by xpbd_world3_requirements_f32. At rest link i stretches by
// compliance * weight below it = α m g (N - 1 - i) and the tip hangs right
// below the pin; the program checks both and exits non-zero otherwise.
#include <cmath>
#include <cstdio>

#include "xpbd.h"

namespace {

const int N = 8;                  // particles
const float kMass = 0.1f;         // kg per free particle
const float kSpacing = 0.1f;      // m, rest length of every link
const float kCompliance = 1e-3f;  // m/N

// Every status an xpbd call can return, and what to do with it: true to go
// on, false to stop. `index` and `field` are the world's error_index (the
// particle, link, collider, or the size needed) and error_field (the
// XPBD_FIELD_* value concerned). On every error the step wrote nothing.
bool ok(XpbdStatus s, const char* call, size_t index, int32_t field) {
    switch (s) {
    case XPBD_STATUS_OK:       // done
    case XPBD_STATUS_SKIPPED:  // nothing to do (both ends pinned): not an error
        return true;
    case XPBD_STATUS_NULL_POINTER:        // bugs in the caller: a missing
    case XPBD_STATUS_ALIASED_BUFFERS:     // or overlapping buffer, a bad
    case XPBD_STATUS_INVALID_ARGUMENT:    // argument or block, too little
    case XPBD_STATUS_CAPACITY_TOO_SMALL:  // memory (field MEMORY: index is
    case XPBD_STATUS_INVALID_BLOCK:       // the bytes needed)
    case XPBD_STATUS_INVALID_CONFIG:      // field: which config value
    case XPBD_STATUS_INVALID_INVERSE_MASS:  // set-up errors: fix the data
    case XPBD_STATUS_INVALID_REST_LENGTH:
    case XPBD_STATUS_INVALID_COMPLIANCE:
    case XPBD_STATUS_INDEX_OUT_OF_RANGE:
    case XPBD_STATUS_SAME_PARTICLE:
    case XPBD_STATUS_INVALID_COLLIDER:
    case XPBD_STATUS_INVALID_SELF_COLLISION:
    case XPBD_STATUS_INVALID_MAX_FORCE:
    case XPBD_STATUS_INVALID_TIME_STEP:      // dt <= 0, NaN or infinite
    case XPBD_STATUS_UNREPRESENTABLE_SCALE:  // h too small for a compliance
    case XPBD_STATUS_NON_FINITE_POSITION:    // state errors: the simulation
    case XPBD_STATUS_NON_FINITE_VELOCITY:    // blew up or two particles of a
    case XPBD_STATUS_ZERO_LENGTH:            // link coincide; an engine would
    case XPBD_STATUS_INVALID_RESULT:         // reset this rope
    case XPBD_STATUS_ENDPOINTS_NOT_ORDERED:  // 1D API only
    case XPBD_STATUS_NO_SUBSTEP:             // system API only
    default:                                 // a code from a newer library
        std::fprintf(stderr, "%s failed: %d, %s (index %lu, field %d)\n", call, static_cast<int>(s),
                     xpbd_status_str(s), static_cast<unsigned long>(index), static_cast<int>(field));
        return false;
    }
}

// The rope owns every buffer, the library's memory too; XpbdWorld3F32 only
// points at them.
class Rope {
public:
    Rope() : world_(xpbd_world3_default_f32()), config_(xpbd_step_config3_default_f32()) {
        // config_: g = (0, -9.81, 0), set below to 8 substeps of <= 20 iterations
        for (int k = 0; k < N; ++k) {
            const float s = kSpacing * static_cast<float>(k);
            x_[k][0] = 0.6f * s;  // straight, unstretched, slanted in x and z
            x_[k][1] = 0.0f;
            x_[k][2] = 0.8f * s;
            v_[k][0] = v_[k][1] = v_[k][2] = 0.0f;
            w_[k] = k == 0 ? 0.0f : 1.0f / kMass;  // particle 0 pinned
        }
        world_.positions = x_;
        world_.velocities = v_;
        world_.inverse_masses = w_;
        world_.particle_count = N;
        world_.links = links_;  // no feature block: particles and links only
        config_.substeps = 8;
        config_.iterations = 20;     // a budget:
        config_.tolerance = 1e-6f;   // most substeps stop much earlier
        config_.damping = 2.0f;      // 1/s, so the swinging dies out
    }

    // Writes the links and lends the world its memory; false on an error
    // (already reported).
    bool init() {
        size_t count = 0;
        if (!ok(xpbd_build_rope3_f32(&x_[0][0], N, kCompliance, links_, N - 1, &count),
                "xpbd_build_rope3_f32", 0, XPBD_FIELD_NONE))
            return false;
        for (size_t k = 0; k < count; ++k) links_[k].flags = XPBD_LINK_TENSION_ONLY;
        world_.link_count = count;
        XpbdRequirements needs;
        if (!ok(xpbd_world3_requirements_f32(&world_, &needs), "xpbd_world3_requirements_f32",
                world_.error_index, world_.error_field))
            return false;
        if (needs.memory_size > sizeof memory_) {  // 3 N scratch points and N stamps: 320 bytes
            std::fprintf(stderr, "the world needs %lu bytes of memory\n",
                         static_cast<unsigned long>(needs.memory_size));
            return false;
        }
        world_.memory = memory_;
        world_.memory_size = sizeof memory_;
        return true;
    }

    // One frame of dt seconds; false on an error (already reported).
    bool step(float dt) {
        return ok(xpbd_world3_step_f32(&world_, dt, &config_, &stats_), "xpbd_world3_step_f32",
                  world_.error_index, world_.error_field);
    }

    float stretch(int link) const {
        float d2 = 0.0f;
        for (int c = 0; c < 3; ++c) {
            const float d = x_[link + 1][c] - x_[link][c];
            d2 += d * d;
        }
        return std::sqrt(d2) - kSpacing;
    }
    const float* tip() const { return x_[N - 1]; }
    const XpbdStepStatsF32& stats() const { return stats_; }
    XpbdWorld3F32* world() { return &world_; }
    const XpbdStepConfig3F32* config() const { return &config_; }

private:
    float x_[N][3], v_[N][3], w_[N];  // m, m/s, 1/kg (0 = pinned)
    double memory_[64];               // 512 bytes, 8-aligned (XPBD_MEMORY_ALIGN)
    XpbdLinkF32 links_[N - 1];
    XpbdWorld3F32 world_;
    XpbdStepConfig3F32 config_;
    XpbdStepStatsF32 stats_;
};

}  // namespace

int main() {
    // The library linked must be the one the header describes.
    if (xpbd_version() != XPBD_VERSION_NUMBER) {
        std::fprintf(stderr, "xpbd.h is %s but the library is %u\n", XPBD_VERSION_STRING,
                     static_cast<unsigned>(xpbd_version()));
        return 1;
    }
    Rope rope;
    if (!rope.init()) return 1;
    std::printf("xpbd %s (C++, f32): 3D rope of %d particles, %u substeps x <= %u iterations, "
                "600 frames\n",
                XPBD_VERSION_STRING, N, static_cast<unsigned>(rope.config()->substeps),
                static_cast<unsigned>(rope.config()->iterations));
    for (int frame = 0; frame < 600; ++frame) {  // 10 s at 60 Hz
        if (!rope.step(1.0f / 60.0f)) return 1;
    }
    std::printf("last frame: %u of %u substeps converged\n",
                static_cast<unsigned>(rope.stats().converged_substeps),
                static_cast<unsigned>(rope.stats().substeps));

    bool good = true;
    std::printf("link  stretch (mm)  expected a*m*g*(N-1-i) (mm)\n");
    for (int i = 0; i < N - 1; ++i) {
        const float want = kCompliance * kMass * 9.81f * static_cast<float>(N - 1 - i);
        std::printf("%4d  %12.4f  %12.4f\n", i, 1e3 * static_cast<double>(rope.stretch(i)),
                    1e3 * static_cast<double>(want));
        good = good && std::fabs(rope.stretch(i) - want) <= 0.01f * want;  // 1 %
    }
    const float* tip = rope.tip();
    const float off = std::sqrt(tip[0] * tip[0] + tip[2] * tip[2]);
    std::printf("tip %.4f m below the pin, %.4f m off the vertical (unstretched length %.4f m)\n",
                -static_cast<double>(tip[1]), static_cast<double>(off),
                static_cast<double>((N - 1) * kSpacing));
    good = good && off < 1e-4f;

    // A rejected call: substeps = 0. The status and the world's error_field
    // say why, and nothing moves.
    XpbdStepConfig3F32 bad = *rope.config();
    bad.substeps = 0;
    const float y = tip[1];
    const XpbdStatus s = xpbd_world3_step_f32(rope.world(), 1.0f / 60.0f, &bad, NULL);
    const int32_t field = rope.world()->error_field;
    std::printf("substeps = 0 is rejected: %d, %s (field %d); tip unchanged: %s\n",
                static_cast<int>(s), xpbd_status_str(s), static_cast<int>(field), tip[1] == y ? "yes" : "no");
    good = good && s == XPBD_STATUS_INVALID_CONFIG && field == XPBD_FIELD_SUBSTEPS && tip[1] == y;

    std::printf("%s\n", good ? "ok" : "MISMATCH");
    return good ? 0 : 1;
}
