import ConfigFileFormat
import OrientationCore

/// A recording run through the detector, drawn as one self-contained SVG timeline that answers
/// "why did it rotate?" (`orientationctl plot`).
///
/// Lanes, top to bottom, on one time axis counted from the log's first sample (the title gives
/// the log's own clock): the screen tilt and, in a lane of its own, which edge is up (the
/// in-plane angle), with the truth rules' limits as guides; shaking (the fast magnitude) with
/// the acceleration gate's band and the moments it was open; movement and whether the slow
/// estimate is settled; what the reading says (the candidate) and the orientation waiting to
/// publish (the pending one); the published orientation as a coloured band with every event
/// (spurious ones red, matched ones labelled with their latency, details on hover); and the
/// truth runs of ``GroundTruth`` beneath, missed ones outlined red. Each lane has a plain-word
/// name and a one-line legend in the left margin (``TimelineLayout``). The title
/// (``TimelineHeader``) carries the ``EvaluationScore`` and the parameters changed from the
/// defaults.
///
/// Contract: deterministic (the same input gives byte-identical output); polylines are thinned
/// to at most two points per pixel column (each column's extremes, so spikes survive), so a
/// long recording gives a small file; text is escaped.
public struct TimelinePlot: Sendable {
    /// The detector's state after one sample.
    public struct Row: Sendable {
        public var time: Double
        public var tilt: Double
        public var angle: Double
        public var fastMagnitude: Double
        public var gate: Bool
        public var motion: OrientationDetector.Motion
        public var steady: Bool
        public var candidate: DeviceOrientation?
        public var pending: DeviceOrientation?
        public var published: DeviceOrientation
    }

    /// One row per accepted sample (ignored samples have none); with a ``Drawing`` given to the
    /// initializer, only the rows that drawing can show (``TimelineRowThinner``).
    public let rows: [Row]
    /// How many samples the detector accepted (one row each before thinning).
    public let sampleCount: Int
    /// The times of the first and last accepted sample, or `nil` for an empty recording.
    public let timeRange: ClosedRange<Double>?
    /// The one drawing the rows were thinned for, if any.
    public let drawing: Drawing?

    /// One drawing of ``svg(width:from:to:)``, known before the samples are read, with the
    /// time span of the recording's accepted samples (in its own clock;
    /// ``OrientationDetector/accepts(_:)`` tells which are).
    public struct Drawing: Sendable, Equatable {
        public var width: Int
        public var from: Double?
        public var to: Double?
        public var span: ClosedRange<Double>

        public init(width: Int = 1600, from: Double? = nil, to: Double? = nil, span: ClosedRange<Double>) {
            self.width = width
            self.from = from
            self.to = to
            self.span = span
        }
    }
    /// The run that produced the rows: events, truth and score.
    public let evaluation: RecordingEvaluation
    /// What the title calls the recording.
    public let name: String
    /// Lines added under the title (e.g. the parameters changed from the defaults).
    public let notes: [String]
    let configuration: OrientationDetector.Configuration
    let usedGyroscope: Bool
    /// A convertible's posture over the same recording (issue 30): with it, the drawing gains a
    /// hinge-angle lane and a posture lane beneath the time axis; without it (every
    /// single-sensor log) the drawing is what it was.
    public var posture: PostureTimeline?

    /// Runs `samples` through a fresh detector and keeps its state after every sample.
    ///
    /// - Throws: ``ConfigurationError`` when the configuration is invalid.
    public init(samples: [Sample], name: String, configuration: OrientationDetector.Configuration = .init(),
                ignoreGyroscope: Bool = false, notes: [String] = []) throws(ConfigurationError) {
        var iterator = samples.makeIterator()
        do {
            try self.init(name: name, configuration: configuration, ignoreGyroscope: ignoreGyroscope, notes: notes) { iterator.next() }
        } catch let error as ConfigurationError {
            throw error
        } catch {
            fatalError("an array's iterator does not throw")
        }
    }

