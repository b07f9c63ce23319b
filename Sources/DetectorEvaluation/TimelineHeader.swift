import OrientationCore

/// The title block of a ``TimelinePlot``: the title, the sample count and score, the parameters
/// changed from the defaults, and the legend, each wrapped to the drawing's width.
///
/// `t0` and `t1` count from the log's first sample, as the time axis does.
///
/// At the default layout (title, one information line, one configuration line, one legend row)
/// the lanes start at ``TimelineLayout/lanesTop``; ``extraHeight`` is what wrapping added, by which
/// the lanes move down.
struct TimelineHeader {
    struct Line {
        enum Style { case title, text, note }
        var text: String
        var id: String?
        var style: Style
    }

    enum Swatch {
        case fill(String)
        case line(String)
        case hatch
    }

    struct LegendItem {
        var swatch: Swatch
        var label: String

        /// Estimated width, swatch and label, without the gap to the next item.
        var width: Double {
            let swatchWidth: Double
            switch swatch {
            case .fill: swatchWidth = 16
            case .line, .hatch: swatchWidth = 22
            }
            return swatchWidth + Double(label.unicodeScalars.count) * TimelineHeader.legendCharWidth
        }
    }

    static let margin = 12.0
    static let titleCharWidth = 9.0, textCharWidth = 6.2, legendCharWidth = 6.5
    static let itemGap = 14.0, rowHeight = 16.0

    let lines: [Line]
    let legendRows: [[LegendItem]]
    let width: Double

    init(plot: TimelinePlot, t0: Double, t1: Double, width: Double) {
        self.width = width
        let room = width - 2 * Self.margin
        // The axis counts from the log's first sample; the log's own clock (a phone's uptime,
        // an epoch) is given here once.
        let clock = plot.timeRange ?? 0...0
        let title = "Why did it rotate? \(plot.name)"
            + (clock.lowerBound == 0 ? "" : " (log clock \(TimelinePlot.seconds(clock.lowerBound + t0))–\(TimelinePlot.seconds(clock.lowerBound + t1)) s)")
        var lines = Self.wrap(title, room: room, charWidth: Self.titleCharWidth).map {
            Line(text: $0, id: nil, style: .title)
        }

        let score = plot.evaluation.score
        // A zoomed drawing still carries the whole recording's score: say so.
        let zoomed = t0 > 0 || t1 < clock.upperBound - clock.lowerBound
        var scoreText = (zoomed ? "Score (whole recording): " : "Score: ") + "\(score.transitions) transitions"
            + (score.alreadyShown > 0 ? " (+\(score.alreadyShown) already shown)" : "")
            + ", \(score.matched) matched, \(score.missed) missed, \(score.spurious) spurious"
        if let median = score.latencyMedian, let max = score.latencyMax {
            scoreText += "; latency median \(TimelinePlot.seconds(median)) s, max \(TimelinePlot.seconds(max)) s"
        }
        let gyro = plot.usedGyroscope ? "with gyroscope" : "accelerometer only"
        let info = "\(plot.sampleCount) samples, \(gyro), showing \(TimelinePlot.seconds(t0))–\(TimelinePlot.seconds(t1)) s."
        if Double((info + " " + scoreText).unicodeScalars.count) * Self.textCharWidth <= room {
            lines.append(Line(text: info + " " + scoreText, id: "score", style: .text))
        } else {
            lines += Self.wrap(info, room: room, charWidth: Self.textCharWidth).map { Line(text: $0, id: nil, style: .text) }
            for (k, text) in Self.wrap(scoreText, room: room, charWidth: Self.textCharWidth).enumerated() {
                lines.append(Line(text: text, id: k == 0 ? "score" : nil, style: .text))
            }
        }

        let changed = plot.changedParameters
        var configuration = changed.isEmpty ? "" : "Changed from the defaults: " + changed.joined(separator: ", ")
        if !plot.notes.isEmpty {
            let notes = plot.notes.joined(separator: "; ")
            configuration = configuration.isEmpty ? notes : "\(configuration) (\(notes))"
        }
        if !configuration.isEmpty {
            for (k, text) in Self.wrap(configuration, room: room, charWidth: Self.textCharWidth).enumerated() {
                lines.append(Line(text: text, id: k == 0 ? "configuration" : nil, style: .note))
            }
        }
        self.lines = lines

        var items = DeviceOrientation.allCases.map { LegendItem(swatch: .fill(TimelinePlot.colour($0)), label: $0.rawValue) }
        items += [OrientationDetector.Motion.still, .moving, .swinging].map {
            LegendItem(swatch: .fill(TimelinePlot.colour($0)), label: $0.rawValue)
        }
        items.append(LegendItem(swatch: .line("#e15759"), label: "spurious event"))
        items.append(LegendItem(swatch: .hatch, label: "missed truth run"))
        var rows: [[LegendItem]] = [[]]
        var x = 0.0
        for item in items {
            if !rows[rows.count - 1].isEmpty, x + item.width > room {
                rows.append([])
                x = 0
            }
            rows[rows.count - 1].append(item)
            x += item.width + Self.itemGap
        }
        legendRows = rows
    }

