/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linda_standin.c - a stand-in for Gaussian's TCP-Linda executables.
 *
 * Gaussian is commercial and cannot be installed here. This program plays
 * its two Linda roles over plain TCP sockets, like TCP-Linda does; which
 * role it plays depends on the name it runs as, so it can be installed as
 * linda-exe/worker.exel and linda-exe/master.exel.
 *
 *   worker.exel PORT            accept one master, receive its bytes, answer
 *                               "host=H rspreload=yes|no local=ADDR bytes=N"
 *   master.exel PORT BYTES LIST start a worker on every host of LIST
 *                               (host[:N],...) as real Linda does, through
 *                               the launcher $GAUSS_SDEF (default "ssh"):
 *                               LAUNCHER HOST $GAUSS_LEXEDIR/worker.exel PORT;
 *                               then connect to each, send BYTES, print each
 *                               answer. A launcher that fails fails the
 *                               master (the others are stopped), never a hang.
 *
 * For tests: LINDA_STANDIN_NO_LAUNCH=1 (workers started by hand),
 * LINDA_STANDIN_HOLD=S (the master waits S s after launching; with
 * LINDA_STANDIN_RELEASE=FILE, until FILE exists, S s at most: a test looks
 * at the running workers for as long as it needs, however loaded the machine),
 * LINDA_STANDIN_FAIL_ON=HOST (that worker exits 3 at once),
 * LINDA_STANDIN_PIDDIR=DIR (each worker writes DIR/worker-HOST.pid).
 *
 * "rspreload" tells whether librspreload is mapped in the process; "local"
 * is the worker's address of the connection, which names the network the
 * bytes crossed (198.18.1.x is ib0 on the test cluster).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_WORKERS 64

static const char *rspreload_mapped(void)
{
	FILE *fp = fopen("/proc/self/maps", "r");
	char line[512];
	const char *yes = "no";

	while (fp && fgets(line, sizeof(line), fp))
		if (strstr(line, "librspreload"))
			yes = "yes";
	if (fp)
		fclose(fp);
	return yes;
}

static int worker(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in local;
	socklen_t len = sizeof(local);
	char host[256] = "", buf[65536], reply[512];
	unsigned long long want = 0, got = 0;
	int one = 1, s, c;

	alarm(60);	/* a stand-in never outlives a test */
	gethostname(host, sizeof(host) - 1);
	if (getenv("LINDA_STANDIN_PIDDIR")) {
		char path[512];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/worker-%s.pid", getenv("LINDA_STANDIN_PIDDIR"), host);
		if ((fp = fopen(path, "w"))) {
			fprintf(fp, "%d\n", (int)getpid());
			fclose(fp);
		}
	}
	if (getenv("LINDA_STANDIN_FAIL_ON") && !strcmp(getenv("LINDA_STANDIN_FAIL_ON"), host)) {
		fprintf(stderr, "worker on %s: failing as asked\n", host);
		return 3;
	}
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 4) < 0) {
		perror("worker: listen");
		return 1;
	}
	c = accept(s, NULL, NULL);
	if (c < 0 || read(c, &want, sizeof(want)) != sizeof(want)) {
		perror("worker: accept");
		return 1;
	}
	while (got < want) {
		ssize_t n = read(c, buf, sizeof(buf));

		if (n <= 0)
			break;
		got += (unsigned long long)n;
	}
	getsockname(c, (struct sockaddr *)&local, &len);
	snprintf(reply, sizeof(reply), "host=%s rspreload=%s local=%s bytes=%llu\n", host,
		 rspreload_mapped(), inet_ntoa(local.sin_addr), got);
	if (write(c, reply, strlen(reply)) < 0)
		return 1;
	close(c);
	close(s);
	return got == want ? 0 : 1;
}

/* Launchers of the workers, and what became of them. */
static pid_t launcher[MAX_WORKERS];
static int launcher_status[MAX_WORKERS];
static int nlaunched;

/* Has launcher i ended? Records its status once. */
static int launcher_ended(int i)
{
	int st;

	if (launcher[i] > 0 && waitpid(launcher[i], &st, WNOHANG) == launcher[i]) {
		launcher_status[i] = st;
		launcher[i] = 0;
	}
	return launcher[i] == 0;
}

