import CGlobalExecutorHook
import NIOCore
import NIOPosix

/// Makes SwiftNIO's singleton event loops Swift's global executor, and makes a job for the main
/// actor trap loudly (the daemon's main thread waits for signals and serves no actor: such a job
/// would otherwise hang without a word).
///
/// How, and why it is guarded as SwiftNIO guards its own takeover
/// (`NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor`):
/// - The runtime's hooks are `SWIFT_CC(swift)` function pointers taking the job and the original
///   implementation. The hooks here are `@convention(thin)` Swift functions of exactly that
///   shape, so the runtime calls them with the convention they were compiled for; C only stores
///   the pointers (`CGlobalExecutorHook`, whose static-link reasons its header gives).
/// - Only for compilers before 6.6, the range NIO vouches for (its own `#if compiler(<6.6)`):
///   a later runtime may change the hooks' signature. Past that bound, or if another hook is
///   already installed, ``install()`` returns false and the daemon runs on Swift's default
///   executor: correct, only not idle.
///
/// Tested in a process of its own (`executor-takeover-probe`, run by `ExecutorTakeoverTests`):
/// tasks run on the loops' threads, and a main-actor job traps with the message.
///
/// When Swift ships a public custom global/main executor API (SE-0458's successors), replace this
/// with it: docs/ARCHITECTURE.md, "Executors", says what to check when doing so.
public enum ExecutorTakeover {
    #if compiler(<6.6)
    /// The runtime's hook type: the job, and the original enqueue (unused here).
    typealias EnqueueHook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void
    /// The runtime's `swift_task_getMainExecutor_hook` type: returns the main actor's executor.
    typealias GetMainExecutorHook = @convention(thin) (@convention(thin) () -> UnownedSerialExecutor) -> UnownedSerialExecutor
    #endif

    /// Why ``install()`` returned false (for the warning).
    nonisolated(unsafe) public private(set) static var unavailableReason = "not attempted"

    /// Installs both hooks. Call once, from the main thread, before the first task starts.
    /// - Returns: true when tasks run on the event loops from now on.
    public static func install() -> Bool {
        #if compiler(<6.6)
        guard installHook({ job, _ in
            // `any()` stays on the current loop when called from one, sparing a thread hop.
            MultiThreadedEventLoopGroup.singleton.any().executor.enqueue(ExecutorJob(job))
        }, with: orientationd_install_enqueue_global_hook) else {
            unavailableReason = "another global-executor hook is installed"
            return false
        }
        _ = installHook({ _, _ in UnservedMainExecutor.trap() }, with: orientationd_install_enqueue_main_executor_hook)
        _ = installMainExecutorHook({ _ in UnservedMainExecutor.shared.asUnownedSerialExecutor() })
        return true
        #else
        unavailableReason = "this compiler is newer than the executor hooks this takeover was checked against (< 6.6)"
        return false
        #endif
    }

    #if compiler(<6.6)
    private static func installMainExecutorHook(_ hook: GetMainExecutorHook) -> Bool {
        withUnsafeTemporaryAllocation(of: GetMainExecutorHook.self, capacity: 1) { slot in
            slot.baseAddress!.initialize(to: hook)
            return slot.baseAddress!.withMemoryRebound(to: UnsafeRawPointer.self, capacity: 1) {
                orientationd_install_get_main_executor_hook($0.pointee) == 1
            }
        }
    }

    /// Hands the thin function's pointer to C. (That a thin function value is exactly its code
    /// pointer is what NIO's takeover also relies on.)
    private static func installHook(_ hook: EnqueueHook, with installer: (UnsafeRawPointer?) -> Int32) -> Bool {
        withUnsafeTemporaryAllocation(of: EnqueueHook.self, capacity: 1) { slot in
            slot.baseAddress!.initialize(to: hook)
            return slot.baseAddress!.withMemoryRebound(to: UnsafeRawPointer.self, capacity: 1) { installer($0.pointee) == 1 }
        }
    }
    #endif
}

/// The main actor's executor in orientationd: nothing serves the main actor (the main thread
/// waits for signals), so a job for it traps at once with a message saying so, where libdispatch's
/// main queue would have kept it forever and the task awaiting it would hang without a word.
final class UnservedMainExecutor: SerialExecutor {
    static let shared = UnservedMainExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        Self.trap()
    }

    static func trap() -> Never {
        fatalError("orientationd: a job was sent to the main actor, which nothing serves (the main thread waits for signals); run it in a Task.detached or on the event loops instead")
    }
}
