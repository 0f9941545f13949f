/* The plain C frame with a constraint kind beyond links (issue 34, "Give
 * every kind its own frame row, with its plain C"): the frame of
 * bench/c/frame.c (included below: its particle phases and link runs,
 * unchanged) with, in every iteration, the bends, the tets or the tethers
 * after the links and before the contacts, as xpbd's step does
 * (src/step/mod.rs). Timed against xpbd's `step_colored` by
 * bench/src/kframe.rs.
 *
 * The links: the cloth's index-free strided runs of frame.c, or (the tet
 * block) index links, two arrays i[] and j[] in xpbd's colored order, each
 * color a loop with `#pragma GCC ivdep` (within a color no particle
 * repeats). The link formula is frame.c's.
 *
 * The kinds, each in xpbd's colored order (the same Gauss-Seidel order, so
 * the results agree with xpbd's), structure of arrays per instance:
 * particle indices, rest value, compliance, and per frame alpha =
 * compliance / h^2, per substep lambda. Each color is a loop with `#pragma
 * GCC ivdep` (GCC 12 vectorizes the tet, tether and index-link loops with
 * gathers and masked scatters at -march=native on AVX-512; the bend loop,
 * which calls atan2, stays scalar). The formulas are those of the C references of the kinds
 * bench (ref_bend_sweep, ref_tet_sweep, ref_tether_sweep in
 * bench/c/reference.c: xpbd's operations in xpbd's order, no fused
 * multiply-add) over SoA particles:
 *   - bend: C = phi - phi0 wrapped into (-pi, pi], phi from libm's atan2
 *     (xpbd has its own, within 2 ulp: the results agree to rounding);
 *   - tet: C = 6V - 6V0, the four face gradients;
 *   - tether: C = |x - x_a| - d_max, lambda <= 0 (slack: lambda back to 0).
 * An instance whose particles are all pinned, or whose gradient is
 * undefined, is skipped, as in the references; a pinned particle is never
 * written. No validation, no finiteness tests, no statistics.
 *
 * bench/build.rs compiles this file like frame.c, four times with -O3
 * -fno-math-errno -ffp-contract=off: double and float (-DCF_F32), each at
 * the x86-64 baseline (CF_PREFIX kf_base_f64_ / kf_base_f32_) and with
 * -march=native (kf_native_f64_ / kf_native_f32_). (The copy of frame.c's
 * own functions under these prefixes is unused.) */
#include "frame.c"

#ifdef CF_F32
#define KF_ATAN2 atan2f
#else
#define KF_ATAN2 atan2
#endif

/* One group of instances in colored order: color c is instances
 * starts[c] .. starts[c + 1]; rest[] is the rest angle (bends), the rest
 * volume (tets) or d_max (tethers). p[] holds `per` particle indices per
 * instance (4 for bends and tets; tethers: particle, anchor). */
struct kf_group {
    size_t count;
    const uint32_t *p;
    const real *rest, *compliance;
    real *alpha, *lambda;
    const size_t *starts;
    size_t colors;
};

/* The frame's state: frame.c's (particles, links) and the kinds. */
struct kf_world {
    struct cf_cloth cl;
    /* Index links (li != NULL; then cl's runs are unused): link k joins
     * li[k] and lj[k] (slot k of cl's link arrays); color c is links
     * link_starts[c] .. link_starts[c + 1]. */
    const uint32_t *li, *lj;
    const size_t *link_starts;
    size_t link_colors;
    struct kf_group bends, tets, tethers;
};

/* alpha and g of the index links: per frame. */
static inline void kf_index_constants(struct kf_world *kw, real h2) {
    struct cf_cloth *cl = &kw->cl;
    const real *restrict w = cl->w;
    const real *restrict compliance = cl->compliance;
    real *restrict alpha = cl->alpha, *restrict g = cl->g;
    const uint32_t *restrict li = kw->li, *restrict lj = kw->lj;
    for (size_t k = 0; k < cl->links; ++k) {
        real a = compliance[k] / h2, ws = w[li[k]] + w[lj[k]], q = (real)1 / (ws + a);
        alpha[k] = a;
        g[k] = ws == 0 ? (real)0 : q;
    }
}