    /// Runs the samples `next` returns (until `nil`) through a fresh detector, keeping its
    /// state after every sample but not the samples: the truth comes from a
    /// ``GroundTruthBuilder`` (issue 18: a 149 MB log took 1.58 GB, samples, truth points and
    /// rows all held). The same plot as
    /// ``init(samples:name:configuration:ignoreGyroscope:notes:)`` on the same samples.
    ///
    /// Without `drawing`, a row per sample is kept (about 40 bytes). With it, only the rows that
    /// drawing shows, a few per pixel column (``TimelineRowThinner``), and ``svg(width:from:to:)``
    /// draws that drawing only, byte-identical to the unthinned plot's.
    ///
    /// - Throws: ``ConfigurationError`` for an invalid configuration; whatever `next` throws.
    public init(name: String, configuration: OrientationDetector.Configuration = .init(), ignoreGyroscope: Bool = false,
                notes: [String] = [], drawing: Drawing? = nil, samples next: () throws -> Sample?) throws {
        var detector = try OrientationDetector(configuration: configuration)
        var rows: [Row] = []
        var thinner = drawing.flatMap { TimelineRowThinner(span: $0.span, width: $0.width, from: $0.from, to: $0.to) }
        var count = 0
        var first: Double?, last: Double?
        var events: [OrientationEvent] = []
        var truth = GroundTruthBuilder()
        var gyroscope = false
        // As the daemon's pipeline (and evaluate): a wrong scale is corrected before the detector.
        var normalizer = GravityNormalizer()
        while var sample = try next() {
            sample = normalizer.normalize(sample)
            truth.add(sample)
            if ignoreGyroscope { sample.angularRate = nil }
            let before = detector.statistics
            if let event = detector.process(sample) {
                events.append(event)
                truth.keepPoints(around: event.time)
            }
            let after = detector.statistics
            guard after.ignoredZero == before.ignoredZero, after.ignoredNonFinite == before.ignoredNonFinite else { continue }
            let s = detector.snapshot
            gyroscope = gyroscope || s.usingGyroscope
            let row = Row(time: sample.time, tilt: s.tilt, angle: s.angle, fastMagnitude: s.fastMagnitude, gate: s.accelerationGate,
                          motion: s.motion, steady: s.steady, candidate: s.candidate, pending: s.pending, published: detector.orientation)
            count += 1
            if first == nil { first = sample.time }
            last = sample.time
            if thinner != nil { thinner!.add(row) } else { rows.append(row) }
        }
        sampleCount = count
        timeRange = first.flatMap { first in last.map { first...$0 } }
        // A drawing whose span is not the recording's would be thinned for the wrong columns:
        // keep nothing thinned then (svg's range errors come from the real span).
        if let drawing, thinner != nil, drawing.span == timeRange {
            self.rows = thinner!.finish()
            self.drawing = drawing
        } else if thinner != nil {
            throw PlotError("\(name): the recording's time span changed while it was read (\(drawing!.span) before, \(timeRange.map { "\($0)" } ?? "none") now)")
        } else {
            self.rows = rows
            self.drawing = nil
        }
        // Scored from this same run: one pass of the detector, not two.
        evaluation = RecordingEvaluation(events: events, truth: truth.finish(), statistics: detector.statistics)
        self.name = name
        self.notes = notes
        self.configuration = configuration
        usedGyroscope = gyroscope
    }

    /// The parameters whose value differs from the default, as `name=value`, in the
    /// documentation's order (however they were set: `--set`, a configuration file).
    public var changedParameters: [String] {
        let defaults = OrientationDetector.Configuration()
        return OrientationDetector.Configuration.parameters.compactMap { parameter in
            let value = parameter.value(in: configuration)
            return value == parameter.value(in: defaults) ? nil : "\(parameter.name)=\(value)"
        }
    }

    /// The colour of an orientation everywhere in the drawing.
    public static func colour(_ orientation: DeviceOrientation) -> String {
        switch orientation {
        case .portrait: "#4e79a7"
        case .landscapeLeft: "#f28e2b"
        case .portraitUpsideDown: "#9c6ade"
        case .landscapeRight: "#2ca6a4"
        case .faceUp: "#59a14f"
        case .faceDown: "#8c6d31"
        case .unknown: "#bab0ac"
        }
    }

    static func colour(_ motion: OrientationDetector.Motion) -> String {
        switch motion {
        case .still: "#a0cbe8"
        case .moving: "#edc948"
        case .swinging: "#e15759"
        }
    }

