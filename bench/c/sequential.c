/* Plain C sequential Gauss-Seidel distance sweeps, in layouts of their own
 * (compiled by bench/build.rs with -O3 -fno-math-errno -ffp-contract=off,
 * x86-64 baseline):
 *
 * - `plain_seq_sweep_*`: what a C engineer would write for xpbd's formula:
 *   AoS positions (3 values, no padding), an inverse-mass array, and the
 *   links as separate arrays (indices, rest, alpha~ = compliance / h^2
 *   computed once per substep, lambda): 32 B per f64 link where xpbd's
 *   `Link` takes 40 B and divides compliance / h^2 per visit. The
 *   operations are xpbd's sequential ones in the same order
 *   (src/solver, as in reference.c's `ref_seq_sweep_*`), so the results
 *   must equal xpbd's bit for bit.
 *
 * - `pbd_seq_sweep_*`: the formula of PositionBasedDynamics'
 *   `XPBD::solve_DistanceConstraint` (InteractiveComputerGraphics/
 *   PositionBasedDynamics, XPBD.cpp), re-written in plain C with that
 *   library's data layout: positions as an array of 3-vectors (Eigen's
 *   Vector3r, no padding), an array of inverse masses, and per constraint
 *   its two body indices, rest length, stiffness and lambda (the peer
 *   keeps each constraint as a C++ object behind a pointer, with a vtable
 *   and a std::vector of body indices; here they are one plain struct in
 *   an array, which only helps the reference). Per link: K = w0 + w1,
 *   n = p0 - p1, d = |n|, C = d - rest, skip when d <= 1e-6, n /= d,
 *   alpha = 1 / (stiffness dt^2), K += alpha, Kinv = 1 / K,
 *   dlambda = -Kinv (C + alpha lambda), corrections w0 n dlambda and
 *   -w1 n dlambda, each applied when its inverse mass is non-zero. The
 *   solve is a static function of this file, so gcc inlines it (the
 *   peer's call across translation units and its virtual dispatch are
 *   left out: the strongest form of its formula). Its rounding differs
 *   from xpbd's (three divisions for n, 1 / K then a product), so the
 *   bench compares its results within a tolerance, not bit for bit. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define PLAIN_SEQ(NAME, T, SQRT, TMIN)                                         \
    void NAME(T (*restrict x)[3], const T *restrict w,                         \
              const uint32_t *restrict li, const uint32_t *restrict lj,        \
              const T *restrict rest, const T *restrict alpha,                 \
              T *restrict lambda, size_t n) {                                  \
        for (size_t k = 0; k < n; ++k) {                                       \
            T *xi = x[li[k]], *xj = x[lj[k]];                                  \
            T wi = w[li[k]], wj = w[lj[k]];                                    \
            T ws = wi + wj;                                                    \
            if (ws == 0) continue;                                             \
            T d0 = xj[0] - xi[0], d1 = xj[1] - xi[1], d2 = xj[2] - xi[2];      \
            T len2 = (T)0 + d0 * d0 + d1 * d1 + d2 * d2;                       \
            if (!(len2 >= TMIN)) continue;                                     \
            T len = SQRT(len2);                                                \
            T al = alpha[k];                                                   \
            T c = len - rest[k];                                               \
            T delta = (-c - al * lambda[k]) / (ws + al);                       \
            T si = wi * delta, sj = wj * delta;                                \
            T n0 = d0 / len, n1 = d1 / len, n2 = d2 / len;                     \
            xi[0] = xi[0] - si * n0; xi[1] = xi[1] - si * n1;                  \
            xi[2] = xi[2] - si * n2;                                           \
            xj[0] = xj[0] + sj * n0; xj[1] = xj[1] + sj * n1;                  \
            xj[2] = xj[2] + sj * n2;                                           \
            lambda[k] = lambda[k] + delta;                                     \
        }                                                                      \
    }

PLAIN_SEQ(plain_seq_sweep_f64, double, sqrt, 2.2250738585072014e-308)
PLAIN_SEQ(plain_seq_sweep_f32, float, sqrtf, 1.17549435e-38f)

typedef struct {
    uint32_t bodies[2];
    double rest_length;
    double stiffness;
    double lambda;
} PbdDistanceF64;

typedef struct {
    uint32_t bodies[2];
    float rest_length;
    float stiffness;
    float lambda;
} PbdDistanceF32;

#define PBD_SOLVE(NAME, T, SQRT, FABS)                                           \
    static int NAME(const T p0[3], T inv_mass0, const T p1[3], T inv_mass1,      \
                    T rest_length, T stiffness, T dt, T *lambda, T corr0[3],     \
                    T corr1[3]) {                                                \
        T k = inv_mass0 + inv_mass1;                                             \
        T n[3] = {p0[0] - p1[0], p0[1] - p1[1], p0[2] - p1[2]};                  \
        T d = SQRT(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);                     \
        T c = d - rest_length;                                                   \
        if (d > (T)1e-6) {                                                       \
            n[0] /= d; n[1] /= d; n[2] /= d;                                     \
        } else {                                                                 \
            corr0[0] = corr0[1] = corr0[2] = 0;                                  \
            corr1[0] = corr1[1] = corr1[2] = 0;                                  \
            return 1;                                                            \
        }                                                                        \
        T alpha = 0;                                                             \
        if (stiffness != 0) {                                                    \
            alpha = (T)1 / (stiffness * dt * dt);                                \
            k += alpha;                                                          \
        }                                                                        \
        T kinv = 0;                                                              \
        if (FABS(k) > (T)1e-6) {                                                 \
            kinv = (T)1 / k;                                                     \
        } else {                                                                 \
            corr0[0] = corr0[1] = corr0[2] = 0;                                  \
            corr1[0] = corr1[1] = corr1[2] = 0;                                  \
            return 1;                                                            \
        }                                                                        \
        T delta_lambda = -kinv * (c + alpha * *lambda);                          \
        *lambda += delta_lambda;                                                 \
        T pt[3] = {n[0] * delta_lambda, n[1] * delta_lambda, n[2] * delta_lambda}; \
        for (int a = 0; a < 3; ++a) {                                            \
            corr0[a] = inv_mass0 * pt[a];                                        \
            corr1[a] = -inv_mass1 * pt[a];                                       \
        }                                                                        \
        return 1;                                                                \
    }

#define PBD_SWEEP(NAME, SOLVE, T, LINK)                                          \
    void NAME(T (*restrict x)[3], const T *restrict inv_mass, LINK *restrict c,  \
              size_t n, T dt) {                                                  \
        for (size_t k = 0; k < n; ++k) {                                         \
            uint32_t i = c[k].bodies[0], j = c[k].bodies[1];                     \
            T corr0[3], corr1[3];                                                \
            if (SOLVE(x[i], inv_mass[i], x[j], inv_mass[j], c[k].rest_length,    \
                      c[k].stiffness, dt, &c[k].lambda, corr0, corr1)) {         \
                if (inv_mass[i] != 0) {                                          \
                    x[i][0] += corr0[0]; x[i][1] += corr0[1]; x[i][2] += corr0[2]; \
                }                                                                \
                if (inv_mass[j] != 0) {                                          \
                    x[j][0] += corr1[0]; x[j][1] += corr1[1]; x[j][2] += corr1[2]; \
                }                                                                \
            }                                                                    \
        }                                                                        \
    }

PBD_SOLVE(pbd_solve_distance_f64, double, sqrt, fabs)
PBD_SOLVE(pbd_solve_distance_f32, float, sqrtf, fabsf)
PBD_SWEEP(pbd_seq_sweep_f64, pbd_solve_distance_f64, double, PbdDistanceF64)
PBD_SWEEP(pbd_seq_sweep_f32, pbd_solve_distance_f32, float, PbdDistanceF32)
