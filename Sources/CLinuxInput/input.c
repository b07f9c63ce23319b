#include "CLinuxInput.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/iio/events.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int od_iio_event_fd(int device_fd) {
    int event_fd = -1;
    if (ioctl(device_fd, IIO_GET_EVENT_FD_IOCTL, &event_fd) < 0) return -1;
    return event_fd;
}

unsigned long od_iio_event_size(void) {
    return sizeof(struct iio_event_data);
}

int od_input_absinfo(int fd, unsigned int axis, struct input_absinfo *info) {
    return ioctl(fd, EVIOCGABS(axis), info);
}

int od_input_set_clock(int fd, int clockid) {
    return ioctl(fd, EVIOCSCLOCKID, &clockid);
}

unsigned long od_input_event_size(void) {
    return sizeof(struct input_event);
}

void od_input_event_decode(const void *bytes, double *seconds, unsigned short *type, unsigned short *code, int *value) {
    struct input_event event;
    memcpy(&event, bytes, sizeof event);
    // input_event_sec/usec: the kernel header's names for either layout of the time fields.
    *seconds = (double)event.input_event_sec + (double)event.input_event_usec * 1e-6;
    *type = event.type;
    *code = event.code;
    *value = event.value;
}

int od_input_switch_states(int fd, unsigned char *bits, unsigned int len) {
    return ioctl(fd, EVIOCGSW(len), bits);
}

int od_uinput_create_switch(const char *path, const char *name, const char *phys, unsigned short vendor,
                            unsigned short product, unsigned short version, unsigned int code,
                            const char **failed_step) {
    *failed_step = "open";
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = vendor;
    setup.id.product = product;
    setup.id.version = version;
    snprintf(setup.name, sizeof setup.name, "%s", name);
    if (ioctl(fd, UI_SET_EVBIT, EV_SYN) < 0) { *failed_step = "UI_SET_EVBIT EV_SYN"; goto fail; }
    if (ioctl(fd, UI_SET_EVBIT, EV_SW) < 0) { *failed_step = "UI_SET_EVBIT EV_SW"; goto fail; }
    if (ioctl(fd, UI_SET_SWBIT, code) < 0) { *failed_step = "UI_SET_SWBIT"; goto fail; }
    if (ioctl(fd, UI_SET_PHYS, phys) < 0) { *failed_step = "UI_SET_PHYS"; goto fail; }
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0) { *failed_step = "UI_DEV_SETUP"; goto fail; }
    if (ioctl(fd, UI_DEV_CREATE) < 0) { *failed_step = "UI_DEV_CREATE"; goto fail; }
    *failed_step = NULL;
    return fd;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

int od_uinput_emit_switch(int fd, unsigned int code, int value) {
    struct input_event events[2];
    memset(events, 0, sizeof events);  // the kernel stamps the time itself
    events[0].type = EV_SW;
    events[0].code = (unsigned short)code;
    events[0].value = value;
    events[1].type = EV_SYN;
    events[1].code = SYN_REPORT;
    events[1].value = 0;
    ssize_t written = write(fd, events, sizeof events);
    if (written == (ssize_t)sizeof events) return 0;
    if (written >= 0) errno = EIO;  // uinput takes whole events; a short write is a broken device
    return -1;
}

int od_uinput_sysname(int fd, char *name, unsigned int len) {
    return ioctl(fd, UI_GET_SYSNAME(len), name) < 0 ? -1 : 0;
}

int od_uinput_destroy(int fd) {
    int result = ioctl(fd, UI_DEV_DESTROY);
    int saved = errno;
    if (close(fd) < 0 && result == 0) return -1;
    if (result < 0) errno = saved;
    return result < 0 ? -1 : 0;
}

unsigned short od_input_bus_virtual(void) {
    return BUS_VIRTUAL;
}