    /// Baselines: the title's first line at 20, then 18 per title line, 17 before the first
    /// text line and 15 between text lines. A configuration line's room is kept even when there
    /// is none, so the default layout does not depend on it.
    var baselines: [Double] {
        var result: [Double] = []
        var y = TimelinePlot.titleTop
        var previous = Line.Style.title
        for (k, line) in lines.enumerated() {
            if k > 0 { y += line.style == .title ? 18 : (previous == .title ? 17 : 15) }
            result.append(y)
            previous = line.style
        }
        return result
    }

    /// The top of the first legend row.
    var legendTop: Double {
        let textLines = lines.filter { $0.style != .title }.count
        let last = baselines.last ?? TimelinePlot.titleTop
        // Room for the configuration line whether or not there is one.
        return last + (textLines < 2 ? 15 * Double(2 - textLines) : 0) + 14
    }

    /// How much taller than the default layout the header is.
    var extraHeight: Double {
        let bottom = legendTop + Double(legendRows.count - 1) * Self.rowHeight + 12 + 14
        return max(0, bottom - TimelinePlot.anglesTop)
    }

    func draw(into svg: inout SVGWriter) {
        let n = SVGWriter.number
        svg.open("g", [("id", "title")])
        for (line, y) in zip(lines, baselines) {
            var attributes: [(String, String)] = []
            if let id = line.id { attributes.append(("id", id)) }
            switch line.style {
            case .title: attributes += [("font-size", "15"), ("font-weight", "bold")]
            case .text: break
            case .note: attributes.append(("fill", "#555555"))
            }
            svg.label(line.text, x: Self.margin, y: y, attributes)
        }
        svg.close("g")
        svg.open("g", [("id", "legend")])
        for (k, row) in legendRows.enumerated() {
            let y = legendTop + Double(k) * Self.rowHeight
            var x = Self.margin
            for item in row {
                switch item.swatch {
                case .fill(let colour):
                    svg.element("rect", [("x", n(x)), ("y", n(y)), ("width", "12"), ("height", "12"), ("fill", colour)])
                    svg.label(item.label, x: x + 16, y: y + 10)
                case .line(let colour):
                    svg.element("line", [("x1", n(x)), ("y1", n(y + 6)), ("x2", n(x + 18)), ("y2", n(y + 6)), ("stroke", colour),
                                         ("stroke-width", "2")])
                    svg.label(item.label, x: x + 22, y: y + 10)
                case .hatch:
                    svg.element("rect", [("x", n(x)), ("y", n(y)), ("width", "18"), ("height", "12"), ("fill", "url(#missed-hatch)"),
                                         ("stroke", "#e15759"), ("stroke-width", "2")])
                    svg.label(item.label, x: x + 22, y: y + 10)
                }
                x += item.width + Self.itemGap
            }
        }
        svg.close("g")
    }

    /// Greedy word wrap at spaces to `room` pixels (a word longer than a line keeps its own line).
    static func wrap(_ text: String, room: Double, charWidth: Double) -> [String] {
        let limit = max(10, Int(room / charWidth))
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            if current.isEmpty {
                current = String(word)
            } else if current.unicodeScalars.count + 1 + word.unicodeScalars.count <= limit {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        lines.append(current)
        return lines
    }
}
