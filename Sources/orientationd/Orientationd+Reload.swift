import Logging
import OrientationCore
import OrientationDaemon
import OrientationServer
import SensorIIO

/// SIGHUP (`systemctl reload orientationd`): the configuration file again, applied while running.
extension Orientationd {
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
            logger.error("reload refused; keeping the running settings", metadata: ["file": "\(file)", "error": "\(error)"])
            return
        }
        do {
            let outcome = try await service.reload(detector: settings.detector, server: settings.server,
                                                   sensor: readsSensor ? settings.sensor : nil,
                                                   auxiliarySensors: readsSensor ? settings.auxiliary : nil)
            var needRestart = outcome.needRestart
            if settings.dbus != running.dbus { needRestart.append("dbus enable") }
            logger.notice("configuration reloaded", metadata: ["file": "\(file)"])
            if !needRestart.isEmpty {
                logger.warning("some changed settings apply only after a restart; keeping them as they were",
                               metadata: ["settings": "\(needRestart.joined(separator: ", "))"])
            }
        } catch {
            logger.error("reload refused; keeping the running settings", metadata: ["file": "\(file)", "error": "\(error)"])
        }
    }
}
