/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc-model.h - the ns-3 model of tcp_hpcc (ns-3.37, Debian's libns3-dev):
 * the module's control law and host rules (kernel/lib/hpcc_core.c and
 * hpcc_host.h, compiled unchanged) as a TcpCongestionOps over ns-3's TCP,
 * an INT hop at switch egress that stamps ts, qlen, txBytes and B as
 * hpcc_int does, the probe path as hpccd runs it, flow-hash ECMP, the
 * per-packet INT variant of the HPCC paper (INT on every data packet,
 * echoed in ACKs), and Fast Congestion Response: hpcc_int's rounds at
 * the switch ports and the module's holds at the senders (the codec, the
 * holds and the sending bounds of kernel/lib/, compiled unchanged), and
 * path changes: the module's coordination rule (Coordinated Congestion
 * Management, kernel/lib/hpcc_ccm.c) for HPCC and PLB's rehash rule
 * (net/ipv4/tcp_plb.c) for DCTCP, each a new flow label in the ECMP hash.
 * Documentation/simulation.rst has the model, what differs from the
 * module, and how to run it.
 */
#ifndef HPCC_MODEL_H
#define HPCC_MODEL_H

extern "C" {
#include "lib/hpcc_core.h"
#include "lib/hpcc_fcr.h"
#include "lib/hpcc_ccm.h"
#include "lib/hpcc_host.h"
#include "hpcc_user_net.h"
#include "lib/hpcc_int_lim.h"
#include <linux/hpcc_int.h>
}

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <deque>
#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

namespace hpccsim
{

using namespace ns3;

/**
 * struct Sample - the hop records one probe (or one data packet, per-packet
 * INT) collected, as hpcc_hop records (kernel/lib/hpcc_core.h)
 */
struct Sample
{
    uint32_t nhop{0};
    hpcc_hop hops[HPCC_MAX_HOPS];
};

/**
 * SamplePool - the records a packet carries, by a 32-bit id in its tag
 * (ns-3's packet tags hold 21 bytes).  An id is taken once, where the
 * records leave the network: the receiver's agent or host, or a drop.
 */
class SamplePool
{
  public:
    static uint32_t New();
    static Sample* Get(uint32_t id);
    static bool Take(uint32_t id, Sample* out);
    static size_t Size();

  private:
    static std::unordered_map<uint32_t, Sample> s_pool;
    static uint32_t s_next;
};

/**
 * HpccTag - what our model marks a packet with
 * @kind: PROBE (hpccd's probe, stamped by hops), RESPONSE (the receiver's
 *	answer), DATA (per-packet INT: a data segment, stamped by hops),
 *	ECHO (per-packet INT: the records a pure ACK carries back)
 * @sample: the SamplePool id of the records
 * @flow: the flow's id (FlowTable)
 * @hash: the 5-tuple hash ECMP uses for this packet (a probe carries the
 *	flow's 5-tuple, so it hashes as the flow's data); 0: from the headers
 */
class HpccTag : public Tag
{
  public:
    enum Kind : uint8_t
    {
        PROBE = 1,
        RESPONSE = 2,
        DATA = 3,
        ECHO = 4,
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    uint8_t kind{0};
    uint32_t sample{0};
    uint32_t flow{0};
    uint32_t hash{0};
};

/* The 5-tuple hash, before each switch's salt: the same for a flow's data
 * and its probes. */
uint32_t TupleHash(uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport, uint16_t dport);

struct FlowInfo;
/* The hash of the flow's data and probes: the 5-tuple's, and with a flow
 * label (after a path change) the label's too, as a switch that hashes
 * IPv6's flow label. */
uint32_t FlowHash(const FlowInfo* f);

class TcpHpcc;

/* How a flow's sender controls congestion. */
enum Algo
{
    ALGO_HPCC_PROBE,  /* tcp_hpcc with hpccd's probes */
    ALGO_HPCC_INT,    /* the paper's per-packet INT, the same law */
    ALGO_DCTCP,
    ALGO_CUBIC,
};

/**
 * struct FlowInfo - one flow of the workload
 */
struct FlowInfo
{
    uint32_t id{0};
    uint32_t src{0}, dst{0};       /* host indices */
    Ipv4Address srcAddr, dstAddr;
    uint16_t sport{0}, dport{0};
    uint64_t size{0};              /* bytes */
    double start{0};               /* s */
    double finish{-1};             /* s, -1 while incomplete */
    double ideal{0};               /* s, the FCT alone on the empty network */
    bool incast{false};
    uint64_t received{0};
    uint32_t rtos{0}, recoveries{0};
    uint32_t samples{0}, fallbacks{0};
    Ptr<TcpHpcc> hpcc;             /* the flow's congestion ops, HPCC flows */
    Ptr<Socket> sock;
    uint64_t sent{0};
    uint32_t label{0};             /* flow label, 20 bits; 0: none yet */
    uint32_t pathChanges{0};       /* new labels (CCM or PLB) */
    uint32_t rtoRehashes{0};       /* new labels at an RTO (--rto-rehash) */
};

/* Every flow, by id and by its sender's 4-tuple. */
class FlowTable
{
  public:
    static FlowInfo& Add();
    static FlowInfo* ById(uint32_t id);
    static FlowInfo* ByTuple(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport);
    static void Index(const FlowInfo& f);
    static std::vector<FlowInfo>& All();

