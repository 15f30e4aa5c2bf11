/*
 * The image kernels ShashinVips runs in C beside libvips: the direct libjpeg-turbo decoder
 * (whole files and the buffered-image preview session), the Lanczos RGBA shrink, the lcms
 * transform of an embedded ICC profile to sRGB, and the zlib inflated-size guard.
 *
 * Only what Swift calls is declared here; the decoder, session and transform are opaque. No
 * libjpeg, lcms or zlib header is included, so Swift sees none of their names.
 */
#ifndef SHASHIN_CIMAGEKERNELS_H
#define SHASHIN_CIMAGEKERNELS_H

#include <stddef.h>
#include <stdint.h>

/* ---- zlib: how far a compressed PNG chunk inflates ----
 *
 * Inflates `length` bytes of a zlib stream into a small scratch buffer that is overwritten each
 * round, counting the output and stopping as soon as it passes `limit`: the size is learnt in
 * O(limit) time and constant memory. Returns the inflated size, `limit + 1` when it passes the
 * limit, or -1 when the stream is broken or ends early. */
long long shashin_zlib_inflated_size(const void *data, size_t length, size_t limit);

/* ---- resampling ---- */

typedef enum {
    SHASHIN_FILTER_TRIANGLE = 1,    /* bilinear, widened when shrinking: support 1 */
    SHASHIN_FILTER_CATMULL_ROM = 2, /* bicubic, a = -0.5: support 2 */
    SHASHIN_FILTER_LANCZOS3 = 3,    /* windowed sinc: support 3 (libvips' default) */
} shashin_filter;

/* Shrinks RGBA8 pixels (`in`: in_w x in_h, `in_stride` bytes from one row to the next; or RGB8
 * when `channels` is 3, read as opaque) to out_w x out_h (each side at most the input's) into
 * `out` (RGBA8, rows packed): a separable Lanczos 3 stretched by the shrink factor, so every
 * input pixel contributes, in float, with colour premultiplied by alpha when `premultiply` (so
 * transparent pixels do not bleed), rounded to 8 bits once at the end.
 *
 * With `box_gap` > 0, blocks of k x k pixels are first averaged (a box filter), k the largest
 * whole factor that leaves at least `box_gap` of the shrink to the Lanczos pass — the same
 * "reducing gap" as libvips' thumbnail and Pillow's `thumbnail` (2): much less work for large
 * shrinks, nearly the same result. 0 keeps the pure Lanczos.
 *
 * Returns 0, or -1 when memory runs out (nothing is written then). */
int shashin_rgba_shrink(const uint8_t *in, int in_w, int in_h, size_t in_stride, int channels,
                        uint8_t *out, int out_w, int out_h, int premultiply, double box_gap);

/* ---- direct libjpeg-turbo decoding (the JPEG fast path) ----
 *
 * For plain JPEGs (grey, YCbCr or RGB) the decoder hands libjpeg-turbo the whole buffer,
 * decodes at 1/2, 1/4 or 1/8 through the DCT, resamples the rest of the way and writes upright
 * RGBA8 pixels straight into the caller's buffer; an RGB profile other than sRGB is then applied
 * to that (small) result with shashin_icc_apply, below.
 *
 * Use: shashin_jpeg_new, shashin_jpeg_read_header, shashin_jpeg_get_header, then
 * shashin_jpeg_decode; shashin_jpeg_free on every path (it destroys the libjpeg object and
 * frees every buffer, whether or not a call failed half-way). A call that fails (-1) leaves the
 * object fit only for shashin_jpeg_free.
 *
 * Warnings: "premature end of file" and the 100th warning are made fatal, as libvips does with
 * fail_on = truncated, so a cut-off file never gives part of an image. Like libvips, the decode
 * stops at the last scanline: what follows the scan data (markers up to EOI, possibly damaged)
 * is not checked. */

typedef struct shashin_jpeg shashin_jpeg;

