import OrientationServer
import ServiceLifecycle

/// SIGHUP (systemd's `ExecReload=`): `RELOADING=1` with `MONOTONIC_USEC`, the reload, then
/// `READY=1` and a fresh `STATUS=`. A refused reload keeps the old settings (the reload closure
/// logs why). Ends with the group.
struct ReloadService: Service {
    let signals: AsyncStream<Int32>
    let reload: @Sendable () async -> Void
    let status: @Sendable () async -> String

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                SystemdIntegration.notify("RELOADING=1\nMONOTONIC_USEC=\(SystemdIntegration.monotonicMicroseconds())")
                await reload()
                SystemdIntegration.notify("READY=1\nSTATUS=\(await status())")
            }
        }
    }
}
