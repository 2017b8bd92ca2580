// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kept_connections.cc - MPI messages over kept TCP connections in SimGrid's
 * ns-3 network, as an MPI sends them.
 *
 * SimGrid's ns-3 binding makes each message a TCP connection of its own:
 * it creates a socket with ns3::Socket::CreateSocket, connects it, writes
 * the message, closes it, and takes the message as delivered when the close
 * completes (README.md: a handshake and a close per message, no round-trip
 * estimate, tail losses found only by the timeout). This file, preloaded
 * (LD_PRELOAD, devel/smpi-model/run), answers that CreateSocket with a
 * MessageSocket: it takes the message's bytes as SimGrid writes them and
 * queues them on one of the real TCP connections from its node to the
 * destination node (see lane_of), made on its first message and kept. The
 * receiving node counts the bytes in order; when a message's last byte has
 * arrived, its MessageSocket tells SimGrid what it expects of a socket
 * whose peer received everything: the bytes sent, then the normal close.
 * Listening sockets (SimGrid's per-message packet sinks) are MessageSockets
 * that do nothing. Everything else of ns-3 is untouched.
 */
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <map>
#include <vector>

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"

using namespace ns3;

/* tail_probe.cc: a real TCP socket, with Linux's tail loss probe. */
Ptr<Socket> model_tcp_socket(Ptr<Node> node);

namespace {

const uint16_t kept_port = 60000;	// lane L's connections go to port kept_port + L
const uint32_t small_message = 1040;	// SimGrid's largest piece (see lane_of)
/* Lane 0: small messages; lanes 1..bulk_lanes: the others (see lane_of). */
uint32_t bulk_lanes = 1;

class MessageSocket;

/* One kept connection, from one node to another, and what it carries. */
struct Pair {
	Ptr<Socket> sender;			// on the source node
	bool connected = false;
	uint64_t unwritten = 0;			// queued, not yet given to TCP
	std::deque<std::pair<Ptr<MessageSocket>, uint64_t>> messages;	// in order, bytes left
};

// by (source node, destination node x (bulk_lanes + 1) + lane); never freed (see ns3_ports.cc)
auto &pairs = *new std::map<std::pair<uint32_t, uint32_t>, Pair>;
auto &listening = *new std::map<uint32_t, std::vector<Ptr<Socket>>>;	// per node, per lane
auto &pair_of_sender = *new std::map<Socket *, Pair *>;	// a sender's callbacks find their pair

void write_pending(Pair &p)
{
	while (p.connected && p.unwritten > 0 && p.sender->GetTxAvailable() > 0) {
		uint32_t n = (uint32_t)std::min<uint64_t>(p.unwritten, p.sender->GetTxAvailable());
		int sent = p.sender->Send(Create<Packet>(n), 0);

		if (sent <= 0)
			return;
		p.unwritten -= (uint64_t)sent;
	}
}

void delivered(Pair &p, uint64_t bytes);

class MessageSocket : public Socket {
      public:
	static TypeId GetTypeId()
	{
		static TypeId tid = TypeId("ibnet::MessageSocket").SetParent<Socket>().SetGroupName("Internet");
		return tid;
	}
	explicit MessageSocket(Ptr<Node> node) : node_(node) {}

	enum SocketErrno GetErrno() const override { return ERROR_NOTERROR; }
	enum SocketType GetSocketType() const override { return NS3_SOCK_STREAM; }
	Ptr<Node> GetNode() const override { return node_; }
	int Bind(const Address &) override { return 0; }
	int Bind() override { return 0; }
	int Bind6() override { return 0; }
	int ShutdownSend() override { return 0; }
	int ShutdownRecv() override { return 0; }
	int Listen() override { return 0; }
	uint32_t GetTxAvailable() const override { return 1u << 30; }
	uint32_t GetRxAvailable() const override { return 0; }
	Ptr<Packet> Recv(uint32_t, uint32_t) override { return nullptr; }
	Ptr<Packet> RecvFrom(uint32_t, uint32_t, Address &) override { return nullptr; }
	int SendTo(Ptr<Packet> p, uint32_t flags, const Address &) override { return Send(p, flags); }
	int GetSockName(Address &a) const override { a = InetSocketAddress(Ipv4Address::GetAny(), 0); return 0; }
	int GetPeerName(Address &a) const override { a = peer_; return 0; }
	bool SetAllowBroadcast(bool) override { return false; }
	bool GetAllowBroadcast() const override { return false; }

	/* SimGrid connects, then writes the message and closes. */
	int Connect(const Address &to) override;
	void open_lane(uint32_t first_piece);
	int Send(Ptr<Packet> p, uint32_t) override;
	int Close() override
	{
		closed_ = true;
		finish_if_done();
		return 0;
	}
	void received(uint64_t bytes)
	{
		arrived_ += bytes;
		NotifyDataSent((uint32_t)bytes);
		finish_if_done();
	}

      private:
	void finish_if_done()
	{
		/* (A message of no bytes has no lane and is done when closed.) */
		if (closed_ && !done_ && arrived_ >= written_) {
			done_ = true;
			NotifyNormalClose();
		}
	}

	Ptr<Node> node_;
	Address peer_;
	Pair *pair_ = nullptr;
	uint64_t written_ = 0, arrived_ = 0;
	bool closed_ = false, done_ = false;
};

uint32_t node_of(Ipv4Address a)
{
	static auto &known = *new std::map<uint32_t, uint32_t>;
	auto it = known.find(a.Get());

	if (it != known.end())
		return it->second;
	for (uint32_t n = 0; n < NodeList::GetNNodes(); n++) {
		Ptr<Ipv4> ip = NodeList::GetNode(n)->GetObject<Ipv4>();

		for (uint32_t i = 0; ip && i < ip->GetNInterfaces(); i++)
			for (uint32_t k = 0; k < ip->GetNAddresses(i); k++)
				if (ip->GetAddress(i, k).GetLocal() == a)
					return known[a.Get()] = n;
	}
	return UINT32_MAX;
}

/* The receiving node: count each kept connection's bytes into its messages. */
void on_receive(uint32_t lane_index, Ptr<Socket> s)
{
	Address from;
	Ptr<Packet> p;

	while ((p = s->RecvFrom(from))) {
		Ipv4Address a = InetSocketAddress::ConvertFrom(from).GetIpv4();
		uint32_t src = node_of(a), dst = s->GetNode()->GetId();
		auto it = pairs.find({src, dst * (bulk_lanes + 1) + lane_index});

		if (it != pairs.end())
			delivered(it->second, p->GetSize());
	}
}

void on_accept(uint32_t lane_index, Ptr<Socket> s, const Address &)
{
	s->SetRecvCallback(MakeBoundCallback(&on_receive, lane_index));
}

/* A node's listeners, one a lane: kept_port + the lane's index. */
void listen_on(Ptr<Node> node)
{
	if (listening.count(node->GetId()))
		return;
	for (uint32_t lane_index = 0; lane_index <= bulk_lanes; lane_index++) {
		Ptr<Socket> l = model_tcp_socket(node);

		if (l->Bind(InetSocketAddress(Ipv4Address::GetAny(), (uint16_t)(kept_port + lane_index))) != 0) {
			std::fprintf(stderr, "model: node %u cannot listen on port %u (an ephemeral port got there first)\n",
				     node->GetId(), kept_port + lane_index);
			std::abort();
		}
		l->Listen();
		l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address &>(),
				     MakeBoundCallback(&on_accept, lane_index));
		listening[node->GetId()].push_back(l);
	}
}

void delivered(Pair &p, uint64_t bytes)
{
	while (bytes > 0 && !p.messages.empty()) {
		auto &head = p.messages.front();
		uint64_t n = std::min(bytes, head.second);

		head.second -= n;
		bytes -= n;
		Ptr<MessageSocket> m = head.first;
		if (head.second == 0)
			p.messages.pop_front();
		m->received(n);
	}
}

/*
 * A kept connection that gave up: ns-3 closes a connection whose segment
 * has timed out DataRetries times in a row (ns-3's default is 6, Linux's
 * tcp_retries2 15; run sets 15). Its messages can then never arrive and the
 * run would never end, so it is said, and the run stops.
 */
void on_error_close(Ptr<Socket> s)
{
	auto it = pair_of_sender.find(PeekPointer(s));

	std::fprintf(stderr, "model: %.6f s: a kept connection of node %u closed by error "
			     "(its data retries spent), %zu messages undelivered: stopping\n",
		     Simulator::Now().GetSeconds(), s->GetNode()->GetId(),
		     it != pair_of_sender.end() ? it->second->messages.size() : (size_t)0);
	std::fflush(stderr);
	std::exit(3);
}

void on_connected(Ptr<Socket> s)
{
	auto it = pair_of_sender.find(PeekPointer(s));

	if (it != pair_of_sender.end()) {
		it->second->connected = true;
		write_pending(*it->second);
	}
}

/* Called on every ACK that frees send space: one lookup, not a walk of
 * every pair (65,536 of them at 256 nodes). */
void on_send_space(Ptr<Socket> s, uint32_t)
{
	auto it = pair_of_sender.find(PeekPointer(s));

	if (it != pair_of_sender.end())
		write_pending(*it->second);
}

/*
 * The lane of a message whose first piece is first_piece bytes.
 * An MPI over TCP keeps a connection per pair of processes, so a small
 * message (the paced scheme's 4-byte credit) waits only behind its own
 * pair's data; one connection per pair of nodes would queue it behind the
 * data of every pair of ranks of those nodes (16 at 4 ranks per node: the
 * paced scheme's credit round trip was 0.48 ms and its calls 11x the
 * 16-core cluster's). SimGrid says nothing of ranks, only hosts, so small
 * messages get a lane of their own: SimGrid writes a message in pieces of
 * at most 1,040 bytes, so a first piece under that is the whole message.
 * The others take the pair of nodes' bulk lanes in turn (MODEL_LANES, run:
 * ranks per node squared, the connections an MPI keeps between two nodes'
 * processes): each starts with its own initial window and backs off on its
 * own losses, so the incast on a switch port is as many connections' as an
 * MPI's. With one bulk lane per pair of nodes the model lost a tenth of the
 * 16-core machine's packets at 8 x 4 on 24 KB ports.
 * MODEL_CREDIT_LANE=shared (issue 51; run's default): small messages take
 * the bulk lanes in turn too, as an MPI's credits share their pair's
 * connection with its data (at one rank a node the bulk lane is that very
 * connection; with more, a turn of the node pair's lanes stands in for the
 * rank pair's own). "own": the lane of their own above, which cut the
 * paced credit's round trip in the model from 0.48 to 0.13 ms at 8 x 4.
 * Which of its lanes a message takes changes no matching: SMPI matched it
 * before any byte moved.
 */
uint32_t lane_of(uint32_t first_piece, uint32_t src, uint32_t dst)
{
	static auto &turn = *new std::map<std::pair<uint32_t, uint32_t>, uint32_t>;
	static const bool credit_lane = [] {
		const char *v = getenv("MODEL_CREDIT_LANE");

		if (v && *v && std::string(v) != "own" && std::string(v) != "shared") {
			std::fprintf(stderr, "model: MODEL_CREDIT_LANE '%s' is not own or shared\n", v);
			std::abort();
		}
		return v && std::string(v) == "own";
	}();

	if (credit_lane && first_piece < small_message)
		return 0;
	return 1 + turn[{src, dst}]++ % bulk_lanes;
}

int MessageSocket::Connect(const Address &to)
{
	peer_ = to;
	/* As a real socket would once connected: SimGrid writes from its send callback. */
	Ptr<MessageSocket> self = this;
	Simulator::Schedule(NanoSeconds(1), [self]() {
		self->NotifyConnectionSucceeded();
		self->NotifySend(self->GetTxAvailable());
	});
	return 0;
}

/* Before the message's first byte: its lane, connected once and kept. */
void MessageSocket::open_lane(uint32_t first_piece)
{
	Ipv4Address a = InetSocketAddress::ConvertFrom(peer_).GetIpv4();
	uint32_t src = node_->GetId(), dst = node_of(a), lane_index = lane_of(first_piece, src, dst);
	Pair &p = pairs[{src, dst * (bulk_lanes + 1) + lane_index}];

	pair_ = &p;
	if (!p.sender) {
		listen_on(NodeList::GetNode(dst));
		p.sender = model_tcp_socket(node_);
		pair_of_sender[PeekPointer(p.sender)] = &p;
		p.sender->Bind();
		p.sender->SetConnectCallback(MakeCallback(&on_connected),
					     MakeNullCallback<void, Ptr<Socket>>());
		p.sender->SetSendCallback(MakeCallback(&on_send_space));
		p.sender->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(),
					    MakeCallback(&on_error_close));
		p.sender->Connect(InetSocketAddress(a, (uint16_t)(kept_port + lane_index)));
	}
}

