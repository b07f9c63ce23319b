import OrientationCore
import PostureCore
import SensorLog

/// A convertible's log (v3, with `base_*` or `lid` columns) fed row by row to a
/// ``PostureDetector``, as `replay`, `evaluate` and `plot` share it: within one row the lid
/// switch first, then the display's reading, then the base's (the order the specification's runs
/// feed them, ``PostureScenarioRun``). The log's readings are already in their canonical frames
/// (the mount matrices applied), so they go to the detector unchanged.
struct PostureReplay {
    private(set) var detector: PostureDetector
    /// Every posture event, in time order.
    private(set) var events: [PostureEvent] = []
    /// Every hold reason the detector gave.
    private(set) var holds: Set<PostureHold> = []
    /// Seconds spent holding, per reason: the time from a row to the next counts for the hold
    /// the first row left the detector in.
    private(set) var heldSeconds: [PostureHold: Double] = [:]
    private(set) var displayReadings = 0
    private(set) var baseReadings = 0
    private(set) var lidStates = 0
    private(set) var firstTime: Double?
    private var lastTime: Double?
    private var lastHold: PostureHold?

    init(configuration: PostureDetector.Configuration) throws(ConfigurationError) {
        detector = try PostureDetector(configuration: configuration)
    }

    /// Feeds one row; returns the posture events it caused (usually none).
    mutating func feed(_ record: SensorLogRecord) -> [PostureEvent] {
        if let lastTime, let lastHold, record.time > lastTime { heldSeconds[lastHold, default: 0] += record.time - lastTime }
        if firstTime == nil { firstTime = record.time }
        var new: [PostureEvent] = []
        if let lid = record.lidClosed {
            lidStates += 1
            if let event = detector.setLidSwitch(closed: lid, at: record.time) { new.append(event) }
        }
        if let a = record.acceleration {
            displayReadings += 1
            if let event = detector.process(PostureSample(time: record.time, location: .display, acceleration: a)) { new.append(event) }
        }
        if let b = record.base {
            baseReadings += 1
            if let event = detector.process(PostureSample(time: record.time, location: .base, acceleration: b)) { new.append(event) }
        }
        if let hold = detector.hold { holds.insert(hold) }
        lastTime = record.time
        lastHold = detector.hold
        events += new
        return new
    }

    /// `replay (posture): 1503 display and 1502 base readings, 2 lid states, 6 events; held 3.2 s:
    /// hinge-vertical 2.1 s, base-moving 1.1 s`: what a user needs to trust (or doubt) the events.
    var summary: String {
        var parts = ["\(displayReadings) display and \(baseReadings) base readings"]
        if lidStates > 0 { parts.append("\(lidStates) lid state\(lidStates == 1 ? "" : "s")") }
        parts.append("\(events.count) event\(events.count == 1 ? "" : "s")")
        let s = detector.statistics
        if s.ignoredNonFinite > 0 { parts.append("\(s.ignoredNonFinite) ignored with NaN or infinite values") }
        if s.ignoredZero > 0 { parts.append("\(s.ignoredZero) ignored as exactly zero") }
        if s.lidDisagreements > 0 { parts.append("\(s.lidDisagreements) times the lid switch and the angle disagreed (the switch won)") }
        var line = "replay (posture): " + parts.joined(separator: ", ")
        let held = PostureHold.allCases.compactMap { hold in heldSeconds[hold].map { (hold, $0) } }.filter { $0.1 >= 0.05 }  // what prints as 0.0 s is noise
        if !held.isEmpty {
            let total = held.map(\.1).reduce(0, +)
            line += "; held \(EventFormat.fixed(total, decimals: 1)) s: "
                + held.map { "\($0.0.rawValue) \(EventFormat.fixed($0.1, decimals: 1)) s" }.joined(separator: ", ")
        }
        return line
    }
}
