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
#include <zlib.h>
#include <stdint.h>
#include <string.h>

/* ---- runtime ---- */

/* libvips' warnings (GLib log domain "VIPS") never reach the host's stderr. They are also where
 * libvips 8.14 puts the words of the libraries under it: its PNG loader reports every libpng
 * error ("IHDR: CRC error", "Not a PNG file") as a warning and leaves its own error buffer empty
 * (a failed header) or holding only "libpng read error" (failed pixels). So each thread keeps the
 * warnings raised on it while it has asked to (between shashin_warnings_begin and
 * shashin_warnings_end), and drops them otherwise.
 *
 * Thread-local, so concurrent decodes never see each other's words: the GLib handler runs on the
 * thread that raised the warning, and a decode runs libvips on its calling thread (sequential
 * loads are pulled by shashin_write_to_buffer there). A load with random access is read whole by
 * a vips worker thread, whose warnings this does not see.
 *
 * Every function here keeps its state in the thread-local variable of shashin_thread_warnings,
 * and every object file that calls them gets its own copy of that static inline code (Swift
 * compiles each file to its own object): the handler registered by shashin_capture_vips_warnings
 * and the begin/text/family/end calls must all come from one Swift file
 * (ShashinVips/VipsErrorBuffer.swift). */
typedef struct shashin_warnings {
    int capturing;
    int family;     /* the caller's own tag for what this thread is decoding (0: nothing) */
    size_t length;
    char text[2048];
} shashin_warnings;

static inline shashin_warnings *shashin_thread_warnings(void) {
    static __thread shashin_warnings warnings;
    return &warnings;
}

/* Appends `message` as one line; a message that does not fit is cut, later ones are dropped. */
static inline void shashin_keep_log_message(const gchar *domain, GLogLevelFlags level,
                                            const gchar *message, gpointer user_data) {
    (void)domain; (void)level; (void)user_data;
    shashin_warnings *warnings = shashin_thread_warnings();
    if (!warnings->capturing || !message) return;
    size_t room = sizeof warnings->text - warnings->length;
    if (room < 2) return;
    if (warnings->length > 0) {
        warnings->text[warnings->length++] = '\n';
        room--;
    }
    size_t count = strlen(message);
    if (count > room - 1) count = room - 1;
    memcpy(warnings->text + warnings->length, message, count);
    warnings->length += count;
    warnings->text[warnings->length] = '\0';
}

static inline void shashin_capture_vips_warnings(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, shashin_keep_log_message, NULL);
}

/* Starts keeping this thread's warnings, forgetting any kept before, and tags the thread with
 * `family` (what it decodes) until shashin_warnings_end. */
static inline void shashin_warnings_begin(int family) {
    shashin_warnings *warnings = shashin_thread_warnings();
    warnings->capturing = 1;
    warnings->family = family;
    warnings->length = 0;
    warnings->text[0] = '\0';
}

/* The warnings kept on this thread since shashin_warnings_begin, one per line. */
static inline const char *shashin_warnings_text(void) {
    return shashin_thread_warnings()->text;
}

/* The tag given to shashin_warnings_begin on this thread, or 0 outside begin ... end. */
static inline int shashin_warnings_family(void) {
    shashin_warnings *warnings = shashin_thread_warnings();
    return warnings->capturing ? warnings->family : 0;
}

static inline void shashin_warnings_end(void) {
    shashin_warnings *warnings = shashin_thread_warnings();
    warnings->capturing = 0;
    warnings->family = 0;
}

/* Appends one line to the vips error buffer as it is (no domain is added): how a message taken
 * from the buffer for one decode goes back for the decode it belongs to. */
