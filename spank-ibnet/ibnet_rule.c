/*
 * ibnet_rule.c - how a node name becomes its IB host name.
 *
 * The regex engine is TRE, a POSIX regex library, not glibc's regcomp:
 * extracting groups (\1 in the replacement) costs glibc about five times
 * the match itself (its sift_states_backward), which made mapping 10,000
 * nodes take 9 ms; TRE's tagged automaton does it in a quarter of that.
 * The Lua side uses TRE too (lrexlib's rex_tre), so both run one engine.
 */
#include "ibnet_rule.h"

#include <errno.h>
#include <tre/tre.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct name_pair {
	char *node;
	char *ib;
};

struct ibnet_rule {
	char *spec;
	bool is_table;
	/* s/REGEX/REPLACEMENT/ */
	regex_t re;
	char *replacement;	/* unescaped except for \N group references */
	/* file:PATH, sorted by node for bsearch */
	struct name_pair *pairs;
	size_t npairs;
};

const char *ibnet_rule_spec(const struct ibnet_rule *rule)
{
	return rule->spec;
}

void ibnet_rule_free(struct ibnet_rule *rule)
{
	size_t i;

	if (!rule)
		return;
	if (!rule->is_table && rule->replacement)
		tre_regfree(&rule->re);
	free(rule->replacement);
	for (i = 0; i < rule->npairs; i++) {
		free(rule->pairs[i].node);
		free(rule->pairs[i].ib);
	}
	free(rule->pairs);
	free(rule->spec);
	free(rule);
}

/*
 * Copy one '/'-delimited field starting at *p, turning "\/" into "/".
 * Other escapes are kept for regcomp (regex) or for apply (replacement).
 */
static char *take_field(const char **p)
{
	struct ibnet_buf b = { 0 };
	const char *s = *p;

	while (*s && *s != '/') {
		if (s[0] == '\\' && s[1] == '/') {
			ibnet_buf_add(&b, "/", 1);
			s += 2;
			continue;
		}
		if (s[0] == '\\' && s[1]) {
			ibnet_buf_add(&b, s, 2);
			s += 2;
			continue;
		}
		ibnet_buf_add(&b, s, 1);
		s++;
	}
	if (*s != '/') {
		ibnet_buf_free(&b);
		return NULL;
	}
	*p = s + 1;
	return ibnet_buf_take(&b);
}

static int parse_regex_rule(struct ibnet_rule *rule, const char *spec,
			    struct ibnet_err *err)
{
	const char *p = spec + 2;
	char *regex, *r;
	int rc;

	regex = take_field(&p);
	if (!regex || !(rule->replacement = take_field(&p))) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s: expected s/REGEX/REPLACEMENT/",
			      ibnet_quote(spec));
		free(regex);
		return -1;
	}
	if (*p) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s: unexpected %s after the last '/' "
			      "(flags are not supported)", ibnet_quote(spec), ibnet_quote(p));
		free(regex);
		return -1;
	}
	rc = tre_regcomp(&rule->re, regex, REG_EXTENDED);
	free(regex);
	if (rc) {
		char msg[128];

		tre_regerror(rc, &rule->re, msg, sizeof(msg));
		free(rule->replacement);
		rule->replacement = NULL;
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s: bad regular expression: %s",
			      ibnet_quote(spec), msg);
		return -1;
	}
	/* Check the replacement once here, so apply cannot meet a bad one. */
	for (r = rule->replacement; *r; r++) {
		if (*r != '\\')
			continue;
		r++;
		if (*r >= '1' && *r <= '9') {
			if ((size_t)(*r - '0') > rule->re.re_nsub) {
				ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s: \\%c refers to a group "
					      "the regex does not have", ibnet_quote(spec), *r);
				return -1;
			}
		} else if (*r != '\\') {
			ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s: unknown escape '\\%c' in "
				      "the replacement (use \\1..\\9 or \\\\)", ibnet_quote(spec),
				      *r ? *r : ' ');
			return -1;
		}
	}
	return 0;
}

static int pair_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_pair *)a)->node,
		      ((const struct name_pair *)b)->node);
}

static int parse_table_rule(struct ibnet_rule *rule, const char *path,
			    struct ibnet_err *err)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0, lineno = 0, i;
	int rc = -1;

	if (path[0] != '/') {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s: the path must be absolute",
			      ibnet_quote(path));
		return -1;
	}
	fp = fopen(path, "r");
	if (!fp) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s: cannot read: %s",
			      ibnet_quote(path), strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, fp) >= 0) {
		struct ibnet_strvec f = { 0 };
		struct name_pair *np;
		char *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash = '\0';
		if (ibnet_strvec_split(&f, line, " \t\r\n") < 0)
			goto nomem;
		if (f.n == 0) {
			ibnet_strvec_free(&f);
			continue;
		}
		if (f.n != 2 || !ibnet_hostname_valid(f.v[0]) || !ibnet_hostname_valid(f.v[1])) {
			ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s line %zu: expected "
				      "\"NODENAME IBNAME\"", ibnet_quote(path), lineno);
			ibnet_strvec_free(&f);
			goto out;
		}
		np = realloc(rule->pairs, (rule->npairs + 1) * sizeof(*np));
		if (!np) {
			ibnet_strvec_free(&f);
			goto nomem;
		}
		rule->pairs = np;
		rule->pairs[rule->npairs].node = f.v[0];
		rule->pairs[rule->npairs].ib = f.v[1];
		rule->npairs++;
		free(f.v);
	}
	qsort(rule->pairs, rule->npairs, sizeof(*rule->pairs), pair_cmp);
	for (i = 1; i < rule->npairs; i++) {
		if (strcmp(rule->pairs[i - 1].node, rule->pairs[i].node) == 0) {
			ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s: node %s is listed twice",
				      ibnet_quote(path), ibnet_quote(rule->pairs[i].node));
			goto out;
		}
	}
	rc = 0;
	goto out;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory reading %s", ibnet_quote(path));
