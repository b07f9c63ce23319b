import Logging
import OrientationCore
import OrientationDaemon
import OrientationServer
import SensorIIO
import Synchronization

/// SIGHUP (`systemctl reload orientationd`): the configuration file again, applied while running.
extension Orientationd {
    /// A reload's outcome in the log: the same outcome again (same settings needing a restart,
    /// same error) is logged at most once a second, with the number of reloads not logged
    /// (issue 26: 1,500 SIGHUPs wrote 1,500 lines); a different one at once.
    private struct ReloadLog {
        var last: String? = nil
        var lastLogged = -Double.infinity
        var notLogged = 0

        mutating func admit(_ outcome: String) -> (log: Bool, notLogged: Int) {
            let now = Double(SystemdIntegration.monotonicMicroseconds()) / 1_000_000
            if outcome == last, now - lastLogged < 1 {
                notLogged += 1
                return (false, 0)
            }
            defer { notLogged = 0 }
            last = outcome
            lastLogged = now
            return (true, notLogged)
        }
    }

    private static let reloadLog = Mutex(ReloadLog())

    private static func refused(_ file: String, _ error: any Error, logger: Logger) {
        let (log, notLogged) = reloadLog.withLock { $0.admit("refused \(error)") }
        guard log else { return }
        logger.error("reload refused; keeping the running settings",
                     metadata: ["file": "\(file)", "error": "\(error)", "reloads-not-logged": "\(notLogged)"])
    }

    /// SIGHUP: re-reads the file (the command-line options still win) and applies what can
    /// change while running. A file that does not parse or validate is refused with its
    /// file:line, and the running settings stay. Settings bound at startup (the socket, D-Bus)
    /// are named as needing a restart.
    static func reload(command: Orientationd, service: OrientationService, running: DaemonSettings, readsSensor: Bool,
                       logger: Logger) async {
        let file = command.config ?? "(no configuration file: options only)"
        let settings: DaemonSettings
        do {
            settings = try DaemonSettings(command: command)
        } catch {
            return refused(file, error, logger: logger)
        }
        do {
            let outcome = try await service.reload(detector: settings.detector, server: settings.server,
                                                   sensor: readsSensor ? settings.sensor : nil,
                                                   auxiliarySensors: readsSensor ? settings.auxiliary : nil,
                                                   posture: readsSensor ? settings.posture.detector : nil,
                                                   tabletModeSwitch: readsSensor ? settings.posture.tabletModeSwitch : nil)
            var needRestart = outcome.needRestart
            if settings.dbus != running.dbus { needRestart.append("dbus enable") }
            if settings.posture.dbusHoldsInLaptop != running.posture.dbusHoldsInLaptop { needRestart.append("posture dbus-hold-in-laptop") }
            let (log, notLogged) = reloadLog.withLock { $0.admit("applied \(needRestart)") }
            guard log else { return }
            logger.notice("configuration reloaded", metadata: ["file": "\(file)", "reloads-not-logged": "\(notLogged)"])
            if !needRestart.isEmpty {
                logger.warning("some changed settings apply only after a restart; keeping them as they were",
                               metadata: ["settings": "\(needRestart.joined(separator: ", "))"])
            }
        } catch {
            refused(file, error, logger: logger)
        }
    }
}