int MessageSocket::Send(Ptr<Packet> packet, uint32_t)
{
	uint32_t n = packet->GetSize();

	if (n == 0)
		return 0;
	if (!pair_)
		open_lane(n);
	written_ += n;
	if (!pair_->messages.empty() && pair_->messages.back().first == this)
		pair_->messages.back().second += n;
	else
		pair_->messages.emplace_back(Ptr<MessageSocket>(this), n);
	pair_->unwritten += n;
	write_pending(*pair_);
	return (int)n;
}

}  // namespace

namespace ns3 {

/*
 * The one symbol preloaded: SimGrid's (and its packet sinks') TCP sockets
 * become MessageSockets; any other socket is ns-3's own, from the node's
 * factory as ns-3's own CreateSocket does.
 */
Ptr<Socket> Socket::CreateSocket(Ptr<Node> node, TypeId tid)
{
	static const bool kept = !getenv("MODEL_KEPT") || std::string(getenv("MODEL_KEPT")) != "0";
	/* Read once, before the first message; a port a lane, up to 65535. */
	static const bool lanes_read = [] {
		const char *v = getenv("MODEL_LANES");
		unsigned long n = v && *v ? std::strtoul(v, nullptr, 10) : 1;

		if (n < 1 || n > 4096) {
			std::fprintf(stderr, "model: MODEL_LANES '%s' is not 1 to 4096\n", v);
			std::abort();
		}
		bulk_lanes = (uint32_t)n;
		return true;
	}();

	(void)lanes_read;

	if (kept && tid == TcpSocketFactory::GetTypeId())
		return CreateObject<MessageSocket>(node);
	return node->GetObject<SocketFactory>(tid)->CreateSocket();
}

}  // namespace ns3
