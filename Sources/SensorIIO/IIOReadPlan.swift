import OrientationCore

/// Everything a reader thread needs, as plain values (it creates its own libiio context).
public struct IIOReadPlan: Sendable, Hashable {
    /// How samples are read.
    public enum Mode: Sendable, Hashable {
        /// Through the device's buffer (`/dev/iio:deviceN`), `batch` samples per wake-up.
        case buffered(batch: Int)
        /// By reading `in_*_raw` attributes `rate` times per second (drivers without a buffer).
        case polled(rate: Double)
    }

    /// Which channel family is the device's main one.
    public enum Family: String, Sendable, Hashable {
        /// `accel_*`: samples carry the acceleration (and, with ``readsGyroscope``, `anglvel_*`).
        case accelerometer = "accel"
        /// `anglvel_*` only: samples carry the angular rate (acceleration zero), to be merged
        /// into an accelerometer's samples.
        case gyroscope = "anglvel"
    }

    /// The IIO device id (`iio:device0`).
    public var device: String
    public var family = Family.accelerometer
    public var mode: Mode
    /// Sampling frequency to request from the driver (buffered mode), if any. (A polled
    /// driver's is set by ``DiscoveringAccelerometerSource`` before the reader starts:
    /// ``SamplingFrequencyFloor``.)
    public var samplingFrequency: Double?
    /// m/s² per count instead of the driver's scale (`[sensor] scale`), if any.
    public var scale: Double? = nil
    /// The device's sysfs directory, when known (discovery sets it): polled mode then reads the
    /// raw, scale and offset attributes itself (``SysfsAttribute``, newline-tolerant) rather
    /// than through libiio.
    public var sysfsPath: String? = nil
    /// Applied to acceleration and angular rate: sensor axes → screen axes.
    public var mountMatrix: MountMatrix
    /// Read the device's `anglvel_*` channels too (an IMU with both in one device).
    public var readsGyroscope: Bool
    /// No sample for this long means the sensor stalled: the stream fails, the pipeline reopens.
    public var stallTimeout: Double
    /// Polled: look for the driver's motion event (on the reader's thread, in ``sysfsPath``) and
    /// arm it while the device lies still (``IIOMotionEvent``).
    public var watchesMotionEvents = false

    public init(device: String, mode: Mode, samplingFrequency: Double? = nil, mountMatrix: MountMatrix = .identity,
                readsGyroscope: Bool = false, stallTimeout: Double = 3) {
        self.device = device
        self.mode = mode
        self.samplingFrequency = samplingFrequency
        self.mountMatrix = mountMatrix
        self.readsGyroscope = readsGyroscope
        self.stallTimeout = stallTimeout
    }
}
