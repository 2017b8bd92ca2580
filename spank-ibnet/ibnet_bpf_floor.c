/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_bpf_floor.c - the BPF tier of the TCP retransmission floor
 * (ibnet_bpf_floor.h says why it is shaped so).
 */
#include "ibnet_bpf_floor.h"
#include "ibnet_tcp_floor_rule.h"
#include "ibnet_mountinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

#ifdef IBNET_HAVE_LIBBPF
#include <dlfcn.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#endif

/* The program's names and counter keys (tcp-floor-bpf/ibnet_tcp_floor.bpf.c). */
#define PROG_NAME	"ibnet_tcp_floor"
#define MAP_CONFIG	"floor_config"
#define MAP_COUNTS	"floor_counts"
enum { COUNT_FLOORED, COUNT_REFUSED, COUNT_RTO, COUNT_RETRANS, COUNT_KEYS };

/* Process ids move one write each: at most this many stragglers are moved at stop. */
#define STRAGGLERS_MAX 4096

bool ibnet_bpf_floor_built(void)
{
#ifdef IBNET_HAVE_LIBBPF
	return true;
#else
	return false;
#endif
}

void ibnet_bpf_floor_spread_said(const struct ibnet_bpf_floor *f, char *buf, size_t len)
{
	unsigned int most;

	if (!f->hz) {
		snprintf(buf, len, "not spread per socket: the kernel's HZ is unknown (libbpf "
			 "found no kernel config, /boot/config-RELEASE or /proc/config.gz)");
		return;
	}
	most = ibnet_floor_spread((unsigned int)f->floor_us, f->hz, 0xffffffffu);
	if (most == f->floor_us)
		snprintf(buf, len, "not spread per socket: the floor is already the kernel's "
			 "most (200 ms)");
	else
		snprintf(buf, len, "spread per socket over %lu-%u us (whole jiffies at HZ %u)",
			 f->floor_us, most, f->hz);
}

/* The enabled controllers of the hierarchy at mnt, into buf ("" if none); -1 if unreadable. */
static int root_controllers(const char *mnt, char *buf, size_t len)
{
	char path[PATH_MAX + 32];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", mnt);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * The next mount of a cgroup2 hierarchy's root in mountinfo f: its mount
 * point, unescaped, into mnt; 0, or -1 at the end. Only the hierarchy's
 * root: a bind mount of a subtree is someone's cgroup.
 */
static int next_cgroup2_root(FILE *f, char *mnt, size_t len)
{
	char line[4096];

	/* id parent major:minor root mountpoint options [optional...] - fstype source super */
	while (fgets(line, sizeof(line), f)) {
		char *fields[5], *save = NULL, *dash = strstr(line, " - "), *p = line;
		int i;

		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) != 0)
			continue;
		for (i = 0; i < 5; i++, p = NULL)
			if (!(fields[i] = strtok_r(p, " ", &save)))
				break;
		if (i < 5 || strcmp(fields[3], "/") != 0)
			continue;
		ibnet_mountinfo_unescape(fields[4]);
		if ((size_t)snprintf(mnt, len, "%s", fields[4]) < len)
			return 0;
	}
	return -1;
}

int ibnet_bpf_floor_find_mount(char *mnt, size_t len, char *why, size_t wlen)
{
	char path[PATH_MAX], busy[PATH_MAX] = "", controllers[256] = "", unreadable[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f) {
		snprintf(why, wlen, "cannot read /proc/self/mountinfo: %m");
		return -1;
	}
	while (next_cgroup2_root(f, path, sizeof(path)) == 0) {
		char found[256];

		if (root_controllers(path, found, sizeof(found)) < 0) {
			if (!unreadable[0])
				snprintf(unreadable, sizeof(unreadable), "%s", path);
			continue;
		}
		if (found[0]) {	/* resources are managed there: remember, look further */
			if (!busy[0]) {
				snprintf(busy, sizeof(busy), "%s", path);
				snprintf(controllers, sizeof(controllers), "%s", found);
			}
			continue;
		}
		if (strlen(path) >= len)
			continue;
		snprintf(mnt, len, "%s", path);
		fclose(f);
		return 0;
	}
	fclose(f);
	if (busy[0])
		snprintf(why, wlen, "the cgroup2 hierarchy at %s manages resources (%s: Slurm's "
			 "cgroup/v2 or systemd's), the step is not in a step cgroup of Slurm's cgroup/v2 "
			 "(proctrack/cgroup), and the plugin moves no task out of the cgroup it was "
			 "given there", busy, controllers);
	else if (unreadable[0])
		snprintf(why, wlen, "cannot read the cgroup2 hierarchy at %s (not root?)", unreadable);
	else
		snprintf(why, wlen, "this node has no cgroup2 mount (mount -t cgroup2 none "
			 "/sys/fs/cgroup/unified, see the admin guide)");
	return -1;
}

int ibnet_bpf_floor_slurm_dir(const char *self, char *out, size_t len)
{
	const char *leaf = strrchr(self, '/'), *step;
	size_t stem;

	if (!leaf || strcmp(leaf, "/slurm") != 0)
		return -1;
	/* The component before it: step_<id>, with an id ("0", "batch", "0+1"). */
	for (step = leaf; step > self && step[-1] != '/'; step--)
		;
	if (step == self || strncmp(step, "step_", 5) != 0 || step + 5 == leaf)
		return -1;
	stem = (size_t)(leaf - self);
	if ((size_t)snprintf(out, len, "%.*s/user", (int)stem, self) >= len)
		return -1;
	return 0;
}

