import Glibc
import OwnerThreads
import SensorPipeline

/// Why finding, opening or reading a sensor failed: thrown from the reader's owner thread, the
/// udev monitor and discovery, and shown in the log and `--record` errors by `description`.
public enum SensorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No accelerometer orientationd would use (none at all, or none in the display).
    case noAccelerometer
    /// The configured selector (`--sensor`, `[sensor] device`) matches no accelerometer.
    case noConfiguredSensor(String)
    /// A reader or monitor thread could not be started (`pthread_create`'s error).
    case cannotStartThread(errno: Int32)
    /// libiio could not build its local context.
    case cannotCreateContext(errno: Int32)
    /// The device vanished between discovery and opening.
    case deviceGone(String)
    /// The device lacks a channel the plan needs.
    case missingChannel(device: String, channel: String)
    /// The device's buffer could not be opened (`EBUSY`: someone else reads it).
    case cannotOpenBuffer(device: String, errno: Int32)
    /// No data (buffered) or only zeros (polled) for `seconds`.
    case stalled(device: String, seconds: Double)
    /// A read failed with `errno`.
    case readFailed(device: String, errno: Int32)
    /// The system slept for `seconds` while the sensor was open: what the stream holds is from
    /// before, and some drivers stop delivering after a resume. The pipeline reopens at once.
    case resumedFromSuspend(device: String, seconds: Double)
    /// libudev could not be set up (discovery or the hotplug monitor).
    case udev(String)

    public var description: String {
        switch self {
        case .noAccelerometer: "no display accelerometer found (orientationd --list-sensors shows what there is)"
        case .noConfiguredSensor(let selector):
            "the configured sensor \(selector) is not there: no accelerometer matches it (orientationd --list-sensors shows what there is)"
        case .cannotStartThread(let code): "cannot start a thread: \(Self.text(code))"
        case .cannotCreateContext(let code): "cannot create a libiio context: \(Self.text(code))"
        case .deviceGone(let device): "\(device) is gone"
        case let .missingChannel(device, channel): "\(device) has no \(channel) channel"
        case let .cannotOpenBuffer(device, code): "cannot open the buffer of \(device): \(Self.text(code))"
        case let .stalled(device, seconds): "\(device) stalled: no data for \(seconds) s"
        case let .readFailed(device, code): "reading \(device) failed: \(Self.text(code))"
        case let .resumedFromSuspend(device, seconds):
            "the system slept \(Int(seconds.rounded())) s while \(device) was open; reopening it"
        case .udev(let message): message
        }
    }

    private static func text(_ code: Int32) -> String { String(cString: strerror(code)) }
}

extension SensorError: SensorStreamInterruption {
    public var reopensAtOnce: Bool {
        if case .resumedFromSuspend = self { return true }
        return false
    }
}

/// ``OwnerThreads/OwnerThread/run(name:_:)`` reports a thread it could not create as `.cannotStartThread`.
extension SensorError: ThreadStartFailing {}
