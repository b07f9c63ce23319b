import CLibIIO
import Glibc
import OrientationCore
import OwnerThreads
import SensorDeviceAccess

extension IIOReadLoop {
    /// Drivers without a buffer (da280, da217…): read the raw attributes on a fixed clock, or
    /// less often while the consumer asks for it (``SampleRateGovernor``: the device lies still).
    func poll(_ owner: OwnerThread, accel: [Axis], gyro: [Axis], rate: Double) throws(SensorError) {
        let period = 1 / max(rate, 0.1)
        var suspend = SuspendWatch(clocks: clocks)
        var next = Self.monotonic()
        var lastGood = next
        var lastFailure: Int32? = nil
        // While still, a driver's motion event (if it arms) replaces the clock: no wake-up until
        // the device moves, or until the fallback reading.
        let motionEvent = IIOMotionEvent.find(for: plan)
        var armed: IIOMotionEvent.Armed? = nil
        var eventsUsable = motionEvent != nil
        /// Events in a row that came before `wait` without the device moving: an event that fires
        /// on noise (a threshold too low) would make the reader busier than the clock does.
        var idleEvents = 0
        defer { armed?.disarm() }
        // One array for every reading, in axis order (the accelerometer's, then the
        // gyroscope's): no allocation, no hashing per reading (a claimed daemon's resident memory
        // is the code its readings run, issue 28).
        let axes = accel + gyro
        var raw = [Double](repeating: 0, count: axes.count)
        // A consumer may ask for a long wait only because it can cut it short (the posture's
        // parked base, issue 37): the clock's sleep and the motion event's wait both end then.
        delivery.readerCanBeWoken { [owner] in owner.interruptSleep() }
        while !owner.isStopping {
            var ok = true
            for (index, axis) in axes.enumerated() {
                var value: Double = 0
                if let path = axis.rawPath {
                    guard let number = SysfsAttribute.number(path) else { ok = false; lastFailure = errno == 0 ? EINVAL : errno; break }
                    value = number
                } else {
                    let result = iio_channel_attr_read_double(axis.channel, "raw", &value)
                    if result != 0 { ok = false; lastFailure = -result; break }
                }
                raw[index] = value
            }
            let now = Self.monotonic()
            if let slept = suspend.sleptSinceLastCheck() {
                throw .resumedFromSuspend(device: plan.device, seconds: slept)
            }
            var wait: Double? = nil
            if ok {
                // A reading of exactly zero on every axis is no reading (a buffered device read
                // through attributes it never updates): it counts toward the stall.
                if raw[..<accel.count].contains(where: { $0 != 0 }) { lastGood = now }
                let a = vector(accel, raw, from: 0)
                let w: Vector3? = gyro.isEmpty ? nil : vector(gyro, raw, from: accel.count)
                wait = deliver(time: now, a, w)
            }
            if now - lastGood > plan.stallTimeout {
                // Reads that kept failing say why; zeros alone are a stall.
                if !ok, let lastFailure { throw .readFailed(device: plan.device, errno: lastFailure) }
                throw .stalled(device: plan.device, seconds: plan.stallTimeout)
            }
            if let wait, wait > period {
                if armed == nil, eventsUsable, let event = motionEvent {
                    armed = event.arm()
                    eventsUsable = armed != nil  // a refusal is not tried again on this open
                }
                if let event = armed {
                    let failed = !event.wait(owner, timeout: max(wait, IIOMotionEvent.fallbackInterval))
                    let waited = Self.monotonic() - now
                    // Woken to read now (not by the device): neither an idle event nor a motion.
                    if !owner.takeInterrupt() { idleEvents = waited < wait ? idleEvents + 1 : 0 }
                    if failed || idleEvents >= IIOMotionEvent.idleEventLimit {
                        event.disarm()
                        armed = nil
                        eventsUsable = false  // the clock from now on, for this open
                    }
                    // Read now (the device moved, or the fallback is due), but never faster
                    // than the full rate.
                    next = max(Self.monotonic(), now + period)
                } else {
                    next = now + wait  // the device lies still: one reading per `wait`
                }
            } else {
                if let event = armed {
                    event.disarm()
                    armed = nil
                }
                idleEvents = 0
                next += period
                if next < now { next = now }
            }
            owner.sleep(until: next)
        }
    }
}