/* This process's path in the cgroup2 hierarchy ("0::PATH" of /proc/self/cgroup). */
static int own_cgroup2_path(char *buf, size_t len)
{
	char line[PATH_MAX + 8];
	FILE *f = fopen("/proc/self/cgroup", "re");
	int rc = -1;

	if (!f)
		return -1;
	while (rc < 0 && fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			rc = (size_t)snprintf(buf, len, "%s", line + 3) < len ? 0 : -1;
		}
	fclose(f);
	return rc;
}

/* The first mount of the cgroup2 hierarchy's root, controllers or not. */
static int any_cgroup2_mount(char *mnt, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int rc;

	if (!f)
		return -1;
	rc = next_cgroup2_root(f, mnt, len);
	fclose(f);
	return rc;
}

int ibnet_bpf_floor_find_slurm_step(char *dir, size_t len)
{
	char self[PATH_MAX], user[PATH_MAX], mnt[PATH_MAX];
	struct stat st;

	if (own_cgroup2_path(self, sizeof(self)) < 0 ||
	    ibnet_bpf_floor_slurm_dir(self, user, sizeof(user)) < 0 ||
	    any_cgroup2_mount(mnt, sizeof(mnt)) < 0 ||
	    (size_t)snprintf(dir, len, "%s%s", strcmp(mnt, "/") == 0 ? "" : mnt, user) >= len)
		return -1;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

int ibnet_bpf_floor_find_slurm_scope(char *dir, size_t len)
{
	char mnt[PATH_MAX], slice[PATH_MAX + 16];
	struct dirent *e;
	DIR *d;
	int rc = -1;

	if (any_cgroup2_mount(mnt, sizeof(mnt)) < 0)
		return -1;
	snprintf(slice, sizeof(slice), "%s/system.slice", strcmp(mnt, "/") == 0 ? "" : mnt);
	d = opendir(slice);
	if (!d)
		return -1;
	while (rc < 0 && (e = readdir(d))) {
		size_t n = strlen(e->d_name), tail = strlen("slurmstepd.scope");

		/* slurmstepd.scope, or NODE_slurmstepd.scope with several slurmd */
		if (e->d_type == DT_DIR && n >= tail &&
		    strcmp(e->d_name + n - tail, "slurmstepd.scope") == 0 &&
		    (n == tail || e->d_name[n - tail - 1] == '_') &&
		    (size_t)snprintf(dir, len, "%s/%s", slice, e->d_name) < len)
			rc = 0;
	}
	closedir(d);
	return rc;
}

int ibnet_bpf_floor_name(char *buf, size_t len, unsigned long job, const char *step,
			 const char *host)
{
	char node[IBNET_BPF_FLOOR_HOST_MAX + 1];
	size_t i, n = 0;
	int w;

	/* The host's name in the plugin's alphabet (lower case, digits, '-'), cut short. */
	for (i = 0; host && host[i] && host[i] != '.' && n < IBNET_BPF_FLOOR_HOST_MAX; i++) {
		unsigned char c = (unsigned char)tolower((unsigned char)host[i]);

		node[n++] = isalnum(c) || c == '-' ? (char)c : '-';
	}
	node[n] = '\0';
	w = snprintf(buf, len, "job_%lu.step_%s%s%s", job, step, n ? "." : "", node);
	return w < 0 || (size_t)w >= len || !ibnet_bpf_floor_is_ours(buf) ? -1 : 0;
}

bool ibnet_bpf_floor_is_ours(const char *name)
{
	const char *p = name;

	if (strncmp(p, "job_", 4) != 0 || !isdigit((unsigned char)p[4]))
		return false;
	for (p += 4; isdigit((unsigned char)*p); p++)
		;
	if (strncmp(p, ".step_", 6) != 0 || !p[6] || p[6] == '.')
		return false;
	for (p += 6; *p && *p != '.'; p++)
		if (!isdigit((unsigned char)*p) && !islower((unsigned char)*p))
			return false;
	if (!*p)
		return true;
	if (!*++p)	/* a node's name after the dot, not nothing */
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p) && !islower((unsigned char)*p) && *p != '-')
			return false;
	return true;
}

/* The node part of one of our names ("c1-4" of job_12.step_0.c1-4), "" if none. */
static const char *node_part(const char *name)
{
	const char *step = strstr(name, ".step_"), *dot = step ? strchr(step + 6, '.') : NULL;

	return dot ? dot + 1 : "";
}

/*
 * May this node remove `name`? Only its own directories, or ones of no node:
 * a sibling node on the same kernel may have made its step's a moment ago
 * and not yet moved its tasks in.
 */
static bool this_nodes(const char *name, const char *node)
{
	const char *theirs = node_part(name);

	return !node || !node[0] || !theirs[0] || strcmp(theirs, node) == 0;
}

#ifdef IBNET_BPF_FLOOR_TESTING
/*
 * Test builds only (build/tests/bpf_floor_run; the plugin and ibnet-hosts
 * have none of this), to force the order of two processes:
 * IBNET_BPF_FLOOR_TEST_FILES=PREFIX, and IBNET_BPF_FLOOR_TEST_PAUSE=POINT
 * to stop at POINT: touch PREFIX.POINT, then wait (at most 30 s) for
 * PREFIX.POINT.go. Points: "made" (a step's directory made, its program
 * not yet attached), "queried" (the sweep found a directory with no program
 * and has not yet removed it). PREFIX.blocked is touched, without a stop,
 * when the lock is first found held by another.
 */
