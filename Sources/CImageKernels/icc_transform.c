/* The lcms transform of an embedded ICC profile to sRGB (see CImageKernels.h). */
#include <stdlib.h>
#include <lcms2.h>
#include "CImageKernels.h"

/* lcms' context and the transform made in it; the context's error handler is silent. */
struct shashin_icc {
    cmsContext context;
    cmsHTRANSFORM transform;
};

static void shashin_icc_ignore_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context; (void)code; (void)text;
}

void shashin_icc_free(shashin_icc *icc) {
    if (!icc) return;
    if (icc->transform) cmsDeleteTransform(icc->transform);
    if (icc->context) cmsDeleteContext(icc->context);
    free(icc);
}

shashin_icc *shashin_icc_new(const void *profile, size_t length, const void *srgb, size_t srgb_length) {
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

void shashin_icc_apply(const shashin_icc *icc, uint8_t *rgba, size_t count) {
    const size_t chunk = (size_t)1 << 24;
    for (size_t done = 0; done < count; done += chunk) {
        const size_t n = count - done < chunk ? count - done : chunk;
        cmsDoTransform(icc->transform, rgba + 4 * done, rgba + 4 * done, (cmsUInt32Number)n);
    }
}
