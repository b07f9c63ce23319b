import AmbientSensorCore
import OrientationCore

/// The four sensors iio-sensor-proxy serves on net.hadess.SensorProxy, each claimed and released
/// on its own (`ClaimAccelerometer`, `ClaimLight`, `ClaimProximity`, `ClaimCompass`).
public enum ProxySensor: Int, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    case accelerometer = 0
    case light = 1
    case proximity = 2
    case compass = 3

    /// The name in the D-Bus methods (`Claim<name>`).
    public var description: String {
        switch self {
        case .accelerometer: "Accelerometer"
        case .light: "Light"
        case .proximity: "Proximity"
        case .compass: "Compass"
        }
    }
}

extension ProxySensor {
    /// The light, proximity or compass sensor this is (`nil` for the accelerometer).
    public var auxiliaryKind: AuxiliarySensorKind? {
        switch self {
        case .accelerometer: nil
        case .light: .light
        case .proximity: .proximity
        case .compass: .compass
        }
    }
}
