import OwnerThreads

/// How a backend reads one light, proximity or compass sensor (``SensorBackend/auxiliaryRead(_:)``),
/// on the sensor's reader thread (``AuxiliarySensorReader``).
public enum AuxiliaryRead {
    /// A value read on the reader's clock, every ``AuxiliarySensorDescription/pollPeriod``
    /// seconds, the first at once; three failures in a row end the reader.
    case everyPeriod(() -> Result<Double, AuxiliaryReadFailure>)
    /// The sensor wakes the thread itself (a buffer, an input device's events): the closure
    /// reads until the owner thread stops (its `wakeFD` becomes readable) and returns why it
    /// failed, or `nil` when stopped. Values go to the given closure.
    case wakesItself((OwnerThread, (Double) -> Void) -> String?)
}

/// Why one read of an auxiliary sensor failed.
public struct AuxiliaryReadFailure: Error, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
