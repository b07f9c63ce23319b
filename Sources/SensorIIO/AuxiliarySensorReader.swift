import Glibc
import OrientationCore
import OwnerThreads
import SensorDeviceAccess

/// Reads one light, proximity or compass sensor on an owner thread of its own (`od-aux-reader`),
/// the way the backend that found it says (``SensorBackends/auxiliaryRead(_:)``): a value every
/// ``AuxiliarySensorDescription/pollPeriod`` seconds, the first read at once, or (a buffered
/// channel through libiio, an input switch from its events) as the sensor wakes the thread.
/// Nothing is open between polled reads (sysfs attributes are opened, read and closed each
/// time), and the thread exists only while the sensor is claimed: an unclaimed sensor costs no
/// wake-up.
///
/// Each value goes to `onValue` on the reader's thread, in the sensor's own terms: light as
/// `(raw + offset) × scale` (or hwmon's percentage), proximity as the raw level, compass as
/// `(raw + offset) × scale` degrees (not yet wrapped). A read that fails three times in a row
/// (the device vanished, the driver errs) ends the thread with `onFailure` and the reason.
public final class AuxiliarySensorReader: Sendable {
    public let sensor: AuxiliarySensorDescription
    private let thread: OwnerThread

    public init(sensor: AuxiliarySensorDescription, onValue: @escaping @Sendable (Double) -> Void,
                onFailure: @escaping @Sendable (String) -> Void) {
        self.sensor = sensor
        thread = OwnerThread(name: "od-aux-reader") { owner in Self.run(owner, sensor, onValue, onFailure) }
    }

    public func start() throws(SensorError) {
        try thread.startReader()
    }

    /// Asks the thread to end; returns at once (nothing to release but the thread).
    public func requestStop() { thread.requestStop() }

    /// Stops the thread and waits for its end.
    public func stop() async { await thread.stop() }

    private static func run(_ owner: OwnerThread, _ sensor: AuxiliarySensorDescription, _ onValue: @Sendable (Double) -> Void,
                            _ onFailure: @Sendable (String) -> Void) {
        // The backend that found the sensor says how it is read (SensorBackends).
        let read: () -> Result<Double, AuxiliaryReadFailure>
        switch SensorBackends.auxiliaryRead(sensor) {
        case nil:
            return onFailure("\(sensor.id): no backend reads it (\(sensor.backend))")
        case .wakesItself(let body)?:
            if let failure = body(owner, onValue) { onFailure("\(sensor.id): \(failure)") }
            return
        case .everyPeriod(let body)?:
            read = body
        }
        var failures = 0
        var next = OwnerThread.monotonic()
        while !owner.isStopping {
            switch read() {
            case .success(let value):
                failures = 0
                onValue(value)
            case .failure(let failure):
                failures += 1
                if failures >= 3 { return onFailure("\(sensor.id): \(failure.message)") }
            }
            next += sensor.pollPeriod
            let now = OwnerThread.monotonic()
            if next < now { next = now }
            owner.sleep(until: next)
        }
    }

    /// One sysfs attribute, trimmed; opened and closed for each read (sysfs answers each open
    /// afresh; umockdev's preload redirects the path).
    static func readAttribute(_ directory: String, _ name: String) -> Result<String, AuxiliaryReadFailure> {
        let fd = open(directory + "/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(AuxiliaryReadFailure("cannot open \(name): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return .failure(AuxiliaryReadFailure("cannot read \(name): \(count < 0 ? String(cString: strerror(errno)) : "empty")")) }
        let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: "\n\0 ")
        return .success(text)
    }

    /// Apple's `light` attribute, `(left,right)` with 0–255 each (a plain number is taken as
    /// one side), as the percentage iio-sensor-proxy publishes: the brighter side / 255 × 100.
    public static func hwmonLightPercent(_ text: String) -> Double? {
        let inner = text.trimmingCharacters(in: "() \n")
        let parts = inner.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0).trimmingCharacters(in: " ")) }
        guard !parts.isEmpty, parts.count <= 2, let brightest = parts.compactMap({ $0 }).max(), !parts.contains(nil) else { return nil }
        return brightest / 255 * 100
    }
}
