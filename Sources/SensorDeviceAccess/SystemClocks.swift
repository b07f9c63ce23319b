import Glibc

/// The two clocks whose difference is the time the system has spent suspended:
/// `CLOCK_BOOTTIME` counts it, `CLOCK_MONOTONIC` does not (both are slewed alike by NTP, so
/// nothing else moves their difference). Read on a reader's owner thread after each wake-up.
///
/// Injectable so that tests can script a suspend (nothing else can make a machine sleep under
/// `swift test`); the daemon always uses ``system``.
public struct SystemClocks: Sendable {
    public let read: @Sendable () -> (boottime: Double, monotonic: Double)

    public init(read: @escaping @Sendable () -> (boottime: Double, monotonic: Double)) {
        self.read = read
    }

    public static let system = SystemClocks {
        var boot = timespec(), mono = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        return (Double(boot.tv_sec) + Double(boot.tv_nsec) * 1e-9, Double(mono.tv_sec) + Double(mono.tv_nsec) * 1e-9)
    }
}
