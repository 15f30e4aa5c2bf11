/* The buffered-image session (see CImageKernels.h): previews of a progressive JPEG as it
 * downloads, one libjpeg object for the whole body.
 *
 * The source suspends (fill_input_buffer returns FALSE) at the end of the bytes it is shown, so
 * libjpeg keeps every byte from its last restart point on, and reads them again with the bytes
 * shown next; the buffer holds the whole body, so nothing it may reread is ever discarded. The
 * caller shows it bytes up to the marker that ends a complete scan and no further: the
 * coefficients then hold exactly the scans a decode of that prefix from scratch would, and the
 * previews are the same pixels. Once shashin_jpeg_session_end_input says no more bytes will
 * come, the end of the data is the end of the input, as for shashin_jpeg_decode: a premature
 * end fails (SHASHIN_JPEG_INCOMPLETE). */
#include <stdlib.h>
#include <string.h>
#include "jpeg_decoder.h"

struct shashin_jpeg_session {
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
};

static shashin_jpeg_session *shashin_jpeg_session_of(j_decompress_ptr cinfo) {
    return (shashin_jpeg_session *)(void *)cinfo;
}

static void shashin_jpeg_session_init_source(j_decompress_ptr cinfo) { (void)cinfo; }
static void shashin_jpeg_session_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean shashin_jpeg_session_fill(j_decompress_ptr cinfo) {
    static const JOCTET end_of_image[2] = { 0xFF, JPEG_EOI };
    if (!shashin_jpeg_session_of(cinfo)->at_end) return FALSE; /* suspend until more is shown */
    /* As jpeg_mem_src: the data ends early; the warning fails the decode (emit_message). */
    WARNMS(cinfo, JWRN_JPEG_EOF);
    cinfo->src->next_input_byte = end_of_image;
    cinfo->src->bytes_in_buffer = 2;
    return TRUE;
}

static void shashin_jpeg_session_skip(j_decompress_ptr cinfo, long count) {
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
static void shashin_jpeg_session_sync(shashin_jpeg_session *session) {
    const JOCTET *next = session->source.next_input_byte;
    if (next && session->data && next >= session->data && next <= session->data + session->length)
        session->position = (size_t)(next - session->data);
}

/* Shows libjpeg the bytes up to `limit` (at most `length`), passing what a skip still owes. */
static void shashin_jpeg_session_show(shashin_jpeg_session *session, size_t limit) {
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
void shashin_jpeg_session_free(shashin_jpeg_session *session) {
    if (!session) return;
    shashin_jpeg_release(&session->jpeg);
    free(session->data);
    free(session);
}

/* A new session, or NULL when memory runs out. */
shashin_jpeg_session *shashin_jpeg_session_new(void) {
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

shashin_jpeg *shashin_jpeg_session_decoder(shashin_jpeg_session *session) {
    return &session->jpeg;
}

/* Bytes appended so far. */
size_t shashin_jpeg_session_length(const shashin_jpeg_session *session) {
    return session->length;
}

/* Whether the `count` bytes at `bytes` begin with every byte appended so far. */
int shashin_jpeg_session_continued_by(const shashin_jpeg_session *session, const void *bytes, size_t count) {
    return count >= session->length && (session->length == 0 || memcmp(session->data, bytes, session->length) == 0);
}

/* Appends the next `count` bytes of the body. 0, or -1 when memory runs out (the session is
 * unchanged then). */
int shashin_jpeg_session_append(shashin_jpeg_session *session, const void *bytes, size_t count) {
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
int shashin_jpeg_session_read_header(shashin_jpeg_session *session) {
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
int shashin_jpeg_session_start(shashin_jpeg_session *session, int shrink, int width, int height,
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
static void shashin_jpeg_session_absorb(shashin_jpeg_session *session) {
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
int shashin_jpeg_session_consume(shashin_jpeg_session *session, size_t limit) {
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
int shashin_jpeg_session_end_input(shashin_jpeg_session *session) {
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
int shashin_jpeg_session_output(shashin_jpeg_session *session, uint8_t *rgba, size_t size, int again) {
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
