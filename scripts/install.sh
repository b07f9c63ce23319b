#!/usr/bin/env bash
# make install / make uninstall: lays out (or removes) everything orientationd installs.
#   scripts/install.sh install|uninstall|list|steps
# Environment (from the Makefile): PREFIX (default /usr/local), DESTDIR (default empty),
# BUILD (the release build directory), MANUALS (generated man pages), and optional
# UNITDIR, USERUNITDIR, UDEVRULESDIR, DBUSPOLICYDIR, POLKITACTIONDIR, SYSCONFDIR overrides; MANPAGES=no leaves the man pages
# out (the Debian package installs them with dh_installman, compressed); STRIP=no installs the
# binary unstripped (the Debian package strips it with dh_strip, into orientationd-dbgsym).
#   - the multi-call binary orientationd into $PREFIX/bin (built with --static-swift-stdlib: no
#     Swift toolchain needed), and orientationctl and monitor-sensor (iio-sensor-proxy's command
#     name; only where no other package's monitor-sensor is installed, see `shared` below) as
#     links to it: it is each of them by the name it runs as;
#   - systemd units into pkg-config's systemdsystemunitdir, ExecStart rewritten for $PREFIX, and
#     follow --for's user unit (orientationctl-follow@.service) into its systemduserunitdir;
#   - the udev rule into pkg-config's udevdir/rules.d (udev reads no other prefix);
#   - the D-Bus policy into $PREFIX/share/dbus-1/system.d for PREFIX=/usr, else
#     /etc/dbus-1/system.d (Debian's dbus reads only those two);
#   - the polkit action net.hadess.SensorProxy.claim-sensor into polkit's actiondir
#     (/usr/share/polkit-1/actions, whatever PREFIX: polkit reads no other);
#   - the configuration into /etc/orientationd/orientationd.conf, never over an existing one;
#   - man pages orientationd(8), orientationctl(1), monitor-sensor(1) (a `.so` of
#     orientationctl(1)), orientationd.conf(5) and bash, zsh and fish completions for
#     orientationctl;
#   - the documents the manuals point to (README, DETECTOR, PROTOCOL, DBUS) into
#     $PREFIX/share/doc/orientationd.
set -euo pipefail
cd "$(dirname "$0")/.."

action=${1:?usage: install.sh install|uninstall|list|steps}
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
BUILD=${BUILD:-.build/release}
MANUALS=${MANUALS:-.build/manuals}
MANPAGES=${MANPAGES:-yes}
STRIP=${STRIP:-yes}
pkgvar() { pkg-config --variable="$2" "$1" 2>/dev/null || true; }
UNITDIR=${UNITDIR:-$(pkgvar systemd systemdsystemunitdir)}
UNITDIR=${UNITDIR:-/lib/systemd/system}
USERUNITDIR=${USERUNITDIR:-$(pkgvar systemd systemduserunitdir)}
USERUNITDIR=${USERUNITDIR:-/usr/lib/systemd/user}
udevdir=$(pkgvar udev udevdir)
UDEVRULESDIR=${UDEVRULESDIR:-${udevdir:-/lib/udev}/rules.d}
if [ -z "${DBUSPOLICYDIR:-}" ]; then
    if [ "$PREFIX" = /usr ]; then DBUSPOLICYDIR=/usr/share/dbus-1/system.d; else DBUSPOLICYDIR=/etc/dbus-1/system.d; fi
fi
# polkit reads actions from its own prefix's share directory only (/usr/share/polkit-1/actions).
POLKITACTIONDIR=${POLKITACTIONDIR:-$(pkgvar polkit-gobject-1 actiondir)}
POLKITACTIONDIR=${POLKITACTIONDIR:-/usr/share/polkit-1/actions}
SYSCONFDIR=${SYSCONFDIR:-/etc}
bindir=$PREFIX/bin
mandir=$PREFIX/share/man
completions_bash=$PREFIX/share/bash-completion/completions
completions_zsh=$PREFIX/share/zsh/vendor-completions
completions_fish=$PREFIX/share/fish/vendor_completions.d
# The documents the manuals and the configuration point to.
docdir=$PREFIX/share/doc/orientationd
docs=(README.md docs/DETECTOR.md docs/PROTOCOL.md docs/DBUS.md)

# Every file install lays out (uninstall removes exactly these; the configuration only when it
# is still the shipped one).
files=(
    "$bindir/orientationd" "$bindir/orientationctl" "$bindir/monitor-sensor"
    "$UNITDIR/orientationd.service" "$UNITDIR/orientationd.socket" "$USERUNITDIR/orientationctl-follow@.service"
    "$UDEVRULESDIR/80-orientationd.rules"
    "$DBUSPOLICYDIR/net.hadess.SensorProxy.conf"
    "$POLKITACTIONDIR/net.hadess.SensorProxy.policy"
    "$mandir/man8/orientationd.8" "$mandir/man1/orientationctl.1" "$mandir/man1/monitor-sensor.1" "$mandir/man5/orientationd.conf.5"
    "$completions_bash/orientationctl" "$completions_zsh/_orientationctl" "$completions_fish/orientationctl.fish"
)
for doc in "${docs[@]}"; do files+=("$docdir/${doc##*/}"); done
config=$SYSCONFDIR/orientationd/orientationd.conf

