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

    func installScript(_ action: String) -> (status: Int32, output: String) {
        run(["/usr/bin/env", "PREFIX=/usr", "DESTDIR=\(root)", "BUILD=\(Self.repository)/.build/release",
             "MANUALS=\(Self.repository)/.build/manuals", Self.repository + "/scripts/install.sh", action])
    }

    var listed: [String] {
        installScript("list").output.split(separator: "\n").map(String.init)
    }

    @Test func everyListedFileIsInstalled() {
        #expect(listed.count >= 14, "\(listed)")
        for file in listed {
            #expect(access(root + file, F_OK) == 0, "missing: \(file)")
        }
        var link = [CChar](repeating: 0, count: 256)
        let n = readlink(root + "/usr/bin/monitor-sensor", &link, link.count - 1)
        #expect(n > 0 && String(cString: link) == "orientationctl", "monitor-sensor is orientationctl under iio-sensor-proxy's name")
        let service = run(["/bin/cat", root + listed.first { $0.hasSuffix("orientationd.service") }!]).output
        #expect(service.contains("ExecStart=/usr/bin/orientationd --config /etc/orientationd/orientationd.conf"), "\(service)")
        #expect(run(["/usr/bin/cmp", root + "/etc/orientationd/orientationd.conf", Self.repository + "/config/orientationd.conf"]).status == 0)
    }

    @Test func theBinariesRunWithoutTheToolchainOrAnEnvironment() {
        for binary in ["orientationd", "orientationctl"] {
            let path = root + "/usr/bin/" + binary
            let libraries = run(["/usr/bin/ldd", path]).output
            #expect(!libraries.contains("libswift") && !libraries.contains("libFoundation") && !libraries.contains("libdispatch")
                        && !libraries.contains("/opt/swift"), "\(binary) links: \(libraries)")
            #expect(!libraries.contains("not found"), "\(libraries)")
            let help = run([path, "--help"], environment: [])
            #expect(help.status == 0 && help.output.contains("USAGE:"), "\(binary) --help with an empty environment: \(help.output)")
        }
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

    /// `make deb`: fields, contents, conffiles, maintainer scripts, and the packaged
    /// configuration (D-Bus on, valid).
    @Test(.enabled(if: Staged.deb != nil, "run by scripts/run-tests.sh after make deb"))
    func theDebianPackageReplacesIioSensorProxyAndDependsOnDebianLibrariesOnly() throws {
        let deb = Staged.deb!
        func field(_ name: String) -> String { run(["/usr/bin/dpkg-deb", "-f", deb, name]).output.trimmingNewlines() }
        #expect(field("Package") == "orientationd")
        for relation in ["Conflicts", "Replaces", "Provides"] { #expect(field(relation) == "iio-sensor-proxy", "\(relation)") }
        let depends = field("Depends")
        for library in ["libiio0", "libudev1", "libsystemd0", "libc6"] { #expect(depends.contains(library), "Depends: \(depends)") }
        #expect(!depends.lowercased().contains("swift"), "Depends: \(depends)")
        // Versioned as dpkg-shlibdeps derives it; the binaries need at least bookworm's loader.
        #expect(depends.contains("libc6 (>= 2.36)"), "DT_RELR needs glibc 2.36: \(depends)")
        #expect(depends.contains("libiio0 (>= "), "Depends: \(depends)")
        let contents = run(["/usr/bin/dpkg-deb", "-c", deb]).output
        for path in ["./usr/bin/orientationd", "./usr/bin/orientationctl", "./usr/bin/monitor-sensor -> orientationctl",
                     "./lib/systemd/system/orientationd.service", "./lib/systemd/system/orientationd.socket",
                     "./lib/udev/rules.d/80-orientationd.rules", "./usr/share/dbus-1/system.d/net.hadess.SensorProxy.conf",
                     "./etc/orientationd/orientationd.conf", "./usr/share/man/man8/orientationd.8",
                     "./usr/share/man/man5/orientationd.conf.5", "./usr/share/man/man1/orientationctl.1"] {
            #expect(contents.contains(path), "\(path) not in the package")
        }
        #expect(contents.split(separator: "\n").allSatisfy { $0.contains("root/root") }, "every file owned by root")
        var template = Array("/tmp/orientationd-deb-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        #expect(run(["/usr/bin/dpkg-deb", "-R", deb, dir]).status == 0)
        #expect(run(["/bin/cat", dir + "/DEBIAN/conffiles"]).output == "/etc/orientationd/orientationd.conf\n")
        for script in ["postinst", "prerm", "postrm"] {
            #expect(run(["/bin/sh", "-n", dir + "/DEBIAN/" + script]).status == 0, "\(script) parses")
        }
        #expect(run(["/bin/cat", dir + "/DEBIAN/postinst"]).output.contains("systemctl enable orientationd.socket orientationd.service"))
        let config = dir + "/etc/orientationd/orientationd.conf"
        let check = run([dir + "/usr/bin/orientationd", "--check-config", config], environment: [])
        #expect(check.status == 0 && check.output.contains("D-Bus on"), "the packaged configuration enables the facade: \(check.output)")
        let unit = run(["/bin/cat", dir + "/lib/systemd/system/orientationd.service"]).output
        #expect(unit.contains("ExecStart=/usr/bin/orientationd "), "\(unit)")
    }

    static var canSwapPackages: Bool {
        getuid() == 0 && access("/usr/bin/dpkg-repack", X_OK) == 0 && access("/var/lib/dpkg/info/iio-sensor-proxy.list", F_OK) == 0
    }

    /// `make deb`, installed for real by dpkg over Debian's iio-sensor-proxy (this machine's
    /// installed copy, repacked by dpkg-repack), in a scratch root (`dpkg --root`: the
    /// maintainer scripts run chrooted there, with a shell and systemctl copied in and no
    /// running systemd, as when a tablet image is built): ours takes the peer's place, the
    /// units are enabled; removing ours leaves only the conffile the administrator changed and
    /// no unit symlink; purging leaves nothing; and the peer installs again afterwards.
    @Test(.enabled(if: Staged.deb != nil && InstallTests.canSwapPackages, "needs root, dpkg-repack and iio-sensor-proxy installed (make setup)"))
    func thePackageTakesIioSensorProxysPlaceAndLeavesOnlyAChangedConffile() throws {
        let deb = Staged.deb!
        var template = Array("/tmp/orientationd-swap-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        let chroot = dir + "/root"
        // dpkg's database, /dev/null, and what the maintainer scripts run (with its libraries).
        let prepare = """
            set -e
            R='\(chroot)'
            mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/dev" "$R/tmp"
            touch "$R/var/lib/dpkg/status" "$R/var/lib/dpkg/available"
            mknod -m 666 "$R/dev/null" c 1 3
            for tool in /bin/sh /bin/rm /bin/systemctl; do
                for file in $(ldd "$tool" | grep -o '/[^ ]*'); do mkdir -p "$R$(dirname "$file")"; cp -L "$file" "$R$file"; done
                mkdir -p "$R$(dirname "$tool")"; cp -L "$tool" "$R$tool"
            done
            cd '\(dir)' && dpkg-repack iio-sensor-proxy
            """
        let prepared = run(["/bin/sh", "-c", prepare], environment: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"])
        #expect(prepared.status == 0, "\(prepared.output)")
        let peer = run(["/bin/sh", "-c", "ls '\(dir)'/iio-sensor-proxy_*.deb"]).output.trimmingNewlines()
        func dpkg(_ arguments: [String]) -> (status: Int32, output: String) {
            // Dependencies are the real system's business; the chroot holds none of them.
            run(["/usr/bin/dpkg", "--root=" + chroot, "--force-depends"] + arguments,
                environment: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"])
        }
        func status(_ package: String) -> String {
            run(["/usr/bin/dpkg-query", "--admindir=" + chroot + "/var/lib/dpkg", "-W", "-f=${Status}", package]).output
        }
        func exists(_ path: String) -> Bool {
            var info = stat()
            return lstat(chroot + path, &info) == 0
        }
        func files(_ package: String) -> [String] {  // the package's non-directory entries
            run(["/usr/bin/dpkg-deb", "-c", package]).output.split(separator: "\n").compactMap { line in
                guard !line.hasPrefix("d"), let path = line.split(separator: " ").first(where: { $0.hasPrefix("./") }) else { return nil }
                return String(path.dropFirst())
            }
        }
        let ours = files(deb), theirs = files(peer)
        let conffile = "/etc/orientationd/orientationd.conf"
        let wants = ["/etc/systemd/system/sockets.target.wants/orientationd.socket",
                     "/etc/systemd/system/multi-user.target.wants/orientationd.service"]

        let installedPeer = dpkg(["-i", peer])
        #expect(installedPeer.status == 0 && status("iio-sensor-proxy") == "install ok installed", "\(installedPeer.output)")
        #expect(exists("/usr/sbin/iio-sensor-proxy"))

        // Ours replaces it: the peer is removed (its conffile stays, as with any removal).
        let installed = dpkg(["-i", deb])
        #expect(installed.status == 0 && status("orientationd") == "install ok installed", "\(installed.output)")
        #expect(status("iio-sensor-proxy").hasSuffix("config-files"), "the peer is removed: \(status("iio-sensor-proxy"))")
        for path in theirs where !ours.contains(path) && !path.hasPrefix("/etc/") {
            #expect(!exists(path), "the peer's \(path) is still there")
        }
        for path in ours { #expect(exists(path), "\(path) is not installed") }
        #expect(run(["/usr/bin/readlink", chroot + "/usr/bin/monitor-sensor"]).output == "orientationctl\n", "monitor-sensor is ours now")
        for link in wants { #expect(exists(link), "\(link): the units are enabled without a running systemd") }

        // Removal: everything but the changed conffile goes, symlinks included.
        let file = fopen(chroot + conffile, "a")
        fputs("# changed by the administrator\n", file)
        fclose(file)
        let removed = dpkg(["-r", "orientationd"])
        #expect(removed.status == 0 && status("orientationd").hasSuffix("config-files"), "\(removed.output)")
        for path in ours where path != conffile { #expect(!exists(path), "left behind: \(path)") }
        for link in wants { #expect(!exists(link), "left behind: \(link)") }
        #expect(run(["/bin/cat", chroot + conffile]).output.hasSuffix("# changed by the administrator\n"))

        // Purge: the configuration goes too. Then back to the peer.
        let purged = dpkg(["-P", "orientationd"])
        #expect(purged.status == 0 && !exists("/etc/orientationd"), "\(purged.output)")
        let back = dpkg(["-i", peer])
        #expect(back.status == 0 && status("iio-sensor-proxy") == "install ok installed" && exists("/usr/sbin/iio-sensor-proxy"), "\(back.output)")
        _ = run(["/bin/rm", "-rf", dir])
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
    ]

    static var canRunUdevTest: Bool {
        getuid() == 0 && access("/usr/bin/unshare", X_OK) == 0 && access("/usr/bin/umockdev-run", X_OK) == 0
            && access("/bin/udevadm", X_OK) == 0
    }

    @Test(.enabled(if: InstallTests.canRunUdevTest, "needs root (a mount namespace), unshare, umockdev-run and udevadm"),
          arguments: udevRows)
    func theUdevRuleStartsTheServiceOnlyForAUsableAccelerometer(_ row: (name: String, lines: [String], wanted: Bool)) throws {
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
        func script(_ action: String) -> (status: Int32, output: String) {
            run(["/usr/bin/env", "PREFIX=/usr", "DESTDIR=\(copy)", "BUILD=\(Self.repository)/.build/release",
                 "MANUALS=\(Self.repository)/.build/manuals", Self.repository + "/scripts/install.sh", action])
        }
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
}
