/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_bpf_floor.h - the BPF tier of the TCP retransmission floor: the
 * sock_ops program (tcp-floor-bpf/ibnet_tcp_floor.bpf.c) loaded with
 * libbpf, attached to a cgroup v2 directory of the plugin's own that holds
 * one step's tasks, its counters read, detached and the directory removed.
 *
 * Which cgroup: Slurm's own where it gives the step one, else one of ours.
 * Slurm's cgroup/v2 (the unified hosts of RHEL 9/10, Debian 13, SLES 16,
 * with proctrack/cgroup) makes .../job_J/step_S/{slurm,user/task_N} before
 * the SPANK plugins start and puts slurmstepd in step_S/slurm: the program
 * is attached to step_S/user, which holds the tasks (and only them), and
 * nothing is moved, made or removed there; Slurm removes it. Where Slurm
 * gives the step no cgroup v2 (proctrack/linuxproc, cgroup/v1) there is
 * none to attach to, and one of our own is made, only in a cgroup2
 * hierarchy with no controllers enabled at its root (a tracking-only
 * hierarchy, as systemd's "unified" of a hybrid host or a bare mount):
 * there, moving a task changes no resource limit. In a hierarchy with
 * controllers but no step cgroup of Slurm's (systemd's unified mode with
 * proctrack/linuxproc) the task stays where it is and the tier is
 * unavailable, said why.
 *
 * Why nothing is pinned: the bpf_link lives in the process that attached it
 * (slurmstepd); the kernel detaches the program when the last descriptor
 * closes, so a slurmstepd that is killed leaves no program attached. Its
 * directory is removed by the job's epilog (ibnet_bpf_floor_sweep_job), its
 * tasks moved out if they outlived it; failing that (a node whose slurmd
 * died too), once empty and with no program, the next time a step starts a
 * floor on the node (ibnet_bpf_floor_sweep): a program attached is how a
 * live step's directory is told from a dead one's.
 *
 * Built without libbpf (the Makefile says so), loading fails with a sentence
 * and the rest still works: the mount search and the sweep need no libbpf.
 * Loading and attaching need CAP_BPF and CAP_NET_ADMIN (root in slurmstepd).
 */
#ifndef IBNET_BPF_FLOOR_H
#define IBNET_BPF_FLOOR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The directory under the cgroup2 mount that holds the plugin's cgroups. */
#define IBNET_BPF_FLOOR_DIR "spank-ibnet"

struct ibnet_bpf_floor {
	void *obj;			/* struct bpf_object *, loaded; NULL: none */
	void *image;			/* the object file's bytes obj was opened from (freed with it) */
	void *link;			/* struct bpf_link *, attached; NULL: none */
	unsigned long floor_us;		/* as the kernel takes it (ibnet_tcp_floor_rule.h) */
	unsigned int hz;		/* the kernel's CONFIG_HZ, 0 unknown (not rounded) */
	char cgroup[PATH_MAX];		/* the step's directory; "": none made */
	char mount[PATH_MAX];		/* the cgroup2 mount it is under */
	bool slurms;			/* cgroup is Slurm's step_S/user: not ours to fill or remove */
	char note[PATH_MAX + 256];	/* what the attach found, for the log: a stale directory
					 * of the step's name made anew; "": nothing */
};

/* What the step's sockets met, summed over CPUs (keys as in the program). */
struct ibnet_bpf_floor_counts {
	unsigned long long floored;	/* sockets given the floor (connect, establishment) */
	unsigned long long refused;	/* sockets the kernel refused it on */
	unsigned long long rto;		/* retransmission timeouts that fired */
	unsigned long long retrans;	/* segments retransmitted */
};

/* Was this build linked with libbpf? */
bool ibnet_bpf_floor_built(void);

/*
 * How the loaded program spreads f's floor per connection
 * (ibnet_tcp_floor_rule.h, issue 49), for the step's log line: "spread per
 * socket over 12000-24000 us (whole jiffies at HZ 250)", or why not.
 */
void ibnet_bpf_floor_spread_said(const struct ibnet_bpf_floor *f, char *buf, size_t len);

/*
 * The first cgroup2 mount in /proc/self/mountinfo, into mnt; 0, or -1 with
 * the reason in why. Nothing is mounted: a node without cgroup2 runs steps
 * without the tier (its admin mounts one; see the admin guide).
 */
int ibnet_bpf_floor_find_mount(char *mnt, size_t len, char *why, size_t wlen);

/*
 * Open `object`, write the floor into it and load it: the kernel's
 * verifier passes it or not. The floor is raised to what the kernel takes
 * (whole jiffies, at least 2: ibnet_tcp_floor_rule.h), in f->floor_us. 0, or -1 with the reason in why (f holds
 * nothing then). Needs CAP_BPF. Only an object no user but root could have
 * written is loaded: it and every directory above it root's, writable by
 * no other user (a sticky directory excepted).
 */
int ibnet_bpf_floor_load(struct ibnet_bpf_floor *f, const char *object, unsigned long floor_us,
			 char *why, size_t wlen);

