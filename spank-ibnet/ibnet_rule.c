/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_rule.c - how a node name becomes its IB host name.
 *
 * The regex engine is glibc's POSIX regcomp/regexec, so the plugin needs
 * nothing outside the base OS (TRE, used before, is EPEL-only on RHEL).
 * glibc's match alone is as fast as TRE's; what costs is locating groups
 * (its sift_states_backward), so apply asks only for the groups the
 * replacement uses: a rule without \N maps 10,000 nodes in about 2.5 ms, one
 * with \1 in 6 to 11 ms (docs/benchmarks.md measures both).
 *
 * A rule reaches every srun, sbatch and slurmstepd, so its cost must be
 * bounded whatever an admin types. Back-references make POSIX matchers
 * backtrack without end (TRE bug #53; glibc's exponential cases, such as
 * CVE-2018-20796), nested counted repetitions are expanded copy by copy
 * (((a{50}){50}){50} is 125,000 states and overflowed slurmstepd's stack
 * under TRE), and an unmatched ')' after "\\" made TRE allocate without end
 * (TRE bug #50). regex_bounded() refuses all of these before regcomp sees
 * the regex, whichever engine is behind it.
 */
#include "ibnet_rule.h"

#include <errno.h>
#include <sys/stat.h>
#include <regex.h>
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
	size_t nmatch;		/* 1 + the highest group the replacement uses */
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
		regfree(&rule->re);
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

/* Bounds on a rule's regex: host names are at most 255 characters. */
#define REGEX_MAX_LEN 512
#define REGEX_MAX_DEPTH 32
#define REGEX_MAX_REPEAT 255	/* POSIX RE_DUP_MAX */
#define REGEX_MAX_STATES 2000	/* atoms after expanding {m,n} */
#define REGEX_MAX_GROUPS 32	/* groups once {m,n}, *, +, ? are expanded */
#define REGEX_MAX_GROUP_STATES 256	/* atoms of one repeated group, expanded */

/* The end of the bracket expression that starts at s ('['), or NULL. */
static const char *bracket_end(const char *s)
{
	s++;
	if (*s == '^')
		s++;
	if (*s == ']')
		s++;
	for (; *s && *s != ']'; s++) {
		if (s[0] == '[' && (s[1] == ':' || s[1] == '.' || s[1] == '=')) {
			char close = s[1];

			for (s += 2; *s && !(s[0] == close && s[1] == ']'); s++)
				;
			if (!*s)
				return NULL;
			s++;
		}
	}
	return *s ? s : NULL;
}

/*
 * glibc's regexec, asked where the groups matched (a replacement with \N),
 * loops without end on a group repeated without bound (*, +, {m,}) that can
 * match the empty string and holds an alternation: (a?|b|c?)* or
 * (()|b|())+ on "b" never returns (glibc 2.36; fuzz_rule found
 * (a|\||||.|||)*). Some such groups are matched fine ((a?|b)*), but which
 * is glibc's business, so all are refused: an alternative that takes a
 * character ((a|b|c)* for (a?|b|c?)*) says the same for a host name. Walks
 * a regex regex_bounded has checked (brackets closed, groups matched,
 * intervals well formed). Returns why, or NULL.
 */
static const char *repeats_empty_alternation(const char *re)
{
	struct group_walk {
		bool branch_empty;	/* the alternative being read can match "" so far */
		bool some_empty;	/* an alternative before it can */
		bool alternation;	/* a '|' in the group, or in a group inside it */
	} g[REGEX_MAX_DEPTH + 1] = { { true, false, false } };
	bool atom = false, atom_empty = false, atom_alternation = false;
	int depth = 0;
	const char *p;

	for (p = re; *p; p++) {
		bool unbounded = false, may_skip = false;

		switch (*p) {
		case '*':
			unbounded = may_skip = true;
			break;
		case '+':
			unbounded = true;
			break;
		case '?':
			may_skip = true;
			break;
		case '{':
			may_skip = strtoul(p + 1, NULL, 10) == 0;
			p = strchr(p, '}');
			unbounded = p[-1] == ',';
			break;
		default:
			/* Not a repetition: the atom before it is complete. */
			if (atom)
				g[depth].branch_empty &= atom_empty;
			atom = true, atom_empty = false, atom_alternation = false;
			switch (*p) {
			case '(':
				g[++depth] = (struct group_walk){ true, false, false };
				atom = false;
				break;
			case '|':
				g[depth].some_empty |= g[depth].branch_empty;
				g[depth].branch_empty = true;
				g[depth].alternation = true;
				atom = false;
				break;
			case ')':
				atom_empty = g[depth].some_empty || g[depth].branch_empty;
				atom_alternation = g[depth].alternation;
				g[--depth].alternation |= atom_alternation;
				break;
			case '\\':
				p++;
				break;
			case '[':
				p = bracket_end(p);
				break;
			case '^': case '$':
				atom_empty = true;
				break;
			}
			continue;
		}
		if (unbounded && atom_empty && atom_alternation)
			return "a group repeated without bound (*, +, {m,}) can match the empty string "
			       "and holds an alternation (such as (a?|b|c?)*): glibc's regexec, asked "
			       "where its groups matched, loops on it without end; let every alternative "
			       "take a character";
		atom_empty |= may_skip;
	}
	return NULL;
}

/*
 * Walk the regex as an ERE and refuse what TRE cannot bound: back-references,
 * unmatched parentheses, bad intervals, and more than REGEX_MAX_STATES
 * atoms once every {m,n} is expanded. `total` is what each open group costs
 * so far, `last` the cost of the atom a quantifier would repeat.
 */
static int regex_bounded(const char *re, const char *spec, struct ibnet_err *err)
{
	unsigned long total[REGEX_MAX_DEPTH + 1] = { 0 }, last = 0;
	/*
	 * The same count for groups, copies included: glibc's regcomp grows
	 * with the cube of them where they can match empty. glast: the groups
	 * of the last atom.
	 */
	unsigned long groups[REGEX_MAX_DEPTH + 1] = { 0 }, glast = 0;
	const char *why = NULL;
	bool repeated = false;	/* the previous token was a repetition */
	int depth = 0;
	const char *p;

	if (strlen(re) > REGEX_MAX_LEN) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s: the regex is longer than %d "
			      "characters", ibnet_quote(spec), REGEX_MAX_LEN);
		return -1;
	}
	for (p = re; !why && *p; p++) {
		unsigned long times = 1;

		switch (*p) {
		case '\\':
			if (p[1] >= '0' && p[1] <= '9')
				why = "back-references (\\N) in the regex make matching time unbounded; "
				      "they are not supported";
			else if (!p[1])
				why = "the regex ends with a lone backslash";
			p++;
			last = 1, glast = 0;
			break;
		case '[': {
			const char *end = bracket_end(p);

			if (!end) {
				why = "a bracket expression '[' is not closed";
				continue;
			}
			p = end;
			last = 1, glast = 0;
			break;
		}
		case '(':
			if (++depth > REGEX_MAX_DEPTH)
				why = "groups are nested too deep";
			else
				total[depth] = 0, groups[depth] = 0;
			last = 0, glast = 0;
			continue;
		case ')':
			if (depth == 0) {
				why = "unmatched ')' (write \\) or [)] for a literal one)";
				break;
			}
			glast = groups[depth] + 1;
			last = total[depth--];
			break;
		case '|':
			last = 0, glast = 0;
			continue;
		case '*': case '+': case '?':
			times = 2;	/* TRE adds a loop, not copies; count it once more */
			break;
		case '{': {
			char *end;
			unsigned long m = strtoul(p + 1, &end, 10), n = m;

			/* Digits only: strtoul would also take "+8", " 8" or "-1". */
			if (p[1] < '0' || p[1] > '9' || (end[0] == ',' && end[1] != '}' &&
							 (end[1] < '0' || end[1] > '9')))
				why = "bad interval {m,n} (digits only, m <= n, 1 <= n <= 255)";
			else if (end == p + 1 || (*end != '}' && *end != ','))
				why = "'{' does not start an interval {m}, {m,} or {m,n}";
			else if (*end == ',' && end[1] != '}')
				n = strtoul(end + 1, &end, 10);
			else if (*end == ',')
				n = m + 1, end++;	/* {m,}: m copies and a loop */
			if (!why && (*end != '}' || n < m || n > REGEX_MAX_REPEAT || n == 0))
				why = "bad interval {m,n} (digits only, m <= n, 1 <= n <= 255)";
			if (why)
				break;
			p = end;
			times = n;
			break;
		}
		default:
			last = 1, glast = 0;
			break;
		}
		if (times > 1) {
			if (last == 0) {
				why = "a repetition (*, +, ?, {m,n}) follows nothing";
				break;
			}
			/* a{1,8}{1,8}, a+? : undefined in POSIX; TRE crashed on some. */
			if (repeated) {
				why = "two repetitions in a row; put the first in parentheses";
				break;
			}
			repeated = true;
			if (glast && last * times > REGEX_MAX_GROUP_STATES) {
				why = "a repeated group expands to more than 256 states (such as "
				      "(a{0,15}|b{0,15}){0,64}: glibc's regex compiles that in time and "
				      "memory that grow with the cube of the copies)";
				break;
			}
			total[depth] += last * (times - 1);
			last *= times;
			groups[depth] += glast * (times - 1);
			glast *= times;
		} else {
			total[depth] += last == 0 ? 0 : (*p == ')' ? last : 1);
			groups[depth] += *p == ')' ? glast : 0;
			repeated = false;
		}
		if (total[depth] > REGEX_MAX_STATES)
			why = "its repetitions expand to more than 2000 states (nested {m,n})";
		else if (groups[depth] > REGEX_MAX_GROUPS)
			why = "it has more than 32 groups once repetitions are expanded (such as (a?){1,100}: "
			      "glibc's regex compiles that in time and memory that grow with the cube "
			      "of the copies)";
	}
	if (!why && depth)
		why = "unmatched '('";
	if (!why)
		why = repeats_empty_alternation(re);
	if (why)
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s refused: %s",
			      ibnet_quote(spec), why);
	return why ? -1 : 0;
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
	if (regex_bounded(regex, spec, err) < 0) {
		free(regex);
		free(rule->replacement);
		rule->replacement = NULL;
		return -1;
	}
	rc = regcomp(&rule->re, regex, REG_EXTENDED);
	free(regex);
	if (rc) {
		char msg[128];

		regerror(rc, &rule->re, msg, sizeof(msg));
		free(rule->replacement);
		rule->replacement = NULL;
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s: bad regular expression: %s",
			      ibnet_quote(spec), msg);
		return -1;
	}
	/* Check the replacement once here, so apply cannot meet a bad one. */
	rule->nmatch = 1;
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
			if ((size_t)(*r - '0') + 1 > rule->nmatch)
				rule->nmatch = (size_t)(*r - '0') + 1;
		} else if (*r != '\\') {
			char c[8];

			snprintf(c, sizeof(c), *r > 0x20 && *r < 0x7f ? "%c" : "<0x%02x>",
				 (unsigned char)*r);
			ibnet_err_set(err, IBNET_PREFIX "ib_hostname rule %s: unknown escape '\\%s' in "
				      "the replacement (use \\1..\\9 or \\\\)", ibnet_quote(spec), c);
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

/* A table is read by every srun and slurmstepd: bound what it may cost. */
#define TABLE_MAX_BYTES (64L << 20)
#define TABLE_MAX_LINE 1024

static int parse_table_rule(struct ibnet_rule *rule, const char *path,
			    struct ibnet_err *err)
{
	FILE *fp;
	struct stat st;
	char *line = NULL;
	size_t cap = 0, lineno = 0, i;
	ssize_t len;
	int rc = -1;

	if (path[0] != '/') {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s: the path must be absolute",
			      ibnet_quote(path));
		return -1;
	}
	fp = fopen(path, "re");
	if (!fp) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s: cannot read: %s",
			      ibnet_quote(path), strerror(errno));
		return -1;
	}
	/* Not a directory, a device (/dev/zero) or a /proc file: a plain file of bounded size. */
	if (fstat(fileno(fp), &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > TABLE_MAX_BYTES) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s: %s", ibnet_quote(path),
			      !S_ISREG(st.st_mode) ? "not a regular file" : "larger than 64 MiB");
		fclose(fp);
		return -1;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		struct ibnet_strvec f = { 0 };
		struct name_pair *np;
		char *hash;

		lineno++;
		if (len > TABLE_MAX_LINE || (size_t)len != strlen(line)) {
			ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s line %zu: longer than %d "
				      "characters, or holds a NUL byte", ibnet_quote(path), lineno,
				      TABLE_MAX_LINE);
			goto out;
		}
		hash = strchr(line, '#');
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
	if (ferror(fp)) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s: read error: %s",
			      ibnet_quote(path), strerror(errno));
		goto out;
	}
	if (rule->npairs == 0) {
		ibnet_err_set(err, IBNET_PREFIX "ib_hostname=file:%s lists no node", ibnet_quote(path));
		goto out;
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

	/*
	 * Ask only for the groups the replacement uses (at most \9, so m is
	 * large enough): glibc's cost of locating groups grows with nmatch.
	 */
	if (regexec(&rule->re, node, rule->nmatch, m, 0) != 0) {
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
