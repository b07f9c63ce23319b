/// A stream error that is not a failure: the pipeline closes the sensor and, when
/// ``reopensAtOnce`` is true, opens it again at once, without backing off or publishing
/// `unknown` (a system resume: what the stream held is stale, the sensor itself is fine).
public protocol SensorStreamInterruption: Error {
    var reopensAtOnce: Bool { get }
}
