import ConfigFileFormat
import OrientationCore

/// One named, documented tunable of ``PostureDetector/Configuration``: the single source of truth
/// for `--set`-style assignments, a future `[posture]` configuration section and the docs, in the
/// style of ``DetectorParameter``.
public struct PostureParameter: Sendable {
    /// The kind of value, which fixes the text syntax.
    public enum Kind: Hashable, Sendable {
        /// A plain decimal number.
        case number
        /// One word of a fixed list.
        case choice([String])
    }

    /// The parameter name, lower-case with dashes, e.g. `settle-time`.
    public let name: String
    /// The unit, for help text (`s`, `deg`, `m/s²`, `deg/s`), empty for a choice.
    public let unit: String
    /// One line of help.
    public let summary: String
    public let kind: Kind
    let get: @Sendable (PostureDetector.Configuration) -> String
    let set: @Sendable (inout PostureDetector.Configuration, String) -> Bool

    /// The current value in `configuration`, in the text syntax ``apply(_:to:)`` accepts.
    public func value(in configuration: PostureDetector.Configuration) -> String { get(configuration) }

    /// Parses `text` (blanks around it ignored) and stores it into `configuration`. Does not
    /// validate relations between fields: call ``PostureDetector/Configuration/validate()``
    /// after the last change.
    ///
    /// - Throws: ``ConfigurationError`` when the text is not of this parameter's syntax.
    public func apply(_ text: String, to configuration: inout PostureDetector.Configuration) throws(ConfigurationError) {
        guard set(&configuration, text.trimmingBlanks()) else {
            let expected = switch kind {
            case .number: "a number"
            case .choice(let words): "one of " + words.joined(separator: ", ")
            }
            throw ConfigurationError(field: name, message: "\"\(ControlCharacters.quoted(text))\" is not \(expected)")
        }
    }

    static func number(_ name: String, _ unit: String, _ summary: String,
                       _ keyPath: WritableKeyPath<PostureDetector.Configuration, Double> & Sendable) -> PostureParameter {
        PostureParameter(
            name: name, unit: unit, summary: summary, kind: .number,
            get: { formatParameter($0[keyPath: keyPath]) },
            set: { configuration, text in
                guard let value = ConfigNumber.decimal(text) else { return false }
                configuration[keyPath: keyPath] = value
                return true
            }
        )
    }

    static func hingeEdge(_ summary: String) -> PostureParameter {
        PostureParameter(
            name: "hinge-edge", unit: "", summary: summary, kind: .choice(HingeEdge.allCases.map(\.rawValue)),
            get: { $0.hingeEdge.rawValue },
            set: { configuration, text in
                guard let edge = HingeEdge(rawValue: text) else { return false }
                configuration.hingeEdge = edge
                return true
            }
        )
    }
}

extension PostureDetector.Configuration {
    /// Every parameter, in documentation order.
    public static let parameters: [PostureParameter] = [
        .hingeEdge("the display edge the hinge runs along (bottom on nearly every convertible)"),
        .number("hinge-vertical-margin", "deg", "the hinge angle is not trusted while the hinge axis is within this of vertical", \.hingeVerticalMargin),
        .number("track-vertical-margin", "deg", "the hinge's path is followed down to this angle from vertical", \.trackVerticalMargin),
        .number("closed-folded-band", "deg", "an angle within this of 0/360 is closed or folded back, told apart by path or lid switch", \.closedFoldedBand),
        .number("path-memory", "s", "how long the hinge's path is remembered without a usable angle", \.pathMemory),
        .number("hinge-speed", "deg/s", "the fastest a hinge turns: a farther step of the path is not followed", \.hingeSpeed),
        .number("closed-angle", "deg", "closed below this hinge angle", \.closedAngle),
        .number("flat-lower-angle", "deg", "laptop below this, flat from here", \.flatLowerAngle),
        .number("flat-upper-angle", "deg", "flat below this, tent or stand from here", \.flatUpperAngle),
        .number("tablet-angle", "deg", "tablet from this hinge angle up", \.tabletAngle),
        .number("hysteresis", "deg", "dead band around each posture boundary (half either side)", \.hysteresis),
        .number("tent-stand-tilt", "deg", "folded: hinge edge this far below horizontal is stand, above is tent", \.tentStandTilt),
        .number("filter-time-constant", "s", "low-pass time constant of each sensor's reading", \.filterTimeConstant),
        .number("gap-reset", "s", "a longer gap in one sensor's samples, or its time going backwards, restarts its filter", \.gapReset),
        .number("pairing-window", "s", "the two sensors are compared while the other's latest reading is at most this old", \.pairingWindow),
        .number("gravity", "m/s²", "standard gravity, the acceleration test's reference", \.gravity),
        .number("acceleration-tolerance", "m/s²", "a sensor off gravity by more than this is accelerating", \.accelerationTolerance),
        .number("turn-rate", "deg/s", "a sensor whose direction turns faster than this is moving", \.turnRate),
        .number("motion-holdoff", "s", "decisions wait this long after either sensor last moved", \.motionHoldoff),
        .number("settle-time", "s", "a new posture must persist this long on trusted samples", \.settleTime),
    ]

    /// The parameter called `name`, or `nil`.
    public static func parameter(named name: String) -> PostureParameter? {
        parameters.first { $0.name == name }
    }

    /// Applies `name=value` assignments in order, then validates the result.
    ///
    /// - Throws: ``ConfigurationError`` for an unknown name (suggesting the closest known one),
    ///   a value of the wrong syntax, or an invalid resulting configuration.
    public mutating func apply(_ assignments: [(name: String, value: String)]) throws(ConfigurationError) {
        for (name, value) in assignments {
            guard let parameter = Self.parameter(named: name) else {
                throw ConfigurationError(field: ControlCharacters.quoted(name), message: "unknown posture parameter\(Self.suggestion(for: name))")
            }
            try parameter.apply(value, to: &self)
        }
        try validate()
    }

    /// `"; did you mean 'settle-time'?"` for a near miss, else nothing more to say.
    static func suggestion(for name: String) -> String {
        // One near-miss rule for every name the configuration knows (``ConfigFile/nearest(_:among:)``).
        ConfigFile.nearest(name, among: parameters.map(\.name)).map { "; did you mean '\($0)'?" } ?? ""
    }
}