static inline void shashin_error_append(const char *line) {
    vips_error(NULL, "%s", line);
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

/* Every frame of an animated GIF (`n` = -1) or the first `n`, stacked top to bottom into one
 * image with `page-height` set to the canvas height, each composed as the file's disposal says. */
static inline int shashin_gifload_buffer_frames(const void *buf, size_t len, VipsImage **out,
                                                VipsAccess access, VipsFailOn fail_on, int n) {
    return vips_gifload_buffer((void *)buf, len, out, "access", access, "fail_on", fail_on,
                               "n", n, NULL);
}

/* The WebP counterpart of shashin_gifload_buffer_frames, each frame scaled by `scale` (≤ 1)
 * while decoding. */
static inline int shashin_webpload_buffer_frames(const void *buf, size_t len, VipsImage **out,
                                                 VipsAccess access, VipsFailOn fail_on,
                                                 double scale, int n) {
    return vips_webpload_buffer((void *)buf, len, out, "access", access, "fail_on", fail_on,
                                "scale", scale, "n", n, NULL);
}

/* An integer of the image's metadata, or `fallback` when it has none by that name. */
static inline int shashin_get_int_or(VipsImage *image, const char *name, int fallback) {
    int value;
    if (vips_image_get_typeof(image, name) == 0 || vips_image_get_int(image, name, &value) != 0)
        return fallback;
    return value;
}

/* The image's `delay` array (milliseconds per frame): its length, with up to `capacity` values
 * copied to `out`; 0 when it has none. */
static inline int shashin_get_delays(VipsImage *image, int *out, int capacity) {
    int *values = NULL, count = 0;
    if (vips_image_get_typeof(image, "delay") == 0 ||
        vips_image_get_array_int(image, "delay", &values, &count) != 0 || !values)
        return 0;
    for (int i = 0; i < count && i < capacity; i++) out[i] = values[i];
    return count;
}

/* Marks `image` as an animation for the GIF and WebP savers: frames of `page_height` rows,
 * `delays` in milliseconds (one per frame), played `loop` times (0: forever). */
static inline void shashin_set_animation(VipsImage *image, int page_height, const int *delays,
                                         int count, int loop) {
    vips_image_set_int(image, "page-height", page_height);
    vips_image_set_array_int(image, "delay", delays, count);
    vips_image_set_int(image, "loop", loop);
}

/* HEIC and AVIF through libheif (a dynamic vips module: see shashin_has_operation). The primary
 * image only; `unlimited` off keeps libheif's own limits on image size and metadata. */
static inline int shashin_heifload_buffer(const void *buf, size_t len, VipsImage **out,
                                          VipsAccess access, VipsFailOn fail_on) {
    return vips_heifload_buffer((void *)buf, len, out, "access", access, "fail_on", fail_on,
                                NULL);
}

/* Whether libvips has an operation by this nickname (such as "heifload_buffer"): optional
 * formats live in modules a libvips build may lack. */
static inline gboolean shashin_has_operation(const char *nickname) {
    return vips_type_find("VipsOperation", nickname) != 0;
}

/* ---- zlib: how far a compressed PNG chunk inflates ----
 *
 * Inflates `length` bytes of a zlib stream into a small scratch buffer that is overwritten each
 * round, counting the output and stopping as soon as it passes `limit`: the size is learnt in
 * O(limit) time and constant memory. Returns the inflated size, `limit + 1` when it passes the
 * limit, or -1 when the stream is broken or ends early. */
static inline long long shashin_zlib_inflated_size(const void *data, size_t length, size_t limit) {
    unsigned char scratch[16384];
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (inflateInit(&stream) != Z_OK) return -1;
    stream.next_in = (Bytef *)data;
    stream.avail_in = (uInt)(length > UINT32_MAX ? UINT32_MAX : length);
    unsigned long long total = 0;
    int status = Z_OK;
    while (status == Z_OK) {
        stream.next_out = scratch;
        stream.avail_out = sizeof scratch;
        status = inflate(&stream, Z_NO_FLUSH);
        total += sizeof scratch - stream.avail_out;
        if (total > limit) { inflateEnd(&stream); return (long long)limit + 1; }
        if (status == Z_BUF_ERROR && stream.avail_in == 0) break; /* input ended early */
    }
    inflateEnd(&stream);
    return status == Z_STREAM_END ? (long long)total : -1;
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

/* Computes every pixel of `in` on the calling thread, 16 rows at a time, keeping none: reads an
 * image only for what its loader says on the way (see shashin_warnings_begin). */
static inline int shashin_read_through(VipsImage *in) {
    const int width = vips_image_get_width(in), height = vips_image_get_height(in);
    VipsRegion *region = vips_region_new(in);
    if (!region) return -1;
    int result = 0;
    for (int top = 0; result == 0 && top < height; top += 16) {
        VipsRect rect = { 0, top, width, VIPS_MIN(16, height - top) };
        if (vips_region_prepare(region, &rect)) result = -1;
    }
    g_object_unref(region);
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

/* `av1` chooses AVIF (AV1, through libaom) over HEIC (HEVC, through x265). `effort` 0 (fastest)
 * ... 9 (smallest). */
static inline int shashin_heifsave_buffer(VipsImage *in, void **buf, size_t *len, int quality,
                                          gboolean lossless, gboolean av1, int effort) {
    return vips_heifsave_buffer(in, buf, len, "Q", quality, "lossless", lossless,
                                "compression", av1 ? VIPS_FOREIGN_HEIF_COMPRESSION_AV1
                                                   : VIPS_FOREIGN_HEIF_COMPRESSION_HEVC,
                                "effort", effort, "strip", TRUE, NULL);
}

/* ---- direct libjpeg-turbo decoding (the JPEG fast path) ----
 *
 * libvips reads its input in 4 KB chunks, which keeps libjpeg-turbo off its fast Huffman
 * decoder, and each vips operation after the load has a fixed cost that dominates a small
 * thumbnail. For plain JPEGs (grey, YCbCr or RGB) the decoder instead hands libjpeg-turbo the
 * whole buffer, decodes at 1/2, 1/4 or 1/8 through the DCT, resamples the rest of the way here
 * and writes upright RGBA8 pixels straight into the caller's buffer; an RGB profile other than
 * sRGB is then applied to that (small) result with shashin_icc_apply, below.
 *
 * Use: shashin_jpeg_new, shashin_jpeg_read_header, shashin_jpeg_get_header, then
 * shashin_jpeg_decode; shashin_jpeg_free on every path (it destroys the libjpeg object and
 * frees every buffer, whether or not a call failed half-way).
 *
 * Errors: libjpeg reports fatal errors through error_exit, which must not return. Each function
 * that calls into libjpeg sets its own setjmp point first, and error_exit longjmps back there;
 * the function then returns -1 and the object is only fit for shashin_jpeg_free. Warnings go to
 * emit_message: "premature end of file" and the 100th warning are made fatal, as libvips does
 * with fail_on = truncated, so a cut-off file never gives part of an image. Like libvips, the
 * decode stops at the last scanline: what follows the scan data (markers up to EOI, possibly
 * damaged) is not checked. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <math.h>
#include <jpeglib.h>
#include <jerror.h>
#include <lcms2.h>

/* Why the last call failed. */
typedef enum {
    SHASHIN_JPEG_OK = 0,
    /* libjpeg refused the data (or we ran out of memory): another decoder may still try. */
    SHASHIN_JPEG_FAILED = 1,
    /* The data ends early, or is so corrupt that libjpeg warned 100 times: the image is not
     * all there, and no decoder should pretend it is. */
    SHASHIN_JPEG_INCOMPLETE = 2,
} shashin_jpeg_failure;

/* The buffers one decode allocates besides libjpeg's own; all freed by shashin_jpeg_free. */
#define SHASHIN_JPEG_MAX_BUFFERS 16

typedef struct shashin_jpeg_error_manager {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    shashin_jpeg_failure failure;
    char message[JMSG_LENGTH_MAX];
    /* Set for a preview: data that ends (after a complete scan) is the end of the input. */
    int accepts_end_of_data;
} shashin_jpeg_error_manager;

typedef struct shashin_jpeg {
    struct jpeg_decompress_struct cinfo;
    shashin_jpeg_error_manager error;
    int created;
    JOCTET *icc;
    unsigned int icc_length;
    void *buffers[SHASHIN_JPEG_MAX_BUFFERS];
    int buffer_count;
} shashin_jpeg;

/* What the header says, for the caller to decide whether this path can decode the image. */
typedef struct shashin_jpeg_header {
    /* As declared by the frame header; 0 when it was never reached. Set even when
     * shashin_jpeg_read_header failed after the frame header (e.g. "too big"). */
    unsigned int width, height;
    int components;
    /* The colour space libjpeg inferred (a J_COLOR_SPACE value): JCS_GRAYSCALE, JCS_YCbCr,
     * JCS_RGB, JCS_CMYK, JCS_YCCK or JCS_UNKNOWN. */
    int color_space;
    /* 0: no ICC profile; 1: `icc` holds the reassembled profile; -1: ICC markers that do not
     * reassemble into a profile. */
    int icc_state;
    const unsigned char *icc;
    unsigned int icc_length;
    /* APP1 segments whose payload starts "Exif", and the first one's payload. */
    int exif_count;
    const unsigned char *exif;
    unsigned int exif_length;
    /* 1 for a progressive (multi-scan) JPEG, whose decode holds every DCT coefficient of the
     * image at once: `coefficient_bytes` of them (64 two-byte values per block, each component
     * at its own sampling). 0 when the header was not read to the first scan. */
    int progressive;
    unsigned long long coefficient_bytes;
} shashin_jpeg_header;

static inline void shashin_jpeg_error_exit(j_common_ptr cinfo) {
    shashin_jpeg_error_manager *error = (shashin_jpeg_error_manager *)cinfo->err;
    if (error->failure == SHASHIN_JPEG_OK) {
        error->failure = SHASHIN_JPEG_FAILED;
        (*cinfo->err->format_message)(cinfo, error->message);
    }
    longjmp(error->jump, 1);
}

static inline void shashin_jpeg_emit_message(j_common_ptr cinfo, int level) {
    shashin_jpeg_error_manager *error = (shashin_jpeg_error_manager *)cinfo->err;
    if (level >= 0) return; /* trace messages */
    if (cinfo->err->msg_code == JWRN_JPEG_EOF && error->accepts_end_of_data) return;
    cinfo->err->num_warnings++;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF || cinfo->err->num_warnings >= 100) {
        error->failure = SHASHIN_JPEG_INCOMPLETE;
        (*cinfo->err->format_message)(cinfo, error->message);
        longjmp(error->jump, 1);
    }
}

/* libjpeg's default prints to stderr; a library stays quiet. */
static inline void shashin_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* A malloc'ed buffer that shashin_jpeg_free releases; fails through error_exit. */
static inline void *shashin_jpeg_alloc(shashin_jpeg *jpeg, size_t size) {
    void *buffer = jpeg->buffer_count < SHASHIN_JPEG_MAX_BUFFERS ? malloc(size ? size : 1) : NULL;
    if (!buffer) {
        jpeg->cinfo.err->msg_code = JERR_OUT_OF_MEMORY;
        jpeg->cinfo.err->msg_parm.i[0] = 0;
        (*jpeg->cinfo.err->error_exit)((j_common_ptr)&jpeg->cinfo);
    }
    jpeg->buffers[jpeg->buffer_count++] = buffer;
    return buffer;
}

/* Sets up `jpeg` (zeroed) as a decompressor with this file's error handling. 0, or -1 when
 * memory runs out (nothing is then held). */
static inline int shashin_jpeg_init(shashin_jpeg *jpeg) {
    jpeg->cinfo.err = jpeg_std_error(&jpeg->error.pub);
    jpeg->error.pub.error_exit = shashin_jpeg_error_exit;
    jpeg->error.pub.emit_message = shashin_jpeg_emit_message;
    jpeg->error.pub.output_message = shashin_jpeg_output_message;
    if (setjmp(jpeg->error.jump)) return -1;
    jpeg_create_decompress(&jpeg->cinfo);
    jpeg->created = 1;
    return 0;
}

/* A fresh decoder object, or NULL when memory runs out. */
static inline shashin_jpeg *shashin_jpeg_new(void) {
    shashin_jpeg *jpeg = (shashin_jpeg *)calloc(1, sizeof(shashin_jpeg));
    if (!jpeg) return NULL;
    if (shashin_jpeg_init(jpeg) != 0) {
        free(jpeg);
        return NULL;
    }
    return jpeg;
}

/* Destroys the libjpeg object and frees every buffer, but not `jpeg` itself. */
static inline void shashin_jpeg_release(shashin_jpeg *jpeg) {
    if (jpeg->created) jpeg_destroy_decompress(&jpeg->cinfo);
    jpeg->created = 0;
    free(jpeg->icc);
    jpeg->icc = NULL;
    for (int i = 0; i < jpeg->buffer_count; i++) free(jpeg->buffers[i]);
    jpeg->buffer_count = 0;
}

/* Frees the buffers allocated since there were `count`: those of one output pass. */
static inline void shashin_jpeg_free_buffers_after(shashin_jpeg *jpeg, int count) {
    while (jpeg->buffer_count > count) free(jpeg->buffers[--jpeg->buffer_count]);
}

/* Destroys the libjpeg object and frees everything, after success or any failure. */
static inline void shashin_jpeg_free(shashin_jpeg *jpeg) {
    if (!jpeg) return;
    shashin_jpeg_release(jpeg);
    free(jpeg);
}

/* For a preview of a progressive JPEG from its first bytes: the end of the data is taken as the
 * end of the image (libjpeg's source inserts an end-of-image marker there), so the scans
 * received so far decode and the coefficients still missing count as zero. Call before
 * shashin_jpeg_read_header. */
static inline void shashin_jpeg_accept_end_of_data(shashin_jpeg *jpeg) {
    jpeg->error.accepts_end_of_data = 1;
}

static inline shashin_jpeg_failure shashin_jpeg_get_failure(const shashin_jpeg *jpeg) {
    return jpeg->error.failure;
}

/* libjpeg's text for the failure, "" when there was none. */
static inline const char *shashin_jpeg_get_message(const shashin_jpeg *jpeg) {
    return jpeg->error.message;
}

/* Reassembles the ICC profile from the saved APP2 markers, once the header is read. */
static inline void shashin_jpeg_keep_icc(shashin_jpeg *jpeg) {
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 2 && marker->data_length >= 14 &&
            memcmp(marker->data, "ICC_PROFILE", 12) == 0) {
            if (!jpeg_read_icc_profile(cinfo, &jpeg->icc, &jpeg->icc_length)) {
                free(jpeg->icc); /* NULL unless libjpeg changes its mind */
                jpeg->icc = NULL;
                jpeg->icc_length = 0;
            }
            break;
        }
    }
}

