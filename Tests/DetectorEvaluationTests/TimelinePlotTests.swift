@testable import DetectorEvaluation
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MotionSynthesis
import OrientationCore
import SensorLog
import Testing

/// `TimelinePlot`: a well-formed SVG with every lane, for every bundled recording.
@Suite struct TimelinePlotTests {
    /// Every `*.log` under data/ (new recordings are covered without touching this file).
    static var bundledLogs: [String] {
        let root = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let enumerator = FileManager.default.enumerator(atPath: root + "/data")
        var logs: [String] = []
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix(".log") { logs.append(root + "/data/" + path) }
        }
        return logs.sorted()
    }

    /// Element names, ids and classes of a parsed document.
    final class Inventory: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        var ids: Set<String> = []
        var classes: [String: Int] = [:]
        var texts: [String] = []
        private var text = ""

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements[name, default: 0] += 1
            if let id = attributes["id"] { ids.insert(id) }
            for c in (attributes["class"] ?? "").split(separator: " ") { classes[String(c), default: 0] += 1 }
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" || name == "title" { texts.append(text) }
        }
    }

    static func parse(_ svg: String) throws -> Inventory {
        let parser = XMLParser(data: Data(svg.utf8))
        let inventory = Inventory()
        parser.delegate = inventory
        let ok = parser.parse()
        #expect(ok, "not well-formed: \(parser.parserError.map { "\($0)" } ?? "?") at line \(parser.lineNumber)")
        return inventory
    }

    static let lanes = ["title", "score", "legend", "lane-angles", "lane-magnitude", "lane-motion", "lane-candidate",
                        "lane-pending", "lane-published", "lane-truth", "events", "axis"]

    @Test(arguments: bundledLogs)
    func everyBundledRecordingGivesAWellFormedTimelineWithEveryLane(_ path: String) throws {
        var reader = try SensorLogReader(path: path)
        let samples = try reader.readAll()
        let plot = try TimelinePlot(samples: samples, name: path)
        let svg = try plot.svg()
        let inventory = try Self.parse(svg)
        #expect(Self.lanes.allSatisfy { inventory.ids.contains($0) }, "missing: \(Self.lanes.filter { !inventory.ids.contains($0) })")
        #expect(inventory.elements["svg"] == 1)
        #expect(inventory.classes["tilt"] == 1)
        #expect(inventory.classes["magnitude"] == 1)
        #expect((inventory.classes["angle"] ?? 0) >= 1)
        #expect((inventory.classes["event"] ?? 0) == plot.evaluation.events.count, "one marker per event")
        #expect((inventory.classes["truth-run"] ?? 0) == plot.evaluation.truth.runs.count, "one band per truth run")
        #expect((inventory.classes["truth-none"] ?? 0) == (plot.evaluation.truth.runs.isEmpty ? 1 : 0), "an empty truth lane says why")
        #expect((inventory.classes["missed"] ?? 0) == plot.evaluation.score.missed)
        #expect((inventory.classes["spurious"] ?? 0) == plot.evaluation.score.spurious)
        #expect((inventory.classes["event-label"] ?? 0) == plot.evaluation.events.count, "one label per event")
        #expect(inventory.texts.contains { $0.contains("\(plot.evaluation.score.transitions) transitions") })
        #expect(!inventory.ids.contains("configuration"), "the defaults: nothing changed to report")
        // Thinned to pixel columns: a 2-minute, 100 Hz log stays small.
        #expect(svg.utf8.count < 1_000_000, "\(svg.utf8.count) bytes")
        #expect(try plot.svg() == svg, "deterministic")
        #expect(try TimelinePlot(samples: samples, name: path).svg() == svg, "deterministic from a fresh run")
    }

    /// A synthetic turn: the events and their latency show, a spurious event is red.
    @Test func aScenarioShowsItsEventsAndSpuriousOnesInRed() throws {
        let scenario = try #require(ScenarioCatalog.all.first { $0.name.hasPrefix("handling: put away") })
        let samples = scenario.samples(rate: 50, gyroscope: true)
        // With the handling rules switched off, the phone being put away flips: spurious events.
        var loose = OrientationDetector.Configuration()
        loose.diagonalExclusion = 0
        loose.screenDownStillTilt = 89
        loose.steadyAngle = 179
        let plot = try TimelinePlot(samples: samples, name: scenario.name, configuration: loose, notes: ["--set diagonal-exclusion=0"])
        let inventory = try Self.parse(try plot.svg(width: 800))
        #expect(plot.evaluation.score.spurious >= 1)
        #expect(inventory.classes["spurious"] == plot.evaluation.score.spurious)
        #expect(inventory.texts.contains { $0.contains("SPURIOUS") })
        #expect(inventory.texts.contains { $0.contains("--set diagonal-exclusion=0") })
        #expect(inventory.texts.contains { $0.contains("matched, latency") })
        // The parameters changed from the defaults are named, whatever set them.
        #expect(plot.changedParameters == ["diagonal-exclusion=0", "screen-down-still-tilt=89", "steady-angle=179"])
        #expect(inventory.ids.contains("configuration"))
        #expect(inventory.texts.contains { $0.contains("Changed from the defaults: diagonal-exclusion=0, screen-down-still-tilt=89") })
        // Labels carry the latency of a matched event and name a spurious one.
        let matched = try #require(plot.evaluation.score.matches.first)
        let latency = (matched.latency >= 0 ? "+" : "") + SVGWriter.fixed(matched.latency, decimals: 3)
        #expect(inventory.texts.contains("\(matched.event.orientation.rawValue) \(latency) s"))
        #expect(inventory.texts.contains { $0.hasSuffix(" spurious") })
    }

    /// A narrow drawing wraps its title and legend and moves the lanes down, rather than clip.
    @Test func aNarrowDrawingWrapsItsHeader() throws {
        let samples = ScenarioCatalog.all[0].samples(rate: 50, gyroscope: false)
        let plot = try TimelinePlot(samples: samples, name: "a rather long recording name/that goes on.log", notes: ["--ignore-gyro"])
        let wide = try plot.svg(width: 1600), narrow = try plot.svg(width: 400)
        for svg in [wide, narrow] {
            let inventory = try Self.parse(svg)
            #expect(Self.lanes.allSatisfy { inventory.ids.contains($0) })
        }
        #expect(wide.contains("height=\"582.0\""))
        #expect(!narrow.contains("height=\"582.0\""))
        #expect(narrow.contains("<g transform=\"translate(0,"))
        let header = TimelineHeader(plot: plot, t0: 0, t1: 1, width: 400)
        #expect(header.legendRows.count > 1)
        #expect(header.lines.allSatisfy { Double($0.text.count) * ($0.style == .title ? 9 : 6.2) <= 400 - 24 })
    }

    @Test func aRangeZoomsAndIsChecked() throws {
        let samples = ScenarioCatalog.all[0].samples(rate: 50, gyroscope: false)
        let plot = try TimelinePlot(samples: samples, name: "zoom")
        let whole = try Self.parse(try plot.svg())
        let zoomed = try Self.parse(try plot.svg(from: 5, to: 6))
        // One-second ticks over 20 s, tenths over one second.
        #expect(whole.texts.contains("10") && !whole.texts.contains("5.5"))
        #expect(zoomed.texts.contains("5.50"))
        #expect(zoomed.texts.contains { $0.contains("showing 5.000–6.000 s") })
        #expect(throws: PlotError.self) { try plot.svg(from: 6, to: 5) }
        #expect(throws: PlotError.self) { try plot.svg(from: 5, to: 5) }
        #expect(throws: PlotError.self) { try plot.svg(from: 100, to: 200) }
        #expect(throws: PlotError.self) { try plot.svg(from: 5, to: 100) }  // within the recording, not just overlapping it
        #expect(throws: PlotError.self) { try plot.svg(from: -1, to: 5) }
        #expect(throws: PlotError.self) { try plot.svg(from: .nan) }
        #expect(throws: PlotError.self) { try plot.svg(to: plot.timeRange!.lowerBound) }
        #expect(try Self.parse(try plot.svg(from: 5)).texts.contains { $0.contains("showing 5.000–") })
        do {
            _ = try plot.svg(from: 6, to: 5)
        } catch {
            #expect(error.description == "--from 6.000 s is not before --to 5.000 s")
        }
        do {
            _ = try plot.svg(from: 5, to: 100)
        } catch {
            #expect(error.description.hasPrefix("--to 100.000 s is outside the recording: the recording runs 0.000000–"))
        }
        #expect(throws: PlotError.self) { try plot.svg(width: 10) }
        #expect(throws: PlotError.self) { try TimelinePlot(samples: [], name: "empty").svg() }
        #expect(throws: PlotError.self) { try TimelinePlot(samples: [samples[0]], name: "one sample").svg() }
    }

    @Test func textIsEscaped() throws {
        let samples = ScenarioCatalog.all[0].samples(rate: 10, gyroscope: false)
        let name = "a<b>&\"c'\u{1}.log"
        let svg = try TimelinePlot(samples: samples, name: name).svg()
        let inventory = try Self.parse(svg)
        #expect(inventory.texts.contains { $0.contains("a<b>&\"c'?.log") })
        #expect(!svg.contains("a<b>"))
    }

    @Test func extremesSurviveThinning() throws {
        // 10,000 samples at 1 kHz with one short jolt: it must show in an 800-pixel drawing.
        var samples = (0..<10_000).map { Sample(time: Double($0) / 1000, acceleration: Vector3(0, -9.8, 0)) }
        for k in 5_000..<5_020 { samples[k].acceleration = Vector3(0, -19, 0) }  // a 20 ms jolt
        let plot = try TimelinePlot(samples: samples, name: "spike")
        let svg = try plot.svg(width: 800)
        let polyline = try #require(svg.split(separator: "\n").first { $0.contains("class=\"magnitude\"") })
        let points = polyline.split(separator: "\"").first { $0.contains(",") && $0.contains(" ") } ?? ""
        #expect(points.split(separator: " ").count <= 2 * 800, "thinned to pixel columns")
        let ys = points.split(separator: " ").compactMap { Double($0.split(separator: ",")[1]) }
        #expect(ys.min()! < ys.max()! - 5, "the spike is drawn")
    }

    /// Rows thinned for one drawing draw it byte for byte as all the rows do (issue 18: plot
    /// keeps a few rows per pixel column, not one per sample): every bundled recording, drawn
    /// whole, zoomed and narrow, with and without the gyroscope.
    @Test(arguments: bundledLogs)
    func rowsThinnedForADrawingDrawItExactly(_ path: String) throws {
        var reader = try SensorLogReader(path: path)
        let samples = try reader.readAll()
        let accepted = samples.filter(OrientationDetector.accepts)
        let span = try #require(accepted.first.map { first in first.time...accepted.last!.time })
        let length = span.upperBound - span.lowerBound
        for ignoreGyroscope in [false, true] {
            let all = try TimelinePlot(samples: samples, name: path, ignoreGyroscope: ignoreGyroscope)
            for (width, from, to) in [(1600, nil, nil), (400, nil, nil), (1200, length * 0.3, length * 0.4), (900, length * 0.5, nil)] as [(Int, Double?, Double?)] {
                var iterator = samples.makeIterator()
                let drawing = TimelinePlot.Drawing(width: width, from: from, to: to, span: span)
                let thinned = try TimelinePlot(name: path, ignoreGyroscope: ignoreGyroscope, drawing: drawing) { iterator.next() }
                #expect(thinned.rows.count < all.rows.count / 2 || all.rows.count < 20 * width,
                        "\(thinned.rows.count) of \(all.rows.count) rows kept")
                #expect(try thinned.svg(width: width, from: from, to: to) == all.svg(width: width, from: from, to: to),
                        "width \(width), from \(from.map { "\($0)" } ?? "-"), to \(to.map { "\($0)" } ?? "-"), ignoreGyroscope \(ignoreGyroscope)")
                // Another drawing from the same thinned rows would be wrong: refused.
                #expect(throws: PlotError.self) { try thinned.svg(width: width + 1, from: from, to: to) }
            }
        }
    }

    /// `accepts` says what the detector takes: the rest it only counts.
    @Test(arguments: [
        (Sample(time: 1, acceleration: Vector3(0, -9.8, 0)), true),
        (Sample(time: 1, acceleration: Vector3(0, 0, 0)), false),
        (Sample(time: 1, acceleration: Vector3(.nan, 1, 0)), false),
        (Sample(time: .infinity, acceleration: Vector3(0, -9.8, 0)), false),
        (Sample(time: 1, acceleration: Vector3(0, 0, 1e-30)), true),
    ] as [(Sample, Bool)])
    func acceptsIsWhatTheDetectorTakes(_ sample: Sample, _ expected: Bool) throws {
        #expect(OrientationDetector.accepts(sample) == expected)
        var detector = try OrientationDetector()
        _ = detector.process(sample)
        let ignored = detector.statistics.ignoredZero + detector.statistics.ignoredNonFinite
        #expect((ignored == 0) == expected)
    }
}
