/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * a2a_versus.c - several MPI_Alltoall implementations, interleaved call by
 * call in one run, so each pair of times meets the same machine and network.
 *
 *   a2a_versus SECONDS_PER_SIZE SIZE[,SIZE...] IMPL...
 *
 * IMPL is "mpi" (PMPI_Alltoall, the MPI's own) or NAME=PATH, a paced build
 * (libibnet-a2a-ompi.so or -mpich.so, of any version) whose
 * ibnet_a2a_alltoall is called directly: each build is dlopen'ed privately,
 * with its own state, so two versions run side by side in one process. The
 * builds read their settings from the environment, as under the preload.
 *
 * Per size S (bytes per pair), repetitions until SECONDS_PER_SIZE x IMPLs
 * have passed (at least 3, at most 500); each repetition calls every IMPL
 * once, starting with a different one each time. A call's time is the
 * slowest rank's, its CPU the sum of all ranks' process CPU time. Every
 * IMPL's result is checked byte for byte against what each sender wrote.
 * Rank 0 prints, per size and IMPL:
 *   RESULT size=S ranks=N reps=R impl=NAME median=SEC min=SEC max=SEC cpu=SEC
 * and for each IMPL after the first, its time over the first's, per rep:
 *   RATIO size=S impl=NAME base=NAME median=X min=X max=X
 * It stops with 1 if any result is wrong.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_IMPLS 8
#define MAX_REPS 500

typedef int (*alltoall_fn)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);

struct impl {
	const char *name;
	alltoall_fn call;
	double t[MAX_REPS], cpu[MAX_REPS];
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* median, min and max of n values (sorted in place) */
static void stats(double *v, int n, double *med, double *lo, double *hi)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	*med = v[n / 2], *lo = v[0], *hi = v[n - 1];
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The byte sender s puts at offset i of its block for receiver r. */
static unsigned char pattern(int s, int r, long i)
{
	return (unsigned char)(s * 131 + r * 31 + i * 7 + (i >> 8));
}

int main(int argc, char **argv)
{
	struct impl impl[MAX_IMPLS];
	int rank, size, nimpl = 0, i, bad = 0;
	double budget;
	char *sizes, *tok;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 4 || argc - 3 > MAX_IMPLS) {
		if (rank == 0)
			fprintf(stderr, "usage: a2a_versus SECONDS_PER_SIZE SIZE[,SIZE...] IMPL... "
				"(IMPL: mpi or NAME=PATH, at most %d)\n", MAX_IMPLS);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	budget = atof(argv[1]);
	for (i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		struct impl *m = &impl[nimpl++];

		memset(m, 0, sizeof(*m));
		if (!eq) {
			m->name = argv[i];
			m->call = PMPI_Alltoall;
			continue;
		}
		*eq = '\0';
		m->name = argv[i];
		{
			void *lib = dlopen(eq + 1, RTLD_NOW | RTLD_LOCAL);

			m->call = lib ? (alltoall_fn)dlsym(lib, "ibnet_a2a_alltoall") : NULL;
			if (!m->call) {
				fprintf(stderr, "a2a_versus: %s: %s\n", eq + 1, dlerror());
				MPI_Abort(MPI_COMM_WORLD, 2);
			}
		}
	}
	sizes = strdup(argv[2]);
	for (tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
		long bytes = atol(tok), b;
		unsigned char *send = malloc((size_t)size * (size_t)bytes + 1);
		unsigned char *recv = malloc((size_t)size * (size_t)bytes + 1);
		double start = MPI_Wtime();
		int reps = 0, stop = 0, k, r;

		if (!send || !recv)
			MPI_Abort(MPI_COMM_WORLD, 3);
		for (r = 0; r < size; r++)
			for (b = 0; b < bytes; b++)
				send[r * bytes + b] = pattern(rank, r, b);
		for (k = 0; k < nimpl; k++) {	/* warm-up, and the check */
			memset(recv, 0, (size_t)size * (size_t)bytes);
			impl[k].call(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE,
				     MPI_COMM_WORLD);
			for (r = 0; r < size; r++)
				for (b = 0; b < bytes; b++)
					bad += recv[r * bytes + b] != pattern(r, rank, b);
		}
		while (!stop) {
			for (k = 0; k < nimpl; k++) {
				struct impl *m = &impl[(k + reps) % nimpl];
				double t0, c0, tc[2];

				MPI_Barrier(MPI_COMM_WORLD);
				c0 = cpu_now();
				t0 = MPI_Wtime();
				m->call(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE,
					MPI_COMM_WORLD);
				tc[0] = MPI_Wtime() - t0;
				tc[1] = cpu_now() - c0;
				MPI_Reduce(rank ? tc : MPI_IN_PLACE, tc, 1, MPI_DOUBLE, MPI_MAX, 0,
					   MPI_COMM_WORLD);
				MPI_Reduce(rank ? tc + 1 : MPI_IN_PLACE, tc + 1, 1, MPI_DOUBLE, MPI_SUM,
					   0, MPI_COMM_WORLD);
				m->t[reps] = tc[0], m->cpu[reps] = tc[1];
			}
			reps++;
			/* Rank 0 decides, so every rank stops after the same repetition. */
			stop = reps >= MAX_REPS || (reps >= 3 && MPI_Wtime() - start >= budget * nimpl);
			MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
		}
		if (rank == 0) {
			double ratio[MAX_REPS], med, lo, hi, cmed, clo, chi;

			for (k = 1; k < nimpl; k++) {
				for (r = 0; r < reps; r++)
					ratio[r] = impl[k].t[r] / impl[0].t[r];
				stats(ratio, reps, &med, &lo, &hi);
				printf("RATIO size=%ld impl=%s base=%s median=%.3f min=%.3f max=%.3f\n",
				       bytes, impl[k].name, impl[0].name, med, lo, hi);
			}
			for (k = 0; k < nimpl; k++) {
				stats(impl[k].t, reps, &med, &lo, &hi);
				stats(impl[k].cpu, reps, &cmed, &clo, &chi);
				printf("RESULT size=%ld ranks=%d reps=%d impl=%s median=%.6f min=%.6f "
				       "max=%.6f cpu=%.6f\n", bytes, size, reps, impl[k].name, med, lo,
				       hi, cmed);
			}
			fflush(stdout);
		}
		free(send);
		free(recv);
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("CHECK bad=%d\n", bad);
	free(sizes);
	MPI_Finalize();
	return bad ? 1 : 0;
}
