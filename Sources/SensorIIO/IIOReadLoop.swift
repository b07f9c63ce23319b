import CLibIIO
import Glibc
import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorPipeline

/// What runs on an ``IIOReader``'s thread; every libiio handle lives in its stack frames. It
/// opens the device and reads it one of two ways: ``stream(_:context:device:accel:gyro:batch:)``
/// (buffered, IIOReadLoop+Buffered.swift) or ``poll(_:accel:gyro:rate:)`` (attributes on a
/// clock, IIOReadLoop+Polled.swift).
struct IIOReadLoop: Sendable {
    let plan: IIOReadPlan
    let clocks: SystemClocks
    /// Where samples go: the pipeline's consumer on this thread, or the stream.
    let delivery: SampleDelivery

    // MARK: - The reader thread

    func run(_ owner: OwnerThread) {
        delivery.finish { try read(owner) }
    }

    struct Axis {
        /// The libiio channel; `nil` for an axis read through sysfs alone (``sysfsAxes(_:_:)``).
        let channel: OpaquePointer?
        let scale: Double
        let offset: Double
        let bytes: Int
        let signed: Bool
        /// Polled mode with a known sysfs directory: the raw attribute's file.
        var rawPath: String? = nil
    }

    private func read(_ owner: OwnerThread) throws(SensorError) {
        // A polled device whose raw attributes discovery found is read through sysfs alone:
        // libiio (and the 1.3 MB its dependencies keep resident) is never loaded for it.
        if case .polled(let rate) = plan.mode, let directory = plan.sysfsPath,
           let accel = sysfsAxes(directory, plan.family.rawValue) {
            let gyro = plan.readsGyroscope && plan.family == .accelerometer ? sysfsAxes(directory, "anglvel") : []
            if let gyro {
                try poll(owner, accel: accel, gyro: gyro, rate: rate)
                return
            }
        }
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

    func axes(_ device: OpaquePointer, _ kind: String) throws(SensorError) -> [Axis] {
        var result: [Axis] = []
        for axis in ["x", "y", "z"] {
            guard let channel = iio_device_find_channel(device, "\(kind)_\(axis)", false) else {
                throw .missingChannel(device: plan.device, channel: "\(kind)_\(axis)")
            }
            var scale = 1.0, offset = 0.0
            if iio_channel_attr_read_double(channel, "scale", &scale) != 0 { scale = 1 }
            if iio_channel_attr_read_double(channel, "offset", &offset) != 0 { offset = 0 }
            var rawPath: String? = nil
            if let directory = plan.sysfsPath {
                // The kernel's own files wherever the driver declared them (per axis, by type,
                // by direction, for all: ``IIOChannelAttributeName``), read newline-tolerant
                // (``SysfsAttribute``); polled values too.
                if let path = SysfsAttribute.channelPath(directory, family: kind, axis: axis, "scale"), let value = SysfsAttribute.number(path) { scale = value }
                if let path = SysfsAttribute.channelPath(directory, family: kind, axis: axis, "offset"), let value = SysfsAttribute.number(path) { offset = value }
                if case .polled = plan.mode { rawPath = SysfsAttribute.channelPath(directory, family: kind, axis: axis, "raw") }
            }
            if kind == "accel", let configured = plan.scale { scale = configured }  // [sensor] scale
            guard let format = iio_channel_get_data_format(channel)?.pointee else {
                throw .missingChannel(device: plan.device, channel: "\(kind)_\(axis) (no data format)")
            }
            result.append(Axis(channel: channel, scale: scale, offset: offset, bytes: Int(format.length) / 8, signed: format.is_signed,
                               rawPath: rawPath))
        }
        return result
    }

    /// The three axes of `kind` read through the device's sysfs files alone (the kernel's names:
    /// ``IIOChannelAttributeName``), or `nil` when one has no raw attribute (libiio then decides).
    /// Scale 1 and offset 0 where the driver has none; `[sensor] scale` replaces an
    /// accelerometer's.
    func sysfsAxes(_ directory: String, _ kind: String) -> [Axis]? {
        var result: [Axis] = []
        for axis in ["x", "y", "z"] {
            guard let raw = SysfsAttribute.channelPath(directory, family: kind, axis: axis, "raw") else { return nil }
            var scale = SysfsAttribute.channelPath(directory, family: kind, axis: axis, "scale").flatMap(SysfsAttribute.number) ?? 1
            let offset = SysfsAttribute.channelPath(directory, family: kind, axis: axis, "offset").flatMap(SysfsAttribute.number) ?? 0
            if kind == "accel", let configured = plan.scale { scale = configured }  // [sensor] scale
            result.append(Axis(channel: nil, scale: scale, offset: offset, bytes: 0, signed: true, rawPath: raw))
        }
        return result
    }

    /// The three axes' readings at `values[offset...]`, scaled and through the mount matrix,
    /// without allocating.
    func vector(_ axes: [Axis], _ values: [Double], from offset: Int) -> Vector3 {
        func axis(_ k: Int) -> Double { (values[offset + k] + axes[k].offset) * axes[k].scale }
        return plan.mountMatrix.apply(Vector3(axis(0), axis(1), axis(2)))
    }


    /// A gyroscope-only device's main vector is its angular rate. Returns the wait the consumer
    /// asks for before the next reading (``SampleConsumer/consume(_:)``), `nil` for none.
    @discardableResult
    func deliver(time: Double, _ main: Vector3, _ gyro: Vector3?) -> Double? {
        switch plan.family {
        case .accelerometer: delivery.deliver(Sample(time: time, acceleration: main, angularRate: gyro))
        case .gyroscope: delivery.deliver(Sample(time: time, acceleration: .zero, angularRate: main))
        }
    }

    /// libiio converts the scan bytes (endianness, shift, sign extension) into a host integer of
    /// the channel's storage size.
    static func convert(_ axis: Axis, _ source: UnsafeMutableRawPointer) -> Double {
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
