import OrientationCore
import Testing

@Suite struct DeviceOrientationTests {
    struct Row: Sendable {
        let orientation: DeviceOrientation
        let wire: String
        let portrait, landscape, flat, validInterface: Bool
    }

    static let rows: [Row] = [
        Row(orientation: .unknown, wire: "unknown", portrait: false, landscape: false, flat: false, validInterface: false),
        Row(orientation: .portrait, wire: "portrait", portrait: true, landscape: false, flat: false, validInterface: true),
        Row(orientation: .portraitUpsideDown, wire: "portrait-upside-down", portrait: true, landscape: false, flat: false, validInterface: true),
        Row(orientation: .landscapeLeft, wire: "landscape-left", portrait: false, landscape: true, flat: false, validInterface: true),
        Row(orientation: .landscapeRight, wire: "landscape-right", portrait: false, landscape: true, flat: false, validInterface: true),
        Row(orientation: .faceUp, wire: "face-up", portrait: false, landscape: false, flat: true, validInterface: false),
        Row(orientation: .faceDown, wire: "face-down", portrait: false, landscape: false, flat: true, validInterface: false),
    ]

    @Test(arguments: rows)
    func vocabulary(_ row: Row) {
        #expect(row.orientation.wireName == row.wire)
        #expect(DeviceOrientation(wireName: row.wire) == row.orientation)
        #expect(row.orientation.isPortrait == row.portrait)
        #expect(row.orientation.isLandscape == row.landscape)
        #expect(row.orientation.isFlat == row.flat)
        #expect(row.orientation.isValidInterfaceOrientation == row.validInterface)
    }

    @Test func rejectsUnknownWireNames() {
        #expect(DeviceOrientation(wireName: "Portrait") == nil)
        #expect(DeviceOrientation(wireName: "landscape") == nil)
    }

    /// The canonical frame of docs/ARCHITECTURE.md §3: gravity in screen axes.
    @Test func gravityDirectionsFollowTheCanonicalFrame() {
        #expect(DeviceOrientation.portrait.gravityDirection == Vector3(0, -1, 0))
        #expect(DeviceOrientation.landscapeLeft.gravityDirection == Vector3(-1, 0, 0))
        #expect(DeviceOrientation.landscapeRight.gravityDirection == Vector3(1, 0, 0))
        #expect(DeviceOrientation.faceUp.gravityDirection == Vector3(0, 0, -1))
        #expect(DeviceOrientation.unknown.gravityDirection == nil)
        #expect(DeviceOrientation.inPlane.compactMap(\.quarterTurns) == [0, 1, 2, 3])
    }

    @Test func theDetectorAgreesWithTheCanonicalFrame() throws {
        for orientation in DeviceOrientation.allCases where orientation != .unknown {
            var detector = try OrientationDetector()
            let g = orientation.gravityDirection! * 9.80665
            let events = detector.run((0..<50).map { Sample(time: Double($0) * 0.02, acceleration: g) })
            #expect(events.map(\.orientation) == [orientation])
        }
    }
}
