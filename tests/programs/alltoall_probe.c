/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alltoall_probe.c - an MPI program for the integration tests.
 *
 * Runs a verified MPI_Alltoall, then asks the MPI library itself, through
 * the MPI tool interface (MPI_T), which all-to-all algorithm it was told to
 * use: Open MPI's coll_tuned_alltoall_algorithm, MPICH's
 * ALLTOALL_INTRA_ALGORITHM. Rank 0 prints one line:
 *   alltoall ok ranks=N hosts=H library=... VAR=VALUE ...
 * Open MPI names the value through an MPI_T enum. MPICH gives its algorithm
 * variables none, so its value is printed as the number it holds; which
 * number means which algorithm changes between releases (4.2 inserted
 * k_brucks before pairwise), so the tests learn it by running this program
 * alone with the variable set by name (tests/cluster/30-mpi.bats,
 * mpich_algorithm) rather than from the variable's help text.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int wanted(const char *name)
{
	return strcasecmp(name, "coll_tuned_alltoall_algorithm") == 0 ||
	       strcasecmp(name, "coll_tuned_use_dynamic_rules") == 0 ||
	       strcasecmp(name, "ALLTOALL_INTRA_ALGORITHM") == 0 ||
	       strcasecmp(name, "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM") == 0;
}

static void print_cvars(void)
{
	int n, i, provided;

	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	MPI_T_cvar_get_num(&n);
	for (i = 0; i < n; i++) {
		char name[256], desc[1024];
		int namelen = sizeof(name), desclen = sizeof(desc), verbosity, bind, scope, count;
		MPI_Datatype dt;
		MPI_T_enum en;
		MPI_T_cvar_handle h;

		if (MPI_T_cvar_get_info(i, name, &namelen, &verbosity, &dt, &en, desc, &desclen,
					&bind, &scope) != MPI_SUCCESS || !wanted(name))
			continue;
		if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
			continue;
		if (dt == MPI_INT) {
			int v = 0;

			MPI_T_cvar_read(h, &v);
			if (en != MPI_T_ENUM_NULL) {
				int items, j;
				char ename[128];
				int elen = sizeof(ename);

				MPI_T_enum_get_info(en, &items, ename, &elen);
				for (j = 0; j < items; j++) {
					int val;
					char iname[128];
					int ilen = sizeof(iname);

					MPI_T_enum_get_item(en, j, &val, iname, &ilen);
					if (val == v) {
						printf(" %s=%s", name, iname);
						break;
					}
				}
				if (j == items)
					printf(" %s=%d", name, v);
			} else {
				/* MPICH: no MPI_T enum, so the number. */
				printf(" %s=%d", name, v);
			}
		} else if (dt == MPI_CHAR) {
			char buf[256] = "";

			if (count < (int)sizeof(buf))
				MPI_T_cvar_read(h, buf);
			printf(" %s=%s", name, buf);
		}
		MPI_T_cvar_handle_free(&h);
	}
	MPI_T_finalize();
}

int main(int argc, char **argv)
{
	int rank, size, i, bad = 0, count = argc > 1 ? atoi(argv[1]) : 1024;
	int *send, *recv;
	char host[256], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int liblen, nhosts = 0;
	char *all;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	send = malloc(sizeof(int) * (size_t)count * size);
	recv = malloc(sizeof(int) * (size_t)count * size);
	for (i = 0; i < count * size; i++)
		send[i] = rank * 1000000 + i;
	MPI_Alltoall(send, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < count * size; i++) {
		int from = i / count, k = i % count;

		if (recv[i] != from * 1000000 + rank * count + k)
			bad++;
	}
	MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

	memset(host, 0, sizeof(host));
	gethostname(host, sizeof(host) - 1);
	all = malloc((size_t)size * sizeof(host));
	MPI_Gather(host, sizeof(host), MPI_CHAR, all, sizeof(host), MPI_CHAR, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (i = 0; i < size; i++) {
			int j, seen = 0;

			for (j = 0; j < i; j++)
				seen |= strcmp(all + i * sizeof(host), all + j * sizeof(host)) == 0;
			nhosts += !seen;
		}
		MPI_Get_library_version(lib, &liblen);
		lib[strcspn(lib, ",\n")] = '\0';
		printf("alltoall %s ranks=%d hosts=%d library=\"%s\"", bad ? "BAD" : "ok", size,
		       nhosts, lib);
		print_cvars();
		printf("\n");
	}
	free(all);
	free(send);
	free(recv);
	/* The verdict out now, not in exit's flush after MPI_Finalize: what
	 * becomes of a rank after it is the launcher's business (a CI run's
	 * MPICH job ended with status 0 and no CHECK line in its output). */
	fflush(stdout);
	MPI_Finalize();
	return bad != 0;
}
