/* Hand-written C reference kernels for the xpbd benchmark.
 *
 * Compiled by bench/build.rs with -O3 -fno-math-errno -ffp-contract=off for
 * the x86-64 baseline (no -march), the same ISA level as the Rust code.
 * Each kernel does the arithmetic of xpbd's sweep (same operations, same
 * order, no fused multiply-add), so its results must equal xpbd's bit for
 * bit: the bench checks that, which proves both did the same work. What the
 * reference leaves out is what a bare kernel would: input validation,
 * finiteness checks on results, statistics. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "xpbd.h"

/* ---- Sequential Gauss-Seidel over AoS particles and link structs ---- */

#define SEQ_SWEEP(NAME, T, LINK, SQRT, TMIN)                                  \
    void NAME(T (*x)[3], const T *w, LINK *links, size_t n, T h) {            \
        const T h2 = h * h;                                                   \
        for (size_t k = 0; k < n; ++k) {                                      \
            LINK *l = &links[k];                                              \
            T *xi = x[l->i], *xj = x[l->j];                                   \
            T wi = w[l->i], wj = w[l->j];                                     \
            T ws = wi + wj;                                                   \
            if (ws == 0) continue;                                            \
            T d0 = xj[0] - xi[0], d1 = xj[1] - xi[1], d2 = xj[2] - xi[2];     \
            T len2 = (T)0 + d0 * d0 + d1 * d1 + d2 * d2;                      \
            if (!(len2 >= TMIN)) continue;                                    \
            T len = SQRT(len2);                                               \
            T alpha = l->compliance / h2;                                     \
            T c = len - l->rest;                                              \
            T num = -c - alpha * l->lambda;                                   \
            T delta = num / (ws + alpha);                                     \
            T si = wi * delta, sj = wj * delta;                               \
            T n0 = d0 / len, n1 = d1 / len, n2 = d2 / len;                    \
            T a0 = xi[0], a1 = xi[1], a2 = xi[2];                             \
            T b0 = xj[0], b1 = xj[1], b2 = xj[2];                             \
            xi[0] = a0 - si * n0; xi[1] = a1 - si * n1; xi[2] = a2 - si * n2; \
            xj[0] = b0 + sj * n0; xj[1] = b1 + sj * n1; xj[2] = b2 + sj * n2; \
            l->lambda = l->lambda + delta;                                    \
        }                                                                     \
    }

SEQ_SWEEP(ref_seq_sweep_f64, double, XpbdLink, sqrt, DBL_MIN)
SEQ_SWEEP(ref_seq_sweep_f32, float, XpbdLinkF32, sqrtf, FLT_MIN)

/* ---- Colored structure-of-arrays kernel ----
 * Links sorted by color, color c = [starts[c], starts[c+1]); within a color
 * no particle repeats, so each chunk is gathered into local arrays, solved
 * in a loop GCC vectorizes (sqrtpd/divpd), and scattered back. Per substep
 * alpha = compliance / h^2 and g = 1 / (wi + wj + alpha) are precomputed;
 * a visit uses r = 1 / len and d * r (xpbd's colored equations). */
#define CH 64
#define COLORED_SWEEP(NAME, T, TMIN)                                              \
    void NAME(T *restrict x, T *restrict y, T *restrict z, const T *restrict w,  \
              const uint32_t *restrict li, const uint32_t *restrict lj,           \
              const T *restrict rest, const T *restrict alpha,                    \
              const T *restrict g,                                                \
              T *restrict lambda, const size_t *starts, size_t colors) {          \
        for (size_t c = 0; c < colors; ++c) {                                     \
            for (size_t s = starts[c]; s < starts[c + 1]; s += CH) {              \
                size_t m = starts[c + 1] - s < CH ? starts[c + 1] - s : CH;       \
                T ax[CH], ay[CH], az[CH], bx[CH], by[CH], bz[CH], wa[CH], wb[CH]; \
                uint32_t ia[CH], ib[CH];                                          \
                unsigned char ok[CH];                                             \
                for (size_t t = 0; t < m; ++t) {                                  \
                    uint32_t i = li[s + t], j = lj[s + t];                        \
                    ia[t] = i; ib[t] = j;                                         \
                    ax[t] = x[i]; ay[t] = y[i]; az[t] = z[i];                     \
                    bx[t] = x[j]; by[t] = y[j]; bz[t] = z[j];                     \
                    wa[t] = w[i]; wb[t] = w[j];                                   \
                }                                                                 \
                for (size_t t = 0; t < m; ++t) {                                  \
                    T wi = wa[t], wj = wb[t], ws = wi + wj;                       \
                    T d0 = bx[t] - ax[t], d1 = by[t] - ay[t], d2 = bz[t] - az[t]; \
                    T len2 = (T)0 + d0 * d0 + d1 * d1 + d2 * d2;                  \
                    T len = sqrt##T##_(len2);                                     \
                    T r = (T)1 / len;                                             \
                    T al = alpha[s + t], lam = lambda[s + t];                     \
                    T cc = len - rest[s + t];                                     \
                    T num = -cc - al * lam;                                       \
                    T delta = num * g[s + t];                                     \
                    T si = wi * delta, sj = wj * delta;                           \
                    T n0 = d0 * r, n1 = d1 * r, n2 = d2 * r;                      \
                    ok[t] = (ws != 0) & (len2 >= TMIN);                           \
                    ax[t] = ax[t] - si * n0; ay[t] = ay[t] - si * n1;             \
                    az[t] = az[t] - si * n2;                                      \
                    bx[t] = bx[t] + sj * n0; by[t] = by[t] + sj * n1;             \
                    bz[t] = bz[t] + sj * n2;                                      \
                    wa[t] = lam + delta;                                          \
                }                                                                 \
                for (size_t t = 0; t < m; ++t) {                                  \
                    if (!ok[t]) continue;                                         \
                    uint32_t i = ia[t], j = ib[t];                                \
                    x[i] = ax[t]; y[i] = ay[t]; z[i] = az[t];                     \
                    x[j] = bx[t]; y[j] = by[t]; z[j] = bz[t];                     \
                    lambda[s + t] = wa[t];                                        \
                }                                                                 \
            }                                                                     \
        }                                                                         \
    }

