// Swift's hook for its global executor, set from C.
//
// The Swift runtime declares `swift_task_enqueueGlobal_hook`, a function pointer it calls for
// every job bound for the global executor (SwiftNIO's
// unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor sets it). NIO finds
// it with dlsym, which works only where libswift_Concurrency is a shared library: with
// `--static-swift-stdlib` (every release build of orientationd) the symbol has hidden visibility,
// so dlsym cannot see it and NIO's call returns false. The linker still resolves a reference
// to it from an object of the same link, which is what this shim is.
#ifndef ORIENTATIOND_CGLOBALEXECUTORHOOK_H
#define ORIENTATIOND_CGLOBALEXECUTORHOOK_H

/// The hook's type: the job, and the runtime's own enqueue (unused here).
typedef void (*orientationd_enqueue_global_hook)(void *job, const void *original);

/// Installs `hook` as the global executor's enqueue hook. Returns 1, or 0 (nothing changed) when
/// a hook is already installed. Call once, from the main thread, before the first task starts.
int orientationd_install_enqueue_global_hook(orientationd_enqueue_global_hook hook);

#endif
