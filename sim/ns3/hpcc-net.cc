// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc-net.cc - the network side of the model: the records packets carry,
 * the flow table, the INT hop and host queues (HpccQueueDisc), flow-hash
 * ECMP (EcmpRouting) and hpccd's probe path (HpccAgent).
 */
#include "hpcc-model.h"

#include <cmath>

namespace hpccsim
{

/* --- records and tags ------------------------------------------------- */

std::unordered_map<uint32_t, Sample> SamplePool::s_pool;
uint32_t SamplePool::s_next = 1;

uint32_t
SamplePool::New()
{
    uint32_t id = s_next++;
    if (!s_next)
    {
        s_next = 1;
    }
    s_pool[id] = Sample();
    return id;
}

Sample*
SamplePool::Get(uint32_t id)
{
    auto it = s_pool.find(id);
    return it == s_pool.end() ? nullptr : &it->second;
}

bool
SamplePool::Take(uint32_t id, Sample* out)
{
    auto it = s_pool.find(id);
    if (it == s_pool.end())
    {
        return false;
    }
    if (out)
    {
        *out = it->second;
    }
    s_pool.erase(it);
    return true;
}

size_t
SamplePool::Size()
{
    return s_pool.size();
}

NS_OBJECT_ENSURE_REGISTERED(HpccTag);

TypeId
HpccTag::GetTypeId()
{
    static TypeId tid =
        TypeId("hpccsim::HpccTag").SetParent<Tag>().SetGroupName("Network").AddConstructor<HpccTag>();
    return tid;
}

TypeId
HpccTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
HpccTag::GetSerializedSize() const
{
    return 13;
}

void
HpccTag::Serialize(TagBuffer i) const
{
    i.WriteU8(kind);
    i.WriteU32(sample);
    i.WriteU32(flow);
    i.WriteU32(hash);
}

void
HpccTag::Deserialize(TagBuffer i)
{
    kind = i.ReadU8();
    sample = i.ReadU32();
    flow = i.ReadU32();
    hash = i.ReadU32();
}

void
HpccTag::Print(std::ostream& os) const
{
    os << "kind=" << (int)kind << " sample=" << sample << " flow=" << flow;
}

/* murmur3's finalizer over the 5-tuple: well mixed, cheap. */
static uint32_t
Mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

uint32_t
TupleHash(uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport, uint16_t dport)
{
    uint32_t h = Mix(((uint64_t)src << 32) | dst);
    return Mix(((uint64_t)h << 32) ^ ((uint64_t)proto << 32) ^ ((uint32_t)sport << 16) ^ dport) | 1;
}

uint32_t
FlowHash(const FlowInfo* f)
{
    uint32_t h = TupleHash(f->srcAddr.Get(), f->dstAddr.Get(), 6, f->sport, f->dport);
    return f->label ? Mix(((uint64_t)h << 32) | f->label) | 1 : h;
}

/* --- flows ------------------------------------------------------------ */

std::vector<FlowInfo> FlowTable::s_flows;
std::unordered_map<uint64_t, uint32_t> FlowTable::s_byTuple;

static uint64_t
TupleKey(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
    return ((uint64_t)Mix(((uint64_t)src << 32) | dst) << 32) | ((uint32_t)sport << 16) | dport;
}

FlowInfo&
FlowTable::Add()
{
    s_flows.emplace_back();
    s_flows.back().id = s_flows.size() - 1;
    return s_flows.back();
}

FlowInfo*
FlowTable::ById(uint32_t id)
{
    return id < s_flows.size() ? &s_flows[id] : nullptr;
}

void
FlowTable::Index(const FlowInfo& f)
{
    s_byTuple[TupleKey(f.srcAddr.Get(), f.dstAddr.Get(), f.sport, f.dport)] = f.id;
}

FlowInfo*
FlowTable::ByTuple(uint32_t src, uint32_t dst, uint16_t sport, uint16_t dport)
{
    auto it = s_byTuple.find(TupleKey(src, dst, sport, dport));
    return it == s_byTuple.end() ? nullptr : &s_flows[it->second];
}

std::vector<FlowInfo>&
FlowTable::All()
{
    return s_flows;
}

static std::unordered_map<uint32_t, Sample> s_echo;

void
EchoStore(uint32_t flow, const Sample& s)
{
    s_echo[flow] = s;
}

bool
EchoTake(uint32_t flow, Sample* s)
{
    auto it = s_echo.find(flow);
    if (it == s_echo.end())
    {
        return false;
    }
    *s = it->second;
    s_echo.erase(it);
    return true;
}

/* --- the INT hop and host queues -------------------------------------- */

NS_OBJECT_ENSURE_REGISTERED(HpccQueueDisc);

TypeId
HpccQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("hpccsim::HpccQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<HpccQueueDisc>()
            .AddAttribute("MaxSize",
                          "The port's buffer",
                          QueueSizeValue(QueueSize("4MB")),
                          MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnK",
                          "DCTCP's step marking threshold K, bytes; 0: no marking",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HpccQueueDisc::m_ecnK),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Stamp",
                          "0: no INT; 1: stamp probes; 2: probes and data (per-packet INT)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HpccQueueDisc::m_stamp),
                          MakeUintegerChecker<uint32_t>(0, 2))
            .AddAttribute("Rate",
                          "B, the port's rate",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&HpccQueueDisc::m_rate),
                          MakeDataRateChecker());
    return tid;
}