#define sqrtdouble_ sqrt
#define sqrtfloat_ sqrtf
COLORED_SWEEP(ref_colored_sweep_f64, double, DBL_MIN)
COLORED_SWEEP(ref_colored_sweep_f32, float, FLT_MIN)

/* ---- The 1D seed solve: through the C ABI, and the formula inline ----
 * n constraints, each: lambda = 0, then `iterations` solves on the same
 * instance (one substep), results written back to a[] and b[]. */
void ref_1d_cabi(double *a, double *b, const double *wa, const double *wb, const double *rest,
                 const double *compliance, double dt, size_t n, int iterations) {
    for (size_t k = 0; k < n; ++k) {
        XpbdDistanceConstraint c;
        xpbd_distance_begin_substep(&c);
        for (int it = 0; it < iterations; ++it) {
            xpbd_distance_solve(&c, &a[k], &b[k], wa[k], wb[k], rest[k], compliance[k], dt);
        }
    }
}

/* The engine's order (Gauss-Seidel): begin_substep on every constraint,
 * then `iterations` sweeps, each solving every constraint once. Successive
 * solves are independent; lambda[] holds each constraint's multiplier. */
void ref_1d_cabi_sweep(double *a, double *b, const double *wa, const double *wb,
                       const double *rest, const double *compliance, double dt, size_t n,
                       int iterations, XpbdDistanceConstraint *c) {
    for (size_t k = 0; k < n; ++k) {
        xpbd_distance_begin_substep(&c[k]);
    }
    for (int it = 0; it < iterations; ++it) {
        for (size_t k = 0; k < n; ++k) {
            xpbd_distance_solve(&c[k], &a[k], &b[k], wa[k], wb[k], rest[k], compliance[k], dt);
        }
    }
}

static inline void solve_1d_inline(double *lambda, double *a, double *b, double wa, double wb,
                                   double rest, double compliance, double dt) {
    double alpha = compliance / (dt * dt);
    double denominator = wa + wb + alpha;
    double c = *b - *a - rest;
    double delta = (-c - alpha * *lambda) / denominator;
    *a = *a - wa * delta;
    *b = *b + wb * delta;
    *lambda = *lambda + delta;
}

void ref_1d_inline(double *a, double *b, const double *wa, const double *wb, const double *rest,
                   const double *compliance, double dt, size_t n, int iterations) {
    for (size_t k = 0; k < n; ++k) {
        double lambda = 0.0;
        for (int it = 0; it < iterations; ++it) {
            solve_1d_inline(&lambda, &a[k], &b[k], wa[k], wb[k], rest[k], compliance[k], dt);
        }
    }
}

void ref_1d_inline_sweep(double *a, double *b, const double *wa, const double *wb,
                         const double *rest, const double *compliance, double dt, size_t n,
                         int iterations, double *lambda) {
    for (size_t k = 0; k < n; ++k) {
        lambda[k] = 0.0;
    }
    for (int it = 0; it < iterations; ++it) {
        for (size_t k = 0; k < n; ++k) {
            solve_1d_inline(&lambda[k], &a[k], &b[k], wa[k], wb[k], rest[k], compliance[k], dt);
        }
    }
}
