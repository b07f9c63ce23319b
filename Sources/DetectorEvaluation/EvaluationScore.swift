import OrientationCore

/// The detector's events on one recording, scored against its ``GroundTruth``: what
/// `orientationctl evaluate` prints (docs/DETECTOR.md, "Scoring against the recording").
///
/// Rules, applied to the events in time order:
/// 1. `unknown` events are ignored and consecutive events naming the same orientation collapse
///    into the first.
/// 2. An event *matches* truth run `i` (a transition) when it names that run's orientation and
///    lands in `[max(run[i−1].start, run[i−1].end − 0.5 s), run[i].end]` (for the first run, from
///    the start). Each transition takes the earliest such event still unmatched; each event
///    matches at most one transition. Latency is the event's time minus the run's start.
///    A run left without an event is *missed*, unless the detector already showed its state
///    before the run began and published no event inside it (the last event before the run's
///    start names the run's orientation, and none lands in `[run.start, run.end]`): such a run
///    is *already shown* (``shownRuns``), needs no event and is not a transition. The return
///    to a state the detector never left, after a short hold it ignored, is not missed twice.
/// 3. Unmatched events are *spurious*, except ("excused"):
///    - events in the log's last ``finalGrace`` (0.5 s);
///    - events that last at least ``ambiguousMinimumDuration`` (1 s: the next event comes that
///      much later, or never) when, within ``ambiguousWindow`` (0.5 s) of the event, the
///      low-passed tilt was between the in-plane and the face limits (55°–75°) and the event
///      names the face state on that side, the last in-plane state whose run started before
///      the event, or the in-plane state the direction pointed to then: leaning back while
///      reading may keep portrait or call it face-up, and neither is wrong.
public struct EvaluationScore: Hashable, Sendable {
    /// Events in the log's last this many seconds are never spurious.
    public static let finalGrace = 0.5
    /// An event may be matched this long before the previous run ends.
    public static let earlyTolerance = 0.5
    /// An ambiguous-tilt event must last this long to be excused.
    public static let ambiguousMinimumDuration = 1.0
    /// How far from an event the ambiguous tilt is looked for, seconds either side.
    public static let ambiguousWindow = 0.5

    /// A truth transition and the event that matched it.
    public struct Match: Hashable, Sendable {
        public var run: TruthRun
        public var event: OrientationEvent
        /// `event.time − run.start`; negative when the event came before the run began.
        public var latency: Double { event.time - run.start }
    }

    /// Why an unmatched event was not counted as spurious.
    public enum Excuse: String, Hashable, Sendable {
        /// In the log's last 0.5 s.
        case endOfLog = "end of log"
        /// A lasting decision made at an ambiguous tilt (55°–75°).
        case ambiguousTilt = "ambiguous tilt"
    }

    /// Truth transitions: runs that needed an event (every run but the ``shownRuns``).
    public var transitions: Int { matches.count + missedRuns.count }
    /// Runs whose state the detector already showed before they began, with no event inside.
    public var alreadyShown: Int { shownRuns.count }
    /// Transitions with a matching event.
    public var matched: Int { matches.count }
    /// Transitions without one.
    public var missed: Int { missedRuns.count }
    /// Unmatched, unexcused events.
    public var spurious: Int { spuriousEvents.count }

    /// Every match, in time order.
    public var matches: [Match]
    /// Truth runs no event matched (and not already shown).
    public var missedRuns: [TruthRun]
    /// Truth runs no event matched whose state the detector already showed before they began,
    /// with no event inside them: they need no event.
    public var shownRuns: [TruthRun]
    /// Events counted as spurious.
    public var spuriousEvents: [OrientationEvent]
    /// Unmatched events that were excused, with the reason.
    public var excusedEvents: [(event: OrientationEvent, excuse: Excuse)] { zip(excused, excuses).map { ($0, $1) } }
    /// The excused events and, at the same index, their excuses.
    public private(set) var excused: [OrientationEvent]
    public private(set) var excuses: [Excuse]

    /// Latencies of the matches, seconds, in time order.
    public var latencies: [Double] { matches.map(\.latency) }