    // MARK: - Layout (TimelineLayout)

    static var left: Double { TimelineLayout.left }
    static var right: Double { TimelineLayout.right }
    static var titleTop: Double { TimelineLayout.titleTop }
    static var anglesTop: Double { TimelineLayout.lanesTop }
    static var height: Double { TimelineLayout.height }

    /// Draws the timeline, `width` pixels wide, over `from…to` (default: the whole recording),
    /// both in seconds from the log's first sample, as the time axis counts (issue 21: an
    /// imported phone log's axis read 581980 s, its uptime).
    ///
    /// - Throws: ``PlotError`` for a recording without a time span, a width below 400, a `from`
    ///   or `to` outside the recording (first to last sample), or `from` not before `to`.
    public func svg(width: Int = 1600, from: Double? = nil, to: Double? = nil) throws(PlotError) -> String {
        guard let clock = timeRange else { throw PlotError("\(name): no samples to plot") }
        if let drawing, drawing.width != width || drawing.from != from || drawing.to != to {
            throw PlotError("\(name): the rows were kept for one drawing (width \(drawing.width), --from \(drawing.from.map { "\($0)" } ?? "none"), --to \(drawing.to.map { "\($0)" } ?? "none")) and cannot draw another")
        }
        let origin = clock.lowerBound
        let range = 0...(clock.upperBound - origin)
        guard range.lowerBound < range.upperBound else {
            throw PlotError("\(name): every sample is at \(Self.seconds(range.lowerBound)) s, no time span to plot")
        }
        guard width >= 400, width <= 100_000 else { throw PlotError("the width must be between 400 and 100000 pixels, not \(width)") }
        // The log's own resolution, so a bound just past the last sample does not read as inside.
        let exact = { (t: Double) in SVGWriter.fixed(t, decimals: 6) }
        let recording = "the recording runs \(exact(range.lowerBound))–\(exact(range.upperBound)) s"
            + (origin == 0 ? "" : " from its start (its own clock \(exact(clock.lowerBound))–\(exact(clock.upperBound)) s)")
        for (option, value) in [("--from", from), ("--to", to)] {
            guard let value else { continue }
            guard value.isFinite, range.contains(value) else {
                throw PlotError("\(option) \(value.isFinite ? Self.seconds(value) : "\(value)") s is outside the recording: \(recording)")
            }
        }
        let t0 = from ?? range.lowerBound, t1 = to ?? range.upperBound
        guard t0 < t1 else {
            if from != nil, to != nil {
                throw PlotError("--from \(Self.seconds(t0)) s is not before --to \(Self.seconds(t1)) s")
            }
            throw PlotError(from != nil ? "--from \(Self.seconds(t0)) s leaves nothing to draw: \(recording)"
                                        : "--to \(Self.seconds(t1)) s leaves nothing to draw: \(recording)")
        }
        let header = TimelineHeader(plot: self, t0: t0, t1: t1, width: Double(width))
        var canvas = Canvas(t0: origin + t0, t1: origin + t1, origin: origin, width: Double(width),
                            height: Self.height + header.extraHeight + (posture == nil ? 0 : Self.postureExtraHeight))
        header.draw(into: &canvas.svg)
        // A header that wrapped moves every lane down.
        let shift = header.extraHeight > 0
        if shift { canvas.svg.open("g", [("transform", "translate(0,\(SVGWriter.number(header.extraHeight)))")]) }
        canvas.drawLaneNames()
        canvas.drawAngles(rows)
        canvas.drawMagnitude(rows, gravity: configuration.gravity, tolerance: configuration.accelerationTolerance)
        canvas.drawStates(rows)
        canvas.drawTruth(evaluation.truth, score: evaluation.score)
        canvas.drawEvents(evaluation.events, score: evaluation.score)
        canvas.drawAxis()
        if let posture { canvas.drawPosture(posture) }
        if shift { canvas.svg.close("g") }
        return canvas.svg.finish()
    }

    static func seconds(_ value: Double) -> String { SVGWriter.fixed(value, decimals: 3) }