# The files whose names another package may own: iio-sensor-proxy installs /usr/bin/monitor-sensor,
# its D-Bus policy /etc/dbus-1/system.d/net.hadess.SensorProxy.conf (where PREFIX=/usr/local puts
# ours) and, since 3.4, the polkit action net.hadess.SensorProxy.policy. install never writes over
# one of these that is not ours and uninstall never removes it (issue 40): it says so and skips it.
# Without our link, our monitor-sensor is `orientationctl monitor-sensor`.
shared=("$bindir/monitor-sensor" "$mandir/man1/monitor-sensor.1" "$DBUSPOLICYDIR/net.hadess.SensorProxy.conf"
        "$POLKITACTIONDIR/net.hadess.SensorProxy.policy")
# ours FILE: FILE (under DESTDIR) is one this script laid out. The link points at orientationd; the
# man page is our `.so`; the policy and the action name orientationd (their comments do).
ours() {
    local path=$DESTDIR$1
    case "$1" in
    */bin/monitor-sensor) [ -L "$path" ] && [ "$(readlink "$path")" = orientationd ] ;;
    */man1/monitor-sensor.1) [ -f "$path" ] && [ "$(cat "$path")" = ".so man1/orientationctl.1" ] ;;
    *) [ -f "$path" ] && grep -q orientationd "$path" ;;
    esac
}
# foreign FILE: FILE exists (as anything, a dangling link too) and is not ours.
foreign() { { [ -e "$DESTDIR$1" ] || [ -L "$DESTDIR$1" ]; } && ! ours "$1"; }
is_shared() { local f; for f in "${shared[@]}"; do [ "$f" = "$1" ] && return 0; done; return 1; }
# Install SOURCE as FILE (mode 0644) unless FILE belongs to someone else.
install_shared() {
    if foreign "$2"; then
        echo "install: keeping ${DESTDIR}$2: it is not orientationd's (another package's, iio-sensor-proxy's?)" >&2
        return 0
    fi
    install -m 0644 "$1" "$DESTDIR$2"
}

# What the administrator does after an install or an uninstall on a live system (printed then;
# `install.sh steps` prints both). iio-sensor-proxy's unit is static and its udev rule starts it
# at every boot whatever `systemctl disable` said: only a mask lasts (issue 40). install changes
# no service's state itself: the facade is off in the shipped configuration, and masking the
# peer before it is on would leave GNOME and KDE without a sensor proxy.
steps_install() {
    echo "next: sudo systemctl mask --now iio-sensor-proxy   # if installed; a mask survives a reboot (disable does not: its udev rule starts it)"
    echo "      set [dbus] enable = true in $config for GNOME or KDE (only one daemon may own net.hadess.SensorProxy)"
    echo "      sudo systemctl enable --now orientationd.socket orientationd.service"
}
steps_uninstall() {
    echo "next: sudo systemctl unmask iio-sensor-proxy && sudo systemctl start iio-sensor-proxy   # if installed and masked"
}

case "$action" in
steps)
    steps_install
    steps_uninstall
    ;;
list)
    printf '%s\n' "${files[@]}" "$config"
    ;;
