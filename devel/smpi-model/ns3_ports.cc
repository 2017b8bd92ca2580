// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ns3_ports.cc - the switch of the model at scale, inside SimGrid's ns-3
 * network (one shared library, loaded once for every simulated rank: SMPI
 * privatises the program's globals per rank, not its libraries').
 *
 * SimGrid builds the platform as ns-3 point-to-point links with ns-3's
 * defaults (a 100-packet device queue). A switch port of the test cluster
 * is a drop-tail buffer of so many bytes (a tbf's limit), so
 * model_ports_setup() removes any queue disc, makes each switch port a FIFO
 * queue disc of the bytes asked for in front of a one-packet device queue,
 * gives the nodes' NICs room enough never to drop (Linux holds a socket
 * back instead: TCP small queues), and counts each drop by the node that
 * sent the packet: the node's retransmissions to come, what the paced
 * library's loss feed reads on a real node (ibnet_a2a_netstat.c; here
 * model_host.c's node_retransmits).
 */
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "model_trace.h"

using namespace ns3;

namespace {
/* Never freed: ns-3 empties its queues when SimGrid ends the simulation,
 * after static destructors, and each packet dropped then still calls on_drop. */
bool ready;
auto &node_of_address = *new std::map<uint32_t, uint32_t>;	// IPv4 address -> ns-3 node
auto &drops_from = *new std::vector<unsigned long>;		// by ns-3 node id
auto &host_node = *new std::vector<uint32_t>;	// the platform's hosts, in order: ns-3 node ids
unsigned long drops_unknown;
auto &host_of_node = *new std::map<uint32_t, int>;	// ns-3 node id -> the platform's host

/* MODEL_TRACE: a drop's line (model_trace.h). */
void trace_drop(Ptr<const Packet> p, Ipv4Address source, Ipv4Address destination)
{
	FILE *f = model_trace_file();
	ModelRetransTag tag;

	if (!f)
		return;
	std::fprintf(f, "D %.9f %d %d %d %u\n", Simulator::Now().GetSeconds(),
		     model_host_of_address(source.Get()), model_host_of_address(destination.Get()),
		     p->PeekPacketTag(tag) ? 1 : 0, p->GetSize());
}

void count_from(Ipv4Address source)
{
	auto it = node_of_address.find(source.Get());

	if (it != node_of_address.end())
		drops_from[it->second]++;
	else
		drops_unknown++;
}

/* A NIC's drop (the device queue; its packets carry their PPP and IP headers). */
void on_device_drop(Ptr<const Packet> p)
{
	Ptr<Packet> copy = p->Copy();
	PppHeader ppp;
	Ipv4Header ip;

	copy->RemoveHeader(ppp);
	if (copy->PeekHeader(ip)) {
		count_from(ip.GetSource());
		trace_drop(p, ip.GetSource(), ip.GetDestination());
	} else
		drops_unknown++;
}

/* A switch port's drop (its queue disc; the IP header rides beside the packet). */
void on_port_drop(Ptr<const QueueDiscItem> item)
{
	Ptr<const Ipv4QueueDiscItem> ip = DynamicCast<const Ipv4QueueDiscItem>(item);

	if (ip) {
		count_from(ip->GetHeader().GetSource());
		trace_drop(ip->GetPacket(), ip->GetHeader().GetSource(), ip->GetHeader().GetDestination());
	} else
		drops_unknown++;
}
}  // namespace

