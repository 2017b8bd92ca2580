/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_netstat.c - the node's loss feed: how many TCP segments this
 * node has retransmitted, read from the kernel. The one place the paced
 * build asks the node's network anything, so that the model at scale
 * (devel/smpi-model: the same exchange under SimGrid's SMPI and ns-3) links
 * its own feed, the simulated network's drops, in place of this file.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibnet_a2a_netstat.h"

/*
 * The TCP segments this node has retransmitted (its network namespace's
 * RetransSegs in /proc/net/snmp), or 0 if it cannot be read: one read(2) and
 * no stdio, about 25 us (TCPLossProbes, in /proc/net/netstat, would cost 100 us
 * more a read; the controller's threshold absorbs the probes instead). A port
 * that drops shows here on the nodes that sent into it: in an all-to-all
 * every node sends to every port, so a node's own count sees any port's
 * loss. Other traffic of the node counts too, which errs on the careful
 * side; the controller takes calls as lossy only past a few retransmissions
 * per thousand segments (ibnet_a2a_window.c).
 */
unsigned long node_retransmits(void)
{
	char buf[4096], *head, *values, *end, *p;
	int fd = open("/proc/self/net/snmp", O_RDONLY | O_CLOEXEC), col = 0, i;
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "Tcp: RtoAlgorithm ... RetransSegs ..." then "Tcp: 1 200 ...". */
	if (!(head = strstr(buf, "\nTcp: ")) || !(values = strchr(++head, '\n')))
		return 0;
	end = values++;
	for (p = head; p < end; col++) {
		char *space = memchr(p, ' ', (size_t)(end - p));

		if (!space)
			space = end;
		if (space - p == 11 && strncmp(p, "RetransSegs", 11) == 0)
			break;
		p = space + 1;
	}
	if (p >= end)
		return 0;
	for (p = values, i = 0; i < col && p; i++)
		if ((p = strchr(p, ' ')))
			p++;
	return p ? strtoul(p, NULL, 10) : 0;
}
