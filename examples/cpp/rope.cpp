// A hanging rope driven entirely through the xpbd C ABI, from C++11, in
// single precision (the f32 functions) as a game engine would use them.
//
// Build with CMake (see CMakeLists.txt beside this file), with pkg-config:
//   c++ -std=c++11 examples/cpp/rope.cpp $(pkg-config --cflags --libs xpbd) -o rope
// or by hand from the repository root after `cargo c-lib`:
//   c++ -std=c++11 -Iinclude examples/cpp/rope.cpp target/release/libxpbd.a -Wl,--gc-sections -o rope
//
// The same rope as examples/c/rope.c: N particles on a vertical line (y in m,
// downwards), particle 0 pinned, one XpbdDistanceConstraintF32 (one λ) per
// link. Per substep: predict under gravity, begin_substep on every link,
// Gauss-Seidel sweeps, velocity update. At rest link i stretches by
// compliance * weight below it = α m g (N - 1 - i).
//
// Switching to the 3D rope/cloth API later: Vec below becomes a 3-vector
// (predict and velocity update run per component), the links may come from a
// mesh, and only Rope::solveLink() calls a different solve function; step(),
// check() and the substep/iteration structure stay.
#include <cmath>
#include <cstdio>

#include "xpbd.h"

namespace {

typedef float Vec;  // a position along the line (m); a 3-vector in 3D

const int N = 8;                 // particles
const int kSubsteps = 4;         // per frame
const int kIterations = 8;       // Gauss-Seidel sweeps per substep
const float kGravity = 9.81f;    // m/s², along +y (down)
const float kMass = 0.1f;        // kg per free particle
const float kRest = 0.1f;        // m, rest length of every link
const float kCompliance = 1e-3f; // m/N
const float kDamping = 2.0f;     // 1/s

// Every status an xpbd call can return, and what to do with it: true to go
// on, false to stop. On every error the call wrote nothing.
bool check(XpbdStatus s, const char* call, int link) {
    switch (s) {
    case XPBD_STATUS_OK:       // correction applied
    case XPBD_STATUS_SKIPPED:  // both ends pinned: nothing to do, not an error
        return true;
    case XPBD_STATUS_NULL_POINTER:          // a bug in the caller
    case XPBD_STATUS_INVALID_INVERSE_MASS:  // set-up errors: fix the parameters
    case XPBD_STATUS_INVALID_REST_LENGTH:
    case XPBD_STATUS_INVALID_COMPLIANCE:
    case XPBD_STATUS_INVALID_TIME_STEP:
    case XPBD_STATUS_UNREPRESENTABLE_SCALE:  // h too small for this compliance
    case XPBD_STATUS_NON_FINITE_POSITION:    // state errors: the simulation blew
    case XPBD_STATUS_ENDPOINTS_NOT_ORDERED:  // up or the rope folded; an engine
    case XPBD_STATUS_INVALID_RESULT:         // would reset this rope
    default:                                 // a code from a newer library
        std::fprintf(stderr, "%s (link %d) failed: %d, %s\n", call, link, static_cast<int>(s),
                     xpbd_status_str(s));
        return false;
    }
}

class Rope {
public:
    Rope() {
        for (int i = 0; i < N; ++i) {
            y_[i] = prev_[i] = static_cast<float>(i) * kRest;  // straight, unstretched
            v_[i] = 0.0f;
            w_[i] = i == 0 ? 0.0f : 1.0f / kMass;  // particle 0 pinned
        }
        for (XpbdDistanceConstraintF32& c : links_) c.lambda = 0.0f;
    }

    // One frame of length dt (s); false on an error (already reported).
    bool step(float dt) {
        const float h = dt / kSubsteps;  // the substep: what solve takes
        for (int s = 0; s < kSubsteps; ++s) {
            for (int i = 0; i < N; ++i) {  // 1. predict
                if (w_[i] > 0.0f) v_[i] += kGravity * h;
                prev_[i] = y_[i];
                y_[i] += v_[i] * h;
            }
            for (int i = 0; i < N - 1; ++i) {  // 2. λ = 0, once per substep
                if (!check(xpbd_distance_begin_substep_f32(&links_[i]), "begin_substep", i))
                    return false;
            }
            for (int it = 0; it < kIterations; ++it) {  // 3. Gauss-Seidel sweeps
                for (int i = 0; i < N - 1; ++i) {
                    if (!check(solveLink(i, h), "solve", i)) return false;
                }
            }
            for (int i = 0; i < N; ++i) {  // 4. velocity from corrected positions
                v_[i] = (y_[i] - prev_[i]) / h * (1.0f - kDamping * h);
            }
        }
        return true;
    }

    float stretch(int link) const { return y_[link + 1] - y_[link] - kRest; }
    Vec tip() const { return y_[N - 1]; }

private:
    // The only call that knows the rope is one-dimensional.
    XpbdStatus solveLink(int i, float h) {
        return xpbd_distance_solve_f32(&links_[i], &y_[i], &y_[i + 1], w_[i], w_[i + 1], kRest,
                                       kCompliance, h);
    }

    Vec y_[N], prev_[N];                   // m
    float v_[N], w_[N];                    // m/s, 1/kg (0 = pinned)
    XpbdDistanceConstraintF32 links_[N - 1];  // one per link: owns its λ
};

}  // namespace

int main() {
    // The library linked must be the one the header describes.
    if (xpbd_version() != XPBD_VERSION_NUMBER) {
        std::fprintf(stderr, "xpbd.h is %s but the library is %u\n", XPBD_VERSION_STRING,
                     static_cast<unsigned>(xpbd_version()));
        return 1;
    }
    std::printf("xpbd %s (C++, f32): rope of %d particles, %d substeps x %d iterations, 10 s\n",
                XPBD_VERSION_STRING, N, kSubsteps, kIterations);

    Rope rope;
    for (int frame = 0; frame < 600; ++frame) {  // 10 s at 60 Hz
        if (!rope.step(1.0f / 60.0f)) return 1;
    }

    bool ok = true;
    std::printf("link  stretch (mm)  expected a*m*g*(N-1-i) (mm)\n");
    for (int i = 0; i < N - 1; ++i) {
        const float want = kCompliance * kMass * kGravity * static_cast<float>(N - 1 - i);
        std::printf("%4d  %12.4f  %12.4f\n", i, 1e3 * static_cast<double>(rope.stretch(i)),
                    1e3 * static_cast<double>(want));
        ok = ok && std::fabs(rope.stretch(i) - want) <= 0.01f * want;  // 1 %
    }
    std::printf("tip at %.4f m (unstretched %.4f m)\n", static_cast<double>(rope.tip()),
                static_cast<double>((N - 1) * kRest));

    // A rejected call: a negative compliance. Nothing is written.
    XpbdDistanceConstraintF32 c = {0.0f};
    float a = 0.0f, b = 2.0f;
    const XpbdStatus s = xpbd_distance_solve_f32(&c, &a, &b, 1.0f, 1.0f, kRest, -1.0f, 0.01f);
    std::printf("compliance -1 is rejected: %d, %s; unchanged: %s\n", static_cast<int>(s),
                xpbd_status_str(s), a == 0.0f && b == 2.0f && c.lambda == 0.0f ? "yes" : "no");
    ok = ok && s == XPBD_STATUS_INVALID_COMPLIANCE && a == 0.0f && b == 2.0f;

    std::printf("%s\n", ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
}
