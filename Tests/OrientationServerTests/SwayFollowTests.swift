import Glibc
import OrientationCore
import SensorLog
import TestSupport
import Testing

/// Issue 39, item 2: `orientationctl follow --for sway` against a real sway (Debian's 1.7,
/// headless, run as an unprivileged user: sway refuses root), the daemon replaying recordings;
/// the output's transform read back with `swaymsg -t get_outputs` after every decision. The
/// headless output is 1280x720, a landscape panel: the masks are read a quarter turn round.
@Suite(.serialized) struct SwayFollowTests {
    static var available: Bool {
        getuid() == 0 && access("/usr/bin/sway", X_OK) == 0 && access("/usr/bin/swaymsg", X_OK) == 0 && access("/usr/bin/setpriv", X_OK) == 0
    }

    /// A headless sway as uid 65534 in `dir` (its XDG_RUNTIME_DIR); stopped by `stop()`.
    final class HeadlessSway {
        let process: ChildProcess
        let socket: String

        init(directory dir: String) throws {
            let runtime = dir + "/run"
            mkdir(runtime, 0o700)
            chown(runtime, 65534, 65534)
            process = try ChildProcess(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/sway", "-c", "/dev/null"],
                                       directory: dir,
                                       environment: ["PATH=/usr/bin:/bin", "HOME=\(runtime)", "XDG_RUNTIME_DIR=\(runtime)", "WLR_BACKENDS=headless",
                                                     "WLR_LIBINPUT_NO_DEVICES=1", "WLR_RENDERER=pixman"])
            // sway names its socket after its pid; a file appearing is not awaitable.
            var found: String? = nil
            _ = waitUntil(timeout: 20, every: 0.05) {
                found = Self.listing(runtime).first { $0.hasPrefix("sway-ipc.") }.map { runtime + "/" + $0 }
                return found != nil
            }
            guard let found else { throw TestError("sway did not start: \(process.stderr)") }
            socket = found
        }

        static func listing(_ path: String) -> [String] {
            guard let directory = opendir(path) else { return [] }
            defer { closedir(directory) }
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                names.append(name)
            }
            return names
        }

        var environment: [String] { ["PATH=/usr/bin:/bin", "SWAYSOCK=\(socket)"] }

        /// The headless output's transform now.
        func transform() throws -> String? {
            let query = try ChildProcess(["/usr/bin/swaymsg", "-t", "get_outputs", "-r"], directory: "/", environment: environment)
            _ = query.wait()
            return SwayFollowTests.transforms(query.stdout).last
        }

