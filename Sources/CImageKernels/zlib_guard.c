/* The zlib inflated-size guard (see CImageKernels.h): what a PNG chunk's compressed payload
 * would inflate to, learnt without holding it. */
#include <stdint.h>
#include <string.h>
#include <zlib.h>
#include "CImageKernels.h"

long long shashin_zlib_inflated_size(const void *data, size_t length, size_t limit) {
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