static void test_point(const char *point, bool stop)
{
	const char *prefix = getenv("IBNET_BPF_FLOOR_TEST_FILES"),
		   *at = getenv("IBNET_BPF_FLOOR_TEST_PAUSE");
	char path[PATH_MAX];
	int fd, i;

	if (!prefix || (stop && (!at || strcmp(at, point) != 0)))
		return;
	snprintf(path, sizeof(path), "%s.%s", prefix, point);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	if (!stop)
		return;
	snprintf(path, sizeof(path), "%s.%s.go", prefix, point);
	for (i = 0; i < 3000 && access(path, F_OK) != 0; i++)
		usleep(10000);
}
#else
static void test_point(const char *point, bool stop)
{
	(void)point;
	(void)stop;
}
#endif

/* How long a step's start, stop or sweep waits for the lock another holds. */
#define LOCK_WAIT_MS 2000

/*
 * One try at the lock (lock_parent): the descriptor, locked; -2 to try
 * again (held by another, or the directory removed or not yet made
 * meanwhile); -1 with why.
 */
static int try_lock(const char *parent, bool make, char *why, size_t wlen)
{
	struct stat held, now;
	int fd;

	if (make && mkdir(parent, 0700) < 0 && errno != EEXIST) {
		snprintf(why, wlen, "cannot make %s: %m", parent);
		return -1;
	}
	fd = open(parent, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && make)	/* removed between the mkdir and the open */
			return -2;
		if (errno != ENOENT)
			snprintf(why, wlen, "cannot open %s: %m", parent);
		return -1;
	}
	if (fstat(fd, &held) < 0) {
		snprintf(why, wlen, "cannot check %s: %m", parent);
		close(fd);
		return -1;
	}
	if (held.st_uid != 0) {
		snprintf(why, wlen, "%s is not root's (owner %u): the plugin makes its cgroups only "
			 "in a directory of root's", parent, (unsigned)held.st_uid);
		close(fd);
		return -1;
	}
	/* A user who could open it could hold the lock and keep steps from the
	 * tier: one made 0755 (before 0.9) is narrowed to root's only. */
	if ((held.st_mode & 077) && fchmod(fd, 0700) < 0) {
		snprintf(why, wlen, "cannot make %s root's only (mode 0700): %m", parent);
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK)
			snprintf(why, wlen, "cannot lock %s: %m", parent);
		close(fd);
		return errno == EWOULDBLOCK ? -2 : -1;
	}
	/* Locked: still the directory at that path, or one removed meanwhile? */
	if (stat(parent, &now) == 0 && now.st_dev == held.st_dev && now.st_ino == held.st_ino)
		return fd;
	close(fd);
	return -2;
}

/*
 * The lock that makes a sweep's query and removal of a directory one step
 * against a step's making of its directory and attaching to it (issue 50,
 * finding 4: a step attached between another step's sweep asking the
 * kernel whether its empty directory had a program and removing it, and
 * its tasks ran without the floor): flock on <mount>/spank-ibnet itself.
 * That directory, not a file elsewhere: every node on this kernel shares
 * the hierarchy, and so the lock, whatever /run each has. Mode 0700, root's:
 * no user can open it to hold the lock and keep steps from the tier. It is
 * removed only under the lock, so a directory locked and still at its path
 * is the one every other holder locks. make: make it if it is not there (a
 * step's start). Waits at most LOCK_WAIT_MS, and never blocks slurmstepd
 * longer. Unlocked by closing. The descriptor, or -1 with why ("" where
 * make is false and there is no directory: nothing to lock).
 */
static int lock_parent(const char *mount, bool make, char *why, size_t wlen)
{
	char parent[PATH_MAX];
	int waited_ms, fd;

	why[0] = '\0';
	if ((size_t)snprintf(parent, sizeof(parent), "%s/" IBNET_BPF_FLOOR_DIR, mount) >=
	    sizeof(parent)) {
		snprintf(why, wlen, "the cgroup2 mount's path %s is too long", mount);
		return -1;
	}
	for (waited_ms = 0; waited_ms <= LOCK_WAIT_MS; waited_ms += 10) {
		fd = try_lock(parent, make, why, wlen);
		if (fd != -2)
			return fd;
		if (!waited_ms)
			test_point("blocked", false);
		usleep(10000);
	}
	snprintf(why, wlen, "%s was held locked for over %d s by another step's start, stop or "
		 "sweep (the lock that keeps a sweep from removing a starting step's cgroup)",
		 parent, LOCK_WAIT_MS / 1000);
	return -1;
}

/*
 * rmdir <mount>/spank-ibnet if no step's directory is left in it, under the
 * lock (lock_parent says why). Lock not had: left, empty; harmless, and the
 * next step's stop removes it.
 */
static void remove_parent_if_empty(const char *mount)
{
	char parent[PATH_MAX], why[PATH_MAX + 200];
	int lock = lock_parent(mount, false, why, sizeof(why));

	if (lock < 0)
		return;
	snprintf(parent, sizeof(parent), "%s/" IBNET_BPF_FLOOR_DIR, mount);
	rmdir(parent);	/* fails while another step's cgroup is there */
	close(lock);
}

