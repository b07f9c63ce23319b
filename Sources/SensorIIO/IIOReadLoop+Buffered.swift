import CLibIIO
import Glibc
import OrientationCore
import OwnerThreads
import SensorDeviceAccess

extension IIOReadLoop {
    /// Buffered reading: enable the channels, let the driver batch `batch` samples per wake-up
    /// (libiio sets `buffer/watermark` to the batch, and a driver with a hardware FIFO takes its
    /// watermark from it: the kernel wakes us once per batch). While the consumer asks for a
    /// wait (``SampleRateGovernor``: the device lies still), the sensor itself slows down
    /// (issue 37): `sampling_frequency` goes to the rate at which the same batch takes that
    /// wait (``StillSamplingFrequency``), so the sensor, a HID sensor's hub and the kernel do a
    /// fraction of the work, and the buffer stays enabled: nothing it holds when a turn begins
    /// is dropped. The first batch that moves writes the moving rate back. A driver that takes
    /// no lower rate (or refuses the write while the buffer runs, as some I²C drivers do with
    /// EBUSY) is read the old way: the buffer made again with a batch as long as the wait (at
    /// most ``stillBatchLimit``), the samples it still held dropped. A HID sensor's `hysteresis`
    /// is left as its firmware set it: raising it would hold back the first samples of a turn.
    func stream(_ owner: OwnerThread, context: OpaquePointer, device: OpaquePointer, accel: [Axis], gyro: [Axis], batch: Int) throws(SensorError) {
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
        // Without a timestamp channel, stamp from arrivals, starting from the rate the driver
        // reports after the write (it may round or ignore the request), and following the rate
        // it really delivers (issue 10: stamps from the requested rate went backwards).
        var reported: Double = 0
        let rate = iio_device_attr_read_double(device, "sampling_frequency", &reported) == 0 && reported > 0
            ? reported : (plan.samplingFrequency ?? 100)
        var clock = ArrivalClock(rate: rate)
        var current = max(batch, 1)
        var open: OpaquePointer? = try openBuffer(owner, context: context, device: device, batch: current, rate: rate)
        // The hardware rate while still, once lowered; `slowsDown` false once the driver showed
        // it takes no lower rate (then the old way, a longer batch, for the rest of the open).
        var stillRate: Double? = nil
        var slowsDown = true
        let available = plan.sysfsPath.flatMap { SysfsAttribute.read($0 + "/sampling_frequency_available") }
        defer {
            owner.setCancelHook(nil)
            if let open { iio_buffer_destroy(open) }  // disables the buffer: buffer/enable returns to 0
            // The next open (or iio-sensor-proxy after us) finds the rate it left it at.
            if stillRate != nil { _ = iio_device_attr_write_double(device, "sampling_frequency", rate) }
        }
        if owner.isStopping { return }  // stopped before the hook was in place
        var lastGood = Self.monotonic()
        var suspend = SuspendWatch(clocks: clocks)
        while !owner.isStopping, let buffer = open {
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
            // A channel missing from the scan (libiio returns NULL): skip the refill rather than crash the reader.
            let firsts = all.compactMap { iio_buffer_first(buffer, $0.channel) }
            guard firsts.count == all.count else { continue }
            var pointers = firsts
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
            var wait: Double? = nil
            // One scan's values in `all`'s order (the accelerometer's axes, then the gyroscope's),
            // as the polled reader keeps them.
            var raw = [Double](repeating: 0, count: all.count)
            while pointers[0] < end {
                for (k, axis) in all.enumerated() {
                    raw[k] = Self.convert(axis, pointers[k])
                    pointers[k] += step
                }
                let time = index < times.count ? times[index] : now
                let a = vector(accel, raw, from: 0)
                let w: Vector3? = gyro.isEmpty ? nil : vector(gyro, raw, from: accel.count)
                wait = deliver(time: time, a, w)
                index += 1
            }
            if let wait, slowsDown, current == max(batch, 1) {
                // Still: slow the sensor down once, keeping the buffer.
                if stillRate == nil {
                    stillRate = slowDown(device, context: context, moving: rate, batch: current, wait: wait, available: available)
                    if let stillRate, timestamp == nil { clock = ArrivalClock(rate: stillRate) }
                    slowsDown = stillRate != nil
                }
                if stillRate != nil { continue }
            } else if wait == nil, stillRate != nil {
                // The first batch that moves: the full rate again, the same buffer.
                _ = iio_device_attr_write_double(device, "sampling_frequency", rate)
                stillRate = nil
                if timestamp == nil { clock = ArrivalClock(rate: rate) }
                setRefillTimeout(context, batch: current, rate: rate)
                continue
            }
            let wanted = Self.batch(for: wait, normal: max(batch, 1), rate: rate)
            if wanted != current {
                // Made again (the kernel refuses a new watermark on an enabled buffer); what the
                // old one still held is dropped: at most a batch of a still device, or a few
                // samples of a moving one.
                owner.setCancelHook(nil)
                iio_buffer_destroy(buffer)
                open = nil
                current = wanted
                open = try openBuffer(owner, context: context, device: device, batch: current, rate: rate)
            }
        }
    }

