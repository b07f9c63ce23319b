import Glibc
import OrientationCore
import SensorIIO
import SensorPipeline
import Testing

/// A buffered accelerometer without an `in_timestamp` scan element, whose driver claims 50 Hz
/// and delivers 100 Hz (issue 10, item 1: stamps from the requested rate went backwards across
/// refills and the detector never settled).
extension SensorIIOIntegrationTests {
    @Test(arguments: [1, 5, 25])
    func aBufferedSensorWithoutTimestampsGetsIncreasingStampsAndPublishes(batch: Int) async throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        device.timestamp = false
        device.attributes["sampling_frequency"] = "50"
        try testbed.add(device.description)
        let plan = IIOReadPlan(device: device.id, mode: .buffered(batch: batch), samplingFrequency: 50)
        let stream = try await IIOSensorSource(plan: plan, name: "accel_3d").open()
        let fd = testbed.deviceFD(device.node)
        let scan = device.scan([0, -100, 0], timestampNanoseconds: 0)  // portrait; no stamp in the scan
        // The sensor: 100 scans a second for 2 s, written as the hardware would.
        let feeder = Task.detached {
            for _ in 0..<200 {
                writeAll(fd, scan)
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        var samples: [Sample] = []
        // Batch 25 at 100 Hz takes 250 ms per refill: it stalled on libiio's 250 ms timeout.
        while samples.count < 150 / batch * batch, let sample = try await stream.next() { samples.append(sample) }
        await stream.close()
        await feeder.value
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.time < $1.time }, "strictly increasing stamps")
        let spacing = (samples.last!.time - samples.first!.time) / Double(samples.count - 1)
        #expect(spacing > 0.006 && spacing < 0.016, "about 10 ms apart, not 20 ms: \(spacing) s")
        var detector = try OrientationDetector()
        let events = samples.compactMap { detector.process($0) }
        #expect(events.map(\.orientation) == [.portrait])
        #expect(detector.statistics.timeReversals == 0 && detector.statistics.gapResets == 0)
    }
}

/// Kernel timestamps on the realtime clock, which steps back an hour mid-stream (issue 10,
/// item 2): the reader asks for the monotonic clock and re-anchors when stamps still jump.
extension SensorIIOIntegrationTests {
    @Test func aTimestampClockThatStepsBackAnHourDoesNotReverseTime() async throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        device.attributes["current_timestamp_clock"] = "realtime"
        try testbed.add(device.description)
        let stream = try await IIOSensorSource(plan: IIOReadPlan(device: device.id, mode: .buffered(batch: 5)), name: "accel_3d").open()
        let fd = testbed.deviceFD(device.node)
        // A driver that ignored the request: stamps on a realtime clock that steps back 3600 s
        // after 0.5 s.
        let feeder = Task.detached {
            let origin: Int64 = 1_700_000_000_000_000_000
            for k in 0..<150 {
                let stamp = origin + Int64(k) * 10_000_000 - (k >= 50 ? 3_600_000_000_000 : 0)
                writeAll(fd, device.scan([-100, 0, 0], timestampNanoseconds: stamp))  // landscape-left
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        var samples: [Sample] = []
        while samples.count < 140, let sample = try await stream.next() { samples.append(sample) }
        await stream.close()
        await feeder.value
        // Checked once samples came: the reader thread writes it after open() returns.
        #expect(testbed.attribute(device.syspath, "current_timestamp_clock")?.hasPrefix("monotonic") == true,
                "the monotonic clock is requested")
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.time < $1.time }, "strictly increasing across the step")
        let span = samples.last!.time - samples.first!.time
        #expect(span > 1.0 && span < 2.0, "the stream spans the time it took, not an hour: \(span) s")
        var detector = try OrientationDetector()
        let events = samples.compactMap { detector.process($0) }
        #expect(events.map(\.orientation) == [.landscapeLeft])
        #expect(detector.statistics.timeReversals == 0 && detector.statistics.gapResets == 0)
    }
}
