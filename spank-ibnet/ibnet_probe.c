/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_probe.c - what this node has: librspreload, our gate, the job preload
 * and its per-MPI builds, interfaces.
 */
#include "ibnet_probe.h"
#include "ibnet_floor_tier.h"
#include "ibnet_iface_route.h"
#include "ibnet_job.h"
#include "rspreload_calls.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <link.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const rspreload_search[] = { IBNET_RSPRELOAD_SEARCH, NULL };

/*
 * Can every job's user load this library? The probe runs as root, for whom
 * access() says yes to a file no user can read; the loader, in the user's
 * process, would then skip it. So: a plain file, readable by others.
 */
static bool readable_by_users(const char *path)
{
	return ibnet_probe_file_problem(path) == NULL;
}

const char *ibnet_probe_file_problem(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return "not on this node";
	if (!S_ISREG(st.st_mode))
		return "not a plain file";
	if (!(st.st_mode & S_IROTH))
		return "not readable by every user";
	return NULL;
}

/* The librspreload found must also be one the gate covers (see below). */
const char *ibnet_probe_rspreload(const struct ibnet_config *cfg, struct ibnet_err *err)
{
	int i;

	if (cfg->rspreload) {
		if (readable_by_users(cfg->rspreload))
			return ibnet_probe_rspreload_calls(cfg->rspreload, err) == 0 ? cfg->rspreload : NULL;
		ibnet_err_set(err, IBNET_PREFIX "--transport=rsocket: librspreload not found at %s, "
			      "or not a file every user can read (plugstack.conf rspreload=)",
			      cfg->rspreload);
		return NULL;
	}
	for (i = 0; rspreload_search[i]; i++)
		if (readable_by_users(rspreload_search[i]))
			return ibnet_probe_rspreload_calls(rspreload_search[i], err) == 0 ?
			       rspreload_search[i] : NULL;
	ibnet_err_set(err, IBNET_PREFIX "--transport=rsocket: librspreload not found on this node "
		      "(install rdma-core's librdmacm, or set rspreload= in plugstack.conf)");
	return NULL;
}

const char *ibnet_probe_rsgate(const struct ibnet_config *cfg, struct ibnet_err *err)
{
	if (readable_by_users(cfg->rsgate))
		return cfg->rsgate;
	ibnet_err_set(err, IBNET_PREFIX "--transport=rsocket: the rsocket gate library is missing "
		      "at %s, or not a file every user can read (reinstall spank-ibnet, or set "
		      "rsgate= in plugstack.conf)", cfg->rsgate);
	return NULL;
}

/*
 * Two ioctls: is iface up, with an IPv4 address? (getifaddrs costs 10
 * times more.) A down interface keeps its address, so both are asked.
 */
static int iface_has_ipv4(const char *iface)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ok;

	if (s < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, iface, IFNAMSIZ - 1);
	ok = ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP) &&
	     ioctl(s, SIOCGIFADDR, &ifr) == 0;
	close(s);
	return ok;
}

/* Does the interface named exactly `name` have an IPv4 or IPv6 address, and is it up? */
static int iface_has_address(const char *name, struct ifaddrs *all)
{
	struct ifaddrs *p;

	if (iface_has_ipv4(name))
		return 1;
	for (p = all; p; p = p->ifa_next)	/* an IPv6-only interface */
		if (p->ifa_addr && p->ifa_name && strcmp(p->ifa_name, name) == 0 &&
		    p->ifa_addr->sa_family == AF_INET6 && (p->ifa_flags & IFF_UP))
			return 1;
	return 0;
}

/* The alphabetically first interface, up and with an address, matching `pattern`. */
static const char *iface_match(const char *pattern, struct ifaddrs *all)
{
	const char *best = NULL;
	struct ifaddrs *p;

	for (p = all; p; p = p->ifa_next) {
		if (!p->ifa_addr || !p->ifa_name || !(p->ifa_flags & IFF_UP) ||
		    (p->ifa_addr->sa_family != AF_INET && p->ifa_addr->sa_family != AF_INET6))
			continue;
		if (fnmatch(pattern, p->ifa_name, 0) == 0 && (!best || strcmp(p->ifa_name, best) < 0))
			best = p->ifa_name;
	}
	return best;
}

