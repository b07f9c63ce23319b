/// What a polled accelerometer's `sampling_frequency` should be raised to, if anything: pure
/// logic, applied through sysfs by ``PolledSamplingFrequency``.
///
/// Why: some polled drivers default to 1–6 Hz and wait for a fresh conversion before a `*_raw`
/// read returns, so every read blocks and the detector sees stale, slow data. iio-sensor-proxy
/// raises a `sampling_frequency` below 10 Hz (`iio_fixup_sampling_frequency`), choosing from
/// the driver's list as here (its 3.9 acceptance tests: 12 from `3 6 12 25 …`, 12.5 from
/// `800.000000 … 12.500000 6.250000 1.560000`).
///
/// Contract of ``choose(current:available:)``:
/// - `current` at or above ``minimum`` (or unreadable, `nil`): nothing to do (`nil`).
/// - Otherwise, with a `sampling_frequency_available` list (integers or decimals separated by
///   spaces, e.g. `1.5625 3.125 6.25 12.5 25`; ranges in brackets are not a list and count as
///   none): its smallest value at or above ``minimum``; when every listed value is below it,
///   the largest one (still an improvement), or `nil` if that is not above `current`.
/// - Without a list: ``minimum`` itself (the driver rounds or refuses; the reader reads back).
public enum SamplingFrequencyFloor {
    /// iio-sensor-proxy's `IIO_MIN_SAMPLING_FREQUENCY`, Hz.
    public static let minimum = 10.0

    /// The frequency to write, or `nil` to leave the driver as it is.
    public static func choose(current: Double?, available: String?) -> Double? {
        guard let current, current < minimum else { return nil }
        let listed = parse(available)
        guard !listed.isEmpty else { return minimum }
        if let enough = listed.filter({ $0 >= minimum }).min() { return enough }
        let best = listed.max()!
        return best > current ? best : nil
    }

    /// The numbers of a `sampling_frequency_available` text; empty for none, for a range
    /// (`[1 1 100]`) or for anything that does not parse.
    public static func parse(_ text: String?) -> [Double] {
        guard let text, !text.contains("[") else { return [] }
        var values: [Double] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\0" }) {
            guard let value = Double(word), value.isFinite, value > 0 else { return [] }
            values.append(value)
        }
        return values
    }

    /// The text to write for `value`: an integer without a fraction (`10`, not `10.0`; some
    /// drivers parse integers only), else the decimal (`12.5`).
    public static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