/* Write one line to a cgroup file (cgroup.procs): 0, or -1 with errno. */
static int write_line(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0, saved;
	size_t n = strlen(text);

	if (fd < 0)
		return -1;
	if (write(fd, text, n) != (ssize_t)n)
		rc = -1;
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int ibnet_bpf_floor_add_pid(const struct ibnet_bpf_floor *f, pid_t pid, char *why, size_t wlen)
{
	char path[PATH_MAX + 16], text[32];

	if (!f->cgroup[0]) {
		snprintf(why, wlen, "no cgroup was made for the step");
		return -1;
	}
	if (f->slurms)	/* Slurm put the task below it (user/task_N) before post_fork */
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.procs", f->cgroup);
	snprintf(text, sizeof(text), "%d\n", (int)pid);
	if (write_line(path, text) == 0)
		return 0;
	snprintf(why, wlen, "cannot move process %d into %s: %m", (int)pid, f->cgroup);
	return -1;
}

/*
 * Move what is left in dir to the mount's root; how many were moved.
 * Bounded: a process that forks as fast as we move is left, and rmdir says so.
 */
static int move_out(const char *dir, const char *mount)
{
	char path[PATH_MAX + 16], root[PATH_MAX + 16], line[32];
	int moved = 0, round;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(root, sizeof(root), "%s/cgroup.procs", mount);
	for (round = 0; round < 3; round++) {
		FILE *f = fopen(path, "re");
		int here = 0;

		if (!f)
			break;
		while (moved < STRAGGLERS_MAX && fgets(line, sizeof(line), f)) {
			here++;
			if (write_line(root, line) == 0)
				moved++;
		}
		fclose(f);
		if (!here)
			break;
	}
	return moved;
}

/*
 * rmdir dir, moving stragglers out first, then its parent if no other
 * step's is left there; a sentence into note if it stays or had some.
 */
static void remove_cgroup(const char *dir, const char *mount, char *note, size_t nlen)
{
	int moved = move_out(dir, mount);

	if (rmdir(dir) == 0 || errno == ENOENT) {
		remove_parent_if_empty(mount);
		if (moved)
			snprintf(note, nlen, "%d process%s still in %s moved to %s", moved,
				 moved == 1 ? "" : "es", dir, mount);
		return;
	}
	snprintf(note, nlen, "cgroup %s left: %m (the next step's start on this node removes it "
		 "once empty)", dir);
}

/*
 * Is a sock_ops program attached to the cgroup at path? Asked of the kernel
 * (BPF_PROG_QUERY, a raw system call: the sweep needs no libbpf). A step's
 * program lives as long as its slurmstepd holds the link, so a directory
 * with one is a live step's, empty or not: its tasks are moved in only at
 * task_post_fork, after the attach. -1 when the kernel cannot say (taken
 * as attached: nothing is removed on a guess).
 */
static int program_attached(const char *path)
{
	union bpf_attr attr;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.query.target_fd = (__u32)fd;
	attr.query.attach_type = BPF_CGROUP_SOCK_OPS;
	rc = (int)syscall(__NR_bpf, BPF_PROG_QUERY, &attr, sizeof(attr));
	close(fd);
	if (rc < 0)
		return -1;
	return attr.query.prog_cnt > 0;
}

int ibnet_bpf_floor_sweep(const char *mount, const char *keep, char *note, size_t nlen)
{
	char dir[PATH_MAX], path[PATH_MAX * 2], why[PATH_MAX + 200];
	size_t used = 0;
	struct dirent *e;
	DIR *d;
	int removed = 0, lock;

	note[0] = '\0';
	/*
	 * Under the lock, so no step attaches between the query and the rmdir
	 * below. Not had: nothing swept (the stale directories wait for the
	 * next start); the attach that follows waits for the same lock and,
	 * not getting it, says why.
	 */
	lock = lock_parent(mount, false, why, sizeof(why));
	if (lock < 0)
		return 0;
	snprintf(dir, sizeof(dir), "%s/" IBNET_BPF_FLOOR_DIR, mount);
	d = opendir(dir);
	if (!d) {
		close(lock);
		return 0;
	}
	while ((e = readdir(d))) {
		if (!ibnet_bpf_floor_is_ours(e->d_name) || (keep && strcmp(e->d_name, keep) == 0) ||
		    !this_nodes(e->d_name, keep ? node_part(keep) : NULL))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		/* A program attached: a live step's, whose tasks are not in yet. */
		if (program_attached(path) != 0)
			continue;
		test_point("queried", true);
		if (rmdir(path) < 0)	/* processes or children in it: not stale, or not yet */
			continue;
		removed++;
		if (used < nlen) {
			int n = snprintf(note + used, nlen - used, "%s%s", used ? " " : "", e->d_name);

			used += n > 0 ? (size_t)n : 0;
		}
	}
	closedir(d);
	close(lock);
	return removed;
}

int ibnet_bpf_floor_sweep_job(const char *mount, unsigned long job, const char *host,
			      char *note, size_t nlen)
{
	char node[IBNET_BPF_FLOOR_HOST_MAX + 64];
	char dir[PATH_MAX], path[PATH_MAX * 2], prefix[40];
	size_t used = 0, plen;
	struct dirent *e;
	DIR *d;
	int removed = 0;

	note[0] = '\0';
	snprintf(prefix, sizeof(prefix), "job_%lu.step_", job);
	plen = strlen(prefix);
	/* This node's part, as ibnet_bpf_floor_name writes it. */
	if (!host || !host[0] || ibnet_bpf_floor_name(node, sizeof(node), job, "x", host) < 0)
		node[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/" IBNET_BPF_FLOOR_DIR, mount);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		int moved, n;

		if (strncmp(e->d_name, prefix, plen) != 0 || !ibnet_bpf_floor_is_ours(e->d_name) ||
		    !this_nodes(e->d_name, node[0] ? node_part(node) : NULL))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		moved = move_out(path, mount);
		if (rmdir(path) < 0 && errno != ENOENT)
			n = snprintf(note + used, nlen - used, "%s%s left: %m", used ? ", " : "",
				     e->d_name);
		else if (++removed, moved)
			n = snprintf(note + used, nlen - used, "%s%s (%d process%s moved to %s)",
				     used ? ", " : "", e->d_name, moved, moved == 1 ? "" : "es", mount);
		else
			n = snprintf(note + used, nlen - used, "%s%s", used ? ", " : "", e->d_name);
		used += n > 0 ? (size_t)n : 0;
		if (used >= nlen)
			used = nlen - 1;
	}
	closedir(d);
	remove_parent_if_empty(mount);	/* kept while another job's step is there */
	return removed;
}

#ifdef IBNET_HAVE_LIBBPF

/*
 * libbpf, opened when a step needs the BPF tier (in slurmstepd, as root),
 * not linked: srun, sbatch and salloc load the plugin too, on login nodes
 * that need not have libbpf, and a library the plugin is linked with but
 * the node lacks fails every job submission there. Its headers give the
 * types; 0.8 is the oldest with every call below (bpf_map__update_elem and
 * bpf_map__lookup_elem are LIBBPF_0.8.0).
 */
#define LIBBPF_CALLS(X) \
	X(bpf_object__open_mem) X(bpf_object__load) X(bpf_object__close) \
	X(bpf_object__find_map_by_name) X(bpf_object__find_program_by_name) \
	X(bpf_map__update_elem) X(bpf_map__lookup_elem) X(bpf_program__attach_cgroup) \
	X(bpf_link__destroy) X(libbpf_set_print) X(libbpf_num_possible_cpus) \
	X(bpf_map__initial_value)
#define LIBBPF_POINTER(name) __typeof__(name) *name;
static struct {
	void *handle;
	LIBBPF_CALLS(LIBBPF_POINTER)
} lib;

/* The library's file names, newest first (1.x, then 0.8 and later of 0.x). */
static const char *const libbpf_sonames[] = { "libbpf.so.1", "libbpf.so.0" };

/* Open libbpf once per process: 0, or -1 with why (the tier is then unavailable). */
static int libbpf_open(char *why, size_t wlen)
{
	char tried[400] = "";
	size_t used = 0, i;
	void *h = NULL;

	if (lib.handle)
		return 0;
	for (i = 0; !h && i < sizeof(libbpf_sonames) / sizeof(libbpf_sonames[0]); i++) {
		h = dlopen(libbpf_sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (!h && used < sizeof(tried)) {
			int n = snprintf(tried + used, sizeof(tried) - used, "%s%s", used ? "; " : "",
					 dlerror());
			used += n > 0 ? (size_t)n : 0;
		}
	}
	if (!h) {
		snprintf(why, wlen, "libbpf (0.8 or later) is not on this node (%s): install it "
			 "(Debian, Ubuntu: libbpf1; RHEL, SUSE: libbpf) for the BPF tier", tried);
		return -1;
	}
#define LIBBPF_FIND(name) \
	if (!(lib.name = (__typeof__(name) *)dlsym(h, #name))) { \
		snprintf(why, wlen, "the libbpf on this node is older than 0.8: it has no %s " \
			 "(install libbpf 0.8 or later for the BPF tier)", #name); \
		dlclose(h); \
		memset(&lib, 0, sizeof(lib)); \
		return -1; \
	}
	LIBBPF_CALLS(LIBBPF_FIND)
#undef LIBBPF_FIND
	lib.handle = h;
	return 0;
}

/*
 * libbpf's last warning (the verifier's refusal, a missing object), for the
 * log line; its debug and info lines are dropped. One step at a time per
 * process (slurmstepd), so one buffer does.
 */
static char libbpf_said[256];

static int keep_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[sizeof(libbpf_said)];

	if (level != LIBBPF_WARN)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if (line[0])
		memcpy(libbpf_said, line, sizeof(line));
	return 0;
}

/*
 * Whether a pointer libbpf returned is a failure: NULL, or before libbpf 1.0
 * (0.8 is accepted) an error pointer, -errno cast to a pointer, unless the
 * process set its strict mode, which a library cannot do for slurmstepd.
 * *err: the errno. Dereferencing one crashed slurmstepd as root (issue 50).
 */
static bool libbpf_failed(const void *p, int *err)
{
	uintptr_t v = (uintptr_t)p;

	if (p && v < (uintptr_t)-4095)
		return false;
	*err = p ? (int)-(intptr_t)v : (errno ? errno : EINVAL);
	return true;
}

/*
 * Whether path (a file or directory root's checks passed on) has an access
 * ACL: the kernel stores none for the plain mode bits, so any is an entry
 * for a named user or group, which may let another user write what the
 * mode says only root may (issue 50: a root-owned 0644 file with
 * user:nobody:rw read as mode 0664 and passed). fd >= 0: asked of it.
 */
static bool has_access_acl(int fd, const char *path)
{
	ssize_t n = fd >= 0 ? fgetxattr(fd, "system.posix_acl_access", NULL, 0) :
			      lgetxattr(path, "system.posix_acl_access", NULL, 0);

	return n > 0;
}

/*
 * May root load the object at path? Only if no user but root could have
 * written it: the file and every directory above it (symbolic links
 * resolved) owned by root, and writable by no other user: not by others,
 * and by the group only where the group is root's. A directory writable by
 * all with the sticky bit (/tmp) lets no user replace root's file in it.
 * The rule sshd applies to its keys (StrictModes): an admin who points
 * tcp_rto_bpf= at a group-writable software tree would otherwise have root
 * load whatever a user put there. An access ACL on any of them refuses it
 * too. The file is checked on fd, the descriptor its bytes are then read
 * from (ibnet_bpf_floor_load): a name checked and then opened again could
 * be swapped in between (issue 50: a symbolic link in a directory a user
 * writes, swapped in a loop, had root load the user's object). real: the
 * path fd was opened on, symbolic links resolved; *file_st: the file's
 * stat, as checked. 0, or -1 with why.
 */
static int writable_only_by_root(int fd, const char *real_path, struct stat *file_st, char *why,
				 size_t wlen)
{
	char real[PATH_MAX], *slash;
	struct stat st;
	bool file = true;

	snprintf(real, sizeof(real), "%s", real_path);
	for (;;) {
		bool group_w, other_w;

		if ((file ? fstat(fd, &st) : lstat(real[0] ? real : "/", &st)) != 0) {
			snprintf(why, wlen, "cannot check %s: %m", real[0] ? real : "/");
			return -1;
		}
		if (has_access_acl(file ? fd : -1, real[0] ? real : "/")) {
			snprintf(why, wlen, "root loads no BPF object that another user could have "
				 "written: %s has an access ACL, which may let other users write it; "
				 "remove it (setfacl -b) or set tcp_rto_bpf= in plugstack.conf",
				 real[0] ? real : "/");
			return -1;
		}
		group_w = (st.st_mode & S_IWGRP) && st.st_gid != 0;
		other_w = (st.st_mode & S_IWOTH) != 0;
		if (!file && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX))
			group_w = other_w = false;	/* others may add files, not replace root's */
		if ((file && !S_ISREG(st.st_mode)) || st.st_uid != 0 || group_w || other_w) {
			snprintf(why, wlen, "root loads no BPF object that another user could have "
				 "written: %s is %s (owner %u, group %u, mode %04o); make it and the "
				 "directories above it root's and writable only by root, or set "
				 "tcp_rto_bpf= in plugstack.conf", real[0] ? real : "/",
				 file && !S_ISREG(st.st_mode) ? "not a regular file" :
				 st.st_uid != 0 ? "not owned by root" : "writable by other users",
				 (unsigned)st.st_uid, (unsigned)st.st_gid,
				 (unsigned)(st.st_mode & 07777));
			return -1;
		}
		if (file)
			*file_st = st;
		if (!real[0])
			return 0;	/* "/" checked */
		slash = strrchr(real, '/');
		*slash = '\0';		/* the parent; "" is the root */
		file = false;
	}
}

/*
 * The kernel's HZ as libbpf resolved the program's CONFIG_HZ from the
 * kernel's config (/boot/config-RELEASE or /proc/config.gz): its only
 * kconfig extern, at the start of its .kconfig map. 0 where unknown.
 */
static unsigned int loaded_hz(struct bpf_object *obj)
{
	struct bpf_map *kconfig = lib.bpf_object__find_map_by_name(obj, ".kconfig");
	const unsigned int *hz;
	size_t size = 0;

	if (!kconfig)
		return 0;
	hz = lib.bpf_map__initial_value(kconfig, &size);
	return hz && size >= sizeof(*hz) ? *hz : 0;
}

/* The most bytes a floor object may have (ours is a few KiB; its BTF some more). */
#define OBJECT_MOST (16 * 1024 * 1024)

/*
 * The object's bytes, from one descriptor on its resolved path whose file
 * and directories writable_only_by_root checked: what is checked is what
 * is loaded. *image: malloc'd. 0, or -1 with why.
 */
static int read_checked(const char *object, void **image, size_t *size, char *why, size_t wlen)
{
	char real[PATH_MAX];
	struct stat st = { 0 };	/* writable_only_by_root fills it */
	size_t got = 0;
	char *buf;
	int fd;

	if (!realpath(object, real)) {
		snprintf(why, wlen, "its BPF object %s is not on this node (%m)", object);
		return -1;
	}
	fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, wlen, "cannot open its BPF object %s: %m", real);
		return -1;
	}
	if (writable_only_by_root(fd, real, &st, why, wlen) < 0) {
		close(fd);
		return -1;
	}
	if (st.st_size <= 0 || st.st_size > OBJECT_MOST || !(buf = malloc((size_t)st.st_size))) {
		snprintf(why, wlen, "its BPF object %s is %lld bytes, not a floor program's "
			 "(1 to %d)", real, (long long)st.st_size, OBJECT_MOST);
		close(fd);
		return -1;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n <= 0) {
			snprintf(why, wlen, "cannot read its BPF object %s: %s", real,
				 n < 0 ? strerror(errno) : "shorter than it was");
			free(buf);
			close(fd);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	*image = buf;
	*size = got;
	return 0;
}

int ibnet_bpf_floor_load(struct ibnet_bpf_floor *f, const char *object, unsigned long floor_us,
			 char *why, size_t wlen)
{
	struct bpf_object *obj;
	struct bpf_map *config;
	__u32 key = 0, value = (__u32)floor_us;
	void *image = NULL;
	size_t size = 0;
	int err;

	memset(f, 0, sizeof(*f));
	libbpf_said[0] = '\0';
	if (access(object, R_OK) != 0) {
		snprintf(why, wlen, "its BPF object %s is not on this node (%m)", object);
		return -1;
	}
	if (libbpf_open(why, wlen) < 0)
		return -1;
	lib.libbpf_set_print(keep_warning);
	if (read_checked(object, &image, &size, why, wlen) < 0)
		return -1;
	{
		LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = PROG_NAME);

		obj = lib.bpf_object__open_mem(image, size, &opts);
	}
	if (libbpf_failed(obj, &err)) {
		snprintf(why, wlen, "libbpf cannot open %s: %s%s%s", object, strerror(err),
			 libbpf_said[0] ? ": " : "", libbpf_said);
		free(image);
		return -1;
	}
	err = lib.bpf_object__load(obj);
	if (err) {
		snprintf(why, wlen, "the kernel refused the BPF program of %s: %s%s%s%s", object,
			 strerror(-err), -err == EPERM ? " (loading needs CAP_BPF: root)" : "",
			 libbpf_said[0] ? ": " : "", libbpf_said);
		lib.bpf_object__close(obj);
		free(image);
		return -1;
	}
	f->hz = loaded_hz(obj);
	floor_us = ibnet_floor_as_kernel_takes((unsigned int)floor_us, f->hz);
	value = (__u32)floor_us;
	config = lib.bpf_object__find_map_by_name(obj, MAP_CONFIG);
	if (!config || !lib.bpf_object__find_map_by_name(obj, MAP_COUNTS) ||
	    !lib.bpf_object__find_program_by_name(obj, PROG_NAME)) {
		snprintf(why, wlen, "%s is not spank-ibnet's floor program (no %s, %s or %s)",
			 object, PROG_NAME, MAP_CONFIG, MAP_COUNTS);
		lib.bpf_object__close(obj);
		free(image);
		return -1;
	}
	err = lib.bpf_map__update_elem(config, &key, sizeof(key), &value, sizeof(value), BPF_ANY);
	if (err) {
		snprintf(why, wlen, "cannot write the floor into the BPF program: %s", strerror(-err));
		lib.bpf_object__close(obj);
		free(image);
		return -1;
	}
	f->obj = obj;
	f->image = image;
	f->floor_us = floor_us;
	return 0;
}

/* Attach the program to the directory f->cgroup (made or Slurm's): 0, or -1 with why. */
static int attach_to(struct ibnet_bpf_floor *f, struct bpf_program *prog, char *why, size_t wlen)
{
	struct bpf_link *link;
	int fd, err;

	fd = open(f->cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, wlen, "cannot open the step's cgroup %s: %m", f->cgroup);
		return -1;
	}
	errno = 0;
	link = lib.bpf_program__attach_cgroup(prog, fd);
	close(fd);	/* the link holds the cgroup */
	if (libbpf_failed(link, &err)) {
		snprintf(why, wlen, "cannot attach the BPF program to %s: %s%s%s", f->cgroup,
			 strerror(err), libbpf_said[0] ? ": " : "", libbpf_said);
		return -1;
	}
	f->link = link;
	return 0;
}

