import AmbientSensorCore
import OrientationCore
import Testing

/// The pure rules behind light, proximity and compass readings (issue 17).
@Suite struct AuxiliarySensorLogicTests {
    struct ProximityRow: Sendable, CustomStringConvertible {
        let name: String
        let nearLevel: Double
        let levels: [Double]
        let near: [Bool]
        var description: String { name }
    }

    static let proximityRows: [ProximityRow] = [
        ProximityRow(name: "far up to the level", nearLevel: 100, levels: [0, 50, 99, 100], near: [false, false, false, false]),
        ProximityRow(name: "near above the level, from the first reading", nearLevel: 128, levels: [0, 129], near: [false, true]),
        ProximityRow(name: "a level steady between 1.0 and 1.1 × is near, as the peer's suite expects", nearLevel: 100,
                     levels: [105, 105, 105], near: [true, true, true]),
        ProximityRow(name: "once near, far needs 0.9 × the level or less", nearLevel: 100, levels: [200, 95, 91, 90, 95],
                     near: [true, true, true, false, false]),
        ProximityRow(name: "the peer's margin: 127 stays near for a level of 128", nearLevel: 128, levels: [256, 0, 129, 127, 127],
                     near: [true, false, true, true, true]),
        ProximityRow(name: "hand at the threshold does not flap", nearLevel: 200, levels: [230, 199, 190, 201, 185, 179, 205],
                     near: [true, true, true, true, true, false, true]),
    ]

    @Test(arguments: proximityRows)
    func proximityHysteresis(_ row: ProximityRow) {
        var hysteresis = ProximityHysteresis(nearLevel: row.nearLevel)
        #expect(row.levels.map { hysteresis.update(level: $0) } == row.near)
    }

    struct LightRow: Sendable, CustomStringConvertible {
        let name: String
        let levels: [Double]
        let published: [Double?]
        var description: String { name }
    }

    static let lightRows: [LightRow] = [
        LightRow(name: "the first reading at once", levels: [312], published: [312]),
        LightRow(name: "wobble under 10 % is kept quiet", levels: [300, 310, 290, 325, 280], published: [300, nil, nil, nil, nil]),
        LightRow(name: "a 10 % change is published", levels: [300, 330, 297], published: [300, 330, 297]),
        LightRow(name: "a lamp switched on shows at the next reading", levels: [40, 41, 400], published: [40, nil, 400]),
        LightRow(name: "a dark room's 0 ↔ 1 lx noise is quiet", levels: [0, 1, 0, 0.5, 2, 1], published: [0, nil, nil, nil, 2, nil]),
        LightRow(name: "not a number is never published", levels: [.nan, 5], published: [nil, 5]),
    ]

    @Test(arguments: lightRows)
    func lightFilter(_ row: LightRow) {
        var filter = LightLevelFilter()
        #expect(row.levels.map { filter.admit($0) } == row.published)
    }

    @Test func lightFilterResetPublishesTheNextReading() {
        var filter = LightLevelFilter()
        _ = filter.admit(100)
        #expect(filter.admit(101) == nil)
        filter.reset()
        #expect(filter.admit(101) == 101)
    }

    static let headings: [(raw: Double, scale: Double, offset: Double, degrees: Double?)] = [
        (271, 1, 0, 271), (0, 1, 0, 0), (360, 1, 0, 0), (-90, 1, 0, 270), (7200, 0.1, 0, 0),
        (2715, 0.1, 0, 271.5), (10, 1, -20, 350), (725, 1, 0, 5), (.infinity, 1, 0, nil),
    ]

    @Test(arguments: headings.indices)
    func compassHeadingWrapsIntoOneTurn(_ index: Int) {
        let row = Self.headings[index]
        let degrees = CompassHeading.degrees(raw: row.raw, scale: row.scale, offset: row.offset)
        if let expected = row.degrees {
            #expect(abs((degrees ?? -1) - expected) < 1e-9, "\(row)")
        } else {
            #expect(degrees == nil)
        }
    }
}