    /// The drawing surface for one range.
    struct Canvas {
        /// The range drawn, in the log's clock, and the log's first sample (time 0 on the axis).
        let t0, t1, origin, width: Double
        var svg: SVGWriter

        init(t0: Double, t1: Double, origin: Double = 0, width: Double, height: Double) {
            self.t0 = t0
            self.t1 = t1
            self.origin = origin
            self.width = width
            svg = SVGWriter(width: width, height: height)
            svg.element("rect", [("width", "100%"), ("height", "100%"), ("fill", "#ffffff")])
            svg.open("defs")
            svg.open("pattern", [("id", "missed-hatch"), ("width", "6"), ("height", "6"), ("patternUnits", "userSpaceOnUse"),
                                 ("patternTransform", "rotate(45)")])
            svg.element("line", [("x1", "0"), ("y1", "0"), ("x2", "0"), ("y2", "6"), ("stroke", "#e15759"), ("stroke-width", "2")])
            svg.close("pattern")
            svg.close("defs")
        }

        var plotWidth: Double { width - TimelinePlot.left - TimelinePlot.right }

        func x(_ t: Double) -> Double { Self.x(t, t0: t0, t1: t1, plotWidth: plotWidth) }

        /// Where time `t` lies across a plot drawn over `t0…t1` (clamped to it); shared with
        /// ``TimelineRowThinner``, whose pixel columns must be these to the last bit.
        static func x(_ t: Double, t0: Double, t1: Double, plotWidth: Double) -> Double {
            TimelinePlot.left + (min(max(t, t0), t1) - t0) / (t1 - t0) * plotWidth
        }

        func inRange(_ t: Double) -> Bool { t >= t0 && t <= t1 }

        /// `t` as the axis shows it: seconds from the log's start.
        func shown(_ t: Double) -> String { TimelinePlot.seconds(t - origin) }

        /// Each lane's plain-word name and one-line legend, in the left margin beside its slot.
        mutating func drawLaneNames() {
            svg.open("g", [("id", "lane-names")])
            for lane in TimelineLayout.lanes {
                let middle = lane.top + lane.height / 2
                svg.label(lane.name, x: TimelinePlot.left - 8, y: middle - 1, [("class", "lane-name"), ("text-anchor", "end"), ("fill", "#333333")])
                svg.label(lane.legend, x: TimelinePlot.left - 8, y: middle + 9,
                          [("class", "lane-legend"), ("text-anchor", "end"), ("fill", "#777777"), ("font-size", "9")])
            }
            svg.close("g")
        }

        /// A scale label in the right margin, outside the plot, so no trace runs over it.
        mutating func scaleLabel(_ text: String, y: Double, colour: String) {
            svg.label(text, x: width - TimelinePlot.right + 4, y: y + 3, [("class", "scale"), ("fill", colour), ("font-size", "9")])
        }

