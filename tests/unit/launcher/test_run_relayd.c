/* SPDX-License-Identifier: MIT */
/* Unit tests of --live's relay daemon start (run_relayd.h) on the real
 * lttng-relayd: whose socket listens on a port, a start that gives up a
 * port another process listens on, and the peer check letting our own
 * connections through. Another user's connections: run_live_intruder.sh. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_relayd.h"
#include "scratch.h"

/* A socket of ours listening on a free loopback port; its port in *port. */
static int listen_loopback(int *port)
{
	struct sockaddr_in addr = {.sin_family = AF_INET};
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_geq(fd, 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	cr_assert_eq(listen(fd, 4), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	*port = ntohs(addr.sin_port);
	return fd;
}

static int connect_loopback(int port)
{
	struct sockaddr_in addr = {.sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port)};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_geq(fd, 0);
	cr_assert_eq(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	return fd;
}

static void assert_listens_alone(const struct accwatch_run_relayd *relayd)
{
	for (int i = 0; i < ACCWATCH_RUN_RELAYD_PORTS; i++)
		cr_assert_eq(
		    accwatch_run_relayd_listener(relayd->pid, relayd->ports[i]),
		    ACCWATCH_RUN_RELAYD_LISTENER_OWN, "port %d",
		    relayd->ports[i]);
}

TestSuite(run_relayd, .init = make_root, .fini = remove_root);

Test(run_relayd, listener_is_told_by_the_holder)
{
	int port, fd = listen_loopback(&port);
	pid_t other = fork();

	if (other == 0) {
		close(fd);
		pause();
		_exit(0);
	}
	cr_assert_eq(accwatch_run_relayd_listener(getpid(), port),
		     ACCWATCH_RUN_RELAYD_LISTENER_OWN);
	cr_assert_eq(accwatch_run_relayd_listener(other, port),
		     ACCWATCH_RUN_RELAYD_LISTENER_FOREIGN);
	close(fd);
	cr_assert_eq(accwatch_run_relayd_listener(getpid(), port),
		     ACCWATCH_RUN_RELAYD_LISTENER_NONE);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
}

Test(run_relayd, free_ports_are_taken_at_the_first_start)
{
	struct accwatch_run_relayd relayd;
	char error[512] = "";

	cr_assert_eq(accwatch_run_relayd_start(&relayd, root,
					       ACCWATCH_TEST_RELAYD_LIB, NULL,
					       error, sizeof(error)),
		     ACCWATCH_RUN_RELAYD_OK, "%s", error);
	cr_assert_eq(relayd.tries, 1);
	assert_listens_alone(&relayd);
	accwatch_run_relayd_stop(&relayd);
	cr_assert_eq(relayd.pid, -1);
}

/* Another process listening on the control port before the relay daemon:
 * the start is given up and the next one's ports are its own. */
Test(run_relayd, a_port_another_listens_on_is_given_up)
{
	struct accwatch_run_relayd relayd;
	int ports[ACCWATCH_RUN_RELAYD_PORTS], held[ACCWATCH_RUN_RELAYD_PORTS];
	char error[512] = "";

	for (int i = 0; i < ACCWATCH_RUN_RELAYD_PORTS; i++)
		held[i] = listen_loopback(&ports[i]);
	close(held[ACCWATCH_RUN_RELAYD_DATA]);
	close(held[ACCWATCH_RUN_RELAYD_VIEWER]);
	cr_assert_eq(accwatch_run_relayd_start(&relayd, root,
					       ACCWATCH_TEST_RELAYD_LIB, ports,
					       error, sizeof(error)),
		     ACCWATCH_RUN_RELAYD_OK, "%s", error);
	cr_assert_geq(relayd.tries, 2);
	cr_assert_neq(relayd.ports[ACCWATCH_RUN_RELAYD_CONTROL],
		      ports[ACCWATCH_RUN_RELAYD_CONTROL]);
	assert_listens_alone(&relayd);
	accwatch_run_relayd_stop(&relayd);
	close(held[ACCWATCH_RUN_RELAYD_CONTROL]);
}

/* Our own connection stays open (another user's is ended at once). */
Test(run_relayd, our_own_connections_are_kept)
{
	struct accwatch_run_relayd relayd;
	char error[512] = "";
	struct pollfd ended = {.events = POLLIN | POLLRDHUP};

	cr_assert_eq(accwatch_run_relayd_start(&relayd, root,
					       ACCWATCH_TEST_RELAYD_LIB, NULL,
					       error, sizeof(error)),
		     ACCWATCH_RUN_RELAYD_OK, "%s", error);
	ended.fd = connect_loopback(relayd.ports[ACCWATCH_RUN_RELAYD_VIEWER]);
	cr_assert_eq(poll(&ended, 1, 500), 0, "the connection was ended");
	close(ended.fd);
	accwatch_run_relayd_stop(&relayd);
}

Test(run_relayd, a_missing_relay_daemon_is_said)
{
	struct accwatch_run_relayd relayd;
	char error[512] = "";

	setenv("PATH", "/nonexistent", 1);
	cr_assert_eq(accwatch_run_relayd_start(&relayd, root,
					       ACCWATCH_TEST_RELAYD_LIB, NULL,
					       error, sizeof(error)),
		     ACCWATCH_RUN_RELAYD_FAILED);
	cr_assert_not_null(strstr(error, "cannot run lttng-relayd"), "%s",
			   error);
	cr_assert_eq(relayd.tries, 1);
}
