/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_config.c - the transports, and the site's plugstack.conf arguments.
 */
#include "ibnet_config.h"

#include <stddef.h>
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

/* IPoIB and Rsockets run over the IB fabric; tcp is the Ethernet network. */
static const bool transport_needs_ib[IBNET_TRANSPORT_COUNT] = {
	[IBNET_IPOIB] = true,
	[IBNET_RSOCKET] = true,
};

bool ibnet_transport_needs_ib(enum ibnet_transport t)
{
	return t < IBNET_TRANSPORT_COUNT && transport_needs_ib[t];
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

/*
 * The keys, one record each (config_keys[] below), in the order the admin
 * guide documents them: the parser, the defaults, --check's lines
 * (ibnet_config_print), the free and the unknown-key sentence read that
 * table and nothing else, and tests/programs/doc_drift.py checks the docs
 * against it. Adding a key is one record plus the field it fills.
 */
struct config_key;

/* How one kind of value is read, given its default, printed and freed. */
struct key_kind {
	int (*set)(struct ibnet_config *cfg, const struct config_key *key, const char *value,
		   struct ibnet_err *err);
	/* The default, into a zeroed field; -1 only when out of memory. */
	int (*reset)(struct ibnet_config *cfg, const struct config_key *key);
	void (*print)(const struct ibnet_config *cfg, const struct config_key *key, FILE *fp);
	/* What the field owns; NULL: nothing. */
	void (*release)(struct ibnet_config *cfg, const struct config_key *key);
};

struct config_key {
	/* NULL for an all-to-all setting: its name is the all-to-all table's. */
	const char *name;
	const struct key_kind *kind;
	size_t field;			/* offsetof(struct ibnet_config, ...) */
	/* The default as an admin would write it (NULL: unset); the all-to-all
	 * settings and the floor take theirs from ibnet_a2a_settings.h. */
	const char *def;
	const char *unset;		/* how --check shows an unset value; NULL: (unset) */
	/* A string's check, and the end of the sentence for a bad value
	 * ("expected ..."); the other kinds say it in their own parsers. */
	bool (*valid)(const char *value);
	const char *expected;
	enum ibnet_a2a_key a2a;		/* the all-to-all's row, for its settings */
};

static const char *key_name(const struct config_key *key)
{
	return key->name ? key->name : ibnet_a2a_keys[key->a2a].config_key;
}

static void *field_of(struct ibnet_config *cfg, const struct config_key *key)
{
	return (char *)cfg + key->field;
}

static const void *field_in(const struct ibnet_config *cfg, const struct config_key *key)
{
	return (const char *)cfg + key->field;
}

/* A transport: default_transport. */
static int transport_set(struct ibnet_config *cfg, const struct config_key *key,
			 const char *value, struct ibnet_err *err)
{
	char source[64];

	snprintf(source, sizeof(source), "plugstack.conf %s", key_name(key));
	return ibnet_transport_parse(value, source, field_of(cfg, key), err);
}

static int transport_reset(struct ibnet_config *cfg, const struct config_key *key)
{
	return ibnet_transport_parse(key->def, key_name(key), field_of(cfg, key), NULL);
}

static void transport_print(const struct ibnet_config *cfg, const struct config_key *key,
			    FILE *fp)
{
	fputs(ibnet_transport_name(*(const enum ibnet_transport *)field_in(cfg, key)), fp);
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

static int transport_set_of(struct ibnet_config *cfg, const struct config_key *key,
			    const char *value, size_t *count, struct ibnet_err *err)
{
	char source[80];

	snprintf(source, sizeof(source), "transport in plugstack.conf %s=", key_name(key));
	return parse_transport_set(value, source, field_of(cfg, key), count, err);
}

/* The transports of set[], comma-separated; none only if with_none. */
static int print_transports(const bool *set, bool with_none, FILE *fp)
{
	int t, n = 0;

	for (t = 0; t < IBNET_TRANSPORT_COUNT; t++)
		if (set[t] && (with_none || t != IBNET_NONE))
			fprintf(fp, "%s%s", n++ ? "," : "", ibnet_transport_name((enum ibnet_transport)t));
	return n;
}

/* allowed=: none is always allowed, so never listed. */
static int allowed_set(struct ibnet_config *cfg, const struct config_key *key,
		       const char *value, struct ibnet_err *err)
{
	size_t n = 0;

	if (transport_set_of(cfg, key, value, &n, err) < 0)
		return -1;
	if (n == 0) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s= is empty "
			      "(expected a comma list of " IBNET_TRANSPORTS_EXPECTED ")", key_name(key));
		return -1;
	}
	return 0;
}

