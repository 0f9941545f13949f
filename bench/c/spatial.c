/* A plain C spatial hash of xpbd's self-collision design, for the bench
 * (issue 18's speed line): one substep of particles with self-collision
 * only, written the way one would in C without xpbd's safety rules.
 *
 * Compiled by bench/build.rs with reference.c's flags (-O3 -fno-math-errno
 * -ffp-contract=off, x86-64 baseline). The design is src/step/spatial.rs's:
 * cubes of side q = 4r, cell (a, b, c) to bucket
 * floor(m * B / 2^64), m = ((a*92837111) ^ (b*689287499) ^ (c*283923481))
 * * 0x9E3779B97F4A7C15 (wrapping 64-bit products), B = 2n + 1 buckets, a counting sort into `table` (B + 1
 * bucket boundaries) and `ids` (each bucket's particles in descending
 * index order); for each particle i in index order the 27 cells around
 * its cell (x fastest, then y, then z), in each the candidates j > i of
 * that very cell closer than q; then one Gauss-Seidel sweep of the pairs
 * in that order, C = |xi - xj| - 2r(1 + 1/64) >= 0, lambda >= 0 (xpbd's
 * update, same operations in the same order, no FMA). Around it what one
 * substep of xpbd::step does with nothing else on: x_prev, prediction,
 * the displacement bound r, the velocity update. So the results must equal
 * xpbd's bit for bit (the bench checks positions, velocities and pairs).
 *
 * Left out, as a bare C loop would: input validation, the rollback copy,
 * finiteness checks, statistics, links (the bench scene has none, so the
 * link exclusion is skipped here and costs xpbd its empty-row check),
 * friction (the bench sets it to zero). */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t i, j;
    double lambda;
} SpatialPair64;

typedef struct {
    uint32_t i, j;
    float lambda;
} SpatialPair32;

/* floor(s) as xpbd's `cell`: truncation, one down when it rounded up. */
static inline int64_t spatial_floor(double s) {
    int64_t t = (int64_t)s;
    return ((double)t > s) ? t - 1 : t;
}

static inline size_t spatial_bucket(int64_t a, int64_t b, int64_t c, uint64_t buckets) {
    uint64_t h = ((uint64_t)a * 92837111u) ^ ((uint64_t)b * 689287499u) ^
                 ((uint64_t)c * 283923481u);
    uint64_t m = h * 0x9E3779B97F4A7C15u;
    return (size_t)(((unsigned __int128)m * buckets) >> 64);
}