extern "C" {

/* MODEL_TRACE=FILE (model_trace.h): opened on first use, flushed at exit. */
FILE *model_trace_file(void)
{
	static FILE *f = [] {
		const char *name = std::getenv("MODEL_TRACE");
		FILE *t = name && *name ? std::fopen(name, "w") : nullptr;

		if (name && *name && !t) {
			std::perror(name);
			std::abort();
		}
		if (t)
			std::setvbuf(t, nullptr, _IOFBF, 1 << 20);
		return t;
	}();
	return f;
}

int model_host_of_node(uint32_t ns3_node)
{
	auto it = host_of_node.find(ns3_node);

	return it == host_of_node.end() ? -1 : it->second;
}

int model_host_of_address(uint32_t ipv4)
{
	auto it = node_of_address.find(ipv4);

	return it == node_of_address.end() ? -1 : model_host_of_node(it->second);
}

/*
 * Once, before any traffic: port_bytes the drop-tail buffer of each switch
 * port (the device of a node with more than one link), nic_bytes each
 * node's NIC, nic_rate its rate (ns-3's DataRate text; NULL or "": the
 * platform's link rate). burst_bytes > 0: each port is shaped as the test
 * cluster shapes its ports (devel/ibnet-cluster: a tbf of the port's rate,
 * a burst of 32 KiB and a limit of the port's bytes, on a veth as fast as
 * the NICs): a token bucket of the platform's rate and that burst, on a
 * device of nic_rate. A call that fits the bucket passes at the NICs' rate:
 * the test cluster's small all-to-alls took less than the port's rate
 * allows (4 KiB per pair at 8 x 1: 1.5 ms where 100 Mbit/s takes 2.3 ms).
 * The model took 4.5 ms without a bucket and 2.4 ms with it; the rest is
 * the cluster's CPU time between calls, which refills the bucket.
 * Returns the number of switch ports, -1 on a platform that is not a star
 * of single-link hosts.
 */
int model_ports_setup(unsigned long port_bytes, unsigned long nic_bytes, const char *nic_rate,
		      unsigned long burst_bytes)
{
	static int ports;
	const char *mtu = std::getenv("MODEL_MTU");	/* GSO's packets (run's MODEL_GSO) */

	if (ready)
		return ports;
	ready = true;
	drops_from.assign(NodeList::GetNNodes(), 0);
	for (uint32_t n = 0; n < NodeList::GetNNodes(); n++) {
		Ptr<Node> node = NodeList::GetNode(n);
		Ptr<Ipv4> ip = node->GetObject<Ipv4>();
		Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
		std::vector<Ptr<PointToPointNetDevice>> links;

		for (uint32_t d = 0; d < node->GetNDevices(); d++) {
			Ptr<PointToPointNetDevice> dev =
				DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
			if (dev)
				links.push_back(dev);
		}
		for (auto &dev : links) {
			bool port = links.size() > 1;
			char size[32];

			if (mtu && *mtu)
				dev->SetMtu((uint16_t)std::strtoul(mtu, nullptr, 10));
			if (tc && tc->GetRootQueueDiscOnDevice(dev))
				tc->DeleteRootQueueDiscOnDevice(dev);
			if (!port) {
				/* The platform's rate is the port's; a NIC may be faster
				 * (the test cluster's veths: only the switch's output
				 * port is shaped). */
				if (nic_rate && *nic_rate)
					dev->SetDataRate(DataRate(nic_rate));
				std::snprintf(size, sizeof(size), "%luB", nic_bytes);
				dev->GetQueue()->SetMaxSize(QueueSize(size));
				dev->GetQueue()->TraceConnectWithoutContext(
					"Drop", MakeCallback(&on_device_drop));
				continue;
			}
			/*
			 * A port: the device stops its queue when full (ns-3's
			 * flow control) and the traffic control layer then drops
			 * unseen, so the buffer is a FIFO queue disc of port_bytes
			 * in front of a device queue of one packet.
			 */
			TrafficControlHelper port_qdisc;
			std::snprintf(size, sizeof(size), "%luB", port_bytes);
			if (burst_bytes) {
				DataRateValue port_rate;

				dev->GetAttribute("DataRate", port_rate);
				port_qdisc.SetRootQueueDisc("ns3::TbfQueueDisc", "MaxSize",
						      QueueSizeValue(QueueSize(size)), "Rate", port_rate,
						      "Burst", UintegerValue(burst_bytes));
				if (nic_rate && *nic_rate)
					dev->SetDataRate(DataRate(nic_rate));
			} else {
				port_qdisc.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
						      QueueSizeValue(QueueSize(size)));
			}
			dev->GetQueue()->SetMaxSize(QueueSize("1p"));
			Ptr<QueueDisc> qd = port_qdisc.Install(dev).Get(0);
			qd->Initialize();
			qd->TraceConnectWithoutContext("Drop", MakeCallback(&on_port_drop));
			ports++;
		}
		if (links.size() == 1) {
			host_of_node[n] = (int)host_node.size();
			host_node.push_back(n);
		}
		if (std::getenv("MODEL_DEBUG"))
			std::fprintf(stderr, "model: ns-3 node %u: %zu links, first address %x\n", n,
				     links.size(), ip && ip->GetNInterfaces() > 1 ?
				     ip->GetAddress(1, 0).GetLocal().Get() : 0);
		for (uint32_t i = 0; ip && i < ip->GetNInterfaces(); i++)
			for (uint32_t a = 0; a < ip->GetNAddresses(i); a++)
				node_of_address[ip->GetAddress(i, a).GetLocal().Get()] = n;
	}
	return ports;
}

/* Packets host (the platform's n<host>: the host-th node of one link) sent
 * that a queue dropped. */
unsigned long model_drops_from(unsigned host)
{
	return host < host_node.size() ? drops_from[host_node[host]] : 0;
}

/* With MODEL_DEBUG: each queue's own counts on stderr. */
void model_ports_debug(void)
{
	if (!std::getenv("MODEL_DEBUG"))
		return;
	for (uint32_t n = 0; n < NodeList::GetNNodes(); n++) {
		Ptr<Node> node = NodeList::GetNode(n);

		for (uint32_t d = 0; d < node->GetNDevices(); d++) {
			Ptr<PointToPointNetDevice> dev =
				DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
			Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
			Ptr<QueueDisc> qd = tc && dev ? tc->GetRootQueueDiscOnDevice(dev) : nullptr;
			if (dev)
				std::fprintf(stderr, "model: node %u device %u: %u packets in, %u dropped, max %s; queue disc %s %u dropped\n",
					     n, d, dev->GetQueue()->GetTotalReceivedPackets(),
					     dev->GetQueue()->GetTotalDroppedPackets(),
					     dev->GetQueue()->GetMaxSize().GetValue() ? "set" : "0",
					     qd ? qd->GetInstanceTypeId().GetName().c_str() : "none",
					     qd ? qd->GetStats().nTotalDroppedPackets : 0);
		}
	}
}

/* Every drop of the run so far. */
unsigned long model_drops_total(void)
{
	unsigned long total = drops_unknown;

	for (unsigned long d : drops_from)
		total += d;
	return total;
}

}  // extern "C"