static int allowed_reset(struct ibnet_config *cfg, const struct config_key *key)
{
	size_t n;

	return parse_transport_set(key->def, key_name(key), field_of(cfg, key), &n, NULL);
}

static void allowed_print(const struct ibnet_config *cfg, const struct config_key *key, FILE *fp)
{
	print_transports(field_in(cfg, key), false, fp);
}

/* tcp_rto_min_transports=tcp,ipoib: steps on these get the floor unasked. */
static int floor_transports_set(struct ibnet_config *cfg, const struct config_key *key,
				const char *value, struct ibnet_err *err)
{
	size_t n = 0;

	if (transport_set_of(cfg, key, value, &n, err) < 0)
		return -1;
	if (((bool *)field_of(cfg, key))[IBNET_NONE]) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s=%s: "
			      "'none' is the step that asks for nothing, and it stays untouched "
			      "(expected tcp, ipoib or rsocket)", key_name(key), ibnet_quote(value));
		return -1;
	}
	return 0;
}

/* None by default: the zeroed field. */
static int nothing_reset(struct ibnet_config *cfg, const struct config_key *key)
{
	(void)cfg;
	(void)key;
	return 0;
}

static void floor_transports_print(const struct ibnet_config *cfg, const struct config_key *key,
				   FILE *fp)
{
	if (!print_transports(field_in(cfg, key), true, fp))
		fputs(key->unset, fp);
}

/* ib_hostname=: the rule, parsed once here (ibnet_rule.c). */
static int rule_set(struct ibnet_config *cfg, const struct config_key *key, const char *value,
		    struct ibnet_err *err)
{
	struct ibnet_rule **slot = field_of(cfg, key);
	struct ibnet_rule *rule = ibnet_rule_parse(value, err);

	if (!rule)
		return -1;
	ibnet_rule_free(*slot);
	*slot = rule;
	return 0;
}

static int rule_reset(struct ibnet_config *cfg, const struct config_key *key)
{
	struct ibnet_err ignored;

	return rule_set(cfg, key, key->def, &ignored);
}

static void rule_print(const struct ibnet_config *cfg, const struct config_key *key, FILE *fp)
{
	fputs(ibnet_rule_spec(*(struct ibnet_rule *const *)field_in(cfg, key)), fp);
}

static void rule_release(struct ibnet_config *cfg, const struct config_key *key)
{
	ibnet_rule_free(*(struct ibnet_rule **)field_of(cfg, key));
}

/* Strings: checked by the record's valid(), or as paths. */
static int string_store(struct ibnet_config *cfg, const struct config_key *key, const char *value)
{
	char **slot = field_of(cfg, key);
	char *copy = value ? strdup(value) : NULL;

	if (value && !copy)
		return -1;
	free(*slot);
	*slot = copy;
	return 0;
}

static int checked_set(struct ibnet_config *cfg, const struct config_key *key, const char *value,
		       struct ibnet_err *err)
{
	if (!key->valid(value)) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s=%s: expected %s",
			      key_name(key), ibnet_quote(value), key->expected);
		return -1;
	}
	return string_store(cfg, key, value);
}

static int path_set(struct ibnet_config *cfg, const struct config_key *key, const char *value,
		    struct ibnet_err *err)
{
	/* ':' and spaces separate LD_PRELOAD entries, so a path cannot hold them. */
	if (value[0] != '/' || strpbrk(value, " \t\n:;'\"`$\\")) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s=%s: expected an absolute path "
			      "without spaces, ':' or shell characters", key_name(key),
			      ibnet_quote(value));
		return -1;
	}
	return string_store(cfg, key, value);
}

/* alltoall_lib=none, tcp_rto_bpf=none: nothing of ours preloaded or loaded. */
static int path_or_none_set(struct ibnet_config *cfg, const struct config_key *key,
			    const char *value, struct ibnet_err *err)
{
	if (strcmp(value, "none") == 0)
		return string_store(cfg, key, NULL);
	return path_set(cfg, key, value, err);
}

