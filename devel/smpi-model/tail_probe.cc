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
 *
 * Linux's timers fire on jiffy ticks (issue 49): the retransmission timer
 * and the probe, one timer_list in Linux, expire at the first tick that is
 * a whole number of jiffies after the tick they were armed in. ns-3's fire
 * at the exact time, so flows that lost at slightly different times come
 * back at slightly different times, where Linux's come back on one tick.
 * MODEL_JIFFY_US=J (4000: HZ=250; unset or 0: exact, as before) moves both
 * to Linux's expiry, (floor(now / J) + ceil(delay / J)) x J.
 *
 * MODEL_TRACE=FILE: a line per timeout, probe and resent segment
 * (model_trace.h). MODEL_FLOOR_SPREAD=1: each socket's floor from the
 * project's spread rule (model_tcp_socket).
 */
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include "ibnet_tcp_floor_rule.h"
#include "model_trace.h"

using namespace ns3;

namespace {

/* Retransmission timeouts of the kept connections' data, for the run's report. */
unsigned long timeouts;

/* MODEL_JIFFY_US: Linux's tick, 0 for ns-3's exact timers. */
const int64_t jiffy_us = [] {
	const char *v = std::getenv("MODEL_JIFFY_US");

	return v && *v ? std::strtoll(v, nullptr, 10) : 0;
}();

/* The probe's slack past 2 x SRTT: 2 jiffies (8 ms at HZ=250, as before
 * when jiffies are off). */
const Time two_jiffies = jiffy_us > 0 ? MicroSeconds(2 * jiffy_us) : MilliSeconds(8);

/* The delay, from now, of Linux's timer armed now for delay: its expiry
 * rounded to the tick grid as a timer of whole jiffies expires. */
Time on_ticks(Time delay)
{
	if (jiffy_us <= 0)
		return delay;
	int64_t j = jiffy_us * 1000, now = Simulator::Now().GetNanoSeconds();
	int64_t d = delay.GetNanoSeconds(), ticks = d <= 0 ? 1 : (d + j - 1) / j;

	return NanoSeconds((now / j + ticks) * j - now);
}
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

		snap_retx();
		arm();
		return sent;
	}

	void ReceivedAck(Ptr<Packet> packet, const TcpHeader &header) override
	{
		TcpSocketBase::ReceivedAck(packet, header);
		snap_retx();
		arm();
	}

	void ReTxTimeout() override
	{
		uint32_t left = m_dataRetrCount, in_flight = BytesInFlight();
		bool data = m_state != CLOSED && m_state != TIME_WAIT && m_state != SYN_SENT &&
			    m_txBuffer->Size() > 0;

		if (std::getenv("MODEL_DEBUG"))
			std::fprintf(stderr, "model: %.6f s: retransmission timeout, %u in flight, state %d\n",
				     Simulator::Now().GetSeconds(), in_flight,
				     (int)m_tcb->m_congState.Get());
		int src, dst, lane, lport;

		ends(src, dst, lane, lport);	/* before a close frees the end point */
		TcpSocketBase::ReTxTimeout();
		if (!data)
			return;
		timeouts++;
		/* The base took one of its data retries, or closed the
		 * connection when none was left (backoff 0 in the trace). */
		if (FILE *f = model_trace_file())
			std::fprintf(f, "T %.9f %d %d %d %d %u %u\n", Simulator::Now().GetSeconds(), src,
				     dst, lane, lport, left ? m_dataRetries - m_dataRetrCount : 0, in_flight);
		snap_retx();
	}

public:
	/* The socket's transmissions (its "Tx" trace): each segment sent
	 * again is tagged for the ports and written to the trace. */
	void on_tx(Ptr<const Packet> p, const TcpHeader &h, Ptr<const TcpSocketBase>)
	{
		SequenceNumber32 seq = h.GetSequenceNumber();
		uint32_t n = p->GetSize();

		if (!n)
			return;
		if (sent_any && seq < sent_end) {
			p->AddPacketTag(ModelRetransTag());
			if (FILE *f = model_trace_file()) {
				int src, dst, lane, lport;

				ends(src, dst, lane, lport);
				std::fprintf(f, "R %.9f %d %d %d %d %u %u\n", Simulator::Now().GetSeconds(),
					     src, dst, lane, lport, seq.GetValue(), n);
			}
		}
		if (!sent_any || seq + n > sent_end)
			sent_end = seq + n;
		sent_any = true;
	}