HpccQueueDisc::HpccQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE, QueueSizeUnit::BYTES)
{
}

/*
 * A host's NIC: data segments of per-packet INT flows get their empty INT
 * header (the records the hops fill), pure ACKs of such flows carry back
 * the records of the flow's last data packet (the paper's NIC echo).
 */
void
HpccQueueDisc::HostEgress(Ptr<QueueDiscItem> item)
{
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    if (!ip || ip->GetHeader().GetProtocol() != 6)
    {
        return;
    }
    Ptr<Packet> p = item->GetPacket();
    uint8_t ports[4];
    if (p->GetSize() < 20 || p->CopyData(ports, 4) != 4)
    {
        return;
    }
    uint16_t sport = (ports[0] << 8) | ports[1];
    uint16_t dport = (ports[2] << 8) | ports[3];
    const Ipv4Header& h = ip->GetHeader();
    uint32_t src = h.GetSource().Get(), dst = h.GetDestination().Get();
    FlowInfo* f = FlowTable::ByTuple(src, dst, sport, dport);
    HpccTag tag;
    if (f && f->hpcc && m_stamp == 2 && p->GetSize() > 40)
    {
        tag.kind = HpccTag::DATA;
        tag.flow = f->id;
        tag.sample = SamplePool::New();
        tag.hash = f->label ? FlowHash(f) : 0;
        p->ReplacePacketTag(tag);
        return;
    }
    if (f && f->label)
    {
        /* a path change: the sender's segments carry the new label */
        tag.hash = FlowHash(f);
        p->ReplacePacketTag(tag);
        return;
    }
    f = FlowTable::ByTuple(dst, src, dport, sport);
    Sample s;
    if (f && f->hpcc && EchoTake(f->id, &s))
    {
        tag.kind = HpccTag::ECHO;
        tag.flow = f->id;
        tag.sample = SamplePool::New();
        *SamplePool::Get(tag.sample) = s;
        p->ReplacePacketTag(tag);
    }
}

