/// A closed range of tilt angles in degrees, `lower...upper`, within −90…90.
///
/// Tilt is the angle between the screen plane and the horizontal: +90° lying flat face-up, 0°
/// standing upright, −90° lying flat face-down. The text form is `lower..upper`, e.g. `-50..72`.
public struct TiltRange: Hashable, Sendable, CustomStringConvertible {
    public var lower: Double
    public var upper: Double

    public init(_ lower: Double, _ upper: Double) {
        self.lower = lower
        self.upper = upper
    }

    /// Parses `lower..upper` (blank space allowed around each number).
    public init?(parsing text: some StringProtocol) {
        // Find the ".." separator rather than splitting on dots: bounds may have decimals.
        let s = String(text)
        guard let range = s.range(of: "..") else { return nil }
        let lowerText = s[s.startIndex..<range.lowerBound].trimmingBlanks()
        let upperText = s[range.upperBound...].trimmingBlanks()
        guard let lower = Double(lowerText), let upper = Double(upperText),
              lower.isFinite, upper.isFinite else { return nil }
        self.init(lower, upper)
    }

    @inlinable
    public func contains(_ tilt: Double) -> Bool { tilt >= lower && tilt <= upper }

    public var description: String { "\(Self.format(lower))..\(Self.format(upper))" }

    package static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : "\(v)"
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (what the configuration file, the
    /// command line and CSV cells allow around a value).
    public func trimmingBlanks() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}

extension String {
    fileprivate func range(of needle: String) -> Range<String.Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(needle) {
                return index..<self.index(index, offsetBy: needle.count)
            }
            index = self.index(after: index)
        }
        return nil
    }
}
