#ifndef ORIENTATIOND_CLIBUDEV_SHIM_H
#define ORIENTATIOND_CLIBUDEV_SHIM_H
#include <libudev.h>
#endif
