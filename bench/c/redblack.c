/* The plain red-black (colored) distance kernels a C engineer would write
 * for a rope and for a cloth: structure of arrays (x, y, z, w), per-link
 * rest, alpha~ (compliance / h^2) and g (1 / (w_i + w_j + alpha~), per
 * substep) arrays and the lambda array, links of one color after another,
 * `#pragma GCC ivdep` (within a color no particle repeats). No validation,
 * no finiteness test, no statistics.
 *
 * bench/build.rs compiles this file three times with -O3 -fno-math-errno
 * -ffp-contract=off: for the x86-64 baseline (RB_PREFIX=rb_base_), with
 * -march=native (rb_native_) and with -march=x86-64-v3 (rb_v3_, for the
 * instruction counts under valgrind, which does not decode AVX-512).
 *
 * The arithmetic is xpbd's colored one (src/colored/kernel/chunk.rs,
 * `candidate`) in the same order, without contraction: r = 1 / len,
 * c = len - rest, num = -c - alpha * lambda, delta = num * g, n = d * r,
 * a - (w_i delta) n, b + (w_j delta) n. So every copy must end with
 * xpbd's bits (the bench checks), also the vectorized ones: sqrt and the
 * division are correctly rounded in every SIMD width, and nothing is
 * fused. (A static particle, w = 0, moves by (0 * delta) * n = +-0, which
 * keeps its bits unless a coordinate is -0.0; the scenes have none.) */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifndef RB_PREFIX
#define RB_PREFIX rb_base_
#endif
#define RB_CAT2(a, b) a##b
#define RB_CAT(a, b) RB_CAT2(a, b)
#define RB(name) RB_CAT(RB_PREFIX, name)

/* One link: particles i, j; link slot k (in colored order). */
#define RB_LINK(T, SQRT)                                              \
    T d0 = x[j] - x[i], d1 = y[j] - y[i], d2 = z[j] - z[i];           \
    T len2 = (T)0 + d0 * d0 + d1 * d1 + d2 * d2;                      \
    T len = SQRT(len2);                                               \
    T r = (T)1 / len;                                                 \
    T c = len - rest[k];                                              \
    T num = -c - alpha[k] * lambda[k];                                \
    T delta = num * g[k];                                             \
    T si = w[i] * delta, sj = w[j] * delta;                           \
    T n0 = d0 * r, n1 = d1 * r, n2 = d2 * r;                          \
    x[i] = x[i] - si * n0; y[i] = y[i] - si * n1; z[i] = z[i] - si * n2; \
    x[j] = x[j] + sj * n0; y[j] = y[j] + sj * n1; z[j] = z[j] + sj * n2; \
    lambda[k] = lambda[k] + delta;

/* A rope of `links` links, link k joining particles k and k + 1: the even
 * links (slots 0 .. (links + 1) / 2), then the odd ones. The indices are
 * implicit, so the loads are strided, not gathered. */
#define RB_ROPE(NAME, T, SQRT)                                                    \
    void NAME(T *restrict x, T *restrict y, T *restrict z, const T *restrict w,  \
              const T *restrict rest, const T *restrict alpha,                    \
              const T *restrict g, T *restrict lambda, size_t links) {            \
        size_t even = (links + 1) / 2;                                            \
        for (size_t color = 0; color < 2; ++color) {                              \
            size_t base = color == 0 ? 0 : even;                                  \
            size_t count = color == 0 ? even : links / 2;                         \
            _Pragma("GCC ivdep")                                                  \
            for (size_t t = 0; t < count; ++t) {                                  \
                size_t i = 2 * t + color, j = i + 1, k = base + t;                \
                RB_LINK(T, SQRT)                                                  \
            }                                                                     \
        }                                                                         \
    }

/* Any colored link set (a context row for the cloth): per-link indices li, lj, color c in
 * slots starts[c] .. starts[c + 1]. */
#define RB_LINKS(NAME, T, SQRT)                                                   \
    void NAME(T *restrict x, T *restrict y, T *restrict z, const T *restrict w,  \
              const uint32_t *restrict li, const uint32_t *restrict lj,           \
              const T *restrict rest, const T *restrict alpha,                    \
              const T *restrict g, T *restrict lambda, const size_t *starts,      \
              size_t colors) {                                                    \
        for (size_t col = 0; col < colors; ++col) {                               \
            size_t end = starts[col + 1];                                         \
            _Pragma("GCC ivdep")                                                  \
            for (size_t k = starts[col]; k < end; ++k) {                          \
                size_t i = li[k], j = lj[k];                                      \
                RB_LINK(T, SQRT)                                                  \
            }                                                                     \
        }                                                                         \
    }

/* A rows x cols cloth with shear links (xpbd's `cloth` builder and
 * `cloth_coloring`), indices implicit: 8 colors of straight runs, each
 * link slot after the previous one. Color: horizontal links (r, c)-(r, c+1)
 * of even c, of odd c; vertical (r, c)-(r+1, c) of even r, of odd r;
 * diagonals (r, c)-(r+1, c+1) of even r, of odd r; diagonals
 * (r, c+1)-(r+1, c) of even r, of odd r. Within a row the particles of a
 * color are contiguous (stride 1) or every other one (stride 2). */
#define RB_RUN(T, SQRT, STEP)                                                     \
    _Pragma("GCC ivdep")                                                          \
    for (size_t t = 0; t < count; ++t) {                                          \
        size_t i = first + STEP * t, j = i + dj, k = slot + t;                    \
        RB_LINK(T, SQRT)                                                          \
    }

#define RB_GRID(NAME, T, SQRT)                                                    \
    void NAME(T *restrict x, T *restrict y, T *restrict z, const T *restrict w,  \
              const T *restrict rest, const T *restrict alpha,                    \
              const T *restrict g, T *restrict lambda, size_t rows, size_t cols) {\
        size_t c1 = cols - 1, slot = 0;                                           \
        /* first row, row step, row end, first column, column step, columns,  \
         * offset of i in the row, j - i */                                       \
        const size_t f[8][8] = {                                                  \
            {0, 1, rows, 0, 2, c1, 0, 1},         {0, 1, rows, 1, 2, c1, 0, 1},   \
            {0, 2, rows - 1, 0, 1, cols, 0, cols}, {1, 2, rows - 1, 0, 1, cols, 0, cols}, \
            {0, 2, rows - 1, 0, 1, c1, 0, cols + 1}, {1, 2, rows - 1, 0, 1, c1, 0, cols + 1}, \
            {0, 2, rows - 1, 0, 1, c1, 1, cols - 1}, {1, 2, rows - 1, 0, 1, c1, 1, cols - 1}}; \
        for (int col = 0; col < 8; ++col) {                                       \
            size_t step = f[col][4], dj = f[col][7];                              \
            size_t count = (f[col][5] - f[col][3] + step - 1) / step;             \
            for (size_t r = f[col][0]; r < f[col][2]; r += f[col][1]) {           \
                size_t first = r * cols + f[col][3] + f[col][6];                  \
                if (step == 1) {                                                  \
                    RB_RUN(T, SQRT, 1)                                            \
                } else {                                                          \
                    RB_RUN(T, SQRT, 2)                                            \
                }                                                                 \
                slot += count;                                                    \
            }                                                                     \
        }                                                                         \
    }

RB_ROPE(RB(rope_f64), double, sqrt)
RB_ROPE(RB(rope_f32), float, sqrtf)
RB_LINKS(RB(links_f64), double, sqrt)
RB_LINKS(RB(links_f32), float, sqrtf)
RB_GRID(RB(grid_f64), double, sqrt)
RB_GRID(RB(grid_f32), float, sqrtf)
