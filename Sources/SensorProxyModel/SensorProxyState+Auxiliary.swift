import AmbientSensorCore
import OrientationCore

extension SensorProxyState {
    /// Applies a light, proximity or compass sensor's state (docs/DBUS.md): presence is
    /// `HasAmbientLight`, `HasProximity`, `HasCompass`; a reading sets `LightLevel` with its
    /// `LightLevelUnit` (`lux`, or `vendor` for Apple's hwmon sensor), `ProximityNear`,
    /// `CompassHeading`. Without a reading (closed before its first, or gone) the last value
    /// stays, as the peer keeps it.
    public mutating func update(_ sensor: AuxiliarySensorState) {
        switch sensor.kind {
        case .light: hasAmbientLight = sensor.present
        case .proximity: hasProximity = sensor.present
        case .compass: hasCompass = sensor.present
        }
        switch sensor.reading {
        case .light(let level, let unit)?:
            lightLevel = level
            lightLevelUnit = unit.rawValue
        case .proximity(let near)?: proximityNear = near
        case .compass(let heading)?: compassHeading = heading
        case nil: break
        }
    }
}
