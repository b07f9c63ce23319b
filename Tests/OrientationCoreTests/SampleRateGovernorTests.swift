import MotionSynthesis
import OrientationCore
import Testing

/// Issue 28: the rate governor slows a still, settled device's sensor and wakes it on the first
/// sample that moves, so a turn is published as fast as at full rate.
@Suite struct SampleRateGovernorTests {
    /// A polled reader at `rate` Hz obeying the governor: each reading is taken from `script`
    /// at the time the pace allows. Returns the times read and the events published.
    static func pacedRead(_ script: MotionScript, rate: Double, governor: SampleRateGovernor.Configuration = .init())
        -> (times: [Double], events: [OrientationEvent], governor: SampleRateGovernor) {
        // The script sampled finely; the reader takes the sample nearest each reading time.
        let fine = script.samples(rate: 1000)
        var detector = try! OrientationDetector()
        var pace = SampleRateGovernor(configuration: governor)
        var times: [Double] = [], events: [OrientationEvent] = []
        var t = 0.0
        while let index = fine.firstIndex(where: { $0.time >= t }) {
            let sample = fine[index]
            let admitted = pace.admits(sample)
            #expect(admitted, "a paced reader's sample is never dropped (t = \(sample.time))")
            times.append(sample.time)
            if let event = detector.process(sample) { events.append(event) }
            pace.observe(sample, settled: detector.isSettled)
            t = sample.time + max(1 / rate, pace.interval ?? 0)
        }
        return (times, events, pace)
    }

    /// A tablet on a table or a stand (no hand sway or tremor; the sensor's noise stays), turned
    /// after `still` seconds.
    static func stillThenTurn(still: Double = 10, turn: Double = 0.6, after: Double = 3) -> (MotionScript, Double) {
        var script = MotionScript(start: .portrait())
        script.tremor = 0
        script.handSway = 0
        script.hold(still)
        let rest = script.move(to: .landscapeLeft(), duration: turn)
        script.hold(after)
        return (script, rest)
    }

    @Test func aStillDeviceIsReadAtTheStillIntervalAfterSettling() {
        let (script, _) = Self.stillThenTurn()
        let (times, _, _) = Self.pacedRead(script, rate: 20)
        // Portrait is published within the first second; from ~1 s still on, one reading per 0.5 s.
        let still = times.filter { $0 >= 3 && $0 < 10 }
        #expect(still.count >= 13 && still.count <= 15, "readings in 7 still seconds: \(still.count)")
        let early = times.filter { $0 < 0.9 }
        #expect(early.count >= 17, "full rate until settled: \(early.count) readings in 0.9 s")
    }

    @Test(arguments: [10.0, 20.0, 50.0])
    func aTurnAfterAStillStretchIsPublishedAsFastAsAtFullRate(rate: Double) {
        let (script, rest) = Self.stillThenTurn()
        let governed = Self.pacedRead(script, rate: rate)
        let full = Self.pacedRead(script, rate: rate, governor: .off)
        #expect(governed.events.map(\.orientation) == [.portrait, .landscapeLeft])
        #expect(full.events.map(\.orientation) == [.portrait, .landscapeLeft])
        let delay = (governed.events.last?.time ?? .infinity) - rest
        let fullDelay = (full.events.last?.time ?? .infinity) - rest
        // Woken during the turn, the reader is at full rate when it ends: at most one full-rate
        // period later than without the governor.
        #expect(delay <= fullDelay + 1 / rate + 1e-9, "governed \(delay) s vs full rate \(fullDelay) s after the turn ended")
        #expect(governed.governor.statistics.woken >= 1)
    }

    @Test func slowDriftCountsAsMotionOnceItAddsUp() {
        var governor = SampleRateGovernor()
        var detector = try! OrientationDetector()
        var t = 0.0
        // 2 s still (slows), then 1° per reading.
        var angle = 0.0
        var paces: [SampleRateGovernor.Pace] = []
        while t < 6 {
            if t > 2 { angle += 1 }
            let sample = Sample(time: t, acceleration: Self.gravity(angle: angle))
            _ = detector.process(sample)
            paces.append(governor.observe(sample, settled: detector.isSettled))
            t += governor.interval ?? 0.05
        }
        #expect(paces.contains(.slow(interval: 0.5)))
        #expect(governor.statistics.woken >= 1, "a 1°-per-reading drift must wake the reader")
    }

