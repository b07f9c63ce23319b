import CLibIIO
import Glibc
import OwnerThreads

extension AuxiliarySensorReader {
    /// Reads one buffered channel (a HID light sensor's `intensity_both`, a compass heading)
    /// through libiio on the owner thread: every handle is created, used and destroyed here.
    /// Each refill delivers its newest scan as `(raw + offset) × scale`; the driver's own rate
    /// (or its "on change" reporting) paces the thread, so a silent sensor costs nothing. The
    /// trigger is left as it is (the accelerometer's reader sets the device's own one; a light
    /// sensor that needs it is read through its raw attribute where it has one).
    /// Returns a failure's reason, or `nil` when stopped.
    static func readBuffered(_ owner: OwnerThread, device id: String, sysfsPath: String, channel name: String,
                             onValue: (Double) -> Void) -> String? {
        guard let context = iio_create_local_context() else { return "cannot create a libiio context: \(String(cString: strerror(errno)))" }
        defer { iio_context_destroy(context) }
        // A refill waits at most a second, so a stop is seen promptly even without the hook.
        iio_context_set_timeout(context, 1000)
        guard let device = iio_context_find_device(context, id) else { return "the device is gone" }
        guard let channel = iio_device_find_channel(device, name, false), let format = iio_channel_get_data_format(channel)?.pointee else {
            return "no channel \(name)"
        }
        // Scale and offset from the kernel's files, wherever the driver declared them (per
        // channel or shared: hid-sensor-magn-3d's heading has `in_rot_scale`), newline-tolerant;
        // libiio's folding only where sysfs has neither.
        var scale = 1.0, offset = 0.0
        func sysfs(_ attribute: String) -> Double? {
            SysfsAttribute.channelPath(sysfsPath, channel: "in_" + name, attribute).flatMap(SysfsAttribute.number)
        }
        if let value = sysfs("scale") { scale = value } else if iio_channel_attr_read_double(channel, "scale", &scale) != 0 { scale = 1 }
        if scale == 0 { scale = 1 }
        if let value = sysfs("offset") { offset = value } else if iio_channel_attr_read_double(channel, "offset", &offset) != 0 { offset = 0 }
        let axis = IIOReadLoop.Axis(channel: channel, scale: scale, offset: offset, bytes: Int(format.length) / 8, signed: format.is_signed)
        iio_channel_enable(channel)
        guard let buffer = iio_device_create_buffer(device, 1, false) else {
            return "cannot open its buffer: \(String(cString: strerror(errno)))"
        }
        let handle = AuxiliaryBufferHandle(buffer)
        owner.setCancelHook { iio_buffer_cancel(handle.buffer) }
        defer {
            owner.setCancelHook(nil)
            iio_buffer_destroy(buffer)  // disables the buffer
        }
        while !owner.isStopping {
            let bytes = iio_buffer_refill(buffer)
            if owner.isStopping { return nil }  // a cancelled refill
            if bytes < 0 {
                if -bytes == Int(ETIMEDOUT) || -bytes == Int(EAGAIN) { continue }
                return "reading its buffer failed: \(String(cString: strerror(Int32(-bytes))))"
            }
            let step = iio_buffer_step(buffer)
            guard bytes > 0, step > 0, let end = iio_buffer_end(buffer), var scan = iio_buffer_first(buffer, channel) else { continue }
            var newest: Double? = nil
            while scan < end {
                newest = (IIOReadLoop.convert(axis, scan) + offset) * scale
                scan += step
            }
            if let newest { onValue(newest) }
        }
        return nil
    }
}

/// The buffer handed to the owner's cancel hook: only `iio_buffer_cancel` (thread-safe by
/// libiio's contract) is called through it from another thread, and the hook is removed before
/// the buffer is destroyed.
private struct AuxiliaryBufferHandle: @unchecked Sendable {
    let buffer: OpaquePointer
    init(_ buffer: OpaquePointer) { self.buffer = buffer }
}
