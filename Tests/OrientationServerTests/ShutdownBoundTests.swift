import Glibc
import TestSupport
import Testing

/// Shutdown has an end (issue 22, item 4). With `ORIENTATIOND_TEST_STALL_SHUTDOWN` the daemon's
/// pipeline never finishes its shutdown, ignoring cancellation, as a sensor whose close hangs
/// would: a second SIGTERM/SIGINT then exits at once with 128 + signal, and one signal alone
/// ends the daemon with status 1 after `OrientationService.shutdownLimit` (15 s), its clients
/// told goodbye when ServiceGroup gives up waiting for the pipeline (10 s).
@Suite struct ShutdownBoundTests {
    static var inheritedEnvironment: [String] {
        var variables: [String] = []
        var entry = environ
        while let variable = entry.pointee {
            variables.append(String(cString: variable))
            entry += 1
        }
        return variables
    }

    private func stalledDaemon() throws -> (ChildProcess, TestSocket) {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--loop", "--socket", socket], directory: dir,
                                      environment: Self.inheritedEnvironment + ["ORIENTATIOND_TEST_STALL_SHUTDOWN=1"])
        #expect(waitForSocket(socket), "\(daemon.stderr)")
        let client = try TestSocket.subscriber(socket)  // the pipeline runs
        return (daemon, client)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSecondSignalDuringShutdownExitsAtOnce(_ signal: Int32) throws {
        let (daemon, client) = try stalledDaemon()
        _ = client
        kill(daemon.pid, signal)
        #expect(daemon.waitForStderr(containing: "shutting down"), "\(daemon.stderr)")
        #expect(daemon.wait(timeout: 0.5) == nil, "the stalled shutdown holds the daemon")
        kill(daemon.pid, signal)
        #expect(daemon.wait(timeout: 5) == 128 + signal, "\(daemon.stderr)")
        #expect(daemon.stderr.contains("while shutting down: exiting now"), "\(daemon.stderr)")
    }

    @Test func aShutdownThatNeverFinishesEndsAtTheLimit() throws {
        let (daemon, client) = try stalledDaemon()
        let start = monotonicNow()
        kill(daemon.pid, SIGTERM)
        // Services stop in turn, the socket server last: with the pipeline stuck, clients get
        // their goodbye when ServiceGroup cancels it, after the graceful limit (10 s).
        #expect(client.readLine(timeout: 14) { $0.contains("\"type\":\"goodbye\"") } != nil, "clients are told even so")
        let status = daemon.wait(timeout: 40)
        let took = monotonicNow() - start
        #expect(status == 1, "\(daemon.stderr)")
        #expect(took >= 14 && took < 30, "exited after \(took) s")
        #expect(daemon.stderr.contains("did not finish shutting down within 15"), "\(daemon.stderr)")
    }
}