bool
HpccQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    uint64_t backlog = GetInternalQueue(0)->GetNBytes();
    HpccTag tag;

    if (!isHost && fcr)
    {
        FcrData(item, backlog);
    }
    if (isHost)
    {
        HostEgress(item);
    }
    else if (m_stamp && item->GetPacket()->PeekPacketTag(tag) &&
             (tag.kind == HpccTag::PROBE || (m_stamp == 2 && tag.kind == HpccTag::DATA)))
    {
        Sample* s = SamplePool::Get(tag.sample);
        if (s && s->nhop < HPCC_MAX_HOPS)
        {
            hpcc_hop& r = s->hops[s->nhop++];
            r = hpcc_hop();
            r.ts = (uint64_t)Simulator::Now().GetNanoSeconds();
            r.tx_bytes = m_txBytes;
            r.qlen = std::min<uint64_t>(backlog, 0xffffffffULL);
            r.rate_bps = m_rate.GetBitRate();
            r.switch_id = switchId;
            r.port_id = portId;
            stamps++;
        }
    }
    if (qhist)
    {
        size_t b = backlog / 1000;
        if (b >= qhist->size())
        {
            b = qhist->size() - 1;
        }
        (*qhist)[b]++;
    }
    if (GetCurrentSize() + item > GetMaxSize())
    {
        if (item->GetPacket()->PeekPacketTag(tag))
        {
            SamplePool::Take(tag.sample, nullptr);
        }
        drops++;
        DropBeforeEnqueue(item, "buffer full");
        return false;
    }
    if (m_ecnK && backlog >= m_ecnK && item->Mark())
    {
        marks++;
    }
    return GetInternalQueue(0)->Enqueue(item);
}

Ptr<QueueDiscItem>
HpccQueueDisc::DoDequeue()
{
    Ptr<QueueDiscItem> item = GetInternalQueue(0)->Dequeue();
    if (item)
    {
        m_txBytes += item->GetSize();
    }
    return item;
}

bool
HpccQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() || GetNPacketFilters())
    {
        return false;
    }
    if (!GetNInternalQueues())
    {
        AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
            "MaxSize",
            QueueSizeValue(GetMaxSize())));
    }
    return GetNInternalQueues() == 1;
}

void
HpccQueueDisc::InitializeParams()
{
}

/* --- Fast Congestion Response at the hop ----------------------------------- */

/* @a (host order) as the message's IPv4-mapped address */
static void
Mapped(uint32_t a, uint8_t* out)
{
    memset(out, 0, 16);
    out[10] = out[11] = 0xff;
    out[12] = a >> 24;
    out[13] = a >> 16;
    out[14] = a >> 8;
    out[15] = a;
}

/* hpcc_int_fcr_flow(): the flow's entry, or a new one (a stale one given
 * up for it when the port tracks HPCC_INT_FCR_FLOWS); nullptr: no room */
HpccQueueDisc::FcrFlow*
HpccQueueDisc::FcrFlowOf(uint32_t flow, uint32_t src, uint64_t now)
{
    auto it = m_fcrFlows.find(flow);
    if (it != m_fcrFlows.end())
    {
        return &it->second;
    }
    if (m_fcrFlows.size() >= HPCC_INT_FCR_FLOWS)
    {
        uint64_t stale = 2 * fcr->intervalNs;
        auto j = m_fcrFlows.begin();
        while (j != m_fcrFlows.end() && j->second.seen + stale >= now)
        {
            ++j;
        }
        if (j == m_fcrFlows.end())
        {
            return nullptr;
        }
        m_fcrFlows.erase(j);
    }
    FcrFlow& n = m_fcrFlows[flow];
    n.seen = now;
    n.sentRound = m_round - 1;
    n.countedRound = m_round - 1;
    n.src = src;
    return &n;
}

/* hpcc_int_fcr_rate(): eta x B over the flows counted, the same for each
 * (draft section 5); fcr-drain is not modelled */
void
HpccQueueDisc::FcrRate()
{
    m_fcrRate = std::max<uint64_t>(m_rate.GetBitRate() / 1000 * fcr->eta / m_active, 1);
}

/* hpcc_int_fcr_round(): a round counts the flows seen in the last interval */
void
HpccQueueDisc::FcrRound(uint64_t now, uint64_t backlog)
{
    uint32_t n = 0;
    m_round++;
    for (auto& e : m_fcrFlows)
    {
        if (e.second.seen + fcr->intervalNs >= now)
        {
            e.second.countedRound = m_round;
            n++;
        }
    }
    m_roundTs = now;
    m_active = std::max(n, 1U);
    m_roundActive = m_active;
    FcrRate();
    fcrRounds++;
}

