import Glibc
import Testing
import TestSupport

/// Issue 8, item 1: what `make install DESTDIR=… PREFIX=/usr` lays out, checked file by file.
/// `scripts/run-tests.sh` installs into a temporary DESTDIR after the other suites and runs
/// this target with ORIENTATIOND_INSTALL_DESTDIR set; without it the suite is skipped.
/// Where scripts/run-tests.sh staged the install and the package.
enum Staged {
    static var destdir: String? { getenv("ORIENTATIOND_INSTALL_DESTDIR").map { String(cString: $0) } }
    static var deb: String? { getenv("ORIENTATIOND_DEB").map { String(cString: $0) } }
}

@Suite(.enabled(if: Staged.destdir != nil, "run by scripts/run-tests.sh after make install into a DESTDIR"))
struct InstallTests {
    static var destdir: String? { Staged.destdir }
    static var repository: String { "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/") }
    var root: String { Self.destdir ?? "/nonexistent" }

    /// Runs a command; its status and what it printed (stdout and stderr together).
    func run(_ arguments: [String], environment: [String]? = nil) -> (status: Int32, output: String) {
        let result = runProcess(arguments, environment: environment, mergingStandardError: true)
        return (result.status, result.stdout)
    }

    /// The build and the manuals the staged install came from (scripts/run-tests.sh: the release
    /// build; ORIENTATIOND_INSTALL_BUILD and ORIENTATIOND_INSTALL_MANUALS for a run by hand).
    static var build: String { getenv("ORIENTATIOND_INSTALL_BUILD").map { String(cString: $0) } ?? repository + "/.build/release" }
    static var manuals: String { getenv("ORIENTATIOND_INSTALL_MANUALS").map { String(cString: $0) } ?? repository + "/.build/manuals" }

    func installScript(_ action: String, destdir: String? = nil, prefix: String = "/usr") -> (status: Int32, output: String) {
        run(["/usr/bin/env", "PREFIX=\(prefix)", "DESTDIR=\(destdir ?? root)", "BUILD=\(Self.build)",
             "MANUALS=\(Self.manuals)", Self.repository + "/scripts/install.sh", action])
    }

    var listed: [String] {
        installScript("list").output.split(separator: "\n").map(String.init)
    }

    @Test func everyListedFileIsInstalled() {
        #expect(listed.count >= 15, "\(listed)")
        for file in listed {
            #expect(access(root + file, F_OK) == 0, "missing: \(file)")
        }
        // One binary; the other two names are links to it (it dispatches on argv[0]).
        for name in ["orientationctl", "monitor-sensor"] {
            var link = [CChar](repeating: 0, count: 256)
            let n = readlink(root + "/usr/bin/" + name, &link, link.count - 1)
            #expect(n > 0 && String(cString: link) == "orientationd", "\(name) is a link to the multi-call orientationd")
        }
        #expect(run(["/bin/cat", root + "/usr/share/man/man1/monitor-sensor.1"]).output == ".so man1/orientationctl.1\n")
        let service = run(["/bin/cat", root + listed.first { $0.hasSuffix("orientationd.service") }!]).output
        #expect(service.contains("ExecStart=/usr/bin/orientationd --config /etc/orientationd/orientationd.conf"), "\(service)")
        #expect(run(["/usr/bin/cmp", root + "/etc/orientationd/orientationd.conf", Self.repository + "/config/orientationd.conf"]).status == 0)
    }

    /// Each name runs its own command: the multi-call binary reads argv[0].
    static let commandNames: [(name: String, overview: String)] = [
        ("orientationd", "OVERVIEW: Publish device-orientation events"),
        ("orientationctl", "OVERVIEW: Talk to orientationd"),
        ("monitor-sensor", "OVERVIEW: Print sensor changes as iio-sensor-proxy's monitor-sensor does"),
    ]

    @Test func theBinariesRunWithoutTheToolchainOrAnEnvironment() {
        let libraries = run(["/usr/bin/ldd", root + "/usr/bin/orientationd"]).output
        #expect(!libraries.contains("libswift") && !libraries.contains("libFoundation") && !libraries.contains("libdispatch")
                    && !libraries.contains("/opt/swift"), "orientationd links: \(libraries)")
        #expect(!libraries.contains("not found"), "\(libraries)")
        for (name, overview) in Self.commandNames {
            let help = run([root + "/usr/bin/" + name, "--help"], environment: [])
            #expect(help.status == 0 && help.output.contains(overview) && help.output.contains("USAGE:"),
                    "\(name) --help with an empty environment: \(help.output)")
        }
        // Any other name is the daemon (a copy renamed by hand, say).
        var template = Array("/tmp/orientationd-name-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer { _ = run(["/bin/rm", "-rf", dir]) }
        symlink(root + "/usr/bin/orientationd", dir + "/orientationd-test")
        #expect(run([dir + "/orientationd-test", "--help"], environment: []).output.contains("OVERVIEW: Publish device-orientation events"))
        let check = run([root + "/usr/bin/orientationd", "--check-config", root + "/etc/orientationd/orientationd.conf"], environment: [])
        #expect(check.status == 0, "\(check.output)")
        let replay = run([root + "/usr/bin/orientationctl", "replay", Self.repository + "/data/xio-fusion/handheld.log"], environment: [])
        #expect(replay.status == 0 && replay.output.contains("landscape"), "\(replay.output)")
    }

    @Test func theManPagesRenderWithoutWarnings() {
        for page in ["/usr/share/man/man8/orientationd.8", "/usr/share/man/man1/orientationctl.1", "/usr/share/man/man5/orientationd.conf.5"] {
            let lint = run(["/usr/bin/groff", "-mandoc", "-Tutf8", "-ww", "-z", root + page])
            #expect(lint.status == 0 && lint.output.isEmpty, "\(page): \(lint.output)")
            let rendered = run(["/usr/bin/env", "MANWIDTH=100", "/usr/bin/man", "-l", root + page])
            #expect(rendered.status == 0 && rendered.output.contains("NAME"), "\(page): \(rendered.output.prefix(300))")
        }
        // monitor-sensor(1) is a `.so` of orientationctl(1): man finds it through the manpath.
        let monitor = run(["/usr/bin/env", "MANWIDTH=100", "MANPATH=" + root + "/usr/share/man", "/usr/bin/man", "monitor-sensor"])
        #expect(monitor.status == 0 && monitor.output.contains("orientationctl"), "\(monitor.output.prefix(300))")
        let conf = run(["/usr/bin/env", "MANWIDTH=100", "/usr/bin/man", "-l", root + "/usr/share/man/man5/orientationd.conf.5"]).output
        for setting in ["max-clients-per-user", "enable", "stall-timeout", "settle-time", "gyro-hold-limit"] {
            #expect(conf.contains(setting), "orientationd.conf(5) documents \(setting)")
        }
    }

    /// Issue 21, item 3: the manuals as `man -l` shows them. orientationd(8) lists only options
    /// that exist (every one of --help's) and has FILES, SIGNALS, EXIT STATUS and ENVIRONMENT;
    /// orientationctl(1) keeps every non-ASCII character; every document they (and the
    /// configuration) point to is installed.
    @Test func theManualsAreCompleteAndKeepEveryCharacter() {
        func rendered(_ page: String) -> String {
            run(["/usr/bin/env", "MANWIDTH=200", "LC_ALL=C.UTF-8", "/usr/bin/man", "-l", root + page]).output
        }
        let daemon = rendered("/usr/share/man/man8/orientationd.8")
        for section in ["SYNOPSIS", "OPTIONS", "FILES", "SIGNALS", "EXIT STATUS", "ENVIRONMENT", "SEE ALSO"] {
            #expect(daemon.contains("\n\(section)\n"), "orientationd(8) has \(section)")
        }
        for fact in ["/run/orientationd/orientationd.sock", "/etc/orientationd/orientationd.conf", "orientationd.socket", "SIGHUP",
                     "SIGTERM", "LISTEN_FDS", "JOURNAL_STREAM", "WATCHDOG_USEC"] {
            #expect(daemon.contains(fact), "orientationd(8) mentions \(fact)")
        }
        #expect(!daemon.contains("subcommand") && !daemon.contains("\n       help"), "no entries that do not exist: \(daemon)")
        let help = run([root + "/usr/bin/orientationd", "--help"], environment: []).output
        let options = Set(help.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," }).filter { $0.hasPrefix("--") }.map(String.init))
        #expect(options.count > 15, "\(options)")
        for option in options { #expect(daemon.contains(option), "orientationd(8) documents \(option)") }

        let ctl = rendered("/usr/share/man/man1/orientationctl.1")
        for text in ["ORIENTATION_WL_TRANSFORM  0–3", "(τ = 0.3 s)", "15° of horizontal", "m/s²", "→"] {
            #expect(ctl.contains(text), "orientationctl(1) keeps \(text)")
        }
        for command in ["monitor", "get", "follow", "lock", "replay", "evaluate", "plot", "simulate", "import", "calibrate"] {
            #expect(ctl.contains("orientationctl \(command)"), "orientationctl(1) has \(command)")
        }
        #expect(!ctl.contains("orientationctl help"), "no help subcommand entry")
        for section in ["ENVIRONMENT", "EXIT STATUS", "FILES", "EXAMPLES"] { #expect(ctl.contains("\n\(section)\n")) }

        let conf = rendered("/usr/share/man/man5/orientationd.conf.5")
        #expect(conf.contains("privileged-group (no default)") && conf.contains("device (no default)"), "\(conf)")
        #expect(!conf.contains("= wheel") && !conf.contains("= bmc150_accel"), "no example shown as a default")

        // Every document named anywhere in the manuals or the installed configuration is installed.
        let config = run(["/bin/cat", root + "/etc/orientationd/orientationd.conf"]).output
        var named = Set<String>()
        for text in [daemon, ctl, conf, config] {
            for word in text.split(whereSeparator: { !($0.isLetter || $0 == "-" || $0 == ".") }) where word.hasSuffix(".md") {
                named.insert(String(word))
            }
        }
        #expect(named.isSuperset(of: ["DETECTOR.md", "PROTOCOL.md"]), "\(named)")
        for document in named {
            #expect(access(root + "/usr/share/doc/orientationd/" + document, R_OK) == 0, "\(document) is referenced but not installed")
        }
    }

    @Test func completionsAreGeneratedForEveryShell() {
        let bash = run(["/bin/bash", "-n", root + "/usr/share/bash-completion/completions/orientationctl"])
        #expect(bash.status == 0, "\(bash.output)")
        // bash-completion sources the file: no hashbang (lintian: bash-completion-with-hashbang).
        #expect(!run(["/bin/cat", root + "/usr/share/bash-completion/completions/orientationctl"]).output.hasPrefix("#!"))
        #expect(run(["/bin/cat", root + "/usr/share/bash-completion/completions/orientationctl"]).output.contains("monitor-sensor"))
        #expect(run(["/bin/cat", root + "/usr/share/zsh/vendor-completions/_orientationctl"]).output.contains("#compdef orientationctl"))
        #expect(run(["/bin/cat", root + "/usr/share/fish/vendor_completions.d/orientationctl.fish"]).output.contains("complete -c 'orientationctl'"))
    }

    @Test func theInstalledUnitsVerifyAndStaySandboxed() throws {
        // verify checks that ExecStart exists: point it at the staged binary.
        var template = Array("/tmp/orientationd-units-XXXXXX".utf8CString)
        let units = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        for unit in ["orientationd.service", "orientationd.socket"] {
            let installed = listed.first { $0.hasSuffix("/" + unit) }!
            let text = run(["/bin/cat", root + installed]).output.replacingAll("/usr/bin/orientationd", with: root + "/usr/bin/orientationd")
            let file = fopen(units + "/" + unit, "w")
            fputs(text, file)
            fclose(file)
        }
        let verify = run(["/usr/bin/systemd-analyze", "verify", units + "/orientationd.socket", units + "/orientationd.service"])
        #expect(verify.status == 0, "\(verify.output)")
        let security = run(["/usr/bin/systemd-analyze", "security", "--offline=yes", units + "/orientationd.service"])
        let exposure = security.output.split(separator: "\n").last { $0.contains("Overall exposure level") }
        let score = exposure.flatMap { line in line.split(separator: " ").compactMap { Double($0) }.first }
        #expect(score != nil && score! <= 2.0, "\(exposure ?? "no score")")
    }

    /// The installed udev rule, run by the real udev (`udevadm test`) against umockdev devices:
    /// in a private mount namespace, /run/udev/rules.d (a directory udev reads) is a tmpfs
    /// holding only the rule, so nothing on this machine changes.
    static let udevRows: [(name: String, lines: [String], wanted: Bool)] = [
        ("a polled accelerometer", ["A: in_accel_x_raw=0\\n", "A: in_accel_y_raw=-100\\n", "A: in_accel_z_raw=0\\n"], true),
        ("a buffered accelerometer", ["A: scan_elements/in_accel_x_en=0\\n", "A: scan_elements/in_accel_y_en=0\\n",
                                      "A: scan_elements/in_accel_z_en=0\\n"], true),
        ("a base accelerometer (udev)", ["E: ACCEL_LOCATION=base", "A: in_accel_x_raw=0\\n", "A: in_accel_y_raw=0\\n", "A: in_accel_z_raw=0\\n"], false),
        ("a base accelerometer (sysfs label)", ["A: label=accel-base\\n", "A: in_accel_x_raw=0\\n", "A: in_accel_y_raw=0\\n",
                                                "A: in_accel_z_raw=0\\n"], false),
        ("a gyroscope alone", ["A: in_anglvel_x_raw=0\\n", "A: in_anglvel_y_raw=0\\n", "A: in_anglvel_z_raw=0\\n"], false),
        ("two axes only", ["A: in_accel_x_raw=0\\n", "A: in_accel_y_raw=0\\n"], false),
        // Issue 17: light, proximity and compass start it too, wherever they sit.
        ("an ambient light sensor", ["A: in_illuminance_input=312\\n"], true),
        ("a raw light sensor", ["A: in_illuminance0_raw=12\\n", "A: in_illuminance0_scale=0.5\\n"], true),
        ("a buffered light sensor", ["A: scan_elements/in_intensity_both_en=0\\n"], true),
        ("a proximity sensor", ["A: in_proximity_raw=10\\n"], true),
        ("a HID compass", ["A: in_rot_from_north_magnetic_tilt_comp_raw=2710\\n"], true),
        ("light beside a base accelerometer", ["E: ACCEL_LOCATION=base", "A: in_illuminance_input=3\\n"], true),
    ]

    static var canRunUdevTest: Bool {
        getuid() == 0 && access("/usr/bin/unshare", X_OK) == 0 && access("/usr/bin/umockdev-run", X_OK) == 0
            && access("/bin/udevadm", X_OK) == 0
    }

    @Test(.enabled(if: InstallTests.canRunUdevTest, "needs root (a mount namespace), unshare, umockdev-run and udevadm"),
          arguments: udevRows)
    func theUdevRuleStartsTheServiceOnlyForASensorItServes(_ row: (name: String, lines: [String], wanted: Bool)) throws {
        var template = Array("/tmp/orientationd-udev-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        let description = (["P: /devices/platform/fake-accel/iio:device0", "E: DEVTYPE=iio_device", "E: SUBSYSTEM=iio",
                            "A: name=accel_3d\\n"] + row.lines).joined(separator: "\n") + "\n\n"
        let file = fopen(dir + "/device.umockdev", "w")
        fputs(description, file)
        fclose(file)
        let rule = root + (listed.first { $0.hasSuffix("80-orientationd.rules") } ?? "")
        let script = "mount -t tmpfs none /run/udev/rules.d && cp '\(rule)' /run/udev/rules.d/ && "
            + "exec umockdev-run -d '\(dir)/device.umockdev' -- udevadm test --action=add /sys/devices/platform/fake-accel/iio:device0"
        let result = run(["/usr/bin/unshare", "-m", "/bin/sh", "-c", "mkdir -p /run/udev/rules.d && " + script],
                         environment: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"])
        #expect(result.output.contains("Reading rules file: /run/udev/rules.d/80-orientationd.rules"), "\(result.output.suffix(2000))")
        let wants = result.output.split(separator: "\n").first { $0.hasPrefix("SYSTEMD_WANTS=") }.map(String.init) ?? ""
        #expect(wants.contains("orientationd.service") == row.wanted, "\(row.name): \(wants)")
        #expect(result.output.contains("TAGS=") || !row.wanted)
    }

    /// An existing configuration survives a second install, and uninstall removes everything
    /// install laid out but a changed configuration. On a copy of the staged tree, so the other
    /// tests see it whole whatever the order.
    @Test func reinstallKeepsTheConfigurationAndUninstallRemovesTheRest() {
        var template = Array("/tmp/orientationd-reinstall-XXXXXX".utf8CString)
        let copy = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) } + "/root"
        #expect(run(["/bin/cp", "-a", root, copy]).status == 0)
        func script(_ action: String) -> (status: Int32, output: String) { installScript(action, destdir: copy) }
        let config = copy + "/etc/orientationd/orientationd.conf"
        let file = fopen(config, "a")
        fputs("\n[dbus]\nenable = true\n", file)
        fclose(file)
        let again = script("install")
        #expect(again.status == 0 && again.output.contains("keeping the existing"), "\(again.output)")
        #expect(run(["/bin/cat", config]).output.hasSuffix("enable = true\n"), "a changed configuration is never overwritten")
        let removed = script("uninstall")
        #expect(removed.status == 0, "\(removed.output)")
        for file in listed {
            #expect(access(copy + file, F_OK) != 0 || file.hasSuffix("/orientationd.conf"), "left behind: \(file)")
        }
        #expect(access(config, F_OK) == 0 && removed.output.contains("it was changed"), "a changed configuration stays")
    }

    /// Issue 40, item 1: install and uninstall never write over or remove a file another package
    /// owns. Debian's iio-sensor-proxy installs /usr/bin/monitor-sensor and its D-Bus policy in
    /// /etc/dbus-1/system.d (where PREFIX=/usr/local puts ours); iio-sensor-proxy 3.4+ the polkit
    /// action. Into a fresh DESTDIR holding such files, with PREFIX=/usr and /usr/local: their bytes
    /// are unchanged after both installs and both uninstalls, our monitor-sensor is
    /// `orientationctl monitor-sensor` (no link, no monitor-sensor(1) of ours), the rest installs.
    @Test func anotherPackagesFilesAreNeverWrittenOverOrRemoved() {
        var template = Array("/tmp/orientationd-peer-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        defer { _ = run(["/bin/rm", "-rf", dir]) }
        let destdir = dir + "/root"
        func listed(_ prefix: String) -> [String] {
            installScript("list", destdir: destdir, prefix: prefix).output.split(separator: "\n").map(String.init)
        }
        var peer: [String: String] = ["/usr/bin/monitor-sensor": "\u{7f}ELF iio-sensor-proxy's monitor-sensor\n"]
        for prefix in ["/usr", "/usr/local"] {
            for file in listed(prefix) where file.hasSuffix("/net.hadess.SensorProxy.conf") || file.hasSuffix("/net.hadess.SensorProxy.policy") {
                peer[file] = "<!-- iio-sensor-proxy's \(file) -->\n"
            }
        }
        #expect(peer.keys.contains("/etc/dbus-1/system.d/net.hadess.SensorProxy.conf"), "\(peer.keys)")
        for (file, text) in peer {
            _ = run(["/bin/mkdir", "-p", destdir + String(file[..<file.lastIndex(of: "/")!])])
            writeText(destdir + file, text)
        }
        func unchanged(_ step: String) {
            for (file, text) in peer {
                #expect(readTextIfPresent(destdir + file) == text, "\(step) changed or removed another package's \(file)")
            }
        }
        for prefix in ["/usr", "/usr/local"] {
            let installed = installScript("install", destdir: destdir, prefix: prefix)
            #expect(installed.status == 0 && installed.output.contains("orientationctl monitor-sensor"), "\(installed.output)")
            unchanged("install PREFIX=\(prefix)")
            #expect(access(destdir + prefix + "/bin/orientationctl", X_OK) == 0)
            #expect(access(destdir + prefix + "/share/man/man1/monitor-sensor.1", F_OK) != 0, "monitor-sensor(1) is the peer's to give")
            if prefix == "/usr/local" {
                var info = stat()
                #expect(lstat(destdir + "/usr/local/bin/monitor-sensor", &info) != 0, "no monitor-sensor of ours shadows the peer's in PATH")
            }
        }
        for prefix in ["/usr", "/usr/local"] {
            let removed = installScript("uninstall", destdir: destdir, prefix: prefix)
            #expect(removed.status == 0, "\(removed.output)")
            unchanged("uninstall PREFIX=\(prefix)")
            for file in listed(prefix) where peer[file] == nil && !file.hasSuffix("/orientationd.conf") {
                #expect(access(destdir + file, F_OK) != 0, "left behind: \(file)")
            }
        }
    }

    /// Issue 40, item 2: iio-sensor-proxy's unit is static and its udev rule starts it at every
    /// boot, so `systemctl disable` does not last: the steps install prints on a live system, the
    /// README's and docs/DBUS.md's say `mask` (and uninstall's `unmask`), never `disable` of the peer.
    @Test func theStepsToReplaceIioSensorProxyMaskIt() {
        let steps = installScript("steps")
        #expect(steps.status == 0, "\(steps.output)")
        #expect(steps.output.contains("systemctl mask --now iio-sensor-proxy"), "\(steps.output)")
        #expect(steps.output.contains("systemctl unmask iio-sensor-proxy"), "\(steps.output)")
        for document in ["/scripts/install.sh", "/README.md", "/docs/DBUS.md"] {
            let text = run(["/bin/cat", Self.repository + document]).output
            #expect(!text.contains("disable --now iio-sensor-proxy") && !text.contains("enable --now iio-sensor-proxy"), "\(document)")
            #expect(document == "/scripts/install.sh" || text.contains("systemctl mask --now iio-sensor-proxy"), "\(document)")
        }
    }

    /// Issue 40: `make install` installed the release build as it is, 51 MB with its symbols and
    /// debug information; it is stripped, as the package's is.
    @Test func theInstalledBinaryIsStripped() {
        let sections = run(["/usr/bin/readelf", "-S", "-W", root + "/usr/bin/orientationd"]).output
        #expect(sections.contains(" .text"), "\(sections)")
        #expect(!sections.contains(".debug_info") && !sections.contains(" .symtab"), "not stripped: \(sections)")
        var info = stat()
        #expect(stat(root + "/usr/bin/orientationd", &info) == 0 && info.st_size < 40_000_000, "\(info.st_size) bytes")
    }
}