#define SPATIAL_STEP(NAME, T, PAIR, SQRT, TMIN)                                     \
    size_t NAME(T (*x)[3], T (*v)[3], const T *w, size_t n, T (*prev)[3],          \
                uint32_t *table, uint32_t *ids, PAIR *pairs, size_t cap, T h, T r,  \
                T compliance, const T *g) {                                         \
        const T h2 = h * h;                                                         \
        /* x_prev, prediction, the displacement bound. */                           \
        for (size_t i = 0; i < n; ++i) {                                            \
            T *p = prev[i], *xi = x[i], *vi = v[i];                                 \
            p[0] = xi[0]; p[1] = xi[1]; p[2] = xi[2];                               \
            if (w[i] == 0) {                                                        \
                if (vi[0] != 0 || vi[1] != 0 || vi[2] != 0) {                       \
                    for (int k = 0; k < 3; ++k) xi[k] = xi[k] + h * vi[k];          \
                }                                                                   \
                continue;                                                           \
            }                                                                       \
            for (int k = 0; k < 3; ++k) xi[k] = xi[k] + h * vi[k] + h2 * g[k];      \
            T e0 = xi[0] - p[0], e1 = xi[1] - p[1], e2 = xi[2] - p[2];              \
            T d2 = (T)0 + e0 * e0 + e1 * e1 + e2 * e2;                              \
            if (d2 > r * r) {                                                       \
                T s = r / SQRT(d2);                                                 \
                for (int k = 0; k < 3; ++k) xi[k] = p[k] + (xi[k] - p[k]) * s;      \
            }                                                                       \
        }                                                                           \
        /* The hash: counting sort into bucket boundaries and ids. */               \
        const uint64_t buckets = 2 * (uint64_t)n + 1;                               \
        const T q = r * (T)4.0, inv = (T)1 / q, q2 = q * q;                         \
        for (size_t b = 0; b <= buckets; ++b) table[b] = 0;                         \
        for (size_t i = 0; i < n; ++i) {                                            \
            size_t b = spatial_bucket(spatial_floor((double)(x[i][0] * inv)),       \
                                      spatial_floor((double)(x[i][1] * inv)),       \
                                      spatial_floor((double)(x[i][2] * inv)),       \
                                      buckets);                                     \
            table[b]++;                                                             \
        }                                                                           \
        uint32_t sum = 0;                                                           \
        for (size_t b = 0; b <= buckets; ++b) {                                     \
            sum += table[b];                                                        \
            table[b] = sum;                                                         \
        }                                                                           \
        for (size_t i = 0; i < n; ++i) {                                            \
            size_t b = spatial_bucket(spatial_floor((double)(x[i][0] * inv)),       \
                                      spatial_floor((double)(x[i][1] * inv)),       \
                                      spatial_floor((double)(x[i][2] * inv)),       \
                                      buckets);                                     \
            ids[--table[b]] = (uint32_t)i;                                          \
        }                                                                           \
        /* The query: 27 cells around each particle's, j > i of that cell. */      \
        size_t count = 0;                                                           \
        for (size_t i = 0; i < n; ++i) {                                            \
            const T *xi = x[i];                                                     \
            int64_t ca = spatial_floor((double)(xi[0] * inv));                      \
            int64_t cb = spatial_floor((double)(xi[1] * inv));                      \
            int64_t cc = spatial_floor((double)(xi[2] * inv));                      \
            for (int64_t dz = -1; dz <= 1; ++dz)                                    \
                for (int64_t dy = -1; dy <= 1; ++dy)                                \
                    for (int64_t dx = -1; dx <= 1; ++dx) {                          \
                        int64_t a = ca + dx, b = cb + dy, c = cc + dz;              \
                        size_t k = spatial_bucket(a, b, c, buckets);                \
                        for (uint32_t s = table[k]; s < table[k + 1]; ++s) {        \
                            uint32_t j = ids[s];                                    \
                            if (j <= i) break; /* ids descend */                    \
                            if (w[i] == 0 && w[j] == 0) continue;                   \
                            const T *xj = x[j];                                     \
                            T e0 = xj[0] - xi[0], e1 = xj[1] - xi[1],               \
                              e2 = xj[2] - xi[2];                                   \
                            T d2 = (T)0 + e0 * e0 + e1 * e1 + e2 * e2;              \
                            if (d2 >= q2) continue;                                 \
                            if (spatial_floor((double)(xj[0] * inv)) != a ||        \
                                spatial_floor((double)(xj[1] * inv)) != b ||        \
                                spatial_floor((double)(xj[2] * inv)) != c)          \
                                continue;                                           \
                            if (count < cap) {                                      \
                                pairs[count].i = (uint32_t)i;                       \
                                pairs[count].j = j;                                 \
                                pairs[count].lambda = 0;                            \
                            }                                                       \
                            count++;                                                \
                        }                                                           \
                    }                                                               \
        }                                                                           \
        /* One Gauss-Seidel sweep: |xi - xj| >= 2r(1 + 1/64), lambda >= 0. */      \
        const T d = r + r, dist = d + d / (T)64.0, alpha = compliance / h2;         \
        size_t solved = count < cap ? count : cap;                                  \
        for (size_t k = 0; k < solved; ++k) {                                       \
            PAIR *p = &pairs[k];                                                    \
            T *xa = x[p->i], *xb = x[p->j];                                         \
            T wa = w[p->i], wb = w[p->j];                                           \
            if (wa == 0 && wb == 0) continue;                                       \
            T e0 = xa[0] - xb[0], e1 = xa[1] - xb[1], e2 = xa[2] - xb[2];           \
            T len2 = (T)0 + e0 * e0 + e1 * e1 + e2 * e2;                            \
            if (!(len2 >= TMIN) || !isfinite(len2)) continue;                       \
            T len = SQRT(len2);                                                     \
            T n0 = e0 / len, n1 = e1 / len, n2 = e2 / len;                          \
            T c = len - dist;                                                       \
            T num = -c - alpha * p->lambda;                                         \
            T delta = num / ((wa + wb) + alpha);                                    \
            T next = p->lambda + delta;                                             \
            if (next < 0) next = 0;                                                 \
            delta = next - p->lambda;                                               \
            if (wa != 0) {                                                          \
                T s = wa * delta;                                                   \
                xa[0] = xa[0] + s * n0; xa[1] = xa[1] + s * n1;                     \
                xa[2] = xa[2] + s * n2;                                             \
            }                                                                       \
            if (wb != 0) {                                                          \
                T s = wb * delta;                                                   \
                xb[0] = xb[0] - s * n0; xb[1] = xb[1] - s * n1;                     \
                xb[2] = xb[2] - s * n2;                                             \
            }                                                                       \
            p->lambda = next;                                                       \
        }                                                                           \
        /* The velocity update. */                                                  \
        for (size_t i = 0; i < n; ++i) {                                            \
            if (w[i] == 0) continue;                                                \
            for (int k = 0; k < 3; ++k) v[i][k] = (x[i][k] - prev[i][k]) / h;       \
        }                                                                           \
        return count;                                                               \
    }

SPATIAL_STEP(spatial_step_f64, double, SpatialPair64, sqrt, DBL_MIN)
SPATIAL_STEP(spatial_step_f32, float, SpatialPair32, sqrtf, FLT_MIN)
