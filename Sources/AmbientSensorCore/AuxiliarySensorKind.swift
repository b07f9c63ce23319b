/// The sensors orientationd serves beside the accelerometer (issue 17), each read on its own,
/// opened only while claimed: ambient light, proximity and compass.
///
/// The raw values are the wire names (the socket's topics and message types, docs/PROTOCOL.md).
public enum AuxiliarySensorKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case light, proximity, compass

    public var description: String { rawValue }

    /// In words, for logs and `--list-sensors`: `ambient light sensor`, `proximity sensor`,
    /// `compass`.
    public var noun: String {
        switch self {
        case .light: "ambient light sensor"
        case .proximity: "proximity sensor"
        case .compass: "compass"
        }
    }
}
