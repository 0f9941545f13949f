/* The plain C frame (issue 34, "References in the bench"): the whole frame
 * of xpbd's cloth scene as a good C engineer would write it for this one
 * scene, timed against xpbd's `step_colored` (bench/src/cframe.rs).
 *
 * The scene: a rows x cols cloth (structural links, optionally shear
 * links: xpbd::cloth's link set), resting on the ground plane y = 0
 * (normal +y, offset 0) with rigid contacts, static and dynamic friction,
 * gravity, no damping; `substeps` substeps of `iterations` iterations, one
 * thread.
 *
 * Data layout (struct cf_cloth):
 *   - particles, structure of arrays: positions x[], y[], z[]; velocities
 *     vx[], vy[], vz[]; the substep's start px[], py[], pz[]; inverse
 *     masses w[]; per particle the contact flag touch[] (1.0: within
 *     the contact margin of the plane this substep, else 0.0; a flag of
 *     the particles' type, so the particle loops vectorize at every ISA
 *     level) and the contact's lambda lc[];
 *   - links, one slot per link in colored order, structure of arrays:
 *     rest[], compliance[], and per frame alpha[] (compliance / h^2) and
 *     g[] (1 / ((w_i + w_j) + alpha), 0 for a link between two pinned
 *     particles, which then never moves), per substep lambda[];
 *   - no particle indices at all: the links of one color are index-free
 *     strided runs (struct cf_run): link t of a run joins particles
 *     i = first + stride * t and j = i + dj, in slot slot + t. The colors
 *     (cf_cloth_runs, the coloring of xpbd::cloth_coloring): horizontal
 *     links (r, c)-(r, c+1) of even c, of odd c (stride 2); vertical
 *     (r, c)-(r+1, c) of even r, of odd r (stride 1, dj = cols);
 *     diagonals (r, c)-(r+1, c+1) of even r, of odd r (stride 1,
 *     dj = cols + 1); diagonals (r, c+1)-(r+1, c) of even r, of odd r
 *     (stride 1, dj = cols - 1). One run per row, and runs that continue
 *     each other (the even horizontal links of an even number of columns)
 *     are merged into one. Every color is strided: no index list is used.
 *     The run loops are specialised for stride 1 and stride 2 and carry
 *     `#pragma GCC ivdep` (within a color no particle repeats).
 *
 * Per frame: alpha and g of every link. Per substep, h = dt / substeps
 * (xpbd's step, src/step/mod.rs, in the same operation order, so the
 * results agree with xpbd's to rounding; no fused multiply-add):
 *   1. particle loop: p <- x; x <- (x + h v) + h^2 g for w != 0 (a pinned
 *      particle moves by h v); contact flag: w != 0 and the gap
 *      C = y - r within the margin r + 2 |x - p| (tested as
 *      e = C - r <= 0 or e^2 <= 4 |x - p|^2); contact lambda <- 0;
 *   2. link lambda <- 0;
 *   3. `iterations` times: every color's runs (the link formula below),
 *      then the contacts in a particle loop: dl = -C / w,
 *      lambda' = max(lambda + dl, 0), y <- y + w (lambda' - lambda), then
 *      static friction: the tangential motion (x - px, z - pz) is undone
 *      when its squared length is below (mu_s w lambda')^2;
 *   4. particle loop: v <- (x - p) / h, then dynamic friction of a
 *      contact with lambda > 0: the tangential velocity (vx, vz) drops by
 *      min(h mu_k w lambda / h^2, |v_t|). For every particle: a pinned one
 *      (w = 0) must be at rest (the scene's two corners), when
 *      (x - p) / h = 0 is the velocity xpbd keeps.
 * The particle loops are branch-free (selects and multiplications by the
 * 0/1 flags, each giving the bits of the branchy form): GCC does not
 * speculate a floating-point operation under its default -ftrapping-math,
 * and a loop with a branch left does not vectorize.
 * The link formula (slot k, particles i, j):
 *   d = x_j - x_i; len = sqrt(d0 d0 + d1 d1 + d2 d2); c = len - rest;
 *   dl = (-c - alpha lambda) g; lambda += dl; n = d (1 / len);
 *   x_i -= (w_i dl) n; x_j += (w_j dl) n
 * (the operations of xpbd's link pass, src/step/link_pass.rs).
 * The plane's normal is +y, so the contact and friction formulas are
 * xpbd's general ones with the normal's zero components left out; they
 * give the same bits. No validation, no finiteness tests, no statistics.
 *
 * bench/build.rs compiles this file four times with -O3 -fno-math-errno
 * -ffp-contract=off: double and float (-DCF_F32), each at the x86-64
 * baseline (no -march; CF_PREFIX cf_base_f64_ / cf_base_f32_) and with
 * -march=native (cf_native_f64_ / cf_native_f32_). */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef CF_F32
