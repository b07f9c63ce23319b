import OrientationCore
@testable import SensorLog
import Testing

private func randomSamples(count: Int, gyro: GyroMode, seed: UInt64) -> [Sample] {
    var rng = SplitMix64(seed: seed)
    var time = Double.random(in: -1000...1000, using: &rng)
    return (0..<count).map { i in
        time += Double.random(in: 0.001...0.05, using: &rng)
        let a = Vector3(Double.random(in: -20...20, using: &rng), Double.random(in: -20...20, using: &rng),
                        Double.random(in: -20...20, using: &rng))
        let g = Vector3(Double.random(in: -5...5, using: &rng), Double.random(in: -5...5, using: &rng),
                        Double.random(in: -5...5, using: &rng))
        switch gyro {
        case .none: return Sample(time: time, acceleration: a)
        case .all: return Sample(time: time, acceleration: a, angularRate: g)
        case .some: return Sample(time: time, acceleration: a, angularRate: i % 3 == 0 ? nil : g)
        }
    }
}

enum GyroMode: CaseIterable, Sendable { case none, all, some }

private let sampleMetadata = SensorLogMetadata([
    (key: "device", value: "accel_3d (iio:device0)"),
    (key: "mount-matrix", value: "0, 1, 0; 1, 0, 0; 0, 0, 1"),
    (key: "sample-rate", value: "100"),
    (key: "source", value: "recorded: bench test"),
    (key: "licence", value: "CC0-1.0"),
])

