import OrientationCore

/// How events are printed: `time orientation` for people, one JSON object per line for programs.
enum EventFormat {
    /// `12.345000 landscape-left`
    static func text(_ event: OrientationEvent) -> String {
        "\(seconds(event.time)) \(event.orientation.rawValue)"
    }

    /// `{"time":12.345,"orientation":"landscape-left","previous":"portrait"}`
    static func json(_ event: OrientationEvent) -> String {
        "{\"time\":\(seconds(event.time)),\"orientation\":\"\(event.orientation.rawValue)\",\"previous\":\"\(event.previous.rawValue)\"}"
    }

    /// Fixed six decimals, no Foundation (a log's timestamps have microsecond resolution).
    static func seconds(_ value: Double) -> String {
        fixed(value, decimals: 6)
    }

    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let integer = UInt64(scaled)
        let divisor = UInt64(scale)
        var fraction = String(integer % divisor)
        if fraction.count < decimals { fraction = String(repeating: "0", count: decimals - fraction.count) + fraction }
        let sign = value < 0 && integer != 0 ? "-" : ""
        return decimals == 0 ? "\(sign)\(integer)" : "\(sign)\(integer / divisor).\(fraction)"
    }
}