/*
 * A directory of the step's own name, found under the lock (lock_parent):
 * another node's of this name on this kernel (two slurmd or containers
 * under one hostname), or left by an earlier run of this step (a requeued
 * job whose epilog never ran: issue 50, finding 5, where the step ran
 * without the tier). Every step attaches under the same lock, so a live
 * step's has its program: that one is refused, as is one the kernel cannot
 * say of, one not root's, and one with processes or cgroups in it (rmdir
 * refuses). One with none of these is left over: removed and made again,
 * said in note. 0, or -1 with why (the directory left alone).
 */
static int replace_stale(const char *dir, char *note, size_t nlen, char *why, size_t wlen)
{
	int attached = program_attached(dir);
	struct stat st;

	if (attached > 0) {
		/* Sharing it, each node would count the other's sockets, and the
		 * first to stop would move the other's tasks out. */
		snprintf(why, wlen, "the step's cgroup %s already exists, made by another node of "
			 "this name on this machine (two slurmd or containers under one hostname?)",
			 dir);
		return -1;
	}
	if (attached < 0) {
		snprintf(why, wlen, "the step's cgroup %s already exists, and the kernel cannot say "
			 "whether a program is attached to it (BPF_PROG_QUERY): left alone", dir);
		return -1;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0) {
		snprintf(why, wlen, "the step's cgroup %s already exists and is not a directory of "
			 "root's: left alone", dir);
		return -1;
	}
	if (rmdir(dir) < 0) {
		snprintf(why, wlen, "the step's cgroup %s already exists with no program attached "
			 "but cannot be removed (%m: processes or cgroups in it, an earlier run's "
			 "tasks that outlived it?): left alone", dir);
		return -1;
	}
	if (mkdir(dir, 0755) < 0) {
		snprintf(why, wlen, "cannot make the step's cgroup %s again: %m", dir);
		return -1;
	}
	snprintf(note, nlen, "the step's cgroup %s was left by an earlier run of this step (no "
		 "program attached, no process in it: a requeued job whose epilog did not run?); "
		 "removed and made anew", dir);
	return 0;
}