/* One pass over the index links, color by color (frame.c's formula). */
static inline void kf_index_links(struct kf_world *kw) {
    struct cf_cloth *cl = &kw->cl;
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    const real *restrict w = cl->w;
    const real *restrict rest = cl->rest;
    const real *restrict alpha = cl->alpha, *restrict g = cl->g;
    real *restrict lambda = cl->lambda;
    const uint32_t *restrict li = kw->li, *restrict lj = kw->lj;
    for (size_t col = 0; col < kw->link_colors; ++col) {
        size_t end = kw->link_starts[col + 1];
#pragma GCC ivdep
        for (size_t k = kw->link_starts[col]; k < end; ++k) {
            size_t i = li[k], j = lj[k];
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
}

/* a.b summed from zero (xpbd's `dot_from_zero3`): 0 + x + y + z. */
#define KF_DOT_Z(a, b) ((real)0 + (a)[0] * (b)[0] + (a)[1] * (b)[1] + (a)[2] * (b)[2])
/* a.b as x + y + z (xpbd's `dot3`). */
#define KF_DOT(a, b) ((a)[0] * (b)[0] + (a)[1] * (b)[1] + (a)[2] * (b)[2])

static inline void kf_sub(real o[3], const real a[3], const real b[3]) {
    o[0] = a[0] - b[0];
    o[1] = a[1] - b[1];
    o[2] = a[2] - b[2];
}

static inline void kf_cross(real o[3], const real a[3], const real b[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* The bends, color by color: ref_bend_sweep's formula over SoA particles. */
static inline void kf_bends(struct cf_cloth *cl, struct kf_group *gr) {
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    const real *restrict w = cl->w;
    const uint32_t *restrict pi4 = gr->p;
    const real *restrict rest = gr->rest, *restrict alpha = gr->alpha;
    real *restrict lambda = gr->lambda;
    const real pi = (real)3.141592653589793, tau = (real)6.283185307179586;
    for (size_t col = 0; col < gr->colors; ++col) {
        size_t end = gr->starts[col + 1];
#pragma GCC ivdep
        for (size_t k = gr->starts[col]; k < end; ++k) {
            size_t q[4];
            real p[4][3], wk[4];
            for (int v = 0; v < 4; ++v) {
                q[v] = pi4[4 * k + v];
                p[v][0] = x[q[v]];
                p[v][1] = y[q[v]];
                p[v][2] = z[q[v]];
                wk[v] = w[q[v]];
            }
            if (wk[0] == 0 && wk[1] == 0 && wk[2] == 0 && wk[3] == 0) continue;
            real e[3], a[3], b[3], n1[3], n2[3], m[3];
            kf_sub(e, p[1], p[0]);
            kf_sub(a, p[2], p[0]);
            kf_sub(b, p[3], p[0]);
            kf_cross(n1, e, a);
            kf_cross(n2, b, e);
            real ee = KF_DOT_Z(e, e), nn1 = KF_DOT_Z(n1, n1), nn2 = KF_DOT_Z(n2, n2);
            if (!(ee >= CF_MIN_NORMAL && nn1 >= CF_MIN_NORMAL && nn2 >= CF_MIN_NORMAL)) continue;
            real len = CF_SQRT(ee);
            kf_cross(m, n2, n1);
            real sine = KF_DOT_Z(m, e);
            real cosine = KF_DOT_Z(n1, n2) * len;
            real angle = KF_ATAN2(sine, cosine);
            real f2 = len / nn1, f3 = len / nn2;
            real g[4][3];
            for (int c = 0; c < 3; ++c) {
                g[2][c] = n1[c] * f2;
                g[3][c] = n2[c] * f3;
            }
            real s2 = KF_DOT_Z(a, e) / ee, s3 = KF_DOT_Z(b, e) / ee;
            real t2 = (real)1 - s2, t3 = (real)1 - s3;
            for (int c = 0; c < 3; ++c) {
                g[0][c] = -(t2 * g[2][c]) - t3 * g[3][c];
                g[1][c] = -(s2 * g[2][c]) - s3 * g[3][c];
            }
            real wsum = 0;
            for (int v = 0; v < 4; ++v) wsum = wsum + wk[v] * KF_DOT_Z(g[v], g[v]);
            if (!(wsum >= CF_MIN_NORMAL)) continue;
            real cval = angle - rest[k];
            if (cval > pi) cval = cval - tau;
            else if (cval <= -pi) cval = cval + tau;
            real num = -cval - alpha[k] * lambda[k];
            real delta = num / (wsum + alpha[k]);
            for (int v = 0; v < 4; ++v) {
                if (wk[v] == 0) continue;
                real s = wk[v] * delta;
                x[q[v]] = p[v][0] + s * g[v][0];
                y[q[v]] = p[v][1] + s * g[v][1];
                z[q[v]] = p[v][2] + s * g[v][2];
            }
            lambda[k] = lambda[k] + delta;
        }
    }
}

/* The tets, color by color: ref_tet_sweep's formula over SoA particles. */
static inline void kf_tets(struct cf_cloth *cl, struct kf_group *gr) {
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    const real *restrict w = cl->w;
    const uint32_t *restrict pi4 = gr->p;
    const real *restrict rest = gr->rest, *restrict alpha = gr->alpha;
    real *restrict lambda = gr->lambda;
    for (size_t col = 0; col < gr->colors; ++col) {
        size_t end = gr->starts[col + 1];
#pragma GCC ivdep
        for (size_t k = gr->starts[col]; k < end; ++k) {
            size_t q[4];
            real p[4][3], wk[4];
            for (int v = 0; v < 4; ++v) {
                q[v] = pi4[4 * k + v];
                p[v][0] = x[q[v]];
                p[v][1] = y[q[v]];
                p[v][2] = z[q[v]];
                wk[v] = w[q[v]];
            }
            if (wk[0] == 0 && wk[1] == 0 && wk[2] == 0 && wk[3] == 0) continue;
            real e1[3], e2[3], e3[3], d31[3], d21[3], g[4][3];
            kf_sub(e1, p[1], p[0]);
            kf_sub(e2, p[2], p[0]);
            kf_sub(e3, p[3], p[0]);
            kf_sub(d31, p[3], p[1]);
            kf_sub(d21, p[2], p[1]);
            kf_cross(g[0], d31, d21);
            kf_cross(g[1], e2, e3);
            kf_cross(g[2], e3, e1);
            kf_cross(g[3], e1, e2);
            real wsum = 0;
            for (int v = 0; v < 4; ++v) wsum = wsum + wk[v] * KF_DOT(g[v], g[v]);
            real cval = KF_DOT(g[3], e3) - (real)6 * rest[k];
            if (!(wsum >= CF_MIN_NORMAL)) continue;
            real num = -cval - alpha[k] * lambda[k];
            real delta = num / (wsum + alpha[k]);
            for (int v = 0; v < 4; ++v) {
                if (wk[v] == 0) continue;
                real s = wk[v] * delta;
                x[q[v]] = p[v][0] + s * g[v][0];
                y[q[v]] = p[v][1] + s * g[v][1];
                z[q[v]] = p[v][2] + s * g[v][2];
            }
            lambda[k] = lambda[k] + delta;
        }
    }
}

/* The tethers, color by color: ref_tether_sweep's formula over SoA
 * particles. p[2k] is the particle held, p[2k + 1] its anchor. The colors
 * are xpbd::color_moving_instances': within a color only pinned anchors
 * (w = 0, never written) repeat, so `ivdep` holds. */
static inline void kf_tethers(struct cf_cloth *cl, struct kf_group *gr) {
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    const real *restrict w = cl->w;
    const uint32_t *restrict pa = gr->p;
    const real *restrict dmax = gr->rest, *restrict alpha = gr->alpha;
    real *restrict lambda = gr->lambda;
    for (size_t col = 0; col < gr->colors; ++col) {
        size_t end = gr->starts[col + 1];
#pragma GCC ivdep
        for (size_t k = gr->starts[col]; k < end; ++k) {
            size_t ip = pa[2 * k], ia = pa[2 * k + 1];
            real wa = w[ia], wp = w[ip];
            real wsum = wa + wp;
            if (wsum == 0) continue;
            real xa = x[ia], ya = y[ia], za = z[ia];
            real xp = x[ip], yp = y[ip], zp = z[ip];
            real d0 = xp - xa, d1 = yp - ya, d2 = zp - za;
            real len2 = (real)0 + d0 * d0 + d1 * d1 + d2 * d2;
            if (!(len2 >= CF_MIN_NORMAL)) continue;
            real len = CF_SQRT(len2);
            real n0 = d0 / len, n1 = d1 / len, n2 = d2 / len;
            real cval = len - dmax[k];
            real l0 = lambda[k];
            real num = -cval - alpha[k] * l0;
            real delta = num / (wsum + alpha[k]);
            if (l0 + delta > 0) {
                delta = -l0; /* slack: lambda back to 0 */
                if (delta == 0) continue;
            }
            if (wa != 0) {
                real s = wa * delta;
                x[ia] = xa - s * n0;
                y[ia] = ya - s * n1;
                z[ia] = za - s * n2;
            }
            if (wp != 0) {
                real s = wp * delta;
                x[ip] = xp + s * n0;
                y[ip] = yp + s * n1;
                z[ip] = zp + s * n2;
            }
            lambda[k] = l0 + delta;
        }
    }
}

/* alpha = compliance / h^2 of a group's instances: per frame. */
static inline void kf_alpha(struct kf_group *gr, real h2) {
    for (size_t k = 0; k < gr->count; ++k) gr->alpha[k] = gr->compliance[k] / h2;
}

/* One frame of `dt` (s), as CF(frame) of frame.c with the kinds of `kw`
 * (a group of count 0 is left out) after the links of every iteration:
 * bends, then tets, then tethers (xpbd's order). Returns the most
 * contacts of a substep. */
size_t CF(kframe)(struct kf_world *kw, real dt, unsigned substeps, unsigned iterations, real gx,
                  real gy, real gz, real radius, real mu_s, real mu_k) {
    struct cf_cloth *cl = &kw->cl;
    const real h = dt / (real)substeps, h2 = h * h;
    const real hgx = h2 * gx, hgy = h2 * gy, hgz = h2 * gz;
    real *restrict lambda = cl->lambda;
    struct kf_group *groups[3] = {&kw->bends, &kw->tets, &kw->tethers};
    unsigned most = 0;

    if (kw->li) {
        kf_index_constants(kw, h2);
    } else {
        cf_link_constants(cl, h2);
    }
    for (int q = 0; q < 3; ++q) kf_alpha(groups[q], h2);
    for (unsigned s = 0; s < substeps; ++s) {
        unsigned found = cf_predict(cl, h, hgx, hgy, hgz, radius);
        most = found > most ? found : most;
        for (size_t k = 0; k < cl->links; ++k) lambda[k] = 0;
        for (int q = 0; q < 3; ++q) {
            real *restrict gl = groups[q]->lambda;
            for (size_t k = 0; k < groups[q]->count; ++k) gl[k] = 0;
        }
        for (unsigned it = 0; it < iterations; ++it) {
            if (kw->li) {
                kf_index_links(kw);
            } else {
                cf_link_runs(cl);
            }
            if (kw->bends.count) kf_bends(cl, &kw->bends);
            if (kw->tets.count) kf_tets(cl, &kw->tets);
            if (kw->tethers.count) kf_tethers(cl, &kw->tethers);
            cf_contacts(cl, radius, mu_s);
        }
        cf_velocities(cl, h, mu_k);
    }
    return most;
}
