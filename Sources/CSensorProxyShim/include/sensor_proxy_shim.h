// The net.hadess.SensorProxy objects on sd-bus, in C: the vtables (macros) and the property and
// signal calls (variadic) that Swift cannot express. Swift's SensorProxyBus owns the connection
// on one thread and calls these only from it; nothing here is thread-safe.
#ifndef ORIENTATIOND_SENSOR_PROXY_SHIM_H
#define ORIENTATIOND_SENSOR_PROXY_SHIM_H

#include <stdint.h>

typedef struct od_proxy od_proxy;

/// Called (on the bus thread) when the set of accelerometer claimers goes from empty to
/// non-empty (`claimed` 1) or back (0): claims by unique name, released by ReleaseAccelerometer
/// or when the claimer leaves the bus (sd_bus_track).
typedef void (*od_claim_callback)(void *context, int claimed);

/// Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS, else the default), exports
/// /net/hadess/SensorProxy and /net/hadess/SensorProxy/Compass, and takes the well-known name.
/// Returns 0, or a negative errno with `*failed_step` naming the call that failed.
int od_proxy_open(od_proxy **out, od_claim_callback callback, void *context, const char **failed_step);

/// Releases the name and closes the connection.
void od_proxy_free(od_proxy *proxy);

/// For poll(2): the connection's descriptor, the events to wait for, and the longest wait in
/// milliseconds (-1: no timeout).
int od_proxy_fd(od_proxy *proxy);
short od_proxy_events(od_proxy *proxy);
int od_proxy_timeout_ms(od_proxy *proxy);

/// Processes everything pending. Returns 0, or a negative errno when the connection is lost.
int od_proxy_process(od_proxy *proxy);

/// Sets the published state; emits PropertiesChanged for each property whose value changed.
/// Returns 0 or a negative errno.
int od_proxy_set_state(od_proxy *proxy, int has_accelerometer, const char *orientation, const char *tilt);

/// Number of unique bus names holding an accelerometer claim.
int od_proxy_claimers(od_proxy *proxy);

#endif