/* Start "LAUNCHER HOST WORKER PORT" with the launcher's words split on spaces. */
static pid_t launch(const char *launch_cmd, const char *host, const char *worker_path, int port)
{
	char *words = strdup(launch_cmd), *argv[16], portstr[16], *save = NULL, *w;
	int n = 0;
	pid_t pid;

	for (w = strtok_r(words, " ", &save); w && n < 12; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	snprintf(portstr, sizeof(portstr), "%d", port);
	argv[n++] = (char *)host;
	argv[n++] = (char *)worker_path;
	argv[n++] = portstr;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "master: cannot run the launcher %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	free(words);
	return pid;
}

static int connect_host(const char *host, int port, int who)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	char portstr[16];
	int tries, s = -1;

	snprintf(portstr, sizeof(portstr), "%d", port);
	if (getaddrinfo(host, portstr, &hints, &ai) != 0) {
		fprintf(stderr, "master: cannot resolve %s\n", host);
		return -1;
	}
	/* Workers start at the same time as the master: retry, bounded, and
	 * stop at once when the worker's launcher has ended. */
	for (tries = 0; tries < 200; tries++) {
		if (who >= 0 && launcher_ended(who) && launcher_status[who] != 0)
			break;
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s >= 0 && connect(s, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (s >= 0)
			close(s);
		s = -1;
		usleep(100000);
	}
	freeaddrinfo(ai);
	return s;
}

/* Wait SECONDS, or until RELEASE exists if it is named (SECONDS at most). */
static void hold(unsigned seconds, const char *release)
{
	unsigned quarter;

	if (!release) {
		sleep(seconds);
		return;
	}
	for (quarter = 0; quarter < 4 * seconds && access(release, F_OK) != 0; quarter++)
		usleep(250000);
}

static int master(int port, unsigned long long bytes, char *list, const char *self)
{
	static char buf[65536];
	char host0[256] = "", worker_path[1024], *hosts[MAX_WORKERS];
	const char *launch_cmd = getenv("GAUSS_SDEF") ? getenv("GAUSS_SDEF") : "ssh";
	const char *lexedir = getenv("GAUSS_LEXEDIR");
	char *item, *save = NULL;
	int failures = 0, nhosts = 0, i, by_hand = getenv("LINDA_STANDIN_NO_LAUNCH") != NULL;

	gethostname(host0, sizeof(host0) - 1);
	printf("master host=%s rspreload=%s workers=%s\n", host0, rspreload_mapped(), list);
	memset(buf, 'g', sizeof(buf));
	for (item = strtok_r(list, ",", &save); item && nhosts < MAX_WORKERS;
	     item = strtok_r(NULL, ",", &save)) {
		item[strcspn(item, ":")] = '\0';	/* host[:N] */
		hosts[nhosts++] = item;
	}
	/* Workers run from GAUSS_LEXEDIR, as Gaussian's do, else beside us. */
	if (lexedir)
		snprintf(worker_path, sizeof(worker_path), "%s/worker.exel", lexedir);
	else
		snprintf(worker_path, sizeof(worker_path), "%.*s/worker.exel",
			 (int)(strrchr(self, '/') ? strrchr(self, '/') - self : 1),
			 strrchr(self, '/') ? self : ".");
	for (i = 0; i < nhosts && !by_hand; i++) {
		launcher[i] = launch(launch_cmd, hosts[i], worker_path, port);
		nlaunched = i + 1;
		printf("master: started a worker on %s with %s\n", hosts[i], launch_cmd);
	}
	if (getenv("LINDA_STANDIN_HOLD"))
		hold((unsigned)atoi(getenv("LINDA_STANDIN_HOLD")), getenv("LINDA_STANDIN_RELEASE"));
	for (i = 0; i < nhosts; i++) {
		char reply[512] = "";
		unsigned long long left = bytes;
		ssize_t n;
		int s;

		item = hosts[i];
		s = connect_host(item, port, by_hand ? -1 : i);
		if (s < 0) {
			printf("master -> %s: UNREACHABLE\n", item);
			failures++;
			break;	/* Linda cannot go on without a worker: stop the others */
		}
		if (write(s, &bytes, sizeof(bytes)) != sizeof(bytes))
			failures++;
		while (left > 0) {
			n = write(s, buf, left < sizeof(buf) ? left : sizeof(buf));
			if (n <= 0)
				break;
			left -= (unsigned long long)n;
		}
		n = read(s, reply, sizeof(reply) - 1);
		reply[n > 0 ? n : 0] = '\0';
		reply[strcspn(reply, "\n")] = '\0';
		printf("master -> %s: %s\n", item, reply);
		failures += left != 0 || n <= 0;
		close(s);
	}
	for (i = 0; i < nlaunched; i++) {
		bool stopped = failures && launcher[i] > 0;

		if (stopped)
			kill(launcher[i], SIGTERM);
		if (launcher[i] > 0 && waitpid(launcher[i], &launcher_status[i], 0) == launcher[i])
			launcher[i] = 0;
		if (stopped) {
			printf("master: stopped the worker on %s\n", hosts[i]);
			continue;
		}
		if (WIFEXITED(launcher_status[i]) && WEXITSTATUS(launcher_status[i]) == 0)
			continue;
		printf("master: the worker on %s failed (%s %d)\n", hosts[i],
		       WIFSIGNALED(launcher_status[i]) ? "signal" : "exit",
		       WIFSIGNALED(launcher_status[i]) ? WTERMSIG(launcher_status[i])
						       : WEXITSTATUS(launcher_status[i]));
		failures++;
	}
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strncmp(name, "worker", 6) == 0 && argc == 2)
		return worker(atoi(argv[1]));
	if (strncmp(name, "master", 6) == 0 && argc == 4)
		return master(atoi(argv[1]), strtoull(argv[2], NULL, 10), argv[3], argv[0]);
	fprintf(stderr, "usage: worker.exel PORT | master.exel PORT BYTES HOST[:N],...\n");
	return 2;
}
