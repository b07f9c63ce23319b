import Foundation
import Testing

/// The recordings under data/ that came from other formats: each is what its README's import
/// command makes of the bundled source file (so the presets and the provenance stay true), and
/// each behaves as a careful user of the recorded device expects.
@Suite struct BundledDataTests {
    struct Recording: Sendable, CustomStringConvertible {
        let log: String, csv: String, preset: String, device: String, rate: String, activity: String
        var description: String { log }
    }

    static let oxford = "data/oxford-step-counter/"
    static let s6 = "Samsung S6 (an Android phone's accelerometer)"
    static let pixelHand = Recording(log: oxford + "pixel-jamie-swingingarm-1.log", csv: oxford + "raw/pixel-jamie-swingingarm-1.csv",
                                     preset: "oxford-step-counter-optimisation", device: "Google Pixel (an Android phone's accelerometer)",
                                     rate: "405", activity: "the phone in the hand of a swinging arm (the source's Jamie)")
    static let samsung = "Samsung (model not named by the source; an Android phone's accelerometer)"
    static let carried = [
        Recording(log: oxford + "samsung-dario-purse-1.log", csv: oxford + "raw/samsung-dario-purse-1.csv",
                  preset: "oxford-step-counter-optimisation", device: samsung, rate: "200",
                  activity: "the phone in a purse (the source's Dario)"),
        Recording(log: oxford + "samsung-carmelo-armband-1.log", csv: oxford + "raw/samsung-carmelo-armband-1.csv",
                  preset: "oxford-step-counter-optimisation", device: samsung, rate: "200",
                  activity: "the phone in an armband (the source's Carmelo)"),
        Recording(log: oxford + "samsung-carmelo-neckpouch-1.log", csv: oxford + "raw/samsung-carmelo-neckpouch-1.csv",
                  preset: "oxford-step-counter-optimisation", device: samsung, rate: "200",
                  activity: "the phone in a pouch hanging from the neck (the source's Carmelo)"),
        // Issue 20, copied from the data set's git history byte for byte (raw/PROVENANCE.txt).
        Recording(log: oxford + "pixel-jamie-purse-1.log", csv: oxford + "raw/pixel-jamie-purse-1.csv",
                  preset: "oxford-step-counter-optimisation", device: "Google Pixel (an Android phone's accelerometer)", rate: "405",
                  activity: "the phone in a purse (the source's Jamie)"),
    ]
    static let walking = [
        Recording(log: oxford + "s6-user1-hand.log", csv: oxford + "raw/s6-user1-hand.csv", preset: "oxford-step-counter",
                  device: s6, rate: "100", activity: "the phone held in the hand (person 1)"),
        Recording(log: oxford + "s6-user2-hand.log", csv: oxford + "raw/s6-user2-hand.csv", preset: "oxford-step-counter",
                  device: s6, rate: "100", activity: "the phone held in the hand (person 2)"),
        Recording(log: oxford + "s6-user1-frontpocket.log", csv: oxford + "raw/s6-user1-frontpocket.csv", preset: "oxford-step-counter",
                  device: s6, rate: "100", activity: "the phone in a front trouser pocket (person 1)"),
        Recording(log: oxford + "nexus-jamie-inhand-1.log", csv: oxford + "raw/nexus-jamie-inhand-1.csv",
                  preset: "oxford-step-counter-optimisation", device: "Nexus (model not named by the source; an Android phone's accelerometer)",
                  rate: "200", activity: "the phone held in the hand (the source's Jamie)"),
        // Issue 20, copied from the data set's git history byte for byte (raw/PROVENANCE.txt).
        Recording(log: oxford + "pixel-jamie-backpocket-1.log", csv: oxford + "raw/pixel-jamie-backpocket-1.csv",
                  preset: "oxford-step-counter-optimisation", device: "Google Pixel (an Android phone's accelerometer)",
                  rate: "405", activity: "the phone in a back trouser pocket (the source's Jamie)"),
        Recording(log: oxford + "samsung-carmelo-frontpocket-1.log", csv: oxford + "raw/samsung-carmelo-frontpocket-1.csv",
                  preset: "oxford-step-counter-optimisation", device: samsung,
                  rate: "200", activity: "the phone in a front trouser pocket (the source's Carmelo)"),
        Recording(log: oxford + "samsung-dario-inhand-1.log", csv: oxford + "raw/samsung-dario-inhand-1.csv",
                  preset: "oxford-step-counter-optimisation", device: samsung,
                  rate: "200", activity: "the phone held in the hand (the source's Dario)"),
        Recording(log: oxford + "samsung-jamie-inhand-1.log", csv: oxford + "raw/samsung-jamie-inhand-1.csv",
                  preset: "oxford-step-counter-optimisation",
                  device: "Samsung (model not named by the source, whose metadata names a K2HH accelerometer; an Android phone's accelerometer)",
                  rate: "100", activity: "the phone held in the hand (the source's Jamie)"),
    ]

