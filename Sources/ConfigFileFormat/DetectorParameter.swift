import OrientationCore

/// One named, documented tunable of ``OrientationDetector/Configuration``: the single source of
/// truth for the command line (`--set name=value`), the configuration file and the docs.
public struct DetectorParameter: Sendable {
    /// The kind of value, which fixes the text syntax.
    public enum Kind: Sendable {
        /// A plain decimal number.
        case number
        /// A tilt range, `lower..upper` in degrees.
        case tiltRange
    }

    /// The parameter name, lower-case with dashes, e.g. `settle-time`.
    public let name: String
    /// The unit, for help text (`s`, `deg`, `m/s²`, `deg/s`).
    public let unit: String
    /// One line of help.
    public let summary: String
    public let kind: Kind
    let get: @Sendable (OrientationDetector.Configuration) -> String
    let set: @Sendable (inout OrientationDetector.Configuration, String) -> Bool

    /// The current value in `configuration`, in the text syntax ``apply(_:to:)`` accepts.
    public func value(in configuration: OrientationDetector.Configuration) -> String { get(configuration) }

    /// Parses `text` and stores it into `configuration`. Does not validate relations between
    /// fields: call ``OrientationDetector/Configuration/validate()`` after the last change.
    ///
    /// The value may carry this parameter's unit as `parameters` and orientationd.conf(5) print
    /// it, with or without a blank (`45 deg`, `45deg`, `45°`, `0.1 s`, `100 ms`, `9.8 m/s²` or
    /// `m/s2`, `20 deg/s`, `-50..72 deg`; issue 27: the docs printed `dead-band = 45 deg` and the
    /// parser refused it). Another known unit is refused by name.
    ///
    /// - Throws: ``ConfigurationError`` when the text is not of this parameter's syntax.
    public func apply(_ text: String, to configuration: inout OrientationDetector.Configuration) throws(ConfigurationError) {
        var value = text.trimmingBlanks()
        if let (unit, rest) = Self.unitSuffix(of: value) {
            guard let scale = Self.scale(of: unit, in: self.unit) else {
                throw ConfigurationError(field: name, message: "\"\(ControlCharacters.quoted(text))\": \(name) is in \(self.unit), not \(unit)")
            }
            if scale != 1, kind == .number, let number = Double(rest), number.isFinite {
                value = "\(number * scale)"
            } else {
                value = rest
            }
        }
        guard set(&configuration, value) else {
            let expected = kind == .number ? "a number (in \(unit), such as \(example))" : "a tilt range such as \(example)"
            throw ConfigurationError(field: name, message: "\"\(ControlCharacters.quoted(text))\" is not \(expected)")
        }
    }

    /// `45 deg`, `0.1 s`: the value syntax with the unit, for messages.
    var example: String {
        guard kind == .number else { return "-50..72 or -50..72 deg" }
        let number = ["s": "0.2", "m/s²": "9.8", "deg/s": "20"][unit] ?? "45"
        return "\(number) or \(number) \(unit)"
    }

    /// Units a value may be written in, longest first (so `deg/s` is not read as `s`), each
    /// with the parameter unit it fits and the factor into it.
    static let units: [(text: String, unit: String, factor: Double)] = [
        ("deg/s", "deg/s", 1), ("°/s", "deg/s", 1), ("m/s²", "m/s²", 1), ("m/s2", "m/s²", 1),
        ("deg", "deg", 1), ("ms", "s", 0.001), ("°", "deg", 1), ("s", "s", 1),
    ]

    /// The unit at the end of `text` and the text before it, trimmed; `nil` without one.
    static func unitSuffix(of text: String) -> (unit: String, rest: String)? {
        for candidate in units where text.hasSuffix(candidate.text) {
            let rest = String(text.dropLast(candidate.text.count)).trimmingBlanks()
            // A unit follows a number (or a range's upper bound): "45deg", "-50..72 deg".
            guard let last = rest.last, last.isNumber || last == "." else { return nil }
            return (candidate.text, rest)
        }
        return nil
    }

