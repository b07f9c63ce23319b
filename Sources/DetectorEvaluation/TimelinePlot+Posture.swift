import OrientationCore
import PostureCore

/// A convertible's lanes (issue 30), beneath the time axis of the orientation's: the hinge angle
/// with the posture boundaries as guides and the stretches the detector held shaded (hover: why),
/// and the published posture with a tick per event. Drawn only for a ``TimelinePlot`` with a
/// ``PostureTimeline``, so a single-sensor plot is byte for byte what it was.
extension TimelinePlot {
    /// The hinge lane's slot.
    static let hingeLane = TimelineLayout.Lane("lane-hinge", "hinge angle", "0° closed, 180° flat, 360° folded; grey: held",
                                               top: TimelineLayout.height + 8, height: 90)
    /// The posture lane's slot.
    static let postureLane = TimelineLayout.Lane("lane-posture", "posture", "what a posture client would be told; ticks: events",
                                                 top: TimelineLayout.height + 106, height: 22, bar: 16)
    /// How much taller a plot with the convertible's lanes is.
    static let postureExtraHeight = 106.0 + 22 + 14
}

extension TimelinePlot.Canvas {
    mutating func drawPosture(_ timeline: PostureTimeline) {
        let n = SVGWriter.number
        let lane = TimelinePlot.hingeLane, postureLane = TimelinePlot.postureLane
        svg.open("g", [("id", "lane-hinge")])
        for slot in [lane, postureLane] {
            let middle = slot.top + slot.height / 2
            svg.label(slot.name, x: TimelinePlot.left - 8, y: middle - 1, [("class", "lane-name"), ("text-anchor", "end"), ("fill", "#333333")])
            svg.label(slot.legend, x: TimelinePlot.left - 8, y: middle + 9,
                      [("class", "lane-legend"), ("text-anchor", "end"), ("fill", "#777777"), ("font-size", "9")])
        }
        svg.element("rect", [("x", n(TimelinePlot.left)), ("y", n(lane.top)), ("width", n(plotWidth)), ("height", n(lane.height)), ("fill", "#f7f7f7")])
        let y = { (angle: Double) in lane.bottom - min(max(angle, 0), 360) / 360 * lane.height }
        // Held stretches first, beneath the guides and the trace.
        var heldStart: Double? = nil, heldReason: PostureHold? = nil
        func emitHeld(_ svg: inout SVGWriter, until end: Double) {
            guard let start = heldStart, let reason = heldReason else { return }
            let sx = x(start), w = x(end) - sx
            guard w > 0.05 else { return }
            svg.element("rect", [("class", "posture-held"), ("x", n(sx)), ("y", n(lane.top)), ("width", n(w)), ("height", n(lane.height)),
                                 ("fill", "#bab0ac"), ("fill-opacity", "0.35")],
                        title: "held (\(reason.rawValue)) \(shown(start))–\(shown(end)) s")
        }
        var drawing = svg
        for row in timeline.rows where inRange(row.time) && row.hold != heldReason {
            emitHeld(&drawing, until: row.time)
            heldStart = row.hold == nil ? nil : row.time
            heldReason = row.hold
        }
        emitHeld(&drawing, until: t1)
        svg = drawing
        let c = timeline.configuration
        for (angle, label) in [(c.closedAngle, "closed"), (c.flatLowerAngle, "flat"), (c.flatUpperAngle, "tent/stand"), (c.tabletAngle, "tablet")] {
            svg.element("line", [("x1", n(TimelinePlot.left)), ("y1", n(y(angle))), ("x2", n(width - TimelinePlot.right)), ("y2", n(y(angle))),
                                 ("stroke", "#cccccc"), ("stroke-dasharray", "4 3")])
            scaleLabel("\(SVGWriter.fixed(angle, decimals: 0))° \(label)", y: y(angle), colour: "#777777")
        }
        for points in hingeLines(timeline.rows, y: y) {
            svg.element("polyline", [("class", "hinge"), ("fill", "none"), ("stroke", "#1f4e9c"), ("stroke-width", "1.2"), ("points", points)])
        }
        svg.close("g")

        svg.open("g", [("id", "lane-posture")])
        var current: Posture? = nil
        var start = t0
        func emit(_ svg: inout SVGWriter, until end: Double) {
            guard let posture = current else { return }
            let sx = x(start), w = x(end) - sx
            guard w > 0.05 else { return }
            svg.element("rect", [("class", "posture"), ("x", n(sx)), ("y", n(postureLane.barTop)), ("width", n(w)), ("height", n(postureLane.barHeight)),
                                 ("fill", PostureTimeline.colour(posture))],
                        title: w >= 3 ? "posture \(posture.rawValue) \(shown(start))–\(shown(end)) s" : nil)
            if w > 50 {
                svg.label(posture.rawValue, x: sx + 3, y: postureLane.barTop + postureLane.barHeight - 4, [("fill", "#ffffff"), ("font-size", "10")])
            }
        }
        drawing = svg
        for row in timeline.rows where inRange(row.time) && row.posture != current {
            emit(&drawing, until: row.time)
            current = row.posture
            start = row.time
        }
        emit(&drawing, until: t1)
        svg = drawing
        for event in timeline.events where inRange(event.time) {
            let ex = x(event.time)
            let hinge = event.hingeAngle.map { " (hinge \(SVGWriter.fixed($0, decimals: 0))°)" } ?? ""
            svg.element("line", [("class", "posture-event"), ("x1", n(ex)), ("y1", n(lane.top)), ("x2", n(ex)), ("y2", n(postureLane.bottom)),
                                 ("stroke", "#333333"), ("stroke-dasharray", "3 2")],
                        title: "\(shown(event.time)) s: posture \(event.previous.rawValue) → \(event.posture.rawValue)\(hinge)")
        }
        svg.close("g")
    }

    /// The hinge angle, each pixel column's lowest and highest value in order, broken where it is
    /// unknown and where it crosses 0°/360° in one step.
    func hingeLines(_ rows: [PostureTimeline.Row], y: (Double) -> Double) -> [String] {
        var lines: [String] = []
        var current = ""
        var column = Int.min
        var low = Double.infinity, high = -Double.infinity, lowFirst = true
        func flush() {
            guard column != Int.min, low.isFinite else { return }
            let cx = SVGWriter.number(TimelinePlot.left + Double(column) + 0.5)
            let (a, b) = lowFirst ? (low, high) : (high, low)
            current += "\(cx),\(SVGWriter.number(y(a))) "
            if b != a { current += "\(cx),\(SVGWriter.number(y(b))) " }
        }
        func breakLine() {
            flush()
            if !current.isEmpty { lines.append(String(current.dropLast())) }
            current = ""
            column = .min
            low = .infinity
            high = -.infinity
        }
        var previous = Double.nan
        for row in rows where inRange(row.time) {
            guard let angle = row.hingeAngle, angle.isFinite else {
                breakLine()
                previous = .nan
                continue
            }
            if previous.isFinite, abs(angle - previous) > 180 { breakLine() }
            previous = angle
            let c = Int(x(row.time) - TimelinePlot.left)
            if c != column {
                flush()
                column = c
                low = angle
                high = angle
                lowFirst = true
            } else if angle < low {
                low = angle
                lowFirst = false
            } else if angle > high {
                high = angle
                lowFirst = true
            }
        }
        breakLine()
        return lines
    }
}
