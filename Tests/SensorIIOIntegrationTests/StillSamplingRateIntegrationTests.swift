import Glibc
import OrientationCore
import SensorIIO
import SensorPipeline
import Synchronization
import TestSupport
import Testing

/// Issue 37: while still, a buffered accelerometer's own rate goes down (the sensor, a HID hub
/// and the kernel then do a fraction of the work) and its buffer stays enabled: it is enabled
/// once per open, and nothing it holds when a turn begins is dropped; the first moving batch
/// brings the full rate back, and closing leaves the driver at the rate it had.
extension SensorIIOIntegrationTests {
    /// A consumer that asks for `wait` after every sample, until told otherwise.
    final class SwitchableConsumer: SampleConsumer {
        private let current: Mutex<Double?>
        let arrived = AwaitedCount()
        init(wait: Double?) { current = Mutex(wait) }
        func set(_ wait: Double?) { current.withLock { $0 = wait } }
        func consume(_ sample: Sample) -> Double? {
            arrived.increment()
            return current.withLock { $0 }
        }
    }

    /// Counts the writes to one file (IN_CLOSE_WRITE), read when asked.
    final class FileWrites {
        let fd: Int32
        init(_ path: String) {
            fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            _ = inotify_add_watch(fd, path, UInt32(IN_CLOSE_WRITE))
        }
        var count: Int {
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(fd, &buffer, buffer.count)
                guard n > 0 else { return total }
                var offset = 0
                while offset < n {
                    let length = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) }
                    total += 1
                    offset += 16 + Int(length)
                }
            }
        }
        deinit { close(fd) }
    }

    @Test(arguments: [true, false])
    func aStillBufferedSensorSlowsDownAndKeepsItsBuffer(withList: Bool) async throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        // Without a list the reader asks for the rate it wants and reads back what it got (a HID
        // sensor takes any interval; here the file keeps what was written).
        if withList { device.attributes["sampling_frequency_available"] = "6.25 12.5 25 50 100 200" }
        try testbed.add(device.description)
        let enables = FileWrites(try #require(testbed.path(device.syspath, "buffer/enable")))
        var plan = IIOReadPlan(device: device.id, mode: .buffered(batch: 5), samplingFrequency: 100)
        plan.sysfsPath = device.syspath
        let fd = testbed.deviceFD(device.node)
        let fed = device
        // How often libiio writes buffer/enable for one open that never goes still.
        let moving = SwitchableConsumer(wait: nil)
        let movingStream = try await IIOSensorSource(plan: plan, name: "accel_3d").open(consumer: moving)
        for k in 0..<10 { writeAll(fd, fed.scan([0, -100, 0], timestampNanoseconds: Int64(k) * 10_000_000)) }
        await moving.arrived.wait(for: 10)
        await movingStream.close()
        let perOpen = enables.count
        #expect(perOpen >= 1)
        let consumer = SwitchableConsumer(wait: 0.4)
        let stream = try await IIOSensorSource(plan: plan, name: "accel_3d").open(consumer: consumer)
        let feeder = Task.detached {
            for k in 10..<310 {
                writeAll(fd, fed.scan([0, -100, 0], timestampNanoseconds: Int64(k) * 10_000_000))
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        defer { feeder.cancel() }
        await consumer.arrived.wait(for: 20)
        // Still: the rate at which the batch of 5 takes the 0.4 s wait, 12.5 Hz (from the list
        // when there is one); the watermark stays the batch's.
        #expect(testbed.attribute(device.syspath, "sampling_frequency")?.hasPrefix("12.5") == true,
                "sampling_frequency \(testbed.attribute(device.syspath, "sampling_frequency") ?? "none")")
        #expect(testbed.attribute(device.syspath, "buffer/watermark")?.hasPrefix("5") == true,
                "watermark \(testbed.attribute(device.syspath, "buffer/watermark") ?? "none")")
        // Moving: the full rate at the next batch, the same buffer.
        consumer.set(nil)
        await consumer.arrived.wait(for: 40)
        #expect(testbed.attribute(device.syspath, "sampling_frequency")?.hasPrefix("100") == true,
                "sampling_frequency \(testbed.attribute(device.syspath, "sampling_frequency") ?? "none")")
        // Still again: down again, the buffer still the first one.
        consumer.set(0.4)
        await consumer.arrived.wait(for: 60)
        #expect(testbed.attribute(device.syspath, "sampling_frequency")?.hasPrefix("12.5") == true)
        await stream.close()
        // As many buffer/enable writes as an open that never went still (the old way made the
        // buffer again at every still/moving edge: three more enables and disables here); the
        // driver left at the moving rate.
        #expect(enables.count == perOpen, "buffer/enable written \(enables.count) times, \(perOpen) for an open that stays moving")
        #expect(testbed.attribute(device.syspath, "sampling_frequency")?.hasPrefix("100") == true)
    }

    /// A driver with no rate below the moving one is read the old way: a longer batch.
    @Test func aSensorWithNoLowerRateIsReadWithALongerBatch() async throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        device.attributes["sampling_frequency_available"] = "100 200 400"
        try testbed.add(device.description)
        var plan = IIOReadPlan(device: device.id, mode: .buffered(batch: 5), samplingFrequency: 100)
        plan.sysfsPath = device.syspath
        let consumer = SwitchableConsumer(wait: 0.4)
        let stream = try await IIOSensorSource(plan: plan, name: "accel_3d").open(consumer: consumer)
        let fd = testbed.deviceFD(device.node)
        let fed = device
        let feeder = Task.detached {
            for k in 0..<150 {
                writeAll(fd, fed.scan([0, -100, 0], timestampNanoseconds: Int64(k) * 10_000_000))
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        await consumer.arrived.wait(for: 45)
        #expect(testbed.attribute(device.syspath, "sampling_frequency")?.hasPrefix("100") == true)
        #expect(testbed.attribute(device.syspath, "buffer/watermark")?.hasPrefix("40") == true,
                "watermark \(testbed.attribute(device.syspath, "buffer/watermark") ?? "none")")
        await feeder.value
        await stream.close()
    }
}