    @Test func anUnsettledDetectorKeepsFullRate() {
        var governor = SampleRateGovernor()
        let sample = { (t: Double) in Sample(time: t, acceleration: Self.gravity(angle: 0)) }
        for k in 0..<100 { governor.observe(sample(Double(k) * 0.05), settled: false) }
        #expect(governor.pace == .full)
        governor.observe(sample(5.0), settled: true)
        #expect(governor.pace == .slow(interval: 0.5))
    }

    @Test(arguments: [
        ("a jolt", Vector3(0, -9.80665 - 1.0, 0), nil as Vector3?),
        ("a turn of 4°", Self.gravity(angle: 4), nil),
        ("a gyroscope turning 15°/s", Self.gravity(angle: 0), Vector3(0, 0, 15 * .pi / 180)),
        ("a non-finite sample", Vector3(.nan, 0, 0), nil),
    ])
    func theFirstMovingSampleWakesTheReader(_ name: String, acceleration: Vector3, rate: Vector3?) {
        var governor = SampleRateGovernor()
        for k in 0...40 { governor.observe(Sample(time: Double(k) * 0.05, acceleration: Self.gravity(angle: 0)), settled: true) }
        #expect(governor.pace == .slow(interval: 0.5), "\(name)")
        governor.observe(Sample(time: 2.5, acceleration: acceleration, angularRate: rate), settled: true)
        #expect(governor.pace == .full, "\(name)")
    }

    /// A sample with a NaN time wakes the reader, and the governor slows again afterwards.
    @Test func aNonFiniteTimeDoesNotKeepTheReaderAwakeForever() {
        var governor = SampleRateGovernor()
        let at = { (t: Double) in Sample(time: t, acceleration: Self.gravity(angle: 0)) }
        for k in 0...40 { governor.observe(at(Double(k) * 0.05), settled: true) }
        governor.observe(at(.nan), settled: true)
        #expect(governor.pace == .full)
        for k in 0...40 { governor.observe(at(3 + Double(k) * 0.05), settled: true) }
        #expect(governor.pace == .slow(interval: 0.5))
    }

    @Test func offAdmitsEverySampleAndNeverSlows() {
        var governor = SampleRateGovernor(configuration: .off)
        for k in 0..<200 {
            let sample = Sample(time: Double(k) * 0.05, acceleration: Self.gravity(angle: 0))
            let admitted = governor.admits(sample)
            #expect(admitted)
            governor.observe(sample, settled: true)
        }
        #expect(governor.pace == .full && governor.statistics.dropped == 0)
    }

    @Test func aReplayDropsWhatASlowedReaderWouldNotHaveRead() {
        var governor = SampleRateGovernor()
        var admitted: [Double] = []
        for k in 0..<400 {  // 4 s at 100 Hz, still
            let sample = Sample(time: Double(k) * 0.01, acceleration: Self.gravity(angle: 0))
            guard governor.admits(sample) else { continue }
            admitted.append(sample.time)
            governor.observe(sample, settled: true)
        }
        let slow = admitted.filter { $0 > 1.2 }
        #expect(slow.count >= 5 && slow.count <= 7, "\(slow)")
        #expect(zip(slow, slow.dropFirst()).allSatisfy { abs($1 - $0 - 0.5) < 0.011 })
    }

    @Test(arguments: [
        ("still-interval", SampleRateGovernor.Configuration(stillInterval: -1)),
        ("still-interval", SampleRateGovernor.Configuration(stillInterval: 6)),
        ("still-after", SampleRateGovernor.Configuration(stillAfter: .nan)),
        ("still-motion-angle", SampleRateGovernor.Configuration(motionAngle: 0)),
        ("still-motion-acceleration", SampleRateGovernor.Configuration(motionAcceleration: -1)),
        ("still-motion-rate", SampleRateGovernor.Configuration(motionRate: .infinity)),
    ])
    func badSettingsAreNamed(_ key: String, _ configuration: SampleRateGovernor.Configuration) {
        #expect(configuration.problem()?.key == key)
    }

    @Test func theStillIntervalStaysBelowTheDetectorsGapReset() {
        #expect(SampleRateGovernor.Configuration(stillInterval: 2).limited(gapReset: 1).stillInterval == 0.8)
        #expect(SampleRateGovernor.Configuration(stillInterval: 0.5).limited(gapReset: 1).stillInterval == 0.5)
        #expect(SampleRateGovernor.Configuration().problem() == nil)
    }

    static func gravity(angle: Double) -> Vector3 { Still.gravity(angle: angle, tilt: 20) }
}