install)
    [ -x "$BUILD/orientationd" ] || { echo "install: $BUILD/orientationd is missing (make install builds it)" >&2; exit 1; }
    install -d "$DESTDIR$bindir" "$DESTDIR$UNITDIR" "$DESTDIR$UDEVRULESDIR" "$DESTDIR$DBUSPOLICYDIR" "$DESTDIR$POLKITACTIONDIR" \
        "$DESTDIR$mandir/man1" "$DESTDIR$mandir/man5" "$DESTDIR$mandir/man8" \
        "$DESTDIR$completions_bash" "$DESTDIR$completions_zsh" "$DESTDIR$completions_fish" "$DESTDIR$SYSCONFDIR/orientationd" \
        "$DESTDIR$docdir"
    # Stripped (issue 40: the release build is 51 MB with its symbols and debug information,
    # about 19 MB without), as the package's is; the package strips with dh_strip instead
    # (STRIP=no), which keeps the debug information in orientationd-dbgsym.
    if [ "$STRIP" != no ]; then
        install -m 0755 -s --strip-program="${STRIPPROGRAM:-strip}" "$BUILD/orientationd" "$DESTDIR$bindir/"
    else
        install -m 0755 "$BUILD/orientationd" "$DESTDIR$bindir/"
    fi
    ln -sf orientationd "$DESTDIR$bindir/orientationctl"
    # monitor-sensor: ours only where no other package's is (then its man page too, which
    # names orientationctl's); else ours is `orientationctl monitor-sensor`.
    # Debian's is /usr/bin/monitor-sensor: with PREFIX=/usr/local ours would shadow it in PATH.
    if foreign "$bindir/monitor-sensor" || foreign /usr/bin/monitor-sensor; then
        echo "install: not installing monitor-sensor: another package's is installed (iio-sensor-proxy's?); ours is \`orientationctl monitor-sensor\`" >&2
        peer_monitor_sensor=yes
    else
        ln -sfn orientationd "$DESTDIR$bindir/monitor-sensor"
        peer_monitor_sensor=no
    fi
    for unit in orientationd.service orientationd.socket; do
        sed -e "s|/usr/bin/orientationd|$bindir/orientationd|g" "systemd/$unit" > "$DESTDIR$UNITDIR/$unit"
        chmod 0644 "$DESTDIR$UNITDIR/$unit"
    done
    # follow --for as a desktop session's user service (issue 39).
    install -d "$DESTDIR$USERUNITDIR"
    sed -e "s|/usr/bin/orientationctl|$bindir/orientationctl|g" "systemd/user/orientationctl-follow@.service" \
        > "$DESTDIR$USERUNITDIR/orientationctl-follow@.service"
    chmod 0644 "$DESTDIR$USERUNITDIR/orientationctl-follow@.service"
    install -m 0644 udev/80-orientationd.rules "$DESTDIR$UDEVRULESDIR/"
    install_shared config/net.hadess.SensorProxy.conf "$DBUSPOLICYDIR/net.hadess.SensorProxy.conf"
    install_shared config/net.hadess.SensorProxy.policy "$POLKITACTIONDIR/net.hadess.SensorProxy.policy"
    if [ "$MANPAGES" != no ]; then
        install -m 0644 "$MANUALS/orientationd.8" "$DESTDIR$mandir/man8/"
        install -m 0644 "$MANUALS/orientationctl.1" "$DESTDIR$mandir/man1/"
        if [ "$peer_monitor_sensor" = no ]; then
            install_shared "$MANUALS/monitor-sensor.1" "$mandir/man1/monitor-sensor.1"
        fi
        install -m 0644 "$MANUALS/orientationd.conf.5" "$DESTDIR$mandir/man5/"
    fi
    install -m 0644 "${docs[@]}" "$DESTDIR$docdir/"
    # Through the installed link, so that the binary runs as orientationctl. bash-completion
    # sources the file: ArgumentParser's `#!/bin/bash` line has no use there (lintian:
    # bash-completion-with-hashbang).
    ctl=$DESTDIR$bindir/orientationctl
    "$ctl" --generate-completion-script bash | sed '1{/^#!/d}' > "$DESTDIR$completions_bash/orientationctl"
    "$ctl" --generate-completion-script zsh > "$DESTDIR$completions_zsh/_orientationctl"
    "$ctl" --generate-completion-script fish > "$DESTDIR$completions_fish/orientationctl.fish"
    if [ -e "$DESTDIR$config" ]; then
        echo "install: keeping the existing $config (the shipped one is config/orientationd.conf)" >&2
    else
        install -m 0644 config/orientationd.conf "$DESTDIR$config"
    fi
    echo "installed orientationd into ${DESTDIR:-/}${DESTDIR:+ }(prefix $PREFIX)"
    if [ -z "$DESTDIR" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
        systemctl daemon-reload || true
        steps_install
    fi
    ;;
uninstall)
    for file in "${files[@]}"; do
        if is_shared "$file" && foreign "$file"; then
            echo "uninstall: keeping ${DESTDIR}$file: it is not orientationd's" >&2
        else
            rm -f "$DESTDIR$file"
        fi
    done
    rmdir "$DESTDIR$docdir" 2>/dev/null || true
    if [ -e "$DESTDIR$config" ] && cmp -s config/orientationd.conf "$DESTDIR$config"; then
        rm -f "$DESTDIR$config"
        rmdir "$DESTDIR$SYSCONFDIR/orientationd" 2>/dev/null || true
    elif [ -e "$DESTDIR$config" ]; then
        echo "uninstall: keeping $config: it was changed" >&2
    fi
    echo "removed orientationd from ${DESTDIR:-/}${DESTDIR:+ }(prefix $PREFIX)"
    if [ -z "$DESTDIR" ] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
        systemctl daemon-reload || true
        steps_uninstall
    fi
    ;;
*)
    echo "usage: install.sh install|uninstall|list|steps" >&2
    exit 2
    ;;
esac
