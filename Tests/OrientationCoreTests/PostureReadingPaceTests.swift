import OrientationCore
import PostureCore
import Testing

/// Issue 37, item 5: a convertible lying still costs the single accelerometer's wake-ups, not a
/// pair's. Two (or three) readers are simulated on the times their waits give: the display at
/// the shorter of its posture wait and the orientation's own 0.5 s still pace, as the daemon's
/// `SampleTap` does; the base and the hinge at the wait the pace gives them.
@Suite struct PostureReadingPaceTests {
    static let upright = Vector3(0, 9.81, 0)
    static let flat = Vector3(0, 0, 9.81)
    static let governor = SampleRateGovernor.Configuration()  // still-interval 0.5 s, still-after 1 s, 3°

    /// One reading as the pace saw it.
    struct Step {
        let reader: PostureReadingPace.Reader
        let time: Double
        let decision: PostureReadingPace.Decision
    }

    /// Drives the readers from 0 to `end` seconds. `pose(reader, time)` is what a reader reads;
    /// `settled` what the detector says; full rate is 10 Hz; a woken reader reads 1 ms later.
    static func run(_ pace: inout PostureReadingPace, readers: [PostureReadingPace.Reader], until end: Double,
                    settled: (Double) -> Bool = { _ in true },
                    pose: (PostureReadingPace.Reader, Double) -> Vector3) -> [Step] {
        var next = Dictionary(uniqueKeysWithValues: readers.enumerated().map { ($1, 0.01 * Double($0)) })
        var steps: [Step] = []
        while let (reader, time) = next.min(by: { $0.value < $1.value }), time <= end {
            let decision: PostureReadingPace.Decision
            if reader == .hinge {
                let a = pose(.hinge, time)
                decision = pace.takeHinge(a.x, at: time) { settled(time) }
            } else {
                decision = pace.take(Sample(time: time, acceleration: pose(reader, time)), from: reader) { settled(time) }
            }
            steps.append(Step(reader: reader, time: time, decision: decision))
            var wait = decision.wait ?? 0.1
            if reader == .display { wait = min(wait, governor.stillInterval) }  // the orientation's own pace
            next[reader] = time + max(0.1, wait)
            if decision.wakeOthers {
                for other in readers where other != reader { next[other] = min(next[other]!, time + 0.001) }
            }
        }
        return steps
    }

    static func pair(wakeableBase: Bool = true, governor: SampleRateGovernor.Configuration = governor) -> PostureReadingPace {
        var pace = PostureReadingPace(governor: governor, pairingWindow: 0.5)
        pace.add(.display, wakeable: true)
        pace.add(.base, wakeable: wakeableBase)
        return pace
    }

    static func readings(_ steps: [Step], _ reader: PostureReadingPace.Reader, from start: Double, to end: Double) -> [Step] {
        steps.filter { $0.reader == reader && $0.time >= start && $0.time < end }
    }

    @Test func aStillSettledPairParksAtTheSingleAccelerometersCost() throws {
        var pace = Self.pair()
        let steps = Self.run(&pace, readers: [.display, .base], until: 30) { reader, _ in reader == .display ? Self.upright : Self.flat }
        #expect(pace.isParked && pace.parks == 1)
        #expect(pace.pairedInterval == 0.4 && pace.parkedInterval == 2)
        // Before parking, each waits at most 80 % of the pairing window.
        let parkedAt = try #require(steps.first { $0.decision.wait == 2 }).time
        #expect(parkedAt < 5, "parks within a few seconds of stillness: \(parkedAt)")
        #expect(steps.filter { $0.time < parkedAt }.allSatisfy { ($0.decision.wait ?? 0) <= 0.4 })
        // Parked: nothing goes to the detector; the display at the orientation's 2 a second,
        // the base at one per 2 s: 2.5 a second for the pair, where it was 2.5 each.
        let late = steps.filter { $0.time > parkedAt + 0.5 }
        #expect(late.allSatisfy { !$0.decision.feed })
        let display = Self.readings(steps, .display, from: 10, to: 30).count, base = Self.readings(steps, .base, from: 10, to: 30).count
        #expect(display == 40 && base == 10, "display \(display), base \(base) in 20 s")
    }

