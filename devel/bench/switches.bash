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
# The fast links (devel/a2a-fast-links, issue 40): the link speeds sites run,
# as far as 2 cores carry them.
#   fast-veth      eth not shaped: the veth at what the CPUs carry (about
#                  4.5 Gbit/s a node on 2 cores), no queue of its own
#   fast-10g-512k  eth 10 Gbit/s, 512 KB port buffer (CPU-bound as above)
#   fast-1g-deep   eth 1 Gbit/s, 16 MB port buffer
#   fast-1g-96k    eth 1 Gbit/s, 96 KB port buffer: a shallow 1 GbE switch
# A shaped switch's nodes say its rate in /sys/class/net/eth0/speed, as a NIC
# of that speed would (devel/ibnet-cluster shape); fast-veth's say the veth's
# own 10000, which the CPUs do not reach.
# shellcheck disable=SC2034 # read by the scripts that source this file
declare -A SHAPE=(
	[gige-lossy]="eth --rate 100mbit --buffer 24kb"
	[gige-fc]="eth --rate 100mbit --buffer 16mb"
	[ipoib]="ib --rate 400mbit --buffer 16mb"
	[fast-veth]="eth"
	[fast-10g-512k]="eth --rate 10gbit --buffer 512kb"
	[fast-1g-deep]="eth --rate 1gbit --buffer 16mb"
	[fast-1g-96k]="eth --rate 1gbit --buffer 96kb"
)
