#!/usr/bin/python3
"""A stand-in for polkitd on a private system-like bus (issue 26): org.freedesktop.PolicyKit1's
Authority.CheckAuthorization, answered the way a test needs, so that the D-Bus facade can be tried
against a polkit that never answers some users, or answers slowly.

    polkit-standin.py --address A [--hang-uid U ...] [--deny-uid U ...] [--delay S] [--log FILE]

- The subject (system-bus-name) is looked up with the bus (GetConnectionUnixUser), as polkitd
  does; a subject that has left gets polkit's error (org.freedesktop.PolicyKit1.Error.Failed).
- --hang-uid: checks about these uids are never answered (held until the stand-in exits).
- --deny-uid: these uids are not authorized; everyone else is.
- --delay S: one check answered every S seconds, in arrival order (a slow polkit; a subject's
  uid is looked up when its turn comes, as a busy polkitd would).
- --log: one line per check received: "<monotonic seconds> <subject name> <action>".
Prints "ready" on stdout once it owns org.freedesktop.PolicyKit1. Needs a bus policy letting it
own the name and letting callers send to it.

/usr/bin/python3 on purpose: Debian's, with python3-dbus and python3-gi.
"""
import argparse, collections, sys, time

import dbus, dbus.service, dbus.mainloop.glib
from gi.repository import GLib

NAME, PATH, IFACE = "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority", "org.freedesktop.PolicyKit1.Authority"


class Failed(dbus.exceptions.DBusException):
    _dbus_error_name = "org.freedesktop.PolicyKit1.Error.Failed"


class Authority(dbus.service.Object):
    def __init__(self, bus, args):
        super().__init__(bus, PATH)
        self.bus = bus
        self.hang = set(args.hang_uid)
        self.deny = set(args.deny_uid)
        self.delay = args.delay
        self.log = open(args.log, "a", buffering=1) if args.log else None
        self.queue = collections.deque()
        self.held = []  # never answered: kept so that the calls stay pending
        if self.delay > 0:
            GLib.timeout_add(max(1, int(self.delay * 1000)), self.answer_next)

    def decide(self, name, reply, error):
        try:
            uid = int(self.bus.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                             "GetConnectionUnixUser", "s", (name,)))
        except dbus.exceptions.DBusException as e:
            error(Failed(f"cannot determine the subject {name}: {e.get_dbus_message()}"))
            return
        if uid in self.hang:
            self.held.append((reply, error))
            return
        reply((dbus.Boolean(uid not in self.deny), dbus.Boolean(False), dbus.Dictionary({}, signature="ss")))

    def answer_next(self):
        if self.queue:
            self.decide(*self.queue.popleft())
        return True

    @dbus.service.method(IFACE, in_signature="(sa{sv})sa{ss}us", out_signature="(bba{ss})",
                         async_callbacks=("reply", "error"))
    def CheckAuthorization(self, subject, action, details, flags, cancellation, reply, error):
        kind, fields = subject
        name = str(fields.get("name", ""))
        if self.log:
            self.log.write(f"{time.monotonic():.3f} {name} {action}\n")
        if kind != "system-bus-name" or not name:
            error(Failed(f"unsupported subject {kind}"))
            return
        if self.delay > 0:
            self.queue.append((name, reply, error))
        else:
            self.decide(name, reply, error)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--hang-uid", type=int, action="append", default=[])
    parser.add_argument("--deny-uid", type=int, action="append", default=[])
    parser.add_argument("--delay", type=float, default=0)
    parser.add_argument("--log")
    args = parser.parse_args()
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(args.address)
    authority = Authority(bus, args)
    if bus.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE) != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        sys.exit("polkit-standin.py: cannot own " + NAME)
    print("ready", flush=True)
    loop = GLib.MainLoop()
    bus.call_on_disconnection(lambda _: loop.quit())  # an activated stand-in ends with its bus
    loop.run()
    del authority


if __name__ == "__main__":
    main()