  private:
    static std::vector<FlowInfo> s_flows;
    static std::unordered_map<uint64_t, uint32_t> s_byTuple;
};

/**
 * struct HostParams - the tcp_hpcc parameters of every sender (the
 * module's namespace parameters, Documentation/admin-guide.rst)
 * @fcr: FCR on (hpccctl fcr set port 6862: messages taken, probes
 *	announce support)
 * @fcrHoldMaxNs: fcr hold-max, ns
 * @fcrRateMin: fcr rate-min, bit/s: a message with a lower rate is refused
 * @ccm: the coordination rule's parameters (ccm-tries, ccm-samples,
 *	ccm-gap-rtts, ccm-pause); tries 0: no path changes
 * @ccmShare: ccm-share, percent of the binding hop's B x T
 */
struct HostParams
{
    hpcc_params p;
    uint32_t staleRtts{4};
    uint32_t pacingGainPct{100};
    bool slowStart{false};     /* start: line-rate (false) or slow-start */
    uint64_t maxPacingBps{0};  /* the host's line rate: sk_max_pacing_rate */
    bool fcr{false};
    uint64_t fcrHoldMaxNs{HPCC_FCR_HOLD_MAX_DEFAULT * 1000ULL};
    uint64_t fcrRateMin{HPCC_FCR_RATE_MIN_DEFAULT};
    hpcc_ccm_cfg ccm{};
    uint8_t ccmShare{0};
};

/**
 * struct FcrHopParams - hpcc_int's FCR settings of every switch port
 * (hpccctl int add dev DEV fcr-qlen-high ..., Documentation/admin-guide.rst)
 * and each switch's sending bounds (int set fcr-msg-rate ...)
 * @high: fcr-qlen-high, bytes: congested from this backlog on; 0: FCR off
 * @low: fcr-qlen-low, bytes: no longer congested at this backlog or below
 * @intervalNs: fcr-interval, ns, between rounds
 * @eta: fcr-eta, per mille of B the round's rate hands out
 * @senderMax: fcr-sender-max, messages per sender per interval
 * @lim: the switch's total and per-destination buckets
 */
struct FcrHopParams
{
    uint64_t high{0};
    uint64_t low{0};
    uint64_t intervalNs{1000000};
    uint32_t eta{950};
    uint32_t senderMax{64};
    hpcc_int_lim_cfg lim{HPCC_INT_FCR_MSG_RATE_DEFAULT,
                         HPCC_INT_FCR_MSG_BURST_DEFAULT,
                         HPCC_INT_FCR_DST_RATE_DEFAULT,
                         HPCC_INT_FCR_DST_BURST_DEFAULT};
};

/**
 * struct FcrSwitch - what a switch's ports share for FCR, as hpcc_int's
 * namespace: the sending bounds' state and the UDP socket messages leave
 * from, with the counts of what the bounds refused
 */
struct FcrSwitch
{
    hpcc_int_lim lim{};
    Ptr<Socket> sock;
    uint64_t sent{0}, dstLimited{0}, msgLimited{0};
};

/**
 * struct FcrCounts - a sender's FCR counters (hpccctl stats: fcr-*)
 */
struct FcrCounts
{
    uint64_t accepted{0}, ignored{0}, badSeq{0}, outOfRange{0}, noFlow{0}, malformed{0};
};

/**
 * TcpHpcc - tcp_hpcc's congestion control over ns-3's TCP: on every ACK
 * the newest telemetry through NewAck (hpcc_new_ack()), the staleness
 * rule, then W and W/T (hpcc_host_cwnd(), hpcc_host_pacing_rate()), or
 * the fallback law (Reno, with ns-3's PRR recovery, and the kernel's
 * pacing rule).  Mirrors kernel/tcp_hpcc/main.c, cc.c and input.c; what
 * ns-3 does differently is listed in Documentation/simulation.rst.
 */
class TcpHpcc : public TcpNewReno
{
  public:
    static TypeId GetTypeId();
    TcpHpcc();
    TcpHpcc(const TcpHpcc& o);

