import Glibc
import TestSupport
import Testing

/// Issue 27, the items that need the daemon: its socket variable and permission hint (4),
/// `--check-config` reporting everything at once (2) and near misses (9), `follow` waiting for
/// the sensor (6), and a `--sensor` that matches nothing (9). Real binaries, real sockets.
@Suite(.serialized) struct SecondAfternoonDaemonTests {
    /// The file: eight problems, two of which (a reversed range, face-up-enter-tilt below
    /// face-up-exit-tilt) appeared only on later runs. Now every one, in one run, in file order.
    @Test func checkConfigReportsEveryProblemAtOnce() throws {
        let dir = temporaryDirectory()
        let config = dir + "/eight.conf"
        writeText(config, """
        [detector]
        portrait-tilt = 72..-50
        face-up-enter-tilt = 40
        face-up-exit-tilt = 60
        dead-band = lots
        sttle-time = 0.2
        [sensors]
        device = iio:device4242
        [server]
        sockt = /tmp/x.sock
        max-clients = 0
        [Detector]
        [dbus]
        enable = maybe

        """)
        let check = try ChildProcess([Build.orientationd, "--check-config", config], directory: dir)
        #expect(check.wait() == 1)
        let lines = check.stderr.split(separator: "\n").map(String.init)
        #expect(lines == [
            "\(config):2: portrait-tilt: must be lower..upper with -90 <= lower < upper <= 90, not 72..-50",
            "\(config):4: face-up-exit-tilt (60.0) must be above 0 and below face-up-enter-tilt (40.0), or face-up could never be left",
            "\(config):5: dead-band: \"lots\" is not a number (in deg, such as 45 or 45 deg)",
            "\(config):6: unknown detector parameter sttle-time; did you mean 'settle-time'?",
            "\(config):7: unknown section [sensors]; did you mean [sensor]? known sections: [compass], [dbus], [detector], [light], [posture], [proximity], [sensor], [server]",
            "\(config):10: unknown server setting sockt; did you mean 'socket'? known: socket, socket-mode, socket-group, privileged-group, max-clients, "
                + "max-clients-per-user, reserved-clients, idle-timeout, max-output-buffer, max-line-length, requests-per-second, request-burst",
            "\(config):11: max-clients: must be a positive whole number, not \"0\"",
            "\(config):12: unknown section [Detector]; did you mean [detector]? known sections: [compass], [dbus], [detector], [light], [posture], [proximity], [sensor], [server]",
            "\(config):14: enable: must be true or false, not \"maybe\"",
            "\(config): not valid (9 problems)",
        ], "\(check.stderr)")
    }

    /// A sensor log given to --check-config: a screenful, and what it is not (13,516 lines before).
    @Test func checkConfigOnALogStopsAfterAFewErrors() throws {
        let dir = temporaryDirectory()
        let check = try ChildProcess([Build.orientationd, "--check-config", Build.recording], directory: dir)
        #expect(check.wait() == 1)
        let lines = check.stderr.split(separator: "\n")
        #expect(lines.count <= 25, "\(lines.count) lines")
        #expect(check.stderr.contains("this is not an orientationd configuration file"), "\(check.stderr)")
    }

    /// The clients' variable is the daemon's too: one export, one socket.
    @Test func theDaemonReadsTheClientsSocketVariable() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/from-env.sock"
        let environment = ["ORIENTATIOND_SOCKET=\(socket)", "PATH=/usr/bin:/bin"]
        writeText(dir + "/none.conf", "")
        let valid = try ChildProcess([Build.orientationd, "--check-config", dir + "/none.conf"], directory: dir, environment: environment)
        #expect(valid.wait() == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains("(socket \(socket),"), "\(valid.stdout)")

        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording], directory: dir, environment: environment)
        #expect(waitForSocket(socket), "\(daemon.stderr)")
        let get = runProcess([Build.orientationctl, "get"], environment: environment)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(daemon.terminate() == 0, "\(daemon.stderr)")
    }

    /// A socket the daemon may not create says what to do (as an ordinary user: /run/orientationd).
    @Test func aSocketItMayNotCreateNamesTheWayOut() throws {
        let dir = temporaryDirectory()
        // /sys refuses mkdir even to root (EPERM), as /run refuses an ordinary user (EACCES).
        let daemon = try ChildProcess([Build.orientationd, "--replay", Build.recording, "--socket", "/sys/orientationd-test/d.sock"], directory: dir)
        #expect(daemon.wait() == 1)
        #expect(daemon.stderr.contains("mkdir /sys/orientationd-test: "), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("--socket \"$XDG_RUNTIME_DIR/orientationd.sock\"") && daemon.stderr.contains("ORIENTATIOND_SOCKET"),
                "\(daemon.stderr)")
    }

    /// `follow --exec` runs only once the orientation is known: a replay held in landscape runs
    /// it once, for landscape (it ran first with portrait and an unknown device).
    @Test func followWaitsForTheSensorBeforeRunningTheCommand() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let landscape = trimmedRecording(from: 31, to: 35, directory: dir)  // landscape-right 30.7–35.4 s
        let daemon = try ChildProcess([Build.orientationd, "--replay", landscape, "--speed", "max", "--exit-when-done", "--socket", socket], directory: dir)
        #expect(waitForSocket(socket), "\(daemon.stderr)")
        let ran = dir + "/ran.txt"
        let follow = try ChildProcess([Build.orientationctl, "follow", "--once", "--socket", socket,
                                       "--exec", "echo \"$ORIENTATION_INTERFACE $ORIENTATION_DEVICE\" >> \(ran)"], directory: dir)
        #expect(follow.wait() == 0, "\(follow.stderr)")
        #expect(readText(ran) == "landscape-left landscape-right\n", "\(readText(ran))")
        #expect(follow.stdout == "landscape-left 270\n", "\(follow.stdout)")
        _ = daemon.wait()
    }

    /// A `--sensor` that matches nothing uses no sensor (it fell back to another one) and says
    /// so once, however often the pipeline retries (the retries log at debug since issue 40).
    @Test func aSensorThatIsNotThereIsSaidOnce() throws {
        let dir = temporaryDirectory()
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--sensor", "iio:device4242", "--socket", socket, "--log-level", "debug"], directory: dir)
        #expect(waitForSocket(socket))
        let connection = try TestSocket.greeted(socket)
        connection.send("{\"op\":\"subscribe\"}\n")
        let deadline = monotonicNow() + 20
        while monotonicNow() < deadline, daemon.stderr.components("sensor failure; retrying") < 3 { usleep(20_000) }
        let stderr = daemon.stderr
        #expect(stderr.components("sensor failure; retrying") >= 3, "\(stderr)")
        #expect(stderr.components("--sensor iio:device4242 matches no sensor") == 1, "\(stderr)")
        #expect(stderr.contains("the configured sensor iio:device4242 is not there"), "\(stderr)")
        #expect(daemon.terminate() == 0)
    }
}

extension String {
    /// How many times `text` occurs.
    fileprivate func components(_ text: String) -> Int {
        var count = 0
        var rest = self[...]
        while let range = rest.firstRange(of: text) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }
}
