/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_site.c - find the spank-ibnet line of the site's plugstack.conf.
 * See ibnet_site.h for where plugstack.conf is looked for.
 */
#include "ibnet_site.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SITE_INCLUDE_DEPTH 8
#define SITE_LINE_MAX 65536	/* Slurm's own plugstack.conf lines are far shorter */

/* slurm.conf's PlugStackConfig, or plugstack.conf beside slurm.conf. */
static char *plugstack_path(ibnet_env_lookup_fn lookup, void *ctx)
{
	const char *env = lookup(ctx, "IBNET_PLUGSTACK_CONF");
	const char *slurm_conf = lookup(ctx, "SLURM_CONF");
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	FILE *fp;

	if (env && *env)
		return strdup(env);
	if (!slurm_conf || !*slurm_conf)
		slurm_conf = "/etc/slurm/slurm.conf";
	if ((fp = fopen(slurm_conf, "r"))) {
		while (getline(&line, &cap, fp) > 0) {
			char *p = line + strspn(line, " \t");

			if (strncasecmp(p, "PlugStackConfig", 15) != 0)
				continue;
			p += 15 + strspn(p + 15, " \t");
			if (*p != '=')
				continue;
			p++;
			p += strspn(p, " \t");
			p[strcspn(p, " \t\r\n#")] = '\0';
			free(found);
			found = strdup(p);	/* the last one wins, as in Slurm */
		}
		free(line);
		fclose(fp);
	}
	if (!found) {
		const char *slash = strrchr(slurm_conf, '/');
		size_t dir = slash ? (size_t)(slash - slurm_conf) + 1 : 0;

		found = malloc(dir + sizeof("plugstack.conf"));
		if (found) {
			memcpy(found, slurm_conf, dir);
			strcpy(found + dir, "plugstack.conf");
		}
	}
	return found;
}

static int scan(const char *path, int depth, struct ibnet_strvec *args, char **from,
		struct ibnet_err *err);

/* "include PATTERN": relative to the including file's directory. */
static int scan_include(const char *path, const char *pattern, int depth,
			struct ibnet_strvec *args, char **from, struct ibnet_err *err)
{
	struct ibnet_buf b = { 0 };
	glob_t g;
	int rc = 0;
	size_t i;

	if (pattern[0] != '/') {
		const char *slash = strrchr(path, '/');

		if (slash && ibnet_buf_add(&b, path, (size_t)(slash - path) + 1) < 0)
			goto nomem;
	}
	if (ibnet_buf_adds(&b, pattern) < 0)
		goto nomem;
	if (glob(b.s, 0, NULL, &g) != 0) {
		ibnet_buf_free(&b);
		return 0;	/* Slurm skips an include that matches nothing */
	}
	for (i = 0; i < g.gl_pathc && rc == 0; i++)
		rc = scan(g.gl_pathv[i], depth + 1, args, from, err);
	globfree(&g);
	ibnet_buf_free(&b);
	return rc;
nomem:
	ibnet_buf_free(&b);
	ibnet_err_set(err, IBNET_PREFIX "out of memory reading plugstack.conf");
	return -1;
}

static bool is_our_plugin(const char *word)
{
	const char *base = strrchr(word, '/');

	return strcmp(base ? base + 1 : word, "spank_ibnet.so") == 0;
}

/* 1: found (args filled), 0: not in this file, -1: error. */
static int scan(const char *path, int depth, struct ibnet_strvec *args, char **from,
		struct ibnet_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0;
	FILE *fp;

	if (depth > SITE_INCLUDE_DEPTH) {
		ibnet_err_set(err, IBNET_PREFIX "%s: includes nested deeper than %d", path,
			      SITE_INCLUDE_DEPTH);
		return -1;
	}
	if (!(fp = fopen(path, "r"))) {
		ibnet_err_set(err, IBNET_PREFIX "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && (len = getline(&line, &cap, fp)) > 0) {
		struct ibnet_strvec words = { 0 };

		if (len > SITE_LINE_MAX) {
			ibnet_err_set(err, IBNET_PREFIX "%s: a line longer than %d characters", path,
				      SITE_LINE_MAX);
			rc = -1;
			break;
		}
		line[strcspn(line, "#")] = '\0';
		if (ibnet_strvec_split(&words, line, " \t\r\n") < 0) {
			ibnet_err_set(err, IBNET_PREFIX "out of memory reading %s", path);
			rc = -1;
		} else if (words.n >= 2 && strcmp(words.v[0], "include") == 0) {
			rc = scan_include(path, words.v[1], depth, args, from, err);
		} else if (words.n >= 2 && (!strcmp(words.v[0], "required") ||
					    !strcmp(words.v[0], "optional")) &&
			   is_our_plugin(words.v[1])) {
			size_t i;

			rc = 1;
			for (i = 2; i < words.n && rc == 1; i++)
				if (ibnet_strvec_push(args, words.v[i]) < 0)
					rc = -1;
			if (rc == 1 && !(*from = strdup(path)))
				rc = -1;
			if (rc < 0)
				ibnet_err_set(err, IBNET_PREFIX "out of memory reading %s", path);
		}
		ibnet_strvec_free(&words);
	}
	free(line);
	fclose(fp);
	return rc;
}

int ibnet_site_args(ibnet_env_lookup_fn lookup, void *ctx, struct ibnet_strvec *args,
		    char **from, struct ibnet_err *err)
{
	char *path = plugstack_path(lookup, ctx);
	int rc;

	*from = NULL;
	if (!path) {
		ibnet_err_set(err, IBNET_PREFIX "out of memory");
		return -1;
	}
	rc = scan(path, 0, args, from, err);
	if (rc == 0)
		ibnet_err_set(err, IBNET_PREFIX "spank_ibnet.so is not configured in %s (set "
			      "IBNET_PLUGSTACK_CONF to the plugstack.conf that loads it)", path);
	free(path);
	return rc == 1 ? 0 : -1;
}
