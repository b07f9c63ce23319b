import NIOCore
import OrientationCore

extension TimeAmount {
    /// `seconds` as a `TimeAmount`, clamped (``SecondsConversion``) instead of trapping.
    static func clamped(seconds: Double) -> TimeAmount {
        .nanoseconds(SecondsConversion.nanoseconds(seconds))
    }
}