        /// Tilt (−90…90) and, in a lane of its own, the in-plane angle (−45…315), each with its
        /// guides across the plot and their labels in the right margin.
        mutating func drawAngles(_ rows: [Row]) {
            let n = SVGWriter.number
            let tiltLane = TimelineLayout.tilt, directionLane = TimelineLayout.direction
            svg.open("g", [("id", "lane-angles")])
            svg.open("g", [("id", "lane-tilt")])
            svg.element("rect", [("x", n(TimelinePlot.left)), ("y", n(tiltLane.top)), ("width", n(plotWidth)), ("height", n(tiltLane.height)),
                                 ("fill", "#f7f7f7")])
            let yTilt = { (tilt: Double) in tiltLane.top + (90 - tilt) / 180 * tiltLane.height }
            // The face (75°) and in-plane (55°) limits lie 20° apart, closer than a label is tall:
            // their labels are nudged apart (`dy`).
            for (tilt, label, dy) in [(75.0, "75° face up", -3.0), (55.0, "55°", 4.0), (0.0, "0° upright", 0.0), (-55.0, "−55°", -4.0),
                                      (-75.0, "−75° face down", 3.0)] {
                svg.element("line", [("x1", n(TimelinePlot.left)), ("y1", n(yTilt(tilt))), ("x2", n(width - TimelinePlot.right)), ("y2", n(yTilt(tilt))),
                                     ("stroke", "#cccccc"), ("stroke-dasharray", "4 3")])
                scaleLabel(label, y: yTilt(tilt) + dy, colour: "#777777")
            }
            svg.element("polyline", [("class", "tilt"), ("fill", "none"), ("stroke", "#1f4e9c"), ("stroke-width", "1.2"),
                                     ("points", extremes(rows, value: { $0.tilt }, y: yTilt))])
            svg.close("g")
            svg.open("g", [("id", "lane-direction")])
            svg.element("rect", [("x", n(TimelinePlot.left)), ("y", n(directionLane.top)), ("width", n(plotWidth)),
                                 ("height", n(directionLane.height)), ("fill", "#f7f7f7")])
            // The angle scale runs from −45 to 315 so that it wraps on a diagonal, not at portrait.
            let yAngle = { (angle: Double) in directionLane.bottom - (angle + 45) / 360 * directionLane.height }
            for (angle, label) in [(0.0, "portrait"), (90.0, "landscape-l"), (180.0, "upside down"), (270.0, "landscape-r")] {
                svg.element("line", [("x1", n(TimelinePlot.left)), ("y1", n(yAngle(angle))), ("x2", n(width - TimelinePlot.right)),
                                     ("y2", n(yAngle(angle))), ("stroke", "#e8d3bf"), ("stroke-dasharray", "4 3")])
                scaleLabel(label, y: yAngle(angle), colour: "#c06000")
            }
            for points in angleLines(rows, y: yAngle) {
                svg.element("polyline", [("class", "angle"), ("fill", "none"), ("stroke", "#f28e2b"), ("stroke-width", "1"), ("points", points)])
            }
            svg.close("g")
            svg.close("g")
        }

        /// The fast magnitude, the gate's band (gravity ± tolerance) and when the gate was open.
        mutating func drawMagnitude(_ rows: [Row], gravity: Double, tolerance: Double) {
            let top = TimelineLayout.acceleration.top, h = TimelineLayout.acceleration.height
            let n = SVGWriter.number
            let maximum = 2 * gravity
            let y = { (m: Double) in top + h - min(max(m, 0), maximum) / maximum * h }
            svg.open("g", [("id", "lane-magnitude")])
            svg.element("rect", [("x", n(TimelinePlot.left)), ("y", n(top)), ("width", n(plotWidth)), ("height", n(h)), ("fill", "#f7f7f7")])
            svg.element("rect", [("class", "gate-band"), ("x", n(TimelinePlot.left)), ("y", n(y(gravity + tolerance))), ("width", n(plotWidth)),
                                 ("height", n(y(gravity - tolerance) - y(gravity + tolerance))), ("fill", "#dfeedd")])
            svg.element("line", [("x1", n(TimelinePlot.left)), ("y1", n(y(gravity))), ("x2", n(width - TimelinePlot.right)), ("y2", n(y(gravity))),
                                 ("stroke", "#b9d8b4"), ("stroke-dasharray", "4 3")])
            for (start, end) in intervals(rows, where: { $0.gate }) {
                svg.element("rect", [("class", "gate-open"), ("x", n(x(start))), ("y", n(top)), ("width", n(max(1, x(end) - x(start)))),
                                     ("height", n(h)), ("fill", "#e15759"), ("fill-opacity", "0.35")],
                            title: "shaken, decisions wait (acceleration gate open) \(shown(start))–\(shown(end)) s")
            }
            svg.element("polyline", [("class", "magnitude"), ("fill", "none"), ("stroke", "#333333"), ("stroke-width", "1"),
                                     ("points", extremes(rows, value: { $0.fastMagnitude }, y: y))])
            let small = [("font-size", "9")]
            scaleLabel("\(SVGWriter.fixed(maximum, decimals: 1)) m/s²", y: top + 6, colour: "#999999")
            scaleLabel("g ± \(SVGWriter.fixed(tolerance, decimals: 1))", y: y(gravity), colour: "#4f8a46")
            _ = small
            svg.close("g")
        }

