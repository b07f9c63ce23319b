import Foundation
import Testing
import TestSupport

/// A convertible's posture offline (issue 30), end to end with the real binary: the posture
/// scenarios written as v3 logs by `simulate --posture --output`, replayed, evaluated, and the
/// `[posture]` section of `--config`.
@Suite struct PostureCommandTests {
    /// Writes one posture scenario as a log and returns its path.
    static func simulated(_ name: String, rate: Int = 50) throws -> String {
        let path = temporaryDirectory("posture-log") + "/scenario.log"
        let result = try CommandRunner.run(["simulate", "--posture", name, "--rate", "\(rate)", "--output", path])
        guard result.status == 0 else { throw TestError("simulate --output failed: \(result.stderr)") }
        return path
    }

    /// The posture names of replay's `time posture: NAME …` lines.
    static func postures(_ lines: [String]) -> [String] {
        lines.filter { $0.contains(" posture: ") }.map { String($0.split(separator: " ")[2]) }
    }

    @Test func simulateListsThePostureScenarios() throws {
        let result = try CommandRunner.run(["simulate", "--posture"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 17)
        #expect(result.lines.allSatisfy { $0.hasPrefix("posture ") })
        #expect(result.lines.contains { $0.hasSuffix("laptop → stand → laptop") })
    }

    /// (a part of the scenario's name, the postures a replay of its log must print, in order)
    static let replayed: [(String, [String])] = [
        ("lid switch wired", ["closed", "laptop", "flat", "tent", "tablet", "laptop"]),
        ("no lid switch", ["laptop", "flat", "tent", "tablet", "laptop", "closed"]),
        ("laptop -> stand -> laptop", ["laptop", "stand", "laptop"]),
        ("carrying a half-open laptop", ["laptop"]),
        ("tablet held in portrait", ["laptop", "tablet"]),
        ("shut while on its side", ["laptop", "unknown"]),
    ]

    @Test(arguments: replayed.indices)
    func replayPrintsTheScenariosPostures(_ index: Int) throws {
        let (name, expected) = Self.replayed[index]
        let log = try Self.simulated(name)
        let text = readText(log)
        #expect(text.hasPrefix("# orientationd-log v3\n"))
        #expect(text.contains("\ntime,accel_x,accel_y,accel_z,base_x,base_y,base_z"))
        let result = try CommandRunner.run(["replay", log])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.postures(result.lines) == expected, "\(result.stdout)")
        // Orientation events are still printed, as for a single-sensor log.
        #expect(result.lines.contains { !$0.contains("posture") })
        // (With the lid switch wired, the first laptop is published the moment the switch opens,
        // at the angle of that moment: closed never outlives an open switch, issue 38.)
        let laptops = result.lines.filter { $0.contains(" posture: laptop") }
        for line in name == "lid switch wired" ? Array(laptops.dropFirst()) : laptops {
            #expect(line.range(of: #"^[0-9]+\.[0-9]{6} posture: laptop \(hinge 1[01][0-9]°\)$"#, options: .regularExpression) != nil, "\(line)")
        }
        #expect(result.stderr.contains("\nreplay (posture): "), "\(result.stderr)")
    }

    @Test func replayJSONCarriesPostureAndHinge() throws {
        let log = try Self.simulated("laptop -> stand -> laptop", rate: 25)
        let result = try CommandRunner.run(["replay", "--json", "--quiet", log])
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
        let objects = try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let postures = objects.filter { $0["posture"] != nil }
        #expect(postures.map { $0["posture"] as? String } == ["laptop", "stand", "laptop"])
        #expect(postures.map { $0["previous"] as? String } == ["unknown", "laptop", "stand"])
        let stand = try #require(postures[1]["hinge"] as? Double)
        #expect(stand > 250 && stand < 310)
    }