/* The compiled-in default, taken as it is (the build chose it). */
static int string_reset(struct ibnet_config *cfg, const struct config_key *key)
{
	return string_store(cfg, key, key->def);
}

static void string_print(const struct ibnet_config *cfg, const struct config_key *key, FILE *fp)
{
	const char *value = *(char *const *)field_in(cfg, key);

	fputs(value ? value : key->unset ? key->unset : "(unset)", fp);
}

static void string_release(struct ibnet_config *cfg, const struct config_key *key)
{
	free(*(char **)field_of(cfg, key));
}

/* alltoall_window=, ...: the all-to-all's table checks them and holds their bounds. */
static int a2a_set(struct ibnet_config *cfg, const struct config_key *key, const char *value,
		   struct ibnet_err *err)
{
	char msg[256], source[64];

	snprintf(source, sizeof(source), "plugstack.conf: %s", key_name(key));
	if (ibnet_a2a_setting_set(&cfg->a2a, key->a2a, value, source, msg, sizeof(msg)) == 0)
		return 0;
	ibnet_err_set(err, IBNET_PREFIX "%s", msg);
	return -1;
}

/* Its defaults come together from its table: each of its keys sets them all alike. */
static int a2a_reset(struct ibnet_config *cfg, const struct config_key *key)
{
	(void)key;
	ibnet_a2a_settings_default(&cfg->a2a);
	return 0;
}

static void a2a_print(const struct ibnet_config *cfg, const struct config_key *key, FILE *fp)
{
	char text[32];

	ibnet_a2a_setting_text(&cfg->a2a, key->a2a, text, sizeof(text));
	fputs(text, fp);
}

/*
 * alltoall_threshold=SIZE (every transport) or TRANSPORT:SIZE,... (those
 * listed; the others keep their defaults). "none" takes tcp's unless it is
 * listed itself, wherever it is in the list; a transport listed twice is an
 * error, like a key given twice.
 */
static int thresholds_set(struct ibnet_config *cfg, const struct config_key *key,
			  const char *value, struct ibnet_err *err)
{
	unsigned long *threshold = field_of(cfg, key);
	struct ibnet_strvec items = { 0 };
	struct ibnet_a2a_settings one;
	bool given[IBNET_TRANSPORT_COUNT] = { false };
	char msg[256], source[64], tsource[80];
	size_t i;
	int t, rc = 0;

	snprintf(source, sizeof(source), "plugstack.conf: %s", key_name(key));
	if (!strchr(value, ':')) {
		if (ibnet_a2a_setting_set(&one, key->a2a, value, source, msg, sizeof(msg)) < 0) {
			ibnet_err_set(err, IBNET_PREFIX "%s", msg);
			return -1;
		}
		for (t = 0; t < IBNET_TRANSPORT_COUNT; t++)
			threshold[t] = one.threshold;
		return 0;
	}
	snprintf(tsource, sizeof(tsource), "transport in plugstack.conf %s=", key_name(key));
	if (ibnet_strvec_split(&items, value, ",") < 0)
		return -1;
	for (i = 0; i < items.n && rc == 0; i++) {
		char *colon = strchr(items.v[i], ':');
		enum ibnet_transport tr;

		if (!colon) {
			ibnet_err_set(err, IBNET_PREFIX "%s=%s: expected a size, or "
				      "transport:size,... such as tcp:16k,ipoib:128k", source,
				      ibnet_quote(value));
			rc = -1;
			break;
		}
		*colon = '\0';
		rc = ibnet_transport_parse(items.v[i], tsource, &tr, err);
		if (rc == 0 && ibnet_a2a_setting_set(&one, key->a2a, colon + 1, source, msg,
						     sizeof(msg)) < 0) {
			ibnet_err_set(err, IBNET_PREFIX "%s", msg);
			rc = -1;
		}
		if (rc == 0 && given[tr]) {
			ibnet_err_set(err, IBNET_PREFIX "%s=%s: %s is given twice", source,
				      ibnet_quote(value), ibnet_transport_name(tr));
			rc = -1;
		}
		if (rc == 0) {
			threshold[tr] = one.threshold;
			given[tr] = true;
		}
	}
	if (rc == 0 && given[IBNET_TCP] && !given[IBNET_NONE])
		threshold[IBNET_NONE] = threshold[IBNET_TCP];
	ibnet_strvec_free(&items);
	return rc;
}