typedef float real;
#define CF_SQRT sqrtf
#define CF_MIN_NORMAL FLT_MIN
#else
typedef double real;
#define CF_SQRT sqrt
#define CF_MIN_NORMAL DBL_MIN
#endif

#ifndef CF_PREFIX
#define CF_PREFIX cf_base_f64_
#endif
#define CF_CAT2(a, b) a##b
#define CF_CAT(a, b) CF_CAT2(a, b)
#define CF(name) CF_CAT(CF_PREFIX, name)

/* Link t of a run joins particles first + stride * t and that + dj; its
 * slot is slot + t. */
struct cf_run {
    uint32_t first, count, stride, dj, slot;
};

/* The frame's state (every array owned by the caller). */
struct cf_cloth {
    size_t n;
    real *x, *y, *z;
    real *vx, *vy, *vz;
    real *px, *py, *pz;
    const real *w;
    real *lc;
    real *touch;
    size_t links;
    const real *rest, *compliance;
    real *alpha, *g, *lambda;
    const struct cf_run *runs;
    /* Color c: runs color_runs[c] .. color_runs[c + 1]. */
    const size_t *color_runs;
    size_t colors;
};

/* The runs of a rows x cols cloth (shear: with the diagonals), color by
 * color, into `runs` (at most 5 * rows entries are written) and the
 * colors' run boundaries into `color_runs` (colors + 1 entries). Returns
 * the run count, 0 when rows < 2, cols < 2 or `cap` is too small. */
size_t CF(cloth_runs)(size_t rows, size_t cols, int shear, struct cf_run *runs, size_t cap,
                      size_t *color_runs) {
    if (rows < 2 || cols < 2) return 0;
    size_t c1 = cols - 1;
    /* first row, row step, row end, first column, column step, column end,
     * offset of i in the row, j - i */
    const size_t f[8][8] = {
        {0, 1, rows, 0, 2, c1, 0, 1},
        {0, 1, rows, 1, 2, c1, 0, 1},
        {0, 2, rows - 1, 0, 1, cols, 0, cols},
        {1, 2, rows - 1, 0, 1, cols, 0, cols},
        {0, 2, rows - 1, 0, 1, c1, 0, cols + 1},
        {1, 2, rows - 1, 0, 1, c1, 0, cols + 1},
        {0, 2, rows - 1, 0, 1, c1, 1, cols - 1},
        {1, 2, rows - 1, 0, 1, c1, 1, cols - 1},
    };
    size_t colors = shear ? 8 : 4, count = 0, slot = 0;
    for (size_t col = 0; col < colors; ++col) {
        color_runs[col] = count;
        size_t step = f[col][4];
        size_t per_row = (f[col][5] - f[col][3] + step - 1) / step;
        for (size_t r = f[col][0]; r < f[col][2]; r += f[col][1]) {
            if (per_row == 0) break;
            size_t first = r * cols + f[col][3] + f[col][6];
            struct cf_run *last = count > color_runs[col] ? &runs[count - 1] : NULL;
            if (last && last->stride == step && last->dj == f[col][7] &&
                (size_t)last->first + step * last->count == first) {
                last->count += (uint32_t)per_row;
            } else {
                if (count == cap) return 0;
                runs[count].first = (uint32_t)first;
                runs[count].count = (uint32_t)per_row;
                runs[count].stride = (uint32_t)step;
                runs[count].dj = (uint32_t)f[col][7];
                runs[count].slot = (uint32_t)slot;
                ++count;
            }
            slot += per_row;
        }
    }
    color_runs[colors] = count;
    return count;
}

