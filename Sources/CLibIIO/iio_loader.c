// The libiio functions orientationd calls, each forwarding to libiio.so.0 loaded with dlopen on
// the first call (pthread_once), so that the daemon does not map libiio and its dependencies
// (libxml2, ICU, libusb, avahi, libdbus: about 1.3 MB resident) until a sensor needs it. A
// polled accelerometer is read through sysfs and never does (IIOReadLoop+Polled.swift).
//
// Contract: the same behaviour as linking libiio, with one more failure: when libiio.so.0
// cannot be loaded (or lacks a function), a call returns its error value (NULL, -ENOSYS, 0 or
// false) with errno ENOSYS, and the caller reports it as it reports any libiio failure.
// Adding a libiio call to the Swift code needs a line here (the link fails otherwise).
#include "CLibIIO.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#define IIO_FUNCTIONS(X) \
    X(struct iio_context *, iio_create_local_context, (void)) \
    X(void, iio_context_destroy, (struct iio_context *ctx)) \
    X(int, iio_context_set_timeout, (struct iio_context *ctx, unsigned int timeout_ms)) \
    X(struct iio_device *, iio_context_find_device, (const struct iio_context *ctx, const char *name)) \
    X(unsigned int, iio_context_get_devices_count, (const struct iio_context *ctx)) \
    X(struct iio_device *, iio_context_get_device, (const struct iio_context *ctx, unsigned int index)) \
    X(struct iio_channel *, iio_device_find_channel, (const struct iio_device *dev, const char *name, bool output)) \
    X(const char *, iio_device_get_name, (const struct iio_device *dev)) \
    X(const char *, iio_device_get_id, (const struct iio_device *dev)) \
    X(int, iio_device_attr_read_double, (const struct iio_device *dev, const char *attr, double *val)) \
    X(ssize_t, iio_device_attr_write, (const struct iio_device *dev, const char *attr, const char *src)) \
    X(int, iio_device_attr_write_double, (const struct iio_device *dev, const char *attr, double val)) \
    X(int, iio_device_get_trigger, (const struct iio_device *dev, const struct iio_device **trigger)) \
    X(int, iio_device_set_trigger, (const struct iio_device *dev, const struct iio_device *trigger)) \
    X(bool, iio_device_is_trigger, (const struct iio_device *dev)) \
    X(struct iio_buffer *, iio_device_create_buffer, (const struct iio_device *dev, size_t samples_count, bool cyclic)) \
    X(void, iio_buffer_destroy, (struct iio_buffer *buf)) \
    X(ssize_t, iio_buffer_refill, (struct iio_buffer *buf)) \
    X(void, iio_buffer_cancel, (struct iio_buffer *buf)) \
    X(ptrdiff_t, iio_buffer_step, (const struct iio_buffer *buf)) \
    X(void *, iio_buffer_end, (const struct iio_buffer *buf)) \
    X(void *, iio_buffer_first, (const struct iio_buffer *buf, const struct iio_channel *chn)) \
    X(void, iio_channel_enable, (struct iio_channel *chn)) \
    X(int, iio_channel_attr_read_double, (const struct iio_channel *chn, const char *attr, double *val)) \
    X(const struct iio_data_format *, iio_channel_get_data_format, (const struct iio_channel *chn)) \
    X(void, iio_channel_convert, (const struct iio_channel *chn, void *dst, const void *src))

// Every function pointer, filled once by load().
static struct {
#define FIELD(type, name, params) type (*name) params;
    IIO_FUNCTIONS(FIELD)
#undef FIELD
} api;

static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libiio.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) return;
#define RESOLVE(type, name, params) api.name = (type (*) params) dlsym(library, #name);
    IIO_FUNCTIONS(RESOLVE)
#undef RESOLVE
}

// A call that finds no function returns `failure` with errno ENOSYS.
#define FORWARD(type, name, failure, params, args) \
    type name params { \
        pthread_once(&loaded, load); \
        if (!api.name) { errno = ENOSYS; return failure; } \
        return api.name args; \
    }
#define FORWARD_VOID(name, params, args) \
    void name params { \
        pthread_once(&loaded, load); \
        if (api.name) api.name args; \
    }

FORWARD(struct iio_context *, iio_create_local_context, NULL, (void), ())
FORWARD_VOID(iio_context_destroy, (struct iio_context *ctx), (ctx))
FORWARD(int, iio_context_set_timeout, -ENOSYS, (struct iio_context *ctx, unsigned int timeout_ms), (ctx, timeout_ms))
FORWARD(struct iio_device *, iio_context_find_device, NULL, (const struct iio_context *ctx, const char *name), (ctx, name))
FORWARD(unsigned int, iio_context_get_devices_count, 0, (const struct iio_context *ctx), (ctx))
FORWARD(struct iio_device *, iio_context_get_device, NULL, (const struct iio_context *ctx, unsigned int index), (ctx, index))
FORWARD(struct iio_channel *, iio_device_find_channel, NULL, (const struct iio_device *dev, const char *name, bool output), (dev, name, output))
FORWARD(const char *, iio_device_get_name, NULL, (const struct iio_device *dev), (dev))
FORWARD(const char *, iio_device_get_id, NULL, (const struct iio_device *dev), (dev))
FORWARD(int, iio_device_attr_read_double, -ENOSYS, (const struct iio_device *dev, const char *attr, double *val), (dev, attr, val))
FORWARD(ssize_t, iio_device_attr_write, -ENOSYS, (const struct iio_device *dev, const char *attr, const char *src), (dev, attr, src))
FORWARD(int, iio_device_attr_write_double, -ENOSYS, (const struct iio_device *dev, const char *attr, double val), (dev, attr, val))
FORWARD(int, iio_device_get_trigger, -ENOSYS, (const struct iio_device *dev, const struct iio_device **trigger), (dev, trigger))
FORWARD(int, iio_device_set_trigger, -ENOSYS, (const struct iio_device *dev, const struct iio_device *trigger), (dev, trigger))
FORWARD(bool, iio_device_is_trigger, false, (const struct iio_device *dev), (dev))
FORWARD(struct iio_buffer *, iio_device_create_buffer, NULL, (const struct iio_device *dev, size_t samples_count, bool cyclic), (dev, samples_count, cyclic))
FORWARD_VOID(iio_buffer_destroy, (struct iio_buffer *buf), (buf))
FORWARD(ssize_t, iio_buffer_refill, -ENOSYS, (struct iio_buffer *buf), (buf))
FORWARD_VOID(iio_buffer_cancel, (struct iio_buffer *buf), (buf))
FORWARD(ptrdiff_t, iio_buffer_step, 0, (const struct iio_buffer *buf), (buf))
FORWARD(void *, iio_buffer_end, NULL, (const struct iio_buffer *buf), (buf))
FORWARD(void *, iio_buffer_first, NULL, (const struct iio_buffer *buf, const struct iio_channel *chn), (buf, chn))
FORWARD_VOID(iio_channel_enable, (struct iio_channel *chn), (chn))
FORWARD(int, iio_channel_attr_read_double, -ENOSYS, (const struct iio_channel *chn, const char *attr, double *val), (chn, attr, val))
FORWARD(const struct iio_data_format *, iio_channel_get_data_format, NULL, (const struct iio_channel *chn), (chn))
FORWARD_VOID(iio_channel_convert, (const struct iio_channel *chn, void *dst, const void *src), (chn, dst, src))