    /// Issue 41: late stretches of the Nexus hand-held walks, where reading while walking
    /// turned the accelerometer-only detector to landscape-left and back (excused by evaluate).
    static let readingWhileWalking = ["nexus-jamie-inhand-1-late", "nexus-jamie-inhand-2-late"].map {
        Recording(log: oxford + "\($0).log", csv: oxford + "raw/\($0).csv", preset: "oxford-step-counter-optimisation",
                  device: "Nexus (model not named by the source; an Android phone's accelerometer)", rate: "200",
                  activity: "the phone held in the hand (the source's Jamie)")
    }

    /// The import commands of data/oxford-step-counter/README.md, byte for byte.
    @Test(arguments: walking + [pixelHand] + carried + readingWhileWalking)
    func theLogIsWhatThePresetMakesOfTheBundledCSV(_ recording: Recording) throws {
        let root = CommandRunner.repositoryRoot.path
        let output = try CommandRunner.temporaryFile("imported.log", contents: "")
        let result = try CommandRunner.run([
            "import", "--preset", recording.preset, root + "/" + recording.csv, "-o", output,
            "--meta", "device=\(recording.device)", "--meta", "sample-rate=\(recording.rate)",
            "--meta", "activity=walking on a hard floor, \(recording.activity)",
            "--meta", "licence=CC BY 4.0, from the Oxford step-counter data set; see LICENSE.md beside this file",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let imported = try Data(contentsOf: URL(fileURLWithPath: output))
        let bundled = try Data(contentsOf: CommandRunner.repositoryRoot.appendingPathComponent(recording.log))
        #expect(imported == bundled, "\(recording.log) is not what the preset makes of \(recording.csv)")
    }

    /// Walking, the phone in the hand or in a pocket: `portrait` (in the hand, leaning far back,
    /// also `face-up`), never a landscape or upside-down state, nothing evaluate calls spurious,
    /// no settled stretch missed.
    @Test(arguments: walking)
    func walkingNeverRotates(_ recording: Recording) throws {
        let replay = try CommandRunner.run(["replay", "--quiet", recording.log])
        #expect(replay.status == 0, "\(replay.stderr)")
        let states = replay.lines.map { String($0.split(separator: " ")[1]) }
        #expect(states.contains("portrait"), "\(replay.stdout)")
        let acceptable: Set<String> = recording.log.contains("pocket") ? ["portrait"] : ["portrait", "face-up"]
        #expect(Set(states).isSubset(of: acceptable), "\(replay.stdout)")
        let evaluate = try CommandRunner.run(["evaluate", recording.log])
        #expect(evaluate.status == 0, "\(evaluate.stderr)")
        #expect(evaluate.lines.first?.contains(" 0 missed, 0 spurious") == true, "\(evaluate.stdout)")
    }

    /// The arm drops and swings at every step, the phone hanging left edge up: landscape-right
    /// once (the truth's one transition), then nothing for 20 s of 0.8–1.4 g swings. Before it,
    /// held as if reading while walking, portrait only: touching 75° at a step is not face-up
    /// (with a face-up entry at 75° it published face-up for 0.66 s there).
    @Test func aSwingingArmHoldsItsState() throws {
        let replay = try CommandRunner.run(["replay", "--quiet", Self.pixelHand.log])
        #expect(replay.status == 0, "\(replay.stderr)")
        let events = replay.lines.map { (time: Double($0.split(separator: " ")[0]) ?? 0, state: String($0.split(separator: " ")[1])) }
        #expect(events.last?.state == "landscape-right", "\(replay.stdout)")
        let settled = events.firstIndex { $0.state == "landscape-right" }
        #expect(settled == events.count - 1, "nothing after landscape-right: \(replay.stdout)")
        if let first = events.first, let settled {
            #expect(events[settled].time - first.time < 3.5, "landscape-right within 2 s of the arm dropping: \(replay.stdout)")
        }
        #expect(events.map(\.state) == ["portrait", "landscape-right"], "\(replay.stdout)")
        let evaluate = try CommandRunner.run(["evaluate", Self.pixelHand.log])
        #expect(evaluate.lines.first?.contains("1 transitions, 1 matched, 0 missed, 0 spurious") == true, "\(evaluate.stdout)")
    }

    /// Tumbling in a purse, strapped to an arm, hanging from the neck: every settled stretch found, nothing evaluate
    /// calls spurious (the purse's brief face-up at a jolt, with a face-up entry at 75°, was one).
    @Test(arguments: carried)
    func carriedPhonesAreScoredClean(_ recording: Recording) throws {
        for ignoreGyro in [false, true] {
            let evaluate = try CommandRunner.run(["evaluate", recording.log] + (ignoreGyro ? ["--ignore-gyro"] : []))
            #expect(evaluate.status == 0, "\(evaluate.stderr)")
            #expect(evaluate.lines.first?.contains(" 0 missed, 0 spurious") == true, "\(evaluate.stdout)")
        }
    }
}