private func expectClose(_ got: [Sample], _ expected: [Sample], hasGyro: Bool) {
    #expect(got.count == expected.count)
    for (g, e) in zip(got, expected) {
        #expect(abs(g.time - e.time) <= 5e-7)
        #expect((g.acceleration - e.acceleration).length <= 5e-6 * 1.8)
        if hasGyro, let rate = e.angularRate {
            #expect(g.angularRate != nil)
            if let got = g.angularRate { #expect((got - rate).length <= 5e-6 * 1.8) }
        } else {
            #expect(g.angularRate == nil)
        }
    }
}

@Test(arguments: GyroMode.allCases, [false, true])
func roundTripInMemory(gyro: GyroMode, includeGyro: Bool) throws {
    let samples = randomSamples(count: 500, gyro: gyro, seed: 42)
    var writer = try SensorLogWriter(metadata: sampleMetadata, includesGyroscope: includeGyro)
    for sample in samples { try writer.write(sample) }
    let bytes = writer.bytes
    try writer.finish()
    var reader = try SensorLogReader(bytes: bytes, name: "mem")
    let (metadata, hasGyroscope) = (reader.metadata, reader.hasGyroscope)
    #expect(metadata == sampleMetadata)
    #expect(hasGyroscope == includeGyro)
    expectClose(try reader.readAll(), samples, hasGyro: includeGyro)
}

@Test(arguments: GyroMode.allCases)
func roundTripThroughFile(gyro: GyroMode) throws {
    let samples = randomSamples(count: 20_000, gyro: gyro, seed: 7)
    let file = TemporaryFile(emptyPath: ())
    var writer = try SensorLogWriter(path: file.path, metadata: sampleMetadata, includesGyroscope: true)
    for sample in samples { try writer.write(sample) }
    try writer.finish()
    var reader = try SensorLogReader(path: file.path)
    let metadata = reader.metadata
    #expect(metadata.entries.map(\.key) == ["device", "mount-matrix", "sample-rate", "source", "licence"])
    #expect(metadata.device == "accel_3d (iio:device0)")
    #expect(metadata.mountMatrix == "0, 1, 0; 1, 0, 0; 0, 0, 1")
    #expect(metadata.sampleRate == 100)
    expectClose(try reader.readAll(), samples, hasGyro: true)
    #expect(try reader.next() == nil)
}

@Test func writerOutputIsExactlyTheDocumentedFormat() throws {
    var writer = try SensorLogWriter(metadata: SensorLogMetadata([(key: "device", value: "d")]), includesGyroscope: true)
    try writer.write(Sample(time: 0, acceleration: Vector3(0.12, -9.79, -0.0), angularRate: Vector3(0.001, 0.002, -0.01)))
    try writer.write(Sample(time: 0.01, acceleration: Vector3(.nan, .infinity, -.infinity)))
    let text = String(decoding: writer.bytes, as: UTF8.self)
    #expect(text == """
        # orientationd-log v1
        # device: d
        time,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z
        0.000000,0.12000,-9.79000,0.00000,0.00100,0.00200,-0.01000
        0.010000,nan,inf,-inf,,,

        """)
}

@Test func writerRejectsNonIncreasingAndNonFiniteTimes() throws {
    var writer = try SensorLogWriter(metadata: SensorLogMetadata(), includesGyroscope: false)
    try writer.write(Sample(time: 0.03, acceleration: .zero))
    #expect(throws: SensorLogError(file: "memory", line: 4, kind: .timeNotIncreasing(time: 0.02, previous: 0.03))) {
        try writer.write(Sample(time: 0.02, acceleration: .zero))
    }
    #expect(throws: SensorLogError(file: "memory", line: 4, kind: .timeNotIncreasing(time: 0.03, previous: 0.03))) {
        try writer.write(Sample(time: 0.03, acceleration: .zero))
    }
    #expect(throws: SensorLogError(file: "memory", line: 4, kind: .nonFiniteTime(text: "nan"))) {
        try writer.write(Sample(time: .nan, acceleration: .zero))
    }
    try writer.write(Sample(time: 0.04, acceleration: .zero))
    try writer.finish()
    #expect(throws: SensorLogError(file: "memory", line: nil, kind: .writerFinished)) {
        try writer.write(Sample(time: 1, acceleration: .zero))
    }
}

@Test(arguments: [
    ("Device", "x", "memory: invalid metadata key \"Device\": keys are lower-case letters, digits and \"-\", not starting with \"-\""),
    ("-x", "x", "memory: invalid metadata key \"-x\": keys are lower-case letters, digits and \"-\", not starting with \"-\""),
    ("", "x", "memory: invalid metadata key \"\": keys are lower-case letters, digits and \"-\", not starting with \"-\""),
    ("sample rate", "x", "memory: invalid metadata key \"sample rate\": keys are lower-case letters, digits and \"-\", not starting with \"-\""),
    ("source", "a\nb", "memory: metadata value for \"source\" contains a line break"),
    ("source", "a\r", "memory: metadata value for \"source\" contains a line break"),
])
func writerValidatesMetadata(key: String, value: String, message: String) {
    do {
        _ = try SensorLogWriter(metadata: SensorLogMetadata([(key: key, value: value)]), includesGyroscope: false)
        Issue.record("expected an error")
    } catch {
        #expect(error.description == message)
    }
}

@Test func metadataLookupAndComments() throws {
    let text = """
        # orientationd-log v1
        # device: first
        # just a comment
        #   sample-rate :  50.5\t
        # Not-A-Key: ignored
        # device: second
        # source: https://example.org/a:b
        time,accel_x,accel_y,accel_z

        """
    let reader = try SensorLogReader(bytes: Array(text.utf8), name: "m")
    let (metadata, hasGyroscope) = (reader.metadata, reader.hasGyroscope)
    #expect(metadata.entries.map(\.key) == ["device", "sample-rate", "device", "source"])
    #expect(metadata.device == "first")
    #expect(metadata.sampleRate == 50.5)
    #expect(metadata["source"] == "https://example.org/a:b")
    #expect(metadata.mountMatrix == nil)
    #expect(!hasGyroscope)
    var m = metadata
    m["device"] = nil
    m["licence"] = "CC0-1.0"
    #expect(m.entries.map(\.key) == ["sample-rate", "source", "licence"])
}

@Test func columnsMayComeInAnyOrder() throws {
    let text = "# orientationd-log v1\ngyro_z,accel_z,time,gyro_x,accel_y,gyro_y,accel_x\n3,-9,0.5,1,2,2,4\n"
    let (samples, error) = readEverything(Array(text.utf8))
    #expect(error == nil)
    #expect(samples == [Sample(time: 0.5, acceleration: Vector3(4, 2, -9), angularRate: Vector3(1, 2, 3))])
}

@Test func crlfAndMissingFinalNewlineAndSpacesAreAccepted() throws {
    let text = "# orientationd-log v1\r\n# device: d\r\ntime,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\r\n"
        + "0.0, 0.120 ,-9.790,\t0.310,0.0010,0.0020,-0.0100\r\n\r\n0.01,0.118,-9.801,0.305,,,\r\n"
        + "0.02,+.5,-1E2,2e-3, , ,\t"
    var reader = try SensorLogReader(bytes: Array(text.utf8), name: "crlf")
    let metadata = reader.metadata
    #expect(metadata.device == "d")
    #expect(try reader.readAll() == [
        Sample(time: 0, acceleration: Vector3(0.12, -9.79, 0.31), angularRate: Vector3(0.001, 0.002, -0.01)),
        Sample(time: 0.01, acceleration: Vector3(0.118, -9.801, 0.305)),
        Sample(time: 0.02, acceleration: Vector3(0.5, -100, 0.002)),
    ])
}

@Test(arguments: ["nan", "NaN", "-nan", "inf", "+inf", "-inf", "Infinity", "-infinity", "1e400", "-1e999"])
func nonFiniteAccelerationAndGyroAreKept(cell: String) throws {
    let text = "# orientationd-log v1\ntime,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n1,\(cell),0,0,0,\(cell),0\n"
    let (samples, error) = readEverything(Array(text.utf8))
    #expect(error == nil)
    let lower = cell.lowercased()
    let expected: Double = lower.hasSuffix("nan") ? .nan : lower.hasPrefix("-") ? -.infinity : .infinity
    let sample = try #require(samples.first)
    #expect(!sample.acceleration.isFinite)
    #expect(sample.acceleration.x.isNaN == expected.isNaN)
    if !expected.isNaN { #expect(sample.acceleration.x == expected) }
    #expect(sample.angularRate?.y.isNaN == expected.isNaN)
}

/// `flush()` puts every whole line written so far on disk while the writer stays open (a long
/// recording flushes each second, so a crash or `tail -f` sees it), and refuses after `finish()`.
@Test func flushWritesWholeLinesAndKeepsTheWriterOpen() throws {
    let samples = randomSamples(count: 50, gyro: .none, seed: 11)
    let file = TemporaryFile(emptyPath: ())
    var writer = try SensorLogWriter(path: file.path, metadata: sampleMetadata, includesGyroscope: false)
    for sample in samples.prefix(20) { try writer.write(sample) }
    try writer.flush()
    var early = try SensorLogReader(path: file.path)
    expectClose(try early.readAll(), Array(samples.prefix(20)), hasGyro: false)
    for sample in samples.dropFirst(20) { try writer.write(sample) }
    try writer.finish()
    var reader = try SensorLogReader(path: file.path)
    expectClose(try reader.readAll(), samples, hasGyro: false)
    #expect(throws: SensorLogError.self) { try writer.flush() }
}

/// Times closer than the log's 6 decimals can show (issue 22, item 13): a row that would print the
/// previous row's time is refused, so a written log always reads back; times further apart than
/// the resolution, even by rounding's width, are kept.
@Test(arguments: [
    (345_678.123_456_7, 4e-7, false),
    (345_678.123_456_7, 9.99e-7, true),     // .4567 → .4577: the printed times differ
    (0.000_000_4, 4e-7, true),              // 0.000000 then 0.000001 (0.0000008 rounds up)
    (0.000_001_1, 1e-7, false),             // both print 0.000001
    (-0.000_000_4, 3e-7, false),            // -0.0000004 and -0.0000001 both print 0.000000
    (12.5, 1e-6, true),
])
func writerRefusesTimesThatWouldPrintEqual(first: Double, gap: Double, accepted: Bool) throws {
    var writer = try SensorLogWriter(metadata: SensorLogMetadata(), includesGyroscope: false)
    try writer.write(Sample(time: first, acceleration: .zero))
    if accepted {
        try writer.write(Sample(time: first + gap, acceleration: .zero))
        var reader = try SensorLogReader(bytes: writer.bytes, name: "memory")
        #expect(try reader.next() != nil)
        #expect(try reader.next() != nil)
    } else {
        #expect(throws: SensorLogError(file: "memory", line: 4, kind: .timeBelowResolution(time: first + gap, previous: first))) {
            try writer.write(Sample(time: first + gap, acceleration: .zero))
        }
        // Nothing was written for the refused row, and the writer goes on.
        try writer.write(Sample(time: first + 1e-3, acceleration: .zero))
        var reader = try SensorLogReader(bytes: writer.bytes, name: "memory")
        var count = 0
        while try reader.next() != nil { count += 1 }
        #expect(count == 2)
    }
}
