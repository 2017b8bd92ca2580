/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_config.c - the transports, and the site's plugstack.conf arguments.
 */
#include "ibnet_config.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char *const transport_names[IBNET_TRANSPORT_COUNT] = {
	[IBNET_NONE] = "none",
	[IBNET_TCP] = "tcp",
	[IBNET_IPOIB] = "ipoib",
	[IBNET_RSOCKET] = "rsocket",
};

const char *ibnet_transport_name(enum ibnet_transport t)
{
	return t < IBNET_TRANSPORT_COUNT ? transport_names[t] : "?";
}

int ibnet_transport_parse(const char *value, const char *source,
			  enum ibnet_transport *out, struct ibnet_err *err)
{
	int t;

	for (t = 0; t < IBNET_TRANSPORT_COUNT; t++) {
		if (value && strcmp(value, transport_names[t]) == 0) {
			*out = (enum ibnet_transport)t;
			return 0;
		}
	}
	ibnet_err_set(err, IBNET_PREFIX "invalid %s %s (expected " IBNET_TRANSPORTS_EXPECTED ")",
		      source, ibnet_quote(value));
	return -1;
}

int ibnet_transport_check_allowed(const struct ibnet_config *cfg,
				  enum ibnet_transport t, const char *source,
				  struct ibnet_err *err)
{
	struct ibnet_strvec names = { 0 };
	char *list;
	int i;

	if (t == IBNET_NONE || cfg->allowed[t])
		return 0;
	for (i = 0; i < IBNET_TRANSPORT_COUNT; i++)
		if (i != IBNET_NONE && cfg->allowed[i])
			ibnet_strvec_push(&names, transport_names[i]);
	list = ibnet_strvec_join(&names, ", ");
	ibnet_err_set(err, IBNET_PREFIX "%s=%s is not allowed on this cluster (allowed: %s)",
		      source, transport_names[t], list ? list : "?");
	free(list);
	ibnet_strvec_free(&names);
	return -1;
}

/*
 * One interface name, or a shell pattern of names (eno*, ens[0-9]f0), as
 * the kernel allows names: IFNAMSIZ - 1 characters.
 */
static bool iface_item_valid(const char *s, size_t n)
{
	return n >= 1 && n <= 15 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
					   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-*?[]") >= n;
}

/* eth_iface, ib_iface: a comma list of names or patterns, first present wins. */
static bool iface_valid(const char *s)
{
	size_t n = strlen(s), items = 0;

	if (n == 0 || n > 256)
		return false;
	while (*s) {
		size_t len = strcspn(s, ",");

		if (!iface_item_valid(s, len) || ++items > 16)
			return false;
		s += len;
		if (*s && !*++s)
			return false;	/* a trailing comma */
	}
	return true;
}

/* rdma_device: an HCA name with an optional port, e.g. mlx5_0:1. */
static bool device_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 64 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
					   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-,") == n;
}

/*
 * rsocket_programs: shell (fnmatch) patterns of program names,
 * comma-separated: *, ? and bracket expressions ([23], [!a-z]). No spaces,
 * quotes, $ or /: a program name has none, and the value travels in the
 * job's environment.
 */
static bool programs_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 1024 && strspn(s, "abcdefghijklmnopqrstuvwxyz"
					     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-+*?,[]!^") == n;
}

static int set_path(char **slot, const char *key, const char *value,
		    struct ibnet_err *err)
{
	/* ':' and spaces separate LD_PRELOAD entries, so a path cannot hold them. */
	if (value[0] != '/' || strpbrk(value, " \t\n:;'\"`$\\")) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s=%s: expected an absolute path "
			      "without spaces, ':' or shell characters", key, ibnet_quote(value));
		return -1;
	}
	free(*slot);
	*slot = strdup(value);
	return *slot ? 0 : -1;
}

static int set_checked(char **slot, const char *key, const char *value,
		       bool (*valid)(const char *), const char *expected,
		       struct ibnet_err *err)
{
	if (!valid(value)) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s=%s: expected %s",
			      key, ibnet_quote(value), expected);
		return -1;
	}
	free(*slot);
	*slot = strdup(value);
	return *slot ? 0 : -1;
}

