#ifndef ORIENTATIOND_CUMOCKDEV_SHIM_H
#define ORIENTATIOND_CUMOCKDEV_SHIM_H
// umockdev (tests only): fake sysfs, /dev nodes backed by PTYs, real uevents.
#include <umockdev.h>
#endif
