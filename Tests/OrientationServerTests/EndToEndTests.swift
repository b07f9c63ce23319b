import Glibc
import OrientationClient
import OrientationCore
import OrientationProtocol
import Testing
import TestSupport

/// The real `orientationd` and `orientationctl` binaries over a real socket in a temp directory.
@Suite(.serialized) struct EndToEndTests {
    static let expected = ["face-up", "portrait", "portrait-upside-down", "face-up", "landscape-right",
                           "landscape-left", "face-up", "landscape-left", "face-up"]

    @Test func aSubscriberReceivesTheRecordingsEventsInOrderAndTheDaemonCleansUp() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--speed", "max", "--exit-when-done",
                                       "--socket", socket], directory: dir)
        let monitor = try ChildProcess([Build.orientationctl, "monitor", "--json", "--once", "--wait", "20", "--socket", socket], directory: dir)
        #expect(monitor.wait() == 0, "monitor: \(monitor.stderr)")
        #expect(daemon.wait() == 0, "daemon: \(daemon.stderr)")
        let lines = monitor.stdout.split(separator: "\n").map(String.init)
        let values = try lines.map { try JSONReader.parse($0) }
        #expect(values.first?["type"]?.stringValue == "current")
        let events = values.filter { $0["type"]?.stringValue == "orientation" }
        #expect(events.map { $0["orientation"]?.stringValue ?? "" } == Self.expected)
        let seqs = events.compactMap { $0["seq"]?.numberValue }
        #expect(seqs == (1...9).map(Double.init), "seq increases by one")
        #expect(monitor.stderr.contains("disconnected: orientationd is shutting down"))
        #expect(access(socket, F_OK) != 0, "socket file removed")
    }

    @Test func twoClientsWithDifferentMasksDecideDifferentlyFromTheSameEvents() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        // portrait 15.9, upside down 21.0, face-up 25.3, landscape-right 30.7, landscape-left 35.9
        let log = trimmedRecording(from: 14.0, to: 38.0, directory: dir)
        let daemon = try ChildProcess([Build.orientationd, "--replay", log, "--speed", "8", "--exit-when-done", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket))
        let phone = try ChildProcess([Build.orientationctl, "follow", "--once", "--supported", "all-but-upside-down", "--socket", socket], directory: dir)
        let kiosk = try ChildProcess([Build.orientationctl, "follow", "--once", "--supported", "landscape", "--socket", socket], directory: dir)
        #expect(phone.wait() == 0 && kiosk.wait() == 0)
        #expect(daemon.wait() == 0)
        // The phone follows portrait and both landscapes but ignores upside down; the kiosk
        // starts in landscape-right and only swaps between the landscapes.
        #expect(phone.stdout == "portrait 0\nlandscape-left 270\nlandscape-right 90\n", "phone: \(phone.stdout)")
        #expect(kiosk.stdout == "landscape-right 90\nlandscape-left 270\nlandscape-right 90\n", "kiosk: \(kiosk.stdout)")
    }

    @Test func aLateClientGetsTheCurrentStateAtOnce() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--speed", "max", "--socket", socket], directory: dir)
        let first = try ChildProcess([Build.orientationctl, "monitor", "--wait", "20", "--socket", socket], directory: dir)
        // Wait for the whole replay to have been published (the last event is face-up, seq 9).
        let deadline = monotonicNow() + 20
        var state: JSONValue? = nil
        while monotonicNow() < deadline {
            let get = runProcess([Build.orientationctl, "get", "--json", "--socket", socket]).stdout
            if let value = try? JSONReader.parse(get), value["seq"]?.numberValue == 9 { state = value; break }
            usleep(20_000)
        }
        let current = try #require(state)
        #expect(current["orientation"]?.stringValue == "face-up")
        #expect(current["subscribers"]?.numberValue == 1)
        // A client arriving now is told the current state in the subscribe reply itself.
        let client = try TestSocket.greeted(socket)
        client.send("{\"op\":\"subscribe\"}\n")
        let reply = try ServerMessage.parse(Array(try #require(client.readLine()).utf8))
        guard case .subscribed(let now, _) = reply else { Issue.record("no subscribed reply"); return }
        #expect(now.orientation == .faceUp && now.seq == 9)
        _ = first.terminate()
        #expect(daemon.terminate() == 0)
    }
}
