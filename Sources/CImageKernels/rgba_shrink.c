/* The RGBA shrink (see CImageKernels.h): optionally box-averaged, then Lanczos 3 along x into a
 * float buffer of (boxed) in_h x out_w pixels, then along y. */
#include <math.h>
#include <stdlib.h>
#include "resample.h"

int shashin_rgba_shrink(const uint8_t *in, int in_w, int in_h, size_t in_stride, int channels,
                        uint8_t *out, int out_w, int out_h, int premultiply, double box_gap) {
    const shashin_filter filter = SHASHIN_FILTER_LANCZOS3;
    int kx = 1, ky = 1;
    if (box_gap > 0) {
        kx = (int)floor((double)in_w / out_w / box_gap);
        ky = (int)floor((double)in_h / out_h / box_gap);
        if (kx < 1) kx = 1;
        if (ky < 1) ky = 1;
    }
    const int box_w = (in_w + kx - 1) / kx, box_h = (in_h + ky - 1) / ky;
    const int taps_x = shashin_resample_axis_taps(box_w, out_w, filter);
    const int taps_y = shashin_resample_axis_taps(box_h, out_h, filter);
    const int most_taps = taps_x > taps_y ? taps_x : taps_y;
    shashin_resample_axis across, down;
    across.start = (int *)malloc(sizeof(int) * (size_t)out_w);
    across.count = (int *)malloc(sizeof(int) * (size_t)out_w);
    across.weights = (shashin_f32x4 *)malloc(sizeof(shashin_f32x4) * (size_t)out_w * (size_t)taps_x);
    down.start = (int *)malloc(sizeof(int) * (size_t)out_h);
    down.count = (int *)malloc(sizeof(int) * (size_t)out_h);
    down.weights = (shashin_f32x4 *)malloc(sizeof(shashin_f32x4) * (size_t)out_h * (size_t)taps_y);
    double *real = (double *)malloc(sizeof(double) * (size_t)most_taps);
    shashin_f32x4 *row = (shashin_f32x4 *)malloc(sizeof(shashin_f32x4) * (size_t)box_w);
    shashin_f32x4 *mid = (shashin_f32x4 *)malloc(sizeof(shashin_f32x4) * (size_t)out_w * (size_t)box_h);
    int result = -1;
    if (!across.start || !across.count || !across.weights || !down.start || !down.count ||
        !down.weights || !real || !row || !mid) goto done;
    shashin_resample_axis_fill(&across, box_w, out_w, filter, real);
    shashin_resample_axis_fill(&down, box_h, out_h, filter, real);

    for (int by = 0; by < box_h; by++) {
        const int y0 = by * ky, y1 = y0 + ky < in_h ? y0 + ky : in_h;
        for (int bx = 0; bx < box_w; bx++) row[bx] = (shashin_f32x4){ 0, 0, 0, 0 };
        for (int y = y0; y < y1; y++) {
            const uint8_t *p = in + (size_t)y * in_stride;
            for (int x = 0, bx = 0; bx < box_w; bx++) {
                const int x1 = x + kx < in_w ? x + kx : in_w;
                shashin_f32x4 sum = { 0, 0, 0, 0 };
                for (; x < x1; x++, p += channels) {
                    shashin_f32x4 v = { p[0], p[1], p[2], channels == 4 ? p[3] : 255 };
                    if (premultiply) {
                        const float a = p[3] * (1.0f / 255.0f);
                        v *= (shashin_f32x4){ a, a, a, 1 };
                    }
                    sum += v;
                }
                row[bx] += sum;
            }
        }
        if (kx > 1 || ky > 1) {
            /* Blocks at the right and bottom edges may be partial: average what they hold. */
            const int rows = y1 - y0;
            for (int bx = 0; bx < box_w; bx++) {
                const int columns = (bx + 1) * kx <= in_w ? kx : in_w - bx * kx;
                const float scale = 1.0f / (float)(rows * columns);
                row[bx] *= (shashin_f32x4){ scale, scale, scale, scale };
            }
        }
        shashin_resample_across(row, mid + (size_t)by * out_w, &across);
    }
    for (int y = 0; y < out_h; y++) {
        const int first = down.start[y], count = down.count[y];
        const shashin_f32x4 *w = down.weights + (size_t)y * down.taps;
        uint8_t *o = out + (size_t)y * out_w * 4;
        for (int x = 0; x < out_w; x++) {
            shashin_f32x4 sum = { 0, 0, 0, 0 };
            const shashin_f32x4 *column = mid + (size_t)first * out_w + x;
            for (int k = 0; k < count; k++) sum += column[(size_t)k * out_w] * w[k];
            float alpha = sum[3];
            if (premultiply) {
                alpha = alpha <= 0 ? 0 : alpha >= 255 ? 255 : alpha;
                const float unscale = alpha > 0 ? 255.0f / alpha : 0;
                sum *= (shashin_f32x4){ unscale, unscale, unscale, 1 };
            }
            o[x * 4] = shashin_round_sample(sum[0]);
            o[x * 4 + 1] = shashin_round_sample(sum[1]);
            o[x * 4 + 2] = shashin_round_sample(sum[2]);
            o[x * 4 + 3] = shashin_round_sample(alpha);
        }
    }
    result = 0;
done:
    free(across.start); free(across.count); free(across.weights);
    free(down.start); free(down.count); free(down.weights);
    free(real); free(row); free(mid);
    return result;
}
