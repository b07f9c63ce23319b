import Glibc
import OrientationCore
import OwnerThreads

extension IIOReadLoop {
    /// Drivers without a buffer (da280, da217…): read the raw attributes on a fixed clock.
    func poll(_ owner: OwnerThread, accel: [Axis], gyro: [Axis], rate: Double) throws(IIOError) {
        let period = 1 / max(rate, 0.1)
        var suspend = SuspendWatch(clocks: clocks)
        var next = Self.monotonic()
        var lastGood = next
        var lastFailure: Int32? = nil
        while !owner.isStopping {
            var raw: [Axis: Double] = [:]
            var ok = true
            for axis in accel + gyro {
                guard let path = axis.rawPath else { ok = false; lastFailure = ENOENT; break }
                switch SysfsAttribute.readDouble(path) {
                case .success(let value): raw[axis] = value
                case .failure(let failure): ok = false; lastFailure = failure.code
                }
                if !ok { break }
            }
            let now = Self.monotonic()
            if let slept = suspend.sleptSinceLastCheck() {
                throw .resumedFromSuspend(device: plan.device, seconds: slept)
            }
            if ok {
                // A reading of exactly zero on every axis is no reading (a buffered device read
                // through attributes it never updates): it counts toward the stall.
                if accel.contains(where: { raw[$0]! != 0 }) { lastGood = now }
                let a = vector(accel) { raw[$0]! }
                let w: Vector3? = gyro.isEmpty ? nil : vector(gyro) { raw[$0]! }
                deliver(time: now, a, w)
            }
            if now - lastGood > plan.stallTimeout {
                // Reads that kept failing say why; zeros alone are a stall.
                if !ok, let lastFailure { throw .readFailed(device: plan.device, errno: lastFailure) }
                throw .stalled(device: plan.device, seconds: plan.stallTimeout)
            }
            next += period
            if next < now { next = now }
            owner.sleep(until: next)
        }
    }
}
