/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_types.c - when a datatype's bytes may travel as plain memory
 * (ibnet_a2a_types.h).
 *
 * Why the type map must be read: a type's size, extent and true extent say
 * that its bytes are dense, not that they are in order. The transpose type
 * (a column vector resized to one element, then an hvector of those) and a
 * struct {int at 4, int at 0} are both dense with lower bound 0 and
 * extent = size, yet MPI sends their elements in another order than memory
 * holds them; sending their memory as bytes to a receiver with another type
 * of the same signature delivers wrong data. So a type is plain here only
 * if each constructor in it keeps its old type's elements in memory order
 * with no gap and no overlap: predefined, dup, contiguous, a vector or
 * hvector whose stride is its block, resized (which moves only the bounds).
 * Indexed, struct, subarray, darray and anything newer are packed: packing
 * is right for every type, and those are rarely plain in practice.
 */
#include "ibnet_a2a_types.h"

#include <stdlib.h>

/* Nesting deeper than this is packed, not walked (a bound on the recursion). */
#define TYPE_DEPTH_MAX 16

/* Is the type map of one element dense and in memory order from its true lb? */
static bool in_order(MPI_Datatype type, int depth);

static bool predefined(MPI_Datatype type, int *combiner, int *ni, int *na, int *nd)
{
	if (PMPI_Type_get_envelope(type, ni, na, nd, combiner) != MPI_SUCCESS)
		return false;
	return *combiner == MPI_COMBINER_NAMED;
}

/* An element's size equals its extent: consecutive elements leave no gap. */
static bool packs_tight(MPI_Datatype type)
{
	MPI_Aint lb, extent, tlb, textent;
	int size;

	if (PMPI_Type_size(type, &size) != MPI_SUCCESS ||
	    PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
	    PMPI_Type_get_true_extent(type, &tlb, &textent) != MPI_SUCCESS)
		return false;
	return (MPI_Aint)size == extent && textent == extent && tlb == lb;
}

#ifdef IBNET_A2A_TESTING
/* Type maps read back (MPI_Type_get_contents), said at exit by the test build. */
static unsigned long contents_read;

unsigned long ibnet_a2a_types_contents_read(void)
{
	return __atomic_load_n(&contents_read, __ATOMIC_RELAXED);
}
#endif

/*
 * The constructors whose arguments can keep their old type's elements in
 * order (the header's list): any other is packed without its contents read,
 * which for an indexed or struct type costs O(blocks) per peer and call.
 */
static bool may_keep_order(int combiner)
{
	return combiner == MPI_COMBINER_DUP || combiner == MPI_COMBINER_RESIZED ||
	       combiner == MPI_COMBINER_CONTIGUOUS || combiner == MPI_COMBINER_VECTOR ||
	       combiner == MPI_COMBINER_HVECTOR;
}

/* The constructor of a derived type, its arguments read back; false if unreadable. */
static bool derived_in_order(MPI_Datatype type, int combiner, int ni, int na, int nd,
			     int depth)
{
	int *ints = malloc(sizeof(int) * (size_t)(ni ? ni : 1));
	MPI_Aint *aints = malloc(sizeof(MPI_Aint) * (size_t)(na ? na : 1));
	MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd ? nd : 1));
	bool ok = false;
	int i;

	if (!ints || !aints || !types ||
	    PMPI_Type_get_contents(type, ni, na, nd, ints, aints, types) != MPI_SUCCESS) {
		nd = 0;		/* nothing returned, nothing to free */
		goto out;
	}
#ifdef IBNET_A2A_TESTING
	__atomic_fetch_add(&contents_read, 1, __ATOMIC_RELAXED);
#endif
	switch (combiner) {
	case MPI_COMBINER_DUP:
	case MPI_COMBINER_RESIZED:	/* moves the bounds, not the elements */
		ok = in_order(types[0], depth + 1);
		break;
	case MPI_COMBINER_CONTIGUOUS:	/* ints: count */
		ok = in_order(types[0], depth + 1) && (ints[0] <= 1 || packs_tight(types[0]));
		break;
	case MPI_COMBINER_VECTOR: {	/* ints: count, blocklength, stride (in extents) */
		int count = ints[0], block = ints[1], stride = ints[2];

		ok = in_order(types[0], depth + 1) && count >= 0 && block >= 0 &&
		     (count <= 1 || stride == block) &&
		     ((long)count * block <= 1 || packs_tight(types[0]));
		break;
	}
	case MPI_COMBINER_HVECTOR: {	/* ints: count, blocklength; aints: stride (bytes) */
		MPI_Aint lb, extent;
		int count = ints[0], block = ints[1];

		ok = in_order(types[0], depth + 1) && count >= 0 && block >= 0 &&
		     PMPI_Type_get_extent(types[0], &lb, &extent) == MPI_SUCCESS &&
		     (count <= 1 || aints[0] == (MPI_Aint)block * extent) &&
		     ((long)count * block <= 1 || packs_tight(types[0]));
		break;
	}
	default:
		ok = false;	/* indexed, struct, subarray, darray, ...: packed */
	}
out:
	for (i = 0; i < nd; i++) {
		int c, a, b, d;

		/* Derived types returned by get_contents are new handles: ours to free. */
		if (!predefined(types[i], &c, &a, &b, &d))
			PMPI_Type_free(&types[i]);
	}
	free(ints);
	free(aints);
	free(types);
	return ok;
}

static bool in_order(MPI_Datatype type, int depth)
{
	int combiner, ni, na, nd;

	if (depth > TYPE_DEPTH_MAX ||
	    PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
		return false;
	if (combiner == MPI_COMBINER_NAMED)
		/* MPI_LONG_DOUBLE_INT and friends have holes: size < extent. */
		return packs_tight(type);
	if (!may_keep_order(combiner))
		return false;	/* indexed, struct, subarray, darray, ...: packed */
	return derived_in_order(type, combiner, ni, na, nd, depth);
}

bool ibnet_a2a_type_is_plain(MPI_Datatype type)
{
	MPI_Aint lb, extent;

	if (PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS || lb != 0)
		return false;
	return packs_tight(type) && in_order(type, 0);
}
