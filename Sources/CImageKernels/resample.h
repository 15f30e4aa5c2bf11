/*
 * Resampling, inside the target: a separable convolution over RGBX pixels, each held as a vector
 * of 4 floats (vector extensions, so the arithmetic is SIMD whatever the optimiser decides).
 * Used by the JPEG decoder's output pass (jpeg_pixels.c) and by the RGBA shrink.
 */
#ifndef SHASHIN_RESAMPLE_H
#define SHASHIN_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>
#include "CImageKernels.h"

/* What follows is shared by this target's files only: hidden from anything that links the target. */
#pragma GCC visibility push(hidden)

typedef float shashin_f32x4 __attribute__((vector_size(16)));
typedef int32_t shashin_i32x4 __attribute__((vector_size(16)));

/* Where each output sample along one axis reads from: `count[i]` input samples from
 * `start[i]`, weighted by `weights[i * taps ...]` (which sum to 1), each weight repeated in all
 * four lanes of its vector.
 *
 * Sample centres are aligned (output i covers input (i + 0.5) * in / out); when shrinking, the
 * kernel is stretched by in / out so every input sample contributes (no aliasing). Samples
 * beyond the edges repeat the edge sample: their weight is folded onto it. Equal sizes give
 * the identity (one tap of weight 1). */
typedef struct shashin_resample_axis {
    int in_size, out_size, taps;
    int *start, *count;
    shashin_f32x4 *weights;
} shashin_resample_axis;

/* The taps per output sample `shashin_resample_axis_fill` needs room for. */
int shashin_resample_axis_taps(int in_size, int out_size, shashin_filter filter);

/* Fills `axis`, whose `start`, `count` (out_size each) and `weights` (out_size * taps) are
 * allocated for `shashin_resample_axis_taps(...)` taps; `real` is scratch for `taps` doubles. */
void shashin_resample_axis_fill(shashin_resample_axis *axis, int in_size, int out_size,
                                shashin_filter filter, double *real);

/* `width` RGBX pixels of 8-bit samples to float vectors. */
void shashin_widen_row(const uint8_t *in, int width, void *out);

/* One row of float-vector pixels, resampled along x. */
void shashin_resample_across(const void *in, void *out, const shashin_resample_axis *axis);

/* Rounds a row of float-vector pixels to whole samples in 0...255, as libvips' 8-bit
 * intermediate image between its two passes does: without this, the overshoot of one pass
 * (Lanczos' negative lobes at a thin dark line) would carry into the other and the two paths'
 * thumbnails would differ by up to 30 there. */
void shashin_quantise_row(void *row, int width);

static inline uint8_t shashin_round_sample(float value) {
    return value <= 0 ? 0 : value >= 255 ? 255 : (uint8_t)(value + 0.5f);
}

/* EXIF orientation: where stored pixel (x, y) goes in the upright image, in pixels:
 * origin + x * x_step + y * y_step. `width` x `height` is the stored size. */
typedef struct shashin_placement {
    ptrdiff_t origin, x_step, y_step;
} shashin_placement;

static inline shashin_placement shashin_orientation_placement(int orientation, int width, int height) {
    const ptrdiff_t w = width, h = height;
    shashin_placement p;
    switch (orientation) {
    case 2: p.origin = w - 1; p.x_step = -1; p.y_step = w; break;               /* mirrored */
    case 3: p.origin = (h - 1) * w + w - 1; p.x_step = -1; p.y_step = -w; break; /* 180° */
    case 4: p.origin = (h - 1) * w; p.x_step = 1; p.y_step = -w; break;         /* flipped */
    case 5: p.origin = 0; p.x_step = h; p.y_step = 1; break;                     /* transposed */
    case 6: p.origin = h - 1; p.x_step = h; p.y_step = -1; break;               /* 90° clockwise */
    case 7: p.origin = (w - 1) * h + h - 1; p.x_step = -h; p.y_step = -1; break; /* transversed */
    case 8: p.origin = (w - 1) * h; p.x_step = -h; p.y_step = 1; break;         /* 90° anticlockwise */
    default: p.origin = 0; p.x_step = 1; p.y_step = w; break;
    }
    return p;
}

/* Output row `y`: resampled along y from the ring of decoded rows (input row r in slot
 * r % slots, `decoded_width` pixels each) into `sum`, then along x (`across`, NULL when the
 * width stays) into `line`, rounded to opaque RGBA and placed upright. */
void shashin_emit_row(const void *ring, int slots, const shashin_resample_axis *down,
                      const shashin_resample_axis *across, int y, int decoded_width,
                      int width, void *sum, void *line,
                      shashin_placement placement, uint8_t *rgba);

#pragma GCC visibility pop

#endif /* SHASHIN_RESAMPLE_H */
