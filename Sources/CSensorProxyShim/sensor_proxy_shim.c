// See sensor_proxy_shim.h. Members, signatures and behaviour follow iio-sensor-proxy's
// net.hadess.SensorProxy interface (3.0, plus AccelerometerTilt from 3.6).
#include "sensor_proxy_shim.h"

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>

#define PROXY_NAME "net.hadess.SensorProxy"
#define PROXY_PATH "/net/hadess/SensorProxy"
#define PROXY_INTERFACE "net.hadess.SensorProxy"
#define COMPASS_PATH "/net/hadess/SensorProxy/Compass"
#define COMPASS_INTERFACE "net.hadess.SensorProxy.Compass"

#define COMPASS_PROPS (OD_PROP_HAS_COMPASS | OD_PROP_COMPASS_HEADING)

struct od_proxy {
    sd_bus *bus;
    sd_bus_slot *proxy_slot;
    sd_bus_slot *compass_slot;
    sd_bus_slot *name_owner_slot;
    od_proxy_callbacks callbacks;
    int has_accelerometer;
    char orientation[32];
    char tilt[32];
    int has_ambient_light;
    double light_level;
    char light_level_unit[16];
    int has_proximity;
    int proximity_near;
    int has_compass;
    double compass_heading;
};

// Every claim and release method, and the sensor and direction it means: the one table from a
// member to a sensor (the vtables below register the same names the other way). A member not in
// it is an error, never some sensor by default (issue 29).
static const struct { const char *member; int sensor; int claim; } claim_methods[] = {
    {"ClaimAccelerometer", OD_SENSOR_ACCELEROMETER, 1}, {"ReleaseAccelerometer", OD_SENSOR_ACCELEROMETER, 0},
    {"ClaimLight", OD_SENSOR_LIGHT, 1},                 {"ReleaseLight", OD_SENSOR_LIGHT, 0},
    {"ClaimProximity", OD_SENSOR_PROXIMITY, 1},         {"ReleaseProximity", OD_SENSOR_PROXIMITY, 0},
    {"ClaimCompass", OD_SENSOR_COMPASS, 1},             {"ReleaseCompass", OD_SENSOR_COMPASS, 0},
};

// Claim* and Release* of every sensor: the call is handed to Swift, which answers it now or later
// (a deferred reply: the message stays referenced until then).
static int claim_or_release(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    od_proxy *proxy = userdata;
    const char *member = sd_bus_message_get_member(m);
    const char *sender = sd_bus_message_get_sender(m);
    if (!member || !sender) return sd_bus_reply_method_return(m, NULL);  // not on a bus: nothing to track
    for (size_t i = 0; i < sizeof claim_methods / sizeof claim_methods[0]; i++) {
        if (strcmp(member, claim_methods[i].member) != 0) continue;
        proxy->callbacks.call(proxy->callbacks.context, claim_methods[i].sensor, claim_methods[i].claim, sender, sd_bus_message_ref(m));
        return 1;
    }
    return sd_bus_error_setf(error, SD_BUS_ERROR_UNKNOWN_METHOD, "Unknown method %s", member);
}

// One match for every NameOwnerChanged that ends a name (arg2 empty): a claimer that leaves
// without releasing is released. (sd_bus_track costs one match rule per tracked name, and the
// bus allows a connection 512: issue 18's 512 claimers had the bus drop the whole connection.)
static int name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    od_proxy *proxy = userdata;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    if (name && name[0] == ':' && new_owner && new_owner[0] == '\0') proxy->callbacks.name_lost(proxy->callbacks.context, name);
    return 0;
}