/* InfiniBand's link layer does not drop: its transports pace from further up. */
static int thresholds_reset(struct ibnet_config *cfg, const struct config_key *key)
{
	unsigned long *threshold = field_of(cfg, key);
	int t;

	for (t = 0; t < IBNET_TRANSPORT_COUNT; t++)
		threshold[t] = t == IBNET_IPOIB || t == IBNET_RSOCKET ?
			IBNET_A2A_THRESHOLD_IB_DEFAULT : IBNET_A2A_THRESHOLD_DEFAULT;
	return 0;
}

static void thresholds_print(const struct ibnet_config *cfg, const struct config_key *key,
			     FILE *fp)
{
	static const enum ibnet_transport order[] = { IBNET_TCP, IBNET_IPOIB, IBNET_RSOCKET,
						      IBNET_NONE };
	const unsigned long *threshold = field_in(cfg, key);
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		fprintf(fp, "%s%s:%lu", i ? "," : "", ibnet_transport_name(order[i]),
			threshold[order[i]]);
}

/* tcp_rto_min=: parsed as a job's SLURM_IBNET_TCP_RTO_MIN is (ibnet_rto_parse). */
static int rto_set(struct ibnet_config *cfg, const struct config_key *key, const char *value,
		   struct ibnet_err *err)
{
	char msg[256], source[64];

	snprintf(source, sizeof(source), "plugstack.conf: %s", key_name(key));
	if (ibnet_rto_parse(value, source, field_of(cfg, key), msg, sizeof(msg)) == 0)
		return 0;
	ibnet_err_set(err, IBNET_PREFIX "%s", msg);
	return -1;
}

static int rto_reset(struct ibnet_config *cfg, const struct config_key *key)
{
	*(unsigned long *)field_of(cfg, key) = IBNET_RTO_MIN_DEFAULT_US;
	return 0;
}

static void rto_print(const struct ibnet_config *cfg, const struct config_key *key, FILE *fp)
{
	unsigned long us = *(const unsigned long *)field_in(cfg, key);

	if (us)
		fprintf(fp, "%luus", us);
	else
		fputs(key->unset, fp);
}

static const struct key_kind kind_transport = { transport_set, transport_reset,
						transport_print, NULL };
static const struct key_kind kind_allowed = { allowed_set, allowed_reset, allowed_print, NULL };
static const struct key_kind kind_floor_transports = { floor_transports_set, nothing_reset,
						       floor_transports_print, NULL };
static const struct key_kind kind_rule = { rule_set, rule_reset, rule_print, rule_release };
static const struct key_kind kind_checked = { checked_set, string_reset, string_print,
					      string_release };
static const struct key_kind kind_path = { path_set, string_reset, string_print,
					   string_release };
static const struct key_kind kind_path_or_none = { path_or_none_set, string_reset,
						   string_print, string_release };
static const struct key_kind kind_a2a = { a2a_set, a2a_reset, a2a_print, NULL };
static const struct key_kind kind_thresholds = { thresholds_set, thresholds_reset,
						 thresholds_print, NULL };
static const struct key_kind kind_rto = { rto_set, rto_reset, rto_print, NULL };

/* tcp_rto_min_least=: a floor, not off; 1ms (the bound) unless the site raises it. */
static int least_set(struct ibnet_config *cfg, const struct config_key *key, const char *value,
		     struct ibnet_err *err)
{
	if (rto_set(cfg, key, value, err) < 0)
		return -1;
	if (*(unsigned long *)field_of(cfg, key))
		return 0;
	ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s=off: the least floor a job may ask "
		      "for is a time (1ms to 200ms); tcp_rto_min=off switches the floor off",
		      key_name(key));
	return -1;
}

static int least_reset(struct ibnet_config *cfg, const struct config_key *key)
{
	*(unsigned long *)field_of(cfg, key) = IBNET_RTO_MIN_LOW_US;
	return 0;
}

static const struct key_kind kind_rto_least = { least_set, least_reset, rto_print, NULL };

#define FIELD(member) offsetof(struct ibnet_config, member)
#define A2A_KEY(row) { .kind = &kind_a2a, .field = FIELD(a2a), .a2a = (row) }