        /// Movement, steadiness, what the reading says, what waits to publish, and the published
        /// orientation, each a bar inside its lane's slot.
        mutating func drawStates(_ rows: [Row]) {
            func bar(_ lane: TimelineLayout.Lane) -> (top: Double, height: Double) { (lane.barTop, lane.barHeight) }
            svg.open("g", [("id", "lane-motion")])
            var b = bar(TimelineLayout.movement)
            segments(rows, top: b.top, height: b.height, value: { $0.motion }, colour: { TimelinePlot.colour($0) }, name: { $0.rawValue })
            svg.close("g")
            svg.open("g", [("id", "lane-steady")])
            b = bar(TimelineLayout.steadiness)
            segments(rows, top: b.top, height: b.height, value: { $0.steady ? "settled" : nil }, colour: { _ in "#79706e" }, name: { $0 })
            svg.close("g")
            svg.open("g", [("id", "lane-candidate")])
            b = bar(TimelineLayout.reading)
            segments(rows, top: b.top, height: b.height, value: { $0.candidate }, colour: { TimelinePlot.colour($0) },
                     name: { "the reading says \($0.rawValue) (candidate)" })
            svg.close("g")
            svg.open("g", [("id", "lane-pending")])
            b = bar(TimelineLayout.waiting)
            segments(rows, top: b.top, height: b.height, value: { $0.pending }, colour: { TimelinePlot.colour($0) },
                     name: { "\($0.rawValue) waiting to publish (pending)" })
            svg.close("g")
            svg.open("g", [("id", "lane-published")])
            b = bar(TimelineLayout.published)
            segments(rows, top: b.top, height: b.height, value: { $0.published }, colour: { TimelinePlot.colour($0) },
                     name: { "published \($0.rawValue)" })
            svg.close("g")
        }

        /// Truth runs; missed ones hatched and outlined red.
        mutating func drawTruth(_ truth: GroundTruth, score: EvaluationScore) {
            let n = SVGWriter.number
            let top = TimelineLayout.truth.top, h = TimelineLayout.truth.height
            svg.open("g", [("id", "lane-truth")])
            let missed = Set(score.missedRuns.map { "\($0.start)" })
            if !truth.runs.contains(where: { $0.end >= t0 && $0.start <= t1 }) {
                // An empty lane would read as a drawing fault; say why it is empty.
                svg.label("no truth here: no label lasted 0.5 s (tilt between 55° and 75°, or the direction over 30° from every edge)",
                          x: x(t0) + 3, y: top + h / 2 + 4, [("fill", "#555555"), ("font-size", "10"), ("class", "truth-none")])
            }
            for run in truth.runs where run.end >= t0 && run.start <= t1 {
                let isMissed = missed.contains("\(run.start)")
                let title = "truth \(run.orientation.rawValue) \(shown(run.start))–\(shown(run.end)) s\(isMissed ? ": MISSED" : "")"
                let rx = x(run.start), w = max(1, x(run.end) - rx)
                svg.element("rect", [("class", isMissed ? "truth-run missed" : "truth-run"), ("x", n(rx)), ("y", n(top)), ("width", n(w)),
                                     ("height", n(h)), ("fill", TimelinePlot.colour(run.orientation)), ("fill-opacity", "0.75")], title: title)
                if isMissed {
                    svg.element("rect", [("x", n(rx)), ("y", n(top)), ("width", n(w)), ("height", n(h)), ("fill", "url(#missed-hatch)"),
                                         ("stroke", "#e15759"), ("stroke-width", "2")])
                }
                if w > 60 { svg.label(run.orientation.rawValue, x: rx + 3, y: top + h / 2 + 4, [("fill", "#ffffff"), ("font-size", "10")]) }
            }
            svg.close("g")
        }