/* hpcc_int_fcr_count(): a flow not counted at the round's start sends;
 * the round starts again early once the count has grown by a third and
 * the round is a quarter of the interval old */
void
HpccQueueDisc::FcrCount(FcrFlow* fl, uint64_t now, uint64_t backlog)
{
    if (fl->countedRound == m_round)
    {
        return;
    }
    fl->countedRound = m_round;
    if (m_active >= HPCC_INT_FCR_FLOWS)
    {
        return;
    }
    m_active++;
    if (m_active * HPCC_INT_FCR_EARLY_DEN >= m_roundActive * HPCC_INT_FCR_EARLY_NUM &&
        now - m_roundTs >= fcr->intervalNs / HPCC_INT_FCR_EARLY_GAP)
    {
        FcrRound(now, backlog);
        fcrEarlyRounds++;
        return;
    }
    FcrRate();
}

/* hpcc_int_fcr_allow(): fcr-sender-max messages per interval per sender,
 * as a steady rate and a burst after a quiet interval */
bool
HpccQueueDisc::FcrAllow(uint32_t src, uint64_t now)
{
    uint64_t interval = fcr->intervalNs;
    uint64_t cost = std::max<uint64_t>(interval / fcr->senderMax, 1);
    auto it = m_senderTat.find(src);
    uint64_t t = std::max(it == m_senderTat.end() ? now : it->second, now);
    if (t - now + cost > interval)
    {
        return false;
    }
    m_senderTat[src] = t + cost;
    return true;
}

/* hpcc_int_fcr_send() and the work that sends: the switch's bounds
 * (hpcc_int_lim_allow(), kernel/lib/hpcc_int_lim.h), then a UDP datagram
 * from the switch to the sender's FCR port; a hardware hop sends it at
 * once */
void
HpccQueueDisc::FcrSend(const hpcc_fcr_msg& m, Ipv4Address to)
{
    FcrSwitch* sw = fcrSwitch;
    uint8_t dst[16];
    Mapped(to.Get(), dst);
    if (!hpcc_int_dst_unicast(dst, 4))
    {
        return;
    }
    switch (hpcc_int_lim_allow(&sw->lim,
                               dst,
                               TupleHash(to.Get(), 0, 0, 0, 0),
                               (uint64_t)Simulator::Now().GetNanoSeconds(),
                               &fcr->lim))
    {
    case HPCC_INT_LIM_DST:
        sw->dstLimited++;
        return;
    case HPCC_INT_LIM_TOTAL:
        sw->msgLimited++;
        return;
    default:
        break;
    }
    uint8_t b[HPCC_WIRE_FCR_LEN];
    hpcc_fcr_encode(b, &m);
    Ptr<Packet> pk = Create<Packet>(b, sizeof(b));
    Simulator::ScheduleNow([this, sw, pk, to]() {
        if (sw->sock->SendTo(pk, 0, InetSocketAddress(to, HPCC_WIRE_FCR_PORT)) >= 0)
        {
            sw->sent++;
            fcrSent++;
        }
    });
}

/*
 * hpcc_int_fcr_data(): a data segment (ACK set, payload) of a workload
 * flow leaving through the port: the flow tracked with its newest
 * sequence number; while the backlog says congested (at or above
 * fcr-qlen-high until at or below fcr-qlen-low), rounds every
 * fcr-interval, one message per round to each flow whose sender takes FCR
 * (every HPCC flow: FCR is on at every host), a CE mark for the others.
 * The backlog is read for every segment (the module reads it at most
 * HPCC_INT_FCR_SAMPLES times per interval).
 */
