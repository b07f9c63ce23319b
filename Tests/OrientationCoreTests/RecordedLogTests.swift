import OrientationCore
import SensorLog
import Testing

/// The bundled real recording (data/xio-fusion/handheld.log) gives the sequence the data shows:
/// each labelled stretch once, a little after it starts, and nothing in between.
@Suite struct RecordedLogTests {
    static var logPath: String {
        let tests = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        return "/" + tests + "/data/xio-fusion/handheld.log"
    }

    /// Stretch starts (seconds) from data/xio-fusion/README.md.
    static let stretches: [(start: Double, orientation: DeviceOrientation)] = [
        (0.0, .faceUp), (15.8, .portrait), (21.0, .portraitUpsideDown), (25.2, .faceUp), (30.7, .landscapeRight),
        (35.9, .landscapeLeft), (40.4, .faceUp), (66.6, .landscapeLeft), (71.0, .faceUp),
    ]

    @Test(arguments: [true, false])
    func replayGivesEachStretchOnce(useGyroscope: Bool) throws {
        var reader = try SensorLogReader(path: Self.logPath)
        let hasGyroscope = reader.hasGyroscope
        #expect(hasGyroscope)
        var detector = try OrientationDetector()
        var events: [OrientationEvent] = []
        while var sample = try reader.next() {
            if !useGyroscope { sample.angularRate = nil }
            if let event = detector.process(sample) { events.append(event) }
        }
        #expect(detector.statistics.samples == 13_514)
        #expect(events.map(\.orientation) == Self.stretches.map(\.orientation))
        for (event, stretch) in zip(events, Self.stretches) {
            // "A little after it starts": the labels' edges are approximate by ±0.5 s.
            #expect(event.time >= stretch.start - 0.5 && event.time <= stretch.start + 0.6,
                    "\(event.orientation) at \(event.time) s, stretch starts at \(stretch.start) s")
        }
    }
}
