import CLinuxInput
import Glibc
import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorPipeline

/// What runs on an ``EvdevSensorSource``'s thread: the node's descriptor lives in its frame.
///
/// Reads `struct input_event`s (non-blocking, waiting in `poll` beside the owner's wake-up
/// pipe): `EV_ABS` `ABS_X`/`ABS_Y`/`ABS_Z` update the axes, `EV_SYN` `SYN_REPORT` delivers a
/// sample stamped with the event's own time (mapped onto the monotonic clock by
/// ``KernelClockMapper``; `EVIOCSCLOCKID` asks for monotonic stamps first). Events are
/// reassembled from partial reads. The initial values and the resolution come from
/// `EVIOCGABS` where it works; without them the first sample waits for all three axes, and
/// the stream fails as stalled if they have not all come within the stall timeout.
struct EvdevReadLoop: Sendable {
    let node: String
    let mountMatrix: MountMatrix
    let rate: Double
    let scale: Double?
    /// No values at all for this long (no `EVIOCGABS`, no event): the stream fails as stalled.
    let stallTimeout: Double
    let clocks: SystemClocks
    /// Where samples go: the pipeline's consumer on this thread, or the stream.
    let delivery: SampleDelivery

    /// 1 g in m/s², and iio-sensor-proxy's counts per g for an input accelerometer.
    static let standardGravity = 9.80665
    static let peerCountsPerG = 256.0

    func run(_ owner: OwnerThread) {
        delivery.finish { try read(owner) }
    }

    private func read(_ owner: OwnerThread) throws(SensorError) {
        let fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .readFailed(device: node, errno: errno) }
        defer { close(fd) }
        _ = od_input_set_clock(fd, CLOCK_MONOTONIC)
        var values: [Int32?] = [nil, nil, nil]
        var resolution: Int32 = 0
        for axis in 0..<3 {
            var info = input_absinfo()
            if od_input_absinfo(fd, UInt32(axis), &info) == 0 {
                values[axis] = info.value
                if axis == 0 { resolution = info.resolution }
            }
        }
        let perCount = scale ?? Self.standardGravity / (resolution > 0 ? Double(resolution) : Self.peerCountsPerG)
        var decoder = InputEventDecoder()
        var kernelClock = KernelClockMapper()
        var suspend = SuspendWatch(clocks: clocks)
        let period = 1 / max(rate, 0.1)
        /// How often a still device is repeated: `period`, or longer while the consumer asks
        /// (``SampleRateGovernor``); a change the driver reports is delivered at once either way.
        var repeatPeriod = period
        var lastTime = -Double.infinity
        var lastDelivery = Self.monotonic()

        func deliver(_ time: Double) {
            guard let x = values[0], let y = values[1], let z = values[2] else { return }
            let t = max(time, lastTime + 2e-6)
            lastTime = t
            lastDelivery = Self.monotonic()
            let raw = Vector3(Double(x) * perCount, Double(y) * perCount, Double(z) * perCount)
            let wait = delivery.deliver(Sample(time: t, acceleration: mountMatrix.apply(raw)))
            repeatPeriod = max(period, wait ?? 0)
        }

        deliver(Self.monotonic())  // the current values, where EVIOCGABS gave them
        let opened = Self.monotonic()
        while !owner.isStopping {
            if values.contains(where: { $0 == nil }), Self.monotonic() - opened > stallTimeout {
                throw .stalled(device: node, seconds: stallTimeout)
            }
            let wait = max(0, lastDelivery + repeatPeriod - Self.monotonic())
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: owner.wakeFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, Int32((wait * 1000).rounded(.up)))
            if owner.isStopping { return }
            if fds[1].revents != 0 { owner.drainWakeups() }
            if let slept = suspend.sleptSinceLastCheck() { throw .resumedFromSuspend(device: node, seconds: slept) }
            if ready < 0, errno != EINTR { throw .readFailed(device: node, errno: errno) }
            if fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0, fds[0].revents & Int16(POLLIN) == 0 {
                throw .deviceGone(node)
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                var events: [InputEventDecoder.Event] = []
                switch decoder.read(fd) {
                case .nothing: break
                case .endOfFile: throw .deviceGone(node)
                case .failed(let error): throw .readFailed(device: node, errno: error)
                case .events(let read): events = read
                }
                var reports: [(stamp: Double, values: [Int32?])] = []
                for event in events {
                    if event.type == UInt16(EV_ABS), event.code <= 2 {
                        values[Int(event.code)] = event.value
                    } else if event.type == UInt16(EV_SYN), event.code == UInt16(SYN_REPORT) {
                        reports.append((event.seconds, values))
                    } else if event.type == UInt16(EV_SYN), event.code == UInt16(SYN_DROPPED) {
                        // The kernel's queue overflowed: events were lost; ask for the state.
                        for axis in 0..<3 {
                            var info = input_absinfo()
                            if od_input_absinfo(fd, UInt32(axis), &info) == 0 { values[axis] = info.value }
                        }
                    }
                }
                if !reports.isEmpty {
                    let times = kernelClock.map(reports.map(\.stamp), arrival: Self.monotonic())
                    let latest = values
                    for (report, time) in zip(reports, times) {
                        values = report.values
                        deliver(time)
                    }
                    values = latest
                }
            } else if Self.monotonic() - lastDelivery >= repeatPeriod {
                // Nothing new: evdev reports only changes, so a still device is silent. Repeat
                // where it is.
                deliver(Self.monotonic())
            }
        }
    }

    static func monotonic() -> Double { OwnerThread.monotonic() }
}
