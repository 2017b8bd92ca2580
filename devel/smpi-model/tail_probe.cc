// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tail_probe.cc - the kept connections' TCP with Linux's way of finding a
 * lost tail: a tail loss probe (RFC 8985's TLP) and a loss declared on the
 * first segment acknowledged above a hole (what RACK does on a path that
 * never reorders, as the model's star of FIFO ports never does).
 *
 * ns-3.37's TCP has neither. A lost segment near the end of a message has
 * too few segments behind it to bring three duplicate ACKs, so ns-3 finds
 * it by the retransmission timeout: 200 ms, where Linux finds it within a
 * probe timeout of two round trips and two jiffies. In the model of the
 * test cluster's 24 KB ports that made every 4 and 16 KiB all-to-all of
 * the MPI's own wait 200 ms (202 ms a call where the cluster takes 1.5 and
 * 15-17 ms).
 *
 * What is modelled of Linux (net/ipv4/tcp_output.c, tcp_schedule_loss_probe
 * and tcp_send_loss_probe): after each transmission and each ACK, while
 * data is unacknowledged and the connection is not recovering, a probe is
 * due in 2 x SRTT plus 2 jiffies (8 ms at Debian's HZ=250), or plus the
 * minimum RTO when one segment is out, never later than the RTO; when it
 * fires, the last segment sent goes again. Its ACK (a SACK above the hole)
 * then starts fast recovery at once: run sets ReTxThreshold=1. Left out:
 * new data as the probe (the kept connections write all they have), the
 * RACK reordering window and timer, TLP's own loss detection.
 */
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

using namespace ns3;

namespace {

/* Retransmission timeouts of the kept connections, for the run's report. */
unsigned long timeouts;

const Time two_jiffies = MilliSeconds(8);
/* Linux counts packets out in segments of the wire's MSS even where its
 * segments leave as one GSO packet (run's MODEL_GSO: larger segments). */
const uint32_t wire_mss = 1448;

class TailProbeSocket : public TcpSocketBase {
public:
	static TypeId GetTypeId()
	{
		static TypeId tid = TypeId("ns3::ModelTailProbeSocket")
					    .SetParent<TcpSocketBase>()
					    .AddConstructor<TailProbeSocket>();
		return tid;
	}
	TailProbeSocket() = default;
	TailProbeSocket(const TailProbeSocket &other) : TcpSocketBase(other) {}
	~TailProbeSocket() override { probe.Cancel(); }

protected:
	/* A listener's accepted connections probe too. */
	Ptr<TcpSocketBase> Fork() override { return CopyObject<TailProbeSocket>(this); }

	uint32_t SendDataPacket(SequenceNumber32 seq, uint32_t max_size, bool with_ack) override
	{
		uint32_t sent = TcpSocketBase::SendDataPacket(seq, max_size, with_ack);

		arm();
		return sent;
	}

	void ReceivedAck(Ptr<Packet> packet, const TcpHeader &header) override
	{
		TcpSocketBase::ReceivedAck(packet, header);
		arm();
	}

	void ReTxTimeout() override
	{
		timeouts++;
		if (std::getenv("MODEL_DEBUG"))
			std::fprintf(stderr, "model: %.6f s: retransmission timeout, %u in flight, state %d\n",
				     Simulator::Now().GetSeconds(), BytesInFlight(),
				     (int)m_tcb->m_congState.Get());
		TcpSocketBase::ReTxTimeout();
	}

private:
	EventId probe;

	void arm()
	{
		uint32_t in_flight = BytesInFlight();
		Time srtt = m_rtt->GetEstimate(), due;

		probe.Cancel();
		if (!in_flight || m_tcb->m_congState != TcpSocketState::CA_OPEN)
			return;
		if (srtt.IsZero())
			due = Seconds(1);
		else
			due = srtt * 2 + (in_flight <= wire_mss ? m_minRto : two_jiffies);
		/* Never later than the timeout, as Linux's; a timeout not yet
		 * set (0) is no bound. (A probe due at once, delay 0, made
		 * SimGrid's ns-3 model report a deadlock at 8 x 4.) */
		if (m_rto.Get().IsStrictlyPositive() && m_rto.Get() < due)
			due = m_rto.Get();
		if (due < MicroSeconds(1))
			due = MicroSeconds(1);
		probe = Simulator::Schedule(due, &TailProbeSocket::fire, this);
	}

	void fire()
	{
		uint32_t mss = m_tcb->m_segmentSize;
		SequenceNumber32 high = m_tcb->m_highTxMark, head = m_txBuffer->HeadSequence();
		uint32_t tail;

		if (!BytesInFlight() || high <= head)
			return;
		/* The last segment as it was sent, as Linux resends its last skb:
		 * segments are cut at the MSS from the oldest byte unacknowledged
		 * (the kept connections write whole messages as room allows). */
		tail = (uint32_t)(high - head) % mss;
		SequenceNumber32 last = high - (tail ? tail : mss);
		if (last < head)
			last = head;
		if (std::getenv("MODEL_DEBUG"))
			std::fprintf(stderr, "model: %.6f s: tail probe, %u bytes from %u, %u in flight\n",
				     Simulator::Now().GetSeconds(), (uint32_t)(high - last),
				     last.GetValue(), BytesInFlight());
		/* The base's own: a probe is not a transmission that re-arms. */
		TcpSocketBase::SendDataPacket(last, (uint32_t)(high - last), true);
	}
};

}  // namespace

/* The kept connections' retransmission timeouts so far (with MODEL_TLP=0
 * their sockets are ns-3's own and none is counted). */
extern "C" unsigned long model_timeouts_total(void)
{
	return timeouts;
}

/*
 * A TCP socket of node as its TCP's own CreateSocket makes one (the node's
 * congestion control, recovery and RTT estimator), probing for a lost tail
 * unless MODEL_TLP=0.
 */
Ptr<Socket> model_tcp_socket(Ptr<Node> node)
{
	static const bool probe = !getenv("MODEL_TLP") || std::string(getenv("MODEL_TLP")) != "0";
	Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
	TypeIdValue congestion, recovery, rtt_type;
	ObjectFactory make;

	if (!probe)
		return node->GetObject<SocketFactory>(TcpSocketFactory::GetTypeId())->CreateSocket();
	tcp->GetAttribute("SocketType", congestion);
	tcp->GetAttribute("RecoveryType", recovery);
	tcp->GetAttribute("RttEstimatorType", rtt_type);
	Ptr<TailProbeSocket> s = CreateObject<TailProbeSocket>();
	make.SetTypeId(rtt_type.Get());
	s->SetRtt(make.Create<RttEstimator>());
	make.SetTypeId(congestion.Get());
	s->SetCongestionControlAlgorithm(make.Create<TcpCongestionOps>());
	make.SetTypeId(recovery.Get());
	s->SetRecoveryAlgorithm(make.Create<TcpRecoveryOps>());
	s->SetNode(node);
	s->SetTcp(tcp);
	tcp->AddSocket(s);
	return s;
}
