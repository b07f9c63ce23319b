// The evdev ioctls orientationd needs: an input-subsystem accelerometer's (issue 16, item 2) and
// a proximity switch's (issue 17). They are macros over a variadic ioctl(2), neither of which
// Swift imports.
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

/// The size of one `struct input_event` on this architecture.
unsigned long od_input_event_size(void);

/// The fields of one `struct input_event` read from `bytes` (od_input_event_size() of them);
/// the time in seconds.
void od_input_event_decode(const void *bytes, double *seconds, unsigned short *type, unsigned short *code, int *value);

#endif
