# SPDX-License-Identifier: GPL-2.0-or-later
# The paced all-to-all's parts by name (alltoall/ibnet_a2a_state.h lists them
# floor by floor; the last two come from contract/). One list for both of its
# builds: the Makefile's, once per MPI ABI, and the model's under SimGrid
# (devel/smpi-model/build.mk), which leaves out what it stands in for. Two
# lists had parted: a file added to one was missing from the other, and the
# model did not link.
A2A_PACED = ibnet_a2a_paced ibnet_a2a_route ibnet_a2a_layout ibnet_a2a_pack ibnet_a2a_exchange \
	ibnet_a2a_nodes ibnet_a2a_room ibnet_a2a_netstat ibnet_a2a_state ibnet_a2a_window \
	ibnet_a2a_choice ibnet_a2a_report ibnet_a2a_fortran ibnet_a2a_types \
	ibnet_a2a_settings ibnet_say_line
