import CVips
import ShashinCore

extension VipsImageScope {
    /// `image` turned upright (EXIF orientation applied) and into 8-bit sRGB with alpha:
    /// exactly the layout of `Bitmap`. Nothing is computed until the result is written.
    func uprightRGBA8(_ image: VipsImagePointer) throws(VipsError) -> VipsImagePointer {
        try fourBands(uprightSRGB8(image))
    }

    /// `image` upright and in 8-bit sRGB, with the bands it has (1–4): `uprightRGBA8` but for
    /// the last step.
    func uprightSRGB8(_ image: VipsImagePointer) throws(VipsError) -> VipsImagePointer {
        var image = image
        if vips_image_get_orientation(image) != 1 {
            image = try make { shashin_autorot(image, $0) }
        }
        if hasNonSRGBProfile(image), let srgb = makeIfPossible({ shashin_icc_transform_to_srgb(image, $0) }) {
            // A profile lcms cannot use (or one that does not match the bands) is ignored:
            // the samples are then taken as sRGB, as a browser without colour management would.
            image = srgb
        }
        if vips_colourspace_issupported(image) != 0, vips_image_get_interpretation(image) != VIPS_INTERPRETATION_sRGB {
            image = try make { shashin_colourspace(image, $0, VIPS_INTERPRETATION_sRGB) }
        }
        switch vips_image_get_format(image) {
        case VIPS_FORMAT_UCHAR: break
        case VIPS_FORMAT_USHORT: image = try make { shashin_cast(image, $0, VIPS_FORMAT_UCHAR, 1) }
        default: image = try make { shashin_cast(image, $0, VIPS_FORMAT_UCHAR, 0) }
        }
        return image
    }

    /// Whether `image` carries an ICC profile other than sRGB: one its samples must be
    /// transformed through to be sRGB.
    private func hasNonSRGBProfile(_ image: VipsImagePointer) -> Bool {
        var data: UnsafeRawPointer?
        var length = 0
        guard shashin_has_icc_profile(image) != 0,
              vips_image_get_blob(image, "icc-profile-data", &data, &length) == 0, let data else { return false }
        return !ICCProfile(UnsafeRawBufferPointer(start: data, count: length)).describesSRGB
    }

    /// Red, green, blue and alpha from whatever bands an 8-bit image has: grey is repeated,
    /// a missing alpha is opaque, extra bands are dropped.
    func fourBands(_ image: VipsImagePointer) throws(VipsError) -> VipsImagePointer {
        let bands = vips_image_get_bands(image)
        switch bands {
        case 4:
            return image
        case 3:
            return try make { shashin_bandjoin_const1(image, $0, 255) }
        case 1, 2:
            let grey = try make { shashin_extract_band(image, $0, 0, 1) }
            var parts: [VipsImagePointer?] = [grey, grey, grey]
            if bands == 2 { parts.append(try make { shashin_extract_band(image, $0, 1, 1) }) }
            let joined = try make { out in
                parts.withUnsafeMutableBufferPointer { shashin_bandjoin($0.baseAddress, Int32($0.count), out) }
            }
            return bands == 2 ? joined : try make { shashin_bandjoin_const1(joined, $0, 255) }
        default:
            return try make { shashin_extract_band(image, $0, 0, 4) }
        }
    }

    /// Runs the pipeline that ends in `image` (8-bit, any bands) and gives its pixels, packed.
    func bytes(from image: VipsImagePointer) throws(VipsError) -> [UInt8] {
        let count = Int(vips_image_get_width(image)) * Int(vips_image_get_height(image)) * Int(vips_image_get_bands(image))
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            failed = shashin_write_to_buffer(image, buffer.baseAddress, count) != 0
            initialized = failed ? 0 : count
        }
        if failed { throw VipsError.fromBuffer() }
        return bytes
    }

    /// Runs the pipeline that ends in `image` (8-bit, four bands) and writes its pixels
    /// straight into the bitmap's storage, with no intermediate copy.
    func bitmap(from image: VipsImagePointer) throws(VipsError) -> Bitmap {
        let width = Int(vips_image_get_width(image))
        let height = Int(vips_image_get_height(image))
        let count = width * height * 4
        var failed = false
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            failed = shashin_write_to_buffer(image, buffer.baseAddress, count) != 0
            initialized = failed ? 0 : count
        }
        if failed { throw VipsError.fromBuffer() }
        return Bitmap(width: width, height: height, pixels: pixels)
    }
}
