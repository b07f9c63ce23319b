// See sensor_proxy_shim.h. Members, signatures and behaviour follow iio-sensor-proxy's
// net.hadess.SensorProxy interface (3.0, plus AccelerometerTilt from 3.6); light, proximity and
// compass exist with Has* false, and their claims succeed as no-ops (GNOME's power daemon
// claims the light sensor unconditionally).
#include "sensor_proxy_shim.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-bus.h>

#define PROXY_NAME "net.hadess.SensorProxy"
#define PROXY_PATH "/net/hadess/SensorProxy"
#define PROXY_INTERFACE "net.hadess.SensorProxy"
#define COMPASS_PATH "/net/hadess/SensorProxy/Compass"
#define COMPASS_INTERFACE "net.hadess.SensorProxy.Compass"

struct od_proxy {
    sd_bus *bus;
    sd_bus_slot *proxy_slot;
    sd_bus_slot *compass_slot;
    sd_bus_track *claimers;
    od_claim_callback callback;
    void *context;
    int claimed;
    int has_accelerometer;
    char orientation[32];
    char tilt[32];
};

static void update_claim(od_proxy *proxy) {
    int now = proxy->claimers && sd_bus_track_count(proxy->claimers) > 0;
    if (now != proxy->claimed) {
        proxy->claimed = now;
        proxy->callback(proxy->context, now);
    }
}

// Called by sd-bus once the last tracked name is gone (released, or left the bus). The track is
// freed here and made anew by the next claim: sd-bus dispatches an empty track again on every
// sd_bus_process until its owner frees it (a track kept alive while empty spun the bus thread
// at 100 % CPU, and one made before the connection ran closed it during Hello).
static int claimers_emptied(sd_bus_track *track, void *userdata) {
    od_proxy *proxy = userdata;
    if (proxy->claimers == track) proxy->claimers = sd_bus_track_unref(track);
    update_claim(proxy);
    return 0;
}

static int claim_accelerometer(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    od_proxy *proxy = userdata;
    const char *sender = sd_bus_message_get_sender(m);
    if (sender) {
        int r;
        if (!proxy->claimers && (r = sd_bus_track_new(proxy->bus, &proxy->claimers, claimers_emptied, proxy)) < 0) return r;
        if ((r = sd_bus_track_add_name(proxy->claimers, sender)) < 0) return r;
    }
    update_claim(proxy);
    return sd_bus_reply_method_return(m, NULL);
}

static int release_accelerometer(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    od_proxy *proxy = userdata;
    const char *sender = sd_bus_message_get_sender(m);
    // Emptying the track queues claimers_emptied, which frees it and reports the release.
    if (sender && proxy->claimers) (void)sd_bus_track_remove_name(proxy->claimers, sender);
    update_claim(proxy);
    return sd_bus_reply_method_return(m, NULL);
}

static int no_op(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    return sd_bus_reply_method_return(m, NULL);
}

static int get_has_accelerometer(sd_bus *bus, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)error;
    od_proxy *proxy = userdata;
    return sd_bus_message_append(reply, "b", proxy->has_accelerometer);
}

static int get_orientation(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)error;
    od_proxy *proxy = userdata;
    return sd_bus_message_append(reply, "s", proxy->orientation);
}

static int get_tilt(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)error;
    od_proxy *proxy = userdata;
    return sd_bus_message_append(reply, "s", proxy->tilt);
}

static int get_false(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "b", 0);
}

static int get_zero(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "d", 0.0);
}

static int get_light_unit(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "s", "lux");
}

static const sd_bus_vtable proxy_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("HasAccelerometer", "b", get_has_accelerometer, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AccelerometerOrientation", "s", get_orientation, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AccelerometerTilt", "s", get_tilt, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HasAmbientLight", "b", get_false, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LightLevelUnit", "s", get_light_unit, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LightLevel", "d", get_zero, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HasProximity", "b", get_false, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("ProximityNear", "b", get_false, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD("ClaimAccelerometer", "", "", claim_accelerometer, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseAccelerometer", "", "", release_accelerometer, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimLight", "", "", no_op, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseLight", "", "", no_op, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimProximity", "", "", no_op, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseProximity", "", "", no_op, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

static const sd_bus_vtable compass_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("HasCompass", "b", get_false, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CompassHeading", "d", get_zero, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD("ClaimCompass", "", "", no_op, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseCompass", "", "", no_op, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

int od_proxy_open(od_proxy **out, od_claim_callback callback, void *context, const char **failed_step) {
    *out = NULL;
    od_proxy *proxy = calloc(1, sizeof(od_proxy));
    if (!proxy) return -ENOMEM;
    proxy->callback = callback;
    proxy->context = context;
    strcpy(proxy->orientation, "undefined");
    strcpy(proxy->tilt, "undefined");
    int r;
    if ((r = sd_bus_open_system(&proxy->bus)) < 0) { *failed_step = "connecting to the system bus"; goto fail; }
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
    proxy->claimers = sd_bus_track_unref(proxy->claimers);
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

int od_proxy_process(od_proxy *proxy) {
    int r;
    do { r = sd_bus_process(proxy->bus, NULL); } while (r > 0);
    return r;
}

int od_proxy_set_state(od_proxy *proxy, int has_accelerometer, const char *orientation, const char *tilt) {
    const char *changed[4] = { NULL, NULL, NULL, NULL };
    int count = 0;
    if (!!has_accelerometer != proxy->has_accelerometer) {
        proxy->has_accelerometer = !!has_accelerometer;
        changed[count++] = "HasAccelerometer";
    }
    if (strncmp(orientation, proxy->orientation, sizeof(proxy->orientation)) != 0) {
        strncpy(proxy->orientation, orientation, sizeof(proxy->orientation) - 1);
        changed[count++] = "AccelerometerOrientation";
    }
    if (strncmp(tilt, proxy->tilt, sizeof(proxy->tilt)) != 0) {
        strncpy(proxy->tilt, tilt, sizeof(proxy->tilt) - 1);
        changed[count++] = "AccelerometerTilt";
    }
    if (count == 0) return 0;
    // One PropertiesChanged signal carrying every changed property, as GDBus emits them.
    return sd_bus_emit_properties_changed_strv(proxy->bus, PROXY_PATH, PROXY_INTERFACE, (char **)changed);
}

int od_proxy_claimers(od_proxy *proxy) {
    return proxy->claimers ? (int)sd_bus_track_count(proxy->claimers) : 0;
}