void
HpccQueueDisc::FcrData(Ptr<QueueDiscItem> item, uint64_t backlog)
{
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    if (!ip || ip->GetHeader().GetProtocol() != 6)
    {
        return;
    }
    Ptr<Packet> p = item->GetPacket();
    TcpHeader th;
    if (p->GetSize() < 20 || !p->PeekHeader(th) || !(th.GetFlags() & TcpHeader::ACK) ||
        p->GetSize() <= th.GetSerializedSize())
    {
        return;
    }
    const Ipv4Header& h = ip->GetHeader();
    uint32_t src = h.GetSource().Get(), dst = h.GetDestination().Get();
    FlowInfo* f = FlowTable::ByTuple(src, dst, th.GetSourcePort(), th.GetDestinationPort());
    if (!f)
    {
        return;
    }
    uint64_t now = (uint64_t)Simulator::Now().GetNanoSeconds();
    if (!m_congested && backlog >= fcr->high)
    {
        m_congested = true;
        m_roundTs = 0;
    }
    else if (m_congested && backlog <= fcr->low)
    {
        m_congested = false;
    }
    FcrFlow* fl = FcrFlowOf(f->id, src, now);
    if (fl)
    {
        fl->seq = th.GetSequenceNumber().GetValue();
        fl->seen = now;
    }
    else
    {
        fcrTableFull++;
    }
    if (!m_congested)
    {
        return;
    }
    if (!m_roundTs || now - m_roundTs >= fcr->intervalNs)
    {
        FcrRound(now, backlog);
    }
    else if (fl)
    {
        FcrCount(fl, now, backlog);
    }
    bool support = f->hpcc != nullptr;
    bool send = fl && support && fl->sentRound != m_round;
    if (send && !FcrAllow(src, now))
    {
        fcrSenderLimited++;
        send = false;
    }
    if (send)
    {
        hpcc_fcr_msg m{};
        fl->sentRound = m_round;
        m.family = 4;
        m.switch_id = switchId;
        m.port_id = portId;
        m.rate = m_fcrRate;
        m.ts = now;
        m.seq = fl->seq;
        m.round = m_round;
        m.interval = (uint32_t)(fcr->intervalNs / 1000);
        m.sport = th.GetSourcePort();
        m.dport = th.GetDestinationPort();
        Mapped(src, m.saddr);
        Mapped(dst, m.daddr);
        FcrSend(m, h.GetSource());
    }
    if ((!fl || !support) && item->Mark())
    {
        fcrCeMarked++;
    }
}

/* --- ECMP --------------------------------------------------------------- */

NS_OBJECT_ENSURE_REGISTERED(EcmpRouting);

TypeId
EcmpRouting::GetTypeId()
{
    static TypeId tid = TypeId("hpccsim::EcmpRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .SetGroupName("Internet")
                            .AddConstructor<EcmpRouting>();
    return tid;
}

void
EcmpRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    m_ipv4 = ipv4;
}

size_t
EcmpRouting::Index(uint32_t dst, uint32_t key) const
{
    auto it = table.find(dst);
    if (it == table.end() || it->second.size() < 2)
    {
        return 0;
    }
    return Mix(((uint64_t)key << 32) | salt) % it->second.size();
}

Ptr<Ipv4Route>
EcmpRouting::Pick(Ptr<const Packet> p, const Ipv4Header& h)
{
    auto it = table.find(h.GetDestination().Get());
    if (it == table.end() || it->second.empty())
    {
        return nullptr;
    }
    const std::vector<NextHop>& nh = it->second;
    size_t i = 0;
    if (nh.size() > 1)
    {
        HpccTag tag;
        uint32_t key = 0;
        if (p && p->PeekPacketTag(tag) && tag.hash)
        {
            key = tag.hash;
        }
        else
        {
            /* (a datagram a switch sends, an FCR message, is routed
             * before its UDP header is added: its first payload bytes
             * stand in for the ports, the same for every message) */
            uint8_t ports[4] = {0, 0, 0, 0};
            if (p && p->GetSize() >= 4)
            {
                p->CopyData(ports, 4);
            }
            key = TupleHash(h.GetSource().Get(),
                            h.GetDestination().Get(),
                            h.GetProtocol(),
                            (ports[0] << 8) | ports[1],
                            (ports[2] << 8) | ports[3]);
        }
        i = Index(h.GetDestination().Get(), key);
    }
    Ptr<Ipv4Route> r = Create<Ipv4Route>();
    r->SetDestination(h.GetDestination());
    r->SetGateway(nh[i].gw);
    r->SetOutputDevice(m_ipv4->GetNetDevice(nh[i].iface));
    r->SetSource(m_ipv4->GetAddress(nh[i].iface, 0).GetLocal());
    return r;
}

