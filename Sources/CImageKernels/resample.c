/* The resampling kernels: filter weights, one axis's taps, and the row passes (see resample.h). */
#include <math.h>
#include "resample.h"

static double shashin_filter_support(shashin_filter filter) {
    switch (filter) {
    case SHASHIN_FILTER_TRIANGLE: return 1;
    case SHASHIN_FILTER_CATMULL_ROM: return 2;
    default: return 3;
    }
}

static double shashin_filter_weight(shashin_filter filter, double x) {
    x = fabs(x);
    switch (filter) {
    case SHASHIN_FILTER_TRIANGLE:
        return x < 1 ? 1 - x : 0;
    case SHASHIN_FILTER_CATMULL_ROM:
        if (x < 1) return (1.5 * x - 2.5) * x * x + 1;
        if (x < 2) return ((-0.5 * x + 2.5) * x - 4) * x + 2;
        return 0;
    default:
        if (x < 1e-8) return 1;
        if (x >= 3) return 0;
        {
            const double pi = 3.14159265358979323846;
            return 3 * sin(pi * x) * sin(pi * x / 3) / (pi * pi * x * x);
        }
    }
}

int shashin_resample_axis_taps(int in_size, int out_size, shashin_filter filter) {
    const double scale = (double)in_size / out_size;
    const double stretch = scale > 1 ? scale : 1;
    return in_size == out_size ? 1 : (int)ceil(shashin_filter_support(filter) * stretch) * 2 + 2;
}

void shashin_resample_axis_fill(shashin_resample_axis *axis, int in_size, int out_size,
                                shashin_filter filter, double *real) {
    const double scale = (double)in_size / out_size;
    const double stretch = scale > 1 ? scale : 1;
    const double support = shashin_filter_support(filter) * stretch;
    const int identity = in_size == out_size;
    const int taps = shashin_resample_axis_taps(in_size, out_size, filter);
    axis->in_size = in_size;
    axis->out_size = out_size;
    axis->taps = taps;
    for (int i = 0; i < out_size; i++) {
        shashin_f32x4 *weights = axis->weights + (size_t)i * taps;
        if (identity) {
            axis->start[i] = i;
            axis->count[i] = 1;
            weights[0] = (shashin_f32x4){ 1, 1, 1, 1 };
            continue;
        }
        const double centre = (i + 0.5) * scale;
        int low = (int)floor(centre - support), high = (int)ceil(centre + support);
        if (high - low > taps) high = low + taps;
        const int first = low < 0 ? 0 : low;
        const int last = high > in_size ? in_size - 1 : high - 1;
        const int count = last - first + 1;
        double total = 0;
        for (int k = 0; k < count; k++) real[k] = 0;
        for (int j = low; j < high; j++) {
            const double w = shashin_filter_weight(filter, (j + 0.5 - centre) / stretch);
            real[(j < first ? first : j > last ? last : j) - first] += w;
            total += w;
        }
        for (int k = 0; k < taps; k++) {
            const float w = k < count ? (float)(real[k] / total) : 0;
            weights[k] = (shashin_f32x4){ w, w, w, w };
        }
        axis->start[i] = first;
        axis->count[i] = count;
    }
}

void shashin_widen_row(const uint8_t *in, int width, void *out) {
    shashin_f32x4 *o = (shashin_f32x4 *)out;
    for (int x = 0; x < width; x++, in += 4) o[x] = (shashin_f32x4){ in[0], in[1], in[2], in[3] };
}

void shashin_resample_across(const void *in, void *out, const shashin_resample_axis *axis) {
    const shashin_f32x4 *pixels = (const shashin_f32x4 *)in;
    shashin_f32x4 *o = (shashin_f32x4 *)out;
    for (int x = 0; x < axis->out_size; x++) {
        const shashin_f32x4 *p = pixels + axis->start[x];
        const shashin_f32x4 *w = axis->weights + (size_t)x * axis->taps;
        shashin_f32x4 even = { 0, 0, 0, 0 }, odd = { 0, 0, 0, 0 };
        const int n = axis->count[x];
        int k = 0;
        for (; k + 1 < n; k += 2) {
            even += p[k] * w[k];
            odd += p[k + 1] * w[k + 1];
        }
        if (k < n) even += p[k] * w[k];
        o[x] = even + odd;
    }
}

void shashin_quantise_row(void *row, int width) {
    shashin_f32x4 *pixels = (shashin_f32x4 *)row;
    const shashin_f32x4 half = { 0.5f, 0.5f, 0.5f, 0.5f };
    const shashin_i32x4 zero = { 0, 0, 0, 0 }, most = { 255, 255, 255, 255 };
    for (int x = 0; x < width; x++) {
        shashin_i32x4 v = __builtin_convertvector(pixels[x] + half, shashin_i32x4);
        v &= v > zero;
        const shashin_i32x4 over = v > most;
        v = (v & ~over) | (most & over);
        pixels[x] = __builtin_convertvector(v, shashin_f32x4);
    }
}

void shashin_emit_row(const void *ring, int slots, const shashin_resample_axis *down,
                      const shashin_resample_axis *across, int y, int decoded_width,
                      int width, void *sum, void *line,
                      shashin_placement placement, uint8_t *rgba) {
    enum { most_rows = 64, block = 4 };
    const shashin_f32x4 *rows = (const shashin_f32x4 *)ring;
    shashin_f32x4 *total = (shashin_f32x4 *)sum;
    const shashin_f32x4 *w = down->weights + (size_t)y * down->taps;
    const int n = down->count[y];
    const shashin_f32x4 *source[most_rows];
    for (int k = 0; k < n && k < most_rows; k++)
        source[k] = rows + (size_t)((down->start[y] + k) % slots) * (size_t)decoded_width;
    int x = 0;
    if (n <= most_rows) {
        /* Four pixels at a time, summed in registers over all the rows. */
        for (; x + block <= decoded_width; x += block) {
            shashin_f32x4 a = { 0, 0, 0, 0 }, b = a, c = a, d = a;
            for (int k = 0; k < n; k++) {
                const shashin_f32x4 *p = source[k] + x;
                const shashin_f32x4 weight = w[k];
                a += p[0] * weight;
                b += p[1] * weight;
                c += p[2] * weight;
                d += p[3] * weight;
            }
            total[x] = a;
            total[x + 1] = b;
            total[x + 2] = c;
            total[x + 3] = d;
        }
    }
    /* The rest (and kernels spanning more rows than `source` holds), a row at a time. */
    for (int k = 0; k < n && x < decoded_width; k++) {
        const shashin_f32x4 *row = rows + (size_t)((down->start[y] + k) % slots) * (size_t)decoded_width;
        const shashin_f32x4 weight = w[k];
        for (int i = x; i < decoded_width; i++) total[i] = (k == 0 ? (shashin_f32x4){ 0, 0, 0, 0 } : total[i]) + row[i] * weight;
    }
    const shashin_f32x4 *pixels = total;
    if (across) {
        if (n > 1) shashin_quantise_row(total, decoded_width);
        shashin_resample_across(total, line, across);
        pixels = (const shashin_f32x4 *)line;
    }
    uint8_t *out = rgba + 4 * (placement.origin + (ptrdiff_t)y * placement.y_step);
    const ptrdiff_t step = 4 * placement.x_step;
    for (int x = 0; x < width; x++, out += step) {
        const shashin_f32x4 v = pixels[x];
        out[0] = shashin_round_sample(v[0]);
        out[1] = shashin_round_sample(v[1]);
        out[2] = shashin_round_sample(v[2]);
        out[3] = 255;
    }
}
