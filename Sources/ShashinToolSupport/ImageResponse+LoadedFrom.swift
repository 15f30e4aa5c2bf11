import Shashin

extension ImageResponse {
    /// Where the image came from, in one word for the tools' reports: `memory`, `disk`,
    /// `revalidated`, `file` (a local file's source), `data source` (an app's closure) or `network`.
    public var loadedFrom: String {
        switch cacheType {
        case .memory: "memory"
        case .disk: "disk"
        case .revalidated: "revalidated"
        case .none:
            if source.dataID?.hasPrefix("file:") == true { "file" } else if source.dataID != nil { "data source" } else { "network" }
        }
    }
}