int ibnet_bpf_floor_attach(struct ibnet_bpf_floor *f, const char *mount, const char *name,
			   char *why, size_t wlen)
{
	struct bpf_program *prog = f->obj ? lib.bpf_object__find_program_by_name(f->obj, PROG_NAME) :
				   NULL;
	char parent[PATH_MAX];
	int lock;
	bool made;

	f->note[0] = '\0';
	if (!prog || !ibnet_bpf_floor_is_ours(name)) {
		snprintf(why, wlen, "no program loaded, or '%s' is not a step's cgroup name", name);
		return -1;
	}
	if ((size_t)snprintf(parent, sizeof(parent), "%s/" IBNET_BPF_FLOOR_DIR, mount) >=
	    sizeof(parent) ||
	    (size_t)snprintf(f->cgroup, sizeof(f->cgroup), "%s/%s", parent, name) >=
	    sizeof(f->cgroup)) {
		f->cgroup[0] = '\0';
		snprintf(why, wlen, "the cgroup2 mount's path %s is too long", mount);
		return -1;
	}
	snprintf(f->mount, sizeof(f->mount), "%s", mount);
	/* Made and attached under the lock: no sweep sees it without its program. */
	lock = lock_parent(mount, true, why, wlen);
	if (lock < 0) {
		f->cgroup[0] = '\0';
		return -1;
	}
	made = mkdir(f->cgroup, 0755) == 0;
	if (!made && errno == EEXIST)
		made = replace_stale(f->cgroup, f->note, sizeof(f->note), why, wlen) == 0;
	else if (!made)
		snprintf(why, wlen, "cannot make the step's cgroup %s: %m", f->cgroup);
	if (made) {
		test_point("made", true);
		if (attach_to(f, prog, why, wlen) < 0) {
			rmdir(f->cgroup);
			made = false;
		}
	}
	close(lock);
	if (!made)
		f->cgroup[0] = '\0';
	return made ? 0 : -1;
}