    /// `--config`'s `[posture]` section reaches the detector: with flat reaching to 310°, the
    /// tent at 300° reads as flat.
    @Test func replayUsesThePostureSection() throws {
        let log = try Self.simulated("lid switch wired")
        let config = try CommandRunner.temporaryFile("o.conf", contents: "[posture]\nflat-upper-angle = 310\n")
        let result = try CommandRunner.run(["replay", "--quiet", "--config", config, log])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.postures(result.lines) == ["closed", "laptop", "flat", "tablet", "laptop"])
    }

    @Test func aBadPostureSectionIsNamedWithFileAndLine() throws {
        let config = try CommandRunner.temporaryFile("o.conf", contents: "[detector]\nsettle-time = 0.2\n[posture]\nsettle-tme = 0.3\ntablet-mode-switch = maybe\n")
        for command in [["replay", "data/xio-fusion/handheld.log"], ["evaluate", "--scenarios"]] {
            let result = try CommandRunner.run(command + ["--config", config])
            #expect(result.status == 1)
            #expect(result.stderr == """
                orientationctl: \(config):4: unknown posture parameter settle-tme; did you mean 'settle-time'?
                \(config):5: tablet-mode-switch: must be true or false, not "maybe"

                """, "\(result.stderr)")
        }
    }

    @Test func aMalformedBaseCellStopsTheReplayWithFileAndLine() throws {
        let log = try CommandRunner.temporaryFile("bad.log", contents: """
            # orientationd-log v3
            time,accel_x,accel_y,accel_z,base_x,base_y,base_z
            0,0,0,9.8,,,
            0.01,,,,0,zero,9.8

            """)
        let result = try CommandRunner.run(["replay", log])
        #expect(result.status == 1)
        #expect(result.stderr.contains("orientationctl: \(log):4: column base_y: \"zero\" is not a number"), "\(result.stderr)")
    }

    @Test func evaluateScenariosScoresThePostureCatalogue() throws {
        // Issue 38: every posture scenario at 2.5, 5, 10 and 20 Hz, a block per rate with its
        // own count (the posture table per rate), then the posture total.
        let result = try CommandRunner.run(["evaluate", "--scenarios"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.lines
        let count = 17  // PostureScenarioCatalog.all: 9 of issue 30, 8 recorded-style of issue 38
        for rate in ["2.5", "5", "10", "20"] {
            let block = lines.filter { $0.hasPrefix("posture scenario at \(rate) Hz: ") }
            #expect(block.count == count, "\(rate): \(block)")
            #expect(lines.contains { $0.hasPrefix("posture at \(rate) Hz (\(count) scenarios): ") }, "\(rate)")
        }
        // At the full rate every scenario passes.
        #expect(lines.contains { $0.hasPrefix("posture at 20 Hz (\(count) scenarios): \(count) passed, 0 failed") })
        let lastOrientation = try #require(lines.lastIndex { $0.hasPrefix("scenario: ") })
        let firstPosture = try #require(lines.firstIndex { $0.hasPrefix("posture scenario at ") })
        let postureTotal = try #require(lines.firstIndex { $0.hasPrefix("posture total (\(4 * count) scenarios): ") })
        // The orientation's lines first, as before, and its total still the last line.
        #expect(lastOrientation < firstPosture && postureTotal == lines.count - 2)
        #expect(lines.last?.hasPrefix("total (") == true)
        #expect(result.stderr.contains("posture: judged by the posture specification's rules"))

        // --json keeps standard output one orientation object per input; the posture's lines
        // go to standard error with the totals.
        let json = try CommandRunner.run(["evaluate", "--scenarios", "--json"])
        #expect(json.status == 0)
        #expect(json.lines.allSatisfy { $0.hasPrefix("{\"transitions\":") && $0.contains("\"log\":\"scenario: ") })
        #expect(json.stderr.split(separator: "\n").filter { $0.hasPrefix("posture scenario at ") }.count == 4 * count, "\(json.stderr)")
        #expect(json.stderr.contains("\nposture total (\(4 * count) scenarios): "))
    }

    /// A convertible's log is judged against the truth it states; the same events against a
    /// truth that says otherwise fail.
    @Test func evaluateJudgesALogAgainstItsExpectedPostures() throws {
        let log = try Self.simulated("lid switch wired")
        let pass = try CommandRunner.run(["evaluate", log])
        #expect(pass.status == 0, "\(pass.stderr)")
        #expect(pass.lines.contains { $0.hasPrefix("\(log): posture: PASS, 6 events; latency median ") }, "\(pass.stdout)")
        #expect(pass.lines.contains { $0.hasPrefix("posture total (1 log): 1 passed, 0 failed") })
        #expect(pass.lines.last?.hasPrefix("total (1 log): ") == true)
        let json = try CommandRunner.run(["evaluate", "--json", log])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["posture_pass"] as? Bool == true && object["posture_events"] as? Int == 6 && object["transitions"] != nil)

        let altered = readText(log).replacingOccurrences(of: "# expected-posture: tent ", with: "# expected-posture: stand ")
        let wrong = try CommandRunner.temporaryFile("wrong.log", contents: altered)
        let fail = try CommandRunner.run(["evaluate", wrong])
        #expect(fail.status == 0)
        #expect(fail.lines.contains { $0.hasPrefix("\(wrong): posture: FAIL (events closed@") && $0.contains("but expected closed, laptop, flat, stand, tablet, laptop") },
                "\(fail.stdout)")

        let noTruth = try CommandRunner.temporaryFile("plain.log", contents: altered.split(separator: "\n").filter { !$0.hasPrefix("# expected-") }.joined(separator: "\n"))
        let plain = try CommandRunner.run(["evaluate", noTruth])
        #expect(plain.lines.contains("\(noTruth): posture: 6 events, not judged (the log states no expected-posture)"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("posture total"))

        let garbled = try CommandRunner.temporaryFile("garbled.log", contents: altered.replacingOccurrences(of: "# expected-posture: closed\n", with: "# expected-posture: shut\n"))
        let bad = try CommandRunner.run(["evaluate", garbled])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("orientationctl: \(garbled): expected-posture \"shut\": must start with a posture"), "\(bad.stderr)")
    }

    /// `plot` of a convertible's log adds the hinge lane (the trace, the boundaries, the held
    /// stretches) and the posture lane with a tick per event; a single-sensor log's has neither.
    @Test func plotDrawsTheHingeAndPostureLanes() throws {
        let log = try Self.simulated("lid switch wired")
        let svgPath = temporaryDirectory("posture-plot") + "/p.svg"
        let result = try CommandRunner.run(["plot", log, "-o", svgPath])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(" 6 posture events)"), "\(result.stderr)")
        let svg = readText(svgPath)
        #expect(svg.contains("<g id=\"lane-hinge\">") && svg.contains("<g id=\"lane-posture\">"))
        #expect(svg.contains(">hinge angle</text>"))
        #expect(svg.components(separatedBy: "class=\"hinge\"").count - 1 >= 1)
        #expect(svg.components(separatedBy: "class=\"posture-event\"").count - 1 == 6)
        for posture in ["closed", "laptop", "flat", "tent", "tablet"] {
            #expect(svg.contains("<title>posture \(posture) "), "\(posture)")
        }
        #expect(svg.contains("posture laptop → flat (hinge 180°)"))
        #expect(svg.contains("<title>held (display-moving) "))
        for guide in ["20° closed", "160° flat", "200° tent/stand", "330° tablet"] { #expect(svg.contains(">\(guide)</text>"), "\(guide)") }

        let plain = try CommandRunner.run(["plot", "data/xio-fusion/handheld.log", "-o", "-"])
        #expect(plain.status == 0)
        #expect(!plain.stdout.contains("lane-hinge") && !plain.stdout.contains("lane-posture"))
    }

    @Test func simulateChecksThePostureSpecification() throws {
        let result = try CommandRunner.run(["simulate", "--posture", "--check", "stand"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "4 passed, 0 failed\n")  // one scenario at 10, 25, 50 and 100 Hz
        let run = try CommandRunner.run(["simulate", "--posture", "laptop -> stand -> laptop", "--rate", "25"])
        #expect(run.status == 0)
        #expect(Self.postures(run.lines) == ["laptop", "stand", "laptop"] && run.lines.last == "PASS", "\(run.stdout)")
    }

    /// `--output` writes an orientation scenario too (a single-sensor v1 log), and its replay
    /// gives the events `simulate` prints for it.
    @Test func simulateWritesAnOrientationScenarioAsALog() throws {
        let name = "half turn portrait -> portrait-upside-down (clockwise) in 0.45 s"
        let path = temporaryDirectory("orientation-log") + "/o.log"
        let written = try CommandRunner.run(["simulate", name, "--output", path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(readText(path).hasPrefix("# orientationd-log v1\n# source: orientationctl simulate \"half turn portrait → portrait-upside-down"))
        let replayed = try CommandRunner.run(["replay", "--quiet", path])
        let simulated = try CommandRunner.run(["simulate", name])
        let events = simulated.lines.filter { $0.first?.isNumber == true }
        #expect(!events.isEmpty && replayed.lines.map { $0.split(separator: " ")[1] } == events.map { $0.split(separator: " ")[1] },
                "\(replayed.stdout)\n\(simulated.stdout)")
        let refused = try CommandRunner.run(["simulate", "--output", path])
        #expect(refused.status == 64 && refused.stderr.contains("--output needs a scenario name"))
    }

    /// Every posture scenario at every rate of the specification, written as a log (5 decimals,
    /// lid changes on the rows of their instants) and judged from that log against the truth it
    /// states: the log loses nothing the specification's run needs.
    @Test(arguments: [20, 50])
    func everyScenarioPassesFromItsLog(_ rate: Int) throws {
        let list = try CommandRunner.run(["simulate", "--posture"])
        let names = list.lines.map { String($0.dropFirst("posture".count)).trimmingCharacters(in: .whitespaces) }
        #expect(names.count == 17)
        for name in names {
            let log = try Self.simulated(name, rate: rate)
            let result = try CommandRunner.run(["evaluate", log])
            #expect(result.status == 0, "\(name) @ \(rate) Hz: \(result.stderr)")
            #expect(result.lines.contains { $0.hasPrefix("\(log): posture: PASS, ") }, "\(name) @ \(rate) Hz: \(result.stdout)")
        }
    }

    /// `parameters --posture`: the `[posture]` table, with `--config`'s values.
    @Test func parametersListsThePostureSection() throws {
        let defaults = try CommandRunner.run(["parameters", "--posture"])
        #expect(defaults.status == 0, "\(defaults.stderr)")
        #expect(defaults.lines.count == 22)
        #expect(defaults.lines.contains { $0.hasPrefix("dbus-hold-in-laptop     false ") }, "\(defaults.stdout)")
        #expect(defaults.lines.first?.hasPrefix("hinge-edge              bottom ") == true, "\(defaults.stdout)")
        #expect(defaults.lines.contains { $0.hasPrefix("settle-time             0.3 s ") })
        #expect(defaults.lines.last?.hasPrefix("tablet-mode-switch      false ") == true)
        let config = try CommandRunner.temporaryFile("o.conf", contents: "[posture]\nsettle-time = 0.5\ntablet-mode-switch = true\n")
        let set = try CommandRunner.run(["parameters", "--posture", "--config", config])
        #expect(set.lines.contains { $0.hasPrefix("settle-time             0.5 s ") })
        #expect(set.lines.last?.hasPrefix("tablet-mode-switch      true ") == true)
        // Without --posture, the orientation detector's table as before.
        let plain = try CommandRunner.run(["parameters"])
        #expect(!plain.stdout.contains("hinge-edge") && plain.stdout.contains("dead-band"))
    }
}