// A getter called for GetAll also tells Swift who loaded the property (sd-bus calls the getter of
// each property while the call is the bus's current message), so that a later claim can send that
// client what changed since (issue 42). A single Get is not told: see the `read` callback.
#define GETTER(fn, type, expr, bit) \
    static int fn(sd_bus *bus, const char *path, const char *interface, const char *property, \
                  sd_bus_message *reply, void *userdata, sd_bus_error *error) { \
        (void)path; (void)interface; (void)property; (void)error; \
        od_proxy *proxy = userdata; \
        int r = sd_bus_message_append(reply, type, expr); \
        if (r >= 0) tell_reader(proxy, bus, bit); \
        return r; \
    }
static void tell_reader(od_proxy *proxy, sd_bus *bus, unsigned bit) {
    sd_bus_message *call = sd_bus_get_current_message(bus);
    if (!call || !proxy->callbacks.read || !sd_bus_message_is_method_call(call, "org.freedesktop.DBus.Properties", "GetAll")) return;
    const char *sender = sd_bus_message_get_sender(call);
    if (sender && sender[0] == ':') proxy->callbacks.read(proxy->callbacks.context, sender, bit);
}
GETTER(get_has_accelerometer, "b", proxy->has_accelerometer, OD_PROP_HAS_ACCELEROMETER)
GETTER(get_orientation, "s", proxy->orientation, OD_PROP_ORIENTATION)
GETTER(get_tilt, "s", proxy->tilt, OD_PROP_TILT)
GETTER(get_has_ambient_light, "b", proxy->has_ambient_light, OD_PROP_HAS_LIGHT)
GETTER(get_light_level, "d", proxy->light_level, OD_PROP_LIGHT_LEVEL)
GETTER(get_light_level_unit, "s", proxy->light_level_unit, OD_PROP_LIGHT_UNIT)
GETTER(get_has_proximity, "b", proxy->has_proximity, OD_PROP_HAS_PROXIMITY)
GETTER(get_proximity_near, "b", proxy->proximity_near, OD_PROP_PROXIMITY_NEAR)
GETTER(get_has_compass, "b", proxy->has_compass, OD_PROP_HAS_COMPASS)
GETTER(get_compass_heading, "d", proxy->compass_heading, OD_PROP_COMPASS_HEADING)

