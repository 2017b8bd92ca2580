# SPDX-License-Identifier: GPL-2.0-or-later
# The simulated switches the demo and the benchmarks shape the test cluster
# into, as devel/ibnet-cluster shape arguments (sourced: one table for
# devel/demo, ibnet-bench, a2a-many and floor-tiers). The rates (bits/s)
# give the all-to-all lower bounds in the reports.
#   gige-lossy  eth 100 Mbit/s, 24 KB port buffer: an Ethernet switch without
#               flow control; an all-to-all incast overflows it and drops
#   gige-fc     eth 100 Mbit/s, 16 MB port buffer: the same switch with
#               802.3x flow control (loss-free: senders are held back)
#   ipoib       ib 400 Mbit/s, 16 MB port buffer: InfiniBand, loss-free
# shellcheck disable=SC2034 # read by the scripts that source this file
declare -A SHAPE=(
	[gige-lossy]="eth --rate 100mbit --buffer 24kb"
	[gige-fc]="eth --rate 100mbit --buffer 16mb"
	[ipoib]="ib --rate 400mbit --buffer 16mb"
)