/* Reads markers up to the first scan from `data` (which must stay valid until
 * shashin_jpeg_free): dimensions, colour space, ICC profile, Exif. 0 on success, -1 on failure. */
static inline int shashin_jpeg_read_header(shashin_jpeg *jpeg, const void *data, size_t length) {
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (setjmp(jpeg->error.jump)) return -1;
    jpeg_mem_src(cinfo, (const unsigned char *)data, (unsigned long)length);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);
    shashin_jpeg_keep_icc(jpeg);
    return 0;
}

static inline shashin_jpeg_header shashin_jpeg_get_header(const shashin_jpeg *jpeg) {
    const struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    shashin_jpeg_header header;
    memset(&header, 0, sizeof header);
    header.width = cinfo->image_width;
    header.height = cinfo->image_height;
    header.components = cinfo->num_components;
    header.color_space = (int)cinfo->jpeg_color_space;
    header.progressive = cinfo->progressive_mode ? 1 : 0;
    if (cinfo->comp_info && cinfo->max_h_samp_factor > 0 && cinfo->max_v_samp_factor > 0) {
        for (int i = 0; i < cinfo->num_components; i++) {
            const jpeg_component_info *component = &cinfo->comp_info[i];
            /* Blocks per side, as libjpeg counts them: the component's share of the image,
             * rounded up to whole 8×8 blocks. */
            unsigned long long across = ((unsigned long long)cinfo->image_width * component->h_samp_factor
                                         + 8ULL * cinfo->max_h_samp_factor - 1) / (8ULL * cinfo->max_h_samp_factor);
            unsigned long long down = ((unsigned long long)cinfo->image_height * component->v_samp_factor
                                       + 8ULL * cinfo->max_v_samp_factor - 1) / (8ULL * cinfo->max_v_samp_factor);
            header.coefficient_bytes += across * down * 64ULL * 2ULL;
        }
    }
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 2 && marker->data_length >= 14 &&
            memcmp(marker->data, "ICC_PROFILE", 12) == 0 && header.icc_state == 0) {
            header.icc_state = jpeg->icc ? 1 : -1;
        }
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= 4 &&
            memcmp(marker->data, "Exif", 4) == 0) {
            if (header.exif_count++ == 0) {
                header.exif = marker->data;
                header.exif_length = marker->data_length;
            }
        }
    }
    header.icc = jpeg->icc;
    header.icc_length = jpeg->icc_length;
    return header;
}

