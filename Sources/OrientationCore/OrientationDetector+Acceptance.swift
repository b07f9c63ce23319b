extension OrientationDetector {
    /// Whether ``process(_:)`` takes `sample` into account: a finite time and acceleration, and
    /// an acceleration that is not exactly zero on every axis (a driver's "no reading"). Samples
    /// it does not take are only counted (``Statistics/ignoredNonFinite``,
    /// ``Statistics/ignoredZero``). Depends on no configuration, so a tool can learn a log's
    /// time span without running the detector (`orientationctl plot`).
    public static func accepts(_ sample: Sample) -> Bool {
        let a = sample.acceleration
        return a.isFinite && sample.time.isFinite && (a.x != 0 || a.y != 0 || a.z != 0)
    }
}
