/// The hardware rate a buffered accelerometer runs at while it lies still (issue 37): pure logic,
/// applied by the buffered reader (IIOReadLoop+Buffered.swift).
///
/// Why: while still the reader only needs a batch of samples every `wait` seconds
/// (``SampleRateGovernor``). Reading less often leaves the sensor, and for a HID sensor the hub
/// and the kernel that take every sample into the buffer, running at full rate for nothing.
/// Lowering `sampling_frequency` instead keeps the buffer (and its watermark) as it is: the
/// samples queued when a turn begins are never dropped, and the first moving batch brings the
/// full rate back.
///
/// Contract of ``choose(moving:batch:wait:available:)``:
/// - The rate wanted is the one at which `batch` samples take `wait`: one wake-up per wait, the
///   same as a batch that long at the moving rate; never lower (a turn's start then arrives
///   within one wait, as before).
/// - With a `sampling_frequency_available` list (``SamplingFrequencyFloor/parse(_:)``): its
///   smallest value at or above the wanted rate, if that is below `moving`; else `nil` (nothing
///   lower to go to).
/// - Without a list, or with a range (HID sensors take any interval): the wanted rate itself, when below
///   `moving`; the reader reads back what the driver took and keeps it only if it is below
///   `moving` and not below the wanted rate (``accepts(_:moving:batch:wait:)``).
public enum StillSamplingFrequency {
    /// The rate to set while still, or `nil` to leave the hardware as it is.
    public static func choose(moving: Double, batch: Int, wait: Double, available: String?) -> Double? {
        guard moving.isFinite, moving > 0, wait.isFinite, wait > 0, batch > 0 else { return nil }
        let wanted = Double(batch) / wait
        let listed = SamplingFrequencyFloor.parse(available)
        if listed.isEmpty { return wanted < moving * 0.95 ? wanted : nil }
        guard let enough = listed.filter({ $0 >= wanted * 0.999 }).min(), enough < moving * 0.95 else { return nil }
        return enough
    }

    /// Whether the rate a driver reports after the write (`reported`) is one to keep while
    /// still: lower than `moving`, and not so low that a batch takes longer than `wait`.
    public static func accepts(_ reported: Double, moving: Double, batch: Int, wait: Double) -> Bool {
        reported.isFinite && reported > 0 && reported < moving * 0.95 && Double(batch) / reported <= wait * 1.05
    }
}
