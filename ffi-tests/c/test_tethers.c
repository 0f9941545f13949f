/* xpbd_build_tethers_along_links3[_f32]: a zigzag rope anchored at its top
 * gets tethers as long as the rope up to each particle (the sum of its link
 * lengths, in that order), longer than the straight line of
 * xpbd_build_tethers3; a particle no link reaches gets none; every rejected
 * call leaves `out` and `*out_count` untouched. */
#include <math.h>

#include "ensure.h"

#define TN 7

void test_tethers(void) {
    double x[TN + 1][3], w[TN + 1], dist[TN + 1], sum = 0.0;
    uint32_t near[TN + 1], anchor = 0;
    XpbdLink links[TN - 1];
    XpbdTether out[TN + 1], straight[TN + 1], sentinel;
    size_t count = 99, straight_count = 0, k;
    for (k = 0; k <= TN; ++k) { /* particle TN is alone: no link reaches it */
        x[k][0] = (k % 2) ? 0.0866 : 0.0;
        x[k][1] = -0.05 * (double)k;
        x[k][2] = 0.0;
        w[k] = k == 0 ? 0.0 : 10.0;
    }
    ENSURE_STATUS(xpbd_build_rope3(&x[0][0], TN, 0.0, links, TN - 1, &count), XPBD_STATUS_OK);
    ENSURE_STATUS(xpbd_build_tethers_along_links3(&x[0][0], w, TN + 1, links, TN - 1, &anchor, 1, 1e-6, dist,
                                                  near, TN + 1, out, TN + 1, &count),
                  XPBD_STATUS_OK);
    ENSURE(count == TN - 1);
    ENSURE_STATUS(xpbd_build_tethers3(&x[0][0], w, TN + 1, &anchor, 1, 1e-6, straight, TN + 1, &straight_count),
                  XPBD_STATUS_OK);
    ENSURE(straight_count == TN);
    for (k = 0; k + 1 < TN; ++k) {
        double d[3] = {x[k + 1][0] - x[k][0], x[k + 1][1] - x[k][1], x[k + 1][2] - x[k][2]};
        sum += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        ENSURE(out[k].particle == k + 1 && out[k].anchor == 0);
        ENSURE_BITS64(out[k].max_distance, sum);
        ENSURE(out[k].max_distance >= straight[k].max_distance);
        ENSURE(out[k].compliance == 1e-6 && out[k].lambda == 0.0);
    }
    ENSURE(near[TN] == UINT32_MAX);

    /* Rejected calls write neither `out` nor `*out_count`. */
    memset(&sentinel, 0x5a, sizeof sentinel);
    for (k = 0; k <= TN; ++k) out[k] = sentinel;
    count = 77;
    ENSURE_STATUS(xpbd_build_tethers_along_links3(&x[0][0], w, TN + 1, links, TN - 1, &anchor, 1, 1e-6, dist,
                                                  near, TN + 1, out, TN - 2, &count),
                  XPBD_STATUS_CAPACITY_TOO_SMALL);
    ENSURE_STATUS(xpbd_build_tethers_along_links3(&x[0][0], w, TN + 1, links, TN - 1, &anchor, 1, 1e-6, dist,
                                                  near, TN, out, TN + 1, &count),
                  XPBD_STATUS_CAPACITY_TOO_SMALL);
    ENSURE_STATUS(xpbd_build_tethers_along_links3(&x[0][0], w, TN + 1, links, TN - 1, &anchor, 1, -1.0, dist,
                                                  near, TN + 1, out, TN + 1, &count),
                  XPBD_STATUS_INVALID_COMPLIANCE);
    ENSURE_STATUS(xpbd_build_tethers_along_links3(&x[0][0], w, TN + 1, links, TN - 1, &anchor, 0, 1e-6, dist,
                                                  near, TN + 1, out, TN + 1, &count),
                  XPBD_STATUS_INVALID_ARGUMENT);
    ENSURE_STATUS(xpbd_build_tethers_along_links3(&x[0][0], w, TN + 1, links, TN - 1, &anchor, 1, 1e-6, dist,
                                                  near, TN + 1, out, TN + 1, NULL),
                  XPBD_STATUS_NULL_POINTER);
    ENSURE_STATUS(xpbd_build_tethers_along_links3(&x[0][0], w, TN + 1, links, TN - 1, &anchor, 1, 1e-6,
                                                  (double *)out, near, TN + 1, out, TN + 1, &count),
                  XPBD_STATUS_ALIASED_BUFFERS);
    links[2].j = TN + 5;
    ENSURE_STATUS(xpbd_build_tethers_along_links3(&x[0][0], w, TN + 1, links, TN - 1, &anchor, 1, 1e-6, dist,
                                                  near, TN + 1, out, TN + 1, &count),
                  XPBD_STATUS_INDEX_OUT_OF_RANGE);
    links[2].j = links[2].i;
    ENSURE_STATUS(xpbd_build_tethers_along_links3(&x[0][0], w, TN + 1, links, TN - 1, &anchor, 1, 1e-6, dist,
                                                  near, TN + 1, out, TN + 1, &count),
                  XPBD_STATUS_SAME_PARTICLE);
    ENSURE(count == 77);
    for (k = 0; k <= TN; ++k) ENSURE(memcmp(&out[k], &sentinel, sizeof sentinel) == 0);

    { /* f32: the same rope, the same order of sums, in float */
        float xf[TN][3], wf[TN], df[TN], sumf = 0.0f;
        uint32_t nf[TN];
        XpbdLinkF32 lf[TN - 1];
        XpbdTetherF32 of[TN];
        size_t cf = 0;
        for (k = 0; k < TN; ++k) {
            xf[k][0] = (float)x[k][0]; xf[k][1] = (float)x[k][1]; xf[k][2] = 0.0f;
            wf[k] = (float)w[k];
        }
        ENSURE_STATUS(xpbd_build_rope3_f32(&xf[0][0], TN, 0.0f, lf, TN - 1, &cf), XPBD_STATUS_OK);
        ENSURE_STATUS(xpbd_build_tethers_along_links3_f32(&xf[0][0], wf, TN, lf, TN - 1, &anchor, 1, 0.0f, df, nf,
                                                          TN, of, TN, &cf),
                      XPBD_STATUS_OK);
        ENSURE(cf == TN - 1);
        for (k = 0; k + 1 < TN; ++k) {
            float d[3] = {xf[k + 1][0] - xf[k][0], xf[k + 1][1] - xf[k][1], xf[k + 1][2] - xf[k][2]};
            sumf += sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            ENSURE(of[k].particle == k + 1 && of[k].max_distance == sumf);
        }
    }
}
