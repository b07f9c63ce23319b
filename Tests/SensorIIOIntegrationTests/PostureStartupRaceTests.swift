import Glibc
import Testing
import TestSupport

extension SensorIIOIntegrationTests {
    /// Issue 36: a client that subscribes to `posture` the instant the socket exists (socket
    /// activation makes that the normal case) gets its posture. The hub announces a topic's claim
    /// only for its first subscriber; the daemon's posture service was bound after the server
    /// started, so a claim made in between was dropped, and the base was never opened for anyone
    /// until every posture subscriber had gone. Many starts: a lost claim was a matter of timing.
    static let postureStarts = 50

    /// Starts the daemon `postureStarts` times (`activated`: through systemd-socket-activate, the
    /// subscribe queued with the connection before the daemon runs); returns the runs whose
    /// subscriber got no decided posture, with the daemon's stderr.
    static func postureLostAtStart(activated: Bool) throws -> [String] {
        let machine = FakeConvertible()
        let testbed = try machine.installed(at: .laptop())
        defer { withExtendedLifetime(testbed) {} }  // the devices live until the test ends
        var lost: [String] = []
        for run in 0..<postureStarts {
            let directory = temporaryDirectory()
            let socket = directory + "/d.sock", errors = directory + "/daemon.err"
            let daemon = Self.productsDirectory + "/orientationd"
            let command = activated ? ["/usr/bin/systemd-socket-activate", "-E", "UMOCKDEV_DIR", "-E", "LD_PRELOAD", "-l", socket, daemon, "--log-level", "warning"]
                                    : [daemon, "--socket", socket, "--log-level", "warning"]
            let pid = try spawn(command, stderr: errors, newProcessGroup: true)
            // The socket file appearing is not awaitable; it is bound a moment before it
            // listens, so connecting may be refused that moment.
            let deadline = monotonicNow() + 20
            var client: Int32 = -1
            while client < 0, monotonicNow() < deadline {
                client = connectUnix(socket)
                if client < 0 { usleep(200) }
            }
            if client >= 0 {
                sendLine(client, "{\"op\":\"subscribe\",\"topics\":[\"posture\"]}")
                if Self.awaitMessage(client, type: "posture", containing: "\"posture\":\"laptop\"", timeout: 8) == nil {
                    lost.append("run \(run): \(readText(errors).suffix(500))")
                }
                close(client)
            } else {
                lost.append("run \(run): the socket never accepted")
            }
            kill(-pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        return lost
    }

    @Test func aPostureSubscriberAtTheSocketsFirstInstantGetsItsPosture() throws {
        let lost = try Self.postureLostAtStart(activated: false)
        #expect(lost.isEmpty, "\(lost.count) of \(Self.postureStarts) starts: \(lost)")
    }

    @Test func aPostureSubscriberQueuedBeforeActivationGetsItsPosture() throws {
        let lost = try Self.postureLostAtStart(activated: true)
        #expect(lost.isEmpty, "\(lost.count) of \(Self.postureStarts) starts: \(lost)")
    }
}
