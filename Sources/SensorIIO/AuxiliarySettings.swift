import AmbientSensorCore
import ConfigFileFormat
import OrientationCore

/// The `[light]`, `[proximity]` and `[compass]` sections: which device to read (automatic when
/// unset, ``AuxiliaryChoice``) and, for light, a per-device correction of the level.
public struct AuxiliarySettings: Sendable, Hashable {
    /// A device selector per kind (``DeviceSelector``'s forms).
    public var devices: [AuxiliarySensorKind: String] = [:]
    /// `[light] scale`: the light level is multiplied by it (beats udev
    /// `ORIENTATIOND_LIGHT_SCALE`; default 1). Derive it as lux-meter reading ÷ reported level,
    /// under steady light (docs/ARCHITECTURE.md §10).
    public var lightScale: Double? = nil

    public init() {}

    /// The section names.
    public static let sections = AuxiliarySensorKind.allCases.map(\.rawValue)

    /// The keys of `section`.
    public static func keys(_ kind: AuxiliarySensorKind) -> [String] { kind == .light ? ["device", "scale"] : ["device"] }

    /// Applies one entry of section `kind`; returns an error message for a bad value or name.
    public mutating func apply(_ kind: AuxiliarySensorKind, name: String, value: String) -> String? {
        switch name {
        case "device":
            devices[kind] = value.isEmpty ? nil : value
        case "scale" where kind == .light:
            if value.isEmpty { lightScale = nil; return nil }
            guard let number = ConfigNumber.decimal(value), number > 0, number.isFinite else {
                return "scale must be a positive number, not \"\(ControlCharacters.quoted(value))\""
            }
            lightScale = number
        default:
            return ConfigFile.unknown("\(kind) setting", name, among: Self.keys(kind))
        }
        return nil
    }

    /// The factor a light level is multiplied by for `sensor`, and where it came from.
    public func lightScale(for sensor: AuxiliarySensorDescription) -> (factor: Double, source: String) {
        if let lightScale { return (lightScale, "config [light] scale") }
        if let udev = sensor.udevLightScale { return (udev, "udev ORIENTATIOND_LIGHT_SCALE") }
        return (1, "default")
    }
}
