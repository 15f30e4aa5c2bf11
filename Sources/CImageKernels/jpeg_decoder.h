/*
 * The direct libjpeg-turbo decoder's object, inside the target: shared by the whole-file decode
 * (jpeg_decoder.c), its output pass (jpeg_pixels.c) and the preview session (jpeg_session.c).
 *
 * Errors: libjpeg reports fatal errors through error_exit, which must not return. Each public
 * function that calls into libjpeg sets its own setjmp point first, and error_exit longjmps back
 * there; the function then returns -1 and the object is only fit for being freed. Warnings go to
 * emit_message: "premature end of file" and the 100th warning are made fatal. The functions
 * below that say "fails through error_exit" may only be called under such a setjmp point.
 */
#ifndef SHASHIN_JPEG_DECODER_H
#define SHASHIN_JPEG_DECODER_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include "CImageKernels.h"

/* What follows is shared by this target's files only: hidden from anything that links the target. */
#pragma GCC visibility push(hidden)

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

struct shashin_jpeg {
    struct jpeg_decompress_struct cinfo;
    shashin_jpeg_error_manager error;
    int created;
    JOCTET *icc;
    unsigned int icc_length;
    void *buffers[SHASHIN_JPEG_MAX_BUFFERS];
    int buffer_count;
};

/* Sets up `jpeg` (zeroed) as a decompressor with this target's error handling. 0, or -1 when
 * memory runs out (nothing is then held). */
int shashin_jpeg_init(shashin_jpeg *jpeg);

/* Destroys the libjpeg object and frees every buffer, but not `jpeg` itself. */
void shashin_jpeg_release(shashin_jpeg *jpeg);

/* A malloc'ed buffer that shashin_jpeg_release frees; fails through error_exit. */
void *shashin_jpeg_alloc(shashin_jpeg *jpeg, size_t size);

/* Frees the buffers allocated since there were `count`: those of one output pass. */
void shashin_jpeg_free_buffers_after(shashin_jpeg *jpeg, int count);

/* Reassembles the ICC profile from the saved APP2 markers, once the header is read. */
void shashin_jpeg_keep_icc(shashin_jpeg *jpeg);

/* Checks the arguments of a decode to `width` x `height` (as stored) at 1/`shrink` into `size`
 * bytes, and sets libjpeg's scale and output colour space for it, before
 * jpeg_start_decompress. Fails through error_exit. */
void shashin_jpeg_set_output(shashin_jpeg *jpeg, int shrink, int width, int height,
                             int orientation, size_t size);

/* Reads the output pass that has started (jpeg_start_decompress or jpeg_start_output) into
 * `rgba`: resampled to `width` x `height` as stored with `filter` when the decoded size differs,
 * and turned upright by `orientation`. The pass's own buffers are freed when it ends; after a
 * failure (through error_exit), by shashin_jpeg_release. */
void shashin_jpeg_read_pixels(shashin_jpeg *jpeg, int width, int height, int orientation,
                              shashin_filter filter, uint8_t *rgba);

#pragma GCC visibility pop

#endif /* SHASHIN_JPEG_DECODER_H */
