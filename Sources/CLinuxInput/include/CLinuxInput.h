// The kernel character-device ioctls orientationd needs: evdev's, for an input-subsystem
// accelerometer (issue 16, item 2) and a proximity switch (issue 17), and the IIO event
// descriptor's, for a motion event (issue 28). They are macros over a variadic ioctl(2), neither
// of which Swift imports.
#ifndef ORIENTATIOND_CLINUXINPUT_H
#define ORIENTATIOND_CLINUXINPUT_H

#include <linux/input.h>

/// EVIOCGABS(axis): the axis's current value, range and resolution. Returns 0, or -1 with errno.
int od_input_absinfo(int fd, unsigned int axis, struct input_absinfo *info);

/// EVIOCSCLOCKID: stamp this descriptor's events on `clockid` (CLOCK_MONOTONIC). 0, or -1 with errno.
int od_input_set_clock(int fd, int clockid);

/// EVIOCGSW(len): the device's switch states, a bit per switch (SW_FRONT_PROXIMITY among them).
/// Returns ioctl's result (-1 with errno on failure).
int od_input_switch_states(int fd, unsigned char *bits, unsigned int len);

/// IIO_GET_EVENT_FD_IOCTL on an IIO device's character device (`/dev/iio:deviceN`): a new
/// descriptor that reads the device's events (`struct iio_event_data`). Returns it, or -1 with
/// errno (ENODEV: the device has no events; ENOTTY: not an IIO device, e.g. a test's PTY).
int od_iio_event_fd(int device_fd);

/// The size of one `struct iio_event_data`.
unsigned long od_iio_event_size(void);

/// The size of one `struct input_event` on this architecture.
unsigned long od_input_event_size(void);

/// The fields of one `struct input_event` read from `bytes` (od_input_event_size() of them);
/// the time in seconds.
void od_input_event_decode(const void *bytes, double *seconds, unsigned short *type, unsigned short *code, int *value);

#endif