/*
 * Make <mount>/spank-ibnet/<name> (name: job_J.step_S.NODE, see
 * ibnet_bpf_floor_name) and attach the loaded program to it, both under
 * the lock the sweeps take (flock on <mount>/spank-ibnet, mode 0700, waited
 * for at most 2 s), so no sweep removes it between the two. 0, or -1 with
 * why (the directory is removed again). A directory of that name that
 * exists already with a program attached is another node's of this name
 * on this kernel: -1, and it is left alone; one with no program and
 * nothing in it, root's, is an earlier run's of this step (a requeued job
 * whose epilog did not run): removed and made anew, said in f->note.
 */
int ibnet_bpf_floor_attach(struct ibnet_bpf_floor *f, const char *mount, const char *name,
			   char *why, size_t wlen);

/*
 * Slurm's cgroup/v2 step cgroup for the tasks, from this process's (the
 * slurmstepd's) own path in the cgroup2 hierarchy: ".../step_S/slurm" gives
 * ".../step_S/user" in out; -1 for any other path (no step cgroup of
 * Slurm's). Pure: tested without Slurm.
 */
int ibnet_bpf_floor_slurm_dir(const char *self, char *out, size_t len);

/*
 * The directory of Slurm's step cgroup that holds this step's tasks, as a
 * path under the node's cgroup2 mount, if this slurmstepd is in one (and it
 * exists); 0, or -1: Slurm gave the step none.
 */
int ibnet_bpf_floor_find_slurm_step(char *dir, size_t len);

/*
 * Where Slurm's cgroup/v2 puts its steps on this node, seen from outside a
 * step (ibnet-hosts --env's preview): <cgroup2 mount>/system.slice/
 * slurmstepd.scope (or NODE_slurmstepd.scope), which slurmd makes when it
 * starts with cgroup/v2. 0 with its path in dir, or -1: none here.
 */
int ibnet_bpf_floor_find_slurm_scope(char *dir, size_t len);

/*
 * Attach the loaded program to Slurm's step cgroup `dir` (above): nothing
 * made, no task moved (Slurm puts them below it), nothing removed at stop.
 * 0, or -1 with why.
 */
int ibnet_bpf_floor_attach_slurms(struct ibnet_bpf_floor *f, const char *dir, char *why,
				  size_t wlen);

/*
 * Move a process into the step's directory: before it execs, its sockets are
 * the step's. In Slurm's step cgroup, Slurm has put it there: nothing to do.
 */
int ibnet_bpf_floor_add_pid(const struct ibnet_bpf_floor *f, pid_t pid, char *why, size_t wlen);

/* The counters so far; 0, or -1 if the program is not loaded. */
int ibnet_bpf_floor_read(const struct ibnet_bpf_floor *f, struct ibnet_bpf_floor_counts *c);

/*
 * Detach and unload; move any process still in the directory to the
 * mount's root and remove the directory. What happened to it goes into
 * note ("" if it simply went).
 */
void ibnet_bpf_floor_stop(struct ibnet_bpf_floor *f, char *note, size_t nlen);

/* How much of the node's name a step's directory name carries. */
#define IBNET_BPF_FLOOR_HOST_MAX 30

/*
 * The directory name of one step on one node: "job_12.step_0.c1-4",
 * "job_12.step_batch.c1-4" (host NULL or "": no node part). The node's name
 * (up to its first dot, at most IBNET_BPF_FLOOR_HOST_MAX characters) keeps
 * nodes that share one kernel, and so one cgroup2 hierarchy, apart: the test
 * cluster's, or containers; there, without it, the nodes' programs were
 * attached to one directory, each counted every node's sockets, and the
 * first node to end its step moved the others' tasks out of it.
 * 0, or -1 if it does not fit.
 */
int ibnet_bpf_floor_name(char *buf, size_t len, unsigned long job, const char *step,
			 const char *host);

/* Is `name` one of the plugin's (job_<digits>.step_<digits or word>[.<node>])? */
bool ibnet_bpf_floor_is_ours(const char *name);

/*
 * Remove the empty directories of the plugin's naming under
 * <mount>/spank-ibnet, but `keep`, and only this node's (keep's node part)
 * or ones of no node, with no program attached: a step's whose slurmstepd
 * was killed (its link, and so its program, went with it). A live step's
 * directory has its program from the attach on, and is empty until its
 * tasks are moved in: it is left, as is one with processes (rmdir refuses)
 * or one the kernel cannot say of. Each directory's query and removal are
 * one step against a step's start: both hold the lock (ibnet_bpf_floor_attach);
 * not had within 2 s, nothing is swept. Their names go into note; returns
 * how many were removed.
 */
int ibnet_bpf_floor_sweep(const char *mount, const char *keep, char *note, size_t nlen);

/*
 * At the job's end (the job epilog, root): remove every directory of job
 * `job` of this node (`host`; NULL: of any) under <mount>/spank-ibnet, moving any process still there (a task
 * whose slurmstepd was killed) to the mount's root first, then the parent
 * if it is empty. Their names, and what was moved, go into note; returns
 * how many were removed. A step that ended normally has removed its own.
 */
int ibnet_bpf_floor_sweep_job(const char *mount, unsigned long job, const char *host,
			      char *note, size_t nlen);

#endif
