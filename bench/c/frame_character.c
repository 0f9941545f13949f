/* The plain C frame of a character's cape (issue 35, "A bench row against
 * plain C for each new kind"): the cloth frame of bench/c/frame.c (included
 * below: its link runs and per-frame link constants, unchanged) without
 * colliders, plus the three character-cloth features of xpbd's world step,
 * each optional:
 *   - skinned constraints (max distance and backstop, one particle each,
 *     solved after the links of every iteration, as xpbd's lagged walk);
 *   - local space: every moving particle carried by the root's motion
 *     scaled by the inertias before the prediction, gravity and the wind
 *     turned into the frame;
 *   - wind: drag and lift per triangle, summed per particle, applied to the
 *     velocities before the prediction.
 * Timed against xpbd's `step_colored` by bench/src/character.rs.
 *
 * The formulas are xpbd's in xpbd's order of operations (no fused
 * multiply-add), so the results agree with xpbd's to the bit:
 *   - skin (src/constraint/skin.rs, constraint::update): in substep s of S
 *     the skinned point p = target + (previous - target) lag, lag =
 *     (S - 1 - s)/S (exactly target when lag = 0), the normal the same
 *     blend made unit; max distance C = |x - p| - R k (lambda <= 0), then
 *     the backstop at the corrected x, C = |x - c| - r with c = p - n (d +
 *     r) (lambda >= 0); dl = (-C - alpha lambda)/(w + alpha), x += (w dl)
 *     grad; |v| and the unit vector summed from zero (xpbd's unit_any, its
 *     rescaled rare path included); alpha = compliance / h^2 once per
 *     frame; previous <- target and previous normal <- target normal at
 *     the frame's end;
 *   - local space (src/step/local_space.rs): the root T_k at k/S
 *     (translation linear, rotation by nlerp on the short arc), the carry
 *     dR' = nlerp(1, R_{s+1}^T R_s, a), dc' = l R_{s+1}^T (c_s - c_{s+1}),
 *     x <- dR' x + dc', v <- dR' v for w > 0, R(q) v = v + w t + u x t with
 *     t = 2 u x v; gravity and the wind turned by R_{s+1}^T; no carry at
 *     a teleport or l = a = 0; previous <- target, teleport <- 0 at the
 *     frame's end. The velocity and acceleration clamps are left out
 *     (the scene has none: xpbd's default, +inf);
 *   - wind (src/step/wind.rs): n = (x1 - x0) x (x2 - x0), u = (v0 + v1 +
 *     v2)/3 - u_w, drag -1/2 rho C_d A |cos| |u|^2 u^, lift 1/2 rho C_l A
 *     |u|^2 cos (cos u^ - n^), a third to each corner, summed per particle
 *     in triangle order (in the substep's start arrays, free until the
 *     prediction), then v += (h w) sum for w > 0.
 * The substep: carry, wind, prediction (p <- x; x <- (x + h v) + h^2 g),
 * every lambda <- 0, `iterations` times the link runs then the skin
 * constraints, then v <- (x - p)/h for w != 0 (a pinned particle keeps its
 * velocity). No validation, no finiteness tests, no statistics.
 *
 * The particle loops carry `#pragma GCC ivdep` and are written with
 * selects so that they vectorise; the skin loop (one particle per
 * instance, distinct particles) too, though its branches (one-sided
 * limits) keep GCC from vectorising it; the triangle loop scatters into
 * shared corners and stays scalar.
 *
 * bench/build.rs compiles this file like frame.c, four times with -O3
 * -fno-math-errno -ffp-contract=off: double and float (-DCF_F32), each at
 * the x86-64 baseline (CF_PREFIX ch_base_f64_ / ch_base_f32_) and with
 * -march=native (ch_native_f64_ / ch_native_f32_). (The copy of frame.c's
 * own functions under these prefixes is unused.) */
#include "frame.c"

#ifdef CF_F32
#define CH_FABS fabsf
#else
#define CH_FABS fabs
#endif

