// libiio's API (iio.h), served by iio_loader.c: libiio is loaded with dlopen the first time a
// reader calls it, not at the daemon's start (issue 28: libiio brings libxml2, ICU, libusb and
// avahi, about 1.3 MB resident, into a daemon that, idle or reading a polled sensor through
// sysfs, never calls it).
#ifndef ORIENTATIOND_CLIBIIO_H
#define ORIENTATIOND_CLIBIIO_H
#include <iio.h>
#endif
