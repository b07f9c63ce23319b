import OrientationCore
import OrientationProtocol
import SensorLog

/// How events are printed: `time orientation` for people, one JSON object per line for programs.
enum EventFormat {
    /// `12.345000 landscape-left`
    static func text(_ event: OrientationEvent) -> String {
        "\(seconds(event.time)) \(event.orientation.rawValue)"
    }

    /// `{"time":12.345000,"orientation":"landscape-left","previous":"portrait"}`, through the
    /// protocol's JSON writer (the time keeps its six decimals as an exact number).
    static func json(_ event: OrientationEvent) -> String {
        JSONWriter.serialize(.object([
            ("time", event.time.isFinite ? .exactNumber(seconds(event.time)) : .null),
            ("orientation", .string(event.orientation.rawValue)),
            ("previous", .string(event.previous.rawValue)),
        ]))
    }

    /// Fixed six decimals, no Foundation (a log's timestamps have microsecond resolution).
    static func seconds(_ value: Double) -> String {
        fixed(value, decimals: 6)
    }

    /// The project's one exact fixed-point formatter (SensorLog's), `nan`/`inf` as such.
    static func fixed(_ value: Double, decimals: Int) -> String {
        FixedPointFormatter.string(value, decimals: decimals)
    }
}
