@testable import DetectorEvaluation
import Foundation
import MotionSynthesis
import OrientationCore
import Testing

/// Issue 21, item 9: the plot's lanes have plain-word names and a one-line legend each, nothing
/// overlaps, and time counts from the log's start (the log's own clock in the title).
@Suite struct TimelineLayoutTests {
    static let lanes = TimelineLayout.lanes

    @Test func everyLaneHasAPlainNameAndALegendThatFitTheMargin() {
        let jargon = ["|a|", "fast filter", "candidate", "pending", "(blue)", "(orange)"]
        for lane in Self.lanes {
            #expect(!jargon.contains { lane.name.contains($0) }, "\(lane.name)")
            #expect(!lane.legend.isEmpty, "\(lane.name) has a legend")
            let widest = Double(max(lane.legend.unicodeScalars.count, 1)) * TimelineLayout.legendCharWidth
            #expect(widest <= TimelineLayout.left - 16, "\(lane.name)'s legend fits the margin: \(lane.legend)")
            #expect(Double(lane.name.unicodeScalars.count) * 6.5 <= TimelineLayout.left - 16, "\(lane.name) fits")
        }
        #expect(Set(Self.lanes.map(\.id)).count == Self.lanes.count)
    }

    @Test func lanesAndLabelsDoNotOverlap() {
        for (upper, lower) in zip(Self.lanes, Self.lanes.dropFirst()) {
            #expect(upper.bottom <= lower.top, "\(upper.name) overlaps \(lower.name)")
        }
        for lane in Self.lanes {
            #expect(lane.height >= TimelineLayout.nameBlockHeight, "\(lane.name)'s slot holds its name and legend")
            #expect(lane.barTop >= lane.top && lane.barTop + lane.barHeight <= lane.bottom)
        }
        // The event labels' rows fit between the lane above the published one and it.
        let topmostLabel = TimelineLayout.published.top - 3 - Double(TimelineLayout.eventLabelRows - 1) * TimelineLayout.eventLabelStep - 8
        #expect(topmostLabel >= TimelineLayout.waiting.bottom)
        #expect(TimelineLayout.axisTop >= TimelineLayout.truth.bottom + 8)
        #expect(TimelineLayout.height >= TimelineLayout.axisTop + 24)
        // Tilt and direction have a lane each.
        #expect(TimelineLayout.tilt.bottom <= TimelineLayout.direction.top)
    }

    /// The `x` of every `<text>` whose content is one of `labels`.
    static func xPositions(_ svg: String, of labels: [String], class name: String) -> [String: Double] {
        var found: [String: Double] = [:]
        for line in svg.split(separator: "\n") where line.hasPrefix("<text x=\"") && line.contains("class=\"\(name)\"") {
            guard let close = line.lastIndex(of: "<"), let open = line[..<close].lastIndex(of: ">") else { continue }
            let content = String(line[line.index(after: open)..<close])
            guard let label = labels.first(where: { SVGWriter.escape($0) == content }) else { continue }
            let x = line.dropFirst("<text x=\"".count).prefix { $0 != "\"" }
            found[label] = Double(x)
        }
        return found
    }

    /// Scale labels sit in the right margin, outside the traces; lane names and legends in the
    /// left one.
    @Test func noLabelSitsOnATrace() throws {
        let samples = ScenarioCatalog.all[0].samples(rate: 50, gyroscope: false)
        let width = 1200.0
        let svg = try TimelinePlot(samples: samples, name: "labels").svg(width: Int(width))
        let scale = ["75° face up", "55°", "0° upright", "−55°", "−75° face down", "portrait", "landscape-l", "upside down", "landscape-r"]
        let positions = Self.xPositions(svg, of: scale, class: "scale")
        #expect(Set(positions.keys) == Set(scale), "\(positions)")
        for (label, x) in positions { #expect(x >= width - TimelineLayout.right, "\(label) at \(x) is inside the plot") }
        let names = Self.xPositions(svg, of: Self.lanes.map(\.name), class: "lane-name")
            .merging(Self.xPositions(svg, of: Self.lanes.map(\.legend), class: "lane-legend")) { a, _ in a }
        #expect(names.count == 2 * Self.lanes.count, "every name and legend drawn: \(names)")
        for (label, x) in names { #expect(x <= TimelineLayout.left, "\(label) at \(x)") }
    }

    /// A phone log on its uptime clock (the bundled purse recording starts at 581979.574 s):
    /// the axis counts from 0, the title gives the log's clock, --from and --to count like the
    /// axis.
    @Test func timeCountsFromTheLogsStart() throws {
        let start = 581_979.574
        let samples = ScenarioCatalog.all[0].samples(rate: 50, gyroscope: false).map {
            Sample(time: $0.time + start, acceleration: $0.acceleration, angularRate: $0.angularRate)
        }
        let plot = try TimelinePlot(samples: samples, name: "phone.log")
        let svg = try plot.svg()
        let inventory = try TimelinePlotTests.parse(svg)
        #expect(inventory.texts.contains("0") && inventory.texts.contains("10"), "ticks from the start")
        #expect(!inventory.texts.contains { $0.hasPrefix("5819") && Double($0) != nil }, "no tick on the log's clock")
        #expect(inventory.texts.contains { $0.hasPrefix("Why did it rotate? phone.log (log clock 581979.574–") }, "the title gives the clock")
        #expect(inventory.texts.contains("seconds from the start"))
        let zoomed = try TimelinePlotTests.parse(try plot.svg(from: 5, to: 6))
        #expect(zoomed.texts.contains("5.50"))
        #expect(zoomed.texts.contains { $0.contains("showing 5.000–6.000 s") })
        #expect(zoomed.texts.contains { $0.contains("(log clock 581984.574–581985.574 s)") })
        do {
            _ = try plot.svg(from: start + 1)
            Issue.record("the log's clock is not the axis's")
        } catch {
            #expect(error.description.contains("the recording runs 0.000000–"), "\(error.description)")
            #expect(error.description.contains("its own clock 581979.574000–"), "\(error.description)")
        }
    }
}
