import ArgumentParser
import ConfigFileFormat
import OrientationCore

/// `evaluate --sweep NAME=A..B[:N]` (issue 41): one numeric detector parameter and the values to
/// score it at — `N` evenly spaced values from `A` to `B` (both included, 6 unless given), plus
/// the parameter's current value (its default, or what `--set`/`--config` made it) when that lies
/// within the range and is not already one of them, so the table always shows where the
/// configuration in use sits on the curve.
struct ParameterSweep: Equatable {
    /// The parameter's name, e.g. `settle-time`.
    let name: String
    /// The values to score, ascending.
    let values: [Double]
    /// The value in use before the sweep (the row every other is compared with).
    let current: Double

    /// The most values one sweep scores (each runs every log once).
    static let maximumSteps = 50

    /// Parses `text` against `configuration` (whose value of the parameter is the reference).
    ///
    /// - Throws: `ValidationError` (a usage error) naming what is wrong: no `=`, an unknown or non-numeric parameter, a
    ///   range that is not `A..B` with finite `A < B`, or steps outside 2…``maximumSteps``.
    init(parsing text: String, configuration: OrientationDetector.Configuration) throws {
        guard let equals = text.firstIndex(of: "=") else {
            throw ValidationError("--sweep expects NAME=A..B or NAME=A..B:STEPS, e.g. settle-time=0.05..0.3; got \"\(ControlCharacters.quoted(text))\"")
        }
        let name = text[..<equals].trimmingBlanks()
        guard let parameter = OrientationDetector.Configuration.parameter(named: name) else {
            throw ValidationError("--sweep: unknown detector parameter \"\(ControlCharacters.quoted(name))\" (`orientationctl parameters` lists them)")
        }
        guard parameter.kind == .number, let current = Double(parameter.value(in: configuration)) else {
            throw ValidationError("--sweep: \(name) is a tilt range; only a numeric parameter can be swept")
        }
        var range = text[text.index(after: equals)...].trimmingBlanks()
        var steps = 6
        if let colon = range.lastIndex(of: ":") {
            guard let n = Int(range[range.index(after: colon)...].trimmingBlanks()), n >= 2, n <= Self.maximumSteps else {
                throw ValidationError("--sweep: the number of values after ':' must be 2 to \(Self.maximumSteps); got \"\(ControlCharacters.quoted(text))\"")
            }
            steps = n
            range = String(range[..<colon]).trimmingBlanks()
        }
        let bounds = range.components(separatedBy: "..")
        guard bounds.count == 2, let low = Double(bounds[0].trimmingBlanks()), let high = Double(bounds[1].trimmingBlanks()),
              low.isFinite, high.isFinite, low < high else {
            throw ValidationError("--sweep: the range of \(name) must be A..B with A < B, in \(parameter.unit); got \"\(ControlCharacters.quoted(text))\"")
        }
        var values = (0..<steps).map { low + (high - low) * Double($0) / Double(steps - 1) }
        // Rounded to 1e-9 (a nanosecond, a billionth of a degree) so 0.05 + 0.05·k is the
        // double written 0.1, 0.15…: a correctly rounded division of an integer.
        values = values.map { ($0 * 1e9).rounded() / 1e9 }
        let grain = (high - low) * 1e-6
        if current >= low, current <= high, !values.contains(where: { abs($0 - current) <= grain }) {
            values.append(current)
            values.sort()
        }
        self.name = name
        self.values = values
        self.current = current
    }

    /// True for the value in use.
    func isCurrent(_ value: Double) -> Bool {
        abs(value - current) <= (values.last! - values.first!) * 1e-6
    }

    /// The value as `--set` takes it: up to 6 significant decimals, no trailing zeros.
    static func text(_ value: Double) -> String {
        var s = EventFormat.fixed(value, decimals: 6)
        while s.contains("."), s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }
}