/*
 * A comma list of transports (allowed=, tcp_rto_min_transports=) into
 * set[]; *count is how many were named. The source names the key in errors.
 */
static int parse_transport_set(const char *value, const char *source,
			       bool set[IBNET_TRANSPORT_COUNT], size_t *count,
			       struct ibnet_err *err)
{
	struct ibnet_strvec names = { 0 };
	size_t i;
	int rc = 0;

	if (ibnet_strvec_split(&names, value, ",") < 0)
		return -1;
	memset(set, 0, sizeof(bool) * IBNET_TRANSPORT_COUNT);
	for (i = 0; i < names.n && rc == 0; i++) {
		enum ibnet_transport t;

		rc = ibnet_transport_parse(names.v[i], source, &t, err);
		if (rc == 0)
			set[t] = true;
	}
	*count = names.n;
	ibnet_strvec_free(&names);
	return rc;
}

static int set_allowed(struct ibnet_config *cfg, const char *value,
		       struct ibnet_err *err)
{
	size_t n = 0;

	if (parse_transport_set(value, "transport in plugstack.conf allowed=", cfg->allowed, &n,
				err) < 0)
		return -1;
	if (n == 0) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: allowed= is empty "
			      "(expected a comma list of " IBNET_TRANSPORTS_EXPECTED ")");
		return -1;
	}
	return 0;
}

/*
 * alltoall_threshold=SIZE (every transport) or TRANSPORT:SIZE,... (those
 * listed; the others keep their defaults). "none" takes tcp's unless it is
 * listed itself, wherever it is in the list; a transport listed twice is an
 * error, like a key given twice.
 */
static int set_thresholds(struct ibnet_config *cfg, const char *value, struct ibnet_err *err)
{
	struct ibnet_strvec items = { 0 };
	struct ibnet_a2a_settings one;
	bool given[IBNET_TRANSPORT_COUNT] = { false };
	char msg[256];
	size_t i;
	int t, rc = 0;

	if (!strchr(value, ':')) {
		if (ibnet_a2a_setting_set(&one, IBNET_A2A_THRESHOLD, value, "plugstack.conf: alltoall_threshold",
					  msg, sizeof(msg)) < 0) {
			ibnet_err_set(err, IBNET_PREFIX "%s", msg);
			return -1;
		}
		for (t = 0; t < IBNET_TRANSPORT_COUNT; t++)
			cfg->a2a_threshold[t] = one.threshold;
		return 0;
	}
	if (ibnet_strvec_split(&items, value, ",") < 0)
		return -1;
	for (i = 0; i < items.n && rc == 0; i++) {
		char *colon = strchr(items.v[i], ':');
		enum ibnet_transport tr;

		if (!colon) {
			ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: alltoall_threshold=%s: expected "
				      "a size, or transport:size,... such as tcp:16k,ipoib:128k",
				      ibnet_quote(value));
			rc = -1;
			break;
		}
		*colon = '\0';
		rc = ibnet_transport_parse(items.v[i], "transport in plugstack.conf alltoall_threshold=",
					   &tr, err);
		if (rc == 0 && ibnet_a2a_setting_set(&one, IBNET_A2A_THRESHOLD, colon + 1,
						     "plugstack.conf: alltoall_threshold", msg,
						     sizeof(msg)) < 0) {
			ibnet_err_set(err, IBNET_PREFIX "%s", msg);
			rc = -1;
		}
		if (rc == 0 && given[tr]) {
			ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: alltoall_threshold=%s: %s is "
				      "given twice", ibnet_quote(value), ibnet_transport_name(tr));
			rc = -1;
		}
		if (rc == 0) {
			cfg->a2a_threshold[tr] = one.threshold;
			given[tr] = true;
		}
	}
	if (rc == 0 && given[IBNET_TCP] && !given[IBNET_NONE])
		cfg->a2a_threshold[IBNET_NONE] = cfg->a2a_threshold[IBNET_TCP];
	ibnet_strvec_free(&items);
	return rc;
}