        func stop() { _ = process.terminate() }
        deinit { stop() }
    }

    /// The `"transform": "…"` values in swaymsg's output, in order.
    static func transforms(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: "\"")
            guard words.count >= 4, words[1] == "transform" else { return nil }
            return String(words[3])
        }
    }

    /// Gravity held 3 s in each pose, 50 Hz: portrait, landscape-left, portrait-upside-down,
    /// landscape-right (ARCHITECTURE.md §3's canonical vectors).
    static func writeTurns(_ path: String) throws {
        var writer = try SensorLogWriter(path: path, metadata: SensorLogMetadata(), includesGyroscope: false)
        let poses = [Vector3(0, -9.81, 0), Vector3(-9.81, 0, 0), Vector3(0, 9.81, 0), Vector3(9.81, 0, 0)]
        for (p, pose) in poses.enumerated() {
            for k in 0..<150 { try writer.write(Sample(time: Double(p * 150 + k) * 0.02, acceleration: pose)) }
        }
        try writer.finish()
    }

    /// Replays `log` and runs `follow --for sway` with `arguments`; the transforms sway reported
    /// after each decision (read back by `--exec`), in order.
    static func follow(_ log: String, _ arguments: [String], sway: HeadlessSway, in dir: String) throws -> (transforms: [String], decisions: String) {
        // Every command sway was sent (the touch and pen mappings first) succeeded: follow says
        // each that failed, with its status.
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", log, "--speed", "5", "--exit-when-done", "--socket", socket], directory: dir)
        let readBack = dir + "/read-back"
        unlink(readBack)
        let follow = try ChildProcess([Build.orientationctl, "follow", "--for", "sway", "--once", "--wait", "20", "--socket", socket,
                                       "--exec", "swaymsg -t get_outputs -r >> \(readBack)"] + arguments,
                                      directory: dir, environment: sway.environment)
        #expect(follow.wait(timeout: 60) == 0, "\(follow.stderr)")
        #expect(!follow.stderr.contains("exited with status"), "\(follow.stderr)")
        #expect(follow.stderr.contains("rotating sway's HEADLESS-1 (1280x720, natural \(arguments.contains("portrait") ? "portrait" : "landscape"))"), "\(follow.stderr)")
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        return (transforms(readText(readBack)), follow.stdout)
    }

    @Test(.enabled(if: available, "needs root, setpriv and Debian's sway (make setup)"))
    func followTurnsSwaysOutputByTheMasks() throws {
        let dir = temporaryDirectory()
        chmod(dir, 0o755)
        let sway = try HeadlessSway(directory: dir)
        defer { sway.stop() }
        let log = dir + "/turns.log"
        try Self.writeTurns(log)

        // Every orientation: the panel as it sits, then a quarter counter-clockwise (content a
        // quarter clockwise), upside down, a quarter clockwise.
        let all = try Self.follow(log, ["--supported", "all"], sway: sway, in: dir)
        #expect(all.transforms == ["normal", "90", "180", "270"], "\(all.decisions)")
        #expect(all.decisions.split(separator: "\n").map(String.init) == ["landscape-right 0", "portrait-upside-down 90", "landscape-left 180", "portrait 270"])
        // Landscape only: a laptop panel that sits normally is never turned on its side.
        let landscape = try Self.follow(log, ["--supported", "landscape"], sway: sway, in: dir)
        #expect(landscape.transforms == ["normal", "180"], "\(landscape.decisions)")
        #expect(try sway.transform() == "180")
        // --natural portrait (the names of a portrait-native panel): the same turns, other names.
        let portrait = try Self.follow(log, ["--supported", "all", "--natural", "portrait"], sway: sway, in: dir)
        #expect(portrait.transforms == ["normal", "90", "180", "270"], "\(portrait.decisions)")
        #expect(portrait.decisions.split(separator: "\n").first == "portrait 0")
    }

    /// A laptop stood on its side: the display turns to landscape while the posture is held at
    /// laptop (hinge vertical); `follow`'s default rule holds in a laptop, so the output stays.
    @Test(.enabled(if: available, "needs root, setpriv and Debian's sway (make setup)"))
    func aLaptopHoldsWhileItsDisplayTurns() throws {
        let dir = temporaryDirectory()
        chmod(dir, 0o755)
        let sway = try HeadlessSway(directory: dir)
        defer { sway.stop() }
        let log = dir + "/side.log"
        let simulate = try ChildProcess([Build.orientationctl, "simulate", "--posture", "laptop stood on its side", "--rate", "20", "--output", log],
                                        directory: dir)
        #expect(simulate.wait() == 0, "\(simulate.stderr)")
        let offline = try ChildProcess([Build.orientationctl, "replay", log], directory: dir)
        #expect(offline.wait() == 0)
        #expect(offline.stdout.contains("landscape-left") && offline.stdout.contains("posture: laptop"), "\(offline.stdout)")

        let held = try Self.follow(log, ["--json"], sway: sway, in: dir)
        #expect(held.transforms.allSatisfy { $0 == "normal" } && !held.transforms.isEmpty, "\(held.decisions)")
        #expect(held.decisions.contains("\"posture\":\"laptop\"") || held.decisions.contains("\"posture\":\"unknown\""), "\(held.decisions)")
        #expect(try sway.transform() == "normal")
        // The same recording with the posture ignored turns the output: the hold above is the rule's.
        let ignored = try Self.follow(log, ["--ignore-posture"], sway: sway, in: dir)
        #expect(ignored.transforms.contains { $0 != "normal" }, "\(ignored.decisions)")
    }
}