Ptr<Ipv4Route>
EcmpRouting::RouteOutput(Ptr<Packet> p,
                         const Ipv4Header& header,
                         Ptr<NetDevice> oif,
                         Socket::SocketErrno& sockerr)
{
    Ptr<Ipv4Route> r = Pick(p, header);
    sockerr = r ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
    return r;
}

bool
EcmpRouting::RouteInput(Ptr<const Packet> p,
                        const Ipv4Header& header,
                        Ptr<const NetDevice> idev,
                        UnicastForwardCallback ucb,
                        MulticastForwardCallback mcb,
                        LocalDeliverCallback lcb,
                        ErrorCallback ecb)
{
    if (m_ipv4->IsDestinationAddress(header.GetDestination(), m_ipv4->GetInterfaceForDevice(idev)))
    {
        lcb(p, header, m_ipv4->GetInterfaceForDevice(idev));
        return true;
    }
    Ptr<Ipv4Route> r = Pick(p, header);
    if (!r)
    {
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return false;
    }
    ucb(r, p, header);
    return true;
}

Ipv4RoutingHelper*
EcmpRoutingHelper::Copy() const
{
    return new EcmpRoutingHelper(*this);
}

Ptr<Ipv4RoutingProtocol>
EcmpRoutingHelper::Create(Ptr<Node> node) const
{
    return CreateObject<EcmpRouting>();
}

/* --- hpccd ------------------------------------------------------------- */

NS_OBJECT_ENSURE_REGISTERED(HpccAgent);

TypeId
HpccAgent::GetTypeId()
{
    static TypeId tid = TypeId("hpccsim::HpccAgent")
                            .SetParent<Application>()
                            .SetGroupName("Applications")
                            .AddConstructor<HpccAgent>();
    return tid;
}

void
HpccAgent::Setup(const AgentParams* ap, uint32_t host, Ipv4Address addr, uint16_t port)
{
    m_ap = ap;
    m_host = host;
    m_addr = addr;
    m_port = port;
}

void
HpccAgent::StartApplication()
{
    m_sock = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    m_sock->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port));
    m_sock->SetRecvCallback(MakeCallback(&HpccAgent::Recv, this));
    m_tokens = m_ap->budget > 0 ? std::max(1.0, m_ap->budget * 1e-4) : 0;
    m_tokenTime = Simulator::Now();
    if (fcrPort)
    {
        m_fcrSock = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
        m_fcrSock->Bind(InetSocketAddress(Ipv4Address::GetAny(), fcrPort));
        m_fcrSock->SetRecvCallback(MakeCallback(&HpccAgent::FcrRecv, this));
    }
}

/*
 * The module's FCR receive path (notify.c): decoded (hpcc_fcr_decode()),
 * a rate below rate-min or above the line rate refused, the flow found by its 4-tuple, then
 * checked and held by the flow (TcpHpcc::FcrTake()); every outcome
 * counted as the module counts it.  Every switch is in the managed
 * domain, and no message carries a MAC.
 */
void
HpccAgent::FcrRecv(Ptr<Socket> s)
{
    Ptr<Packet> p;
    Address from;
    while ((p = s->RecvFrom(from)))
    {
        uint8_t b[HPCC_WIRE_FCR_LEN];
        uint32_t len = p->CopyData(b, sizeof(b));
        hpcc_fcr_msg m;
        if (hpcc_fcr_decode(b, len, &m) != HPCC_FCR_OK)
        {
            fcr.malformed++;
            continue;
        }
        if (m.rate < hostParams->fcrRateMin || m.rate > hostParams->maxPacingBps)
        {
            fcr.outOfRange++;
            continue;
        }
        auto v4 = [](const uint8_t* a) {
            return (uint32_t)a[12] << 24 | (uint32_t)a[13] << 16 | (uint32_t)a[14] << 8 | a[15];
        };
        FlowInfo* f = m.family == 4
                          ? FlowTable::ByTuple(v4(m.saddr), v4(m.daddr), m.sport, m.dport)
                          : nullptr;
        if (!f || !f->hpcc || f->src != m_host)
        {
            fcr.noFlow++;
            continue;
        }
        f->hpcc->FcrTake(m, &fcr);
    }
}

