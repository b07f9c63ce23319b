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
/// - Memory is bounded whatever the length of the recording (`import` streams): windows are
///   kept as a histogram of their magnitudes in steps of 0.1 %, each bin with its seconds per
///   pose, so medians are exact to 0.05 %.
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

    /// The coherent windows whose magnitude falls in one 0.1 % bin.
    private struct Bin: Sendable {
        var windows = 0
        var asGiven = 0.0
        var inverted = 0.0
        var landscape = 0.0
    }

    private var bins: [Int: Bin] = [:]
    /// Seconds of windows whose samples disagree in direction.
    private var incoherent = 0.0
    private var start: Double? = nil
    private var last = 0.0
    private var sum = Vector3.zero
    private var lengthSum = 0.0
    private var count = 0

    /// ln(1.001): the width of a magnitude bin.
    private static let binWidth = cMath_log(1.001)

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
        let length = mean.length
        guard length > 0, length / (lengthSum / Double(count)) >= coherence else {
            incoherent += duration
            return
        }
        var bin = bins[Int((cMath_log(length) / Self.binWidth).rounded(.down)), default: Bin()]
        bin.windows += 1
        if abs(mean.x) >= abs(mean.y), abs(mean.x) >= abs(mean.z) {
            bin.landscape += duration
        } else if (abs(mean.y) >= abs(mean.z) ? mean.y : mean.z) < 0 {
            bin.asGiven += duration
        } else {
            bin.inverted += duration
        }
        bins[Int((cMath_log(length) / Self.binWidth).rounded(.down))] = bin
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
        tally.unsteady = incoherent
        let sorted = bins.sorted { $0.key < $1.key }
        guard let median = Self.median(sorted) else { return (tally, nil) }
        var steady: [(key: Int, value: Bin)] = []
        for (key, bin) in sorted {
            if abs(Self.magnitude(key) - median) <= magnitudeSpread * median {
                steady.append((key, bin))
                tally.asGiven += bin.asGiven
                tally.inverted += bin.inverted
                tally.landscape += bin.landscape
            } else {
                tally.unsteady += bin.asGiven + bin.inverted + bin.landscape
            }
        }
        return (tally, Self.median(steady))
    }

    /// The magnitude at the middle of bin `key`.
    private static func magnitude(_ key: Int) -> Double { cMath_exp((Double(key) + 0.5) * binWidth) }

    /// The median window's magnitude over `bins` (sorted by key), `nil` when empty.
    private static func median(_ bins: [(key: Int, value: Bin)]) -> Double? {
        let total = bins.reduce(0) { $0 + $1.value.windows }
        guard total > 0 else { return nil }
        var seen = 0
        for (key, bin) in bins {
            seen += bin.windows
            if seen > total / 2 { return magnitude(key) }
        }
        return nil
    }
}
