import Glibc
import OrientationCore
@testable import SensorDeviceAccess
@testable import SensorIIO
import SensorLog
import SensorPipeline
import Synchronization
import Testing

/// Issue 22, item 13: a timestamp-less 100 Hz accelerometer recorded on a loaded machine once
/// gave two samples with the same time. Here the reader thread is starved on purpose: the
/// ``SystemClocks`` it reads after every refill (for ``SuspendWatch``) block while the gate is
/// closed, so the scans the fake sensor keeps writing pile up in the kernel's buffer, and when
/// the gate opens the reader drains them in refills microseconds apart, as after losing the CPU.
///
/// Through umockdev's PTY a refill takes longer than on hardware (measured: back-to-back refills
/// 7–10 µs apart at batch 1, 18–29 µs at batch 5, 95 µs at batch 25, so stamps 3.6–10 µs apart),
/// so this test shows the starved path end to end but could not make the old clock print two
/// equal times; `ArrivalClockStarvationTests` feed the clock the 1–2 µs refills of real hardware.
extension SensorIIOIntegrationTests {
    /// Blocks the reader thread at its next clock read while closed; records when each read
    /// returned (one per refill).
    final class ReaderGate: @unchecked Sendable {
        private let semaphore: UnsafeMutablePointer<sem_t>
        private let closed = Atomic<Bool>(false)
        let reads = Mutex<[Double]>([])
        let blocked = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

        init() {
            semaphore = .allocate(capacity: 1)
            sem_init(semaphore, 0, 0)
        }

        deinit {
            sem_destroy(semaphore)
            semaphore.deallocate()
        }

        func close() { closed.store(true, ordering: .sequentiallyConsistent) }

        func open() {
            closed.store(false, ordering: .sequentiallyConsistent)
            sem_post(semaphore)
        }

        var clocks: SystemClocks {
            SystemClocks { [self] in
                if closed.load(ordering: .sequentiallyConsistent) {
                    blocked.continuation.yield()
                    while closed.load(ordering: .sequentiallyConsistent) { sem_wait(semaphore) }
                }
                let now = SystemClocks.system.read()
                reads.withLock { $0.append(now.monotonic) }
                return now
            }
        }
    }

    @Test(arguments: [1, 5, 25])
    func aStarvedReaderStillGivesStampsTheLogCanTellApart(batch: Int) async throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "mxc4005", format: "le:s16/32>>0", scale: "0.0980665")
        device.timestamp = false
        device.attributes["sampling_frequency"] = "100"
        try testbed.add(device.description)
        let gate = ReaderGate()
        // The starvation lasts 100 of the feeder's 10 ms sleeps: 1 s on an idle machine, over the
        // reader's 3 s stall timeout on a loaded one (test-repeat beside a build: "stalled"). The
        // stall timeout is not what this test is about.
        let plan = IIOReadPlan(device: device.id, mode: .buffered(batch: batch), samplingFrequency: 100, stallTimeout: 60)
        let stream = try await IIOSensorSource(plan: plan, name: "mxc4005", clocks: gate.clocks).open()
        let fd = testbed.deviceFD(device.node)
        let scan = device.scan([0, -100, 0], timestampNanoseconds: 0)
        // The sensor: 100 scans a second, paced as hardware is. From the 100th scan the reader is
        // starved; it gets the CPU back 100 scans (1 s) later.
        let feeder = Task.detached {
            for k in 0..<310 {
                if k == 100 { gate.close() }
                if k == 200 { gate.open() }
                writeAll(fd, scan)
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        var samples: [Sample] = []
        while samples.count < 300, let sample = try await stream.next() { samples.append(sample) }
        await stream.close()
        await feeder.value

        // The reader was starved, and drained a backlog in a burst of refills.
        var blockedEvents = gate.blocked.stream.makeAsyncIterator()
        #expect(await blockedEvents.next() != nil, "the reader blocked at the gate")
        let reads = gate.reads.withLock { $0 }
        let quick = zip(reads, reads.dropFirst()).filter { $1 - $0 < 0.002 }.count
        #expect(quick >= max(1, 50 / batch), "a burst of back-to-back refills: \(quick)")

        let times = samples.map(\.time)
        let spacings = zip(times, times.dropFirst()).map { $1 - $0 }
        #expect(spacings.allSatisfy { $0 >= ArrivalClock.minimumSpacing * 0.999 }, "closest: \(spacings.min() ?? 0)")
        // Recorded as `orientationd --record` does, the log reads back whole.
        var writer = try SensorLogWriter(metadata: SensorLogMetadata(), includesGyroscope: false)
        for sample in samples { try writer.write(sample) }
        var reader = try SensorLogReader(bytes: writer.bytes, name: "starved.log")
        var read = 0
        while try reader.next() != nil { read += 1 }
        #expect(read == samples.count)
        var detector = try OrientationDetector()
        let events = samples.compactMap { detector.process($0) }
        #expect(events.map(\.orientation) == [.portrait])
        #expect(detector.statistics.timeReversals == 0)
    }
}
