#ifndef ORIENTATIOND_CLIBIIO_SHIM_H
#define ORIENTATIOND_CLIBIIO_SHIM_H
#include <iio.h>
#endif