bool ibnet_probe_lists_route(const char *list)
{
	size_t n = strlen(IBNET_IFACE_ROUTE);
	const char *p;

	for (p = list; (p = strstr(p, IBNET_IFACE_ROUTE)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

int ibnet_probe_iface(const char *list, const char *why, char found[IBNET_IFNAME_MAX],
		      struct ibnet_err *err)
{
	struct ibnet_strvec items = { 0 };
	struct ifaddrs *all = NULL;
	const char *hit = NULL;
	size_t i;

	if (ibnet_strvec_split(&items, list, ",") < 0) {
		ibnet_err_set(err, IBNET_PREFIX "out of memory");
		return -1;
	}
	/* Two ioctls answer the common case, a plain name, up, with IPv4. */
	if (items.n && !strpbrk(items.v[0], "*?[") && iface_has_ipv4(items.v[0]))
		hit = items.v[0];
	if (!hit && getifaddrs(&all) < 0) {
		ibnet_err_set(err, IBNET_PREFIX "cannot list network interfaces");
		ibnet_strvec_free(&items);
		return -1;
	}
	for (i = 0; !hit && i < items.n; i++) {
		if (strcmp(items.v[i], IBNET_IFACE_ROUTE) == 0)
			continue;	/* the caller's (choose_iface) */
		if (strpbrk(items.v[i], "*?["))
			hit = iface_match(items.v[i], all);
		else if (iface_has_address(items.v[i], all))
			hit = items.v[i];
	}
	if (hit)
		snprintf(found, IBNET_IFNAME_MAX, "%s", hit);
	else if (items.n == 1 && !strpbrk(list, "*?["))
		ibnet_err_set(err, IBNET_PREFIX "%s needs network interface %s, which is down or has "
			      "no address on this node", why, list);
	else
		ibnet_err_set(err, IBNET_PREFIX "%s needs one of the network interfaces %s, and none "
			      "of them is up with an address on this node", why, list);
	if (all)
		freeifaddrs(all);
	ibnet_strvec_free(&items);
	return hit ? 0 : -1;
}

const char *ibnet_probe_alltoall(const struct ibnet_config *cfg)
{
	return cfg->alltoall_lib && readable_by_users(cfg->alltoall_lib) ? cfg->alltoall_lib : NULL;
}

/*
 * Whether iface is a veth (ethtool's driver name): the end of a pair a
 * container or a network namespace gets, whose speed the kernel gives as a
 * fixed 10000 Mb/s whatever carries it.
 */
static bool iface_is_veth(const char *iface)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool veth;

	if (fd < 0)
		return false;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	ifr.ifr_data = (void *)&info;
	veth = ioctl(fd, SIOCETHTOOL, &ifr) == 0 && strcmp(info.driver, "veth") == 0;
	close(fd);
	return veth;
}

unsigned long ibnet_probe_link_mbit(const char *iface)
{
	char path[64], text[32];
	unsigned long mbit;
	FILE *f;

	if (!iface || !*iface || strchr(iface, '/') ||
	    snprintf(path, sizeof(path), "/sys/class/net/%s/speed", iface) >= (int)sizeof(path) ||
	    !(f = fopen(path, "r")))
		return 0;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	text[strcspn(text, "\n")] = '\0';
	if (ibnet_a2a_link_mbit_parse(text, &mbit) < 0)
		return 0;
	/* A veth's 10000 is no link's rate (a container's eth0 says it on a
	 * 1 GbE host); any other figure there was put by someone who knew
	 * (the test cluster says its simulated ports' rates so). */
	if (mbit == IBNET_VETH_MBIT && iface_is_veth(iface))
		return 0;
	return mbit;
}

/*
 * A paced step's link: the transport's interface, or without a transport
 * the first of eth_iface on this node (the network an MPI uses when it is
 * told nothing). Not found or not said: unknown, and the window goes by loss.
 */
static void probe_link(const struct ibnet_config *cfg, struct ibnet_job *job)
{
	struct ibnet_err quiet = { 0 };

	job->link_mbit = 0;
	job->link_iface[0] = '\0';
	if (job->iface)
		snprintf(job->link_iface, sizeof(job->link_iface), "%s", job->iface);
	else if (ibnet_probe_iface(cfg->eth_iface, "the paced all-to-all's link", job->link_iface,
				   &quiet) < 0)
		job->link_iface[0] = '\0';
	job->link_mbit = ibnet_probe_link_mbit(job->link_iface);
}

/*
 * The dispatcher loads the build for the job's MPI from its own directory;
 * where that build is missing, every rank of that MPI hands its calls to
 * the MPI's own (they agree on it), so the step still runs: the log says it.
 */
void ibnet_probe_paced_builds(const char *alltoall_path, bool have[IBNET_A2A_ABI_COUNT])
{
	const char *slash = strrchr(alltoall_path, '/');
	int dir = slash ? (int)(slash - alltoall_path) : 1;
	char path[4096];
	int abi;

	for (abi = 0; abi < IBNET_A2A_ABI_COUNT; abi++) {
		const char *file = ibnet_a2a_builds[abi].file;

		have[abi] = file && snprintf(path, sizeof(path), "%.*s/%s", dir,
					     slash ? alltoall_path : ".", file) < (int)sizeof(path) &&
			    readable_by_users(path);
	}
}

char *ibnet_probe_paced_builds_describe(const bool have[IBNET_A2A_ABI_COUNT], char *buf,
					size_t len)
{
	char present[64] = "", missing[256] = "";	/* a few short names: fixed bounds */
	size_t np = 0, nm = 0;
	int abi;

	for (abi = 0; abi < IBNET_A2A_ABI_COUNT; abi++) {
		const struct ibnet_a2a_build *b = &ibnet_a2a_builds[abi];

		if (!b->file)
			continue;
		if (have[abi] && np < sizeof(present))
			np += (size_t)snprintf(present + np, sizeof(present) - np, "%s%s",
					       np ? ", " : "", b->abi);
		else if (!have[abi] && nm < sizeof(missing))
			nm += (size_t)snprintf(missing + nm, sizeof(missing) - nm, "%s%s missing: "
					       "%s here get their MPI's own all-to-all",
					       nm ? "; " : "", b->file, b->jobs);
	}
	if (!np)
		snprintf(buf, len, "no paced build on this node: every all-to-all goes to the "
			 "MPI's own");
	else if (!nm)
		snprintf(buf, len, "paced builds: %s", present);
	else
		snprintf(buf, len, "paced builds: %s (%s)", present, missing);
	return buf;
}

/*
 * The step's interface: the first of the site's list this node has; where
 * that fails and the list is the default (eth0, ib0) or names "route", the
 * interface of this node's route to the job's other nodes (their IB names
 * for ipoib and rsocket, and only an interface whose own network holds
 * them). job->iface_how says how, for the log line.
 */
static int choose_iface(const struct ibnet_config *cfg, struct ibnet_job *job, const char *why,
			struct ibnet_err *err)
{
	bool ib = ibnet_transport_needs_ib(job->transport);
	const char *ifaces = ib ? cfg->ib_iface : cfg->eth_iface;
	bool given = ib ? cfg->ib_iface_given : cfg->eth_iface_given;
	struct ibnet_route_ask ask = { .nodelist = job->nodelist, .max_hosts = job->max_hosts,
				       .node_name = job->node_name, .rule = ib ? cfg->ib_rule : NULL,
				       .on_link = ib };
	char route_why[512];

	job->iface_how[0] = '\0';
	if (ibnet_probe_iface(ifaces, why, job->iface_found, err) == 0) {
		job->iface = job->iface_found;
		return 0;
	}
	if (given && !ibnet_probe_lists_route(ifaces))
		return -1;
	if (ibnet_iface_route(&ask, job->iface_found, job->iface_how, sizeof(job->iface_how),
			      route_why, sizeof(route_why)) == 0) {
		job->iface = job->iface_found;
		return 0;
	}
	ibnet_err_append(err, ", nor one by route: %s", route_why);
	return -1;
}

int ibnet_probe_job(const struct ibnet_config *cfg, struct ibnet_job *job, struct ibnet_err *err)
{
	char why[64];
	bool paced = job->alltoall == IBNET_ALLTOALL_PACED;

	/*
	 * The job preload (paced all-to-all, the floor's socket-option tier), if
	 * installed here; else the planner notes the fallback. The floor's tier
	 * is the caller's choice if it made one (the plugin, which could start
	 * the BPF tier as root), else checked here; without any, the step runs,
	 * and its log line says why.
	 */
	job->alltoall_path = NULL;
	job->tcp_rto_tier = IBNET_FLOOR_NONE;
	job->tcp_rto_floor_us = 0;
	job->tcp_rto_why_not[0] = '\0';
	memset(job->paced_build, 0, sizeof(job->paced_build));
	if (paced || job->tcp_rto_min_us)
		job->alltoall_path = ibnet_probe_alltoall(cfg);
	if (paced && job->alltoall_path)
		ibnet_probe_paced_builds(job->alltoall_path, job->paced_build);
	if (job->tcp_rto_min_us) {
		struct ibnet_floor_choice checked;
		const struct ibnet_floor_choice *c = job->floor_chosen;

		if (!c) {
			ibnet_floor_choose(job->tcp_rto_min_us, cfg->alltoall_lib != NULL,
					   cfg->tcp_rto_bpf, NULL, NULL, &checked, NULL, 0);
			c = &checked;
		}
		job->tcp_rto_tier = c->tier;
		job->tcp_rto_floor_us = c->floor_us;
		snprintf(job->tcp_rto_why_not, sizeof(job->tcp_rto_why_not), "%s", c->why_not);
		/* The socket option is set by the preload: the site's missing here,
		 * no floor, and the log line names the file. */
		if (c->tier == IBNET_FLOOR_SOCKOPT && !job->alltoall_path) {
			job->tcp_rto_tier = IBNET_FLOOR_NONE;
			job->tcp_rto_floor_us = 0;
			snprintf(job->tcp_rto_why_not, sizeof(job->tcp_rto_why_not), "its preload %s "
				 "is not on this node, or not readable by every user",
				 cfg->alltoall_lib ? cfg->alltoall_lib : "(alltoall_lib=none)");
		}
	}
	if (job->transport == IBNET_NONE) {
		if (paced)
			probe_link(cfg, job);
		return 0;
	}
	snprintf(why, sizeof(why), "--transport=%s", ibnet_transport_name(job->transport));
	if (!job->iface && choose_iface(cfg, job, why, err) < 0)
		return -1;
	if (paced)
		probe_link(cfg, job);
	if (job->transport != IBNET_RSOCKET)
		return 0;
	job->rspreload_path = ibnet_probe_rspreload(cfg, err);
	job->rsgate_path = job->rspreload_path ? ibnet_probe_rsgate(cfg, err) : NULL;
	return job->rsgate_path ? 0 : -1;
}

static const char *const gate_calls[] = { RSPRELOAD_CALL_NAMES, NULL };

static bool gate_knows(const char *name)
{
	int i;

	for (i = 0; gate_calls[i]; i++)
		if (strcmp(gate_calls[i], name) == 0)
			return true;
	/* The linker's, not calls a program makes. */
	return strcmp(name, "_init") == 0 || strcmp(name, "_fini") == 0;
}

/* Defined, exported symbols of an ELF shared object of this machine's class. */
static int elf_exports(const unsigned char *img, size_t size, struct ibnet_strvec *out)
{
	const ElfW(Ehdr) *eh = (const void *)img;
	const ElfW(Shdr) *sh;
	size_t i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(ElfW(Shdr)) < eh->e_shnum)
		return -1;
	sh = (const void *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const ElfW(Shdr) *sym = &sh[i], *str;
		const ElfW(Sym) *s;
		size_t j, n;

		if (sym->sh_type != SHT_DYNSYM)
			continue;
		if (sym->sh_link >= eh->e_shnum || sym->sh_entsize != sizeof(ElfW(Sym)) ||
		    sym->sh_offset > size || size - sym->sh_offset < sym->sh_size)
			return -1;
		str = &sh[sym->sh_link];
		if (str->sh_offset > size || size - str->sh_offset < str->sh_size || !str->sh_size ||
		    img[str->sh_offset + str->sh_size - 1] != '\0')
			return -1;
		s = (const void *)(img + sym->sh_offset);
		n = sym->sh_size / sizeof(*s);
		for (j = 1; j < n; j++) {
			unsigned bind = ELF64_ST_BIND(s[j].st_info);

			if (s[j].st_shndx == SHN_UNDEF || s[j].st_name >= str->sh_size ||
			    (bind != STB_GLOBAL && bind != STB_WEAK) ||
			    ELF64_ST_VISIBILITY(s[j].st_other) != STV_DEFAULT)
				continue;
			if (ibnet_strvec_push(out, (const char *)img + str->sh_offset + s[j].st_name) < 0)
				return -1;
		}
		return 0;
	}
	return -1;	/* no dynamic symbol table: not a shared library */
}

int ibnet_probe_rspreload_calls(const char *path, struct ibnet_err *err)
{
	struct ibnet_strvec exports = { 0 }, unknown = { 0 };
	struct stat st;
	void *img = MAP_FAILED;
	char *list = NULL;
	size_t i;
	int fd, rc = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED ||
	    elf_exports(img, (size_t)st.st_size, &exports) < 0) {
		ibnet_err_set(err, IBNET_PREFIX "--transport=rsocket: cannot read the exported calls "
			      "of %s (not a shared library of this machine?)", path);
		goto out;
	}
	for (i = 0; i < exports.n; i++)
		if (!gate_knows(exports.v[i]) && ibnet_strvec_push(&unknown, exports.v[i]) < 0)
			goto out;
	if (unknown.n == 0) {
		rc = 0;
		goto out;
	}
	list = ibnet_strvec_join(&unknown, ", ");
	ibnet_err_set(err, IBNET_PREFIX "--transport=rsocket refused on this node: its librspreload "
		      "(%s) replaces %s, which this spank-ibnet's rsocket gate does not know, so "
		      "every program of the job would run librspreload's code there; update "
		      "spank-ibnet, or use --transport=ipoib", path, list ? list : "more calls");
out:
	if (img != MAP_FAILED)
		munmap(img, (size_t)st.st_size);
	if (fd >= 0)
		close(fd);
	free(list);
	ibnet_strvec_free(&exports);
	ibnet_strvec_free(&unknown);
	return rc;
}
