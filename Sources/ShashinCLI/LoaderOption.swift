import ArgumentParser
import Foundation
import Shashin
import ShashinAsyncHTTPClient

/// `--loader`: which HTTP client a command downloads with.
struct LoaderOption: ParsableArguments {
    enum Choice: String, CaseIterable, ExpressibleByArgument {
        /// `PlatformDataLoader`: AsyncHTTPClient on Linux, URLSession on Apple platforms.
        case platform
        case asynchttpclient
        case urlsession
    }

    @Option(help: "The HTTP client: \(Choice.allCases.map(\.rawValue).joined(separator: ", ")) (platform: AsyncHTTPClient on Linux, URLSession on Apple platforms).")
    var loader: Choice = .platform

    /// A loader of the chosen kind with `destinationPolicy`; an AsyncHTTPClient loader made here
    /// owns its client, which it shuts down when it goes.
    func make(destinationPolicy: DestinationPolicy = .unrestricted) -> any DataLoading {
        switch loader {
        case .platform: PlatformDataLoader(destinationPolicy: destinationPolicy)
        case .asynchttpclient: AsyncHTTPClientDataLoader(destinationPolicy: destinationPolicy)
        case .urlsession: URLSessionDataLoader(destinationPolicy: destinationPolicy)
        }
    }
}
