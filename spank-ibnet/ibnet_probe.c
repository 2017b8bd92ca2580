/*
 * ibnet_probe.c - what this node has: librspreload, our gate, interfaces.
 */
#include "ibnet_probe.h"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const rspreload_search[] = { IBNET_RSPRELOAD_SEARCH, NULL };

const char *ibnet_probe_rspreload(const struct ibnet_config *cfg, struct ibnet_err *err)
{
	int i;

	if (cfg->rspreload) {
		if (access(cfg->rspreload, R_OK) == 0)
			return cfg->rspreload;
		ibnet_err_set(err, IBNET_PREFIX "--transport=rsocket: librspreload not found at %s "
			      "(plugstack.conf rspreload=)", cfg->rspreload);
		return NULL;
	}
	for (i = 0; rspreload_search[i]; i++)
		if (access(rspreload_search[i], R_OK) == 0)
			return rspreload_search[i];
	ibnet_err_set(err, IBNET_PREFIX "--transport=rsocket: librspreload not found on this node "
		      "(install rdma-core's librdmacm, or set rspreload= in plugstack.conf)");
	return NULL;
}

const char *ibnet_probe_rsgate(const struct ibnet_config *cfg, struct ibnet_err *err)
{
	if (access(cfg->rsgate, R_OK) == 0)
		return cfg->rsgate;
	ibnet_err_set(err, IBNET_PREFIX "--transport=rsocket: the rsocket gate library is missing "
		      "at %s (reinstall spank-ibnet, or set rsgate= in plugstack.conf)", cfg->rsgate);
	return NULL;
}

/* One ioctl: does iface have an IPv4 address? (getifaddrs costs 10 times more.) */
static int iface_has_ipv4(const char *iface)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ok;

	if (s < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, iface, IFNAMSIZ - 1);
	ok = ioctl(s, SIOCGIFADDR, &ifr) == 0;
	close(s);
	return ok;
}

int ibnet_probe_iface(const char *iface, const char *why, struct ibnet_err *err)
{
	struct ifaddrs *ifa, *p;
	int found = 0;

	if (iface_has_ipv4(iface))
		return 0;
	/* An IPv6-only interface: list every address. */
	if (getifaddrs(&ifa) < 0) {
		ibnet_err_set(err, IBNET_PREFIX "cannot list network interfaces");
		return -1;
	}
	for (p = ifa; p && !found; p = p->ifa_next)
		found = p->ifa_addr && p->ifa_name && strcmp(p->ifa_name, iface) == 0 &&
			(p->ifa_addr->sa_family == AF_INET || p->ifa_addr->sa_family == AF_INET6);
	freeifaddrs(ifa);
	if (found)
		return 0;
	ibnet_err_set(err, IBNET_PREFIX "%s needs network interface %s, which has no address "
		      "on this node", why, iface);
	return -1;
}
