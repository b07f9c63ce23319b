import OrientationCore

/// The orientation a recording was really in, taken from the recording itself: what
/// `orientationctl evaluate` scores the detector against (docs/DETECTOR.md, "Scoring against
/// the recording").
///
/// The rules are fixed (they define the metric, so they are not detector parameters):
/// 1. The acceleration is low-passed exponentially with τ = ``timeConstant`` (0.3 s),
///    `α = Δt / (τ + Δt)`, starting from the first sample.
/// 2. Each sample is labelled: `face-up`/`face-down` when the screen is within 15° of horizontal
///    (|tilt| ≥ ``faceTilt``, by the sign of z); an in-plane orientation when |tilt| ≤
///    ``inPlaneTilt`` and the in-plane direction is within ``edgeTolerance`` of that
///    orientation's edge; otherwise no label.
/// 3. Runs of one label shorter than ``minimumRun`` are dropped; consecutive remaining runs of
///    the same label merge across what lies between them. Each resulting run is a transition.
/// 4. Only when asked (``withoutShortTilts(shorterThan:)``, `evaluate --short-tilt`; issue 41): a
///    run shorter than the limit between two runs of one label is a short tilt that returns
///    (pitching a phone toward the face, showing it to someone, a step while reading), not a
///    turn: it is dropped and its neighbours merge. An event published for it then scores as
///    any event no transition explains.
///
/// Samples with a non-finite or all-zero acceleration are skipped, as the detector skips them.
public struct GroundTruth: Sendable {
    /// The low-pass time constant, seconds.
    public static let timeConstant = 0.3
    /// |tilt| from which the screen counts as horizontal (face-up or face-down), degrees.
    public static let faceTilt = 75.0
    /// |tilt| up to which an in-plane orientation may be labelled, degrees.
    public static let inPlaneTilt = 55.0
    /// Largest angle between the in-plane direction and an orientation's edge, degrees.
    public static let edgeTolerance = 30.0
    /// Shortest run that counts, seconds.
    public static let minimumRun = 0.5
    /// The limit issue 41 names for rule 4: a tilt that returns within 1.5 s is not a turn.
    public static let shortTiltLimit = 1.5

    /// One accepted sample as the truth sees it.
    public struct Point: Hashable, Sendable {
        public var time: Double
        /// The low-passed gravity vector, m/s².
        public var gravity: Vector3
        /// Degrees: +90 lying face-up, 0 upright, −90 face-down.
        public var tilt: Double
        /// Degrees in [0, 360): 0 portrait, 90 landscape-left, 180 upside down, 270 landscape-right.
        public var angle: Double
        /// The label of rule 2, if any.
        public var label: DeviceOrientation?
    }

    /// Every accepted sample, in order; from a ``GroundTruthBuilder``, only those scoring reads.
    public let points: [Point]
    /// The truth runs (rule 3), in order; consecutive runs differ.
    public let runs: [TruthRun]

    /// Labels `samples` (in time order).
    public init(samples: [Sample]) {
        var points: [Point] = []
        points.reserveCapacity(samples.count)
        var g = Vector3.zero
        var previous: Double? = nil
        for sample in samples {
            let a = sample.acceleration
            guard a.isFinite, sample.time.isFinite, a.x != 0 || a.y != 0 || a.z != 0 else { continue }
            if let previous {
                let dt = max(0, sample.time - previous)
                g += (a - g) * (dt / (Self.timeConstant + dt))
            } else {
                g = a
            }
            previous = sample.time
            let tilt = Self.tilt(g), angle = Self.inPlaneAngle(g)
            points.append(Point(time: sample.time, gravity: g, tilt: tilt, angle: angle, label: Self.label(tilt: tilt, angle: angle)))
        }
        self.init(points: points)
    }

    /// Truth from already labelled points (tests build them directly).
    init(points: [Point]) {
        self.points = points
        self.runs = Self.runs(points)
    }

    /// Truth from points and runs already made (``GroundTruthBuilder``).
    init(points: [Point], runs: [TruthRun]) {
        self.points = points
        self.runs = runs
    }

    /// The label of rule 2 for a low-passed tilt and in-plane angle (degrees).
    public static func label(tilt: Double, angle: Double) -> DeviceOrientation? {
        guard tilt.isFinite else { return nil }
        if tilt >= faceTilt { return .faceUp }
        if tilt <= -faceTilt { return .faceDown }
        guard abs(tilt) <= inPlaneTilt, angle.isFinite else { return nil }
        let nearest = nearestInPlane(angle: angle)
        let edge = Double(nearest.quarterTurns!) * 90
        var off = abs(angle - edge).truncatingRemainder(dividingBy: 360)
        if off > 180 { off = 360 - off }
        return off <= edgeTolerance ? nearest : nil
    }

    /// The in-plane orientation whose edge is nearest to `angle` (degrees).
    public static func nearestInPlane(angle: Double) -> DeviceOrientation {
        var turns = Int((angle / 90).rounded()) % 4
        if turns < 0 { turns += 4 }
        return DeviceOrientation.inPlane[turns]
    }

    /// Tilt of `g` in degrees (+90 face-up).
    public static func tilt(_ g: Vector3) -> Double {
        let m = g.length
        guard m > 0 else { return .nan }
        return asinDegrees(max(-1, min(1, -g.z / m)))
    }

    /// In-plane angle of `g` in degrees, [0, 360).
    public static func inPlaneAngle(_ g: Vector3) -> Double {
        let angle = atan2Degrees(-g.x, -g.y)
        return angle < 0 ? angle + 360 : angle
    }

    /// Rule 3: maximal runs of one label, the short ones dropped, the rest merged by label.
    static func runs(_ points: [Point]) -> [TruthRun] {
        var raw: [TruthRun] = []
        var current: TruthRun? = nil
        for point in points {
            if let label = point.label, current?.orientation == label {
                current!.end = point.time
                continue
            }
            if let run = current { raw.append(run) }
            current = point.label.map { TruthRun(orientation: $0, start: point.time, end: point.time) }
        }
        if let run = current { raw.append(run) }

        var merged: [TruthRun] = []
        for run in raw where run.duration >= minimumRun {
            if merged.last?.orientation == run.orientation {
                merged[merged.count - 1].end = run.end
            } else {
                merged.append(run)
            }
        }
        return merged
    }

    /// This truth with rule 4 applied: every run shorter than `limit` seconds whose neighbours
    /// have one label is dropped and the neighbours merged (repeatedly: the merged run may close
    /// another such triple). The points are kept as they are. A `limit` of 0 or less changes
    /// nothing.
    public func withoutShortTilts(shorterThan limit: Double) -> GroundTruth {
        GroundTruth(points: points, runs: Self.withoutShortTilts(runs, shorterThan: limit))
    }

    /// Rule 4 over rule 3's runs (in time order, no two neighbours of one label).
    static func withoutShortTilts(_ runs: [TruthRun], shorterThan limit: Double) -> [TruthRun] {
        var kept: [TruthRun] = []
        for run in runs {
            kept.append(run)
            while kept.count >= 3 {
                let n = kept.count
                guard kept[n - 2].duration < limit, kept[n - 3].orientation == kept[n - 1].orientation else { break }
                kept[n - 3].end = kept[n - 1].end
                kept.removeLast(2)
            }
        }
        return kept
    }
}
