import SensorIIO
import Testing
import TestSupport

/// The udev monitor against umockdev's uevents (issue 31).
extension SensorIIOIntegrationTests {
    /// `start()` returns only once the monitor listens: a uevent sent the moment it returns is
    /// seen, round after round. The monitor used to return as soon as its thread was created and
    /// enable its netlink socket later on that thread; a uevent sent in between (by umockdev
    /// here, by the kernel in production: a sensor plugged in while the daemon starts) went to
    /// no socket and was lost. Each round is a fresh monitor, so each round races its start.
    @Test func aUeventSentTheMomentStartReturnsIsSeen() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        try testbed.add(device.description)
        var missed: [Int] = []
        for round in 0..<40 {
            let events = AwaitedLog<String>()
            let monitor = UdevMonitor(logger: Self.quietLogger) { event in events.append("\(event.action) \(event.device)") }
            try await monitor.start()
            testbed.uevent(device.syspath, "change")
            if !(await events.wait(timeout: 2) { $0.contains("change iio:device0") }) { missed.append(round) }
            await monitor.stop()
        }
        #expect(missed.isEmpty, "uevents lost in rounds \(missed) of 40")
    }
}