    /// The factor taking a value written in `written` into `unit`, or `nil` when they differ.
    static func scale(of written: String, in unit: String) -> Double? {
        units.first { $0.text == written && $0.unit == unit }?.factor
    }

    static func number(_ name: String, _ unit: String, _ summary: String,
                       _ keyPath: WritableKeyPath<OrientationDetector.Configuration, Double> & Sendable) -> DetectorParameter {
        DetectorParameter(
            name: name, unit: unit, summary: summary, kind: .number,
            get: { TiltRange.format($0[keyPath: keyPath]) },
            set: { configuration, text in
                guard let value = ConfigNumber.decimal(text) else { return false }
                configuration[keyPath: keyPath] = value
                return true
            }
        )
    }

    static func tilt(_ name: String, _ summary: String,
                     _ keyPath: WritableKeyPath<OrientationDetector.Configuration, TiltRange> & Sendable) -> DetectorParameter {
        DetectorParameter(
            name: name, unit: "deg", summary: summary, kind: .tiltRange,
            get: { $0[keyPath: keyPath].description },
            set: { configuration, text in
                guard let range = TiltRange(parsing: text) else { return false }
                configuration[keyPath: keyPath] = range
                return true
            }
        )
    }
}

extension OrientationDetector.Configuration {
    /// Every parameter, in documentation order.
    public static let parameters: [DetectorParameter] = [
        .number("filter-time-constant", "s", "low-pass time constant for the gravity estimate without a gyroscope", \.filterTimeConstant),
        .number("fast-filter-time-constant", "s", "time constant of the fast filter (gates; decisions with a gyroscope)", \.fastFilterTimeConstant),
        .number("gap-reset", "s", "a longer gap between samples, or time going backwards, restarts the filters", \.gapReset),
        .number("dead-band", "deg", "hysteresis between adjacent orientations: leaving needs 45 + dead-band/2 degrees", \.deadBand),
        .number("diagonal-exclusion", "deg", "a new in-plane orientation is entered only within 45 − half this of its edge", \.diagonalExclusion),
        .number("steep-tilt", "deg", "beyond this tilt from upright the in-plane direction is weak and steep-dead-band applies", \.steepTilt),
        .number("steep-dead-band", "deg", "dead-band beyond steep-tilt: leaving needs 45 + steep-dead-band/2 degrees", \.steepDeadBand),
        .tilt("portrait-tilt", "tilts at which portrait may be entered or kept", \.portraitTilt),
        .tilt("portrait-upside-down-tilt", "tilts at which portrait-upside-down may be entered or kept", \.portraitUpsideDownTilt),
        .tilt("landscape-left-tilt", "tilts at which landscape-left may be entered or kept", \.landscapeLeftTilt),
        .tilt("landscape-right-tilt", "tilts at which landscape-right may be entered or kept", \.landscapeRightTilt),
        .number("screen-down-still-tilt", "deg", "screen-down beyond this, in-plane changes only while still", \.screenDownStillTilt),
        .number("face-up-enter-tilt", "deg", "tilt at or above which face-up is entered", \.faceUpEnterTilt),
        .number("face-up-exit-tilt", "deg", "tilt below which face-up is left", \.faceUpExitTilt),
        .number("face-down-enter-tilt", "deg", "tilt magnitude (screen down) at or above which face-down is entered", \.faceDownEnterTilt),
        .number("face-down-exit-tilt", "deg", "tilt magnitude below which face-down is left", \.faceDownExitTilt),
        .number("motion-window", "s", "how far back the motion measure (spread of gravity's direction) looks", \.motionWindow),
        .number("still-angle", "deg", "spread below this is still: decide on the fast filter", \.stillAngle),
        .number("still-settle-time", "s", "while still, how long a candidate (and a quiet gyroscope) must persist", \.stillSettleTime),
        .number("swing-angle", "deg", "spread at or above this is swinging: hold changes", \.swingAngle),
        .number("swing-holdoff", "s", "changes wait this long after swinging ends", \.swingHoldoff),
        .number("settle-time", "s", "while moving gently, how long a slow-filter candidate must persist", \.settleTime),
        .number("recede-angle", "deg", "a change waits while the fast estimate heads back toward the published orientation by more than this (180: off)", \.recedeAngle),
        .number("arrive-angle", "deg", "while moving, an in-plane change need not wait for steadiness once the device pitches toward upright within it by at least this for settle-time (180: off)", \.arriveAngle),
        .number("steady-angle", "deg", "while moving, changes wait until the slow estimate stays within this…", \.steadyAngle),
        .number("steady-window", "s", "…over this long (no orientation published in passing)", \.steadyWindow),
        .number("gravity", "m/s²", "standard gravity, the acceleration gate's reference", \.gravity),
        .number("acceleration-tolerance", "m/s²", "the acceleration gate opens when |a| differs from gravity by more", \.accelerationTolerance),
        .number("acceleration-holdoff", "s", "while moving, changes wait this long after the acceleration gate closes", \.accelerationHoldoff),
        .number("minimum-magnitude", "m/s²", "no candidate while |a| is below this (free fall, zeroed sensor)", \.minimumMagnitude),
        .number("after-flat-holdoff", "s", "while moving, in-plane changes wait this long after the device last lay flat", \.afterFlatHoldoff),
        .number("accel-quiet-rate", "deg/s", "without a gyroscope, also still once the fast direction turns slower than this (0: off)", \.accelQuietRate),
        .number("gyro-hold-rate", "deg/s", "hold changes while gravity's direction turns at least this fast (gyroscope)", \.gyroHoldRate),
        .number("gyro-quiet-rate", "deg/s", "with a gyroscope, still once that rate stays below this", \.gyroQuietRate),
        .number("gyro-hold-limit", "s", "the longest gyroscope turning may hold a candidate or an episode hold changes", \.gyroHoldLimit),
        .number("gyro-timeout", "s", "the gyroscope counts as present while its last reading is at most this old", \.gyroTimeout),
    ]

