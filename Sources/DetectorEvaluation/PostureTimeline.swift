import OrientationCore
import PostureCore

/// What a convertible's posture detector did over a recording, for the hinge and posture lanes
/// of a ``TimelinePlot`` (`orientationctl plot` of a log with a base accelerometer, issue 30).
///
/// One row per row of the log (each the detector's state after it), so a convertible's plot keeps
/// about 40 bytes per reading beside the orientation's thinned rows.
public struct PostureTimeline: Sendable {
    /// The posture detector's state after one reading.
    public struct Row: Sendable {
        public var time: Double
        /// The hinge angle the detector believes (``PostureDetector/hingeAngle``), 0…360, or
        /// `nil` while it is not known (no pair yet, or closed against folded back unresolved).
        public var hingeAngle: Double?
        /// The published posture.
        public var posture: Posture
        /// Why the detector is holding, or `nil`.
        public var hold: PostureHold?

        public init(time: Double, hingeAngle: Double?, posture: Posture, hold: PostureHold?) {
            self.time = time
            self.hingeAngle = hingeAngle
            self.posture = posture
            self.hold = hold
        }
    }

    public var rows: [Row]
    public var events: [PostureEvent]
    /// The configuration the detector ran with: its boundaries are the lane's guides.
    public var configuration: PostureDetector.Configuration

    public init(rows: [Row], events: [PostureEvent], configuration: PostureDetector.Configuration) {
        self.rows = rows
        self.events = events
        self.configuration = configuration
    }

    /// The colour of a posture in the posture lane.
    public static func colour(_ posture: Posture) -> String {
        switch posture {
        case .closed: "#79706e"
        case .laptop: "#4e79a7"
        case .flat: "#59a14f"
        case .tent: "#f28e2b"
        case .stand: "#b07aa1"
        case .tablet: "#e15759"
        case .unknown: "#bab0ac"
        }
    }
}
