// The smallest C shims orientationd needs from the system: Glibc hides `struct ucred` and
// SO_PEERCRED's companions unless _GNU_SOURCE is defined, which Swift's Glibc module is not.
#ifndef ORIENTATIOND_CSYSTEMSHIMS_H
#define ORIENTATIOND_CSYSTEMSHIMS_H

#include <stdint.h>
#include <sys/types.h>

/// Layout-identical to Linux's `struct ucred` (checked by a static assertion in shims.c).
typedef struct orientationd_ucred {
    int32_t pid;
    uint32_t uid;
    uint32_t gid;
} orientationd_ucred;

/// SOL_SOCKET and SO_PEERCRED, for `getsockopt`.
int orientationd_sol_socket(void);
int orientationd_so_peercred(void);

/// Reads the peer credentials of a connected AF_UNIX socket. Returns 0, or -1 with errno set.
int orientationd_peer_credentials(int fd, orientationd_ucred *out);

/// SO_PEERGROUPS (Linux 4.13): the peer's supplementary groups at connect time.
int orientationd_so_peergroups(void);

/// Room for this many groups in one SO_PEERGROUPS answer; a peer with more makes the call fail
/// (ERANGE) and the group database is asked instead.
#define ORIENTATIOND_PEER_GROUPS_MAX 256

/// SO_PEERGROUPS's answer as a fixed-size value (getsockopt fills the front; the kernel lists
/// the groups in ascending order, so the rest, zero-filled, is only ever trailing zeros).
typedef struct orientationd_peer_groups {
    uint32_t gids[ORIENTATIOND_PEER_GROUPS_MAX];
} orientationd_peer_groups;

/// The groups of user `uid` (primary group `gid` first, then its supplementary groups, per the
/// group database: NSS, so this may block on LDAP/sssd; never call it on an event loop). Writes
/// at most `max` into `out` and returns how many there are (more than `max`: call again with
/// room for that many), or -1 when the user is unknown.
int orientationd_user_groups(uint32_t uid, uint32_t gid, uint32_t *out, int max);

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK): a GNU call Swift's Glibc hides.
int orientationd_accept_nonblocking(int fd);

/// Names the calling thread (at most 15 bytes are kept), for `ps -T`, /proc and debuggers.
void orientationd_set_thread_name(const char *name);

#endif
