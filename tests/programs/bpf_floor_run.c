/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bpf_floor_run.c - the BPF tier's loader without Slurm, as the plugin
 * drives it in slurmstepd: find the cgroup2 mount, sweep the plugin's stale
 * cgroups, load the object with the floor, attach it to a cgroup of the
 * plugin's naming, move a child into it before it execs (task_post_fork),
 * and at the end read the counters, detach and remove (slurm_spank_exit).
 *
 *   bpf_floor_run OBJECT FLOOR_US NAME -- COMMAND [ARG...]
 *   bpf_floor_run OBJECT FLOOR_US NAME --hold PIDFILE   attach, then wait to be
 *                                                       killed (at most 120 s)
 *   bpf_floor_run --slurm-dir PATH     Slurm's step cgroup for the tasks, or "none"
 *   bpf_floor_run OBJECT FLOOR_US --slurm -- COMMAND    as slurmstepd under Slurm's
 *        cgroup/v2: this process is in .../step_S/slurm; the program goes on
 *        Slurm's .../step_S/user, the child is moved to user/task_0 first
 *        (as Slurm does), nothing is made or removed
 *
<<<<<<< HEAD
 * Built with IBNET_BPF_FLOOR_TESTING: IBNET_BPF_FLOOR_TEST_PAUSE and _FILES
 * stop it at a named point (ibnet_bpf_floor.c says which), to force the
 * order of two of them.
 *
 * Prints "swept: NAMES", "cgroup: PATH", "note: NOTE" (a stale directory of
 * its name made anew), "floor: US (asked US, HZ N)" (as the
 * kernel takes it), the command's output, then
=======
 * Prints "swept: NAMES", "cgroup: PATH", "floor: US (asked US, HZ N), spread
 * per socket over US-US ..." (as the kernel takes it), the command's output, then
>>>>>>> floor-spread
 * "counts: floored=N refused=N rto=N retrans=N" and "stopped: NOTE".
 * Run as root, under a cgroup2 mount the test made (tests/unit/tcp-floor-bpf.bats).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ibnet_bpf_floor.h"

/* What Slurm's task/cgroup does before post_fork: the task into user/task_0. */
static int move_to_task_cgroup(const char *user, pid_t pid)
{
	char path[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s/task_0/cgroup.procs", user);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", (int)pid);
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct ibnet_bpf_floor f;
	struct ibnet_bpf_floor_counts c;
	char mount[PATH_MAX], why[512], note[512];
	int release[2], status = 0, slurm;
	pid_t pid;
	char go;

	if (argc == 3 && strcmp(argv[1], "--slurm-dir") == 0) {
		if (ibnet_bpf_floor_slurm_dir(argv[2], note, sizeof(note)) < 0)
			printf("none\n");
		else
			printf("%s\n", note);
		return 0;
	}
	if (argc < 6 || (strcmp(argv[4], "--") != 0 && strcmp(argv[4], "--hold") != 0)) {
		fprintf(stderr, "usage: bpf_floor_run OBJECT FLOOR_US NAME|--slurm -- COMMAND... | --hold PIDFILE\n");
		return 2;
	}
	slurm = strcmp(argv[3], "--slurm") == 0;
	if (slurm) {
		if (ibnet_bpf_floor_find_slurm_step(mount, sizeof(mount)) < 0) {
			printf("no tier: not in a step cgroup of Slurm's\n");
			return 3;
		}
		if (ibnet_bpf_floor_load(&f, argv[1], strtoul(argv[2], NULL, 10), why, sizeof(why)) < 0 ||
		    ibnet_bpf_floor_attach_slurms(&f, mount, why, sizeof(why)) < 0) {
			printf("no tier: %s\n", why);
			ibnet_bpf_floor_stop(&f, note, sizeof(note));
			return 3;
		}
	} else if (ibnet_bpf_floor_find_mount(mount, sizeof(mount), why, sizeof(why)) < 0) {
		printf("no tier: %s\n", why);
		return 3;
	}
	if (!slurm) {
		ibnet_bpf_floor_sweep(mount, argv[3], note, sizeof(note));
		printf("swept: %s\n", note);
		if (ibnet_bpf_floor_load(&f, argv[1], strtoul(argv[2], NULL, 10), why,
					 sizeof(why)) < 0 ||
		    ibnet_bpf_floor_attach(&f, mount, argv[3], why, sizeof(why)) < 0) {
			printf("no tier: %s\n", why);
			ibnet_bpf_floor_stop(&f, note, sizeof(note));
			return 3;
		}
	}
	printf("cgroup: %s\n", f.cgroup);
<<<<<<< HEAD
	if (f.note[0])
		printf("note: %s\n", f.note);
	printf("floor: %lu us (asked %s us, HZ %u)\n", f.floor_us, argv[2], f.hz);
=======
	ibnet_bpf_floor_spread_said(&f, note, sizeof(note));
	printf("floor: %lu us (asked %s us, HZ %u), %s\n", f.floor_us, argv[2], f.hz, note);
>>>>>>> floor-spread
	fflush(stdout);
	if (strcmp(argv[4], "--hold") == 0) {
		FILE *p = fopen(argv[5], "w");

		if (!p || fprintf(p, "%d\n", (int)getpid()) < 0 || fclose(p) != 0)
			return 4;
		alarm(120);	/* the test kills it long before; never a stray loader */
		pause();
		return 0;
	}
	/* The child waits until it is in the cgroup, as a task waits for slurmstepd. */
	if (pipe(release) < 0 || (pid = fork()) < 0)
		return 4;
	if (pid == 0) {
		close(release[1]);
		if (read(release[0], &go, 1) != 1)
			_exit(126);
		execvp(argv[5], argv + 5);
		_exit(127);
	}
	close(release[0]);
	if (slurm && move_to_task_cgroup(f.cgroup, pid) < 0)
		printf("not moved to %s/task_0\n", f.cgroup);
	if (ibnet_bpf_floor_add_pid(&f, pid, why, sizeof(why)) < 0)
		printf("not moved: %s\n", why);
	if (write(release[1], "g", 1) != 1)
		return 4;
	close(release[1]);
	waitpid(pid, &status, 0);
	ibnet_bpf_floor_read(&f, &c);
	printf("counts: floored=%llu refused=%llu rto=%llu retrans=%llu\n", c.floored, c.refused,
	       c.rto, c.retrans);
	ibnet_bpf_floor_stop(&f, note, sizeof(note));
	printf("stopped: %s\n", note[0] ? note : slurm ? "detached, Slurm's cgroup left to Slurm" :
	       "detached, cgroup removed");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