/* tcp_rto_min_transports=tcp,ipoib: steps on these get the floor unasked. */
static int set_rto_transports(struct ibnet_config *cfg, const char *value, struct ibnet_err *err)
{
	size_t n = 0;

	if (parse_transport_set(value, "transport in plugstack.conf tcp_rto_min_transports=",
				cfg->tcp_rto_min_default, &n, err) < 0)
		return -1;
	if (cfg->tcp_rto_min_default[IBNET_NONE]) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: tcp_rto_min_transports=%s: "
			      "'none' is the step that asks for nothing, and it stays untouched "
			      "(expected tcp, ipoib or rsocket)", ibnet_quote(value));
		return -1;
	}
	return 0;
}

/* The keys, in the order the admin guide documents them. */
static const char *const known_keys[] = {
	"default_transport", "allowed", "ib_hostname", "eth_iface", "ib_iface",
	"rspreload", "rsgate", "rsocket_programs", "rdma_device", "alltoall_lib",
	"alltoall_window", "alltoall_credits", "alltoall_aggregate", "alltoall_threshold",
	"tcp_rto_min",
	"tcp_rto_min_transports", NULL
};

static int apply_key(struct ibnet_config *cfg, const char *key, const char *value,
		     struct ibnet_err *err)
{
	int a2a_key;

	if (strcmp(key, "default_transport") == 0)
		return ibnet_transport_parse(value, "plugstack.conf default_transport",
					     &cfg->default_transport, err);
	if (strcmp(key, "allowed") == 0)
		return set_allowed(cfg, value, err);
	if (strcmp(key, "ib_hostname") == 0) {
		struct ibnet_rule *rule = ibnet_rule_parse(value, err);

		if (!rule)
			return -1;
		ibnet_rule_free(cfg->ib_rule);
		cfg->ib_rule = rule;
		return 0;
	}
	if (strcmp(key, "eth_iface") == 0 || strcmp(key, "ib_iface") == 0)
		return set_checked(key[0] == 'e' ? &cfg->eth_iface : &cfg->ib_iface, key,
				   value, iface_valid, "a comma list of up to 16 network interface "
				   "names or patterns, such as eno1,ens*f0", err);
	if (strcmp(key, "rspreload") == 0)
		return set_path(&cfg->rspreload, key, value, err);
	if (strcmp(key, "rsgate") == 0)
		return set_path(&cfg->rsgate, key, value, err);
	if (strcmp(key, "rsocket_programs") == 0)
		return set_checked(&cfg->rsocket_programs, key, value, programs_valid,
				   "a comma list of program name patterns such as *.exel,iperf3", err);
	if (strcmp(key, "rdma_device") == 0)
		return set_checked(&cfg->rdma_device, key, value, device_valid,
				   "an RDMA device such as mlx5_0:1", err);
	if (strcmp(key, "alltoall_lib") == 0) {
		if (strcmp(value, "none") == 0) {
			free(cfg->alltoall_lib);
			cfg->alltoall_lib = NULL;
			return 0;
		}
		return set_path(&cfg->alltoall_lib, key, value, err);
	}
	if (strcmp(key, "alltoall_threshold") == 0)
		return set_thresholds(cfg, value, err);
	if (strcmp(key, "tcp_rto_min") == 0) {
		char msg[256];

		if (ibnet_rto_parse(value, "plugstack.conf: tcp_rto_min", &cfg->tcp_rto_min_us, msg,
				    sizeof(msg)) == 0)
			return 0;
		ibnet_err_set(err, IBNET_PREFIX "%s", msg);
		return -1;
	}
	if (strcmp(key, "tcp_rto_min_transports") == 0)
		return set_rto_transports(cfg, value, err);
	if ((a2a_key = ibnet_a2a_key_by_config(key)) >= 0) {
		char msg[256], source[64];

		snprintf(source, sizeof(source), "plugstack.conf: %s", key);
		if (ibnet_a2a_setting_set(&cfg->a2a, (enum ibnet_a2a_key)a2a_key, value, source, msg,
					  sizeof(msg)) == 0)
			return 0;
		ibnet_err_set(err, IBNET_PREFIX "%s", msg);
		return -1;
	}
	{
		struct ibnet_strvec keys = { .v = (char **)known_keys,
					     .n = sizeof(known_keys) / sizeof(known_keys[0]) - 1 };
		char *list = ibnet_strvec_join(&keys, ", ");

		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: unknown key %s (value %s); "
			      "known keys: %s", ibnet_quote(key), ibnet_quote(value),
			      list ? list : "?");
		free(list);
	}
	return -1;
}

