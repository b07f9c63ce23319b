import OrientationCore

/// A stretch of a recording during which the device was, by the ground-truth rules of
/// ``GroundTruth``, settled in one orientation.
///
/// Consecutive runs always differ in ``orientation``; each run is one *truth transition* (the
/// first one from no state at all), which the detector is expected to publish once.
public struct TruthRun: Hashable, Sendable {
    /// The orientation the device was settled in; never `unknown`.
    public var orientation: DeviceOrientation
    /// Time of the run's first labelled sample, seconds (the log's clock).
    public var start: Double
    /// Time of the run's last labelled sample, seconds.
    public var end: Double

    public init(orientation: DeviceOrientation, start: Double, end: Double) {
        self.orientation = orientation
        self.start = start
        self.end = end
    }

    /// `end − start`.
    public var duration: Double { end - start }
}
