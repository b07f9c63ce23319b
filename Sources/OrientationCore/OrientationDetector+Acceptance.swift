extension OrientationDetector {
    /// Whether ``process(_:)`` takes `sample` into account: a finite time and acceleration, and
    /// an acceleration that is not exactly zero on every axis (a driver's "no reading"). Samples
    /// it does not take are only counted (``SampleCounts/ignoredNonFinite``,
    /// ``SampleCounts/ignoredZero``). The rule is ``SampleCounts/accepts(time:acceleration:)``,
    /// the posture detector's too. Depends on no configuration, so a tool can learn a log's
    /// time span without running the detector (`orientationctl plot`).
    public static func accepts(_ sample: Sample) -> Bool {
        SampleCounts.accepts(time: sample.time, acceleration: sample.acceleration)
    }
}