void
HpccAgent::StopApplication()
{
    if (m_sock)
    {
        m_sock->Close();
    }
    if (m_fcrSock)
    {
        m_fcrSock->Close();
    }
}

/* The module's flow-active event: a flow that has data in flight. */
void
HpccAgent::Watch(uint32_t flow)
{
    FlowInfo* f = FlowTable::ById(flow);
    m_flows[flow] = Probing();
    f->hpcc->onActive = [this, flow]() { Active(flow); };
}

void
HpccAgent::Active(uint32_t flow)
{
    auto it = m_flows.find(flow);
    if (it == m_flows.end())
    {
        return;
    }
    while (it->second.out < m_ap->outstanding && !it->second.waiting)
    {
        uint32_t before = it->second.out;
        TrySend(flow);
        if (it->second.out == before)
        {
            break;
        }
    }
}

/* The probe budget: a token bucket of budget probes per second (a burst
 * of 100 us of them, at least one). */
bool
HpccAgent::Token()
{
    if (m_ap->budget <= 0)
    {
        return true;
    }
    Time now = Simulator::Now();
    double burst = std::max(1.0, m_ap->budget * 1e-4);
    m_tokens = std::min(burst, m_tokens + (now - m_tokenTime).GetSeconds() * m_ap->budget);
    m_tokenTime = now;
    if (m_tokens >= 1)
    {
        m_tokens -= 1;
        return true;
    }
    return false;
}

void
HpccAgent::TrySend(uint32_t flow)
{
    Probing& pr = m_flows[flow];
    FlowInfo* f = FlowTable::ById(flow);
    if (!f || f->finish >= 0 || !f->hpcc || !f->hpcc->InFlight())
    {
        return;
    }
    /* hpccd_want(): a token only when no flow waits, else in the queue */
    if (!m_waitq.empty() || !Token())
    {
        budgetWaits++;
        pr.waiting = true;
        m_waitq.push_back(flow);
        ArmWait();
        return;
    }
    Send(flow);
}

/* One timer for the flows waiting for a token, at the next token's time
 * (a timer per flow would wake every waiting flow for each token). */
void
HpccAgent::ArmWait()
{
    if (m_waitArmed || m_waitq.empty())
    {
        return;
    }
    m_waitArmed = true;
    /* at least 1 ns: a wait shorter than ns-3's resolution would fire at
     * once, find no token, and wait again forever at the same time */
    double ns = std::ceil(std::max(0.0, 1 - m_tokens) / m_ap->budget * 1e9);
    Simulator::Schedule(NanoSeconds(std::max<int64_t>(1, (int64_t)ns)), &HpccAgent::Served, this);
}

/* hpccd_next_queued(): the waiting flows, in the order they began to
 * wait, one token each; a flow that no longer has data in flight leaves
 * the queue. */
void
HpccAgent::Served()
{
    m_waitArmed = false;
    while (!m_waitq.empty())
    {
        uint32_t flow = m_waitq.front();
        FlowInfo* f = FlowTable::ById(flow);
        if (!f || f->finish >= 0 || !f->hpcc || !f->hpcc->InFlight())
        {
            m_waitq.pop_front();
            m_flows[flow].waiting = false;
            continue;
        }
        if (!Token())
        {
            break;
        }
        m_waitq.pop_front();
        m_flows[flow].waiting = false;
        Send(flow);
    }
    ArmWait();
}

