import CLibIIO
import Glibc
import OrientationCore
import OwnerThreads

/// Reads one IIO device on a dedicated thread and yields samples in the canonical frame.
///
/// Contract: the libiio context, device, channels and buffer are created, used and destroyed
/// inside ``run()`` on the reader's own thread; nothing but `Sample` values and errors leave it.
/// ``stop()`` asks the thread to finish, wakes it (a refill is cancelled, a poll interval cut
/// short) and awaits its end without blocking a thread, so when it returns the buffer is
/// disabled (`buffer/enable` back to 0) and the device closed. Values are
/// `(raw + offset) × scale` (per-axis scale where the driver has it), converted from the scan
/// format by libiio's own `iio_channel_convert` (sign, shift, endianness), then `M · value`.
final class IIOReader: Sendable {
    let plan: IIOReadPlan
    private let continuation: AsyncThrowingStream<Sample, Error>.Continuation
    private let thread: OwnerThread

    init(plan: IIOReadPlan, clocks: SystemClocks = .system, continuation: AsyncThrowingStream<Sample, Error>.Continuation) {
        self.plan = plan
        self.continuation = continuation
        let reading = ReaderBody(plan: plan, clocks: clocks, continuation: continuation)
        thread = OwnerThread(name: "od-iio-reader") { owner in reading.run(owner) }
    }

    func start() throws(IIOError) {
        do { try thread.start() } catch { throw .cannotStartThread(errno: error.errno) }
    }

    /// Stops the thread and awaits its end (the sensor is closed when this returns).
    func stop() async {
        await thread.stop()
    }

    /// Asks the thread to stop without waiting (for `deinit`).
    func requestStop() {
        thread.requestStop()
    }
}

/// What runs on the reader thread; every libiio handle lives in its stack frames.
private struct ReaderBody: Sendable {
    let plan: IIOReadPlan
    let clocks: SystemClocks
    let continuation: AsyncThrowingStream<Sample, Error>.Continuation

    // MARK: - The reader thread

    func run(_ owner: OwnerThread) {
        do {
            try read(owner)
            continuation.finish()
        } catch {
            continuation.finish(throwing: error)
        }
    }

    struct Axis: Hashable {
        static func == (a: Axis, b: Axis) -> Bool { a.channel == b.channel }
        func hash(into hasher: inout Hasher) { hasher.combine(channel) }
        let channel: OpaquePointer
        let scale: Double
        let offset: Double
        let bytes: Int
        let signed: Bool
    }

    private func read(_ owner: OwnerThread) throws(IIOError) {
        guard let context = iio_create_local_context() else {
            throw .cannotCreateContext(errno: errno)
        }
        defer { iio_context_destroy(context) }
        iio_context_set_timeout(context, 250)
        guard let device = iio_context_find_device(context, plan.device) else {
            throw .deviceGone(plan.device)
        }
        let accel = try axes(device, plan.family.rawValue)
        let gyro = plan.readsGyroscope && plan.family == .accelerometer ? try axes(device, "anglvel") : []
        switch plan.mode {
        case .polled(let rate):
            try poll(owner, accel: accel, gyro: gyro, rate: rate)
        case .buffered(let batch):
            try stream(owner, context: context, device: device, accel: accel, gyro: gyro, batch: batch)
        }
    }

    private func axes(_ device: OpaquePointer, _ kind: String) throws(IIOError) -> [Axis] {
        var result: [Axis] = []
        for axis in ["x", "y", "z"] {
            guard let channel = iio_device_find_channel(device, "\(kind)_\(axis)", false) else {
                throw .missingChannel(device: plan.device, channel: "\(kind)_\(axis)")
            }
            var scale = 1.0, offset = 0.0
            if iio_channel_attr_read_double(channel, "scale", &scale) != 0 { scale = 1 }
            if iio_channel_attr_read_double(channel, "offset", &offset) != 0 { offset = 0 }
            let format = iio_channel_get_data_format(channel)!.pointee
            result.append(Axis(channel: channel, scale: scale, offset: offset, bytes: Int(format.length) / 8, signed: format.is_signed))
        }
        return result
    }

    private func vector(_ axes: [Axis], _ raw: (Axis) -> Double) -> Vector3 {
        let v = axes.map { (raw($0) + $0.offset) * $0.scale }
        return plan.mountMatrix.apply(Vector3(v[0], v[1], v[2]))
    }