/* A rigid transform: unit quaternion [x, y, z, w], translation (m). */
struct ch_transform {
    real rotation[4];
    real translation[3];
};

/* Skinned constraints, one particle each, structure of arrays per
 * instance (count 0: none). */
struct ch_skin {
    size_t count;
    const uint32_t *p;
    real *prev[3];
    const real *target[3];
    real *prev_normal[3];
    const real *target_normal[3];
    const real *max_distance, *backstop_distance, *backstop_radius;
    const real *compliance, *backstop_compliance;
    /* per frame: compliance / h^2 */
    real *alpha, *backstop_alpha;
    /* per substep */
    real *lambda, *backstop_lambda;
    /* the max distance scale k */
    real scale;
};

/* Wind on triangles (count 0: none). */
struct ch_wind {
    size_t count;
    const uint32_t *tri;
    const real *drag, *lift;
    real velocity[3];
    real density;
};

/* Local space (on 0: world space). */
struct ch_local {
    uint32_t on, teleport;
    struct ch_transform previous, target;
    real linear_inertia, angular_inertia;
};

/* The frame's state: frame.c's cloth (its contact arrays lc[] and touch[]
 * unused) and the features. */
struct ch_world {
    struct cf_cloth cl;
    struct ch_skin skin;
    struct ch_wind wind;
    struct ch_local local;
};

