/* SPDX-License-Identifier: MIT */
/* libaccwatch-relayd.so, preloaded into the lttng-relayd of --live only.
 * lttng-relayd takes a connection from anyone; this shuts down, as it is
 * accepted, every connection whose peer is not a loopback socket of the
 * relay daemon's own user or of root, so no other user reads, writes or
 * forges the trace. lttng-relayd sees such a peer hang up at once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*relayd_peers_accept_fn)(int, struct sockaddr *, socklen_t *);
typedef int (*relayd_peers_accept4_fn)(int, struct sockaddr *, socklen_t *,
				       int);

/* The owner of the loopback socket at peer connected to local, from
 * /proc/net/tcp (the peer's own entry: its local address is our peer's);
 * false when there is none. */
static bool relayd_peers_owner(const struct sockaddr_in *peer,
			       const struct sockaddr_in *local, uid_t *owner)
{
	FILE *table = fopen("/proc/net/tcp", "re");
	char line[512];
	bool found = false;

	if (!table)
		return false;
	while (!found && fgets(line, sizeof(line), table)) {
		unsigned int address, port, remote, remote_port;
		unsigned long uid;

		found =
		    sscanf(line,
			   " %*u: %8X:%4X %8X:%4X %*X %*X:%*X %*X:%*X "
			   "%*X %lu",
			   &address, &port, &remote, &remote_port, &uid) == 5 &&
		    address == peer->sin_addr.s_addr &&
		    port == ntohs(peer->sin_port) &&
		    remote == local->sin_addr.s_addr &&
		    remote_port == ntohs(local->sin_port);
		if (found)
			*owner = (uid_t)uid;
	}
	fclose(table);
	return found;
}

static bool relayd_peers_allowed(int fd)
{
	struct sockaddr_in peer, local;
	socklen_t peer_len = sizeof(peer), local_len = sizeof(local);
	uid_t owner;

	if (getpeername(fd, (struct sockaddr *)&peer, &peer_len) != 0 ||
	    getsockname(fd, (struct sockaddr *)&local, &local_len) != 0 ||
	    peer.sin_family != AF_INET || local.sin_family != AF_INET)
		return false;
	return relayd_peers_owner(&peer, &local, &owner) &&
	       (owner == getuid() || owner == 0);
}

/* Leaves fd open (the relay daemon owns it) but ended both ways. */
static int relayd_peers_check(int fd)
{
	int saved = errno;

	if (fd >= 0 && !relayd_peers_allowed(fd)) {
		if (getenv("ACCWATCH_DEBUG"))
			fprintf(stderr, "accwatch: the relay daemon refused a "
					"connection of another user\n");
		shutdown(fd, SHUT_RDWR);
	}
	errno = saved;
	return fd;
}

__attribute__((visibility("default"))) int
accept(int fd, struct sockaddr *address, socklen_t *length)
{
	static relayd_peers_accept_fn real;

	if (!real)
		real = (relayd_peers_accept_fn)dlsym(RTLD_NEXT, "accept");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return relayd_peers_check(real(fd, address, length));
}

__attribute__((visibility("default"))) int
accept4(int fd, struct sockaddr *address, socklen_t *length, int flags)
{
	static relayd_peers_accept4_fn real;

	if (!real)
		real = (relayd_peers_accept4_fn)dlsym(RTLD_NEXT, "accept4");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return relayd_peers_check(real(fd, address, length, flags));
}