    @Test func theDisplayMovingUnparksFeedsAndWakesTheBase() throws {
        var pace = Self.pair()
        let steps = Self.run(&pace, readers: [.display, .base], until: 20) { reader, t in
            reader == .display ? (t < 12 ? Self.upright : Self.flat) : Self.flat
        }
        let moved = try #require(steps.first { $0.reader == .display && $0.time >= 12 })
        #expect(moved.decision.feed && moved.decision.wakeOthers && moved.decision.wait == nil)
        // The base reads at once (woken), and that reading is fed.
        let base = try #require(steps.first { $0.reader == .base && $0.time > moved.time })
        #expect(base.time - moved.time < 0.01 && base.decision.feed)
        // Then the pair settles and parks again.
        #expect(pace.isParked && pace.parks == 2)
    }

    @Test func theBaseMovingUnparksWithoutWakingTheDisplay() throws {
        var pace = Self.pair()
        let steps = Self.run(&pace, readers: [.display, .base], until: 20) { reader, t in
            reader == .base ? (t < 12 ? Self.flat : Self.upright) : Self.upright
        }
        let moved = try #require(steps.first { $0.reader == .base && $0.time >= 12 })
        #expect(moved.decision.feed && !moved.decision.wakeOthers && moved.decision.wait == nil)
        // Seen at most one parked interval after it moved.
        #expect(moved.time - 12 <= 2 + 1e-9)
        let display = try #require(steps.first { $0.reader == .display && $0.time > moved.time })
        #expect(display.decision.feed, "the display's next reading is fed again")
    }

    @Test(arguments: [
        ("a base that cannot be woken", false, true, SampleRateGovernor.Configuration()),
        ("a detector that never settles", true, false, SampleRateGovernor.Configuration()),
        ("the governor off", true, true, SampleRateGovernor.Configuration.off),
    ])
    func neverParks(_ name: String, wakeable: Bool, settled: Bool, governor: SampleRateGovernor.Configuration) {
        var pace = Self.pair(wakeableBase: wakeable, governor: governor)
        let steps = Self.run(&pace, readers: [.display, .base], until: 20, settled: { _ in settled }) { reader, _ in
            reader == .display ? Self.upright : Self.flat
        }
        #expect(!pace.isParked && pace.parks == 0, "\(name)")
        #expect(steps.allSatisfy { $0.decision.feed && ($0.decision.wait ?? 0) <= 0.4 }, "\(name)")
        if !governor.isEnabled { #expect(steps.allSatisfy { $0.decision.wait == nil }, "\(name)") }
    }

    /// The hinge angle is judged in degrees of hinge: 1° of noise keeps it parked, 5° unparks,
    /// and the EC's "cannot tell" counts as motion.
    @Test(arguments: [(110.0 as Double?, false), (111, false), (115, true), (nil, true)])
    func aHingeAngleUnparksWhenItMoves(_ later: Double?, unparks: Bool) throws {
        var pace = PostureReadingPace(governor: Self.governor, pairingWindow: 0.5)
        pace.add(.display, wakeable: true)
        pace.add(.hinge, wakeable: true)
        let steps = Self.run(&pace, readers: [.display, .hinge], until: 20) { reader, t in
            reader == .display ? Self.upright : Vector3(t < 12 ? 110 : (later ?? .nan), 0, 0)
        }
        let first = try #require(steps.first { $0.reader == .hinge && $0.time >= 12 })
        #expect(first.decision.feed == unparks, "\(String(describing: later))")
        #expect(Self.readings(steps, .hinge, from: 5, to: 12).count <= 4, "parked: a hinge read per 2 s")
    }

    @Test func unparkingFeedsTheNextReadingAndSaysWhetherItWasParked() {
        var pace = Self.pair()
        _ = Self.run(&pace, readers: [.display, .base], until: 10) { reader, _ in reader == .display ? Self.upright : Self.flat }
        #expect(pace.isParked)
        let wasParked = pace.unpark(), again = pace.unpark()
        #expect(wasParked && !again)
        let decision = pace.take(Sample(time: 10.5, acceleration: Self.flat), from: .base) { true }
        #expect(decision.feed)
    }
}
