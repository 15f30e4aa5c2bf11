/* The decoder's output pass (see jpeg_decoder.h): decoded rows stream into a ring of as many
 * rows as the vertical kernel spans, and each output row is made (along y, then along x) as
 * soon as its last input row is in. */
#include <string.h>
#include "jpeg_decoder.h"
#include "resample.h"

/* Allocates and fills `axis` with buffers from the decoder (failing through error_exit). */
static void shashin_resample_axis_init(shashin_jpeg *jpeg, shashin_resample_axis *axis,
                                       int in_size, int out_size, shashin_filter filter) {
    const int taps = shashin_resample_axis_taps(in_size, out_size, filter);
    axis->start = (int *)shashin_jpeg_alloc(jpeg, sizeof(int) * (size_t)out_size);
    axis->count = (int *)shashin_jpeg_alloc(jpeg, sizeof(int) * (size_t)out_size);
    axis->weights = (shashin_f32x4 *)shashin_jpeg_alloc(jpeg, sizeof(shashin_f32x4) * (size_t)out_size * (size_t)taps);
    double *real = (double *)shashin_jpeg_alloc(jpeg, sizeof(double) * (size_t)taps);
    shashin_resample_axis_fill(axis, in_size, out_size, filter, real);
}

void shashin_jpeg_read_pixels(shashin_jpeg *jpeg, int width, int height, int orientation,
                              shashin_filter filter, uint8_t *rgba) {
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    const int decoded_width = (int)cinfo->output_width, decoded_height = (int)cinfo->output_height;
    const int resamples = decoded_width != width || decoded_height != height;
    if (cinfo->output_components != 4 ||
        cinfo->out_color_space != (resamples ? JCS_EXT_RGBX : JCS_EXT_RGBA)) {
        ERREXIT(cinfo, JERR_BAD_STATE);
    }
    const int first_buffer = jpeg->buffer_count;
    const shashin_placement placement = shashin_orientation_placement(orientation, width, height);
    enum { batch = 16 };
    JSAMPROW rows[batch];
    const size_t decoded_row_bytes = (size_t)decoded_width * 4;
    const int direct = !resamples && orientation == 1;
    uint8_t *decoded = direct ? NULL : (uint8_t *)shashin_jpeg_alloc(jpeg, decoded_row_bytes * batch);

    shashin_resample_axis across, down;
    shashin_f32x4 *ring = NULL, *sum = NULL, *line = NULL;
    int slots = 0; /* rows in the ring: as many as one output row can span */
    int next = 0;  /* the next output row to make */
    if (resamples) {
        shashin_resample_axis_init(jpeg, &down, decoded_height, height, filter);
        slots = down.taps < decoded_height ? down.taps : decoded_height;
        if ((size_t)slots * (size_t)decoded_width > ((size_t)1 << 24)) {
            /* Over 256 MB of ring: a sliver of a vast image (only reachable with a raised pixel
             * limit). libvips box-shrinks first; let it. */
            ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
        }
        if (decoded_width != width) {
            shashin_resample_axis_init(jpeg, &across, decoded_width, width, filter);
            line = (shashin_f32x4 *)shashin_jpeg_alloc(jpeg, sizeof(shashin_f32x4) * (size_t)width);
        }
        ring = (shashin_f32x4 *)shashin_jpeg_alloc(jpeg, sizeof(shashin_f32x4) * (size_t)decoded_width * (size_t)slots);
        sum = (shashin_f32x4 *)shashin_jpeg_alloc(jpeg, sizeof(shashin_f32x4) * (size_t)decoded_width);
    }

    while (cinfo->output_scanline < cinfo->output_height) {
        const int y = (int)cinfo->output_scanline;
        const int wanted = decoded_height - y < batch ? decoded_height - y : batch;
        for (int i = 0; i < wanted; i++)
            rows[i] = direct ? rgba + decoded_row_bytes * (size_t)(y + i) : decoded + decoded_row_bytes * (size_t)i;
        const int read = (int)jpeg_read_scanlines(cinfo, rows, (JDIMENSION)wanted);
        if (read <= 0) ERREXIT(cinfo, JERR_BAD_STATE); /* a source that suspended */
        if (direct) continue;
        for (int i = 0; i < read; i++) {
            const int row = y + i;
            if (!resamples) {
                uint8_t *out = rgba + 4 * (placement.origin + (ptrdiff_t)row * placement.y_step);
                const uint8_t *in = rows[i];
                for (int x = 0; x < width; x++, in += 4, out += 4 * placement.x_step) memcpy(out, in, 4);
                continue;
            }
            shashin_widen_row(rows[i], decoded_width, ring + (size_t)(row % slots) * (size_t)decoded_width);
            while (next < height && down.start[next] + down.count[next] - 1 <= row) {
                shashin_emit_row(ring, slots, &down, line ? &across : NULL, next, decoded_width, width,
                                 sum, line, placement, rgba);
                next++;
            }
        }
    }
    if (resamples && next != height) ERREXIT(cinfo, JERR_BAD_STATE);
    shashin_jpeg_free_buffers_after(jpeg, first_buffer);
}
