// libsystemd's sd-bus, for the net.hadess.SensorProxy facade (Debian: libsystemd-dev). Swift
// uses it only through CSensorProxyShim: sd-bus's vtables are macros and its message calls are
// variadic, neither of which imports into Swift.
#include <systemd/sd-bus.h>
