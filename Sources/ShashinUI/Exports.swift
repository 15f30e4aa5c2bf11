// `import ShashinUI` is enough for an app's views: the pipeline, requests and options come with it.
@_exported import Shashin
