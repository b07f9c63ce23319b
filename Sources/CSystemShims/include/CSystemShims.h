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

/// 1 when the user `uid` (primary group `gid`) is a member of group `group` (primary or
/// supplementary, per the group database), 0 when not, -1 when the user is unknown.
int orientationd_user_in_group(uint32_t uid, uint32_t gid, uint32_t group);

/// accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK): a GNU call Swift's Glibc hides.
int orientationd_accept_nonblocking(int fd);

/// Names the calling thread (at most 15 bytes are kept), for `ps -T`, /proc and debuggers.
void orientationd_set_thread_name(const char *name);

#endif
