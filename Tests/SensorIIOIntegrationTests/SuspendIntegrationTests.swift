import Glibc
import Logging
import OrientationCore
import SensorDeviceAccess
import SensorIIO
import SensorPipeline
import Synchronization
import Testing

/// Issue 10, item 7: a suspend while the sensor is open. The machine cannot sleep under
/// `swift test`, so the clocks are scripted (``SystemClocks``): `boottime` runs ahead of
/// `monotonic` by whatever the test says the system slept. The data pauses as a real sensor's does.
extension SensorIIOIntegrationTests {
    final class ScriptedClocks: Sendable {
        let slept = Mutex(0.0)
        var clocks: SystemClocks {
            SystemClocks { [self] in
                let real = SystemClocks.system.read()
                return (real.monotonic + slept.withLock { $0 }, real.monotonic)
            }
        }
    }

    @Test func aResumeReopensTheSensorAtOnceWithoutReportingAFailure() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        try testbed.add(device.description)
        let log = EventLog()
        let scripted = ScriptedClocks()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var settings = IIOSettings()
        settings.batch = 1
        settings.stallTimeout = 30  // far longer than the test: only the resume may reopen
        let pipeline = try SensorPipeline(source: DiscoveringAccelerometerSource(settings: settings, logger: logger, clocks: scripted.clocks),
                                          configuration: OrientationDetector.Configuration(), logger: logger) { log.append($0) }
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)
        #expect(await log.wait { $0 == .sensorActive(true) })
        Self.feed(testbed, device, raw: [0, -100, 0], seconds: 0.5)
        #expect(await log.wait { if case .orientation(let e) = $0 { e.orientation == .portrait } else { false } })

        // The data stops (the sensor is asleep), and the system sleeps 45 s.
        let before = log.all.count
        let start = ContinuousClock.now
        scripted.slept.withLock { $0 += 45 }
        #expect(await log.wait { _ in log.all.dropFirst(before).contains(.sensorActive(true)) }, "reopened after the resume")
        let reopenedAfter = ContinuousClock.now - start
        #expect(reopenedAfter < .seconds(3), "at once (the refill timeout), not after a stall timeout: \(reopenedAfter)")
        let since = Array(log.all.dropFirst(before))
        #expect(since.first == .sensorActive(false))
        #expect(!since.contains { if case .sensorFailed = $0 { true } else { false } }, "a resume is not a failure: \(since)")

        // After the reopen the sensor decides afresh: the device was turned while asleep.
        Self.feed(testbed, device, raw: [-100, 0, 0], seconds: 0.5, from: 60_000_000_000)  // right edge up
        #expect(await log.wait { if case .orientation(let e) = $0 { e.orientation == .landscapeLeft } else { false } })
        pipeline.finish()
        await running.value
    }
}