        /// A vertical line per event across every lane; spurious red, matched with latency.
        mutating func drawEvents(_ events: [OrientationEvent], score: EvaluationScore) {
            let n = SVGWriter.number
            let spurious = Set(score.spuriousEvents.map { "\($0.time)" })
            let latency = Dictionary(score.matches.map { ("\($0.event.time)", $0.latency) }, uniquingKeysWith: { a, _ in a })
            let excused = Dictionary(score.excusedEvents.map { ("\($0.event.time)", $0.excuse.rawValue) }, uniquingKeysWith: { a, _ in a })
            svg.open("g", [("id", "events")])
            // Where each label row is free again (labels go to the first free row, else the one
            // free soonest), so neighbours do not overprint.
            var rowEnds = [Double](repeating: -Double.infinity, count: TimelineLayout.eventLabelRows)
            var labels: [(text: String, x: Double, y: Double, spurious: Bool)] = []
            for event in events where inRange(event.time) {
                let key = "\(event.time)"
                let isSpurious = spurious.contains(key)
                var title = "\(shown(event.time)) s: \(event.previous.rawValue) → \(event.orientation.rawValue)"
                if let l = latency[key] { title += ", matched, latency \(TimelinePlot.seconds(l)) s" }
                if isSpurious { title += ", SPURIOUS" }
                if let reason = excused[key] { title += ", not counted (\(reason))" }
                let ex = x(event.time)
                svg.element("line", [("class", isSpurious ? "event spurious" : "event"), ("x1", n(ex)), ("y1", n(TimelineLayout.lanesTop)),
                                     ("x2", n(ex)), ("y2", n(TimelineLayout.truth.bottom)),
                                     ("stroke", isSpurious ? "#e15759" : "#333333"), ("stroke-width", isSpurious ? "2" : "1"),
                                     ("stroke-dasharray", isSpurious ? "none" : "3 2")], title: title)
                var text = event.orientation.rawValue
                if let l = latency[key] {
                    text += " " + (l >= 0 ? "+" : "") + TimelinePlot.seconds(l) + " s"
                } else if isSpurious {
                    text += " spurious"
                }
                let row = rowEnds.firstIndex { $0 < ex } ?? rowEnds.indices.min { rowEnds[$0] < rowEnds[$1] }!
                // A label that would run past the plot's right edge is drawn leftwards of its line.
                rowEnds[row] = ex + 2 + Double(text.unicodeScalars.count) * 5.8 + 4  // 9 px sans-serif, generously
                let labelWidth = Double(text.unicodeScalars.count) * 5.0
                let lx = ex + 2 + labelWidth > width - TimelinePlot.right ? ex - 2 - labelWidth : ex + 2
                labels.append((text, lx, TimelineLayout.published.top - 3 - Double(row) * TimelineLayout.eventLabelStep, isSpurious))
            }
            // Labels after every line, each on a white patch, so a later event's line never
            // crosses out an earlier label.
            for (text, lx, ly, isSpurious) in labels {
                svg.element("rect", [("x", n(lx - 1)), ("y", n(ly - 8)), ("width", n(Double(text.unicodeScalars.count) * 5.0 + 2)),
                                     ("height", "10"), ("fill", "#ffffff"), ("fill-opacity", "0.85")])
                svg.label(text, x: lx, y: ly, [("class", "event-label"), ("font-size", "9"), ("fill", isSpurious ? "#e15759" : "#333333"),
                                               ("font-weight", isSpurious ? "bold" : "normal")])
            }
            svg.close("g")
        }

        /// Ticks at a round step, at most about one per 60 pixels.
        mutating func drawAxis() {
            let n = SVGWriter.number
            let top = TimelineLayout.axisTop
            svg.open("g", [("id", "axis")])
            svg.element("line", [("x1", n(TimelinePlot.left)), ("y1", n(top)), ("x2", n(width - TimelinePlot.right)), ("y2", n(top)), ("stroke", "#333333")])
            // Ticks count from the log's first sample (its own clock is in the title).
            let t0 = self.t0 - origin, t1 = self.t1 - origin
            let span = t1 - t0
            let steps = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400]
            let step = steps.first { span / $0 <= plotWidth / 60 } ?? span
            let decimals = step >= 1 ? 0 : (step >= 0.1 ? 1 : (step >= 0.01 ? 2 : 3))
            var k = (t0 / step).rounded(.up)
            while k * step <= t1 + step * 1e-9, k < (t0 / step).rounded(.up) + 10_000 {
                let t = k * step, tx = x(origin + t)
                svg.element("line", [("x1", n(tx)), ("y1", n(top)), ("x2", n(tx)), ("y2", n(top + 5)), ("stroke", "#333333")])
                svg.label(SVGWriter.fixed(t, decimals: decimals), x: tx, y: top + 17, [("text-anchor", "middle")])
                k += 1
            }
            svg.label("seconds from the start", x: TimelinePlot.left - 16, y: top + 17, [("text-anchor", "end"), ("fill", "#333333")])
            svg.close("g")
        }

