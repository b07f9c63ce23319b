import Glibc
import TestSupport
import Testing

/// Issue 39, item 3: `orientationd --replay` of a convertible's log (v3: base and lid columns)
/// serves the posture it decides, the same postures `orientationctl replay` finds offline, to a
/// subscriber of the posture topic, alone or beside the orientation.
@Suite struct ReplayedPostureTests {
    /// The posture names in `orientationctl replay`'s lines (`3.675000 posture: laptop (hinge 110°)`)
    /// or `monitor --posture`'s (`posture laptop (hinge 110°)`), unknown left out.
    static func postures(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ").map(String.init)
            guard let index = words.firstIndex(where: { $0 == "posture" || $0 == "posture:" }), index + 1 < words.count else { return nil }
            let name = words[index + 1]
            return name == "unknown" ? nil : name
        }
    }

    @Test(arguments: ["lid switch wired", "no lid switch", "laptop → stand"])
    func theDaemonServesTheLogsPostureAsReplayDecidesIt(_ scenario: String) throws {
        let dir = temporaryDirectory()
        let log = dir + "/walk.log"
        let simulate = try ChildProcess([Build.orientationctl, "simulate", "--posture", scenario, "--rate", "20", "--output", log], directory: dir)
        #expect(simulate.wait() == 0, "\(simulate.stderr)")
        let offline = try ChildProcess([Build.orientationctl, "replay", log], directory: dir)
        #expect(offline.wait() == 0, "\(offline.stderr)")
        let expected = Self.postures(offline.stdout)
        #expect(expected.count >= 3, "\(offline.stdout)")

        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", log, "--speed", "max", "--exit-when-done", "--socket", socket],
                                      directory: dir)
        let monitor = try ChildProcess([Build.orientationctl, "monitor", "--posture", "--once", "--wait", "20", "--socket", socket], directory: dir)
        #expect(monitor.wait() == 0, "\(monitor.stderr)")
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        #expect(monitor.stdout.contains("posture unknown (waiting-for-sensors)"), "a convertible's log: present from the start: \(monitor.stdout)")
        #expect(Self.postures(monitor.stdout) == expected, "\(monitor.stdout)")
    }

    /// A client of the posture topic alone starts the replay (as a subscriber of the orientation
    /// does) and sees it through.
    @Test func aPostureSubscriberAloneStartsTheReplay() throws {
        let dir = temporaryDirectory()
        let log = dir + "/walk.log"
        let simulate = try ChildProcess([Build.orientationctl, "simulate", "--posture", "lid switch wired", "--rate", "20", "--output", log],
                                        directory: dir)
        #expect(simulate.wait() == 0, "\(simulate.stderr)")
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", log, "--speed", "max", "--exit-when-done", "--socket", socket],
                                      directory: dir)
        #expect(waitForSocket(socket))
        let client = try TestSocket(path: socket)
        #expect(client.readLine()?.contains("\"type\":\"hello\"") == true)
        client.send("{\"op\":\"subscribe\",\"topics\":[\"posture\"]}\n")
        #expect(client.readLine(timeout: 20) { $0.contains("\"posture\":\"tent\"") } != nil)
        #expect(daemon.wait() == 0, "the replay ran to its end: \(daemon.stderr)")
    }

    /// A log that is not a convertible's: the posture topic says so (not present), as before.
    @Test func aSingleSensorLogHasNoPosture() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.repository + "/data/xio-fusion/handheld.log", "--speed", "max",
                                       "--socket", socket], directory: dir)
        defer { kill(daemon.pid, SIGTERM); _ = daemon.wait() }
        #expect(waitForSocket(socket))
        let client = try TestSocket(path: socket)
        #expect(client.readLine()?.contains("\"type\":\"hello\"") == true)
        client.send("{\"op\":\"subscribe\",\"topics\":[\"posture\"]}\n")
        let posture = client.readLine { $0.contains("\"type\":\"posture\"") }
        #expect(posture?.contains("\"present\":false") == true, "\(posture ?? "nothing")")
    }
}