static const sd_bus_vtable proxy_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("HasAccelerometer", "b", get_has_accelerometer, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AccelerometerOrientation", "s", get_orientation, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AccelerometerTilt", "s", get_tilt, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HasAmbientLight", "b", get_has_ambient_light, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LightLevelUnit", "s", get_light_level_unit, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LightLevel", "d", get_light_level, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HasProximity", "b", get_has_proximity, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("ProximityNear", "b", get_proximity_near, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD("ClaimAccelerometer", "", "", claim_or_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseAccelerometer", "", "", claim_or_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimLight", "", "", claim_or_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseLight", "", "", claim_or_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimProximity", "", "", claim_or_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseProximity", "", "", claim_or_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

static const sd_bus_vtable compass_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("HasCompass", "b", get_has_compass, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CompassHeading", "d", get_compass_heading, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD("ClaimCompass", "", "", claim_or_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseCompass", "", "", claim_or_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

int od_proxy_open(od_proxy **out, od_proxy_callbacks callbacks, const char **failed_step) {
    *out = NULL;
    od_proxy *proxy = calloc(1, sizeof(od_proxy));
    if (!proxy) return -ENOMEM;
    proxy->callbacks = callbacks;
    strcpy(proxy->orientation, "undefined");
    strcpy(proxy->tilt, "undefined");
    strcpy(proxy->light_level_unit, "lux");
    int r;
    if ((r = sd_bus_open_system(&proxy->bus)) < 0) { *failed_step = "connecting to the system bus"; goto fail; }
    // Synchronous, once, before the name is taken: no claim can come before the match is in place.
    if ((r = sd_bus_match_signal(proxy->bus, &proxy->name_owner_slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                 "org.freedesktop.DBus", "NameOwnerChanged", name_owner_changed, proxy)) < 0) {
        *failed_step = "watching NameOwnerChanged"; goto fail;
    }
    if ((r = sd_bus_add_object_vtable(proxy->bus, &proxy->proxy_slot, PROXY_PATH, PROXY_INTERFACE, proxy_vtable, proxy)) < 0) {
        *failed_step = "exporting " PROXY_PATH; goto fail;
    }
    if ((r = sd_bus_add_object_vtable(proxy->bus, &proxy->compass_slot, COMPASS_PATH, COMPASS_INTERFACE, compass_vtable, proxy)) < 0) {
        *failed_step = "exporting " COMPASS_PATH; goto fail;
    }
    if ((r = sd_bus_request_name(proxy->bus, PROXY_NAME, 0)) < 0) { *failed_step = "taking the name " PROXY_NAME; goto fail; }
    *out = proxy;
    return 0;
fail:
    od_proxy_free(proxy);
    return r;
}

void od_proxy_free(od_proxy *proxy) {
    if (!proxy) return;
    proxy->name_owner_slot = sd_bus_slot_unref(proxy->name_owner_slot);
    proxy->proxy_slot = sd_bus_slot_unref(proxy->proxy_slot);
    proxy->compass_slot = sd_bus_slot_unref(proxy->compass_slot);
    if (proxy->bus) {
        // No sd_bus_release_name: it is a method call that waits for the bus's reply (up to
        // sd-bus's 25 s timeout on a stuck bus), and closing the connection releases every name
        // it owns anyway. flush_close_unref sends what is queued (the last PropertiesChanged)
        // without waiting for any reply.
        proxy->bus = sd_bus_flush_close_unref(proxy->bus);
    }
    free(proxy);
}

int od_proxy_fd(od_proxy *proxy) { return sd_bus_get_fd(proxy->bus); }

short od_proxy_events(od_proxy *proxy) {
    int events = sd_bus_get_events(proxy->bus);
    return events < 0 ? POLLIN : (short)events;
}

int od_proxy_timeout_ms(od_proxy *proxy) {
    uint64_t deadline = 0;
    if (sd_bus_get_timeout(proxy->bus, &deadline) < 0 || deadline == UINT64_MAX) return -1;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t current = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
    if (deadline <= current) return 0;
    uint64_t ms = (deadline - current + 999) / 1000;
    return ms > 60000 ? 60000 : (int)ms;
}

int od_proxy_process(od_proxy *proxy, int limit) {
    int r = 0;
    for (int i = 0; i < limit; i++) {
        r = sd_bus_process(proxy->bus, NULL);
        if (r <= 0) return r;
    }
    return r;
}

static unsigned set_string(char *field, size_t size, const char *value, unsigned bit) {
    if (!value || strncmp(field, value, size) == 0) return 0;
    snprintf(field, size, "%s", value);
    return bit;
}

unsigned od_proxy_set_state(od_proxy *proxy, const od_proxy_state *s) {
    unsigned changed = 0;
#define SET(field, value, bit) if (proxy->field != (value)) { proxy->field = (value); changed |= (bit); }
    SET(has_accelerometer, !!s->has_accelerometer, OD_PROP_HAS_ACCELEROMETER)
    changed |= set_string(proxy->orientation, sizeof(proxy->orientation), s->orientation, OD_PROP_ORIENTATION);
    changed |= set_string(proxy->tilt, sizeof(proxy->tilt), s->tilt, OD_PROP_TILT);
    SET(has_ambient_light, !!s->has_ambient_light, OD_PROP_HAS_LIGHT)
    SET(light_level, s->light_level, OD_PROP_LIGHT_LEVEL)
    changed |= set_string(proxy->light_level_unit, sizeof(proxy->light_level_unit), s->light_level_unit, OD_PROP_LIGHT_UNIT);
    SET(has_proximity, !!s->has_proximity, OD_PROP_HAS_PROXIMITY)
    SET(proximity_near, !!s->proximity_near, OD_PROP_PROXIMITY_NEAR)
    SET(has_compass, !!s->has_compass, OD_PROP_HAS_COMPASS)
    SET(compass_heading, s->compass_heading, OD_PROP_COMPASS_HEADING)
#undef SET
    return changed;
}

static int append_property(od_proxy *p, sd_bus_message *m, unsigned bit) {
    const char *name, *type;
    switch (bit) {
    case OD_PROP_HAS_ACCELEROMETER: name = "HasAccelerometer"; type = "b"; break;
    case OD_PROP_ORIENTATION: name = "AccelerometerOrientation"; type = "s"; break;
    case OD_PROP_TILT: name = "AccelerometerTilt"; type = "s"; break;
    case OD_PROP_HAS_LIGHT: name = "HasAmbientLight"; type = "b"; break;
    case OD_PROP_LIGHT_LEVEL: name = "LightLevel"; type = "d"; break;
    case OD_PROP_LIGHT_UNIT: name = "LightLevelUnit"; type = "s"; break;
    case OD_PROP_HAS_PROXIMITY: name = "HasProximity"; type = "b"; break;
    case OD_PROP_PROXIMITY_NEAR: name = "ProximityNear"; type = "b"; break;
    case OD_PROP_HAS_COMPASS: name = "HasCompass"; type = "b"; break;
    default: name = "CompassHeading"; type = "d"; break;
    }
    int r;
    if ((r = sd_bus_message_open_container(m, 'e', "sv")) < 0) return r;
    if ((r = sd_bus_message_append(m, "s", name)) < 0) return r;
    if ((r = sd_bus_message_open_container(m, 'v', type)) < 0) return r;
    switch (bit) {
    case OD_PROP_HAS_ACCELEROMETER: r = sd_bus_message_append(m, "b", p->has_accelerometer); break;
    case OD_PROP_ORIENTATION: r = sd_bus_message_append(m, "s", p->orientation); break;
    case OD_PROP_TILT: r = sd_bus_message_append(m, "s", p->tilt); break;
    case OD_PROP_HAS_LIGHT: r = sd_bus_message_append(m, "b", p->has_ambient_light); break;
    case OD_PROP_LIGHT_LEVEL: r = sd_bus_message_append(m, "d", p->light_level); break;
    case OD_PROP_LIGHT_UNIT: r = sd_bus_message_append(m, "s", p->light_level_unit); break;
    case OD_PROP_HAS_PROXIMITY: r = sd_bus_message_append(m, "b", p->has_proximity); break;
    case OD_PROP_PROXIMITY_NEAR: r = sd_bus_message_append(m, "b", p->proximity_near); break;
    case OD_PROP_HAS_COMPASS: r = sd_bus_message_append(m, "b", p->has_compass); break;
    default: r = sd_bus_message_append(m, "d", p->compass_heading); break;
    }
    if (r < 0) return r;
    if ((r = sd_bus_message_close_container(m)) < 0) return r;
    return sd_bus_message_close_container(m);
}

static int emit_object(od_proxy *p, const char *path, const char *interface, unsigned mask, const char *destination) {
    sd_bus_message *m = NULL;
    int r = sd_bus_message_new_signal(p->bus, &m, path, "org.freedesktop.DBus.Properties", "PropertiesChanged");
    if (r < 0) return r;
    if (destination && (r = sd_bus_message_set_destination(m, destination)) < 0) goto done;
    if ((r = sd_bus_message_append(m, "s", interface)) < 0) goto done;
    if ((r = sd_bus_message_open_container(m, 'a', "{sv}")) < 0) goto done;
    for (unsigned bit = 1; bit <= OD_PROP_COMPASS_HEADING; bit <<= 1) {
        if ((mask & bit) && (r = append_property(p, m, bit)) < 0) goto done;
    }
    if ((r = sd_bus_message_close_container(m)) < 0) goto done;
    if ((r = sd_bus_message_append(m, "as", 0)) < 0) goto done;
    r = sd_bus_send(p->bus, m, NULL);
done:
    sd_bus_message_unref(m);
    return r < 0 ? r : 0;
}

int od_proxy_emit(od_proxy *proxy, unsigned mask, const char *destination) {
    // As the peer does: a sensor that appears brings its values along, and the light level its unit.
    if (mask & OD_PROP_HAS_ACCELEROMETER) mask |= OD_PROP_ORIENTATION | OD_PROP_TILT;
    if (mask & OD_PROP_HAS_LIGHT) mask |= OD_PROP_LIGHT_LEVEL;
    if (mask & OD_PROP_LIGHT_LEVEL) mask |= OD_PROP_LIGHT_UNIT;
    if (mask & OD_PROP_HAS_PROXIMITY) mask |= OD_PROP_PROXIMITY_NEAR;
    if (mask & OD_PROP_HAS_COMPASS) mask |= OD_PROP_COMPASS_HEADING;
    int r = 0;
    if (mask & ~COMPASS_PROPS) r = emit_object(proxy, PROXY_PATH, PROXY_INTERFACE, mask & ~COMPASS_PROPS, destination);
    if (r >= 0 && (mask & COMPASS_PROPS)) r = emit_object(proxy, COMPASS_PATH, COMPASS_INTERFACE, mask & COMPASS_PROPS, destination);
    return r < 0 ? r : (int)mask;
}

// The name an asynchronous question is about, freed with the call's slot.
struct name_query {
    od_proxy *proxy;
    char name[];
};

static struct name_query *new_query(od_proxy *proxy, const char *name) {
    size_t length = strlen(name);
    struct name_query *query = malloc(sizeof(struct name_query) + length + 1);
    if (!query) return NULL;
    query->proxy = proxy;
    memcpy(query->name, name, length + 1);
    return query;
}

// The bus owns the slot from here; the query is freed with it (after the answer, or when the
// connection is closed unanswered).
static void hand_over(sd_bus_slot *slot) {
    sd_bus_slot_set_destroy_callback(slot, free);
    sd_bus_slot_set_floating(slot, 1);
    sd_bus_slot_unref(slot);
}

static int uid_reply(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    struct name_query *query = userdata;
    int64_t result = -EIO;
    uint32_t pid = 0;
    if (sd_bus_message_is_method_error(m, NULL)) {
        result = -sd_bus_message_get_errno(m);
        if (result == 0) result = -EIO;
    } else {
        // a{sv}: UnixUserID (u), ProcessID (u), and others (skipped).
        int r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r > 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
            const char *key = NULL;
            uint32_t value = 0;
            if ((r = sd_bus_message_read(m, "s", &key)) < 0) break;
            if (strcmp(key, "UnixUserID") == 0 || strcmp(key, "ProcessID") == 0) {
                if ((r = sd_bus_message_read(m, "v", "u", &value)) < 0) break;
                if (key[0] == 'U') result = value; else pid = value;
            } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
                break;
            }
            if ((r = sd_bus_message_exit_container(m)) < 0) break;
        }
        if (r < 0) result = r;
    }
    query->proxy->callbacks.uid(query->proxy->callbacks.context, query->name, result, pid);
    return 0;
}

int od_proxy_query_uid(od_proxy *proxy, const char *name) {
    struct name_query *query = new_query(proxy, name);
    if (!query) return -ENOMEM;
    sd_bus_slot *slot = NULL;
    int r = sd_bus_call_method_async(proxy->bus, &slot, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                     "GetConnectionCredentials", uid_reply, query, "s", name);
    if (r < 0) {
        free(query);
        return r;
    }
    hand_over(slot);
    return 0;
}

// The check number an asynchronous polkit call answers, freed with the call's slot.
struct check_query {
    od_proxy *proxy;
    uint64_t check;
};

static int authorization_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    struct check_query *query = userdata;
    od_proxy_callbacks *callbacks = &query->proxy->callbacks;
    const sd_bus_error *error = sd_bus_message_get_error(m);
    if (error) {
        // Only "nobody serves the name and the bus cannot start it" means polkit is not
        // installed. A bus that refuses the call by policy (AccessDenied) knows polkit (it runs,
        // or a service file makes it activatable): that is a failure, never an authorization.
        int absent = sd_bus_error_has_name(error, SD_BUS_ERROR_SERVICE_UNKNOWN) || sd_bus_error_has_name(error, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
        callbacks->authorization(callbacks->context, query->check, absent ? OD_POLKIT_ABSENT : OD_POLKIT_FAILED,
                                 error->message ? error->message : error->name);
        return 0;
    }
    int authorized = 0, challenge = 0;
    int r = sd_bus_message_enter_container(m, 'r', "bba{ss}");
    if (r >= 0) r = sd_bus_message_read(m, "bb", &authorized, &challenge);
    if (r < 0) {
        callbacks->authorization(callbacks->context, query->check, OD_POLKIT_FAILED, "polkit's answer could not be read");
        return 0;
    }
    callbacks->authorization(callbacks->context, query->check, authorized ? OD_POLKIT_AUTHORIZED : OD_POLKIT_NOT_AUTHORIZED, NULL);
    return 0;
}

int od_proxy_check_authorization(od_proxy *proxy, const char *name, uint64_t check) {
    struct check_query *query = malloc(sizeof(struct check_query));
    if (!query) return -ENOMEM;
    query->proxy = proxy;
    query->check = check;
    sd_bus_message *m = NULL;
    sd_bus_slot *slot = NULL;
    int r = sd_bus_message_new_method_call(proxy->bus, &m, "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority", "CheckAuthorization");
    // CheckAuthorization(subject (sa{sv}), action_id s, details a{ss}, flags u, cancellation_id s):
    // the subject is the caller's unique name, flags 0 (no interaction: a claim never prompts).
    if (r >= 0) r = sd_bus_message_append(m, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s", name,
                                          "net.hadess.SensorProxy.claim-sensor", 0, 0u, "");
    // No sd-bus timeout (UINT64_MAX): with its default 25 s, sd-bus would forget a check that the
    // bus still counts against the connection's 128 pending replies (until polkit answers or
    // leaves), and the caller's bounds would undercount what the bus counts (issue 26).
    if (r >= 0) r = sd_bus_call_async(proxy->bus, &slot, m, authorization_reply, query, UINT64_MAX);
    sd_bus_message_unref(m);
    if (r < 0) {
        free(query);
        return r;
    }
    hand_over(slot);
    return 0;
}

int od_proxy_reply(void *call, const char *error_name, const char *error_message) {
    sd_bus_message *m = call;
    int r = error_name ? sd_bus_reply_method_errorf(m, error_name, "%s", error_message ? error_message : "")
                       : sd_bus_reply_method_return(m, NULL);
    sd_bus_message_unref(m);
    return r;
}

void od_proxy_call_unref(void *call) { sd_bus_message_unref(call); }

int od_uid_is_active(uint32_t uid) {
    char *state = NULL;
    if (sd_uid_get_state(uid, &state) < 0 || !state) return 0;
    int active = strcmp(state, "active") == 0;
    free(state);
    return active;
}

int od_pid_session(uint32_t pid, char *session, unsigned size, int *active) {
    *active = 0;
    if (size > 0) session[0] = '\0';
    char *id = NULL;
    int r = pid == 0 ? -ESRCH : sd_pid_get_session((pid_t)pid, &id);
    if (r < 0 || !id) return r < 0 ? r : -ENODATA;
    snprintf(session, size, "%s", id);
    *active = sd_session_is_active(id) > 0;
    free(id);
    return 0;
}

void od_fix_mmap_threshold(void) { (void)mallopt(M_MMAP_THRESHOLD, 128 * 1024); }