void
HpccAgent::Send(uint32_t flow)
{
    Probing& pr = m_flows[flow];
    FlowInfo* f = FlowTable::ById(flow);
    Ptr<Packet> p = Create<Packet>(m_ap->probeBytes - 28); /* IPv4 and UDP headers */
    HpccTag tag;
    tag.kind = HpccTag::PROBE;
    tag.flow = flow;
    tag.sample = SamplePool::New();
    tag.hash = FlowHash(f);
    p->AddPacketTag(tag);
    m_sock->SendTo(p, 0, InetSocketAddress(f->dstAddr, m_port));
    probesSent++;
    pr.out++;
    uint64_t gen = ++pr.gen;
    Simulator::Schedule(m_ap->timeout, &HpccAgent::Timeout, this, flow, gen);
}

void
HpccAgent::Timeout(uint32_t flow, uint64_t gen)
{
    auto it = m_flows.find(flow);
    if (it == m_flows.end() || it->second.gen != gen || !it->second.out)
    {
        return;
    }
    timeouts++;
    it->second.out--;
    Active(flow);
}

/* A probe to answer, or a response to push. */
void
HpccAgent::Recv(Ptr<Socket> s)
{
    Ptr<Packet> p;
    Address from;
    while ((p = s->RecvFrom(from)))
    {
        HpccTag tag;
        if (!p->PeekPacketTag(tag))
        {
            continue;
        }
        if (tag.kind == HpccTag::PROBE)
        {
            /* the responder: the records go back in a response, after the
             * receiver's cost, on the reverse 5-tuple */
            FlowInfo* f = FlowTable::ById(tag.flow);
            Time at = std::max(Simulator::Now(), m_busyUntil) + m_ap->respondCost;
            m_busyUntil = at;
            busyTime += m_ap->respondCost;
            Ipv4Address to = InetSocketAddress::ConvertFrom(from).GetIpv4();
            uint32_t size = p->GetSize();
            Simulator::Schedule(at - Simulator::Now(), [this, tag, f, to, size]() {
                Ptr<Packet> r = Create<Packet>(size);
                HpccTag rt = tag;
                rt.kind = HpccTag::RESPONSE;
                rt.hash = TupleHash(f->dstAddr.Get(), f->srcAddr.Get(), 6, f->dport, f->sport);
                r->AddPacketTag(rt);
                m_sock->SendTo(r, 0, InetSocketAddress(to, m_port));
                responsesSent++;
            });
        }
        else if (tag.kind == HpccTag::RESPONSE)
        {
            Sample smp;
            if (!SamplePool::Take(tag.sample, &smp))
            {
                continue;
            }
            auto it = m_flows.find(tag.flow);
            if (it == m_flows.end())
            {
                continue;
            }
            if (it->second.out)
            {
                it->second.out--;
            }
            it->second.gen++; /* the timeout of the probe answered */
            /* the next probe first, then the push (hpccd's order) */
            Active(tag.flow);
            Time at = std::max(Simulator::Now(), m_busyUntil) + m_ap->sampleCost;
            m_busyUntil = at;
            busyTime += m_ap->sampleCost;
            Simulator::Schedule(at - Simulator::Now(), &HpccAgent::Push, this, tag.flow, smp);
        }
    }
}

void
HpccAgent::Push(uint32_t flow, Sample s)
{
    FlowInfo* f = FlowTable::ById(flow);
    if (f && f->hpcc && f->finish < 0)
    {
        f->hpcc->Deliver(s);
        samplesPushed++;
        /* could another flow's probe have served this one? the same hops,
         * sampled for another active flow within T */
        uint64_t path = 1469598103934665603ULL;
        for (uint32_t i = 0; i < s.nhop; i++)
        {
            path = (path ^ s.hops[i].switch_id) * 1099511628211ULL;
            path = (path ^ s.hops[i].port_id) * 1099511628211ULL;
        }
        auto& last = m_paths[path];
        FlowInfo* g = last.second != flow ? FlowTable::ById(last.second) : nullptr;
        if (s.nhop && g && g->finish < 0 && last.first > Time(0) &&
            Simulator::Now() - last.first <= NanoSeconds(hostParams->p.t_ns))
        {
            samplesShareable++;
        }
        last = std::make_pair(Simulator::Now(), flow);
    }
}

} // namespace hpccsim