    /// Drivers without a buffer (da280, da217…): read the raw attributes on a fixed clock.
    private func poll(_ owner: OwnerThread, accel: [Axis], gyro: [Axis], rate: Double) throws(IIOError) {
        let period = 1 / max(rate, 0.1)
        var suspend = SuspendWatch(clocks: clocks)
        var next = Self.monotonic()
        var lastGood = next
        var lastFailure: Int32? = nil
        while !owner.isStopping {
            var raw: [Axis: Double] = [:]
            var ok = true
            for axis in accel + gyro {
                var value: Double = 0
                let result = iio_channel_attr_read_double(axis.channel, "raw", &value)
                if result != 0 { ok = false; lastFailure = -result; break }
                raw[axis] = value
            }
            let now = Self.monotonic()
            if let slept = suspend.sleptSinceLastCheck() {
                throw .resumedFromSuspend(device: plan.device, seconds: slept)
            }
            if ok {
                // A reading of exactly zero on every axis is no reading (a buffered device read
                // through attributes it never updates): it counts toward the stall.
                if accel.contains(where: { raw[$0]! != 0 }) { lastGood = now }
                let a = vector(accel) { raw[$0]! }
                let w: Vector3? = gyro.isEmpty ? nil : vector(gyro) { raw[$0]! }
                deliver(time: now, a, w)
            }
            if now - lastGood > plan.stallTimeout {
                // Reads that kept failing say why; zeros alone are a stall.
                if !ok, let lastFailure { throw .readFailed(device: plan.device, errno: lastFailure) }
                throw .stalled(device: plan.device, seconds: plan.stallTimeout)
            }
            next += period
            if next < now { next = now }
            owner.sleep(until: next)
        }
    }

    /// Buffered reading: enable the channels, let the driver batch `batch` samples per wake-up.
    private func stream(_ owner: OwnerThread, context: OpaquePointer, device: OpaquePointer, accel: [Axis], gyro: [Axis], batch: Int) throws(IIOError) {
        selectTrigger(context: context, device: device)
        let timestamp = iio_device_find_channel(device, "timestamp", false)
        if timestamp != nil {
            // Scans stamped on CLOCK_MONOTONIC cannot jump with NTP or a manual clock change;
            // where the driver has no such attribute, KernelClockMapper catches the steps.
            _ = iio_device_attr_write(device, "current_timestamp_clock", "monotonic\n")
        }
        var kernelClock = KernelClockMapper()
        for axis in accel + gyro { iio_channel_enable(axis.channel) }
        if let timestamp { iio_channel_enable(timestamp) }
        if let frequency = plan.samplingFrequency {
            _ = iio_device_attr_write_double(device, "sampling_frequency", frequency)
        }
        guard let buffer = iio_device_create_buffer(device, max(batch, 1), false) else {
            throw .cannotOpenBuffer(device: plan.device, errno: errno)
        }
        // A stop cancels a refill in progress (iio_buffer_cancel is thread-safe by libiio's
        // contract); the hook goes before the buffer does.
        let handle = BufferHandle(buffer)
        owner.setCancelHook { iio_buffer_cancel(handle.buffer) }
        defer {
            owner.setCancelHook(nil)
            iio_buffer_destroy(buffer)  // disables the buffer: buffer/enable returns to 0
        }
        if owner.isStopping { return }  // stopped before the hook was in place
        // Without a timestamp channel, stamp from arrivals, starting from the rate the driver
        // reports after the write (it may round or ignore the request), and following the rate
        // it really delivers (issue 10: stamps from the requested rate went backwards).
        var reported: Double = 0
        let rate = iio_device_attr_read_double(device, "sampling_frequency", &reported) == 0 && reported > 0
            ? reported : (plan.samplingFrequency ?? 100)
        var clock = ArrivalClock(rate: rate)
        // libiio gives up on a refill (and drops what it read) when the whole batch has not
        // arrived within the context's timeout: at 100 Hz a batch of 25 takes 250 ms, exactly
        // the default, and never completed. Allow two batches' worth, at least 250 ms.
        let batchMilliseconds = 2000 * Double(max(batch, 1)) / max(min(rate, plan.samplingFrequency ?? rate), 0.1)
        iio_context_set_timeout(context, UInt32(max(250, min(10_000, batchMilliseconds.rounded(.up)))))
        var lastGood = Self.monotonic()
        var suspend = SuspendWatch(clocks: clocks)
        while !owner.isStopping {
            let bytes = iio_buffer_refill(buffer)
            let now = Self.monotonic()
            if owner.isStopping { return }  // a cancelled refill
            // After a resume: what this refill holds is from before the suspend (it must not
            // decide anything now), and some drivers deliver nothing more until re-enabled.
            // Throwing closes the buffer; the pipeline reopens at once.
            if let slept = suspend.sleptSinceLastCheck() {
                throw .resumedFromSuspend(device: plan.device, seconds: slept)
            }
            if bytes < 0 {
                if -bytes == Int(ETIMEDOUT) || -bytes == Int(EAGAIN) {
                    if now - lastGood > plan.stallTimeout {
                        throw .stalled(device: plan.device, seconds: plan.stallTimeout)
                    }
                    continue
                }
                throw .readFailed(device: plan.device, errno: Int32(-bytes))
            }
            if bytes == 0 { continue }
            lastGood = now
            let step = iio_buffer_step(buffer)
            guard step > 0, let end = iio_buffer_end(buffer) else { continue }
            let all = accel + gyro
            var pointers = all.map { iio_buffer_first(buffer, $0.channel)! }
            var index = 0
            let count = (end - pointers[0]) / step
            var times: [Double]
            if let channel = timestamp, var current = iio_buffer_first(buffer, channel) {
                var kernel: [Double] = []
                kernel.reserveCapacity(count)
                for _ in 0..<count {
                    var nanoseconds: Int64 = 0
                    iio_channel_convert(channel, &nanoseconds, current)
                    kernel.append(Double(nanoseconds) / 1e9)
                    current += step
                }
                times = kernelClock.map(kernel, arrival: now)
            } else {
                times = clock.stamps(count: count, arrival: now)
            }
            while pointers[0] < end {
                var raw: [Double] = []
                for (k, axis) in all.enumerated() {
                    raw.append(Self.convert(axis, pointers[k]))
                    pointers[k] += step
                }
                let time = index < times.count ? times[index] : now
                let a = vector(accel) { axis in raw[accel.firstIndex { $0.channel == axis.channel }!] }
                let w: Vector3? = gyro.isEmpty ? nil : vector(gyro) { axis in raw[accel.count + gyro.firstIndex { $0.channel == axis.channel }!] }
                deliver(time: time, a, w)
                index += 1
            }
        }
    }

