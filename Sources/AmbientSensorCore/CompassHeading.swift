/// A compass heading from an IIO rotation channel: `(raw + offset) × scale` degrees, wrapped
/// into [0, 360) (HID sensors report 0–359 with a unit exponent that the kernel turns into the
/// scale; a negative or 360 reading from other drivers means the same direction).
public enum CompassHeading {
    public static func degrees(raw: Double, scale: Double, offset: Double = 0) -> Double? {
        let value = (raw + offset) * scale
        guard value.isFinite else { return nil }
        let wrapped = value.truncatingRemainder(dividingBy: 360)
        return wrapped < 0 ? wrapped + 360 : (wrapped == 360 ? 0 : wrapped)
    }
}