static inline void ch_cross(real o[3], const real a[3], const real b[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* ---- quaternions (local space) ---- */

static inline real ch_qdot(const real a[4], const real b[4]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

static inline void ch_normalized(real o[4], const real q[4]) {
    real n = CF_SQRT(ch_qdot(q, q));
    for (int c = 0; c < 4; ++c) o[c] = q[c] / n;
}

static inline void ch_nlerp(real o[4], const real a[4], const real b[4], real f) {
    real q[4];
    for (int c = 0; c < 4; ++c) q[c] = a[c] + (b[c] - a[c]) * f;
    ch_normalized(o, q);
}

static inline void ch_conjugate(real o[4], const real q[4]) {
    o[0] = (real)0 - q[0];
    o[1] = (real)0 - q[1];
    o[2] = (real)0 - q[2];
    o[3] = q[3];
}

/* The Hamilton product a b (b's rotation first). */
static inline void ch_qmul(real o[4], const real a[4], const real b[4]) {
    o[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    o[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    o[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    o[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* R(q) v = v + w t + u x t, t = 2 (u x v). */
static inline void ch_rotate(real o[3], const real q[4], const real v[3]) {
    const real u[3] = {q[0], q[1], q[2]}, two = (real)1 + (real)1;
    real t[3], c[3];
    ch_cross(t, u, v);
    for (int k = 0; k < 3; ++k) t[k] = two * t[k];
    ch_cross(c, u, t);
    for (int k = 0; k < 3; ++k) o[k] = (v[k] + q[3] * t[k]) + c[k];
}

/* The root's rotation at boundary k of S (unit, short arc). */
static void ch_rotation_at(real o[4], const struct ch_local *l, unsigned k, unsigned S) {
    real a[4], b[4];
    ch_normalized(a, l->previous.rotation);
    ch_normalized(b, l->target.rotation);
    if (ch_qdot(a, b) < 0) {
        for (int c = 0; c < 4; ++c) b[c] = (real)0 - b[c];
    }
    if (k >= S) {
        for (int c = 0; c < 4; ++c) o[c] = b[c];
        return;
    }
    ch_nlerp(o, a, b, (real)k / (real)S);
}

/* The root's translation at boundary k of S (exactly target at k = S). */
static void ch_translation_at(real o[3], const struct ch_local *l, unsigned k, unsigned S) {
    const real left = (real)(S - k) / (real)S;
    for (int c = 0; c < 3; ++c) {
        real p = l->previous.translation[c], t = l->target.translation[c];
        o[c] = t + left * (p - t);
    }
}

/* Substep s of S: the root's rotation at its end (q1) and, when returning
 * 1, the scaled carry (q, c); 0: no carry (teleport, or both inertias 0). */
static int ch_substep(const struct ch_local *l, unsigned s, unsigned S, real q[4], real c[3],
                      real q1[4]) {
    const unsigned end = s + 1;
    ch_rotation_at(q1, l, l->teleport ? S : end, S);
    if (l->teleport || (l->linear_inertia == 0 && l->angular_inertia == 0)) return 0;
    real q0[4], c0[3], c1[3], back[4], dq[4], d[3], dc[3];
    ch_rotation_at(q0, l, s, S);
    ch_translation_at(c0, l, s, S);
    ch_translation_at(c1, l, end, S);
    ch_conjugate(back, q1);
    ch_qmul(dq, back, q0);
    if (dq[3] < 0) {
        for (int k = 0; k < 4; ++k) dq[k] = (real)0 - dq[k];
    }
    for (int k = 0; k < 3; ++k) d[k] = c0[k] - c1[k];
    ch_rotate(dc, back, d);
    if (l->angular_inertia == 1) {
        for (int k = 0; k < 4; ++k) q[k] = dq[k];
    } else {
        const real one[4] = {0, 0, 0, 1};
        ch_nlerp(q, one, dq, l->angular_inertia);
    }
    for (int k = 0; k < 3; ++k) c[k] = l->linear_inertia * dc[k];
    return 1;
}

/* x <- q x + c, v <- q v for every particle with w > 0. */
static inline void ch_carry(struct cf_cloth *cl, const real q[4], const real c[3]) {
    const size_t n = cl->n;
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    real *restrict vx = cl->vx, *restrict vy = cl->vy, *restrict vz = cl->vz;
    const real *restrict w = cl->w;
#pragma GCC ivdep
    for (size_t i = 0; i < n; ++i) {
        const real p[3] = {x[i], y[i], z[i]}, u[3] = {vx[i], vy[i], vz[i]};
        real rp[3], rv[3];
        ch_rotate(rp, q, p);
        ch_rotate(rv, q, u);
        const int moves = w[i] > 0;
        x[i] = moves ? rp[0] + c[0] : p[0];
        y[i] = moves ? rp[1] + c[1] : p[1];
        z[i] = moves ? rp[2] + c[2] : p[2];
        vx[i] = moves ? rv[0] : u[0];
        vy[i] = moves ? rv[1] : u[1];
        vz[i] = moves ? rv[2] : u[2];
    }
}

/* ---- wind ---- */

/* Every triangle's drag and lift, a third to each corner, summed per
 * particle in px, py, pz; then v += (h w) sum for w > 0. */
static void ch_wind_apply(struct cf_cloth *cl, const struct ch_wind *wd, const real air[3],
                          real h) {
    const size_t n = cl->n;
    const real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    real *restrict vx = cl->vx, *restrict vy = cl->vy, *restrict vz = cl->vz;
    real *restrict sx = cl->px, *restrict sy = cl->py, *restrict sz = cl->pz;
    const real *restrict w = cl->w;
    const uint32_t *restrict tri = wd->tri;
    const real third = (real)1 / (real)3, half = (real)1 / (real)2, rho = wd->density;
    for (size_t i = 0; i < n; ++i) {
        sx[i] = 0;
        sy[i] = 0;
        sz[i] = 0;
    }
    for (size_t t = 0; t < wd->count; ++t) {
        const size_t a = tri[3 * t], b = tri[3 * t + 1], c = tri[3 * t + 2];
        const real e1[3] = {x[b] - x[a], y[b] - y[a], z[b] - z[a]};
        const real e2[3] = {x[c] - x[a], y[c] - y[a], z[c] - z[a]};
        real nv[3];
        ch_cross(nv, e1, e2);
        const real da = CF_SQRT(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]);
        const real u[3] = {third * ((vx[a] + vx[b]) + vx[c]) - air[0],
                           third * ((vy[a] + vy[b]) + vy[c]) - air[1],
                           third * ((vz[a] + vz[b]) + vz[c]) - air[2]};
        const real speed2 = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        const real speed = CF_SQRT(speed2);
        if (!(da > 0 && speed > 0 && isfinite(da) && isfinite(speed))) continue;
        const real rn = (real)1 / da, ru = (real)1 / speed;
        const real nh[3] = {rn * nv[0], rn * nv[1], rn * nv[2]};
        const real uh[3] = {ru * u[0], ru * u[1], ru * u[2]};
        const real cosv = nh[0] * uh[0] + nh[1] * uh[1] + nh[2] * uh[2];
        const real q = half * rho * (half * da) * speed2;
        const real drag = q * wd->drag[t] * CH_FABS(cosv);
        const real lift = q * wd->lift[t] * cosv;
        real share[3];
        for (int k = 0; k < 3; ++k) {
            const real across = cosv * uh[k] - nh[k];
            share[k] = third * (lift * across - drag * uh[k]);
        }
        const size_t corner[3] = {a, b, c};
        for (int k = 0; k < 3; ++k) {
            const size_t i = corner[k];
            sx[i] = sx[i] + share[0];
            sy[i] = sy[i] + share[1];
            sz[i] = sz[i] + share[2];
        }
    }
#pragma GCC ivdep
    for (size_t i = 0; i < n; ++i) {
        const real k = h * w[i];
        const int moves = w[i] > 0;
        vx[i] = moves ? vx[i] + k * sx[i] : vx[i];
        vy[i] = moves ? vy[i] + k * sy[i] : vy[i];
        vz[i] = moves ? vz[i] + k * sz[i] : vz[i];
    }
}

/* ---- skinned constraints ---- */

/* v / |v| with |v|^2 summed from zero; 0 (no direction) when v is not
 * finite or zero. The rare path of ch_unit: |v|^2 under- or overflowed,
 * v first divided by its largest absolute coordinate. */
static __attribute__((noinline, cold)) int ch_unit_rescaled(real o[3], const real v[3]) {
    real m = 0;
    for (int c = 0; c < 3; ++c) {
        if (!isfinite(v[c])) return 0;
        real a = CH_FABS(v[c]);
        m = a > m ? a : m;
    }
    if (m == 0) return 0;
    const real s[3] = {v[0] / m, v[1] / m, v[2] / m};
    const real len2 = (real)0 + s[0] * s[0] + s[1] * s[1] + s[2] * s[2];
    if (!isfinite(len2) || len2 < CF_MIN_NORMAL) return 0;
    const real len = CF_SQRT(len2);
    for (int c = 0; c < 3; ++c) o[c] = s[c] / len;
    return 1;
}

static inline int ch_unit(real o[3], const real v[3]) {
    const real len2 = (real)0 + v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if (!isfinite(len2) || len2 < CF_MIN_NORMAL) return ch_unit_rescaled(o, v);
    const real len = CF_SQRT(len2);
    for (int c = 0; c < 3; ++c) o[c] = v[c] / len;
    return 1;
}

/* One limit C = |x - center| - radius (one-sided: `pull` lambda <= 0,
 * else lambda >= 0) on particle x of inverse mass w. */
static inline void ch_limit(real x[3], real w, const real center[3], real radius,
                            const real fallback[3], real alpha, real *lambda, int pull) {
    const real v[3] = {x[0] - center[0], x[1] - center[1], x[2] - center[2]};
    real g[3], length = 0;
    if (ch_unit(g, v)) {
        length = (real)0 + v[0] * g[0] + v[1] * g[1] + v[2] * g[2];
    } else {
        g[0] = fallback[0];
        g[1] = fallback[1];
        g[2] = fallback[2];
    }
    const real cval = length - radius, l0 = *lambda;
    real delta = (-cval - alpha * l0) / (w + alpha);
    if (pull) {
        if (l0 + delta > 0) {
            delta = -l0; /* slack: lambda back to 0 */
            if (delta == 0) return;
        }
        *lambda = l0 + delta;
    } else {
        real next = l0 + delta;
        if (next < 0) next = 0;
        delta = next - l0;
        *lambda = next;
    }
    const real s = w * delta;
    for (int c = 0; c < 3; ++c) x[c] = x[c] + s * g[c];
}

/* Every skinned constraint in order: the max distance, then the backstop
 * at the corrected position. */
static inline void ch_skin(struct cf_cloth *cl, struct ch_skin *sk, real lag) {
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    const real *restrict w = cl->w;
    const real *restrict px = sk->prev[0], *restrict py = sk->prev[1], *restrict pz = sk->prev[2];
    const real *restrict tx = sk->target[0], *restrict ty = sk->target[1],
                         *restrict tz = sk->target[2];
    const real *restrict pnx = sk->prev_normal[0], *restrict pny = sk->prev_normal[1],
                         *restrict pnz = sk->prev_normal[2];
    const real *restrict tnx = sk->target_normal[0], *restrict tny = sk->target_normal[1],
                         *restrict tnz = sk->target_normal[2];
    const real *restrict reach = sk->max_distance, *restrict bd = sk->backstop_distance,
                         *restrict br = sk->backstop_radius;
    const real *restrict alpha = sk->alpha, *restrict balpha = sk->backstop_alpha;
    real *restrict lambda = sk->lambda, *restrict blambda = sk->backstop_lambda;
    const uint32_t *restrict pi = sk->p;
    const real scale = sk->scale;
#pragma GCC ivdep
    for (size_t k = 0; k < sk->count; ++k) {
        const size_t i = pi[k];
        const real wi = w[i];
        if (wi == 0) continue;
        real point[3] = {tx[k], ty[k], tz[k]};
        if (lag != 0) {
            point[0] = point[0] + (px[k] - point[0]) * lag;
            point[1] = point[1] + (py[k] - point[1]) * lag;
            point[2] = point[2] + (pz[k] - point[2]) * lag;
        }
        const int backstop = br[k] > 0;
        real normal[3] = {1, 0, 0};
        int has_normal = 0;
        if (backstop) {
            real blend[3] = {tnx[k], tny[k], tnz[k]};
            if (lag != 0) {
                blend[0] = blend[0] + (pnx[k] - blend[0]) * lag;
                blend[1] = blend[1] + (pny[k] - blend[1]) * lag;
                blend[2] = blend[2] + (pnz[k] - blend[2]) * lag;
            }
            has_normal = ch_unit(normal, blend);
            if (!has_normal) {
                const real tn[3] = {tnx[k], tny[k], tnz[k]};
                has_normal = ch_unit(normal, tn);
            }
            if (!has_normal) {
                normal[0] = 1;
                normal[1] = 0;
                normal[2] = 0;
            }
        }
        real xi[3] = {x[i], y[i], z[i]};
        if (isfinite(reach[k])) {
            ch_limit(xi, wi, point, reach[k] * scale, normal, alpha[k], &lambda[k], 1);
        }
        if (has_normal) {
            const real behind = bd[k] + br[k];
            const real center[3] = {point[0] - normal[0] * behind, point[1] - normal[1] * behind,
                                    point[2] - normal[2] * behind};
            ch_limit(xi, wi, center, br[k], normal, balpha[k], &blambda[k], 0);
        }
        x[i] = xi[0];
        y[i] = xi[1];
        z[i] = xi[2];
    }
}

/* ---- the particle passes without colliders ---- */

/* p <- x; x <- (x + h v) + h^2 g for w != 0 (a pinned particle moves by
 * h v). */
static inline void ch_predict(struct cf_cloth *cl, real h, const real hg[3]) {
    const size_t n = cl->n;
    real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    const real *restrict vx = cl->vx, *restrict vy = cl->vy, *restrict vz = cl->vz;
    real *restrict px = cl->px, *restrict py = cl->py, *restrict pz = cl->pz;
    const real *restrict w = cl->w;
#pragma GCC ivdep
    for (size_t i = 0; i < n; ++i) {
        const real x0 = x[i], y0 = y[i], z0 = z[i];
        const int moves = w[i] != 0;
        px[i] = x0;
        py[i] = y0;
        pz[i] = z0;
        x[i] = (x0 + h * vx[i]) + (moves ? hg[0] : (real)0);
        y[i] = (y0 + h * vy[i]) + (moves ? hg[1] : (real)0);
        z[i] = (z0 + h * vz[i]) + (moves ? hg[2] : (real)0);
    }
}

/* v <- (x - p)/h for w != 0; a pinned particle keeps its velocity. */
static inline void ch_velocities(struct cf_cloth *cl, real h) {
    const size_t n = cl->n;
    const real *restrict x = cl->x, *restrict y = cl->y, *restrict z = cl->z;
    real *restrict vx = cl->vx, *restrict vy = cl->vy, *restrict vz = cl->vz;
    const real *restrict px = cl->px, *restrict py = cl->py, *restrict pz = cl->pz;
    const real *restrict w = cl->w;
#pragma GCC ivdep
    for (size_t i = 0; i < n; ++i) {
        const int moves = w[i] != 0;
        const real ux = (x[i] - px[i]) / h, uy = (y[i] - py[i]) / h, uz = (z[i] - pz[i]) / h;
        vx[i] = moves ? ux : vx[i];
        vy[i] = moves ? uy : vy[i];
        vz[i] = moves ? uz : vz[i];
    }
}

/* One frame of `dt` (s) with `gravity` (m/s^2, three values) in world
 * axes. */
void CF(character_frame)(struct ch_world *cw, real dt, unsigned substeps, unsigned iterations,
                         const real *gravity) {
    struct cf_cloth *cl = &cw->cl;
    struct ch_skin *sk = &cw->skin;
    const real h = dt / (real)substeps, h2 = h * h;
    const real g[3] = {gravity[0], gravity[1], gravity[2]};
    real *restrict lambda = cl->lambda;

    cf_link_constants(cl, h2);
    for (size_t k = 0; k < sk->count; ++k) {
        sk->alpha[k] = sk->compliance[k] / h2;
        sk->backstop_alpha[k] = sk->backstop_compliance[k] / h2;
    }
    for (unsigned s = 0; s < substeps; ++s) {
        real gl[3] = {g[0], g[1], g[2]}, air[3];
        for (int c = 0; c < 3; ++c) air[c] = cw->wind.velocity[c];
        if (cw->local.on) {
            real q[4], c[3], q1[4], back[4];
            if (ch_substep(&cw->local, s, substeps, q, c, q1)) ch_carry(cl, q, c);
            ch_conjugate(back, q1);
            ch_rotate(gl, back, g);
            const real wv[3] = {air[0], air[1], air[2]};
            ch_rotate(air, back, wv);
        }
        if (cw->wind.count) ch_wind_apply(cl, &cw->wind, air, h);
        const real hg[3] = {h2 * gl[0], h2 * gl[1], h2 * gl[2]};
        ch_predict(cl, h, hg);
        for (size_t k = 0; k < cl->links; ++k) lambda[k] = 0;
        for (size_t k = 0; k < sk->count; ++k) {
            sk->lambda[k] = 0;
            sk->backstop_lambda[k] = 0;
        }
        const real lag = (real)(substeps - 1 - s) / (real)substeps;
        for (unsigned it = 0; it < iterations; ++it) {
            cf_link_runs(cl);
            if (sk->count) ch_skin(cl, sk, lag);
        }
        ch_velocities(cl, h);
    }
    for (size_t k = 0; k < sk->count; ++k) {
        for (int c = 0; c < 3; ++c) {
            sk->prev[c][k] = sk->target[c][k];
            sk->prev_normal[c][k] = sk->target_normal[c][k];
        }
    }
    if (cw->local.on) {
        cw->local.previous = cw->local.target;
        cw->local.teleport = 0;
    }
}
