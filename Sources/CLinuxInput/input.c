#include "CLinuxInput.h"

#include <linux/iio/events.h>
#include <string.h>
#include <sys/ioctl.h>

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
