/// Seconds (a `Double` from a log, a command line or a configuration) to the integer
/// nanoseconds that clocks and timers take, without trapping.
///
/// Swift traps on an overflowing conversion (`Duration.seconds(1e30)`, `Int64(1e30 * 1e9)`):
/// issue 9 crashed the daemon with a replay speed of 1e-30 and a log with a 10²¹ s gap. Every
/// seconds-to-nanoseconds conversion in this project goes through here: non-finite and negative
/// values become 0, huge ones ``maximum``. Options that take a duration still validate it first
/// and say what is wrong; this is the floor under them.
public enum SecondsConversion {
    /// The longest wait any conversion yields: 10⁹ s, about 31.7 years ("forever" for a daemon),
    /// far inside `Int64` nanoseconds (±292 years).
    public static let maximum = 1e9

    /// `seconds` clamped to `0...maximum` (NaN gives 0).
    public static func clamped(_ seconds: Double) -> Double {
        guard seconds > 0 else { return 0 }  // also NaN
        return min(seconds, maximum)
    }

    /// Whole nanoseconds of `seconds`, clamped as in ``clamped(_:)``.
    public static func nanoseconds(_ seconds: Double) -> Int64 {
        Int64((clamped(seconds) * 1e9).rounded())
    }
}

extension Duration {
    /// This duration in seconds, as a `Double` (attosecond parts included).
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }

    /// A duration of `seconds`, clamped as in ``SecondsConversion/clamped(_:)`` instead of
    /// trapping on a huge or non-finite value.
    public static func clampedSeconds(_ seconds: Double) -> Duration {
        .nanoseconds(SecondsConversion.nanoseconds(seconds))
    }
}
