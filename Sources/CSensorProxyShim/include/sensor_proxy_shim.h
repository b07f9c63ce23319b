// The net.hadess.SensorProxy objects on sd-bus, in C: the vtables (macros), the property getters,
// the PropertiesChanged messages (variadic calls) and the asynchronous calls to the bus that
// Swift cannot express. Swift's SensorProxyBus owns the connection on one thread and calls these
// only from it; nothing here is thread-safe. Who claims what is decided in Swift
// (SensorProxyClaims); this file only hands the calls over and answers them when told.
#ifndef ORIENTATIOND_SENSOR_PROXY_SHIM_H
#define ORIENTATIOND_SENSOR_PROXY_SHIM_H

#include <stdint.h>

typedef struct od_proxy od_proxy;

/// The sensors, as Swift's ProxySensor raw values.
enum { OD_SENSOR_ACCELEROMETER = 0, OD_SENSOR_LIGHT = 1, OD_SENSOR_PROXIMITY = 2, OD_SENSOR_COMPASS = 3 };

/// Property bits (od_proxy_set_state's result, od_proxy_emit's mask).
enum {
    OD_PROP_HAS_ACCELEROMETER = 1 << 0, OD_PROP_ORIENTATION = 1 << 1, OD_PROP_TILT = 1 << 2,
    OD_PROP_HAS_LIGHT = 1 << 3, OD_PROP_LIGHT_LEVEL = 1 << 4, OD_PROP_LIGHT_UNIT = 1 << 5,
    OD_PROP_HAS_PROXIMITY = 1 << 6, OD_PROP_PROXIMITY_NEAR = 1 << 7,
    OD_PROP_HAS_COMPASS = 1 << 8, OD_PROP_COMPASS_HEADING = 1 << 9,
};

/// The published values.
typedef struct od_proxy_state {
    int has_accelerometer;
    const char *orientation;
    const char *tilt;
    int has_ambient_light;
    double light_level;
    const char *light_level_unit;
    int has_proximity;
    int proximity_near;
    int has_compass;
    double compass_heading;
} od_proxy_state;

/// What the connection reports, on the bus thread, from inside od_proxy_process.
typedef struct od_proxy_callbacks {
    void *context;
    /// A Claim<sensor> (`claim` 1) or Release<sensor> (0) call from the unique name `sender`.
    /// `call` is a reference the callee owns: answer it exactly once with od_proxy_reply (which
    /// drops the reference), or drop it unanswered with od_proxy_call_unref.
    void (*call)(void *context, int sensor, int claim, const char *sender, void *call);
    /// A unique name left the bus (NameOwnerChanged with an empty new owner).
    void (*name_lost)(void *context, const char *name);
    /// The answer to od_proxy_query_uid: the name's uid, or a negative errno; and its process id
    /// (0 when the bus did not say).
    void (*uid)(void *context, const char *name, int64_t uid, uint32_t pid);
    /// The answer to check number `check` of od_proxy_check_authorization: one of OD_POLKIT_*,
    /// with polkit's (or the bus's) error message for OD_POLKIT_FAILED and OD_POLKIT_ABSENT (NULL
    /// otherwise).
    void (*authorization)(void *context, uint64_t check, int verdict, const char *message);
    /// The unique name `sender` loaded property `property` (one OD_PROP_ bit) with GetAll (what a
    /// GLib proxy does when it is made): it was given the current value. A single Get is not
    /// reported (a client may read one by hand beside a proxy whose cache it leaves as it was).
    void (*read)(void *context, const char *sender, unsigned property);
} od_proxy_callbacks;

/// Verdicts of od_proxy_check_authorization.
enum {
    OD_POLKIT_AUTHORIZED = 1,
    OD_POLKIT_NOT_AUTHORIZED = 0,
    /// Nobody serves org.freedesktop.PolicyKit1 and the bus cannot start it (ServiceUnknown,
    /// NameHasNoOwner).
    OD_POLKIT_ABSENT = -1,
    /// Any other error (polkitd answered with an error, or did not answer in time).
    OD_POLKIT_FAILED = -2,
};

/// Connects to the system bus (DBUS_SYSTEM_BUS_ADDRESS, else the default), subscribes to
/// NameOwnerChanged once for every name (one match rule, whatever the number of claimers),
/// exports /net/hadess/SensorProxy and /net/hadess/SensorProxy/Compass, and takes the
/// well-known name. Returns 0, or a negative errno with `*failed_step` naming the call that failed.
int od_proxy_open(od_proxy **out, od_proxy_callbacks callbacks, const char **failed_step);

/// Closes the connection (the bus releases the name with it).
void od_proxy_free(od_proxy *proxy);

/// For poll(2): the connection's descriptor, the events to wait for, and the longest wait in
/// milliseconds (-1: no timeout).
int od_proxy_fd(od_proxy *proxy);
short od_proxy_events(od_proxy *proxy);
int od_proxy_timeout_ms(od_proxy *proxy);

/// Processes at most `limit` pending messages. Returns > 0 when more may be pending, 0 when
/// nothing is, or a negative errno when the connection is lost.
int od_proxy_process(od_proxy *proxy, int limit);

/// Sets the published state; returns the OD_PROP_ bits of the values that changed.
unsigned od_proxy_set_state(od_proxy *proxy, const od_proxy_state *state);

/// Sends PropertiesChanged with the current values of the properties in `mask` to `destination`
/// (a unique name), one signal per object; as the peer does, a `Has…` brings its sensor's values
/// and `LightLevel` its unit. Returns the OD_PROP_ bits sent (`mask` and what it brought), or a
/// negative errno.
int od_proxy_emit(od_proxy *proxy, unsigned mask, const char *destination);

/// Asks the bus, without waiting, for the uid and process id of `name`
/// (GetConnectionCredentials); the answer comes through the `uid` callback. Returns 0 or a
/// negative errno (then no answer comes).
int od_proxy_query_uid(od_proxy *proxy, const char *name);

/// Asks polkit, without waiting, whether the unique name `name` may take the action
/// net.hadess.SensorProxy.claim-sensor (CheckAuthorization, subject system-bus-name, no user
/// interaction); the answer comes through the `authorization` callback with `check`. sd-bus
/// does not time the call out: it stays pending until polkit (or the bus, when polkit leaves)
/// answers it, as the bus counts it against the connection's pending replies until then; the
/// caller times its callers out itself. Returns 0 or a negative errno (then no answer comes).
int od_proxy_check_authorization(od_proxy *proxy, const char *name, uint64_t check);

/// Answers a call handed over by the `call` callback: success when `error_name` is NULL, else
/// that D-Bus error with `error_message`. Drops the reference. Returns 0 or a negative errno.
int od_proxy_reply(void *call, const char *error_name, const char *error_message);

/// Drops a call's reference without answering it (its sender left the bus).
void od_proxy_call_unref(void *call);

/// Whether `uid` has an active session (systemd-logind); 0 when not, or when logind cannot say.
int od_uid_is_active(uint32_t uid);

/// Fixes glibc's mmap threshold at 128 KiB for the process (mallopt M_MMAP_THRESHOLD), which
/// turns off its dynamic raise: a buffer of a large message goes back to the system when freed.
void od_fix_mmap_threshold(void);

/// The logind session of process `pid` into `session` (NUL-terminated, at most `size` bytes) and
/// whether it is active into `*active`. Returns 0, or a negative errno when the process is in no
/// session or is gone (then `session` is empty and `*active` 0).
int od_pid_session(uint32_t pid, char *session, unsigned size, int *active);

#endif