/* One run of links, `STRIDE` a constant at each call site. */
static inline void solve_run(real *restrict x, real *restrict y, real *restrict z,
                             const real *restrict w, const real *restrict rest,
                             const real *restrict alpha, const real *restrict g,
                             real *restrict lambda, size_t first, size_t count,
                             size_t STRIDE, size_t dj, size_t slot) {
#pragma GCC ivdep
    for (size_t t = 0; t < count; ++t) {
        size_t i = first + STRIDE * t, j = i + dj, k = slot + t;
        real d0 = x[j] - x[i], d1 = y[j] - y[i], d2 = z[j] - z[i];
        real len = CF_SQRT(d0 * d0 + d1 * d1 + d2 * d2);
        real c = len - rest[k];
        real dl = (-c - alpha[k] * lambda[k]) * g[k];
        lambda[k] = lambda[k] + dl;
        real r = (real)1 / len;
        real n0 = d0 * r, n1 = d1 * r, n2 = d2 * r;
        real si = w[i] * dl, sj = w[j] * dl;
        x[i] = x[i] - si * n0;
        y[i] = y[i] - si * n1;
        z[i] = z[i] - si * n2;
        x[j] = x[j] + sj * n0;
        y[j] = y[j] + sj * n1;
        z[j] = z[j] + sj * n2;
    }
}

/* The phases of a frame, shared with bench/c/frame_kinds.c (which
 * includes this file): each is the loop of CF(frame) below, unchanged. */

/* alpha and g of every link of the runs: per frame. */
static inline void cf_link_constants(struct cf_cloth *cl, real h2) {
    const real *restrict w = cl->w;
    const real *restrict compliance = cl->compliance;
    real *restrict alpha = cl->alpha, *restrict g = cl->g;
    const struct cf_run *runs = cl->runs;
    for (size_t r = 0; r < cl->color_runs[cl->colors]; ++r) {
        const struct cf_run q = runs[r];
        for (size_t t = 0; t < q.count; ++t) {
            size_t i = q.first + (size_t)q.stride * t, j = i + q.dj, k = q.slot + t;
            real a = compliance[k] / h2, ws = w[i] + w[j], q = (real)1 / (ws + a);
            alpha[k] = a;
            g[k] = ws == 0 ? (real)0 : q;
        }
    }
}

/* Prediction and contact detection (step 1); returns the contacts found. */
static inline unsigned cf_predict(struct cf_cloth *cl, real h, real hgx, real hgy, real hgz,
                                  real radius) {
    const size_t n = cl->n;
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    const real *restrict vx = cl->vx, *restrict vy = cl->vy, *restrict vz = cl->vz;
    real *restrict px = cl->px, *restrict py = cl->py, *restrict pz = cl->pz;
    const real *restrict w = cl->w;
    real *restrict lc = cl->lc;
    real *restrict touch = cl->touch;
    unsigned found = 0;
#pragma GCC ivdep
    for (size_t i = 0; i < n; ++i) {
        real x0 = x[i], y0 = y[i], z0 = z[i];
        real moves = w[i] != 0 ? (real)1 : (real)0;
        real gxm = moves != 0 ? hgx : (real)0, gym = moves != 0 ? hgy : (real)0;
        real gzm = moves != 0 ? hgz : (real)0;
        px[i] = x0;
        py[i] = y0;
        pz[i] = z0;
        real x1 = (x0 + h * vx[i]) + gxm;
        real y1 = (y0 + h * vy[i]) + gym;
        real z1 = (z0 + h * vz[i]) + gzm;
        x[i] = x1;
        y[i] = y1;
        z[i] = z1;
        real e = (y1 - radius) - radius;
        real a = x0 - x1, b = y0 - y1, c = z0 - z1;
        real path2 = a * a + b * b + c * c;
        real hit = (moves != 0) & ((e <= 0) | (e * e <= (real)4 * path2)) ? (real)1 : (real)0;
        touch[i] = hit;
        found += (unsigned)(hit != 0);
        lc[i] = 0;
    }
    return found;
}

/* One pass over every color's runs (the link formula). */
static inline void cf_link_runs(struct cf_cloth *cl) {
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    const real *restrict w = cl->w;
    const real *restrict rest = cl->rest;
    const real *restrict alpha = cl->alpha, *restrict g = cl->g;
    real *restrict lambda = cl->lambda;
    const struct cf_run *runs = cl->runs;
    const size_t *color_runs = cl->color_runs;
    for (size_t col = 0; col < cl->colors; ++col) {
        for (size_t r = color_runs[col]; r < color_runs[col + 1]; ++r) {
            const struct cf_run q = runs[r];
            if (q.stride == 1) {
                solve_run(x, y, z, w, rest, alpha, g, lambda, q.first, q.count, 1, q.dj, q.slot);
            } else if (q.stride == 2) {
                solve_run(x, y, z, w, rest, alpha, g, lambda, q.first, q.count, 2, q.dj, q.slot);
            } else {
                solve_run(x, y, z, w, rest, alpha, g, lambda, q.first, q.count, q.stride, q.dj,
                          q.slot);
            }
        }
    }
}

