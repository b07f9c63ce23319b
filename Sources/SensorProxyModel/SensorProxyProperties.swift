/// A set of net.hadess.SensorProxy properties: what a `PropertiesChanged` carries, what a
/// client has read. The raw bits are the facade's C shim's `OD_PROP_*` (SensorProxyBus checks
/// that they agree), so a set crosses to C as its raw value.
public struct SensorProxyProperties: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let hasAccelerometer = SensorProxyProperties(rawValue: 1 << 0)
    public static let accelerometerOrientation = SensorProxyProperties(rawValue: 1 << 1)
    public static let accelerometerTilt = SensorProxyProperties(rawValue: 1 << 2)
    public static let hasAmbientLight = SensorProxyProperties(rawValue: 1 << 3)
    public static let lightLevel = SensorProxyProperties(rawValue: 1 << 4)
    public static let lightLevelUnit = SensorProxyProperties(rawValue: 1 << 5)
    public static let hasProximity = SensorProxyProperties(rawValue: 1 << 6)
    public static let proximityNear = SensorProxyProperties(rawValue: 1 << 7)
    public static let hasCompass = SensorProxyProperties(rawValue: 1 << 8)
    public static let compassHeading = SensorProxyProperties(rawValue: 1 << 9)

    /// Every property, on both objects.
    public static let all: SensorProxyProperties = [
        .hasAccelerometer, .accelerometerOrientation, .accelerometerTilt, .hasAmbientLight, .lightLevel,
        .lightLevelUnit, .hasProximity, .proximityNear, .hasCompass, .compassHeading,
    ]

    /// The properties of one sensor: its `Has…` and its values (a claimer of the sensor is sent
    /// changes of these, and only these).
    public static func of(_ sensor: ProxySensor) -> SensorProxyProperties {
        switch sensor {
        case .accelerometer: [.hasAccelerometer, .accelerometerOrientation, .accelerometerTilt]
        case .light: [.hasAmbientLight, .lightLevel, .lightLevelUnit]
        case .proximity: [.hasProximity, .proximityNear]
        case .compass: [.hasCompass, .compassHeading]
        }
    }
}
