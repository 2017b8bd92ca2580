#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The demo job: print what spank-ibnet gave this job, then move 20 MB.
read -r -a nodes <<<"$(scontrol show hostnames "$SLURM_JOB_NODELIST" | tr '\n' ' ')"
hosts=("${nodes[@]}")
[ -z "${SLURM_IBNET_HOSTS-}" ] || read -r -a hosts <<<"${SLURM_IBNET_HOSTS//,/ }"
printf '  %-22s %s\n' "transport:" "${SLURM_IBNET_TRANSPORT:-(not set: nothing asked, nothing changed)}" \
	"job's hosts:" "${SLURM_IBNET_HOSTS:-(not set)}" \
	"Linda workers:" "GAUSS_WDEF=${GAUSS_WDEF:-(not set)}" \
	"LD_PRELOAD:" "${LD_PRELOAD:-(none)}" \
	"Open MPI TCP on:" "${OMPI_MCA_btl_tcp_if_include:-(not set: the MPI library chooses)}"
mapped=$(srun --overlap -N1 -n1 -w "${nodes[1]}" \
	bash -c 'grep -q librspreload /proc/$$/maps && echo yes || echo no')
printf '  %-22s %s\n' "librspreload mapped:" "$mapped (in a task on ${nodes[1]})"
# iperf3 is widened into the rsocket programs for this job (the site
# default converts only Gaussian's Linda executables, *.exel).
export SLURM_IBNET_RSOCKET_PROGRAMS='*.exel,iperf3'
srun --overlap -N1 -n1 -w "${nodes[1]}" timeout 30 iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
server=$!
for try in $(seq 1 20); do
	if out=$(SLURM_IBNET_RSOCKET_DEBUG=1 timeout 30 iperf3 -c "${hosts[1]}" -p 5201 -n 20M 2>&1); then
		break
	fi
	sleep 0.3
done
wait "$server" || true
via=$(grep -m1 'spank-ibnet rsgate: iperf3' <<<"$out" | sed 's/.*iperf3: //')
printf '  %-22s %s\n' "20 MB sent to:" "${hosts[1]} by iperf3 (${via:-no preload})"
