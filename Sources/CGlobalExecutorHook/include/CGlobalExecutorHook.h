// Swift's hooks for its global and main executors, set from C.
//
// The Swift runtime declares `swift_task_enqueueGlobal_hook` and
// `swift_task_enqueueMainExecutor_hook`, function pointers it calls for every job bound for the
// global executor and for the main actor (SwiftNIO's
// unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor sets the first). NIO
// finds it with dlsym, which works only where libswift_Concurrency is a shared library: with
// `--static-swift-stdlib` (every release build of orientationd) the symbols have hidden
// visibility, so dlsym cannot see them and NIO's call returns false. The linker still resolves a
// reference from an object of the same link, which is what this shim is.
//
// C only stores the pointers: it never calls through them. The hooks are Swift functions with
// Swift's calling convention (`@convention(thin)`), made and typed on the Swift side
// (OrientationdMain), so this header passes them as opaque pointers.
#ifndef ORIENTATIOND_CGLOBALEXECUTORHOOK_H
#define ORIENTATIOND_CGLOBALEXECUTORHOOK_H

/// Installs `hook` as the global executor's enqueue hook with an atomic compare-and-exchange
/// from "none". Returns 1, or 0 (nothing changed) when a hook is already installed. Call once,
/// from the main thread, before the first task starts.
int orientationd_install_enqueue_global_hook(const void *hook);

/// The same for the main executor's enqueue hook.
int orientationd_install_enqueue_main_executor_hook(const void *hook);

/// The same for the hook that answers "which executor is the main actor's"
/// (`swift_task_getMainExecutor_hook`): on Linux the main actor's jobs go straight to
/// libdispatch's main queue, past the enqueue hook, so the main executor itself is replaced.
int orientationd_install_get_main_executor_hook(const void *hook);

#endif
