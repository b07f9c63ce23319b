import Glibc
import OrientationCore
import SensorIIO
import SensorInput
import SensorPipeline
import Synchronization
import TestSupport
import Testing

/// Issue 28: a reader hands each sample to the pipeline's consumer on its own thread and waits
/// as long as the consumer asks: real libiio polling and a real evdev node under umockdev.
extension SensorIIOIntegrationTests {
    /// A consumer that asks for `wait` after every sample and keeps the times it was called,
    /// and on which thread.
    final class PacedConsumer: SampleConsumer {
        let wait: Double?
        private let state = Mutex<(samples: [Sample], threads: Set<UInt>)>(([], []))
        let arrived = AwaitedCount()

        init(wait: Double?) { self.wait = wait }

        func consume(_ sample: Sample) -> Double? {
            state.withLock {
                $0.samples.append(sample)
                $0.threads.insert(UInt(bitPattern: Int(pthread_self())))
            }
            arrived.increment()
            return wait
        }

        var times: [Double] { state.withLock { $0.samples.map(\.time) } }
        var samples: [Sample] { state.withLock { $0.samples } }
        var threads: Set<UInt> { state.withLock { $0.threads } }
    }

    /// Counts up; a test awaits a count without polling.
    final class AwaitedCount: Sendable {
        private let state = Mutex<(count: Int, waiters: [(Int, CheckedContinuation<Void, Never>)])>((0, []))
        func increment() {
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.count += 1
                let count = state.count
                let (due, rest) = (state.waiters.filter { $0.0 <= count }, state.waiters.filter { $0.0 > count })
                state.waiters = rest
                return due.map(\.1)
            }
            for waiter in ready { waiter.resume() }
        }
        func wait(for count: Int) async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.count >= count { return true }
                    state.waiters.append((count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    @Test(arguments: [nil, 0.4] as [Double?])
    func aPolledReaderWaitsAsLongAsItsConsumerAsks(wait: Double?) async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "da280", format: "le:s14/16>>2", scale: "0.002394", buffered: false, raw: (0, -4096, 0))
        try testbed.add(device.description)
        var settings = IIOSettings()
        settings.pollRate = 20
        let source = DiscoveringAccelerometerSource(settings: settings, logger: Self.quietLogger)
        let consumer = PacedConsumer(wait: wait)
        let stream = try await source.open(consumer: consumer)
        await consumer.arrived.wait(for: 6)
        await stream.close()
        let times = consumer.times
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }
        // The consumer ran on the reader's one thread, never this task's.
        #expect(consumer.threads.count == 1 && !consumer.threads.contains(UInt(bitPattern: Int(pthread_self()))))
        if let wait {
            #expect(gaps.allSatisfy { $0 >= wait - 0.01 }, "asked for \(wait) s between readings: \(gaps)")
        } else {
            #expect(gaps.allSatisfy { $0 < 0.3 }, "at the poll rate (20 Hz): \(gaps)")
        }
    }

    /// With a consumer the stream returns no sample, only its end: a stall ends it with the error.
    @Test func aStreamOpenedWithAConsumerReturnsOnlyItsEnd() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "da280", format: "le:s14/16>>2", scale: "0.002394", buffered: false, raw: (0, 0, 0))
        try testbed.add(device.description)
        var settings = IIOSettings()
        settings.stallTimeout = 0.3  // all-zero readings are no readings: stalled after 0.3 s
        let source = DiscoveringAccelerometerSource(settings: settings, logger: Self.quietLogger)
        let consumer = PacedConsumer(wait: nil)
        let stream = try await source.open(consumer: consumer)
        await #expect {
            while let sample = try await stream.next() { Issue.record("the stream returned a sample: \(sample)") }
        } throws: { error in
            "\(error)".contains("stalled")
        }
        await stream.close()
        #expect(!consumer.times.isEmpty, "the consumer had the readings")
    }

    /// A still evdev accelerometer is repeated as seldom as the consumer asks; a change the
    /// driver reports is delivered at once.
    @Test func anEvdevReaderRepeatsAStillDeviceAsSeldomAsItsConsumerAsks() async throws {
        let testbed = Testbed()
        let device = FakeInputAccelerometer()
        for description in device.descriptions { try testbed.add(description) }
        let consumer = PacedConsumer(wait: 0.4)
        let stream = try await EvdevSensorSource(node: device.node, name: "event5", mountMatrix: .identity, rate: 20).open(consumer: consumer)
        writeAll(testbed.deviceFD(device.node), FakeInputAccelerometer.report((0, -256, 0), at: 100))
        await consumer.arrived.wait(for: 5)
        let before = consumer.times.count
        writeAll(testbed.deviceFD(device.node), FakeInputAccelerometer.report((256, 0, 0), at: 101))
        await consumer.arrived.wait(for: before + 1)
        await stream.close()
        let times = consumer.times
        let repeats = zip(times, times.dropFirst()).map { $1 - $0 }.prefix(before - 1).dropFirst()
        #expect(repeats.allSatisfy { $0 >= 0.39 }, "still: one repeat per 0.4 s: \(repeats)")
    }

    /// A buffered reader sets the kernel's watermark from the batch (libiio writes
    /// `buffer/watermark`; a hardware FIFO takes its own from it), and while the consumer asks
    /// for a wait the sensor slows down so that the batch takes that long: one wake-up per wait,
    /// every sample still delivered (a turn's start is history in the batch that shows it).
    @Test func aBufferedReaderBatchesAsLongAsItsConsumerAsks() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        try testbed.add(device.description)
        let plan = IIOReadPlan(device: device.id, mode: .buffered(batch: 5), samplingFrequency: 100)
        let consumer = PacedConsumer(wait: nil)
        let stream = try await IIOSensorSource(plan: plan, name: "accel_3d").open(consumer: consumer)
        let fd = testbed.deviceFD(device.node)
        /// 1.5 s of a still device in portrait, 100 scans a second, as the hardware would write them.
        func feed() -> Task<Void, Never> {
            Task.detached {
                for k in 0..<150 {
                    writeAll(fd, device.scan([0, -100, 0], timestampNanoseconds: Int64(k) * 10_000_000))
                    try? await Task.sleep(for: .milliseconds(10))
                }
            }
        }
        let feeder = feed()
        await consumer.arrived.wait(for: 10)
        #expect(testbed.attribute(device.syspath, "buffer/watermark")?.hasPrefix("5") == true,
                "watermark \(testbed.attribute(device.syspath, "buffer/watermark") ?? "none")")
        await feeder.value
        await stream.close()
        #expect(consumer.times.count >= 140, "every scan delivered: \(consumer.times.count)")

        // Asked to wait 0.4 s: the sensor slows to the rate at which the batch of 5 takes 0.4 s
        // (issue 37; a driver with no lower rate gets batches of 40 at 100 Hz instead:
        // StillSamplingRateIntegrationTests).
        let slow = PacedConsumer(wait: 0.4)
        let slowStream = try await IIOSensorSource(plan: plan, name: "accel_3d").open(consumer: slow)
        let slowFeeder = feed()
        await slow.arrived.wait(for: 45)
        #expect(testbed.attribute(device.syspath, "sampling_frequency")?.hasPrefix("12.5") == true,
                "sampling_frequency \(testbed.attribute(device.syspath, "sampling_frequency") ?? "none")")
        #expect(testbed.attribute(device.syspath, "buffer/watermark")?.hasPrefix("5") == true,
                "watermark \(testbed.attribute(device.syspath, "buffer/watermark") ?? "none")")
        await slowFeeder.value
        await slowStream.close()
    }

    /// A polled device with a motion event (mma8452-like `events/`): discovery finds it, and the
    /// still reader tries to arm it. umockdev cannot answer `IIO_GET_EVENT_FD_IOCTL` (the node is
    /// a PTY: ENOTTY), so the reader falls back to its clock, leaves the event disabled, and keeps
    /// the still pace. (What cannot be shown here: blocking on a real event descriptor.)
    @Test func aMotionEventThatCannotBeArmedFallsBackToTheClock() async throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "mma8452", format: "be:s12/16>>4", scale: "0.009577", raw: (0, -1024, 0))
        device.attributes["events/in_accel_x&y&z_mag_rising_en"] = "0"
        device.attributes["events/in_accel_x&y&z_mag_rising_value"] = "0.49"
        device.attributes["events/in_accel_x_thresh_rising_en"] = "0"
        try testbed.add(device.description)
        var settings = IIOSettings()
        settings.mode = .polled
        settings.pollRate = 20
        let source = DiscoveringAccelerometerSource(settings: settings, logger: Self.quietLogger)
        let plan = try #require(try await source.plan().plan)
        #expect(plan.watchesMotionEvents)
        let event = IIOMotionEvent.find(for: plan)
        #expect(event?.enableFiles.map { $0.split(separator: "/").last.map(String.init) } == ["in_accel_x&y&z_mag_rising_en"],
                "\(String(describing: event))")
        let consumer = PacedConsumer(wait: 0.4)
        let stream = try await source.open(consumer: consumer)
        await consumer.arrived.wait(for: 4)
        await stream.close()
        let gaps = zip(consumer.times, consumer.times.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= 0.39 && $0 < 1.5 }, "the clock's pace, not the event's fallback: \(gaps)")
        #expect(testbed.attribute(device.syspath, "events/in_accel_x&y&z_mag_rising_en")?.hasPrefix("0") == true)
        #expect(testbed.attribute(device.syspath, "events/in_accel_x_thresh_rising_en")?.hasPrefix("0") == true)
    }

    /// The consumer gets the gyroscope's newest reading attached on the accelerometer's thread,
    /// as the stream's owner does without one.
    @Test func aConsumerGetsTheSeparateGyroscopeMerged() async throws {
        let testbed = Testbed()
        let (accel, gyro, source) = try Self.accelerometerWithSeparateGyroscope(testbed)
        let consumer = PacedConsumer(wait: nil)
        let stream = try await source.open(consumer: consumer)
        writeAll(testbed.deviceFD(gyro.node), gyro.scan([500, 0, -500], timestampNanoseconds: 1_000_000_000))
        var merged: Sample? = nil
        for k in 0..<400 where merged == nil {
            writeAll(testbed.deviceFD(accel.node), accel.scan([0, -1024, 0], timestampNanoseconds: 1_010_000_000 + Int64(k) * 100_000))
            await consumer.arrived.wait(for: k + 1)
            merged = consumer.samples.first { $0.angularRate != nil }
        }
        await stream.close()
        let rate = try #require(merged?.angularRate)
        #expect(abs(rate.x - 500 * 0.001065) < 1e-9 && abs(rate.z - (-500 * 0.001065)) < 1e-9)
    }
}
