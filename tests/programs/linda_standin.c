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
 *   master.exel PORT BYTES LIST connect to every host of LIST (host[:N],...),
 *                               send BYTES to each, print each answer
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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
	gethostname(host, sizeof(host) - 1);
	snprintf(reply, sizeof(reply), "host=%s rspreload=%s local=%s bytes=%llu\n", host,
		 rspreload_mapped(), inet_ntoa(local.sin_addr), got);
	if (write(c, reply, strlen(reply)) < 0)
		return 1;
	close(c);
	close(s);
	return got == want ? 0 : 1;
}

static int connect_host(const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	char portstr[16];
	int tries, s = -1;

	snprintf(portstr, sizeof(portstr), "%d", port);
	if (getaddrinfo(host, portstr, &hints, &ai) != 0) {
		fprintf(stderr, "master: cannot resolve %s\n", host);
		return -1;
	}
	/* Workers start at the same time as the master: retry, bounded. */
	for (tries = 0; tries < 100; tries++) {
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

static int master(int port, unsigned long long bytes, char *list)
{
	static char buf[65536];
	char host0[256] = "";
	char *item, *save = NULL;
	int failures = 0;

	gethostname(host0, sizeof(host0) - 1);
	printf("master host=%s rspreload=%s workers=%s\n", host0, rspreload_mapped(), list);
	memset(buf, 'g', sizeof(buf));
	for (item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char reply[512] = "";
		unsigned long long left = bytes;
		ssize_t n;
		int s;

		item[strcspn(item, ":")] = '\0';	/* host[:N] */
		s = connect_host(item, port);
		if (s < 0) {
			printf("master -> %s: UNREACHABLE\n", item);
			failures++;
			continue;
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
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strncmp(name, "worker", 6) == 0 && argc == 2)
		return worker(atoi(argv[1]));
	if (strncmp(name, "master", 6) == 0 && argc == 4)
		return master(atoi(argv[1]), strtoull(argv[2], NULL, 10), argv[3]);
	fprintf(stderr, "usage: worker.exel PORT | master.exel PORT BYTES HOST[:N],...\n");
	return 2;
}
