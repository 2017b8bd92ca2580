/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * linda_farm.c - a Linda-like master/worker workload over TCP sockets, the
 * shape of Gaussian's TCP-Linda runs in Dragseth and Tangen, "Improving
 * Gaussian's parallel performance using Infiniband".
 *
 *   linda_farm.exel worker PORT
 *   linda_farm.exel master PORT TASKS IN_BYTES OUT_BYTES COMPUTE_MS HOST[:N],...
 *
 * The master hands TASKS tasks to the workers, keeping one outstanding per
 * worker: it sends IN_BYTES, the worker "computes" for COMPUTE_MS, and
 * returns OUT_BYTES. The compute is a sleep, so that eight simulated nodes
 * on a 2-core machine are limited by the network and not by the CPU; the
 * transfers are real. The master prints
 *   RESULT workers=W tasks=T seconds=S
 * The name ends in .exel so that spank-ibnet's default rsocket_programs
 * (Gaussian's Linda executables) converts it, like the real ones.
 */
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct task_hdr {
	uint64_t in_bytes, out_bytes, compute_us;	/* in_bytes == UINT64_MAX: done */
};

static int full_io(int fd, void *buf, size_t len, int writing)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int move_bytes(int fd, uint64_t bytes, int writing)
{
	static __thread char buf[65536];

	while (bytes > 0) {
		size_t n = bytes < sizeof(buf) ? (size_t)bytes : sizeof(buf);

		if (full_io(fd, buf, n, writing) < 0)
			return -1;
		bytes -= n;
	}
	return 0;
}

static int worker(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int one = 1, s, c;
	struct task_hdr h;

	alarm(300);
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 4) < 0 ||
	    (c = accept(s, NULL, NULL)) < 0) {
		perror("linda_farm worker");
		return 1;
	}
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (full_io(c, &h, sizeof(h), 0) == 0 && h.in_bytes != UINT64_MAX) {
		struct timespec ts = { (time_t)(h.compute_us / 1000000),
				       (long)(h.compute_us % 1000000) * 1000 };

		if (move_bytes(c, h.in_bytes, 0) < 0)
			return 1;
		nanosleep(&ts, NULL);
		if (move_bytes(c, h.out_bytes, 1) < 0)
			return 1;
	}
	close(c);
	close(s);
	return 0;
}

static struct {
	int tasks;
	atomic_int next;
	uint64_t in_bytes, out_bytes, compute_us;
	int port;
} job;

static void *drive(void *arg)
{
	const char *host = arg;
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai;
	struct task_hdr h = { job.in_bytes, job.out_bytes, job.compute_us };
	char port[16];
	int s = -1, tries, one = 1;

	snprintf(port, sizeof(port), "%d", job.port);
	if (getaddrinfo(host, port, &hints, &ai) != 0)
		return (void *)1;
	for (tries = 0; tries < 200 && s < 0; tries++) {	/* workers start alongside */
		s = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(s, ai->ai_addr, ai->ai_addrlen) < 0) {
			close(s);
			s = -1;
			usleep(50000);
		}
	}
	freeaddrinfo(ai);
	if (s < 0)
		return (void *)1;
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (atomic_fetch_add(&job.next, 1) < job.tasks) {
		if (full_io(s, &h, sizeof(h), 1) < 0 || move_bytes(s, h.in_bytes, 1) < 0 ||
		    move_bytes(s, h.out_bytes, 0) < 0)
			return (void *)1;
	}
	h.in_bytes = UINT64_MAX;
	full_io(s, &h, sizeof(h), 1);
	close(s);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t threads[256];
	char *hosts[256], *save = NULL, *item;
	int n = 0, i, failed = 0;

	if (argc == 3 && strcmp(argv[1], "worker") == 0)
		return worker(atoi(argv[2]));
	if (argc != 8 || strcmp(argv[1], "master") != 0) {
		fprintf(stderr, "usage: linda_farm.exel worker PORT | master PORT TASKS IN OUT MS HOSTS\n");
		return 2;
	}
	job.port = atoi(argv[2]);
	job.tasks = atoi(argv[3]);
	job.in_bytes = strtoull(argv[4], NULL, 10);
	job.out_bytes = strtoull(argv[5], NULL, 10);
	job.compute_us = strtoull(argv[6], NULL, 10) * 1000;
	for (item = strtok_r(argv[7], ",", &save); item && n < 256; item = strtok_r(NULL, ",", &save)) {
		item[strcspn(item, ":")] = '\0';
		hosts[n++] = item;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		pthread_create(&threads[i], NULL, drive, hosts[i]);
	for (i = 0; i < n; i++) {
		void *rc;

		pthread_join(threads[i], &rc);
		failed |= rc != NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (failed) {
		fprintf(stderr, "linda_farm: a worker failed\n");
		return 1;
	}
	printf("RESULT workers=%d tasks=%d seconds=%.4f\n", n, job.tasks,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
