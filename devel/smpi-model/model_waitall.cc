// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model_waitall.cc - SimGrid 3.32's Request::waitall, waiting in order
 * (issue 51), preloaded by devel/smpi-model/run into every run
 * (libmodel-waitall.so; MODEL_WAITALL=smpi leaves SimGrid's own).
 *
 * Why: SMPI's Request::waitall is a waitany per request, and each waitany
 * registers itself on every request still open and, when one ends, takes
 * itself off all of them again: a rank's waitall of N requests costs about
 * N^2 list operations of this machine's time. The MPI's own all-to-all of
 * 4 KiB at 512 ranks (SMPI's basic_linear: 1,022 requests a rank, one
 * waitall) took 14 minutes a call at 64 x 8, most of it in list walks
 * (perf, gdb: CommImpl::finish under ActivityWaitanySimcall, and under
 * the end of a detached send, which project handles): waiting in order
 * took 30% off a run at 32 x 8.
 *
 * Waiting on the requests one by one, in index order, ends at the same
 * simulated time: a simulated transfer runs from the moment both ends are
 * posted, whoever waits on it, and a wait costs no simulated time here
 * (smpi/test 0, no simulated computation). It is what SimGrid's own
 * waitall does under its model checker. Checked: the same times to the
 * nanosecond with and without it (make model-smoke's waitall cell; the
 * README's tenth pass). A call that wants statuses, and a count below
 * 64 where the cost is small, still get SimGrid's own.
 * Nothing here posts an MPI_Accumulate (whose receives SimGrid's waitall
 * finishes last, in tag order), so that case is not handled.
 */
#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <smpi/smpi.h>

namespace simgrid::smpi {
// SimGrid 3.32's exported static members (libsimgrid.so's symbols; its
// headers do not install the class).
class Request {
public:
	static int wait(MPI_Request *request, MPI_Status *status);
	static int waitall(int count, MPI_Request requests[], MPI_Status status[]);
};
} // namespace simgrid::smpi

namespace {
using waitall_fn = int (*)(int, MPI_Request[], MPI_Status[]);

// SimGrid's own waitall, found once.
waitall_fn smpi_waitall()
{
	static waitall_fn real;

	if (!real)
		real = reinterpret_cast<waitall_fn>(
			dlsym(RTLD_NEXT, "_ZN7simgrid4smpi7Request7waitallEiPPS1_P10MPI_Status"));
	if (!real)
		std::abort(); // not SimGrid 3.32's symbol: nothing to fall back to
	return real;
}

bool in_order_wanted()
{
	static int wanted = -1;

	if (wanted < 0) {
		const char *v = std::getenv("MODEL_WAITALL");
		wanted = !(v && std::strcmp(v, "smpi") == 0);
	}
	return wanted;
}
} // namespace

int simgrid::smpi::Request::waitall(int count, MPI_Request requests[], MPI_Status status[])
{
	int rc = MPI_SUCCESS;

	static bool said;

	if (status != MPI_STATUSES_IGNORE || count < 64 || !in_order_wanted())
		return smpi_waitall()(count, requests, status);
	if (!said) {
		// Once a run (every rank shares this process): run passes it on.
		said = true;
		std::fprintf(stderr, "model: a waitall of %d requests waits in order (model_waitall.cc)\n",
			     count);
	}
	for (int i = 0; i < count; i++) {
		if (requests[i] == MPI_REQUEST_NULL)
			continue;
		int r = wait(&requests[i], MPI_STATUS_IGNORE);
		if (r != MPI_SUCCESS && rc == MPI_SUCCESS)
			rc = r;
	}
	return rc;
}
