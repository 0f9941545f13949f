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

/* ---- Constraint kinds: one sequential Gauss-Seidel sweep over a group ----
 * Each kernel is the plain per-instance loop: gather, C, the gradients, the
 * w-weighted sum W, dlambda = (-C - alpha*lambda) / (W + alpha), apply. The
 * operations and their order are xpbd's (src/constraint/{bend,volume,
 * tether,pressure}.rs), so tets, tethers and meshes give xpbd's bits; the
 * bend uses libm's atan2 (xpbd has its own, written from + - * /), so its
 * results agree to a tolerance only. Left out, as in the link references:
 * validation of indices and parameters, finiteness checks of the results,
 * statistics. An instance whose gradient is undefined (W or a squared
 * length below the smallest normal double) is skipped. */

static inline void sub3(double o[3], const double a[3], const double b[3]) {
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}

static inline void cross3(double o[3], const double a[3], const double b[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* a.b as x + y + z. */
static inline double dot3(const double a[3], const double b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* a.b summed from zero (xpbd's generic `dot`): 0 + x + y + z. */
static inline double dot3z(const double a[3], const double b[3]) {
    return 0.0 + a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Dihedral bending, C = phi - phi0 wrapped into (-pi, pi]. */
void ref_bend_sweep(double (*x)[3], const double *w, XpbdBend *bends, size_t n, double h) {
    const double h2 = h * h;
    const double pi = 3.141592653589793, tau = 6.283185307179586;
    for (size_t k = 0; k < n; ++k) {
        XpbdBend *bd = &bends[k];
        double *p[4];
        double wk[4];
        for (int q = 0; q < 4; ++q) {
            p[q] = x[bd->particles[q]];
            wk[q] = w[bd->particles[q]];
        }
        if (wk[0] == 0 && wk[1] == 0 && wk[2] == 0 && wk[3] == 0) continue;
        double e[3], a[3], b[3], n1[3], n2[3], m[3];
        sub3(e, p[1], p[0]);
        sub3(a, p[2], p[0]);
        sub3(b, p[3], p[0]);
        cross3(n1, e, a);
        cross3(n2, b, e);
        double ee = dot3z(e, e), nn1 = dot3z(n1, n1), nn2 = dot3z(n2, n2);
        if (!(ee >= DBL_MIN && nn1 >= DBL_MIN && nn2 >= DBL_MIN)) continue;
        double len = sqrt(ee);
        cross3(m, n2, n1);
        double sine = dot3z(m, e);
        double cosine = dot3z(n1, n2) * len;
        double angle = atan2(sine, cosine);
        double f2 = len / nn1, f3 = len / nn2;
        double g[4][3];
        for (int c = 0; c < 3; ++c) {
            g[2][c] = f2 * n1[c];
            g[3][c] = f3 * n2[c];
        }
        double s2 = dot3z(a, e) / ee, s3 = dot3z(b, e) / ee;
        double t2 = 1.0 - s2, t3 = 1.0 - s3;
        for (int c = 0; c < 3; ++c) {
            g[0][c] = -(t2 * g[2][c]) - t3 * g[3][c];
            g[1][c] = -(s2 * g[2][c]) - s3 * g[3][c];
        }
        double wsum = 0.0;
        for (int q = 0; q < 4; ++q) wsum = wsum + wk[q] * dot3z(g[q], g[q]);
        if (!(wsum >= DBL_MIN)) continue;
        double cval = angle - bd->rest_angle;
        if (cval > pi) cval = cval - tau;
        else if (cval <= -pi) cval = cval + tau;
        double alpha = bd->compliance / h2;
        double num = -cval - alpha * bd->lambda;
        double delta = num / (wsum + alpha);
        for (int q = 0; q < 4; ++q) {
            if (wk[q] == 0) continue;
            double s = wk[q] * delta;
            for (int c = 0; c < 3; ++c) p[q][c] = p[q][c] + s * g[q][c];
        }
        bd->lambda = bd->lambda + delta;
    }
}

/* Tetrahedral volume, C = 6V - 6V0. */
void ref_tet_sweep(double (*x)[3], const double *w, XpbdTet *tets, size_t n, double h) {
    const double h2 = h * h;
    for (size_t k = 0; k < n; ++k) {
        XpbdTet *t = &tets[k];
        double *p[4];
        double wk[4];
        for (int q = 0; q < 4; ++q) {
            p[q] = x[t->particles[q]];
            wk[q] = w[t->particles[q]];
        }
        if (wk[0] == 0 && wk[1] == 0 && wk[2] == 0 && wk[3] == 0) continue;
        double e1[3], e2[3], e3[3], d31[3], d21[3], g[4][3];
        sub3(e1, p[1], p[0]);
        sub3(e2, p[2], p[0]);
        sub3(e3, p[3], p[0]);
        sub3(d31, p[3], p[1]);
        sub3(d21, p[2], p[1]);
        cross3(g[0], d31, d21);
        cross3(g[1], e2, e3);
        cross3(g[2], e3, e1);
        cross3(g[3], e1, e2);
        double wsum = 0.0;
        for (int q = 0; q < 4; ++q) wsum = wsum + wk[q] * dot3(g[q], g[q]);
        double cval = dot3(g[3], e3) - 6.0 * t->rest_volume;
        if (!(wsum >= DBL_MIN)) continue;
        double alpha = t->compliance / h2;
        double num = -cval - alpha * t->lambda;
        double delta = num / (wsum + alpha);
        for (int q = 0; q < 4; ++q) {
            if (wk[q] == 0) continue;
            double s = wk[q] * delta;
            for (int c = 0; c < 3; ++c) p[q][c] = p[q][c] + s * g[q][c];
        }
        t->lambda = t->lambda + delta;
    }
}

/* Long-range tethers, C = |x - x_a| - d_max, lambda <= 0. */
void ref_tether_sweep(double (*x)[3], const double *w, XpbdTether *tethers, size_t n, double h) {
    const double h2 = h * h;
    for (size_t k = 0; k < n; ++k) {
        XpbdTether *t = &tethers[k];
        double *xa = x[t->anchor], *xp = x[t->particle];
        double wa = w[t->anchor], wp = w[t->particle];
        double wsum = wa + wp;
        if (wsum == 0) continue;
        double d[3];
        sub3(d, xp, xa);
        double len2 = dot3z(d, d);
        if (!(len2 >= DBL_MIN)) continue;
        double len = sqrt(len2);
        double nv[3] = {d[0] / len, d[1] / len, d[2] / len};
        double cval = len - t->max_distance;
        double alpha = t->compliance / h2;
        double num = -cval - alpha * t->lambda;
        double delta = num / (wsum + alpha);
        if (t->lambda + delta > 0) {
            delta = -t->lambda; /* slack: lambda back to 0 */
            if (delta == 0) continue;
        }
        if (wa != 0) {
            double s = wa * delta;
            for (int c = 0; c < 3; ++c) xa[c] = xa[c] - s * nv[c];
        }
        if (wp != 0) {
            double s = wp * delta;
            for (int c = 0; c < 3; ++c) xp[c] = xp[c] + s * nv[c];
        }
        t->lambda = t->lambda + delta;
    }
}

/* Closed-mesh volume, C = V - k V0, V = sum over triangles of
 * (xa - r).((xb - r) x (xc - r)) / 6 with r the first corner. `unique`
 * lists each mesh's particles once, in the order they first appear in its
 * triangles (built once with the mesh, as an engine would):
 * unique[ustart[m] .. ustart[m + 1]]; `grad` is one entry per particle. */
void ref_mesh_sweep(double (*x)[3], const double *w, const uint32_t (*tris)[3],
                    XpbdMeshVolume *meshes, size_t n, const uint32_t *unique,
                    const size_t *ustart, double (*grad)[3], double h) {
    const double h2 = h * h;
    for (size_t k = 0; k < n; ++k) {
        XpbdMeshVolume *mv = &meshes[k];
        const uint32_t(*tr)[3] = tris + mv->first_triangle;
        const uint32_t *u = unique + ustart[k];
        size_t nu = ustart[k + 1] - ustart[k];
        double r[3] = {x[tr[0][0]][0], x[tr[0][0]][1], x[tr[0][0]][2]};
        for (size_t j = 0; j < nu; ++j) grad[u[j]][0] = grad[u[j]][1] = grad[u[j]][2] = 0.0;
        double six_v = 0.0;
        for (uint32_t t = 0; t < mv->triangle_count; ++t) {
            uint32_t a = tr[t][0], b = tr[t][1], c = tr[t][2];
            double xa[3], xb[3], xc[3], v[3];
            sub3(xa, x[a], r);
            sub3(xb, x[b], r);
            sub3(xc, x[c], r);
            cross3(v, xb, xc);
            six_v = six_v + dot3(xa, v);
            for (int q = 0; q < 3; ++q) grad[a][q] = grad[a][q] + v[q];
            cross3(v, xc, xa);
            for (int q = 0; q < 3; ++q) grad[b][q] = grad[b][q] + v[q];
            cross3(v, xa, xb);
            for (int q = 0; q < 3; ++q) grad[c][q] = grad[c][q] + v[q];
        }
        double wsum = 0.0;
        for (size_t j = 0; j < nu; ++j) {
            uint32_t p = u[j];
            if (w[p] == 0) continue;
            double g[3] = {grad[p][0] / 6.0, grad[p][1] / 6.0, grad[p][2] / 6.0};
            wsum = wsum + w[p] * dot3(g, g);
        }
        if (!(wsum >= DBL_MIN)) continue;
        double cval = six_v / 6.0 - mv->pressure * mv->rest_volume;
        double alpha = mv->compliance / h2;
        double num = -cval - alpha * mv->lambda;
        double delta = num / (wsum + alpha);
        for (size_t j = 0; j < nu; ++j) {
            uint32_t p = u[j];
            if (w[p] == 0) continue;
            double s = w[p] * delta;
            for (int q = 0; q < 3; ++q) x[p][q] = x[p][q] + s * (grad[p][q] / 6.0);
        }
        mv->lambda = mv->lambda + delta;
    }
}