#define IFACES_EXPECTED "a comma list of up to 16 network interface names or patterns, " \
	"such as eno1,ens*f0"

static const struct config_key config_keys[] = {
	{ .name = "default_transport", .kind = &kind_transport, .field = FIELD(default_transport),
	  .def = "none" },
	/* none among them: always allowed, never listed */
	{ .name = "allowed", .kind = &kind_allowed, .field = FIELD(allowed),
	  .def = "none,tcp,ipoib,rsocket" },
	{ .name = "ib_hostname", .kind = &kind_rule, .field = FIELD(ib_rule),
	  .def = IBNET_RULE_DEFAULT },
	{ .name = "eth_iface", .kind = &kind_checked, .field = FIELD(eth_iface), .def = "eth0",
	  .valid = iface_valid, .expected = IFACES_EXPECTED },
	{ .name = "ib_iface", .kind = &kind_checked, .field = FIELD(ib_iface), .def = "ib0",
	  .valid = iface_valid, .expected = IFACES_EXPECTED },
	{ .name = "rspreload", .kind = &kind_path, .field = FIELD(rspreload),
	  .unset = "(search)" },
	{ .name = "rsgate", .kind = &kind_path, .field = FIELD(rsgate),
	  .def = IBNET_RSGATE_DEFAULT },
	{ .name = "rsocket_programs", .kind = &kind_checked, .field = FIELD(rsocket_programs),
	  .def = IBNET_RSOCKET_PROGRAMS_DEFAULT, .valid = programs_valid,
	  .expected = "a comma list of program name patterns such as *.exel,iperf3" },
	{ .name = "rdma_device", .kind = &kind_checked, .field = FIELD(rdma_device),
	  .valid = device_valid, .expected = "an RDMA device such as mlx5_0:1" },
	{ .name = "alltoall_lib", .kind = &kind_path_or_none, .field = FIELD(alltoall_lib),
	  .def = IBNET_A2A_DEFAULT, .unset = "none" },
	A2A_KEY(IBNET_A2A_WINDOW),
	A2A_KEY(IBNET_A2A_WINDOW_MAX_KEY),
	A2A_KEY(IBNET_A2A_CREDITS),
	A2A_KEY(IBNET_A2A_AGGREGATE),
	/* the site's per transport, not the all-to-all's one value */
	{ .kind = &kind_thresholds, .field = FIELD(a2a_threshold), .a2a = IBNET_A2A_THRESHOLD },
	{ .name = "tcp_rto_min", .kind = &kind_rto, .field = FIELD(tcp_rto_min_us),
	  .unset = "off" },
	{ .name = "tcp_rto_min_least", .kind = &kind_rto_least,
	  .field = FIELD(tcp_rto_min_least_us) },
	{ .name = "tcp_rto_bpf", .kind = &kind_path_or_none, .field = FIELD(tcp_rto_bpf),
	  .def = IBNET_BPF_FLOOR_DEFAULT, .unset = "none" },
	{ .name = "tcp_rto_min_transports", .kind = &kind_floor_transports,
	  .field = FIELD(tcp_rto_min_default), .unset = "(none)" },
};

#define KEY_COUNT (sizeof(config_keys) / sizeof(config_keys[0]))

static const struct config_key *key_named(const char *name)
{
	size_t i;

	for (i = 0; i < KEY_COUNT; i++)
		if (strcmp(key_name(&config_keys[i]), name) == 0)
			return &config_keys[i];
	return NULL;
}

/* The key that fills a field, for a sentence about two keys at once. */
static const char *key_of_field(size_t field)
{
	size_t i;

	for (i = 0; i < KEY_COUNT; i++)
		if (config_keys[i].field == field)
			return key_name(&config_keys[i]);
	return "?";
}

static int apply_key(struct ibnet_config *cfg, const char *name, const char *value,
		     struct ibnet_err *err)
{
	const struct config_key *key = key_named(name);
	struct ibnet_strvec names = { 0 };
	char *list;
	size_t i;

	if (key)
		return key->kind->set(cfg, key, value, err);
	for (i = 0; i < KEY_COUNT; i++)
		ibnet_strvec_push(&names, key_name(&config_keys[i]));
	list = ibnet_strvec_join(&names, ", ");
	ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: unknown key %s (value %s); "
		      "known keys: %s", ibnet_quote(name), ibnet_quote(value), list ? list : "?");
	free(list);
	ibnet_strvec_free(&names);
	return -1;
}

