import OrientationCore
import SensorLog
import Testing

/// Issue 16, item 3: a wrong or missing `in_accel_scale` never silences the detector.
@Suite struct GravityNormalizerTests {
    static var repository: String { "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/") }

    /// What a driver's scale error does to the readings: the factor between what it reports and
    /// m/s². "missing" is a 16-bit ±2 g part with no scale attribute: raw counts taken as m/s².
    static let scaleErrors: [(name: String, factor: Double)] = [
        ("0.001×", 0.001), ("1×", 1), ("26×", 26), ("1000×", 1000), ("missing scale (16384 counts per g)", 16384 / 9.80665),
    ]

    /// Real recordings: the bundled handheld one (with and without its gyroscope) and a walk.
    static let logs = ["data/xio-fusion/handheld.log", "data/oxford-step-counter/s6-user1-hand.log"]

    static func events(_ path: String, factor: Double, normalize: Bool, gyroscope: Bool = true) throws -> [OrientationEvent] {
        var reader = try SensorLogReader(path: repository + "/" + path)
        var detector = try OrientationDetector()
        var normalizer = GravityNormalizer()
        var events: [OrientationEvent] = []
        while var sample = try reader.next() {
            sample.acceleration = sample.acceleration * factor
            if !gyroscope { sample.angularRate = nil }
            if normalize { sample = normalizer.normalize(sample) }
            if let event = detector.process(sample) { events.append(event) }
        }
        return events
    }

    struct Case: CustomStringConvertible, Sendable {
        let log: String
        let error: String
        let factor: Double
        var description: String { "\(log), \(error)" }
    }

    static let cases: [Case] = logs.flatMap { log in scaleErrors.map { Case(log: log, error: $0.name, factor: $0.factor) } }

    /// Every scale error gives the events the correct scale gives: the same orientations, each
    /// within a few samples of the correct one's time (the first tenth of a second differs while
    /// the first five samples are gathered).
    @Test(arguments: cases)
    func aScaleErrorGivesTheCorrectScalesEvents(_ row: Case) throws {
        let reference = try Self.events(row.log, factor: 1, normalize: false)
        #expect(!reference.isEmpty)
        let scaled = try Self.events(row.log, factor: row.factor, normalize: true)
        #expect(scaled.map(\.orientation) == reference.map(\.orientation), "\(row)")
        for (a, b) in zip(scaled, reference) {
            #expect(abs(a.time - b.time) < 0.1, "\(row): \(a.orientation) at \(a.time) s, correct scale at \(b.time) s")
        }
        if row.factor == 1 {
            #expect(scaled == reference, "a correct scale is never touched: identical events")
        }
    }

    /// Without the normaliser, gross scale errors publish nothing (the acceleration gate holds, or
    /// every sample is below the minimum magnitude): what the normaliser is for.
    @Test func withoutItAGrossScaleErrorPublishesNothing() throws {
        for factor in [0.001, 26, 1000] {
            let events = try Self.events(Self.logs[0], factor: factor, normalize: false, gyroscope: false)
            #expect(events.allSatisfy { $0.orientation == .unknown }, "\(factor): \(events.map(\.orientation))")
        }
    }

    /// Learned from still stretches: the factor is g over the device's own 1 g; within 15 % of g
    /// it stays exactly 1.
    @Test(arguments: [(0.5, true), (0.9, false), (1.0, false), (1.12, false), (1.3, true), (26, true)])
    func learnsFromStillStretches(_ scale: Double, corrects: Bool) {
        var normalizer = GravityNormalizer()
        let still = Vector3(0, -9.80665 * scale, 0)
        for k in 0..<200 {  // 2 s still at 100 Hz, with ±0.5 % noise
            let wobble = 1 + 0.005 * Double((k * 7) % 5 - 2) / 2
            _ = normalizer.normalize(Sample(time: Double(k) * 0.01, acceleration: still * wobble))
        }
        #expect(normalizer.stillStretches >= 3)
        #expect(normalizer.isCorrecting == corrects, "scale \(scale): factor \(normalizer.factor)")
        if corrects {
            #expect(abs(normalizer.factor * scale - 1) < 0.01, "scale \(scale): factor \(normalizer.factor)")
            let out = normalizer.normalize(Sample(time: 2.5, acceleration: still))
            #expect(abs(out.acceleration.length - 9.80665) < 0.1)
        } else {
            #expect(normalizer.factor == 1)
        }
    }

    /// Moving samples teach nothing, and zero or non-finite ones pass untouched.
    @Test func motionAndGarbageTeachNothing() {
        var normalizer = GravityNormalizer()
        for k in 0..<300 {
            let t = Double(k) * 0.01
            let swing = Vector3(3 * _sin(t * 9), -9.8 + 4 * _cos(t * 7), 2 * _sin(t * 5))
            _ = normalizer.normalize(Sample(time: t, acceleration: swing))
        }
        #expect(normalizer.stillStretches == 0 && normalizer.learnedGravity == nil && !normalizer.isCorrecting)
        let zero = normalizer.normalize(Sample(time: 4, acceleration: .zero))
        #expect(zero.acceleration == .zero)
        let nan = normalizer.normalize(Sample(time: 4.01, acceleration: Vector3(.nan, 1, 1)))
        #expect(nan.acceleration.x.isNaN)
    }
}
