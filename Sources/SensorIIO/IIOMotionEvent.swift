import CLinuxInput
import Glibc
import OwnerThreads

/// A driver's "the device moved" interrupt (issue 28): while the device lies still, a polled
/// reader arms it and blocks on the device's event descriptor instead of reading on a clock, so
/// a still device costs no wake-up at all until it moves (or until ``fallbackInterval``).
///
/// Which events mean motion, by the kernel's ABI names (Documentation/ABI/testing/sysfs-bus-iio):
/// rate of change (`roc`: bmc150's slope, "any motion"), magnitude after a high-pass (`mag`,
/// `mag_adaptive`: mma8452's transient), rising or either direction, per axis or shared; and the
/// shared `in_accel_thresh_either_en` (kxcjk-1013's wake-up engine). Not an absolute threshold
/// per axis (`in_accel_x_thresh_rising_en` fires on gravity alone) and not a falling one (free
/// fall). The driver's own threshold and period are kept.
///
/// A slow tilt below the driver's threshold raises no event: the reader still takes one reading
/// every ``fallbackInterval``, so it is noticed within that time.
///
/// Used on the reader's thread only: the descriptors belong to it.
public struct IIOMotionEvent: Sendable, Hashable {
    /// The `events/…_en` files: 1 arms, 0 disarms.
    public let enableFiles: [String]
    /// The device's character device, `/dev/iio:deviceN`.
    public let node: String

    /// How long an armed reader waits for an event before it reads anyway.
    public static let fallbackInterval = 2.0
    /// Events in a row, each sooner than the still interval and none showing motion, after
    /// which the reader stops using the event (it fires on noise) and reads on its clock.
    public static let idleEventLimit = 5

    /// Whether an `events/` file name enables a motion event (see the type's documentation).
    public static func isMotion(_ name: String) -> Bool {
        guard name.hasPrefix("in_accel_"), name.hasSuffix("_en") else { return false }
        if name == "in_accel_thresh_either_en" { return true }
        for type in ["roc", "mag", "mag_adaptive"] {
            for direction in ["rising", "either"] where name.hasSuffix("_\(type)_\(direction)_en") {
                // `in_accel_x_mag_adaptive_rising_en` also ends in `_adaptive_rising_en`, never in
                // `_mag_rising_en`: the suffixes do not overlap.
                return true
            }
        }
        return false
    }

    /// The motion event a polled `plan` reads while the device lies still
    /// (``IIOReadPlan/watchesMotionEvents``), from the device's sysfs directory; `nil` without.
    public static func find(for plan: IIOReadPlan) -> IIOMotionEvent? {
        guard plan.watchesMotionEvents, let directory = plan.sysfsPath else { return nil }
        return find(sysfsPath: directory, node: "/dev/" + plan.device)
    }

    /// The device's motion events, from its sysfs directory; `nil` without any.
    public static func find(sysfsPath: String, node: String) -> IIOMotionEvent? {
        guard let directory = opendir(sysfsPath + "/events") else { return nil }
        defer { closedir(directory) }
        var files: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if isMotion(name) { files.append(sysfsPath + "/events/" + name) }
        }
        return files.isEmpty ? nil : IIOMotionEvent(enableFiles: files.sorted(), node: node)
    }

    /// The armed event: the device's descriptor and its event descriptor, on the reader's thread.
    struct Armed {
        let event: IIOMotionEvent
        let deviceFD: Int32
        let eventFD: Int32

        /// Waits for an event, the owner's wake-up, or `timeout` seconds; drains what came.
        /// Returns false when the descriptor failed (the caller disarms and polls on a clock).
        func wait(_ owner: OwnerThread, timeout: Double) -> Bool {
            var fds = [pollfd(fd: eventFD, events: Int16(POLLIN), revents: 0), pollfd(fd: owner.wakeFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, Int32(min(timeout * 1000, 60_000).rounded(.up)))
            if ready < 0 { return errno == EINTR }
            if fds[1].revents != 0 { owner.drainWakeups() }
            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return false }
            if fds[0].revents & Int16(POLLIN) != 0 {
                // The event itself says nothing the next reading does not: drain and read.
                var record = [UInt8](repeating: 0, count: Int(od_iio_event_size()) * 16)
                while Glibc.read(eventFD, &record, record.count) > 0 {}
            }
            return true
        }

        func disarm() {
            for file in event.enableFiles { _ = SysfsAttribute.write(file, "0") }
            close(eventFD)
            close(deviceFD)
        }
    }

    /// Enables the events and opens the event descriptor; `nil` (everything undone) when any step
    /// fails: the driver refuses, the node is missing, or it is no IIO device (a test's PTY).
    func arm() -> Armed? {
        let deviceFD = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard deviceFD >= 0 else { return nil }
        let eventFD = od_iio_event_fd(deviceFD)
        guard eventFD >= 0 else {
            close(deviceFD)
            return nil
        }
        _ = fcntl(eventFD, F_SETFL, fcntl(eventFD, F_GETFL) | O_NONBLOCK)
        let armed = Armed(event: self, deviceFD: deviceFD, eventFD: eventFD)
        guard enableFiles.allSatisfy({ SysfsAttribute.write($0, "1") }) else {
            armed.disarm()
            return nil
        }
        return armed
    }
}