int ibnet_config_override(struct ibnet_config *cfg, const char *key, const char *value,
			  struct ibnet_err *err)
{
	return apply_key(cfg, key, value, err);
}

/* What no one key can check alone. */
static int check_together(const struct ibnet_config *cfg, struct ibnet_err *err)
{
	int i;

	if (cfg->default_transport != IBNET_NONE && !cfg->allowed[cfg->default_transport]) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s=%s is not in %s=",
			      key_of_field(FIELD(default_transport)),
			      ibnet_transport_name(cfg->default_transport), key_of_field(FIELD(allowed)));
		return -1;
	}
	if (cfg->tcp_rto_min_us && cfg->tcp_rto_min_us < cfg->tcp_rto_min_least_us) {
		ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s=%luus is below %s=%luus",
			      key_of_field(FIELD(tcp_rto_min_us)), cfg->tcp_rto_min_us,
			      key_of_field(FIELD(tcp_rto_min_least_us)), cfg->tcp_rto_min_least_us);
		return -1;
	}
	for (i = 0; i < IBNET_TRANSPORT_COUNT; i++)
		if (cfg->tcp_rto_min_default[i] && !cfg->tcp_rto_min_us) {
			ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s= names %s, but %s=off",
				      key_of_field(FIELD(tcp_rto_min_default)),
				      ibnet_transport_name((enum ibnet_transport)i),
				      key_of_field(FIELD(tcp_rto_min_us)));
			return -1;
		}
	return 0;
}

int ibnet_config_parse(struct ibnet_config *cfg, int argc, char **argv,
		       struct ibnet_err *err)
{
	bool seen[KEY_COUNT] = { false };
	size_t k;
	int i;

	memset(cfg, 0, sizeof(*cfg));
	for (k = 0; k < KEY_COUNT; k++)
		if (config_keys[k].kind->reset(cfg, &config_keys[k]) < 0)
			goto nomem;

	for (i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		const struct config_key *key;
		char *name;
		int rc;

		if (!eq || eq == argv[i]) {
			ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: argument %s is not key=value",
				      ibnet_quote(argv[i]));
			goto fail;
		}
		name = strndup(argv[i], (size_t)(eq - argv[i]));
		if (!name)
			goto nomem;
		key = key_named(name);
		if (key && seen[key - config_keys]) {
			ibnet_err_set(err, IBNET_PREFIX "plugstack.conf: %s is given twice", name);
			free(name);
			goto fail;
		}
		if (key)
			seen[key - config_keys] = true;
		rc = apply_key(cfg, name, eq + 1, err);
		free(name);
		if (rc < 0)
			goto fail;
	}
	if (check_together(cfg, err) < 0)
		goto fail;
	cfg->eth_iface_given = seen[key_named("eth_iface") - config_keys];
	cfg->ib_iface_given = seen[key_named("ib_iface") - config_keys];
	return 0;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory reading plugstack.conf arguments");
fail:
	ibnet_config_free(cfg);
	return -1;
}

int ibnet_config_default_transport(int argc, char **argv, enum ibnet_transport *t)
{
	const char *name = key_of_field(FIELD(default_transport));
	size_t n = strlen(name);
	int i;

	*t = IBNET_NONE;
	for (i = 0; i < argc; i++)
		if (strncmp(argv[i], name, n) == 0 && argv[i][n] == '=' &&
		    ibnet_transport_parse(argv[i] + n + 1, name, t, NULL) < 0)
			return -1;
	return 0;
}

void ibnet_config_print(const struct ibnet_config *cfg, FILE *fp)
{
	size_t k;

	for (k = 0; k < KEY_COUNT; k++) {
		fprintf(fp, "%s=", key_name(&config_keys[k]));
		config_keys[k].kind->print(cfg, &config_keys[k], fp);
		fputc('\n', fp);
	}
}

void ibnet_config_free(struct ibnet_config *cfg)
{
	size_t k;

	for (k = 0; k < KEY_COUNT; k++)
		if (config_keys[k].kind->release)
			config_keys[k].kind->release(cfg, &config_keys[k]);
	memset(cfg, 0, sizeof(*cfg));
}