/* -- resampling: a separable convolution over RGBX pixels, each held as a vector of 4 floats
 * (vector extensions, so the arithmetic is SIMD whatever the optimiser decides) -- */

typedef float shashin_f32x4 __attribute__((vector_size(16)));

typedef enum {
    SHASHIN_FILTER_TRIANGLE = 1,    /* bilinear, widened when shrinking: support 1 */
    SHASHIN_FILTER_CATMULL_ROM = 2, /* bicubic, a = -0.5: support 2 */
    SHASHIN_FILTER_LANCZOS3 = 3,    /* windowed sinc: support 3 (libvips' default) */
} shashin_filter;

static inline double shashin_filter_support(shashin_filter filter) {
    switch (filter) {
    case SHASHIN_FILTER_TRIANGLE: return 1;
    case SHASHIN_FILTER_CATMULL_ROM: return 2;
    default: return 3;
    }
}

static inline double shashin_filter_weight(shashin_filter filter, double x) {
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

/* Where each output sample along one axis reads from: `count[i]` input samples from
 * `start[i]`, weighted by `weights[i * taps ...]` (which sum to 1), each weight repeated in all
 * four lanes of its vector. */
typedef struct shashin_resample_axis {
    int in_size, out_size, taps;
    int *start, *count;
    shashin_f32x4 *weights;
} shashin_resample_axis;

/* Fills `axis`, whose `start`, `count` (out_size each) and `weights` (out_size * taps) are
 * allocated for `shashin_resample_axis_taps(...)` taps; `real` is scratch for `taps` doubles. */
static inline int shashin_resample_axis_taps(int in_size, int out_size, shashin_filter filter) {
    const double scale = (double)in_size / out_size;
    const double stretch = scale > 1 ? scale : 1;
    return in_size == out_size ? 1 : (int)ceil(shashin_filter_support(filter) * stretch) * 2 + 2;
}

static inline void shashin_resample_axis_fill(shashin_resample_axis *axis, int in_size, int out_size,
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

/* Sample centres are aligned (output i covers input (i + 0.5) * in / out); when shrinking, the
 * kernel is stretched by in / out so every input sample contributes (no aliasing). Samples
 * beyond the edges repeat the edge sample: their weight is folded onto it. Equal sizes give
 * the identity (one tap of weight 1). Buffers come from the decoder (failing through
 * error_exit). */
static inline void shashin_resample_axis_init(shashin_jpeg *jpeg, shashin_resample_axis *axis,
                                              int in_size, int out_size, shashin_filter filter) {
    const int taps = shashin_resample_axis_taps(in_size, out_size, filter);
    axis->start = (int *)shashin_jpeg_alloc(jpeg, sizeof(int) * (size_t)out_size);
    axis->count = (int *)shashin_jpeg_alloc(jpeg, sizeof(int) * (size_t)out_size);
    axis->weights = (shashin_f32x4 *)shashin_jpeg_alloc(jpeg, sizeof(shashin_f32x4) * (size_t)out_size * (size_t)taps);
    double *real = (double *)shashin_jpeg_alloc(jpeg, sizeof(double) * (size_t)taps);
    shashin_resample_axis_fill(axis, in_size, out_size, filter, real);
}

/* `width` RGBX pixels of 8-bit samples to float vectors. */
static inline void shashin_widen_row(const uint8_t *in, int width, void *out) {
    shashin_f32x4 *o = (shashin_f32x4 *)out;
    for (int x = 0; x < width; x++, in += 4) o[x] = (shashin_f32x4){ in[0], in[1], in[2], in[3] };
}

/* One row of float-vector pixels, resampled along x. */
static inline void shashin_resample_across(const void *in, void *out, const shashin_resample_axis *axis) {
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

/* -- EXIF orientation: where stored pixel (x, y) goes in the upright image, in pixels:
 * origin + x * x_step + y * y_step. `width` x `height` is the stored size. -- */

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

typedef int32_t shashin_i32x4 __attribute__((vector_size(16)));

/* Rounds a row of float-vector pixels to whole samples in 0...255, as libvips' 8-bit
 * intermediate image between its two passes does: without this, the overshoot of one pass
 * (Lanczos' negative lobes at a thin dark line) would carry into the other and the two paths'
 * thumbnails would differ by up to 30 there. */
static inline void shashin_quantise_row(void *row, int width) {
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

static inline uint8_t shashin_round_sample(float value) {
    return value <= 0 ? 0 : value >= 255 ? 255 : (uint8_t)(value + 0.5f);
}

/* Output row `y`: resampled along y from the ring of decoded rows (input row r in slot
 * r % slots, `decoded_width` pixels each) into `sum`, then along x (`across`, NULL when the
 * width stays) into `line`, rounded to opaque RGBA and placed upright. */
static inline void shashin_emit_row(const void *ring, int slots, const shashin_resample_axis *down,
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

/* Checks the arguments of a decode to `width` x `height` (as stored) at 1/`shrink` into `size`
 * bytes, and sets libjpeg's scale and output colour space for it, before
 * jpeg_start_decompress. Fails through error_exit. */
static inline void shashin_jpeg_set_output(shashin_jpeg *jpeg, int shrink, int width, int height,
                                           int orientation, size_t size) {
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (width <= 0 || height <= 0 || orientation < 1 || orientation > 8 ||
        (shrink != 1 && shrink != 2 && shrink != 4 && shrink != 8) ||
        size / 4 / (size_t)width < (size_t)height) {
        jpeg->error.failure = SHASHIN_JPEG_FAILED;
        snprintf(jpeg->error.message, sizeof jpeg->error.message, "invalid decode arguments");
        longjmp(jpeg->error.jump, 1);
    }
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)shrink;
    jpeg_calc_output_dimensions(cinfo);
    const int resamples = (int)cinfo->output_width != width || (int)cinfo->output_height != height;
    /* Four bytes a pixel either way: RGBA is the bitmap's own layout; RGBX widens to vectors. */
    cinfo->out_color_space = resamples ? JCS_EXT_RGBX : JCS_EXT_RGBA;
}

/* Reads the output pass that has started (jpeg_start_decompress or jpeg_start_output) into
 * `rgba`: resampled to `width` x `height` as stored with `filter` when the decoded size differs,
 * and turned upright by `orientation`. The pass's own buffers are freed when it ends; after a
 * failure (through error_exit), by shashin_jpeg_free.
 *
 * Resampling streams: decoded rows go into a ring of as many rows as the vertical kernel spans,
 * and each output row is made (along y, then along x) as soon as its last input row is in. */
static inline void shashin_jpeg_read_pixels(shashin_jpeg *jpeg, int width, int height, int orientation,
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

/* Decodes the image at 1/`shrink` through the DCT (1, 2, 4 or 8), resamples that to `width` x
 * `height` *as stored* with `filter` (when the sizes differ) and writes it to `rgba`
 * (`width * height * 4` bytes) as opaque RGBA turned upright by EXIF `orientation` (1...8): the
 * upright image is `height` x `width` for orientations 5...8. Data that runs out before the
 * last scanline fails. 0 on success, -1 on failure (`rgba` then holds garbage). */
static inline int shashin_jpeg_decode(shashin_jpeg *jpeg, int shrink, int width, int height,
                                      int orientation, shashin_filter filter,
                                      uint8_t *rgba, size_t size) {
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (setjmp(jpeg->error.jump)) return -1;
    shashin_jpeg_set_output(jpeg, shrink, width, height, orientation, size);
    jpeg_start_decompress(cinfo);
    shashin_jpeg_read_pixels(jpeg, width, height, orientation, filter, rgba);
    /* No jpeg_finish_decompress: what follows the last scanline (markers up to EOI) does not
     * change the picture, and libvips ignores a premature end there too. shashin_jpeg_free
     * aborts and destroys the object. */
    return 0;
}

/* ---- a buffered-image session: previews of a progressive JPEG as it downloads ----
 *
 * One libjpeg object in buffered-image mode for the whole download: the body's bytes are
 * appended to the session's own buffer as they arrive, libjpeg entropy-decodes each byte once
 * (jpeg_consume_input into the coefficient arrays it holds for the whole image), and each
 * preview is an output pass over the coefficients of the scans so far (jpeg_start_output)
 * through the same resampling as shashin_jpeg_decode. When the whole body is in, the last
 * output pass is the final image.
 *
 * The source suspends (fill_input_buffer returns FALSE) at the end of the bytes it is shown, so
 * libjpeg keeps every byte from its last restart point on, and reads them again with the bytes
 * shown next; the buffer holds the whole body, so nothing it may reread is ever discarded. The
 * caller shows it bytes up to the marker that ends a complete scan and no further: the
 * coefficients then hold exactly the scans a decode of that prefix from scratch would, and the
 * previews are the same pixels. Once shashin_jpeg_session_end_input says no more bytes will
 * come, the end of the data is the end of the input, as for shashin_jpeg_decode: a premature
 * end fails (SHASHIN_JPEG_INCOMPLETE).
 *
 * Use: shashin_jpeg_session_new; shashin_jpeg_session_append with each run of new bytes;
 * shashin_jpeg_session_read_header until it returns 1, then shashin_jpeg_get_header on
 * shashin_jpeg_session_decoder; shashin_jpeg_session_start with the output's shape; then
 * shashin_jpeg_session_consume and shashin_jpeg_session_output for each preview, and
 * shashin_jpeg_session_end_input and shashin_jpeg_session_output for the final image;
 * shashin_jpeg_session_free on every path. A call that fails (-1) leaves the session fit only
 * for shashin_jpeg_session_free. */

typedef struct shashin_jpeg_session {
    shashin_jpeg jpeg; /* first: libjpeg's callbacks find the session from their cinfo */
    struct jpeg_source_mgr source;
    unsigned char *data; /* every byte appended so far */
    size_t length, capacity;
    size_t position; /* where libjpeg reads next (its last restart point), between calls */
    size_t skip;     /* bytes skip_input_data still has to pass, beyond those shown so far */
    int at_end;      /* no more bytes will come */
    int header_read; /* jpeg_read_header done */
    int started;     /* jpeg_start_decompress done */
    int output_open; /* an output pass is over but jpeg_finish_output has not yet returned TRUE */
    int shown_scan;  /* the scan the last output pass showed */
    int shrink, width, height, orientation;
    shashin_filter filter;
    size_t output_size;
} shashin_jpeg_session;

static inline shashin_jpeg_session *shashin_jpeg_session_of(j_decompress_ptr cinfo) {
    return (shashin_jpeg_session *)(void *)cinfo;
}

static inline void shashin_jpeg_session_init_source(j_decompress_ptr cinfo) { (void)cinfo; }
static inline void shashin_jpeg_session_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static inline boolean shashin_jpeg_session_fill(j_decompress_ptr cinfo) {
    static const JOCTET end_of_image[2] = { 0xFF, JPEG_EOI };
    if (!shashin_jpeg_session_of(cinfo)->at_end) return FALSE; /* suspend until more is shown */
    /* As jpeg_mem_src: the data ends early; the warning fails the decode (emit_message). */
    WARNMS(cinfo, JWRN_JPEG_EOF);
    cinfo->src->next_input_byte = end_of_image;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
}

static inline void shashin_jpeg_session_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    if ((size_t)count <= src->bytes_in_buffer) {
        src->next_input_byte += count;
        src->bytes_in_buffer -= (size_t)count;
        return;
    }
    shashin_jpeg_session *session = shashin_jpeg_session_of(cinfo);
    if (session->at_end) {
        (void)shashin_jpeg_session_fill(cinfo); /* past the end: fails, as jpeg_mem_src does */
        return;
    }
    /* Past the bytes shown: the rest is passed as it arrives. */
    session->skip += (size_t)count - src->bytes_in_buffer;
    src->next_input_byte += src->bytes_in_buffer;
    src->bytes_in_buffer = 0;
}

/* Where libjpeg's reading stands, as an offset into `data` (which may move when it grows). */
static inline void shashin_jpeg_session_sync(shashin_jpeg_session *session) {
    const JOCTET *next = session->source.next_input_byte;
    if (next && session->data && next >= session->data && next <= session->data + session->length)
        session->position = (size_t)(next - session->data);
}

/* Shows libjpeg the bytes up to `limit` (at most `length`), passing what a skip still owes. */
static inline void shashin_jpeg_session_show(shashin_jpeg_session *session, size_t limit) {
    if (limit > session->length) limit = session->length;
    size_t position = session->position;
    if (session->skip && position < limit) {
        const size_t passed = limit - position < session->skip ? limit - position : session->skip;
        position += passed;
        session->skip -= passed;
    }
    session->position = position;
    session->source.next_input_byte = session->data + position;
    session->source.bytes_in_buffer = limit > position ? limit - position : 0;
}

/* Frees the libjpeg object, the coefficients and the bytes, whatever state the session is in. */
static inline void shashin_jpeg_session_free(shashin_jpeg_session *session) {
    if (!session) return;
    shashin_jpeg_release(&session->jpeg);
    free(session->data);
    free(session);
}

/* A new session, or NULL when memory runs out. */
static inline shashin_jpeg_session *shashin_jpeg_session_new(void) {
    shashin_jpeg_session *session = (shashin_jpeg_session *)calloc(1, sizeof(shashin_jpeg_session));
    if (!session) return NULL;
    if (shashin_jpeg_init(&session->jpeg) != 0) {
        free(session);
        return NULL;
    }
    session->source.init_source = shashin_jpeg_session_init_source;
    session->source.fill_input_buffer = shashin_jpeg_session_fill;
    session->source.skip_input_data = shashin_jpeg_session_skip;
    session->source.resync_to_restart = jpeg_resync_to_restart;
    session->source.term_source = shashin_jpeg_session_term_source;
    session->jpeg.cinfo.src = &session->source;
    if (setjmp(session->jpeg.error.jump)) {
        shashin_jpeg_session_free(session);
        return NULL;
    }
    jpeg_save_markers(&session->jpeg.cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&session->jpeg.cinfo, JPEG_APP0 + 2, 0xFFFF);
    return session;
}

static inline shashin_jpeg *shashin_jpeg_session_decoder(shashin_jpeg_session *session) {
    return &session->jpeg;
}

/* Bytes appended so far. */
static inline size_t shashin_jpeg_session_length(const shashin_jpeg_session *session) {
    return session->length;
}

/* Whether the `count` bytes at `bytes` begin with every byte appended so far. */
static inline int shashin_jpeg_session_continued_by(const shashin_jpeg_session *session, const void *bytes, size_t count) {
    return count >= session->length && (session->length == 0 || memcmp(session->data, bytes, session->length) == 0);
}

/* Appends the next `count` bytes of the body. 0, or -1 when memory runs out (the session is
 * unchanged then). */
static inline int shashin_jpeg_session_append(shashin_jpeg_session *session, const void *bytes, size_t count) {
    if (session->at_end) return -1;
    if (count > session->capacity - session->length) {
        size_t capacity = session->capacity ? session->capacity : 64 * 1024;
        while (count > capacity - session->length) {
            if (capacity > SIZE_MAX / 2) return -1;
            capacity *= 2;
        }
        unsigned char *data = (unsigned char *)realloc(session->data, capacity);
        if (!data) return -1;
        session->data = data;
        session->capacity = capacity;
    }
    memcpy(session->data + session->length, bytes, count);
    session->length += count;
    return 0;
}

/* Reads the markers up to the first scan from the bytes so far (ICC profile and Exif kept, as
 * shashin_jpeg_read_header does): 1 when read, 0 when it needs more bytes, -1 on failure. */
static inline int shashin_jpeg_session_read_header(shashin_jpeg_session *session) {
    shashin_jpeg *jpeg = &session->jpeg;
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (session->header_read) return 1;
    if (setjmp(jpeg->error.jump)) return -1;
    if (session->length == 0) return 0;
    shashin_jpeg_session_show(session, session->length);
    const int status = jpeg_read_header(cinfo, TRUE);
    shashin_jpeg_session_sync(session);
    if (status == JPEG_SUSPENDED) return 0;
    if (status != JPEG_HEADER_OK) ERREXIT(cinfo, JERR_NO_IMAGE); /* tables only */
    shashin_jpeg_keep_icc(jpeg);
    session->header_read = 1;
    return 1;
}

/* Starts buffered decoding to `width` x `height` as stored, at 1/`shrink` through the DCT,
 * turned upright by `orientation`, for outputs of `size` bytes (the arguments of
 * shashin_jpeg_decode, fixed for the session). 0, or -1 on failure. */
static inline int shashin_jpeg_session_start(shashin_jpeg_session *session, int shrink, int width, int height,
                                             int orientation, shashin_filter filter, size_t size) {
    shashin_jpeg *jpeg = &session->jpeg;
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (setjmp(jpeg->error.jump)) return -1;
    if (!session->header_read || session->started || !cinfo->progressive_mode) ERREXIT(cinfo, JERR_BAD_STATE);
    shashin_jpeg_set_output(jpeg, shrink, width, height, orientation, size);
    cinfo->buffered_image = TRUE;
    session->shrink = shrink;
    session->width = width;
    session->height = height;
    session->orientation = orientation;
    session->filter = filter;
    session->output_size = size;
    shashin_jpeg_session_show(session, session->length);
    if (!jpeg_start_decompress(cinfo)) ERREXIT(cinfo, JERR_BAD_STATE); /* buffered: never suspends */
    shashin_jpeg_session_sync(session);
    session->started = 1;
    return 0;
}

/* One step of the input: entropy-decodes what is shown, until libjpeg suspends or reaches the
 * end of the image. The pending end of the last output pass is finished first. */
static inline void shashin_jpeg_session_absorb(shashin_jpeg_session *session) {
    struct jpeg_decompress_struct *cinfo = &session->jpeg.cinfo;
    if (session->output_open && jpeg_finish_output(cinfo)) session->output_open = 0;
    for (;;) {
        const int status = jpeg_consume_input(cinfo);
        if (status == JPEG_SUSPENDED || status == JPEG_REACHED_EOI) break;
    }
    if (session->output_open && jpeg_finish_output(cinfo)) session->output_open = 0;
}

/* Entropy-decodes the bytes up to `limit` (the two bytes of the marker that ends a complete
 * scan, or fewer). 0, or -1 on failure. */
static inline int shashin_jpeg_session_consume(shashin_jpeg_session *session, size_t limit) {
    shashin_jpeg *jpeg = &session->jpeg;
    if (setjmp(jpeg->error.jump)) return -1;
    if (!session->started || session->at_end) ERREXIT(&jpeg->cinfo, JERR_BAD_STATE);
    shashin_jpeg_session_show(session, limit);
    shashin_jpeg_session_absorb(session);
    shashin_jpeg_session_sync(session);
    return 0;
}

/* No more bytes will come: entropy-decodes the rest up to the end of the image, the end of the
 * data taken as the end of the input (data that ends early fails). 0, or -1 on failure. */
static inline int shashin_jpeg_session_end_input(shashin_jpeg_session *session) {
    shashin_jpeg *jpeg = &session->jpeg;
    if (setjmp(jpeg->error.jump)) return -1;
    if (!session->started) ERREXIT(&jpeg->cinfo, JERR_BAD_STATE);
    shashin_jpeg_session_show(session, session->length);
    session->at_end = 1;
    shashin_jpeg_session_absorb(session);
    if (!jpeg_input_complete(&jpeg->cinfo)) ERREXIT(&jpeg->cinfo, JERR_BAD_STATE);
    return 0;
}

/* The picture of every scan entropy-decoded so far, into `rgba` (the session's `size` bytes), as
 * shashin_jpeg_decode would make it from these bytes alone: 1 when written, 0 when there is no
 * complete scan to show (rgba untouched), -1 on failure. Unless `again`, a scan already shown
 * counts as none to show.
 *
 * Block smoothing (on by default, as for shashin_jpeg_decode) makes libjpeg wait, on the last
 * row of blocks of a DC scan, for the input to get one row ahead unless the image has ended:
 * past the end of a complete scan there is no row ahead, and the pass would suspend. The input
 * is whole for this scan, so the pass is run as after an AC scan (libjpeg reads Ss for nothing
 * else while no scan is being decoded, and the next scan header sets it again). */
static inline int shashin_jpeg_session_output(shashin_jpeg_session *session, uint8_t *rgba, size_t size, int again) {
    shashin_jpeg *jpeg = &session->jpeg;
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (setjmp(jpeg->error.jump)) return -1;
    if (!session->started || size != session->output_size) ERREXIT(cinfo, JERR_BAD_STATE);
    const int complete = jpeg_input_complete(cinfo);
    const int scan = cinfo->input_scan_number;
    /* Only a complete scan, and one not shown yet. */
    if (scan < 1 || (!complete && cinfo->input_iMCU_row < cinfo->total_iMCU_rows)) return 0;
    if (scan <= session->shown_scan && !again) return 0;
    if (session->output_open) {
        if (!jpeg_finish_output(cinfo)) return 0;
        session->output_open = 0;
    }
    const int scan_start = cinfo->Ss;
    if (!complete) cinfo->Ss = 1;
    jpeg_start_output(cinfo, scan);
    shashin_jpeg_read_pixels(jpeg, session->width, session->height, session->orientation, session->filter, rgba);
    cinfo->Ss = scan_start;
    session->shown_scan = scan;
    session->output_open = 1;
    if (jpeg_finish_output(cinfo)) session->output_open = 0;
    return 1;
}

/* ---- ICC profile to sRGB, after the direct decode ----
 *
 * The same lcms transform libvips' icc_transform makes from an embedded profile to sRGB (both
 * profiles as given, relative colorimetric, no black point compensation, cmsFLAGS_NOCACHE),
 * on RGBA8 pixels in place: alpha is an extra channel lcms leaves as it is. Made in a context of
 * its own whose error handler is silent, so a corrupt profile never writes into the (global) vips
 * error buffer, where libvips' handler would put it. NOCACHE makes shashin_icc_apply safe from
 * many threads at once on one transform. */
typedef struct shashin_icc {
    cmsContext context;
    cmsHTRANSFORM transform;
} shashin_icc;

static inline void shashin_icc_ignore_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context; (void)code; (void)text;
}

static inline void shashin_icc_free(shashin_icc *icc) {
    if (!icc) return;
    if (icc->transform) cmsDeleteTransform(icc->transform);
    if (icc->context) cmsDeleteContext(icc->context);
    free(icc);
}

/* A transform from `profile` (which must describe RGB, as libvips requires of a profile for a
 * three-band image) to `srgb`; NULL when lcms cannot read either profile or build the transform. */
static inline shashin_icc *shashin_icc_new(const void *profile, size_t length, const void *srgb, size_t srgb_length) {
    shashin_icc *icc = (shashin_icc *)calloc(1, sizeof(shashin_icc));
    if (!icc || !(icc->context = cmsCreateContext(NULL, NULL))) {
        shashin_icc_free(icc);
        return NULL;
    }
    cmsSetLogErrorHandlerTHR(icc->context, shashin_icc_ignore_error);
    cmsHPROFILE in = cmsOpenProfileFromMemTHR(icc->context, profile, (cmsUInt32Number)length);
    cmsHPROFILE out = cmsOpenProfileFromMemTHR(icc->context, srgb, (cmsUInt32Number)srgb_length);
    if (in && out && cmsGetColorSpace(in) == cmsSigRgbData && cmsGetColorSpace(out) == cmsSigRgbData)
        icc->transform = cmsCreateTransformTHR(icc->context, in, TYPE_RGBA_8, out, TYPE_RGBA_8,
                                               INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_NOCACHE);
    /* The transform keeps what it needs of the profiles. */
    if (in) cmsCloseProfile(in);
    if (out) cmsCloseProfile(out);
    if (!icc->transform) {
        shashin_icc_free(icc);
        return NULL;
    }
    return icc;
}

/* Transforms `count` RGBA8 pixels in place. */
static inline void shashin_icc_apply(const shashin_icc *icc, uint8_t *rgba, size_t count) {
    const size_t chunk = (size_t)1 << 24;
    for (size_t done = 0; done < count; done += chunk) {
        const size_t n = count - done < chunk ? count - done : chunk;
        cmsDoTransform(icc->transform, rgba + 4 * done, rgba + 4 * done, (cmsUInt32Number)n);
    }
}

/* libvips' own sRGB profile (the one icc_transform to "srgb" uses), malloc'ed into `*data`. */
static inline int shashin_srgb_profile(void **data, size_t *length) {
    VipsBlob *blob = NULL;
    if (vips_profile_load("srgb", &blob, NULL) || !blob) return -1;
    size_t size = 0;
    const void *bytes = vips_blob_get(blob, &size);
    *data = size ? malloc(size) : NULL;
    if (*data) memcpy(*data, bytes, size);
    *length = size;
    vips_area_unref((VipsArea *)blob);
    return *data ? 0 : -1;
}

/* Writes `in` as a JPEG the encoder never makes, for tests of the fast path and its fallback:
 * progressive (`interlace`), and with `interpretation` set first (VIPS_INTERPRETATION_CMYK for a
 * 4-band image gives an Adobe CMYK file; B_W for one band gives greyscale). Output g_malloc'ed. */
static inline int shashin_jpegsave_buffer_variant(VipsImage *in, void **buf, size_t *len, int quality,
                                                  gboolean interlace, VipsInterpretation interpretation) {
    VipsImage *typed = NULL;
    if (vips_copy(in, &typed, "interpretation", interpretation, NULL)) return -1;
    const int result = vips_jpegsave_buffer(typed, buf, len, "Q", quality, "interlace", interlace,
                                            "strip", TRUE, NULL);
    g_object_unref(typed);
    return result;
}

#endif

/* ======================================================================================
 * ---- processors (resize, blur) ----
 *
 * A separate block with its own include guard, appended after the main one so that work on
 * the decoder above and on the processors here never edits the same lines.
 * ====================================================================================== */
#ifndef SHASHIN_CVIPS_PROCESSING_H
#define SHASHIN_CVIPS_PROCESSING_H

#include <vips/vips.h>

/* The width x height rectangle at (left, top); lazy: no pixel is copied. */
static inline int shashin_extract_area(VipsImage *in, VipsImage **out, int left, int top,
                                       int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

/* Colour bands multiplied by alpha / 255 (the last band); the result is float. */
static inline int shashin_premultiply(VipsImage *in, VipsImage **out) {
    return vips_premultiply(in, out, NULL);
}

/* The inverse of shashin_premultiply; where alpha is 0 the colour becomes 0. Float result. */
static inline int shashin_unpremultiply(VipsImage *in, VipsImage **out) {
    return vips_unpremultiply(in, out, NULL);
}

/* Enlarges by `hscale` x `vscale` (> 1) with the Lanczos 3 kernel; the output's sides are
 * the input's times the scales, rounded. (For shrinking, shashin_shrink + shashin_reduce do
 * the same work in a fraction of vips_resize's time: 10-17 ms instead of 76 ms for 1024 to
 * 256 px on one core, libvips 8.14.) */
static inline int shashin_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
}

/* Box-filter shrink by whole factors: each output pixel is the mean of a block. */
static inline int shashin_shrink(VipsImage *in, VipsImage **out, double hshrink, double vshrink) {
    return vips_shrink(in, out, hshrink, vshrink, NULL);
}

/* Lanczos 3 reduction by `hshrink` x `vshrink` (each >= 1); the output's sides are the
 * input's divided by the factors, rounded. */
static inline int shashin_reduce(VipsImage *in, VipsImage **out, double hshrink, double vshrink) {
    return vips_reduce(in, out, hshrink, vshrink, "kernel", VIPS_KERNEL_LANCZOS3, NULL);
}

static inline int shashin_round(VipsImage *in, VipsImage **out, VipsOperationRound round) {
    return vips_round(in, out, round, NULL);
}


/* Shrinks RGBA8 pixels (`in`: in_w x in_h, `in_stride` bytes from one row to the next; or RGB8
 * when `channels` is 3, read as opaque) to out_w x out_h (each side at most the input's) into
 * `out` (RGBA8, rows packed): a separable
 * Lanczos 3 stretched by the shrink factor, so every input pixel contributes, in float, with
 * colour premultiplied by alpha when `premultiply` (so transparent pixels do not bleed), rounded
 * to 8 bits once at the end.
 *
 * With `box_gap` > 0, blocks of k x k pixels are first averaged (a box filter), k the largest
 * whole factor that leaves at least `box_gap` of the shrink to the Lanczos pass — the same
 * "reducing gap" as libvips' thumbnail and Pillow's `thumbnail` (2): much less work for large
 * shrinks, nearly the same result. 0 keeps the pure Lanczos.
 *
 * Rows are (box-averaged and) resampled along x into a float buffer of (boxed) in_h x out_w
 * pixels, then along y. Returns 0, or -1 when memory runs out (nothing is written then). */
static inline int shashin_rgba_shrink(const uint8_t *in, int in_w, int in_h, size_t in_stride,
                                      int channels, uint8_t *out, int out_w, int out_h,
                                      int premultiply, double box_gap) {
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

#endif /* SHASHIN_CVIPS_PROCESSING_H */
