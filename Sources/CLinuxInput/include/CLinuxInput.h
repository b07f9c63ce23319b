// The kernel character-device ioctls orientationd needs: evdev's, for an input-subsystem
// accelerometer (issue 16, item 2), a proximity switch (issue 17) and the lid switch (issue 30),
// uinput's, for the virtual tablet-mode switch (issue 30), and the IIO event descriptor's, for a
// motion event (issue 28). They are macros over a variadic ioctl(2), neither of which Swift
// imports.
#ifndef ORIENTATIOND_CLINUXINPUT_H
#define ORIENTATIOND_CLINUXINPUT_H

#include <linux/input.h>

/// EVIOCGABS(axis): the axis's current value, range and resolution. Returns 0, or -1 with errno.
int od_input_absinfo(int fd, unsigned int axis, struct input_absinfo *info);

/// EVIOCSCLOCKID: stamp this descriptor's events on `clockid` (CLOCK_MONOTONIC). 0, or -1 with errno.
int od_input_set_clock(int fd, int clockid);

/// EVIOCGSW(len): the device's switch states, a bit per switch (SW_LID, SW_FRONT_PROXIMITY...).
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

/// Creates a uinput device with one switch (issue 30: orientationd's virtual SW_TABLET_MODE):
/// opens `path` (/dev/uinput) write-only, non-blocking, close-on-exec; declares EV_SYN and EV_SW
/// with the single switch `code` (UI_SET_EVBIT, UI_SET_SWBIT), the physical path `phys`
/// (UI_SET_PHYS) and the identity (UI_DEV_SETUP: `name`, bus BUS_VIRTUAL, the given vendor,
/// product and version), then registers it (UI_DEV_CREATE). Returns the descriptor, or -1 with
/// errno from the step that failed, whose name is stored in `*failed_step` (a static string);
/// nothing stays open on failure. Needs Linux 4.5 (UI_DEV_SETUP).
int od_uinput_create_switch(const char *path, const char *name, const char *phys, unsigned short vendor,
                            unsigned short product, unsigned short version, unsigned int code,
                            const char **failed_step);

/// Reports the switch `code` as `value` (0 or 1) on a uinput descriptor: one EV_SW event and its
/// SYN_REPORT, written in one write(2) so a reader never sees the event without its frame end.
/// Returns 0, or -1 with errno (EAGAIN: the kernel's queue is full; EIO/ENODEV: the device is gone).
int od_uinput_emit_switch(int fd, unsigned int code, int value);

/// The sysfs name of the input device behind a uinput descriptor (UI_GET_SYSNAME, e.g.
/// "input17": /sys/devices/virtual/input/input17). Returns 0, or -1 with errno (ENOTTY before
/// Linux 3.15).
int od_uinput_sysname(int fd, char *name, unsigned int len);

/// Unregisters the device (UI_DEV_DESTROY) and closes the descriptor (even if the first
/// fails). Returns 0, or -1 with the errno of the first failure.
int od_uinput_destroy(int fd);

/// BUS_VIRTUAL (linux/input.h), the bus a uinput device of ours reports in `id/bustype`.
unsigned short od_input_bus_virtual(void);

/// The fields of one `struct input_event` read from `bytes` (od_input_event_size() of them);
/// the time in seconds.
void od_input_event_decode(const void *bytes, double *seconds, unsigned short *type, unsigned short *code, int *value);

#endif
