/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_room.c - the room a node's shared segment may take (node to
 * node, ibnet_a2a_nodes.c): half of what /dev/shm has free, and half of what
 * the job's memory limit leaves, the least room under a limit of the rank's
 * memory cgroup or any above it (cgroup v2 or v1's memory controller, found
 * through mountinfo, so a cgroup namespace reads right). The segment's pages
 * are reserved before they are used, and past the job's limit reserving them
 * brings the OOM killer, not an error (issue 50, finding 9): so the limit is
 * read first, and a segment that would not fit goes pair by pair, said.
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ibnet_a2a_room.h"
#include "ibnet_mountinfo.h"
#include "ibnet_a2a_state.h"

/* The node's shared-memory file system: the site's size for the node's
 * shared memory, where the MPI's own lives (our segment has no name and
 * lives outside it, but takes the same pages). */
#define SHM_DIR "/dev/shm"
/* The files a memory limit is read from, by cgroup version: v2's, and v1's
 * memory controller's (Slurm's cgroup/v1 plugin, the test cluster's). */
struct memory_files {
	bool v2;
	const char *limit, *usage;
};
static const struct memory_files memory_v2 = { true, "memory.max", "memory.current" };
static const struct memory_files memory_v1 = { false, "memory.limit_in_bytes",
					       "memory.usage_in_bytes" };

/* Whether the comma-separated list holds word. */
static bool listed(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (; list; list = strchr(list, ',') ? strchr(list, ',') + 1 : NULL)
		if (!strncmp(list, word, n) && (list[n] == ',' || list[n] == '\0'))
			return true;
	return false;
}

/*
 * Where this process sees m's hierarchy mounted, and which of its cgroups
 * that mount shows at its top (the "root" of /proc/self/mountinfo, said as
 * /proc/self/cgroup says paths: from the process's cgroup namespace, so a
 * stack or container in a namespace of its own reads "/.." there). False
 * where it is not mounted.
 */
static bool memory_mount(const struct memory_files *m, char *mnt, size_t mlen, char *root,
			 size_t rlen)
{
	char line[2 * PATH_MAX], r[PATH_MAX], at[PATH_MAX], type[32], opts[512];
	const char *dash;
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - TYPE SOURCE SUPER-OPTIONS" */
	while (!found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", r, at) != 2 ||
		    !(dash = strstr(line, " - ")) ||
		    sscanf(dash + 3, "%31s %*s %511s", type, opts) != 2)
			continue;
		found = m->v2 ? !strcmp(type, "cgroup2") :
				!strcmp(type, "cgroup") && listed(opts, "memory");
	}
	fclose(f);
	if (found) {
		ibnet_mountinfo_unescape(r);
		ibnet_mountinfo_unescape(at);
	}
	if (found && (snprintf(mnt, mlen, "%s", at) >= (int)mlen ||
		      snprintf(root, rlen, "%s", strcmp(r, "/") ? r : "") >= (int)rlen))
		found = false;
	return found;
}

/* The bytes a cgroup file holds, or false; no limit ("max", or v1's
 * page-rounded LONG_MAX) is ULLONG_MAX. */
static bool cgroup_number(const char *dir, const char *file, unsigned long long *v)
{
	char path[PATH_MAX], text[32];
	FILE *f;
	bool ok;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path) ||
	    !(f = fopen(path, "re")))
		return false;
	ok = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	if (ok && !strncmp(text, "max", 3))
		*v = ULLONG_MAX;
	else if (ok && (ok = sscanf(text, "%llu", v) == 1) && *v >= 1ULL << 62)
		*v = ULLONG_MAX;
	return ok;
}

/* Whether the cgroup directory dir holds this process. */
static bool holds_me(const char *dir)
{
	char path[PATH_MAX], line[32];
	long me = (long)getpid();
	bool in = false;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/cgroup.procs", dir) >= (int)sizeof(path) ||
	    !(f = fopen(path, "re")))
		return false;
	while (!in && fgets(line, sizeof(line), f))
		in = strtol(line, NULL, 10) == me;
	fclose(f);
	return in;
}

/*
 * The directory, under the mount at base, that holds this process at path
 * below a cgroup namespace's top that lies depth levels below base (a
 * mount of the whole hierarchy seen from inside a namespace: mountinfo says
 * its root as "/.." that many times, and names none of them), found by
 * trying each directory at that depth, at most CGROUP_SEARCH_MOST of them.
 */
#define CGROUP_SEARCH_MOST 4096
static bool find_below(char *base, size_t blen, int depth, const char *path, int *tried)
{
	size_t at = strlen(base);
	struct dirent *e;
	bool found = false;
	DIR *d;

	if (!depth) {
		char dir[PATH_MAX];

		return snprintf(dir, sizeof(dir), "%s%s", base, path) < (int)sizeof(dir) &&
		       holds_me(dir) && snprintf(base, blen, "%s", dir) < (int)blen;
	}
	if (!(d = opendir(base)))
		return false;
	while (!found && (e = readdir(d)) && ++*tried < CGROUP_SEARCH_MOST) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
		    snprintf(base + at, blen - at, "/%s", e->d_name) >= (int)(blen - at))
			continue;
		found = find_below(base, blen, depth - 1, path, tried);
		if (!found)
			base[at] = '\0';
	}
	closedir(d);
	return found;
}