int ibnet_bpf_floor_attach_slurms(struct ibnet_bpf_floor *f, const char *dir, char *why,
				  size_t wlen)
{
	struct bpf_program *prog = f->obj ? lib.bpf_object__find_program_by_name(f->obj, PROG_NAME) :
				   NULL;

	if (!prog) {
		snprintf(why, wlen, "no program loaded");
		return -1;
	}
	if ((size_t)snprintf(f->cgroup, sizeof(f->cgroup), "%s", dir) >= sizeof(f->cgroup)) {
		f->cgroup[0] = '\0';
		snprintf(why, wlen, "the step cgroup's path %s is too long", dir);
		return -1;
	}
	f->slurms = true;
	if (attach_to(f, prog, why, wlen) == 0)
		return 0;
	f->cgroup[0] = '\0';	/* Slurm's: never removed here */
	f->slurms = false;
	return -1;
}

int ibnet_bpf_floor_read(const struct ibnet_bpf_floor *f, struct ibnet_bpf_floor_counts *c)
{
	struct bpf_map *counts;
	unsigned long long sums[COUNT_KEYS] = { 0 };
	int cpus = f->obj ? lib.libbpf_num_possible_cpus() : 0, i;
	__u64 *per_cpu;
	__u32 key;

	memset(c, 0, sizeof(*c));
	if (!f->obj || cpus <= 0 || !(counts = lib.bpf_object__find_map_by_name(f->obj, MAP_COUNTS)))
		return -1;
	per_cpu = calloc((size_t)cpus, sizeof(*per_cpu));
	if (!per_cpu)
		return -1;
	for (key = 0; key < COUNT_KEYS; key++) {
		if (lib.bpf_map__lookup_elem(counts, &key, sizeof(key), per_cpu,
					 (size_t)cpus * sizeof(*per_cpu), 0))
			continue;
		for (i = 0; i < cpus; i++)
			sums[key] += per_cpu[i];
	}
	free(per_cpu);
	c->floored = sums[COUNT_FLOORED];
	c->refused = sums[COUNT_REFUSED];
	c->rto = sums[COUNT_RTO];
	c->retrans = sums[COUNT_RETRANS];
	return 0;
}

