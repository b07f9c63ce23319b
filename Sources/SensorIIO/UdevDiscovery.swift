import SensorDeviceAccess

/// Finds the motion sensors: the motion half of the backend table (``SensorBackends``), IIO
/// devices (``IIOBackend``) and input-subsystem accelerometers (``InputAccelerometerBackend``).
///
/// The udev handles live only inside one call (created, used and released on the calling thread);
/// nothing libudev returns escapes as anything but Swift values.
public enum UdevDiscovery {
    /// Every device of the `iio` subsystem, and every input-subsystem accelerometer, described;
    /// sorted by number, then id.
    public static func sensors() throws(SensorError) -> [SensorDescription] {
        try SensorBackends.discover(.motion).motion
    }
}

extension UdevDiscovery {
    /// True for an IIO device's sysname: the kernel's `iio:deviceN`, or any other name in the
    /// subsystem that is not a trigger (`triggerN`, `iio_sysfs_trigger`). Fixtures name devices
    /// freely (iio-sensor-proxy's acceptance suite uses `iio-accel`); libiio lists them all.
    static func isDevice(_ sysname: String) -> Bool {
        sysname.hasPrefix("iio:device") || (!sysname.hasPrefix("trigger") && !sysname.hasPrefix("iio_sysfs_trigger") && !sysname.isEmpty)
    }
}