    std::string GetName() const override;
    void Init(Ptr<TcpSocketState> tcb) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    bool HasCongControl() const override;
    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    Ptr<TcpCongestionOps> Fork() override;

    void Configure(const HostParams* hp, uint32_t flow);
    /* Telemetry in: what hpccd's telemetry-set push, or an ACK's echo,
     * leaves for the next ACK (the module's tlm slot). */
    void Deliver(const Sample& s);
    /* Whether the flow has data in flight (hpccd probes only then). */
    bool InFlight() const;
    /* Called once the flow outlasts its first round trip, and when it
     * sends again after idle: the module's flow-active event. */
    std::function<void()> onActive;

    /* An FCR message checked against the flow's window and held
     * (hpcc_fcr_lock() and hpcc_fcr_hold() in notify.c), counted. */
    void FcrTake(const hpcc_fcr_msg& m, FcrCounts* c);
    /* The lowest rate the flow held at its last ACK, bit/s; 0: none. */
    uint64_t FcrRate() const { return m_fcrRate; }
    /* The coordination rule decided a path change (hpcc_move()): the
     * caller gives the flow a new label. */
    std::function<void()> onReroute;
    uint32_t CcmWaits() const { return m_ccmWaits; }

    uint32_t Samples() const { return m_samples; }
    uint32_t Fallbacks() const { return m_fallbacks; }
    bool InHpccMode() const { return m_mode == HPCC; }
    uint64_t W() const { return m_core.w >> HPCC_W_SHIFT; }

  private:
    enum Mode
    {
        HPCC,
        FALLBACK,
    };
    uint64_t Now() const;
    void TakeTelemetry(Ptr<TcpSocketState> tcb, uint64_t now);
    void Resume(Ptr<TcpSocketState> tcb);
    void ApplyW(Ptr<TcpSocketState> tcb);
    void FallbackPacing(Ptr<TcpSocketState> tcb);
    void FcrApply(Ptr<TcpSocketState> tcb, Mode law, uint64_t now);
    void CcmStep(uint64_t now, uint64_t w0, uint64_t wc0, uint32_t stage0);

    const HostParams* m_hp{nullptr};
    uint32_t m_flow{0};
    hpcc_flow m_core{};
    Mode m_mode{HPCC};
    bool m_starting{false};
    uint64_t m_activeTime{0}, m_idleSince{0};
    uint64_t m_tlmTime{0}, m_tlmGen{0}, m_usedGen{0};
    Sample m_tlm{};
    bool m_activeSent{false}, m_activePending{true};
    uint32_t m_samples{0}, m_fallbacks{0};
    uint64_t m_srttNs{0};
    Ptr<TcpSocketState> m_tcb;
    hpcc_fcr_hold m_fcr[HPCC_FCR_HOLDS]{};
    uint64_t m_fcrGen{0}, m_fcrUsedGen{0}, m_fcrUntil{0}, m_fcrRate{0};
    hpcc_ccm_flow m_ccm{};
    uint32_t m_ccmWaits{0};
    Ptr<UniformRandomVariable> m_rng;
};

/**
 * struct PlbParams - PLB's sysctls (net.ipv4.tcp_plb_*, ip-sysctl.rst)
 * @rehashRounds: tcp_plb_rehash_rounds, congested rounds before a rehash
 * @idleRehashRounds: tcp_plb_idle_rehash_rounds, congested rounds before
 *	a rehash with nothing in flight; 0: never
 * @congThresh: tcp_plb_cong_thresh, CE-marked fraction of a round's
 *	packets, of 256, that makes it congested
 * @suspendRtoNs: tcp_plb_suspend_rto_sec, ns: no rehash for between one
 *	and two times this after an RTO
 */
struct PlbParams
{
    uint32_t rehashRounds{12};
    uint32_t idleRehashRounds{3};
    uint32_t congThresh{128};
    uint64_t suspendRtoNs{60000000000ULL};
};

/**
 * TcpDctcpPlb - ns-3's DCTCP with Protective Load Balancing as Linux's
 * DCTCP runs it (tcp_dctcp.c with net/ipv4/tcp_plb.c): at each round's end
 * the CE-marked fraction updates the count of congested rounds and may
 * rehash; an RTO pauses rehashing; a restart with nothing in flight may
 * rehash (the idle rehash).
 */
class TcpDctcpPlb : public TcpDctcp
{
  public:
    static TypeId GetTypeId();
    TcpDctcpPlb() = default;
    TcpDctcpPlb(const TcpDctcpPlb& o);

