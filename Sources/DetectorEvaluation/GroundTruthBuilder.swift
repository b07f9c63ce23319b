import OrientationCore

/// Builds a ``GroundTruth`` from samples fed one at a time, in bounded memory: what
/// `orientationctl evaluate` uses to score a log of any length (issue 18: holding every sample
/// and every labelled point took 1.18 GB for a 149 MB log, 8× the file).
///
/// The truth's runs come out exactly as ``GroundTruth/init(samples:)`` makes them (rule 3 is
/// applied as each raw run closes: only the last merged run is ever changed). Of the labelled
/// points it keeps only those ``EvaluationScore`` reads: every point of an ambiguous tilt
/// (between ``GroundTruth/inPlaneTilt`` and ``GroundTruth/faceTilt``) within
/// ``EvaluationScore/ambiguousWindow`` of a time passed to ``keepPoints(around:)`` (call it with
/// each event the detector publishes, right after adding the sample that produced it), and the
/// last point (the log's end). Scoring the same events against this truth and against the full
/// one gives the same score. Memory: the runs, the kept points, and the ambiguous points of
/// the last window.
public struct GroundTruthBuilder: Sendable {
    private var g = Vector3.zero
    private var previousTime: Double? = nil
    private var current: TruthRun? = nil
    private var merged: [TruthRun] = []
    /// Points kept for scoring, in time order.
    private var kept: [GroundTruth.Point] = []
    /// Points of the last window not (yet) kept, oldest first from `recentStart`.
    private var recent: [GroundTruth.Point] = []
    private var recentStart = 0
    /// Points up to this time are kept as they come (the window after the last event).
    private var keepUntil = -Double.infinity
    private var last: GroundTruth.Point? = nil

    public init() {}

    /// Labels one sample (samples come in time order); a sample with a non-finite or all-zero
    /// acceleration is skipped, as ``GroundTruth/init(samples:)`` skips it.
    public mutating func add(_ sample: Sample) {
        let a = sample.acceleration
        guard a.isFinite, sample.time.isFinite, a.x != 0 || a.y != 0 || a.z != 0 else { return }
        if let previousTime {
            let dt = max(0, sample.time - previousTime)
            g += (a - g) * (dt / (GroundTruth.timeConstant + dt))
        } else {
            g = a
        }
        previousTime = sample.time
        let tilt = GroundTruth.tilt(g), angle = GroundTruth.inPlaneAngle(g)
        let point = GroundTruth.Point(time: sample.time, gravity: g, tilt: tilt, angle: angle,
                                      label: GroundTruth.label(tilt: tilt, angle: angle))
        if let label = point.label, current?.orientation == label {
            current!.end = point.time
        } else {
            if let run = current { close(run) }
            current = point.label.map { TruthRun(orientation: $0, start: point.time, end: point.time) }
        }
        last = point
        // Scoring looks only at points of an ambiguous tilt (between the in-plane and the face
        // limits); the others are never read, so never kept.
        let steepness = abs(tilt)
        guard steepness >= GroundTruth.inPlaneTilt, steepness <= GroundTruth.faceTilt else { return }
        if point.time <= keepUntil {
            kept.append(point)
            return
        }
        recent.append(point)
        let horizon = point.time - EvaluationScore.ambiguousWindow
        while recentStart < recent.count, recent[recentStart].time < horizon { recentStart += 1 }
        if recentStart >= 4096, recentStart * 2 >= recent.count {
            recent.removeFirst(recentStart)
            recentStart = 0
        }
    }

    /// Keeps every point within ``EvaluationScore/ambiguousWindow`` of `time`, an event's time
    /// (no earlier than the last sample added).
    public mutating func keepPoints(around time: Double) {
        let from = time - EvaluationScore.ambiguousWindow
        for point in recent[recentStart...] where point.time >= from { kept.append(point) }
        recent.removeAll(keepingCapacity: true)
        recentStart = 0
        keepUntil = max(keepUntil, time + EvaluationScore.ambiguousWindow)
    }

    /// The truth of every sample added: its runs, and the points kept.
    public func finish() -> GroundTruth {
        var builder = self
        if let run = builder.current { builder.close(run) }
        var points = builder.kept
        if let last = builder.last, points.last?.time != last.time { points.append(last) }
        return GroundTruth(points: points, runs: builder.merged)
    }

    /// Rule 3 for one raw run, as it closes.
    private mutating func close(_ run: TruthRun) {
        guard run.duration >= GroundTruth.minimumRun else { return }
        if merged.last?.orientation == run.orientation {
            merged[merged.count - 1].end = run.end
        } else {
            merged.append(run)
        }
    }
}
