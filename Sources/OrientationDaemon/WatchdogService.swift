import Logging
import OrientationCore
import OrientationServer
import SensorLifecycle
import SensorPipeline
import ServiceLifecycle

/// systemd's watchdog (`WatchdogSec=`): sends `WATCHDOG=1` every half interval, but only while
/// the daemon really works, so that systemd restarts one that does not.
///
/// Contract: a ping is sent when the sensor pipeline made progress within its deadline
/// (``PipelineHealth``: a reader stuck in the kernel is not progress) and the event loop that
/// serves every client ran a no-op within a quarter of the interval. Otherwise the ping is
/// withheld and the first missed one is logged (as is the recovery). Each tick also refreshes
/// `STATUS=`. Ends with the group.
struct WatchdogService: Service {
    /// `WATCHDOG_USEC`, in seconds.
    let interval: Double
    let health: PipelineHealth
    let hub: SubscriptionHub.Handle
    let status: @Sendable () async -> String
    let logger: Logger
    /// How the period and the loop probe wait.
    var sleeper: Sleeper = .task
    /// Where the state lines go (the service manager's socket; tests collect them).
    var notify: @Sendable (String) -> Void = { SystemdIntegration.notify($0) }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var withheld = false
            var lastStatus = ""
            while !Task.isCancelled {
                let loopAnswers = await hub.isResponsive(within: interval / 4, sleeper: sleeper)
                let alive = health.isAlive && loopAnswers
                if alive {
                    notify("WATCHDOG=1")
                    if withheld { logger.notice("the daemon makes progress again; watchdog pings resumed") }
                } else if !withheld {
                    let reason = loopAnswers ? "the sensor pipeline is \(Int(health.overdueSeconds.rounded())) s overdue (a reader stuck in the kernel?)"
                                             : "the event loop did not answer within \(interval / 4) s"
                    logger.error("withholding watchdog pings; systemd will restart the daemon if this lasts",
                                 metadata: ["reason": "\(reason)"])
                }
                withheld = !alive
                let line = await status()
                if line != lastStatus {
                    notify("STATUS=\(line)")
                    lastStatus = line
                }
                try? await sleeper.sleep(seconds: interval / 2)
            }
        }
    }
}