    /// An empty score (the identity of ``+``).
    public init() {
        matches = []
        missedRuns = []
        shownRuns = []
        spuriousEvents = []
        excused = []
        excuses = []
    }

    /// Scores `events` (as published, in time order) against `truth`.
    public init(events: [OrientationEvent], truth: GroundTruth) {
        self.init()
        // Rule 1.
        var collapsed: [OrientationEvent] = []
        for event in events where event.orientation != .unknown {
            if collapsed.last?.orientation != event.orientation { collapsed.append(event) }
        }

        // Rule 2.
        var taken = [Bool](repeating: false, count: collapsed.count)
        let runs = truth.runs
        for (i, run) in runs.enumerated() {
            let from = i == 0 ? -Double.infinity : max(runs[i - 1].start, runs[i - 1].end - Self.earlyTolerance)
            if let k = collapsed.indices.first(where: { k in
                !taken[k] && collapsed[k].orientation == run.orientation
                    && collapsed[k].time >= from && collapsed[k].time <= run.end
            }) {
                taken[k] = true
                matches.append(Match(run: run, event: collapsed[k]))
            } else if Self.isAlreadyShown(run, events: collapsed) {
                shownRuns.append(run)
            } else {
                missedRuns.append(run)
            }
        }

        // Rule 3.
        let logEnd = truth.points.last?.time ?? -Double.infinity
        for (k, event) in collapsed.enumerated() where !taken[k] {
            if event.time >= logEnd - Self.finalGrace {
                excused.append(event)
                excuses.append(.endOfLog)
            } else if Self.isAmbiguousButLasting(event, next: k + 1 < collapsed.count ? collapsed[k + 1] : nil, truth: truth) {
                excused.append(event)
                excuses.append(.ambiguousTilt)
            } else {
                spuriousEvents.append(event)
            }
        }
    }

    /// The exception of rule 2: the last event before `run` begins names its orientation and no
    /// event lands inside it.
    static func isAlreadyShown(_ run: TruthRun, events: [OrientationEvent]) -> Bool {
        guard let before = events.last(where: { $0.time < run.start }), before.orientation == run.orientation else { return false }
        return !events.contains { $0.time >= run.start && $0.time <= run.end }
    }

    /// The second exception of rule 3.
    static func isAmbiguousButLasting(_ event: OrientationEvent, next: OrientationEvent?, truth: GroundTruth) -> Bool {
        if let next, next.time - event.time < ambiguousMinimumDuration { return false }
        let lastInPlane = truth.runs.last { $0.start < event.time && $0.orientation.quarterTurns != nil }?.orientation
        let points = truth.points
        // First point within the window (points are in time order).
        var low = 0, high = points.count
        while low < high {
            let mid = (low + high) / 2
            if points[mid].time < event.time - ambiguousWindow { low = mid + 1 } else { high = mid }
        }
        var k = low
        while k < points.count, points[k].time <= event.time + ambiguousWindow {
            let p = points[k]
            k += 1
            let steepness = abs(p.tilt)
            guard steepness >= GroundTruth.inPlaneTilt, steepness <= GroundTruth.faceTilt else { continue }
            let face: DeviceOrientation = p.tilt > 0 ? .faceUp : .faceDown
            if event.orientation == face || event.orientation == lastInPlane
                || event.orientation == GroundTruth.nearestInPlane(angle: p.angle) {
                return true
            }
        }
        return false
    }

    /// The median latency of the matches, or `nil` without matches.
    public var latencyMedian: Double? { Self.median(latencies) }
    /// The largest latency, or `nil` without matches.
    public var latencyMax: Double? { latencies.max() }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// Two scores pooled: counts add, latencies pool (the total over several logs).
    public static func + (a: EvaluationScore, b: EvaluationScore) -> EvaluationScore {
        var sum = a
        sum.matches += b.matches
        sum.missedRuns += b.missedRuns
        sum.shownRuns += b.shownRuns
        sum.spuriousEvents += b.spuriousEvents
        sum.excused += b.excused
        sum.excuses += b.excuses
        return sum
    }
}