int ibnet_config_override(struct ibnet_config *cfg, const char *key, const char *value,
			  struct ibnet_err *err)
{
	return apply_key(cfg, key, value, err);
}

static int key_index(const char *key)
{
	int i;

	for (i = 0; known_keys[i]; i++)
		if (strcmp(known_keys[i], key) == 0)
			return i;
	return -1;
}

int ibnet_config_parse(struct ibnet_config *cfg, int argc, char **argv,
		       struct ibnet_err *err)
{
	bool seen[sizeof(known_keys) / sizeof(known_keys[0])] = { false };
	int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->default_transport = IBNET_NONE;
	for (i = 0; i < IBNET_TRANSPORT_COUNT; i++)
		cfg->allowed[i] = true;
	cfg->eth_iface = strdup("eth0");
	cfg->ib_iface = strdup("ib0");
	cfg->rsocket_programs = strdup(IBNET_RSOCKET_PROGRAMS_DEFAULT);
	cfg->rsgate = strdup(IBNET_RSGATE_DEFAULT);
	cfg->alltoall_lib = strdup(IBNET_A2A_DEFAULT);
	ibnet_a2a_settings_default(&cfg->a2a);
	cfg->tcp_rto_min_us = IBNET_RTO_MIN_DEFAULT_US;
	for (i = 0; i < IBNET_TRANSPORT_COUNT; i++)
		cfg->a2a_threshold[i] = i == IBNET_IPOIB || i == IBNET_RSOCKET ?
			IBNET_A2A_THRESHOLD_IB_DEFAULT : IBNET_A2A_THRESHOLD_DEFAULT;
	if (!cfg->eth_iface || !cfg->ib_iface || !cfg->rsocket_programs || !cfg->rsgate ||
	    !cfg->alltoall_lib)
		goto nomem;

	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		char *key;
		int k, rc;

		if (!eq || eq == argv[i]) {
			ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: argument %s is not key=value",
				      ibnet_quote(argv[i]));
			goto fail;
		}
		key = strndup(argv[i], (size_t)(eq - argv[i]));
		if (!key)
			goto nomem;
		k = key_index(key);
		if (k >= 0 && seen[k]) {
			ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s is given twice", key);
			free(key);
			goto fail;
		}
		if (k >= 0)
			seen[k] = true;
		rc = apply_key(cfg, key, eq + 1, err);
		free(key);
		if (rc < 0)
			goto fail;
	}
	if (!cfg->ib_rule && !(cfg->ib_rule = ibnet_rule_parse(IBNET_RULE_DEFAULT, err)))
		goto fail;
	if (cfg->default_transport != IBNET_NONE && !cfg->allowed[cfg->default_transport]) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: default_transport=%s is not in allowed=",
			      ibnet_transport_name(cfg->default_transport));
		goto fail;
	}
	for (i = 0; i < IBNET_TRANSPORT_COUNT; i++)
		if (cfg->tcp_rto_min_default[i] && !cfg->tcp_rto_min_us) {
			ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: tcp_rto_min_transports= names "
				      "%s, but tcp_rto_min=off", ibnet_transport_name((enum ibnet_transport)i));
			goto fail;
		}
	return 0;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory reading plugstack.conf arguments");
fail:
	ibnet_config_free(cfg);
	return -1;
}

int ibnet_config_default_transport(int argc, char **argv, enum ibnet_transport *t)
{
	static const char key[] = "default_transport=";
	int i;

	*t = IBNET_NONE;
	for (i = 0; i < argc; i++)
		if (strncmp(argv[i], key, sizeof(key) - 1) == 0 &&
		    ibnet_transport_parse(argv[i] + sizeof(key) - 1, key, t, NULL) < 0)
			return -1;
	return 0;
}

void ibnet_config_free(struct ibnet_config *cfg)
{
	free(cfg->rspreload);
	free(cfg->rsgate);
	ibnet_rule_free(cfg->ib_rule);
	free(cfg->eth_iface);
	free(cfg->ib_iface);
	free(cfg->rsocket_programs);
	free(cfg->rdma_device);
	free(cfg->alltoall_lib);
	memset(cfg, 0, sizeof(*cfg));
}
