#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(struct ucred) == sizeof(orientationd_ucred), "ucred layout");

int orientationd_sol_socket(void) { return SOL_SOCKET; }
int orientationd_so_peercred(void) { return SO_PEERCRED; }

int orientationd_peer_credentials(int fd, orientationd_ucred *out) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    out->pid = cred.pid;
    out->uid = cred.uid;
    out->gid = cred.gid;
    return 0;
}

int orientationd_so_peergroups(void) { return SO_PEERGROUPS; }

int orientationd_user_groups(uint32_t uid, uint32_t gid, uint32_t *out, int max) {
    struct passwd pw, *result = NULL;
    char buffer[4096];
    if (getpwuid_r(uid, &pw, buffer, sizeof(buffer), &result) != 0 || result == NULL) return -1;
    int n = max;
    if (getgrouplist(pw.pw_name, gid, (gid_t *)out, &n) < 0) return n > max ? n : max + 1;
    return n;
}

int orientationd_accept_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

void orientationd_set_thread_name(const char *name) {
    char shortened[16];
    strncpy(shortened, name, sizeof(shortened) - 1);
    shortened[sizeof(shortened) - 1] = 0;
    (void)pthread_setname_np(pthread_self(), shortened);
}