    std::string GetName() const override;
    void Init(Ptr<TcpSocketState> tcb) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    Ptr<TcpCongestionOps> Fork() override;

    void Configure(const PlbParams* pp);
    /* A rehash (sk_rethink_txhash()): the caller gives the flow a new label. */
    std::function<void()> onRehash;

  private:
    void Round(uint32_t bytesMarked, uint32_t bytesAcked, double alpha);
    void CheckRehash();

    const PlbParams* m_pp{nullptr};
    Ptr<TcpSocketState> m_tcb;
    Ptr<UniformRandomVariable> m_rng;
    uint32_t m_consecCongRounds{0};
    uint64_t m_pauseUntil{0};
    bool m_hooked{false};
};

/**
 * HpccQueueDisc - a switch egress port (and a host's NIC queue): a FIFO in
 * bytes with DCTCP's step marking at K, and the INT hop: a probe (all
 * data packets, per-packet INT) gets a record of ts, txBytes, qlen and B,
 * stamped as hpcc_int stamps at NF_INET_FORWARD: qlen the backlog before
 * the packet is queued, txBytes the bytes the queue has handed to the
 * device.  With FCR, the port runs hpcc_int's rounds on the data segments
 * it forwards (FcrData(), kernel/hpcc_int/fcr.c).  On a host: the
 * per-packet INT variant's data packets get their empty INT header here,
 * and pure ACKs the records of the flow's last data packet (the NIC's
 * echo).
 */
class HpccQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    HpccQueueDisc();

    /* Per-port statistics across the run. */
    uint64_t drops{0};
    uint64_t marks{0};
    uint64_t stamps{0};
    std::vector<uint64_t>* qhist{nullptr}; /* backlog at arrival, KB buckets */

    uint32_t switchId{0}, portId{0};
    bool isHost{false};
    /* Bytes handed to the device so far (txBytes). */
    uint64_t TxBytes() const { return m_txBytes; }
    uint32_t hostIndex{0};

    /* FCR: the settings (nullptr: off), the switch's shared state, and
     * the port's counters (hpccctl int show: fcr-*) */
    const FcrHopParams* fcr{nullptr};
    FcrSwitch* fcrSwitch{nullptr};
    uint64_t fcrSent{0}, fcrRounds{0}, fcrEarlyRounds{0}, fcrSenderLimited{0};
    uint64_t fcrTableFull{0}, fcrCeMarked{0};

  private:
    /* hpcc_int_fcr_flow: a flow the port forwards */
    struct FcrFlow
    {
        uint64_t seen{0};
        uint32_t seq{0};
        uint32_t sentRound{0}, countedRound{0};
        uint32_t src{0};
    };
    void FcrData(Ptr<QueueDiscItem> item, uint64_t backlog);
    FcrFlow* FcrFlowOf(uint32_t flow, uint32_t src, uint64_t now);
    void FcrRound(uint64_t now, uint64_t backlog);
    void FcrCount(FcrFlow* fl, uint64_t now, uint64_t backlog);
    void FcrRate();
    bool FcrAllow(uint32_t src, uint64_t now);
    void FcrSend(const hpcc_fcr_msg& m, Ipv4Address to);

    bool m_congested{false};
    uint32_t m_round{0};
    uint64_t m_roundTs{0};
    uint32_t m_active{1}, m_roundActive{1};
    uint64_t m_fcrRate{0};
    std::unordered_map<uint32_t, FcrFlow> m_fcrFlows; /* by flow id */
    std::unordered_map<uint32_t, uint64_t> m_senderTat; /* by sender address */

    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    void HostEgress(Ptr<QueueDiscItem> item);

