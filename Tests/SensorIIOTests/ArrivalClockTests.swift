@testable import SensorDeviceAccess
@testable import SensorIIO
import Testing

/// Stamps for buffered samples without a timestamp channel (issue 10, item 1).
@Suite struct ArrivalClockTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        /// What the driver claims, Hz.
        let claimed: Double
        /// What it really delivers, Hz.
        let real: Double
        let batch: Int
        /// Extra delay of each refill's wake-up, as a fraction of the batch's duration.
        let jitter: Double
        var description: String { name }
    }

    static let cases: [Case] = [
        .init(name: "honest 100 Hz, batch 1", claimed: 100, real: 100, batch: 1, jitter: 0),
        .init(name: "honest 100 Hz, batch 25", claimed: 100, real: 100, batch: 25, jitter: 0.3),
        .init(name: "claims 50 Hz, delivers 100 Hz, batch 1", claimed: 50, real: 100, batch: 1, jitter: 0),
        .init(name: "claims 50 Hz, delivers 100 Hz, batch 5", claimed: 50, real: 100, batch: 5, jitter: 0.2),
        .init(name: "claims 50 Hz, delivers 100 Hz, batch 25", claimed: 50, real: 100, batch: 25, jitter: 0.5),
        .init(name: "claims 200 Hz, delivers 25 Hz, batch 5", claimed: 200, real: 25, batch: 5, jitter: 0.1),
        // Far faster than claimed: refills come sooner than a quarter of the claimed batch time,
        // which must not read as a starved reader's backlog (issue 22, item 13).
        .init(name: "claims 25 Hz, delivers 200 Hz, batch 1", claimed: 25, real: 200, batch: 1, jitter: 0),
        .init(name: "claims 25 Hz, delivers 400 Hz, batch 5", claimed: 25, real: 400, batch: 5, jitter: 0.2),
    ]

    @Test(arguments: cases)
    func stampsStrictlyIncreaseAndFollowTheRealRate(_ row: Case) {
        var clock = ArrivalClock(rate: row.claimed)
        var stamps: [Double] = []
        var rng = SystemRandomNumberGenerator()
        let refills = 400 / row.batch
        for refill in 1...refills {
            // The batch's last sample is taken at refill × batch / real; the wake-up comes later.
            let taken = Double(refill * row.batch) / row.real
            let arrival = taken + Double.random(in: 0...row.jitter, using: &rng) * Double(row.batch) / row.real
            stamps += clock.stamps(count: row.batch, arrival: arrival)
        }
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 }, "strictly increasing")
        // Over the second half, the average spacing is the real period within 10 %.
        let half = stamps.suffix(stamps.count / 2)
        let spacing = (half.last! - half.first!) / Double(half.count - 1)
        #expect(abs(spacing * row.real - 1) < 0.1, "spacing \(spacing) s for a real period of \(1 / row.real) s")
        #expect(abs(clock.period * row.real - 1) < 0.15, "estimate \(clock.period)")
    }

    @Test func arrivalsThatDoNotAdvanceStillGiveIncreasingStamps() {
        var clock = ArrivalClock(rate: 100)
        let a = clock.stamps(count: 5, arrival: 10)
        let b = clock.stamps(count: 5, arrival: 10)
        let c = clock.stamps(count: 1, arrival: 9)  // a clock that went backwards
        let all = a + b + c
        #expect(zip(all, all.dropFirst()).allSatisfy { $0 < $1 })
        #expect(all.last! - 10 < 1e-4)
    }

    @Test func aPauseDoesNotCountAsARate() {
        var clock = ArrivalClock(rate: 100)
        _ = clock.stamps(count: 1, arrival: 1)
        _ = clock.stamps(count: 1, arrival: 1.01)
        let before = clock.period
        let afterPause = clock.stamps(count: 1, arrival: 60)  // suspended for a minute
        #expect(clock.period == before)
        #expect(afterPause == [60])
    }
}
