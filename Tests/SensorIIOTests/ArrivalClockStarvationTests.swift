import OrientationCore
@testable import SensorDeviceAccess
@testable import SensorIIO
import SensorLog
import Testing

/// A reader thread that was starved (issue 22, item 13: once in 17 recordings on a loaded
/// machine, two samples of a timestamp-less 100 Hz accelerometer had the same time in the log).
/// When the thread runs again the kernel's buffer is full and refills return back to back, a
/// few microseconds apart: the clock spread a batch over those microseconds (0.4 µs apart, equal
/// at the log's 6 decimals) and learnt a rate of megahertz from them.
@Suite struct ArrivalClockStarvationTests {
    /// What the reader sees: refills of a 100 Hz sensor, where the thread gets no CPU for
    /// `starved` seconds from `starvedAt`, and then drains the backlog in refills `burstGap`
    /// apart.
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let batch: Int
        let starvedAt: Double
        let starved: Double
        let burstGap: Double
        var description: String { name }
    }

    static let rate = 100.0

    static let cases: [Case] = [
        .init(name: "batch 5, 200 ms starved, refills 2 µs apart", batch: 5, starvedAt: 1, starved: 0.2, burstGap: 2e-6),
        .init(name: "batch 5, 50 batches at once", batch: 5, starvedAt: 1, starved: 2.5, burstGap: 1e-6),
        .init(name: "batch 1, 50 batches at once, no time between them", batch: 1, starvedAt: 0.5, starved: 0.5, burstGap: 0),
        .init(name: "batch 25, 50 batches at once", batch: 25, starvedAt: 1, starved: 0.9, burstGap: 3e-6),
        .init(name: "batch 5, starved at the first refill", batch: 5, starvedAt: 0, starved: 0.3, burstGap: 2e-6),
        .init(name: "batch 2, refills 50 µs apart", batch: 2, starvedAt: 1, starved: 0.4, burstGap: 50e-6),
    ]

    /// The arrival times of each refill: the batch's last scan is taken at `k × batch / rate`
    /// (plus 0.5 ms of wake-up latency); a refill whose batch completed while the reader was
    /// starved arrives in the burst.
    static func refills(_ row: Case) -> [Double] {
        var arrivals: [Double] = []
        let end = row.starvedAt + row.starved
        let duration = end + 1.5
        var burst = 0
        for k in 1...Int(duration * rate) / row.batch {
            let taken = Double(k * row.batch) / rate + 0.0005
            if taken >= row.starvedAt && taken < end {
                arrivals.append(end + Double(burst) * row.burstGap)
                burst += 1
            } else {
                arrivals.append(max(taken, arrivals.last ?? taken))
            }
        }
        return arrivals
    }

    @Test(arguments: cases)
    func stampsStayApartThroughABurst(_ row: Case) throws {
        let arrivals = Self.refills(row)
        // Monotonic seconds of a machine up for a few days, where doubles are coarsest.
        let origin = 345_678.123_456_7
        var clock = ArrivalClock(rate: Self.rate)
        var stamps: [Double] = []
        for arrival in arrivals { stamps += clock.stamps(count: row.batch, arrival: origin + arrival) }
        let spacings = zip(stamps, stamps.dropFirst()).map { $1 - $0 }
        #expect(spacings.allSatisfy { $0 >= ArrivalClock.minimumSpacing * 0.999 }, "closest: \(spacings.min()!)")
        // Never far ahead of the arrivals: at most the minimum spacing per sample of a batch.
        var index = 0
        for arrival in arrivals {
            index += row.batch
            #expect(stamps[index - 1] - (origin + arrival) <= Double(stamps.count) * ArrivalClock.minimumSpacing)
        }

        // What `orientationd --record` does with them: the log reads back, every time later
        // than the one before.
        var writer = try SensorLogWriter(metadata: SensorLogMetadata(), includesGyroscope: false)
        for stamp in stamps { try writer.write(Sample(time: stamp, acceleration: Vector3(0, -9.81, 0))) }
        var reader = try SensorLogReader(bytes: writer.bytes, name: row.name)
        var read: [Double] = []
        while let sample = try reader.next() { read.append(sample.time) }
        #expect(read.count == stamps.count)

        // After the burst, a second of ordinary refills brings the estimate back to the real
        // period, and the stamps with it.
        #expect(abs(clock.period * Self.rate - 1) < 0.1, "estimate \(clock.period)")
        let tail = stamps.suffix(100)
        let spacing = (tail.last! - tail.first!) / Double(tail.count - 1)
        #expect(abs(spacing * Self.rate - 1) < 0.1, "spacing \(spacing)")
    }

    /// The rate is not learnt from a burst (the old estimate moved a fifth of the way towards
    /// `gap / count` at every refill: fifty back-to-back refills took it under 2 µs), whether the
    /// reader was starved for less than a pause (the burst's samples count over the time they
    /// took) or for longer (gap and burst are left out).
    @Test(arguments: [0.5, 2.5])
    func aBurstDoesNotTeachARateOfMegahertz(starved: Double) {
        var clock = ArrivalClock(rate: Self.rate)
        for k in 1...100 { _ = clock.stamps(count: 5, arrival: Double(k) * 0.05) }  // 5 s at 100 Hz
        // The backlog: every batch completed while starved, delivered 1 µs apart.
        let due = Int(starved / 0.05)
        for k in 0..<due { _ = clock.stamps(count: 5, arrival: 5 + starved + Double(k) * 1e-6) }
        #expect(clock.period > 0.0095 && clock.period < 0.0105, "\(clock.period)")
    }

    /// The monotonic clock cannot go back, but a second clock read on another path (or a
    /// scripted one) may: stamps still increase, and the estimate is not poisoned.
    @Test(arguments: [-0.5, -3600.0, 0.6, 30.0])
    func aClockStepKeepsStampsApart(step: Double) {
        var clock = ArrivalClock(rate: Self.rate)
        var stamps: [Double] = []
        for k in 1...200 {
            let arrival = Double(k) * 0.05 + (k > 100 ? step : 0)
            stamps += clock.stamps(count: 5, arrival: arrival)
        }
        let spacings = zip(stamps, stamps.dropFirst()).map { $1 - $0 }
        #expect(spacings.allSatisfy { $0 >= ArrivalClock.minimumSpacing * 0.999 }, "closest: \(spacings.min()!)")
        #expect(abs(clock.period * Self.rate - 1) < 0.1, "estimate \(clock.period)")
    }
}