/* Why the last call failed. */
typedef enum {
    SHASHIN_JPEG_OK = 0,
    /* libjpeg refused the data (or we ran out of memory): another decoder may still try. */
    SHASHIN_JPEG_FAILED = 1,
    /* The data ends early, or is so corrupt that libjpeg warned 100 times: the image is not
     * all there, and no decoder should pretend it is. */
    SHASHIN_JPEG_INCOMPLETE = 2,
} shashin_jpeg_failure;

/* The colour spaces of shashin_jpeg_header.color_space this path decodes: libjpeg's
 * JCS_GRAYSCALE, JCS_RGB and JCS_YCbCr (the decoder checks that the values agree). */
enum {
    SHASHIN_JPEG_GRAYSCALE = 1,
    SHASHIN_JPEG_RGB = 2,
    SHASHIN_JPEG_YCBCR = 3,
};

/* What the header says, for the caller to decide whether this path can decode the image. */
typedef struct shashin_jpeg_header {
    /* As declared by the frame header; 0 when it was never reached. Set even when
     * shashin_jpeg_read_header failed after the frame header (e.g. "too big"). */
    unsigned int width, height;
    int components;
    /* The colour space libjpeg inferred (a J_COLOR_SPACE value): grey, YCbCr and RGB as above;
     * CMYK, YCCK or unknown otherwise. */
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

/* A fresh decoder object, or NULL when memory runs out. */
shashin_jpeg *shashin_jpeg_new(void);

/* Destroys the libjpeg object and frees everything, after success or any failure. */
void shashin_jpeg_free(shashin_jpeg *jpeg);

/* For a preview of a progressive JPEG from its first bytes: the end of the data is taken as the
 * end of the image (libjpeg's source inserts an end-of-image marker there), so the scans
 * received so far decode and the coefficients still missing count as zero. Call before
 * shashin_jpeg_read_header. */
void shashin_jpeg_accept_end_of_data(shashin_jpeg *jpeg);

shashin_jpeg_failure shashin_jpeg_get_failure(const shashin_jpeg *jpeg);

/* libjpeg's text for the failure, "" when there was none. */
const char *shashin_jpeg_get_message(const shashin_jpeg *jpeg);

/* Reads markers up to the first scan from `data` (which must stay valid until
 * shashin_jpeg_free): dimensions, colour space, ICC profile, Exif. 0 on success, -1 on failure. */
int shashin_jpeg_read_header(shashin_jpeg *jpeg, const void *data, size_t length);

/* The header read so far; its `icc` and `exif` point into `jpeg` and live as long as it. */
shashin_jpeg_header shashin_jpeg_get_header(const shashin_jpeg *jpeg);

/* Decodes the image at 1/`shrink` through the DCT (1, 2, 4 or 8), resamples that to `width` x
 * `height` *as stored* with `filter` (when the sizes differ) and writes it to `rgba`
 * (`width * height * 4` bytes) as opaque RGBA turned upright by EXIF `orientation` (1...8): the
 * upright image is `height` x `width` for orientations 5...8. Data that runs out before the
 * last scanline fails. 0 on success, -1 on failure (`rgba` then holds garbage). */
int shashin_jpeg_decode(shashin_jpeg *jpeg, int shrink, int width, int height, int orientation,
                        shashin_filter filter, uint8_t *rgba, size_t size);

/* ---- a buffered-image session: previews of a progressive JPEG as it downloads ----
 *
 * One libjpeg object in buffered-image mode for the whole download: the body's bytes are
 * appended as they arrive, libjpeg entropy-decodes each byte once, and each preview is an output
 * pass over the coefficients of the scans so far through the same resampling as
 * shashin_jpeg_decode. When the whole body is in, the last output pass is the final image. The
 * caller shows it bytes up to the marker that ends a complete scan and no further: the previews
 * are then the pixels a decode of that prefix from scratch would give.
 *
 * Use: shashin_jpeg_session_new; shashin_jpeg_session_append with each run of new bytes;
 * shashin_jpeg_session_read_header until it returns 1, then shashin_jpeg_get_header on
 * shashin_jpeg_session_decoder; shashin_jpeg_session_start with the output's shape; then
 * shashin_jpeg_session_consume and shashin_jpeg_session_output for each preview, and
 * shashin_jpeg_session_end_input and shashin_jpeg_session_output for the final image;
 * shashin_jpeg_session_free on every path. A call that fails (-1) leaves the session fit only
 * for shashin_jpeg_session_free. */

typedef struct shashin_jpeg_session shashin_jpeg_session;

/* A new session, or NULL when memory runs out. */
shashin_jpeg_session *shashin_jpeg_session_new(void);

/* Frees the libjpeg object, the coefficients and the bytes, whatever state the session is in. */
void shashin_jpeg_session_free(shashin_jpeg_session *session);

/* The session's decoder, for shashin_jpeg_get_header, _get_failure and _get_message (never to
 * be freed on its own). */
shashin_jpeg *shashin_jpeg_session_decoder(shashin_jpeg_session *session);

/* Bytes appended so far. */
size_t shashin_jpeg_session_length(const shashin_jpeg_session *session);

/* Whether the `count` bytes at `bytes` begin with every byte appended so far. */
int shashin_jpeg_session_continued_by(const shashin_jpeg_session *session, const void *bytes, size_t count);

/* Appends the next `count` bytes of the body. 0, or -1 when memory runs out or the input has
 * ended (the session is unchanged then). */
int shashin_jpeg_session_append(shashin_jpeg_session *session, const void *bytes, size_t count);

/* Reads the markers up to the first scan from the bytes so far (ICC profile and Exif kept, as
 * shashin_jpeg_read_header does): 1 when read, 0 when it needs more bytes, -1 on failure. */
int shashin_jpeg_session_read_header(shashin_jpeg_session *session);

/* Starts buffered decoding of a progressive JPEG to `width` x `height` as stored, at 1/`shrink`
 * through the DCT, turned upright by `orientation`, for outputs of `size` bytes (the arguments
 * of shashin_jpeg_decode, fixed for the session). 0, or -1 on failure. */
int shashin_jpeg_session_start(shashin_jpeg_session *session, int shrink, int width, int height,
                               int orientation, shashin_filter filter, size_t size);

/* Entropy-decodes the bytes up to `limit` (the two bytes of the marker that ends a complete
 * scan, or fewer). 0, or -1 on failure. */
int shashin_jpeg_session_consume(shashin_jpeg_session *session, size_t limit);

/* No more bytes will come: entropy-decodes the rest up to the end of the image, the end of the
 * data taken as the end of the input (data that ends early fails). 0, or -1 on failure. */
int shashin_jpeg_session_end_input(shashin_jpeg_session *session);

/* The picture of every scan entropy-decoded so far, into `rgba` (the session's `size` bytes), as
 * shashin_jpeg_decode would make it from these bytes alone: 1 when written, 0 when there is no
 * complete scan to show (rgba untouched), -1 on failure. Unless `again`, a scan already shown
 * counts as none to show. */
int shashin_jpeg_session_output(shashin_jpeg_session *session, uint8_t *rgba, size_t size, int again);

/* ---- ICC profile to sRGB, after the direct decode ----
 *
 * The same lcms transform libvips' icc_transform makes from an embedded profile to sRGB (both
 * profiles as given, relative colorimetric, no black point compensation, cmsFLAGS_NOCACHE), on
 * RGBA8 pixels in place: alpha is an extra channel lcms leaves as it is. Made in a context of its
 * own whose error handler is silent, so a corrupt profile never writes into the (global) vips
 * error buffer, where libvips' handler would put it. NOCACHE makes shashin_icc_apply safe from
 * many threads at once on one transform. */

typedef struct shashin_icc shashin_icc;

/* A transform from `profile` (which must describe RGB, as libvips requires of a profile for a
 * three-band image) to `srgb`; NULL when lcms cannot read either profile or build the transform. */
shashin_icc *shashin_icc_new(const void *profile, size_t length, const void *srgb, size_t srgb_length);

void shashin_icc_free(shashin_icc *icc);

/* Transforms `count` RGBA8 pixels in place. */
void shashin_icc_apply(const shashin_icc *icc, uint8_t *rgba, size_t count);

#endif /* SHASHIN_CIMAGEKERNELS_H */
