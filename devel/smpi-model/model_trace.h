// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model_trace.h - MODEL_TRACE=FILE (issue 49): one line per event of the
 * storm, written by tail_probe.cc (timeouts, tail probes, retransmitted
 * segments), ns3_ports.cc (the ports' drops) and model_host.c (each rank's
 * calls); read by storm_report.py. Times in simulated seconds; hosts are the
 * platform's n<i> (i), lanes the kept connections' (kept_connections.cc).
 *   T TIME SRC DST LANE LPORT BACKOFF INFLIGHT   a retransmission timeout (BACKOFF: 1 = the first
 *                                                 since new data was acknowledged; 0 = connection closed)
 *   P TIME SRC DST LANE LPORT BACKOFF INFLIGHT   a tail loss probe sent
 *   R TIME SRC DST LANE LPORT SEQ BYTES          a segment sent again (timeout, recovery or probe)
 *   D TIME SRC DST RETX BYTES                    a switch port dropped a packet (RETX 1: a resent one)
 *   C RANK BYTES START END                       one rank's all-to-all (model_host.c)
 *   F TIME HOST FLOOR_US                         a socket's floor drawn (MODEL_FLOOR_SPREAD=1)
 */
#ifndef MODEL_TRACE_H
#define MODEL_TRACE_H

#include <cstdint>
#include <cstdio>

#include "ns3/tag.h"

extern "C" {
FILE *model_trace_file(void);	/* the MODEL_TRACE file, or NULL */
int model_host_of_node(uint32_t ns3_node);	/* -1 where not a host */
int model_host_of_address(uint32_t ipv4);
}

/* On each segment a socket sends again, so that a port's drop knows it. */
class ModelRetransTag : public ns3::Tag {
public:
	static ns3::TypeId GetTypeId()
	{
		static ns3::TypeId tid = ns3::TypeId("ibnet::ModelRetransTag")
						 .SetParent<ns3::Tag>()
						 .AddConstructor<ModelRetransTag>();
		return tid;
	}
	ns3::TypeId GetInstanceTypeId() const override { return GetTypeId(); }
	uint32_t GetSerializedSize() const override { return 0; }
	void Serialize(ns3::TagBuffer) const override {}
	void Deserialize(ns3::TagBuffer) override {}
	void Print(std::ostream &os) const override { os << "retransmitted"; }
};

#endif