out:
	free(line);
	fclose(fp);
	return rc;
}

struct ibnet_rule *ibnet_rule_parse(const char *spec, struct ibnet_err *err)
{
	struct ibnet_rule *rule = calloc(1, sizeof(*rule));
	int rc;

	if (!rule || !(rule->spec = strdup(spec))) {
		free(rule);
		ibnet_err_set(err, IBNET_PREFIX "out of memory");
		return NULL;
	}
	if (strncmp(spec, "s/", 2) == 0) {
		rc = parse_regex_rule(rule, spec, err);
	} else if (strncmp(spec, "file:", 5) == 0) {
		rule->is_table = true;
		rc = parse_table_rule(rule, spec + 5, err);
	} else {
		ibnet_err_set(err, IBNET_PREFIX "invalid ib_hostname rule %s "
			      "(expected s/REGEX/REPLACEMENT/ or file:PATH)", ibnet_quote(spec));
		rc = -1;
	}
	if (rc < 0) {
		ibnet_rule_free(rule);
		return NULL;
	}
	return rule;
}

static char *apply_regex(const struct ibnet_rule *rule, const char *node,
			 struct ibnet_err *err)
{
	regmatch_t m[10];
	struct ibnet_buf b = { 0 };
	const char *r;
	int ok = 0;

	/* Groups past \9 cannot be referenced: never ask for more slots than m has. */
	size_t nmatch = rule->re.re_nsub + 1 < 10 ? rule->re.re_nsub + 1 : 10;

	if (tre_regexec(&rule->re, node, nmatch, m, 0) != 0) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s does not match node name %s",
			      ibnet_quote(rule->spec), ibnet_quote(node));
		return NULL;
	}
	ok |= ibnet_buf_add(&b, node, (size_t)m[0].rm_so);
	for (r = rule->replacement; *r; r++) {
		size_t literal = strcspn(r, "\\");

		if (literal) {	/* a run of plain characters at once */
			ok |= ibnet_buf_add(&b, r, literal);
			r += literal - 1;
		} else if (r[1] >= '1' && r[1] <= '9') {
			regmatch_t g = m[r[1] - '0'];

			if (g.rm_so >= 0)
				ok |= ibnet_buf_add(&b, node + g.rm_so, (size_t)(g.rm_eo - g.rm_so));
			r++;
		} else {
			ok |= ibnet_buf_add(&b, ++r, 1);	/* \\ */
		}
	}
	ok |= ibnet_buf_adds(&b, node + m[0].rm_eo);
	if (ok < 0) {
		ibnet_buf_free(&b);
		ibnet_err_set(err, IBNET_PREFIX "out of memory");
		return NULL;
	}
	return ibnet_buf_take(&b);
}

char *ibnet_rule_apply(const struct ibnet_rule *rule, const char *node,
		       struct ibnet_err *err)
{
	char *ib;

	if (rule->is_table) {
		struct name_pair key = { .node = (char *)node }, *hit;

		hit = bsearch(&key, rule->pairs, rule->npairs, sizeof(key), pair_cmp);
		if (!hit) {
			ibnet_err_set(err, IBNET_PREFIX "node %s is not listed in ib_hostname=%s",
				      ibnet_quote(node), ibnet_quote(rule->spec));
			return NULL;
		}
		ib = strdup(hit->ib);
		if (!ib)
			ibnet_err_set(err, IBNET_PREFIX "out of memory");
	} else {
		ib = apply_regex(rule, node, err);
	}
	if (ib && !ibnet_hostname_valid(ib)) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s turns %s into %s, "
			      "which is not a host name", ibnet_quote(rule->spec),
			      ibnet_quote(node), ibnet_quote(ib));
		free(ib);
		return NULL;
	}
	return ib;
}

int ibnet_rule_map(const struct ibnet_rule *rule, const struct ibnet_strvec *in,
		   struct ibnet_strvec *out, struct ibnet_err *err)
{
	size_t i;

	for (i = 0; i < in->n; i++) {
		char *ib = ibnet_rule_apply(rule, in->v[i], err);

		if (!ib || ibnet_strvec_push_owned(out, ib) < 0) {
			if (ib)
				ibnet_err_set(err, IBNET_PREFIX "out of memory");
			return -1;
		}
	}
	return 0;
}
