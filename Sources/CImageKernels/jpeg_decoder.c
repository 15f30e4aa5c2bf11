/* The whole-file direct JPEG decode (see CImageKernels.h): the object, its error handling, the
 * header and the decode; the output pass is in jpeg_pixels.c. */
#include <stdlib.h>
#include <string.h>
#include "jpeg_decoder.h"

/* Guards the public header's colour-space values against libjpeg's. */
_Static_assert(SHASHIN_JPEG_GRAYSCALE == JCS_GRAYSCALE, "grey");
_Static_assert(SHASHIN_JPEG_RGB == JCS_RGB, "RGB");
_Static_assert(SHASHIN_JPEG_YCBCR == JCS_YCbCr, "YCbCr");

static void shashin_jpeg_error_exit(j_common_ptr cinfo) {
    shashin_jpeg_error_manager *error = (shashin_jpeg_error_manager *)cinfo->err;
    if (error->failure == SHASHIN_JPEG_OK) {
        error->failure = SHASHIN_JPEG_FAILED;
        (*cinfo->err->format_message)(cinfo, error->message);
    }
    longjmp(error->jump, 1);
}

static void shashin_jpeg_emit_message(j_common_ptr cinfo, int level) {
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
static void shashin_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

void *shashin_jpeg_alloc(shashin_jpeg *jpeg, size_t size) {
    void *buffer = jpeg->buffer_count < SHASHIN_JPEG_MAX_BUFFERS ? malloc(size ? size : 1) : NULL;
    if (!buffer) {
        jpeg->cinfo.err->msg_code = JERR_OUT_OF_MEMORY;
        jpeg->cinfo.err->msg_parm.i[0] = 0;
        (*jpeg->cinfo.err->error_exit)((j_common_ptr)&jpeg->cinfo);
    }
    jpeg->buffers[jpeg->buffer_count++] = buffer;
    return buffer;
}

int shashin_jpeg_init(shashin_jpeg *jpeg) {
    jpeg->cinfo.err = jpeg_std_error(&jpeg->error.pub);
    jpeg->error.pub.error_exit = shashin_jpeg_error_exit;
    jpeg->error.pub.emit_message = shashin_jpeg_emit_message;
    jpeg->error.pub.output_message = shashin_jpeg_output_message;
    if (setjmp(jpeg->error.jump)) return -1;
    jpeg_create_decompress(&jpeg->cinfo);
    jpeg->created = 1;
    return 0;
}

shashin_jpeg *shashin_jpeg_new(void) {
    shashin_jpeg *jpeg = (shashin_jpeg *)calloc(1, sizeof(shashin_jpeg));
    if (!jpeg) return NULL;
    if (shashin_jpeg_init(jpeg) != 0) {
        free(jpeg);
        return NULL;
    }
    return jpeg;
}

void shashin_jpeg_release(shashin_jpeg *jpeg) {
    if (jpeg->created) jpeg_destroy_decompress(&jpeg->cinfo);
    jpeg->created = 0;
    free(jpeg->icc);
    jpeg->icc = NULL;
    for (int i = 0; i < jpeg->buffer_count; i++) free(jpeg->buffers[i]);
    jpeg->buffer_count = 0;
}

void shashin_jpeg_free_buffers_after(shashin_jpeg *jpeg, int count) {
    while (jpeg->buffer_count > count) free(jpeg->buffers[--jpeg->buffer_count]);
}

void shashin_jpeg_free(shashin_jpeg *jpeg) {
    if (!jpeg) return;
    shashin_jpeg_release(jpeg);
    free(jpeg);
}

void shashin_jpeg_accept_end_of_data(shashin_jpeg *jpeg) {
    jpeg->error.accepts_end_of_data = 1;
}

shashin_jpeg_failure shashin_jpeg_get_failure(const shashin_jpeg *jpeg) {
    return jpeg->error.failure;
}

const char *shashin_jpeg_get_message(const shashin_jpeg *jpeg) {
    return jpeg->error.message;
}

void shashin_jpeg_keep_icc(shashin_jpeg *jpeg) {
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

int shashin_jpeg_read_header(shashin_jpeg *jpeg, const void *data, size_t length) {
    struct jpeg_decompress_struct *cinfo = &jpeg->cinfo;
    if (setjmp(jpeg->error.jump)) return -1;
    jpeg_mem_src(cinfo, (const unsigned char *)data, (unsigned long)length);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);
    shashin_jpeg_keep_icc(jpeg);
    return 0;
}

shashin_jpeg_header shashin_jpeg_get_header(const shashin_jpeg *jpeg) {
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

void shashin_jpeg_set_output(shashin_jpeg *jpeg, int shrink, int width, int height,
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

int shashin_jpeg_decode(shashin_jpeg *jpeg, int shrink, int width, int height, int orientation,
                        shashin_filter filter, uint8_t *rgba, size_t size) {
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