    /// A gyroscope-only device's main vector is its angular rate.
    private func deliver(time: Double, _ main: Vector3, _ gyro: Vector3?) {
        switch plan.family {
        case .accelerometer: continuation.yield(Sample(time: time, acceleration: main, angularRate: gyro))
        case .gyroscope: continuation.yield(Sample(time: time, acceleration: .zero, angularRate: main))
        }
    }

    /// Most I²C accelerometers and HID sensors only fill their buffer when a trigger is set.
    /// Keep one that is already set; otherwise take the device's own, named `<name>-dev<N>` by
    /// the kernel's convention. Devices without trigger support are left alone.
    private func selectTrigger(context: OpaquePointer, device: OpaquePointer) {
        var current: OpaquePointer? = nil
        let status = iio_device_get_trigger(device, &current)
        guard status == 0 || status == -Int32(ENODEV), current == nil else { return }
        guard let name = iio_device_get_name(device).map({ String(cString: $0) }),
              let id = iio_device_get_id(device).map({ String(cString: $0) }) else { return }
        let wanted = "\(name)-dev\(id.reversed().prefix { $0.isNumber }.reversed().map(String.init).joined())"
        for index in 0..<iio_context_get_devices_count(context) {
            guard let candidate = iio_context_get_device(context, index), iio_device_is_trigger(candidate),
                  iio_device_get_name(candidate).map({ String(cString: $0) }) == wanted else { continue }
            _ = iio_device_set_trigger(device, candidate)
            return
        }
    }

    /// libiio converts the scan bytes (endianness, shift, sign extension) into a host integer of
    /// the channel's storage size.
    private static func convert(_ axis: Axis, _ source: UnsafeMutableRawPointer) -> Double {
        var storage: UInt64 = 0
        iio_channel_convert(axis.channel, &storage, source)
        switch (axis.bytes, axis.signed) {
        case (1, true): return Double(Int8(truncatingIfNeeded: storage))
        case (2, true): return Double(Int16(truncatingIfNeeded: storage))
        case (4, true): return Double(Int32(truncatingIfNeeded: storage))
        case (8, true): return Double(Int64(bitPattern: storage))
        case (1, false): return Double(UInt8(truncatingIfNeeded: storage))
        case (2, false): return Double(UInt16(truncatingIfNeeded: storage))
        case (4, false): return Double(UInt32(truncatingIfNeeded: storage))
        default: return Double(storage)
        }
    }

    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

}

/// A libiio buffer handed to ``OwnerThread/setCancelHook(_:)``: the only call made through it
/// from another thread is `iio_buffer_cancel`, which libiio documents as thread-safe, and the
/// owner removes the hook (under the owner's lock) before it destroys the buffer.
private struct BufferHandle: @unchecked Sendable {
    let buffer: OpaquePointer
    init(_ buffer: OpaquePointer) { self.buffer = buffer }
}

