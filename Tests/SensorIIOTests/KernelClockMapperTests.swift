@testable import SensorDeviceAccess
@testable import SensorIIO
import Testing

/// Kernel timestamps on a realtime clock that steps (issue 10, item 2).
@Suite struct KernelClockMapperTests {
    /// 100 Hz, batches of 5, arriving 3 ms after the last scan; the kernel clock starts at
    /// `origin` and steps by `step` seconds after `stepAfter` refills.
    static func run(origin: Double, step: Double, stepAfter: Int, refills: Int = 40) -> (times: [Double], steps: Int) {
        var mapper = KernelClockMapper()
        var times: [Double] = []
        for refill in 0..<refills {
            let monotonic = (0..<5).map { 100 + Double(refill * 5 + $0) * 0.01 }
            let kernel = monotonic.map { $0 - 100 + origin + (refill >= stepAfter ? step : 0) }
            times += mapper.map(kernel, arrival: monotonic.last! + 0.003 + Double(refill % 3) * 0.001)
        }
        return (times, mapper.steps)
    }

    @Test(arguments: [(-3600.0, 1), (3600.0, 1), (-0.2, 1), (0.0, 0)])
    func aClockStepKeepsTimesIncreasingAndEvenlySpaced(step: Double, expectedSteps: Int) {
        let (times, steps) = Self.run(origin: 1_700_000_000, step: step, stepAfter: 20)
        #expect(steps == expectedSteps)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
        // Apart from the refill where the step happens, samples stay 10 ms apart.
        let spacings = zip(times, times.dropFirst()).map { $1 - $0 }
        let off = spacings.filter { abs($0 - 0.01) > 1e-6 }
        #expect(off.count <= 1, "\(off)")
        // And the whole run spans what it really took (199 periods), give or take a step's latency.
        #expect(abs(times.last! - times.first! - 1.99) < 0.01, "\(times.last! - times.first!)")
    }

    @Test func aMonotonicKernelClockIsOnlyShifted() {
        let (times, steps) = Self.run(origin: 5, step: 0, stepAfter: 1000)
        #expect(steps == 0)
        #expect(abs(times[0] - 100.003) < 1e-9)
        #expect(abs(times[1] - times[0] - 0.01) < 1e-9)
    }
}

/// Kernel stamps closer than the log can tell apart (a driver that stamps a FIFO's scans with one
/// interrupt time, or repeats a stamp): mapped at least the minimum spacing apart (issue 22,
/// item 13).
@Suite struct KernelClockMapperSpacingTests {
    @Test(arguments: [0.0, 1e-9, 4e-7, 1.5e-6])
    func stampsCloserThanTheMinimumAreSpreadToIt(gap: Double) {
        var mapper = KernelClockMapper()
        let base = 345_678.123_456_7
        let kernel = (0..<8).map { base + Double($0) * gap }
        let times = mapper.map(kernel, arrival: kernel.last! + 0.001) + mapper.map(kernel.map { $0 + 0.01 }, arrival: kernel.last! + 0.011)
        let spacings = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(spacings.allSatisfy { $0 >= ArrivalClock.minimumSpacing * 0.999 }, "\(spacings)")
        #expect(mapper.steps == 0)
    }
}