private:
	EventId probe;
	SequenceNumber32 sent_end;
	bool sent_any = false;

	/* This connection's hosts, lane (its peer's port: kept_connections.cc)
	 * and local port. */
	void ends(int &src, int &dst, int &lane, int &lport)
	{
		src = model_host_of_node(m_node->GetId());
		dst = lane = lport = -1;
		if (m_endPoint) {
			dst = model_host_of_address(m_endPoint->GetPeerAddress().Get());
			lane = (int)m_endPoint->GetPeerPort() - 60000;
			lport = m_endPoint->GetLocalPort();
		}
	}

	void trace(char what, uint32_t backoff, uint32_t in_flight)
	{
		FILE *f = model_trace_file();
		int src, dst, lane, lport;

		if (!f)
			return;
		ends(src, dst, lane, lport);
		std::fprintf(f, "%c %.9f %d %d %d %d %u %u\n", what, Simulator::Now().GetSeconds(), src,
			     dst, lane, lport, backoff, in_flight);
	}

	/* The retransmission timer moved to Linux's tick (MODEL_JIFFY_US):
	 * wherever ns-3 armed it, its expiry on the grid (an expiry already
	 * on the grid stays). */
	void snap_retx()
	{
		if (jiffy_us <= 0 || !m_retxEvent.IsRunning())
			return;
		Time left = Simulator::GetDelayLeft(m_retxEvent), due = on_ticks(left);

		if (due == left)
			return;
		m_retxEvent.Cancel();
		m_retxEvent = Simulator::Schedule(due, &TailProbeSocket::ReTxTimeout, this);
	}

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
		probe = Simulator::Schedule(on_ticks(due), &TailProbeSocket::fire, this);
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
		trace('P', m_dataRetries - m_dataRetrCount, BytesInFlight());
		/* The base's own: a probe is not a transmission that re-arms. */
		TcpSocketBase::SendDataPacket(last, (uint32_t)(high - last), true);
		snap_retx();
	}
};

/*
 * MODEL_FLOOR_SPREAD=1 (issue 49): this socket's floor (MinRto, and
 * ClockGranularity with it, so that its RTO stays Linux's srtt +
 * max(4 rttvar, floor)) drawn by the project's rule,
 * ibnet_floor_spread(floor_us, hz, r) in contract/ibnet_tcp_floor_rule.h:
 * whole jiffies from the floor's to twice them, with hz from MODEL_JIFFY_US
 * (none: the rule leaves the floor unspread) and r from ns-3's
 * UniformRandomVariable (reproducible with RngRun). Every socket draws, as
 * the socket-option tier's sockets do, accepted ones included; only a
 * sender's floor matters here (the receiving end of a kept connection only
 * acknowledges). A floor of 200 ms (no floor asked) is the kernel's most
 * and stays as it is.
 */
void spread_floor(Ptr<TailProbeSocket> s)
{
	static const bool spread = [] {
		const char *v = std::getenv("MODEL_FLOOR_SPREAD");

		return v && std::string(v) == "1";
	}();
	static Ptr<UniformRandomVariable> draw;
	TimeValue floor;

	if (!spread)
		return;
	if (!draw)
		draw = CreateObject<UniformRandomVariable>();
	s->GetAttribute("MinRto", floor);
	unsigned hz = jiffy_us > 0 ? (unsigned)(1000000 / jiffy_us) : 0;
	unsigned us = ibnet_floor_spread((unsigned)floor.Get().GetMicroSeconds(), hz,
					 draw->GetInteger(0, UINT32_MAX));
	s->SetAttribute("MinRto", TimeValue(MicroSeconds(us)));
	s->SetAttribute("ClockGranularity", TimeValue(MicroSeconds(us)));
	if (FILE *f = model_trace_file())
		std::fprintf(f, "F %.9f %d %u\n", Simulator::Now().GetSeconds(),
			     model_host_of_node(s->GetNode()->GetId()), us);
}

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
	s->TraceConnectWithoutContext("Tx", MakeCallback(&TailProbeSocket::on_tx, PeekPointer(s)));
	spread_floor(s);
	return s;
}