    /// The parameter called `name`, or `nil`.
    public static func parameter(named name: String) -> DetectorParameter? {
        parameters.first { $0.name == name }
    }

    /// Applies `name=value` assignments in order, then validates the result.
    ///
    /// - Throws: ``ConfigurationError`` for an unknown name (suggesting the closest known one),
    ///   a value of the wrong syntax, or an invalid resulting configuration.
    public mutating func apply(_ assignments: [(name: String, value: String)]) throws(ConfigurationError) {
        for (name, value) in assignments {
            guard let parameter = Self.parameter(named: name) else {
                throw ConfigurationError(field: ControlCharacters.quoted(name), message: "unknown detector parameter\(Self.suggestion(for: name))")
            }
            try parameter.apply(value, to: &self)
        }
        try validate()
    }

    /// Applies `--set` arguments, each `name=value` (blanks around the name and the value are
    /// ignored), then validates: the one parser behind every command line that takes them.
    ///
    /// - Throws: ``ConfigurationError``, also for an argument without `=`.
    public mutating func apply(assignments: [String]) throws(ConfigurationError) {
        var pairs: [(name: String, value: String)] = []
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "=") else {
                throw ConfigurationError(field: ControlCharacters.quoted(assignment), message: "expected name=value, such as settle-time=0.2")
            }
            pairs.append((String(assignment[..<equals]).trimmingBlanks(), String(assignment[assignment.index(after: equals)...]).trimmingBlanks()))
        }
        try apply(pairs)
    }

    /// `"; did you mean 'settle-time'?"` for a near miss, else a pointer to the list.
    static func suggestion(for name: String) -> String {
        // A name far longer than every parameter's is no near miss; and the edit distance is
        // O(length²) in time (issue 18: a 1 MB unknown key cost 6 s of CPU on reload).
        guard name.utf8.count <= 64 else { return " (orientationctl parameters lists them)" }
        let best = parameters.map { ($0.name, editDistance($0.name, name)) }.min { $0.1 < $1.1 }
        if let (candidate, distance) = best, distance <= max(2, name.count / 3) {
            return "; did you mean '\(candidate)'?"
        }
        return " (orientationctl parameters lists them)"
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