void ibnet_bpf_floor_stop(struct ibnet_bpf_floor *f, char *note, size_t nlen)
{
	note[0] = '\0';
	if (f->link)
		lib.bpf_link__destroy(f->link);
	if (f->obj)
		lib.bpf_object__close(f->obj);
	free(f->image);
	if (f->cgroup[0] && !f->slurms)
		remove_cgroup(f->cgroup, f->mount, note, nlen);
	memset(f, 0, sizeof(*f));
}

#else	/* no libbpf: the tier is unavailable, and says so */

int ibnet_bpf_floor_load(struct ibnet_bpf_floor *f, const char *object, unsigned long floor_us,
			 char *why, size_t wlen)
{
	(void)object;
	(void)floor_us;
	memset(f, 0, sizeof(*f));
	snprintf(why, wlen, "this spank-ibnet was built without libbpf (its BPF tier)");
	return -1;
}

int ibnet_bpf_floor_attach(struct ibnet_bpf_floor *f, const char *mount, const char *name,
			   char *why, size_t wlen)
{
	(void)f;
	(void)mount;
	(void)name;
	snprintf(why, wlen, "this spank-ibnet was built without libbpf (its BPF tier)");
	return -1;
}

int ibnet_bpf_floor_attach_slurms(struct ibnet_bpf_floor *f, const char *dir, char *why,
				  size_t wlen)
{
	(void)f;
	(void)dir;
	snprintf(why, wlen, "this spank-ibnet was built without libbpf (its BPF tier)");
	return -1;
}

int ibnet_bpf_floor_read(const struct ibnet_bpf_floor *f, struct ibnet_bpf_floor_counts *c)
{
	(void)f;
	memset(c, 0, sizeof(*c));
	return -1;
}

void ibnet_bpf_floor_stop(struct ibnet_bpf_floor *f, char *note, size_t nlen)
{
	note[0] = '\0';
	if (f->cgroup[0])
		remove_cgroup(f->cgroup, f->mount, note, nlen);
	memset(f, 0, sizeof(*f));
}

#endif
