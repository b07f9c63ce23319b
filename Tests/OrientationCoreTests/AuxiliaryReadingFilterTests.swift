import AmbientSensorCore
import OrientationCore
import Testing

/// Each kind's filter (issue 29: the kind says how its values become readings; the service that
/// opens the sensor is the same for every kind).
@Suite struct AuxiliaryReadingFilterTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var kind: AuxiliarySensorKind
        var lightScale = 1.0
        var unit = LightUnit.lux
        var nearLevel: Double? = nil
        var values: [Double]
        var expected: [AuxiliaryReading?]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "light: scaled, then only a 10 % and > 1 unit change", kind: .light, lightScale: 2, values: [100, 104, 120, 121, .nan],
            expected: [.light(level: 200, unit: .lux), nil, .light(level: 240, unit: .lux), nil, nil]),
        Row(name: "light in the vendor unit keeps it", kind: .light, unit: .vendor, values: [20], expected: [.light(level: 20, unit: .vendor)]),
        Row(name: "proximity: near above the level, far at 0.9 × or below", kind: .proximity, nearLevel: 100, values: [50, 101, 95, 90],
            expected: [.proximity(near: false), .proximity(near: true), .proximity(near: true), .proximity(near: false)]),
        Row(name: "compass: wrapped to [0, 360), nothing from a non-finite value", kind: .compass, values: [370, -90, .infinity],
            expected: [.compass(heading: 10), .compass(heading: 270), nil]),
    ]

    @Test(arguments: rows)
    func turnsValuesIntoReadings(_ row: Row) throws {
        var filter = try #require(row.kind.makeFilter(lightScale: row.lightScale, lightUnit: row.unit, nearLevel: row.nearLevel))
        #expect(row.values.map { filter.admit($0) } == row.expected)
    }

    @Test func aProximitySensorWithoutANearLevelHasNoFilter() {
        #expect(AuxiliarySensorKind.proximity.makeFilter(lightScale: 1, lightUnit: .lux, nearLevel: nil) == nil)
    }

    /// A new filter for each open: the first value after it is published even when it equals the
    /// last one before.
    @Test func aFreshFilterPublishesTheFirstValue() throws {
        var first = try #require(AuxiliarySensorKind.light.makeFilter(lightScale: 1, lightUnit: .lux, nearLevel: nil))
        _ = first.admit(50)
        #expect(first.admit(50) == nil)
        var second = try #require(AuxiliarySensorKind.light.makeFilter(lightScale: 1, lightUnit: .lux, nearLevel: nil))
        #expect(second.admit(50) == .light(level: 50, unit: .lux))
    }
}
