/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_tcp_floor.bpf.c - the retransmission floor for kernels without
 * TCP_RTO_MIN_US (Linux 5.10 to 6.14): a sock_ops program, attached by the
 * plugin (spank-ibnet/ibnet_bpf_floor.c) to a cgroup v2 directory holding
 * one step's tasks, gives each TCP socket those tasks make or accept the
 * floor the loader wrote into floor_config, and counts what the sockets
 * met, for the step's log line.
 *
 * The floor is set on connect (so the SYN's successors already have it), on
 * listen (an accepted socket is cloned from its listener, floor included,
 * so its first timeout already uses it: set only at establishment, it
 * would wait for the next round-trip sample) and again on establishment,
 * active and passive (a listener made before the program was attached). The RTO and
 * retransmission callbacks are enabled per socket once it is established;
 * they cost a call on loss only.
 *
 * Each connection's floor is spread (issue 49): a whole number of jiffies
 * from the floor's to twice it (contract/ibnet_tcp_floor_rule.h), drawn
 * from its addresses and ports, so that flows a shallow switch port
 * dropped together do not all time out and resend on the same tick. Drawn
 * from the connection, not at random, so that its connect and its
 * establishment give it the same floor. A listener keeps the floor itself:
 * each connection it accepts draws its own at establishment.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "ibnet_tcp_floor_rule.h"

#define SOL_TCP 6	/* <netinet/tcp.h> is not for the BPF target */

/* The kernel's HZ, from its config (libbpf fills it in at load; 0 where no
 * config is to be found): the floor is raised to what the kernel takes. */
extern unsigned int CONFIG_HZ __kconfig __weak;

/* Key 0: the floor in microseconds, written by the loader before attach. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} floor_config SEC(".maps");

/* The counters the loader sums over CPUs: keys in ibnet_bpf_floor.h. */
#define COUNT_FLOORED	0	/* floors given (listen, connect, establishment) */
#define COUNT_REFUSED	1	/* bpf_setsockopt refused the floor */
#define COUNT_RTO	2	/* retransmission timeouts that fired */
#define COUNT_RETRANS	3	/* segments retransmitted (by timeout or fast retransmit) */
#define COUNT_KEYS	4

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COUNT_KEYS);
	__type(key, __u32);
	__type(value, __u64);
} floor_counts SEC(".maps");

static __always_inline void count(__u32 key, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&floor_counts, &key);

	if (c)
		*c += n;	/* per CPU: no other writer */
}

/* The connection's draw, from the words that name it (the local port is bound by connect). */
static __always_inline __u32 connection_draw(const struct bpf_sock_ops *skops)
{
	__u32 words[] = {
		skops->family, skops->local_ip4, skops->remote_ip4,
		skops->local_ip6[0], skops->local_ip6[1], skops->local_ip6[2], skops->local_ip6[3],
		skops->remote_ip6[0], skops->remote_ip6[1], skops->remote_ip6[2], skops->remote_ip6[3],
		skops->local_port, skops->remote_port,
	};

	return ibnet_floor_flow_draw(words, sizeof(words) / sizeof(words[0]));
}

/* spread: a connection's own floor; else the floor itself (a listener). */
static __always_inline void give_floor(struct bpf_sock_ops *skops, int spread)
{
	__u32 zero = 0, *floor_us = bpf_map_lookup_elem(&floor_config, &zero);
	int v;

	if (!floor_us || !*floor_us)
		return;
	if (spread)
		v = (int)ibnet_floor_spread(*floor_us, CONFIG_HZ, connection_draw(skops));
	else
		v = (int)ibnet_floor_as_kernel_takes(*floor_us, CONFIG_HZ);
	if (bpf_setsockopt(skops, SOL_TCP, TCP_BPF_RTO_MIN, &v, sizeof(v)) == 0)
		count(COUNT_FLOORED, 1);
	else
		count(COUNT_REFUSED, 1);
	/* Its ACKs held back no longer than one floor for all would hold them
	 * (ibnet_floor_delack_us): a spread floor needs it on 6.11+, and a kernel
	 * before 6.11 did not bound a floored socket's delayed ACK at all. */
	if (CONFIG_HZ) {
		v = (int)ibnet_floor_delack_us(*floor_us, CONFIG_HZ);
		bpf_setsockopt(skops, SOL_TCP, TCP_BPF_DELACK_MAX, &v, sizeof(v));
	}
}

SEC("sockops")
int ibnet_tcp_floor(struct bpf_sock_ops *skops)
{
	switch (skops->op) {
	case BPF_SOCK_OPS_TCP_LISTEN_CB:
		give_floor(skops, 0);
		break;
	case BPF_SOCK_OPS_TCP_CONNECT_CB:
		give_floor(skops, 1);
		break;
	case BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB:
	case BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB:
		give_floor(skops, 1);
		bpf_sock_ops_cb_flags_set(skops, skops->bpf_sock_ops_cb_flags |
					  BPF_SOCK_OPS_RTO_CB_FLAG | BPF_SOCK_OPS_RETRANS_CB_FLAG);
		break;
	case BPF_SOCK_OPS_RTO_CB:
		count(COUNT_RTO, 1);
		break;
	case BPF_SOCK_OPS_RETRANS_CB:
		/* args[1]: segments in the skb; args[2]: 0 if it was sent. */
		if (skops->args[2] == 0)
			count(COUNT_RETRANS, skops->args[1]);
		break;
	}
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