/* The least room under a limit of the cgroup at path (as /proc/self/cgroup
 * says it) or any above it that the mount shows, kept in *room and *where
 * where it is less. */
static void cgroup_walk(const struct memory_files *m, const char *path,
			unsigned long long *room, char *where, size_t wlen, bool *found)
{
	char dir[PATH_MAX], mnt[PATH_MAX], root[PATH_MAX], own[PATH_MAX], *slash;
	unsigned long long max, cur, left;
	size_t top, rlen;
	int up = 0, tried = 0;
	const char *r;

	if (!memory_mount(m, mnt, sizeof(mnt), root, sizeof(root)))
		return;
	snprintf(own, sizeof(own), "%s", path);
	own[strcspn(own, "\n")] = '\0';
	for (r = root; !strncmp(r, "/..", 3) && (r[3] == '/' || !r[3]); r += 3)
		up++;
	rlen = strlen(root);
	if (up && !*r) {
		/* The namespace's top is up levels below the mount's: which one,
		 * only the process's own presence says. */
		snprintf(dir, sizeof(dir), "%s", mnt);
		if (!find_below(dir, sizeof(dir), up, strcmp(own, "/") ? own : "", &tried))
			return;
	} else if (strncmp(own, root, rlen) || (own[rlen] && own[rlen] != '/') ||
		   snprintf(dir, sizeof(dir), "%s%s", mnt, own + rlen) >= (int)sizeof(dir)) {
		return;	/* the cgroup is not under this mount */
	}
	top = strlen(mnt);
	/* Up to the mount's top. */
	while (strlen(dir) >= top) {
		if (cgroup_number(dir, m->limit, &max) && max != ULLONG_MAX &&
		    cgroup_number(dir, m->usage, &cur)) {
			left = cur < max ? max - cur : 0;
			if (!*found || left < *room) {
				*room = left;
				snprintf(where, wlen, "%s", dir);
				*found = true;
			}
		}
		if (strlen(dir) == top || !(slash = strrchr(dir, '/')) || slash < dir + top)
			break;
		*slash = '\0';
	}
}

/*
 * The least room left under a memory limit of this process's cgroup or any
 * above it (Slurm's ConstrainRAMSpace sets the job's and the step's, whose
 * tasks sit below), in cgroup v2 or v1's memory controller, and the cgroup
 * that leaves it; false where no limit is set or none can be read.
 */
static bool cgroup_room(unsigned long long *room, char *where, size_t wlen)
{
	char line[PATH_MAX], *controllers, *path, *c, *save;
	FILE *f = fopen("/proc/self/cgroup", "re");
	bool found = false;

	if (!f)
		return false;
	/* "ID:CONTROLLERS:PATH": v2's is "0::PATH"; v1's memory is one of a list. */
	while (fgets(line, sizeof(line), f)) {
		if (!(controllers = strchr(line, ':')) || !(path = strchr(++controllers, ':')))
			continue;
		*path++ = '\0';	/* line is "ID:CONTROLLERS" now */
		if (!strcmp(line, "0:")) {
			cgroup_walk(&memory_v2, path, room, where, wlen, &found);
			continue;
		}
		for (c = strtok_r(controllers, ",", &save); c; c = strtok_r(NULL, ",", &save))
			if (!strcmp(c, "memory"))
				cgroup_walk(&memory_v1, path, room, where, wlen, &found);
	}
	fclose(f);
	return found;
}

/*
 * The leader's check of the room: true when bytes fit in half of what
 * /dev/shm has free and in half of what the job's memory limit leaves (the
 * other half to the MPI's own shared memory, the application's growth, other
 * communicators and the node's other jobs). Says why not.
 */
bool segment_room_allows(size_t bytes)
{
	struct statvfs fs;
	unsigned long long free_bytes, room;
	char need[32], have[32], where[PATH_MAX], line[PATH_MAX + 320];

	ibnet_a2a_bytes_text(bytes, need, sizeof(need));
	if (statvfs(SHM_DIR, &fs) == 0 &&
	    bytes > (free_bytes = (unsigned long long)fs.f_bavail * fs.f_frsize) / 2) {
		ibnet_a2a_bytes_text((unsigned long)free_bytes, have, sizeof(have));
		snprintf(line, sizeof(line), "node to node needs a shared segment of %s on this "
			 "node, but " SHM_DIR " has %s free and node to node takes at most half of "
			 "it: these calls go pair by pair", need, have);
		say(line);
		return false;
	}
	if (cgroup_room(&room, where, sizeof(where)) && bytes > room / 2) {
		ibnet_a2a_bytes_text((unsigned long)room, have, sizeof(have));
		snprintf(line, sizeof(line), "node to node needs a shared segment of %s on this "
			 "node, but the job's memory limit leaves %s (in %s) and node "
			 "to node takes at most half of it: these calls go pair by pair", need,
			 have, where);
		say(line);
		return false;
	}
	return true;
}