    uint64_t m_ecnK{0};
    uint32_t m_stamp{0}; /* 0 none, 1 probes, 2 probes and data */
    DataRate m_rate;
    uint64_t m_txBytes{0};
};

/* The echo slot of per-packet INT: a receiver's last records per flow. */
void EchoStore(uint32_t flow, const Sample& s);
bool EchoTake(uint32_t flow, Sample* s);

/**
 * EcmpRouting - shortest paths, one chosen per packet by its 5-tuple hash
 * (HpccTag's hash for probes) and the node's salt, as a switch's ECMP.
 * Hosts have one interface and a default route.
 */
class EcmpRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId();

    struct NextHop
    {
        uint32_t iface;
        Ipv4Address gw;
    };

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override;
    void NotifyInterfaceUp(uint32_t) override {}
    void NotifyInterfaceDown(uint32_t) override {}
    void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override {}
    void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override {}
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper>, Time::Unit) const override {}

    std::unordered_map<uint32_t, std::vector<NextHop>> table; /* by dst address */
    uint32_t salt{0};

    /* The next hop (its index in table[dst]) a packet of hash @key takes. */
    size_t Index(uint32_t dst, uint32_t key) const;

  private:
    Ptr<Ipv4Route> Pick(Ptr<const Packet> p, const Ipv4Header& h);
    Ptr<Ipv4> m_ipv4;
};

class EcmpRoutingHelper : public Ipv4RoutingHelper
{
  public:
    Ipv4RoutingHelper* Copy() const override;
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override;
};

/**
 * struct AgentParams - hpccd's probe path (Documentation/daemon.rst)
 * @outstanding: probes a flow has out at once (hpccd: 1)
 * @sampleCost: the sender's host cost per sample, from the response's
 *	arrival to the records in the module (hpccd's push), served in
 *	order by one thread
 * @respondCost: the receiver's cost per response
 * @budget: probes per second a host sends at most (probe-budget), 0 = none
 * @timeout: a probe without response is replaced after this
 * @probeBytes: a probe's size on the wire (IPv4, TCP, struct
 *	hpcc_wire_hdr and @hops struct hpcc_wire_hop records)
 */
struct AgentParams
{
    uint32_t outstanding{1};
    Time sampleCost{MicroSeconds(2)};
    Time respondCost{MicroSeconds(1)};
    double budget{0};
    Time timeout{MilliSeconds(1)};
    uint32_t probeBytes{0};
};

/**
 * HpccAgent - hpccd on one host: probes for the host's HPCC flows while
 * they have data in flight, the next as soon as the response arrives (or
 * after a timeout), within the probe budget (flows waiting for a token
 * queue in order, as in hpccd's sched.c); answers probes; pushes each
 * response's records to the flow's TcpHpcc after the host cost.
 */
class HpccAgent : public Application
{
  public:
    static TypeId GetTypeId();
    void Setup(const AgentParams* ap, uint32_t host, Ipv4Address addr, uint16_t port);
    void Watch(uint32_t flow);

    uint64_t probesSent{0}, responsesSent{0}, samplesPushed{0}, budgetWaits{0};
    uint64_t timeouts{0};
    /* samples whose path (every hop's switch and port) another of the
     * host's active flows had a sample of within T before: those one
     * probe stream could have served (Documentation/simulation.rst) */
    uint64_t samplesShareable{0};
    Time busyTime{0};
    FcrCounts fcr;
    /* FCR on: the module takes messages on this port (fcr set port) */
    uint16_t fcrPort{0};
    const HostParams* hostParams{nullptr};

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Active(uint32_t flow);
    void TrySend(uint32_t flow);
    void Send(uint32_t flow);
    void Recv(Ptr<Socket> s);
    void Timeout(uint32_t flow, uint64_t gen);
    void Push(uint32_t flow, Sample s);
    bool Token();
    void FcrRecv(Ptr<Socket> s);
    void ArmWait();
    void Served();

    struct Probing
    {
        uint32_t out{0};
        uint64_t gen{0};
        bool waiting{false};
    };
    const AgentParams* m_ap{nullptr};
    uint32_t m_host{0};
    Ipv4Address m_addr;
    uint16_t m_port{0};
    Ptr<Socket> m_sock, m_fcrSock;
    std::unordered_map<uint32_t, Probing> m_flows;
    /* by path (a hash of every hop's switch and port): the last sample's
     * time and flow */
    std::unordered_map<uint64_t, std::pair<Time, uint32_t>> m_paths;
    Time m_busyUntil{0};
    std::deque<uint32_t> m_waitq; /* flows waiting for a token, in order */
    bool m_waitArmed{false};
    double m_tokens{0};
    Time m_tokenTime{0};
};

} // namespace hpccsim

#endif
