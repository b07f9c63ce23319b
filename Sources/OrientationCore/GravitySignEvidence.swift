/// Decides from a recording itself whether its acceleration is the gravity vector (−g upward at
/// rest, orientationd's canonical frame) or its negation (proper acceleration, +g upward, as
/// Android, the kernel's IIO and most IMUs report), and what it reads for 1 g: what `orientationctl
/// import` checks when it was not told (issue 27: a Sensor Logger export held upright 4 s, in
/// landscape 4 s and face-up 3 s imported without a sign and replayed as portrait-upside-down,
/// landscape-right, face-down; the old check, on the mean, needed the device upright most of the
/// time).
///
/// Contract:
/// - Samples are cut into windows of ``window`` seconds of sample time. A window is *steady*
///   when its samples agree in direction (the length of their mean is at least ``coherence`` of
///   their mean length: walking's bounces along gravity pass, turning does not) and the length
///   of its mean is within ``magnitudeSpread`` of the median of the coherent windows (not a jolt).
/// - A steady window whose mean is nearest the screen's y or z axis votes with its duration: −y
///   or −z (top edge up, screen facing up) for the gravity vector as given, +y or +z (upside
///   down, face down) for an inverted sign. Hand-held and table-top recordings spend their time
///   upright and face up, rarely upside down or face down: that prior is the evidence. A window
///   nearest the x axis (landscape) is symmetric and votes for neither.
/// - The verdict is ``Verdict/asGiven`` or ``Verdict/inverted`` when that side has at least
///   ``minimumEvidence`` seconds and ``dominance`` times the other side; otherwise
///   ``Verdict/undecided`` (too little evidence, or as much both ways): the caller says so
///   rather than guess.
/// - Neither the magnitude (the same for both signs) nor a gyroscope can tell the sign: the
///   change of a vector fixed in the world obeys dv/dt = −ω × v, which −v obeys as well, and
///   the cross product of two consecutive directions is unchanged when both are negated
///   ((−a) × (−b) = a × b). A gyroscope catches a mirrored axis, not a negated vector.
/// - The `gravityReading` of ``tally()`` is the median length of the steady windows' means: what the recording
///   reads for 1 g, in its own units (`nil` without a steady window).
public struct GravitySignEvidence: Sendable {
    /// What the recording's acceleration is, as far as the evidence goes.
    public enum Verdict: Sendable, Equatable {
        /// Upright or face-up far more than upside down or face down: the sign is right.
        case asGiven
        /// Upside down or face down far more than upright or face up: the sign is inverted.
        case inverted
        /// Too little evidence, or as much both ways.
        case undecided
    }

    /// Seconds of sample time per window.
    public var window = 0.5
    /// Smallest |mean of samples| ÷ mean of |sample| of a steady window.
    public var coherence = 0.95
    /// Largest relative distance of a steady window's magnitude from the median.
    public var magnitudeSpread = 0.3
    /// Seconds of votes the winning side needs.
    public var minimumEvidence = 1.5
    /// How many times the losing side's seconds the winning side needs.
    public var dominance = 4.0

    private struct Summary: Sendable {
        var duration: Double
        var mean: Vector3
        var coherence: Double
    }

    private var windows: [Summary] = []
    private var start: Double? = nil
    private var last = 0.0
    private var sum = Vector3.zero
    private var lengthSum = 0.0
    private var count = 0

    public init() {}

    /// Feeds one sample's acceleration (as it will be written). Non-finite and zero readings,
    /// and time that does not increase, are skipped.
    public mutating func add(time: Double, acceleration: Vector3) {
        let length = acceleration.length
        guard time.isFinite, acceleration.isFinite, length > 0 else { return }
        if let begin = start, time - begin >= window || time <= last { closeWindow() }
        if start == nil { start = time }
        last = time
        sum += acceleration
        lengthSum += length
        count += 1
    }

    private mutating func closeWindow() {
        defer { start = nil; sum = .zero; lengthSum = 0; count = 0 }
        guard let begin = start, count >= 3 else { return }
        let span = last - begin
        // A window counts for its time span plus one typical step (a sample stands for its step).
        let duration = span + span / Double(count - 1)
        guard duration >= window / 2 else { return }
        let mean = sum * (1 / Double(count))
        windows.append(Summary(duration: duration, mean: mean, coherence: mean.length / (lengthSum / Double(count))))
    }

    /// The seconds of steady windows in each class, for messages.
    public struct Tally: Sendable, Equatable {
        /// Upright (−y) or face up (−z).
        public var asGiven = 0.0
        /// Upside down (+y) or face down (+z).
        public var inverted = 0.0
        /// Nearest ±x (landscape): no vote.
        public var landscape = 0.0
        /// Windows that were not steady (moving, jolted, too few samples).
        public var unsteady = 0.0
    }

    /// The evidence so far (the window being filled included).
    public func tally() -> (tally: Tally, gravityReading: Double?) {
        var copy = self
        copy.closeWindow()
        return copy.evaluate()
    }

    /// The verdict on the evidence so far.
    public func verdict() -> Verdict {
        let t = tally().tally
        if t.asGiven >= minimumEvidence, t.asGiven >= dominance * t.inverted { return .asGiven }
        if t.inverted >= minimumEvidence, t.inverted >= dominance * t.asGiven { return .inverted }
        return .undecided
    }

    private func evaluate() -> (tally: Tally, gravityReading: Double?) {
        var tally = Tally()
        let coherent = windows.filter { $0.coherence >= coherence }.map(\.mean.length).sorted()
        guard !coherent.isEmpty else {
            tally.unsteady = windows.reduce(0) { $0 + $1.duration }
            return (tally, nil)
        }
        let median = coherent[coherent.count / 2]
        var steady: [Double] = []
        for summary in windows {
            let length = summary.mean.length
            guard summary.coherence >= coherence, abs(length - median) <= magnitudeSpread * median else {
                tally.unsteady += summary.duration
                continue
            }
            steady.append(length)
            let m = summary.mean
            if abs(m.x) >= abs(m.y), abs(m.x) >= abs(m.z) {
                tally.landscape += summary.duration
            } else if (abs(m.y) >= abs(m.z) ? m.y : m.z) < 0 {
                tally.asGiven += summary.duration
            } else {
                tally.inverted += summary.duration
            }
        }
        steady.sort()
        return (tally, steady.isEmpty ? nil : steady[steady.count / 2])
    }
}
