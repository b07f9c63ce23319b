/// A sensor kind's filter: turns the values its reader delivers, in the sensor's own terms,
/// into the readings clients get, or `nil` when a value changes nothing or cannot be used. One
/// per open sensor, made afresh at each open by ``AuxiliarySensorKind/makeFilter(lightScale:lightUnit:nearLevel:)``,
/// so the first value after an open is published at once.
public protocol AuxiliaryReadingFilter: Sendable {
    mutating func admit(_ value: Double) -> AuxiliaryReading?
}

extension AuxiliarySensorKind {
    /// The kind's filter for one open sensor: light through ``LightLevelFilter`` after the
    /// per-device `lightScale`, proximity through ``ProximityHysteresis`` (`nil` without a near
    /// level: such a sensor is never read), the compass wrapped to [0, 360) by
    /// ``CompassHeading``. The one place that says how a kind's values become readings; the
    /// service that opens the sensor is the same for every kind.
    public func makeFilter(lightScale: Double, lightUnit: LightUnit, nearLevel: Double?) -> (any AuxiliaryReadingFilter)? {
        switch self {
        case .light: LightReadingFilter(scale: lightScale, unit: lightUnit)
        case .proximity: nearLevel.map { ProximityHysteresis(nearLevel: $0) }
        case .compass: CompassReadingFilter()
        }
    }
}

/// The light kind's filter: the level × the per-device scale, published as
/// ``LightLevelFilter`` says.
struct LightReadingFilter: AuxiliaryReadingFilter {
    let scale: Double
    let unit: LightUnit
    var levels = LightLevelFilter()

    mutating func admit(_ value: Double) -> AuxiliaryReading? {
        levels.admit(value * scale).map { .light(level: $0, unit: unit) }
    }
}

/// The compass kind's filter: every finite heading, wrapped to [0, 360).
struct CompassReadingFilter: AuxiliaryReadingFilter {
    func admit(_ value: Double) -> AuxiliaryReading? {
        CompassHeading.degrees(raw: value, scale: 1).map { .compass(heading: $0) }
    }
}

extension ProximityHysteresis: AuxiliaryReadingFilter {
    /// The raw level as near or far, with the hysteresis.
    public mutating func admit(_ value: Double) -> AuxiliaryReading? {
        .proximity(near: update(level: value))
    }
}
