#include "CGlobalExecutorHook.h"

// Declared by the Swift runtime (include/swift/Runtime/ConcurrencyHooks.def) as
// `SWIFT_CC(swift) void (*swift_task_enqueueGlobal_hook)(Job *, swift_task_enqueueGlobal_original)`.
// With two pointer arguments and no context or error register, the Swift and C calling
// conventions pass them alike on x86-64 and arm64 (the assumption NIO's installer makes too).
extern orientationd_enqueue_global_hook swift_task_enqueueGlobal_hook;

int orientationd_install_enqueue_global_hook(orientationd_enqueue_global_hook hook) {
    if (swift_task_enqueueGlobal_hook != 0) return 0;
    swift_task_enqueueGlobal_hook = hook;
    return 1;
}
