import Glibc
import Testing
import TestSupport

/// Issue 26: a slow or hung polkit and callers that vanish must not lock other users out of their
/// sensors. On the private system-like bus, with a stand-in polkit owned by root
/// (Benchmarks/polkit-standin.py: never answers one uid, answers slowly, or answers normally),
/// real uids through setpriv and the loads of Benchmarks/dbus-load.py (`make bench-dos` runs the
/// same ones): another user's claim is answered within 5 s while the attack runs and at once
/// after it.
extension SensorIIOIntegrationTests {
    /// Root may own polkit's name; everyone may call it (the real polkit's bus policy).
    static let polkitPolicy = """
        <policy user="root"><allow own="org.freedesktop.PolicyKit1"/></policy>
        <policy context="default"><allow send_destination="org.freedesktop.PolicyKit1"/></policy>
        """

    /// Starts the stand-in polkit on the rig's bus with `arguments`; its checks are logged to
    /// checks.log. Returns its pid once it owns the name.
    static func startStandIn(_ rig: AbuseRig, _ arguments: [String]) throws -> pid_t {
        let pid = try spawn(["/usr/bin/python3", rig.dir + "/polkit-standin.py", "--address", rig.bus.address, "--log",
                             rig.dir + "/checks.log"] + arguments,
                            environment: rig.bus.clientEnvironment, stderr: rig.dir + "/standin.err", stdout: rig.dir + "/standin.out",
                            newProcessGroup: true)
        #expect(waitForText(rig.dir + "/standin.out") { $0.contains("ready") }, "\(readText(rig.dir + "/standin.err"))")
        return pid
    }

    /// One claim of `uid` on a new connection: what dbus-load.py's claimer says.
    static func claimOnce(_ rig: AbuseRig, uid: Int, _ name: String) throws -> String {
        finish(try rig.load(name, uid: uid, ["claimer", "--address", rig.bus.address, "--seconds", "0"]), rig.dir + "/\(name).out")
    }

    /// Whether a claimer's output says every claim was allowed, each within `bound` ms.
    static func allAllowed(_ output: String, within bound: Double) -> Bool {
        guard let claims = jsonNumber(output, "claims"), claims > 0, jsonNumber(output, "allowed") == claims,
              let slowest = jsonNumber(output, "max_ms") else { return false }
        return slowest < bound
    }

    /// The checks the stand-in received.
    static func checksLogged(_ rig: AbuseRig) -> Int { count("\n", in: readText(rig.dir + "/checks.log")) }

    /// Whether a line of `log` says some reloads were not logged ("reloads-not-logged=" and a
    /// number other than 0).
    static func saysReloadsNotLogged(_ log: String) -> Bool {
        var rest = Substring(log)
        while let range = rest.range(ofText: "reloads-not-logged=") {
            rest = rest[range.upperBound...]
            if let digit = rest.first, digit.isNumber, digit != "0" { return true }
        }
        return false
    }