    /// Writes the still rate (``StillSamplingFrequency``) and reads back what the driver took;
    /// the rate now set, or `nil` (the moving rate restored) when it took none worth keeping.
    private func slowDown(_ device: OpaquePointer, context: OpaquePointer, moving: Double, batch: Int, wait: Double, available: String?) -> Double? {
        guard let wanted = StillSamplingFrequency.choose(moving: moving, batch: batch, wait: wait, available: available),
              iio_device_attr_write(device, "sampling_frequency", SamplingFrequencyFloor.text(wanted) + "\n") >= 0 else { return nil }
        var reported = 0.0
        guard iio_device_attr_read_double(device, "sampling_frequency", &reported) == 0,
              StillSamplingFrequency.accepts(reported, moving: moving, batch: batch, wait: wait) else {
            _ = iio_device_attr_write_double(device, "sampling_frequency", moving)
            return nil
        }
        setRefillTimeout(context, batch: batch, rate: reported)
        return reported
    }

    /// The most samples a still batch may hold (4 s at 1 kHz; a kernel buffer's length is a
    /// few of them).
    static let stillBatchLimit = 4096

    /// The batch that makes the kernel wake us about once per `wait` at `rate` Hz (never fewer
    /// samples than `normal`), or `normal` without a wait.
    static func batch(for wait: Double?, normal: Int, rate: Double) -> Int {
        guard let wait, wait > 0, rate.isFinite, rate > 0 else { return normal }
        return max(normal, min(stillBatchLimit, Int((wait * rate).rounded(.down))))
    }

    /// Creates the buffer for `batch` samples per refill, with a refill timeout that fits it, and
    /// hands the owner a way to cancel a refill in progress (iio_buffer_cancel is thread-safe by
    /// libiio's contract; the hook goes before the buffer does).
    private func openBuffer(_ owner: OwnerThread, context: OpaquePointer, device: OpaquePointer, batch: Int, rate: Double) throws(SensorError) -> OpaquePointer {
        guard let buffer = iio_device_create_buffer(device, batch, false) else {
            throw .cannotOpenBuffer(device: plan.device, errno: errno)
        }
        let handle = BufferHandle(buffer)
        owner.setCancelHook { iio_buffer_cancel(handle.buffer) }
        setRefillTimeout(context, batch: batch, rate: min(rate, plan.samplingFrequency ?? rate))
        return buffer
    }

    /// libiio gives up on a refill (and drops what it read) when the whole batch has not
    /// arrived within the context's timeout: at 100 Hz a batch of 25 takes 250 ms, exactly the
    /// default, and never completed. Allow two batches' worth, at least 250 ms.
    private func setRefillTimeout(_ context: OpaquePointer, batch: Int, rate: Double) {
        let batchMilliseconds = 2000 * Double(batch) / max(rate, 0.1)
        iio_context_set_timeout(context, UInt32(max(250, min(10_000, batchMilliseconds.rounded(.up)))))
    }

    /// Most I²C accelerometers and HID sensors only fill their buffer when a trigger is set.
    /// Keep one that is already set; otherwise take the device's own, named `<name>-dev<N>` by
    /// the kernel's convention. Devices without trigger support are left alone.
    func selectTrigger(context: OpaquePointer, device: OpaquePointer) {
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
}

/// A libiio buffer handed to ``OwnerThread/setCancelHook(_:)``: the only call made through it
/// from another thread is `iio_buffer_cancel`, which libiio documents as thread-safe, and the
/// owner removes the hook (under the owner's lock) before it destroys the buffer.
private struct BufferHandle: @unchecked Sendable {
    let buffer: OpaquePointer
    init(_ buffer: OpaquePointer) { self.buffer = buffer }
}

