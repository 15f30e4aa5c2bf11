import Foundation

/// Chooses a decoder for each piece of data: first the custom formats an app registered (newest
/// first), then the decoder registered for the sniffed `ImageFormat`, then `videoDecoder` for a
/// video (`VideoFormat`), then `defaultDecoder`.
///
/// A registry is itself an `ImageDecoding`, and it is what `ImagePipeline.Configuration.decoders`
/// holds; `import Shashin` fills `defaultDecoder` with the platform's decoder (ImageIO or libvips).
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// // A format of your own, recognised by its first bytes:
/// configuration.decoders.register(QOIDecoder(), forFormatNamed: "qoi") { $0.starts(with: Array("qoif".utf8)) }
/// // A built-in format decoded your way:
/// configuration.decoders.register(MyPNGDecoder(), for: .png)
/// ```
public struct ImageDecoderRegistry: ImageDecoding {
    /// Decodes every format no registration claims; `nil` leaves such data undecodable.
    public var defaultDecoder: (any ImageDecoding)?

    /// Decodes videos (MP4, MOV, M4V: `VideoFormat`, sniffed from their first bytes) to one
    /// frame: on Apple platforms `import Shashin` sets AVFoundation's first frame
    /// (`AVFoundationVideoDecoder`). `nil` (default, and on Linux): a video fails with
    /// `ImagePipelineError.videoNotSupported`. A custom format's registration claims its data first.
    ///
    /// ```swift
    /// configuration.decoders.videoDecoder = AVFoundationVideoDecoder(frame: .init(time: 2))
    /// ```
    public var videoDecoder: (any ImageDecoding)?

    private var decodersByFormat: [ImageFormat: any ImageDecoding] = [:]
    private var customFormats: [CustomFormat] = []

    /// A format an app recognises by its own sniffing closure.
    private struct CustomFormat: Sendable {
        let name: String
        let matches: @Sendable (Data) -> Bool
        let decoder: any ImageDecoding
    }

    /// Creates a registry whose only decoder is `defaultDecoder`.
    public init(defaultDecoder: (any ImageDecoding)? = nil) {
        self.defaultDecoder = defaultDecoder
    }

    /// Decodes `format` with `decoder` from now on, in place of the default decoder or an
    /// earlier registration for the same format.
    public mutating func register(_ decoder: any ImageDecoding, for format: ImageFormat) {
        decodersByFormat[format] = decoder
    }

    /// Decodes data for which `matches` returns `true` with `decoder`. `matches` sees the whole
    /// data and should look only at its first bytes; it is asked before the built-in formats are
    /// sniffed, so it can also claim data that looks like one of them. Registering a name again
    /// replaces the earlier registration. The decoder receives `context.format == nil`.
    public mutating func register(_ decoder: any ImageDecoding, forFormatNamed name: String,
                                  matching matches: @escaping @Sendable (Data) -> Bool) {
        customFormats.removeAll { $0.name == name }
        customFormats.append(CustomFormat(name: name, matches: matches, decoder: decoder))
    }

    /// Removes what was registered for `format`, so the default decoder takes it again.
    public mutating func removeDecoder(for format: ImageFormat) {
        decodersByFormat[format] = nil
    }

    /// Removes the custom format registered as `name`.
    public mutating func removeDecoder(forFormatNamed name: String) {
        customFormats.removeAll { $0.name == name }
    }

    /// The decoder this registry would use for `data`, or `nil` when none would take it.
    public func decoder(for data: Data) -> (any ImageDecoding)? {
        if let custom = customFormats.last(where: { $0.matches(data) }) { return custom.decoder }
        if ImageFormat(sniffing: data) == nil, VideoFormat(sniffing: data) != nil { return videoDecoder }
        if let format = ImageFormat(sniffing: data), let decoder = decodersByFormat[format] { return decoder }
        return defaultDecoder
    }

    /// Decodes `data` with the decoder chosen for it. A custom format's decoder receives a context
    /// without `format`; the others receive the sniffed format. Throws `.decodingFailed` when no
    /// decoder takes the data.
    public func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        if let custom = customFormats.last(where: { $0.matches(data) }) {
            var context = context
            context.format = nil
            return try custom.decoder.decode(data, context: context)
        }
        let format = context.format ?? ImageFormat(sniffing: data)
        if format == nil, let video = VideoFormat(sniffing: data) {
            guard let videoDecoder else { throw ImagePipelineError.videoNotSupported(video) }
            return try videoDecoder.decode(data, context: context)
        }
        guard let decoder = format.flatMap({ decodersByFormat[$0] }) ?? defaultDecoder else {
            throw ImagePipelineError.decodingFailed(format: format, reason: "No decoder is registered for \(format.map { "\($0)" } ?? "this data")")
        }
        return try decoder.decode(data, context: context)
    }
}