/* The plane contacts, rigid, with static friction; a particle without a
 * contact computes with the harmless inverse mass w + 1 and is multiplied
 * by its flag 0. */
static inline void cf_contacts(struct cf_cloth *cl, real radius, real mu_s) {
    const size_t n = cl->n;
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    const real *restrict px = cl->px, *restrict pz = cl->pz;
    const real *restrict w = cl->w;
    real *restrict lc = cl->lc;
    const real *restrict touch = cl->touch;
#pragma GCC ivdep
    for (size_t i = 0; i < n; ++i) {
        real on = touch[i];
        real wi = w[i] + ((real)1 - on), l0 = lc[i];
        real x0 = x[i], y0 = y[i], z0 = z[i];
        real c = y0 - radius;
        real lt = l0 + -c / wi;
        real l1 = lt > 0 ? lt : (real)0;
        y[i] = y0 + on * (wi * (l1 - l0));
        real mx = x0 - px[i], mz = z0 - pz[i];
        real t2 = mx * mx + mz * mz;
        real limit = mu_s * wi * l1;
        real stick = (mu_s > 0) & (lt > 0) & (t2 < limit * limit) ? on : (real)0;
        x[i] = x0 - stick * mx;
        z[i] = z0 - stick * mz;
        lc[i] = on * l1;
    }
}

/* Velocities, then dynamic friction. A pinned particle is at rest
 * (x = p), so it keeps v = 0. */
static inline void cf_velocities(struct cf_cloth *cl, real h, real mu_k) {
    const size_t n = cl->n;
    const real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    real *restrict vx = cl->vx, *restrict vy = cl->vy, *restrict vz = cl->vz;
    const real *restrict px = cl->px, *restrict py = cl->py, *restrict pz = cl->pz;
    const real *restrict w = cl->w;
    const real *restrict lc = cl->lc;
    const real *restrict touch = cl->touch;
#pragma GCC ivdep
    for (size_t i = 0; i < n; ++i) {
        real l = lc[i];
        real ux = (x[i] - px[i]) / h, uy = (y[i] - py[i]) / h, uz = (z[i] - pz[i]) / h;
        real speed2 = ux * ux + uz * uz;
        real drop = mu_k * w[i] * l / h;
        real speed = CF_SQRT(speed2);
        /* min(drop / speed, 1): drop >= speed exactly when the
         * correctly rounded quotient is >= 1. */
        real q = drop / speed;
        real scale = q < 1 ? q : (real)1;
        int slide = (touch[i] != 0) & (l > 0) & (mu_k > 0) & !(speed2 < CF_MIN_NORMAL);
        real sc = slide ? scale : (real)0;
        vx[i] = ux - sc * ux;
        vy[i] = uy;
        vz[i] = uz - sc * uz;
    }
}

/* One frame of `dt` (s); gravity (gx, gy, gz) (m/s^2), particle radius
 * `radius` (m), friction mu_s and mu_k. Returns the most contacts of a
 * substep. */
size_t CF(frame)(struct cf_cloth *cl, real dt, unsigned substeps, unsigned iterations, real gx,
                 real gy, real gz, real radius, real mu_s, real mu_k) {
    const real h = dt / (real)substeps, h2 = h * h;
    const real hgx = h2 * gx, hgy = h2 * gy, hgz = h2 * gz;
    real *restrict lambda = cl->lambda;
    unsigned most = 0;

    cf_link_constants(cl, h2);
    for (unsigned s = 0; s < substeps; ++s) {
        unsigned found = cf_predict(cl, h, hgx, hgy, hgz, radius);
        most = found > most ? found : most;
        for (size_t k = 0; k < cl->links; ++k) lambda[k] = 0;
        for (unsigned it = 0; it < iterations; ++it) {
            cf_link_runs(cl);
            cf_contacts(cl, radius, mu_s);
        }
        cf_velocities(cl, h, mu_k);
    }
    return most;
}