    /// Item 1: polkit never answers uid 65534, which opens 2 × 200 connections that each send one
    /// claim and then leave. Before: every non-root claim was refused at once ("The maximum
    /// number of pending replies per connection has been reached") for minutes after the attack.
    @Test(.enabled(if: abuseToolsAvailable, "needs root, setpriv, dbus-daemon, python3-dbus (make setup)"))
    func aPolkitThatNeverAnswersOneUidLocksOnlyThatUidOut() throws {
        let rig = try AbuseRig(extraPolicy: Self.polkitPolicy)
        defer { rig.stop() }
        let standIn = try Self.startStandIn(rig, ["--hang-uid", "65534"])
        defer { _ = stopProcess(standIn) }
        #expect(rig.ready(), "\(readText(rig.log))")
        let before = try Self.claimOnce(rig, uid: 1000, "before")
        #expect(Self.allAllowed(before, within: 5000), "the stand-in answers uid 1000: \(before)")

        let attacks = try (1...2).map { k in
            try rig.load("attack\(k)", uid: 65534, ["claim-and-leave", "--address", rig.bus.address, "--connections", "200", "--hold", "3"])
        }
        let during = try rig.load("during", uid: 1000, ["claimer", "--address", rig.bus.address, "--seconds", "6", "--every", "0.5"])
        let attacked = attacks.enumerated().map { Self.finish($1, rig.dir + "/attack\($0 + 1).out") }
        let claimed = Self.finish(during, rig.dir + "/during.out")
        // The bus lets one user have 256 connections: the two loads share them.
        let connections = attacked.map { Self.jsonNumber($0, "connections") ?? 0 }.reduce(0, +)
        #expect(connections >= 200, "the attack ran: \(attacked) \(readText(rig.dir + "/attack1.err"))")
        #expect(Self.allAllowed(claimed, within: 5000), "uid 1000 during the attack: \(claimed)")

        let after = try Self.claimOnce(rig, uid: 1000, "after")
        #expect(Self.allAllowed(after, within: 1000), "uid 1000 after the attack: \(after)")
        // The hung uid is answered, refused as the peer refuses a failed check; never allowed.
        let hung = try Self.claimOnce(rig, uid: 65534, "hung")
        #expect(hung.contains("org.freedesktop.DBus.Error.AccessDenied") && hung.contains("Not Authorized: polkit did not answer"),
                "\(hung)")
        #expect((Self.jsonNumber(hung, "max_ms") ?? .infinity) < 15000, "\(hung)")
        #expect(!readText(rig.log).contains("pending replies"), "\(readText(rig.log).suffix(2000))")
    }

    /// Item 2: polkit answers one check per 0.2 s; uids 65534 and 33 claim and disconnect at once,
    /// in a loop. Before: uid 1000's claim waited 19.3 s, or was refused after 25 s.
    @Test(.enabled(if: abuseToolsAvailable, "needs root, setpriv, dbus-daemon, python3-dbus (make setup)"))
    func aSlowPolkitAndVanishingCallersDoNotDelayOthers() throws {
        let rig = try AbuseRig(extraPolicy: Self.polkitPolicy)
        defer { rig.stop() }
        let standIn = try Self.startStandIn(rig, ["--delay", "0.2"])
        defer { _ = stopProcess(standIn) }
        #expect(rig.ready(), "\(readText(rig.log))")
        let attackers: [Int] = [65534, 33]
        let attacks = try attackers.map { uid in
            try rig.load("attack\(uid)", uid: uid, ["claim-and-leave", "--address", rig.bus.address, "--seconds", "8"])
        }
        let during = try rig.load("during", uid: 1000, ["claimer", "--address", rig.bus.address, "--seconds", "6", "--every", "0.5"])
        let claimed = Self.finish(during, rig.dir + "/during.out")
        let attacked = zip(attacks, attackers).map { Self.finish($0, rig.dir + "/attack\($1).out") }
        #expect(attacked.allSatisfy { (Self.jsonNumber($0, "connections") ?? 0) > 100 },
                "the attack ran: \(attacked) \(readText(rig.dir + "/attack65534.err"))")
        #expect(Self.allAllowed(claimed, within: 5000), "uid 1000 during the attack: \(claimed)")
        let after = try Self.claimOnce(rig, uid: 1000, "after")
        // At once: the stand-in's own 0.2 s turn, and no queue of checks about callers long gone.
        #expect(Self.allAllowed(after, within: 1000), "uid 1000 after the attack: \(after)")
    }

    /// Item 3: one user's claim/release loop. Before: 3,250 checks a second, one per claim. Now
    /// one per (uid, session) per 5 s; never another uid's verdict, and a refusal is still the
    /// peer's (`AccessDenied`, "Not Authorized: Sensor claim not allowed").
    @Test(.enabled(if: abuseToolsAvailable, "needs root, setpriv, dbus-daemon, python3-dbus (make setup)"))
    func aClaimLoopCostsOneCheckPerFewSeconds() throws {
        let rig = try AbuseRig(extraPolicy: Self.polkitPolicy)
        defer { rig.stop() }
        let standIn = try Self.startStandIn(rig, ["--deny-uid", "33"])
        defer { _ = stopProcess(standIn) }
        #expect(rig.ready(), "\(readText(rig.log))")
        let flood = Self.finish(try rig.load("flood", uid: 65534, ["claim-flood", "--address", rig.bus.address, "--seconds", "6"]),
                                rig.dir + "/flood.out")
        #expect((Self.jsonNumber(flood, "calls") ?? 0) > 1000 && Self.jsonNumber(flood, "errors") == 0, "\(flood)")
        let checks = Self.checksLogged(rig)
        #expect(checks >= 1 && checks <= 3, "\(checks) checks for \(Self.jsonNumber(flood, "calls") ?? 0) calls")
        // Another uid is asked about, and refused as the peer refuses.
        let denied = try Self.claimOnce(rig, uid: 33, "denied")
        #expect(denied.contains("org.freedesktop.DBus.Error.AccessDenied") && denied.contains("Not Authorized: Sensor claim not allowed"),
                "\(denied)")
        #expect(Self.checksLogged(rig) == checks + 1)
    }

    struct PolkitPresence: Sendable, CustomTestStringConvertible {
        let label: String
        /// The stand-in is started by the bus on demand (a service file), not by the test.
        let activatable: Bool
        /// The stand-in runs (owns the name) before the claim.
        let running: Bool
        /// The bus lets callers send to polkit.
        let sendPolicy: Bool
        /// Whether uid 65534's claim is allowed (the stand-in denies it when asked).
        let allowed: Bool
        var testDescription: String { label }
    }

    /// The rules of docs/DBUS.md, "polkit": not installed (no owner, no service file) allows
    /// claims; installed but not yet running is asked (the bus starts it); a bus that refuses
    /// the call by policy although polkit is there refuses the claim: never allowed because a
    /// check failed.
    static let presences: [PolkitPresence] = [
        PolkitPresence(label: "not installed: allowed, unchecked", activatable: false, running: false, sendPolicy: false, allowed: true),
        PolkitPresence(label: "installed, started by the bus: asked", activatable: true, running: false, sendPolicy: true, allowed: false),
        PolkitPresence(label: "running: asked", activatable: false, running: true, sendPolicy: true, allowed: false),
        PolkitPresence(label: "running, the bus refuses the call: refused", activatable: false, running: true, sendPolicy: false, allowed: false),
    ]

    @Test(.enabled(if: abuseToolsAvailable, "needs root, setpriv, dbus-daemon, python3-dbus (make setup)"), arguments: presences)
    func polkitNotInstalledAllowsAndNotYetRunningIsAsked(_ presence: PolkitPresence) throws {
        var policy = "<policy user=\"root\"><allow own=\"org.freedesktop.PolicyKit1\"/></policy>"
        if presence.sendPolicy {
            policy += "<policy context=\"default\"><allow send_destination=\"org.freedesktop.PolicyKit1\"/></policy>"
        }
        let rig = try AbuseRig(extraPolicy: policy) { directory in
            guard presence.activatable else { return [:] }
            return ["org.freedesktop.PolicyKit1.service": """
                [D-BUS Service]
                Name=org.freedesktop.PolicyKit1
                Exec=/usr/bin/python3 \(directory)/polkit-standin.py --address unix:path=\(directory)/system_bus_socket --deny-uid 65534 --log \(directory)/checks.log
                User=root

                """]
        }
        defer { rig.stop() }
        let standIn = presence.running ? try Self.startStandIn(rig, ["--deny-uid", "65534"]) : nil
        defer { if let standIn { _ = stopProcess(standIn) } }
        #expect(rig.ready(), "\(readText(rig.log))")
        let claim = try Self.claimOnce(rig, uid: 65534, "claim")
        if presence.allowed {
            #expect(Self.allAllowed(claim, within: 5000), "\(claim)")
            #expect(readText(rig.log).contains("polkitd is not on the system bus"), "\(readText(rig.log))")
        } else {
            #expect(claim.contains("org.freedesktop.DBus.Error.AccessDenied") && claim.contains("Not Authorized"), "\(claim)")
            #expect(!readText(rig.log).contains("claimed over D-Bus"), "\(readText(rig.log))")
            #expect(Self.checksLogged(rig) == (presence.sendPolicy ? 1 : 0), "asked polkit: \(readText(rig.dir + "/checks.log"))")
        }
        // A user polkit allows: allowed in every case but the refused call.
        let other = try Self.claimOnce(rig, uid: 33, "other")
        #expect(Self.allAllowed(other, within: 5000) == (presence.allowed || presence.sendPolicy), "\(other)")
    }

    /// Item 4: 39 malformed calls, one carrying a 30 MB `ay`, twice. Before: RSS 30 → 50 MB, kept.
    @Test(.enabled(if: abuseToolsAvailable, "needs root, setpriv, dbus-daemon, python3-dbus (make setup)"))
    func largeMessagesGiveTheirMemoryBack() throws {
        let rig = try AbuseRig()
        defer { rig.stop() }
        #expect(rig.ready(), "\(readText(rig.log))")
        func rss() -> Int {
            let status = readText("/proc/\(rig.daemon)/status")
            guard let range = Substring(status).range(ofText: "VmRSS:") else { return -1 }
            return Int(status[range.upperBound...].prefix { $0 != "k" }.filter(\.isNumber)) ?? -1
        }
        let warm = Self.finish(try rig.load("warm", uid: 65534, ["big-message", "--address", rig.bus.address, "--megabytes", "0.1"]),
                               rig.dir + "/warm.out")
        #expect(warm.contains("InvalidArgs"), "\(warm)")
        let before = rss()
        for round in 1...2 {
            let big = Self.finish(try rig.load("big\(round)", uid: 65534, ["big-message", "--address", rig.bus.address]),
                                  rig.dir + "/big\(round).out")
            #expect(big.contains("InvalidArgs") && big.contains("UnknownMethod"), "answered, not dropped: \(big)")
        }
        let after = rss()
        #expect(before > 0 && after - before <= 2048, "RSS \(before) kB before, \(after) kB after")
        #expect(!readText(rig.log).contains("lost the system bus"))
    }

    /// Item 4: a SIGHUP flood. Before: one "configuration reloaded" line per signal.
    @Test(.enabled(if: abuseToolsAvailable, "needs root, setpriv, dbus-daemon, python3-dbus (make setup)"))
    func aReloadFloodIsLoggedThrottled() throws {
        let rig = try AbuseRig()
        defer { rig.stop() }
        #expect(rig.ready(), "\(readText(rig.log))")
        for _ in 0..<300 {
            kill(rig.daemon, SIGHUP)
            usleep(10_000)  // the sender's pace: signals sent at once would merge into one
        }
        usleep(1_100_000)  // past the throttle's second: the next reload is logged, with the count
        kill(rig.daemon, SIGHUP)
        #expect(Self.waitForText(rig.log) { Self.saysReloadsNotLogged($0) }, "\(readText(rig.log).suffix(2000))")
        let lines = Self.count("configuration reloaded", in: readText(rig.log))
        #expect(lines >= 2 && lines <= 8, "\(lines) lines for 301 reloads")
    }
}
