import NIOCore
import NIOPosix
import OrientationCore
import SensorLifecycle
import SensorPipeline

extension Sleeper {
    /// Waits on SwiftNIO's singleton event loops (a scheduled task), never on libdispatch: the
    /// daemon's timers, whose tasks run on those loops (orientationd's `OrientationdMain`).
    /// Cancelling the waiting task cancels the scheduled task and throws `CancellationError`.
    public static let onEventLoops = Sleeper { seconds in
        try Task.checkCancellation()
        let scheduled = MultiThreadedEventLoopGroup.singleton.any()
            .scheduleTask(in: .nanoseconds(SecondsConversion.nanoseconds(seconds))) {}
        try await withTaskCancellationHandler {
            do {
                try await scheduled.futureResult.get()
            } catch {
                throw CancellationError()  // the only way it fails: cancelled
            }
        } onCancel: {
            scheduled.cancel()
        }
    }
}
