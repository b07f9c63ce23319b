#include "CGlobalExecutorHook.h"

// Declared by the Swift runtime (include/swift/Runtime/ConcurrencyHooks.def) as
// `SWIFT_CC(swift) void (*swift_task_enqueueGlobal_hook)(Job *, swift_task_enqueueGlobal_original)`
// and the same shape for the main executor. Declared here as plain data pointers: C only
// stores them (see the header), so their function types do not matter to it.
extern const void *swift_task_enqueueGlobal_hook;
extern const void *swift_task_enqueueMainExecutor_hook;
extern const void *swift_task_getMainExecutor_hook;

static int install(const void **slot, const void *hook) {
    const void *expected = 0;
    return __atomic_compare_exchange_n(slot, &expected, hook, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) ? 1 : 0;
}

int orientationd_install_enqueue_global_hook(const void *hook) {
    return install(&swift_task_enqueueGlobal_hook, hook);
}

int orientationd_install_enqueue_main_executor_hook(const void *hook) {
    return install(&swift_task_enqueueMainExecutor_hook, hook);
}

int orientationd_install_get_main_executor_hook(const void *hook) {
    return install(&swift_task_getMainExecutor_hook, hook);
}
