/*
 * The libvips C API as Swift can call it.
 *
 * Swift cannot call C variadic functions, and most vips operations take their optional
 * arguments as a NULL-terminated variadic list. Each `shashin_*` wrapper below calls one of them
 * with a fixed set of options, so the Swift side passes plain arguments.
 *
 * Every wrapper returns vips' own status: 0 on success, non-zero on failure with the reason in
 * the (global) vips error buffer.
 */
#ifndef SHASHIN_CVIPS_SHIM_H
#define SHASHIN_CVIPS_SHIM_H

#include <vips/vips.h>

/* ---- runtime ---- */

static inline void shashin_ignore_log_message(const gchar *domain, GLogLevelFlags level,
                                             const gchar *message, gpointer user_data) {
    (void)domain; (void)level; (void)message; (void)user_data;
}

/* Drops libvips' own warnings (GLib domain "VIPS"): every failure they describe reaches the
 * caller as an error, and a library should not write to the host's stderr. */
static inline void shashin_silence_vips_warnings(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, shashin_ignore_log_message, NULL);
}

/* ---- loaders (header is read at once, pixels only when the image is written) ---- */

static inline int shashin_jpegload_buffer(const void *buf, size_t len, VipsImage **out,
                                          VipsAccess access, VipsFailOn fail_on, int shrink) {
    return vips_jpegload_buffer((void *)buf, len, out, "access", access, "fail_on", fail_on,
                                "shrink", shrink, NULL);
}

static inline int shashin_pngload_buffer(const void *buf, size_t len, VipsImage **out,
                                         VipsAccess access, VipsFailOn fail_on) {
    return vips_pngload_buffer((void *)buf, len, out, "access", access, "fail_on", fail_on, NULL);
}

static inline int shashin_webpload_buffer(const void *buf, size_t len, VipsImage **out,
                                          VipsAccess access, VipsFailOn fail_on, double scale) {
    return vips_webpload_buffer((void *)buf, len, out, "access", access, "fail_on", fail_on,
                                "scale", scale, NULL);
}

/* The first frame only (`n` = 1). */
static inline int shashin_gifload_buffer(const void *buf, size_t len, VipsImage **out,
                                         VipsAccess access, VipsFailOn fail_on) {
    return vips_gifload_buffer((void *)buf, len, out, "access", access, "fail_on", fail_on,
                               "n", 1, NULL);
}

/* ---- transforms ---- */

/* Resizes to exactly width x height of the *upright* image (VIPS_SIZE_FORCE), applying the
 * EXIF orientation, resampling with alpha premultiplied. */
static inline int shashin_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", VIPS_SIZE_FORCE,
                                "no_rotate", FALSE, NULL);
}

static inline int shashin_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

static inline int shashin_colourspace(VipsImage *in, VipsImage **out, VipsInterpretation space) {
    return vips_colourspace(in, out, space, NULL);
}

/* Transforms through the embedded ICC profile to sRGB, 8 bits per sample. */
static inline int shashin_icc_transform_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE,
                              "depth", 8, NULL);
}

static inline gboolean shashin_has_icc_profile(VipsImage *image) {
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

/* `shift` moves 16-bit samples down to 8 bits (v >> 8) instead of clipping them at 255. */
static inline int shashin_cast(VipsImage *in, VipsImage **out, VipsBandFormat format, gboolean shift) {
    return vips_cast(in, out, format, "shift", shift, NULL);
}

static inline int shashin_bandjoin_const1(VipsImage *in, VipsImage **out, double c) {
    return vips_bandjoin_const1(in, out, c, NULL);
}

static inline int shashin_bandjoin(VipsImage **in, int n, VipsImage **out) {
    return vips_bandjoin(in, out, n, NULL);
}

/* Places `in` at the top-left of a width x height canvas: crops what is outside, repeats edge
 * pixels into what is new. Used to correct an off-by-one size after resampling. */
static inline int shashin_embed_copy(VipsImage *in, VipsImage **out, int width, int height) {
    return vips_embed(in, out, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
}

static inline int shashin_extract_band(VipsImage *in, VipsImage **out, int band, int n) {
    return vips_extract_band(in, out, band, "n", n, NULL);
}

/* Composites the alpha channel over a solid grey-level background, dropping alpha. */
static inline int shashin_flatten(VipsImage *in, VipsImage **out, double background) {
    double rgb[3] = { background, background, background };
    VipsArrayDouble *array = vips_array_double_new(rgb, 3);
    int result = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}

/* ---- output ---- */

/* Computes every pixel of `in` into `buf` (rows packed, no padding), on the calling thread:
 * top to bottom in strips, each written straight into `buf` with no intermediate copy.
 * vips_image_write() would do the same through vips' thread pool; for many small images the
 * hand-offs to its worker cost more than the pixels, and parallelism comes from the caller. */
static inline int shashin_write_to_buffer(VipsImage *in, void *buf, size_t size) {
    const int width = vips_image_get_width(in), height = vips_image_get_height(in);
    const int strip = 128;
    if (size < VIPS_IMAGE_SIZEOF_IMAGE(in)) {
        vips_error("shashin", "%s", "output buffer too small");
        return -1;
    }
    VipsImage *target = vips_image_new_from_memory(buf, size, width, height,
                                                   vips_image_get_bands(in), vips_image_get_format(in));
    if (!target) return -1;
    VipsRegion *source = vips_region_new(in);
    VipsRegion *destination = vips_region_new(target);
    int result = (source && destination) ? 0 : -1;
    for (int top = 0; result == 0 && top < height; top += strip) {
        VipsRect rect = { 0, top, width, VIPS_MIN(strip, height - top) };
        if (vips_region_image(destination, &rect) ||
            vips_region_prepare_to(source, destination, &rect, 0, top))
            result = -1;
    }
    if (source) g_object_unref(source);
    if (destination) g_object_unref(destination);
    g_object_unref(target);
    /* Regions used on this (non-vips) thread leave spare pixel buffers in the thread's private
     * buffer cache. vips' own workers drop theirs when a job ends; do the same, so a thread
     * that decoded a large image does not keep its buffers until it exits. */
    vips_thread_shutdown();
    return result;
}

/* ---- savers (output is g_malloc'ed: release it with g_free) ---- */

static inline int shashin_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, NULL);
}

static inline int shashin_pngsave_buffer(VipsImage *in, void **buf, size_t *len, int compression) {
    return vips_pngsave_buffer(in, buf, len, "compression", compression, "strip", TRUE, NULL);
}

/* `effort` 0 (fastest) ... 6 (smallest); libwebp's "method". */
static inline int shashin_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                                          gboolean lossless, int effort) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "lossless", lossless,
                                "effort", effort, "strip", TRUE, NULL);
}

/* `effort` 1 (fastest) ... 10 (best palette); `dither` 0 (none) ... 1 (full). */
static inline int shashin_gifsave_buffer(VipsImage *in, void **buf, size_t *len, int effort,
                                         double dither) {
    return vips_gifsave_buffer(in, buf, len, "effort", effort, "dither", dither, "strip", TRUE,
                               NULL);
}

#endif