        // MARK: Thinning

        /// Points of a polyline keeping each pixel column's lowest and highest value, in order.
        func extremes(_ rows: [Row], value: (Row) -> Double, y: (Double) -> Double) -> String {
            var out = ""
            var column = Int.min
            var low = Double.infinity, high = -Double.infinity, lowFirst = true
            func flush(_ out: inout String) {
                guard column != Int.min, low.isFinite, high.isFinite else { return }
                let cx = SVGWriter.number(TimelinePlot.left + Double(column) + 0.5)
                let (a, b) = lowFirst ? (low, high) : (high, low)
                out += "\(cx),\(SVGWriter.number(y(a))) "
                if b != a { out += "\(cx),\(SVGWriter.number(y(b))) " }
            }
            for row in rows where inRange(row.time) {
                let v = value(row)
                guard v.isFinite else { continue }
                let c = Int(x(row.time) - TimelinePlot.left)
                if c != column {
                    flush(&out)
                    column = c
                    low = v
                    high = v
                    lowFirst = true
                } else if v < low {
                    low = v
                    lowFirst = false  // the high came first
                } else if v > high {
                    high = v
                    lowFirst = true  // the low came first
                }
            }
            flush(&out)
            return out.isEmpty ? out : String(out.dropLast())
        }

        /// The in-plane angle as −45…315, one point per pixel column, broken where it wraps and
        /// where the device lay flat (the angle means nothing there).
        func angleLines(_ rows: [Row], y: (Double) -> Double) -> [String] {
            var lines: [String] = []
            var current = ""
            var column = Int.min
            var previous = Double.nan
            for row in rows where inRange(row.time) && row.angle.isFinite && abs(row.tilt) < 80 {
                let c = Int(x(row.time) - TimelinePlot.left)
                guard c != column else { continue }
                let angle = row.angle >= 315 ? row.angle - 360 : row.angle
                if previous.isFinite, abs(angle - previous) > 180 || c > column + 8 {
                    if !current.isEmpty { lines.append(String(current.dropLast())) }
                    current = ""
                }
                column = c
                previous = angle
                current += "\(SVGWriter.number(TimelinePlot.left + Double(c) + 0.5)),\(SVGWriter.number(y(angle))) "
            }
            if !current.isEmpty { lines.append(String(current.dropLast())) }
            return lines
        }

        /// Time intervals (within the range) during which `predicate` held.
        func intervals(_ rows: [Row], where predicate: (Row) -> Bool) -> [(Double, Double)] {
            var result: [(Double, Double)] = []
            var start: Double? = nil
            var last = t0
            for row in rows where inRange(row.time) {
                if predicate(row) {
                    if start == nil { start = row.time }
                } else if let s = start {
                    result.append((s, row.time))
                    start = nil
                }
                last = row.time
            }
            if let s = start { result.append((s, last)) }
            return result
        }

        /// Coloured rectangles for each stretch of one value (nothing where the value is `nil`).
        mutating func segments<Value: Equatable>(_ rows: [Row], top: Double, height: Double, value: (Row) -> Value?,
                                                 colour: (Value) -> String, name: (Value) -> String) {
            let n = SVGWriter.number
            var current: Value? = nil
            var start = t0
            func emit(_ svg: inout SVGWriter, until end: Double) {
                guard let v = current else { return }
                let sx = x(start), w = x(end) - sx
                guard w > 0.05 else { return }
                svg.element("rect", [("x", n(sx)), ("y", n(top)), ("width", n(w)), ("height", n(height)), ("fill", colour(v))],
                            title: w >= 3 ? "\(name(v)) \(shown(start))–\(shown(end)) s" : nil)
            }
            var drawing = svg
            for row in rows where inRange(row.time) {
                let v = value(row)
                if v != current {
                    emit(&drawing, until: row.time)
                    current = v
                    start = row.time
                }
            }
            emit(&drawing, until: t1)
            svg = drawing
        }
    }
}
