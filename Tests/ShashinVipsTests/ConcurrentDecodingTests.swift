// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
import ShashinVips
import Testing

/// Several decodes at once (the pipeline's decode queue runs one per core) give the same
/// results as one at a time.
@Suite struct ConcurrentDecoding {
    @Test func decodingFromEightTasksAtOnceGivesTheSameBitmapsAsDecodingAlone() async throws {
        let encoder = VipsImageEncoder()
        let source = TestImages.quadrants(width: 640, height: 480)
        let inputs: [(Data, ImageDecodingContext)] = try [
            (encoder.encodeBitmap(source, as: .jpeg, quality: 0.8), .init(format: .jpeg, thumbnail: .init(maxPixelSize: 200))),
            (encoder.encodeBitmap(source, as: .png, quality: 1), .init(format: .png)),
            (encoder.encodeBitmap(source, as: .webp, quality: 0.7), .init(format: .webp, thumbnail: .init(maxPixelSize: 100))),
            (encoder.encodeBitmap(source, as: .gif, quality: 1), .init(format: .gif)),
            (Data("not an image".utf8), .init(format: nil)),
        ]
        let decoder: any ImageDecoding = VipsImageDecoder()
        let expected = inputs.map { try? decoder.decode($0.0, context: $0.1) }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<12 {
                        let index = (task + round) % inputs.count
                        let result = try? decoder.decode(inputs[index].0, context: inputs[index].1)
                        #expect(result == expected[index], "task \(task), round \(round), input \(index)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(expected.compactMap { $0 }.count == 4)
    }
}
#endif
