// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc-sim - one run of the ns-3 model: a three-tier fat tree (the HPCC
 * paper's, section 5.1, by default scaled down; --pods 5 --tors 4 --aggs 4
 * --cores 16 --hosts 16 --host-rate 100Gbps --fabric-rate 400Gbps is the
 * paper's 320 hosts), a workload drawn from a flow-size CDF at a load,
 * incast on top, and one congestion control for every flow: tcp_hpcc with
 * hpccd's probes, the same law with per-packet INT (the paper's NIC
 * model), DCTCP or CUBIC; with --pods 1 --cores 0 a leaf-spine, where
 * --pairs long flows between the first and the last leaf test path
 * changes (--ccm-tries for HPCC, --plb for DCTCP) against ECMP
 * collisions.  Writes one line per flow (CSV) and a JSON summary;
 * tools/sim/report turns runs into tables and plots.
 * Documentation/simulation.rst has the model and the parameters.
 */
#include "hpcc-model.h"

#include "ns3/applications-module.h"
#include "ns3/point-to-point-module.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <queue>
#include <set>

using namespace ns3;
using namespace hpccsim;

namespace
{

struct Config
{
    std::string algo{"hpcc-probe"};
    uint32_t pods{2}, tors{2}, aggs{2}, cores{4}, hosts{4};
    std::string hostRate{"25Gbps"}, fabricRate{"100Gbps"};
    double linkDelayUs{1};
    std::string cdf;
    double load{0.5};
    double incastLoad{0};
    uint32_t longFlows{0};     /* senders of long flows to host 0 at t = 0 */
    uint32_t pairs{0};         /* long flows host i -> host i of the last ToR */
    uint64_t longBytes{10000000};
    uint32_t incastSenders{60};
    uint64_t incastBytes{500000};
    double duration{0.005};
    double drain{0.05};
    uint32_t seed{1};
    uint32_t mss{1000};
    uint64_t bufferBytes{2000000};
    double minRtoUs{1000};
    double queueFrom{0};       /* s: queue samples from then on */
    /* HPCC */
    double eta{0.95};
    uint32_t maxStage{0};
    double raiBps{0};          /* R_AI; 0: 50 Mbit/s scaled to the host rate */
    double tUs{0};             /* T; 0: the largest base RTT */
    uint32_t staleRtts{4};
    std::string start{"line-rate"};
    uint32_t pacingGainPct{100};
    uint32_t intBytes{42};     /* per-packet INT's overhead in a data packet */
    /* hpccd */
    uint32_t outstanding{1};
    double sampleCostUs{2};
    double respondCostUs{1};
    double budget{0};
    double probeTimeoutUs{1000};
    uint32_t probeHops{5};
    /* FCR */
    bool fcr{false};
    uint64_t fcrHigh{100000}, fcrLow{UINT64_MAX}; /* low: high / 2 unless given */
    uint32_t fcrIntervalUs{1000};
    uint32_t fcrEta{950};
    uint32_t fcrSenderMax{64};
    uint64_t fcrRateMin{HPCC_FCR_RATE_MIN_DEFAULT};
    uint32_t fcrHoldMaxUs{HPCC_FCR_HOLD_MAX_DEFAULT};
    /* path changes: CCM's rule (HPCC), PLB (DCTCP) */
    uint32_t ccmTries{0}, ccmSamples{2}, ccmGapRtts{4}, ccmShare{40};
    uint32_t ccmPauseS{60};
    bool plb{false};
    uint32_t plbRehashRounds{12}, plbIdleRehashRounds{3}, plbCongThresh{128};
    uint32_t plbSuspendRtoS{60};
    bool rtoRehash{false};     /* a new label at every RTO (net.core.txrehash) */
    double seriesUs{0};        /* first ToR's uplinks sampled this often; 0: off */
    std::string out{"."};
};

Config cfg;
HostParams hostParams;
PlbParams plbParams;
AgentParams agentParams;
FcrHopParams fcrHop;
std::map<uint32_t, FcrSwitch> fcrSwitches; /* by switch node id */

NodeContainer hostNodes, switchNodes;
std::vector<Ipv4Address> hostAddr;
std::vector<Ptr<HpccAgent>> agents;
std::vector<HpccQueueDisc*> switchPorts;
std::vector<HpccQueueDisc*> tor0Up;  /* the first ToR's uplinks */
struct UplinkSeries
{
    double t;                 /* s, end of the interval */
    std::vector<double> util; /* per uplink, of its rate */
};
std::vector<UplinkSeries> series;
Ptr<UniformRandomVariable> labelRng;
std::vector<uint64_t> fabricHist(4096), torDownHist(4096);
uint64_t hostRateBps, fabricRateBps;
uint32_t hostLinks; /* per host: links to the farthest host */
std::vector<std::vector<uint32_t>> hostDist;
uint32_t completed;
uint64_t delivered;
/* DCTCP senders' observation rounds: bytes acknowledged, and of them
 * acknowledged with ECE (ns-3's CongestionEstimate trace) */
uint64_t dctcpAcked, dctcpEce;

void
DctcpRound(uint32_t ece, uint32_t acked, double)
{
    dctcpEce += ece;
    dctcpAcked += acked;
}

/* --- the flow-size CDF -------------------------------------------------- */

std::vector<std::pair<double, double>> cdfPoints; /* size, percent */

void
LoadCdf(const std::string& path)
{
    std::ifstream in(path);
    NS_ABORT_MSG_IF(!in, "cannot read " << path);
    std::string line;
    while (std::getline(in, line))
    {
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::istringstream ss(line);
        double s, p;
        if (ss >> s >> p)
        {
            cdfPoints.emplace_back(s, p);
        }
    }
    NS_ABORT_MSG_IF(cdfPoints.size() < 2, path << ": fewer than two points");
}

double
CdfMean()
{
    double m = 0;
    for (size_t i = 1; i < cdfPoints.size(); i++)
    {
        m += (cdfPoints[i].second - cdfPoints[i - 1].second) / 100 *
             (cdfPoints[i].first + cdfPoints[i - 1].first) / 2;
    }
    return m;
}

uint64_t
CdfSample(Ptr<UniformRandomVariable> u)
{
    double p = u->GetValue(0, 100);
    for (size_t i = 1; i < cdfPoints.size(); i++)
    {
        if (p <= cdfPoints[i].second)
        {
            double p0 = cdfPoints[i - 1].second, p1 = cdfPoints[i].second;
            double s0 = cdfPoints[i - 1].first, s1 = cdfPoints[i].first;
            double s = p1 > p0 ? s0 + (s1 - s0) * (p - p0) / (p1 - p0) : s1;
            return std::max<uint64_t>(1, (uint64_t)std::llround(s));
        }
    }
    return (uint64_t)cdfPoints.back().first;
}

/* --- topology ---------------------------------------------------------- */

struct Adj
{
    uint32_t peer;
    uint32_t iface;
    Ipv4Address peerAddr;
};

std::vector<std::vector<Adj>> graph; /* by node id (hosts, then switches) */
uint32_t subnet;

void
Connect(Ptr<Node> a, Ptr<Node> b, const std::string& rate, bool aIsHost, uint32_t level)
{
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue(rate));
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(cfg.linkDelayUs * 1000)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer d = p2p.Install(a, b);

    uint64_t bps = DataRate(rate).GetBitRate();
    double rttMax = 2 * hostLinks * cfg.linkDelayUs * 1e-6;
    uint64_t k = cfg.algo == "dctcp" ? (uint64_t)(bps * rttMax / 8 / 7) : 0;
    uint32_t stamp = cfg.algo == "hpcc-probe" ? 1 : cfg.algo == "hpcc-int" ? 2 : 0;
    for (uint32_t i = 0; i < 2; i++)
    {
        bool host = i == 0 && aIsHost;
        TrafficControlHelper tch;
        tch.SetRootQueueDisc("hpccsim::HpccQueueDisc",
                             "MaxSize",
                             QueueSizeValue(QueueSize(QueueSizeUnit::BYTES,
                                                      host ? 64 * cfg.bufferBytes : cfg.bufferBytes)),
                             "EcnK",
                             UintegerValue(k),
                             "Stamp",
                             UintegerValue(stamp),
                             "Rate",
                             DataRateValue(DataRate(rate)));
        QueueDiscContainer q = tch.Install(d.Get(i));
        HpccQueueDisc* qd = PeekPointer(DynamicCast<HpccQueueDisc>(q.Get(0)));
        qd->isHost = host;
        if (!host)
        {
            qd->switchId = d.Get(i)->GetNode()->GetId();
            qd->portId = d.Get(i)->GetIfIndex();
            if (cfg.fcr)
            {
                qd->fcr = &fcrHop;
                qd->fcrSwitch = &fcrSwitches[qd->switchId];
            }
            if (level == 1 && i == 0 && a->GetId() == switchNodes.Get(0)->GetId())
            {
                tor0Up.push_back(qd);
            }
            std::vector<uint64_t>* hist = (i == 1 && aIsHost) ? &torDownHist : &fabricHist;
            Simulator::Schedule(Seconds(cfg.queueFrom), [qd, hist]() { qd->qhist = hist; });
            switchPorts.push_back(qd);
        }
    }

    Ipv4AddressHelper ip;
    std::ostringstream base;
    base << "10." << ((subnet >> 14) & 0xff) << "." << ((subnet >> 6) & 0xff) << "." << ((subnet & 0x3f) << 2);
    subnet++;
    ip.SetBase(base.str().c_str(), "255.255.255.252");
    Ipv4InterfaceContainer ifs = ip.Assign(d);
    uint32_t ia = a->GetObject<Ipv4>()->GetInterfaceForDevice(d.Get(0));
    uint32_t ib = b->GetObject<Ipv4>()->GetInterfaceForDevice(d.Get(1));
    graph[a->GetId()].push_back({b->GetId(), ia, ifs.GetAddress(1)});
    graph[b->GetId()].push_back({a->GetId(), ib, ifs.GetAddress(0)});
    if (aIsHost)
    {
        hostAddr[a->GetId()] = ifs.GetAddress(0);
    }
}

/*
 * The fat tree of the HPCC paper's simulations (the authors' fat.txt):
 * pods of `tors` ToRs and `aggs` aggregation switches, each ToR linked to
 * every aggregation switch of its pod, aggregation switch i of each pod to
 * cores i * cores/aggs .. (i + 1) * cores/aggs - 1.
 */
void
BuildFatTree()
{
    uint32_t nTor = cfg.pods * cfg.tors, nAgg = cfg.pods * cfg.aggs;
    uint32_t nHost = nTor * cfg.hosts;
    NS_ABORT_MSG_IF(cfg.cores % cfg.aggs, "cores must be a multiple of aggs");
    hostNodes.Create(nHost);
    switchNodes.Create(nTor + nAgg + cfg.cores);
    InternetStackHelper stack;
    EcmpRoutingHelper routing;
    stack.SetRoutingHelper(routing);
    stack.Install(hostNodes);
    stack.Install(switchNodes);
    graph.resize(nHost + switchNodes.GetN());
    hostAddr.resize(nHost);
    hostLinks = cfg.pods > 1 ? 6 : cfg.tors > 1 ? 4 : 2;

    auto tor = [&](uint32_t i) { return switchNodes.Get(i); };
    auto agg = [&](uint32_t i) { return switchNodes.Get(nTor + i); };
    auto core = [&](uint32_t i) { return switchNodes.Get(nTor + nAgg + i); };
    for (uint32_t h = 0; h < nHost; h++)
    {
        Connect(hostNodes.Get(h), tor(h / cfg.hosts), cfg.hostRate, true, 0);
    }
    for (uint32_t p = 0; p < cfg.pods; p++)
    {
        for (uint32_t t = 0; t < cfg.tors; t++)
        {
            for (uint32_t a = 0; a < cfg.aggs; a++)
            {
                Connect(tor(p * cfg.tors + t), agg(p * cfg.aggs + a), cfg.fabricRate, false, 1);
            }
        }
        if (cfg.pods > 1)
        {
            uint32_t per = cfg.cores / cfg.aggs;
            for (uint32_t a = 0; a < cfg.aggs; a++)
            {
                for (uint32_t c = 0; c < per; c++)
                {
                    Connect(agg(p * cfg.aggs + a), core(a * per + c), cfg.fabricRate, false, 2);
                }
            }
        }
    }
}

/* Shortest-path next hops toward every host, for each node (BFS from each
 * host; hosts are never transit). */
void
BuildRoutes()
{
    uint32_t n = graph.size(), nHost = hostNodes.GetN();
    hostDist.assign(nHost, std::vector<uint32_t>(nHost, 0));
    for (uint32_t h = 0; h < nHost; h++)
    {
        std::vector<uint32_t> dist(n, UINT32_MAX);
        std::queue<uint32_t> q;
        dist[h] = 0;
        q.push(h);
        while (!q.empty())
        {
            uint32_t u = q.front();
            q.pop();
            if (u < nHost && u != h)
            {
                continue;
            }
            for (const Adj& e : graph[u])
            {
                if (dist[e.peer] == UINT32_MAX)
                {
                    dist[e.peer] = dist[u] + 1;
                    q.push(e.peer);
                }
            }
        }
        for (uint32_t v = 0; v < n; v++)
        {
            if (v == h || dist[v] == UINT32_MAX)
            {
                continue;
            }
            if (v < nHost)
            {
                hostDist[v][h] = dist[v];
            }
            Ptr<Node> node = v < nHost ? hostNodes.Get(v) : switchNodes.Get(v - nHost);
            Ptr<EcmpRouting> r = DynamicCast<EcmpRouting>(node->GetObject<Ipv4>()->GetRoutingProtocol());
            /* each switch its own salt; the seed changes them all (seed 1
             * as ever), so that seeds place flows differently even when
             * nothing else in the run is random */
            r->salt = (v * 2654435761U) ^ ((cfg.seed - 1) * 0x9e3779b9U);
            for (const Adj& e : graph[v])
            {
                if (dist[e.peer] + 1 == dist[v])
                {
                    r->table[hostAddr[h].Get()].push_back({e.iface, e.peerAddr});
                }
            }
        }
    }
}

/* --- flows --------------------------------------------------------------- */

/* A data packet's bytes on the wire: payload, TCP (20: no timestamps,
 * whose millisecond clock in ns-3 would make every RTT sample 1 us), IPv4
 * (20), PPP (2). */
uint32_t
WireBytes(uint32_t payload)
{
    return payload + 20 + 20 + 2;
}

/*
 * The flow's FCT alone on the empty network: the handshake's round trip,
 * the first packet's store-and-forward over every link, the rest at the
 * host rate.
 */
double
IdealFct(uint32_t src, uint32_t dst, uint64_t size, uint32_t mss)
{
    uint32_t links = hostDist[src][dst];
    double d = cfg.linkDelayUs * 1e-6;
    uint64_t pkts = (size + mss - 1) / mss;
    uint32_t first = WireBytes(std::min<uint64_t>(size, mss));
    double ser = 0;
    for (uint32_t l = 0; l < links; l++)
    {
        bool edge = l == 0 || l + 1 == links;
        ser += first * 8.0 / (edge ? hostRateBps : fabricRateBps);
    }
    uint64_t restBytes = size - std::min<uint64_t>(size, mss) + (pkts - 1) * WireBytes(0);
    double syn = 2 * links * (d + WireBytes(0) * 8.0 / fabricRateBps);
    return syn + links * d + ser + restBytes * 8.0 / hostRateBps;
}

std::vector<Ptr<Socket>> listeners;
std::unordered_map<Socket*, uint32_t> sockFlow;

void
RecvData(Ptr<Socket> s)
{
    Ptr<Packet> p;
    Address from;
    auto it = sockFlow.find(PeekPointer(s));
    while ((p = s->RecvFrom(from)))
    {
        if (it == sockFlow.end())
        {
            InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
            Address local;
            s->GetSockName(local);
            InetSocketAddress l = InetSocketAddress::ConvertFrom(local);
            FlowInfo* f = FlowTable::ByTuple(a.GetIpv4().Get(), l.GetIpv4().Get(), a.GetPort(), l.GetPort());
            NS_ABORT_MSG_IF(!f, "data for no flow");
            it = sockFlow.emplace(PeekPointer(s), f->id).first;
        }
        FlowInfo* f = FlowTable::ById(it->second);
        f->received += p->GetSize();
        delivered += p->GetSize();
        if (f->received >= f->size && f->finish < 0)
        {
            f->finish = Simulator::Now().GetSeconds();
            completed++;
            if (f->hpcc)
            {
                f->samples = f->hpcc->Samples();
                f->fallbacks = f->hpcc->Fallbacks();
            }
        }
    }
}

void
Accept(Ptr<Socket> s, const Address&)
{
    s->SetRecvCallback(MakeCallback(&RecvData));
}

void
SendMore(Ptr<Socket> s, uint32_t)
{
    FlowInfo* f = FlowTable::ById(sockFlow[PeekPointer(s)]);
    while (f->sent < f->size)
    {
        uint32_t n = std::min<uint64_t>(f->size - f->sent, std::min<uint32_t>(s->GetTxAvailable(), 65536));
        if (!n)
        {
            return;
        }
        int r = s->Send(Create<Packet>(n));
        if (r <= 0)
        {
            return;
        }
        f->sent += r;
    }
}

void
Connected(Ptr<Socket> s)
{
    SendMore(s, 0);
}

std::vector<uint16_t> nextPort;

/* A path change (CCM's, PLB's or an RTO's sk_rethink_txhash()): a new
 * random flow label, never 0 (no label) and never the one the flow had. */
void
NewLabel(uint32_t id, bool rto = false)
{
    FlowInfo* f = FlowTable::ById(id);
    uint32_t label;
    do
    {
        label = labelRng->GetInteger(1, HPCC_CCM_LABEL_MAX);
    } while (label == f->label);
    f->label = label;
    if (rto)
    {
        f->rtoRehashes++;
    }
    else
    {
        f->pathChanges++;
    }
}

void
CongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    FlowInfo* f = FlowTable::ById(flow);
    if (now == TcpSocketState::CA_LOSS)
    {
        f->rtos++;
        /* tcp_write_timeout()'s sk_rethink_txhash(): the retransmission
         * and the flow's probes take the new label */
        if (cfg.rtoRehash)
        {
            NewLabel(flow, true);
        }
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        f->recoveries++;
    }
}

void
StartFlow(uint32_t id)
{
    FlowInfo* f = FlowTable::ById(id);
    Ptr<Node> node = hostNodes.Get(f->src);
    Ptr<Socket> s = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(s);
    uint32_t mss = cfg.algo == "hpcc-int" ? cfg.mss - cfg.intBytes : cfg.mss;
    tcp->SetAttribute("SegmentSize", UintegerValue(mss));
    if (cfg.algo == "hpcc-probe" || cfg.algo == "hpcc-int")
    {
        Ptr<TcpHpcc> cc = CreateObject<TcpHpcc>();
        cc->Configure(&hostParams, id);
        if (hostParams.ccm.tries)
        {
            cc->onReroute = [id]() { NewLabel(id); };
        }
        f->hpcc = cc;
        tcp->SetPacingStatus(true);
        tcp->SetPaceInitialWindow(true);
        if (!hostParams.slowStart)
        {
            uint64_t w = hostParams.p.w_init >> HPCC_W_SHIFT;
            tcp->SetAttribute("InitialCwnd", UintegerValue(std::max<uint64_t>(2, w / mss)));
        }
        tcp->SetCongestionControlAlgorithm(cc);
        if (cfg.algo == "hpcc-probe")
        {
            agents[f->src]->Watch(id);
        }
    }
    else if (cfg.algo == "dctcp")
    {
        Ptr<TcpDctcp> cc;
        if (cfg.plb)
        {
            Ptr<TcpDctcpPlb> plb = CreateObject<TcpDctcpPlb>();
            plb->Configure(&plbParams);
            plb->onRehash = [id]() { NewLabel(id); };
            cc = plb;
        }
        else
        {
            cc = CreateObject<TcpDctcp>();
        }
        cc->TraceConnectWithoutContext("CongestionEstimate", MakeCallback(&DctcpRound));
        tcp->SetCongestionControlAlgorithm(cc);
    }
    else
    {
        tcp->SetCongestionControlAlgorithm(CreateObject<TcpCubic>());
    }
    tcp->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, id));
    uint16_t port = nextPort[f->src]++;
    if (!nextPort[f->src])
    {
        nextPort[f->src] = 1024;
    }
    f->sport = port;
    f->dport = 80;
    f->srcAddr = hostAddr[f->src];
    f->dstAddr = hostAddr[f->dst];
    FlowTable::Index(*f);
    sockFlow[PeekPointer(s)] = id;
    f->sock = s;
    s->Bind(InetSocketAddress(f->srcAddr, port));
    s->SetSendCallback(MakeCallback(&SendMore));
    s->SetConnectCallback(MakeCallback(&Connected), MakeNullCallback<void, Ptr<Socket>>());
    s->Connect(InetSocketAddress(f->dstAddr, 80));
}

/*
 * The host's ingress (per-packet INT): a data packet's records wait in
 * the flow's echo slot for the next ACK; an ACK's echo reaches the flow's
 * congestion control before TCP processes the ACK.
 */
void
HostRx(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
{
    HpccTag tag;
    if (!p->PeekPacketTag(tag) || (tag.kind != HpccTag::DATA && tag.kind != HpccTag::ECHO))
    {
        return;
    }
    Sample s;
    if (!SamplePool::Take(tag.sample, &s))
    {
        return;
    }
    FlowInfo* f = FlowTable::ById(tag.flow);
    if (!f || !f->hpcc)
    {
        return;
    }
    if (tag.kind == HpccTag::DATA)
    {
        EchoStore(tag.flow, s);
    }
    else if (f->finish < 0)
    {
        f->hpcc->Deliver(s);
    }
}

void
GenerateFlows()
{
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    Ptr<ExponentialRandomVariable> e = CreateObject<ExponentialRandomVariable>();
    uint32_t n = hostNodes.GetN();
    double mean = cdfPoints.empty() ? 1 : CdfMean();
    double bytesPerSec = cfg.load * n * hostRateBps / 8;
    double lambda = bytesPerSec / mean;
    for (uint32_t i = 0; i < cfg.pairs; i++)
    {
        FlowInfo& f = FlowTable::Add();
        f.src = i;
        f.dst = n - cfg.hosts + i;
        f.size = cfg.longBytes;
        f.start = 0;
    }
    for (uint32_t i = 1; i <= cfg.longFlows && i < n; i++)
    {
        FlowInfo& f = FlowTable::Add();
        f.src = i;
        f.dst = 0;
        f.size = cfg.longBytes;
        f.start = 0;
    }
    e->SetAttribute("Mean", DoubleValue(lambda > 0 ? 1 / lambda : 1e9));
    for (double t = e->GetValue(); lambda > 0 && t < cfg.duration; t += e->GetValue())
    {
        FlowInfo& f = FlowTable::Add();
        f.src = u->GetInteger(0, n - 1);
        do
        {
            f.dst = u->GetInteger(0, n - 1);
        } while (f.dst == f.src);
        f.size = CdfSample(u);
        f.start = t;
    }
    if (cfg.incastLoad > 0)
    {
        uint32_t senders = std::min(cfg.incastSenders, n - 1);
        double perEvent = (double)senders * cfg.incastBytes;
        double rate = cfg.incastLoad * n * hostRateBps / 8 / perEvent;
        Ptr<ExponentialRandomVariable> ie = CreateObject<ExponentialRandomVariable>();
        ie->SetAttribute("Mean", DoubleValue(1 / rate));
        for (double t = ie->GetValue(); t < cfg.duration; t += ie->GetValue())
        {
            uint32_t dst = u->GetInteger(0, n - 1);
            std::vector<uint32_t> pool;
            for (uint32_t h = 0; h < n; h++)
            {
                if (h != dst)
                {
                    pool.push_back(h);
                }
            }
            for (uint32_t i = 0; i < senders; i++)
            {
                uint32_t j = u->GetInteger(i, pool.size() - 1);
                std::swap(pool[i], pool[j]);
                FlowInfo& f = FlowTable::Add();
                f.src = pool[i];
                f.dst = dst;
                f.size = cfg.incastBytes;
                f.start = t;
                f.incast = true;
            }
        }
    }
    for (FlowInfo& f : FlowTable::All())
    {
        uint32_t mss = cfg.algo == "hpcc-int" ? cfg.mss - cfg.intBytes : cfg.mss;
        f.ideal = IdealFct(f.src, f.dst, f.size, mss);
        Simulator::Schedule(Seconds(f.start), &StartFlow, f.id);
    }
}

double
Percentile(const std::vector<uint64_t>& hist, double q)
{
    uint64_t total = std::accumulate(hist.begin(), hist.end(), 0ULL);
    if (!total)
    {
        return 0;
    }
    uint64_t want = (uint64_t)std::ceil(q * total), sum = 0;
    for (size_t i = 0; i < hist.size(); i++)
    {
        sum += hist[i];
        if (sum >= want)
        {
            return i * 1000.0;
        }
    }
    return (hist.size() - 1) * 1000.0;
}

/* The first ToR's uplinks' utilization over the last --series-us, until
 * --duration (the last one, at --duration, taken after the run when the
 * stop came first). */
void
SampleUplinks(bool again)
{
    static std::vector<uint64_t> last(tor0Up.size(), 0);
    double dt = cfg.seriesUs * 1e-6;
    UplinkSeries u{Simulator::Now().GetSeconds(), {}};
    for (size_t i = 0; i < tor0Up.size(); i++)
    {
        uint64_t tx = tor0Up[i]->TxBytes();
        u.util.push_back((tx - last[i]) * 8.0 / (dt * fabricRateBps));
        last[i] = tx;
    }
    series.push_back(u);
    if (again && u.t + dt <= cfg.duration + 1e-12)
    {
        Simulator::Schedule(Seconds(dt), &SampleUplinks, true);
    }
}

void
StopWhenDone()
{
    if (completed == FlowTable::All().size() && Simulator::Now().GetSeconds() >= cfg.duration)
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(MicroSeconds(100), &StopWhenDone);
}

void
Write()
{
    std::ofstream csv(cfg.out + "/flows.csv");
    csv << "id,src,dst,size,start,fct,ideal,slowdown,incast,rtos,recoveries,samples,fallbacks,"
           "received,path_changes,rto_rehashes\n";
    uint64_t rtos = 0, incastRtos = 0, unfinished = 0;
    for (FlowInfo& f : FlowTable::All())
    {
        if (f.hpcc && f.finish < 0)
        {
            f.samples = f.hpcc->Samples();
            f.fallbacks = f.hpcc->Fallbacks();
        }
    }
    for (const FlowInfo& f : FlowTable::All())
    {
        double fct = f.finish >= 0 ? f.finish - f.start : -1;
        csv << f.id << "," << f.src << "," << f.dst << "," << f.size << "," << f.start << "," << fct
            << "," << f.ideal << "," << (fct >= 0 ? fct / f.ideal : -1) << "," << f.incast << ","
            << f.rtos << "," << f.recoveries << "," << f.samples << "," << f.fallbacks << ","
            << f.received << "," << f.pathChanges << "," << f.rtoRehashes << "\n";
        rtos += f.rtos;
        incastRtos += f.incast ? f.rtos : 0;
        unfinished += f.finish < 0;
    }
    uint64_t drops = 0, marks = 0, stamps = 0;
    uint64_t fcrSent = 0, fcrRounds = 0, fcrEarly = 0, fcrSenderLimited = 0, fcrTableFull = 0;
    uint64_t fcrCe = 0, fcrDstLimited = 0, fcrMsgLimited = 0;
    for (HpccQueueDisc* q : switchPorts)
    {
        drops += q->drops;
        marks += q->marks;
        stamps += q->stamps;
        fcrSent += q->fcrSent;
        fcrRounds += q->fcrRounds;
        fcrEarly += q->fcrEarlyRounds;
        fcrSenderLimited += q->fcrSenderLimited;
        fcrTableFull += q->fcrTableFull;
        fcrCe += q->fcrCeMarked;
    }
    for (auto& e : fcrSwitches)
    {
        fcrDstLimited += e.second.dstLimited;
        fcrMsgLimited += e.second.msgLimited;
    }
    FcrCounts fc;
    uint64_t probes = 0, responses = 0, pushed = 0, waits = 0, timeouts = 0;
    uint64_t shareable = 0;
    double busy = 0;
    for (auto& a : agents)
    {
        probes += a->probesSent;
        responses += a->responsesSent;
        pushed += a->samplesPushed;
        shareable += a->samplesShareable;
        waits += a->budgetWaits;
        timeouts += a->timeouts;
        busy = std::max(busy, a->busyTime.GetSeconds());
        fc.accepted += a->fcr.accepted;
        fc.ignored += a->fcr.ignored;
        fc.badSeq += a->fcr.badSeq;
        fc.outOfRange += a->fcr.outOfRange;
        fc.noFlow += a->fcr.noFlow;
        fc.malformed += a->fcr.malformed;
    }
    /* the first ToR's uplinks the pairs took at the start (label 0): fewer
     * than the pairs, or than the uplinks, is a collision */
    std::set<size_t> startUp;
    Ptr<EcmpRouting> tor0 = cfg.pairs ? DynamicCast<EcmpRouting>(
                                            switchNodes.Get(0)->GetObject<Ipv4>()->GetRoutingProtocol())
                                      : nullptr;
    for (uint32_t i = 0; tor0 && i < cfg.pairs; i++)
    {
        const FlowInfo& f = FlowTable::All()[i];
        startUp.insert(tor0->Index(f.dstAddr.Get(),
                                   TupleHash(f.srcAddr.Get(), f.dstAddr.Get(), 6, f.sport, f.dport)));
    }
    uint64_t bytes = 0, pathChanges = 0, rtoRehashes = 0, ccmWaits = 0, pairBytes = 0;
    for (const FlowInfo& f : FlowTable::All())
    {
        bytes += f.size;
        pathChanges += f.pathChanges;
        rtoRehashes += f.rtoRehashes;
        ccmWaits += f.hpcc ? f.hpcc->CcmWaits() : 0;
        pairBytes += f.id < cfg.pairs ? f.received : 0;
    }
    /* the uplinks: mean utilization, over the run and its second half;
     * resolved from the start of the first interval after which every
     * uplink carries at least 70 % of its rate in every interval */
    double utilAll = 0, utilLast = 0, resolve = -1;
    size_t nLast = 0;
    if (!series.empty())
    {
        double dt = cfg.seriesUs * 1e-6;
        for (const UplinkSeries& u : series)
        {
            double m = std::accumulate(u.util.begin(), u.util.end(), 0.0) / u.util.size();
            utilAll += m;
            if (u.t > cfg.duration / 2)
            {
                utilLast += m;
                nLast++;
            }
        }
        utilAll /= series.size();
        utilLast = nLast ? utilLast / nLast : 0;
        for (size_t k = series.size(); k > 0; k--)
        {
            const std::vector<double>& v = series[k - 1].util;
            if (*std::min_element(v.begin(), v.end()) < 0.7)
            {
                break;
            }
            resolve = series[k - 1].t - dt;
        }
        std::ofstream sc(cfg.out + "/series.csv");
        sc << "t";
        for (size_t i = 0; i < tor0Up.size(); i++)
        {
            sc << ",up" << i;
        }
        sc << "\n";
        for (const UplinkSeries& u : series)
        {
            sc << u.t;
            for (double x : u.util)
            {
                sc << "," << x;
            }
            sc << "\n";
        }
    }
    std::ofstream js(cfg.out + "/summary.json");
    js << "{\n"
       << "  \"algo\": \"" << cfg.algo << "\",\n"
       << "  \"seed\": " << cfg.seed << ",\n"
       << "  \"hosts\": " << hostNodes.GetN() << ",\n"
       << "  \"host_rate_bps\": " << hostRateBps << ",\n"
       << "  \"fabric_rate_bps\": " << fabricRateBps << ",\n"
       << "  \"load\": " << cfg.load << ",\n"
       << "  \"incast_load\": " << cfg.incastLoad << ",\n"
       << "  \"duration_s\": " << cfg.duration << ",\n"
       << "  \"sim_end_s\": " << Simulator::Now().GetSeconds() << ",\n"
       << "  \"t_ns\": " << hostParams.p.t_ns << ",\n"
       << "  \"max_stage\": " << cfg.maxStage << ",\n"
       << "  \"start\": \"" << cfg.start << "\",\n"
       << "  \"flows\": " << FlowTable::All().size() << ",\n"
       << "  \"unfinished\": " << unfinished << ",\n"
       << "  \"bytes\": " << bytes << ",\n"
       << "  \"delivered\": " << delivered << ",\n"
       << "  \"rtos\": " << rtos << ",\n"
       << "  \"incast_rtos\": " << incastRtos << ",\n"
       << "  \"drops\": " << drops << ",\n"
       << "  \"marks\": " << marks << ",\n"
       << "  \"stamps\": " << stamps << ",\n"
       << "  \"dctcp_acked_bytes\": " << dctcpAcked << ",\n"
       << "  \"dctcp_ece_bytes\": " << dctcpEce << ",\n"
       << "  \"probes\": " << probes << ",\n"
       << "  \"responses\": " << responses << ",\n"
       << "  \"samples_pushed\": " << pushed << ",\n"
       << "  \"samples_shareable\": " << shareable << ",\n"
       << "  \"budget_waits\": " << waits << ",\n"
       << "  \"probe_timeouts\": " << timeouts << ",\n"
       << "  \"agent_busy_max_s\": " << busy << ",\n"
       << "  \"fcr\": " << (cfg.fcr ? "true" : "false") << ",\n"
       << "  \"fcr_sent\": " << fcrSent << ",\n"
       << "  \"fcr_rounds\": " << fcrRounds << ",\n"
       << "  \"fcr_early_rounds\": " << fcrEarly << ",\n"
       << "  \"fcr_sender_limited\": " << fcrSenderLimited << ",\n"
       << "  \"fcr_dst_limited\": " << fcrDstLimited << ",\n"
       << "  \"fcr_msg_limited\": " << fcrMsgLimited << ",\n"
       << "  \"fcr_table_full\": " << fcrTableFull << ",\n"
       << "  \"fcr_ce_marked\": " << fcrCe << ",\n"
       << "  \"fcr_accepted\": " << fc.accepted << ",\n"
       << "  \"fcr_ignored\": " << fc.ignored << ",\n"
       << "  \"fcr_bad_seq\": " << fc.badSeq << ",\n"
       << "  \"fcr_out_of_range\": " << fc.outOfRange << ",\n"
       << "  \"fcr_no_flow\": " << fc.noFlow << ",\n"
       << "  \"fcr_malformed\": " << fc.malformed << ",\n"
       << "  \"ccm_tries\": " << (uint32_t)hostParams.ccm.tries << ",\n"
       << "  \"ccm_share\": " << (uint32_t)hostParams.ccmShare << ",\n"
       << "  \"plb\": " << (cfg.plb ? "true" : "false") << ",\n"
       << "  \"path_changes\": " << pathChanges << ",\n"
       << "  \"rto_rehash\": " << (cfg.rtoRehash ? "true" : "false") << ",\n"
       << "  \"rto_rehashes\": " << rtoRehashes << ",\n"
       << "  \"ccm_waits\": " << ccmWaits << ",\n"
       << "  \"pairs\": " << cfg.pairs << ",\n"
       << "  \"pairs_goodput_bps\": " << (cfg.pairs ? pairBytes * 8.0 / Simulator::Now().GetSeconds() : 0)
       << ",\n"
       << "  \"uplinks\": " << tor0Up.size() << ",\n"
       << "  \"uplinks_at_start\": " << startUp.size() << ",\n"
       << "  \"uplink_util\": " << utilAll << ",\n"
       << "  \"uplink_util_last_half\": " << utilLast << ",\n"
       << "  \"resolve_s\": " << resolve << ",\n"
       << "  \"queue_fabric_p99_bytes\": " << Percentile(fabricHist, 0.99) << ",\n"
       << "  \"queue_tor_down_p99_bytes\": " << Percentile(torDownHist, 0.99) << ",\n"
       << "  \"records_left\": " << SamplePool::Size() << "\n"
       << "}\n";
}

} // namespace

int
main(int argc, char** argv)
{
    CommandLine cmd(__FILE__);
    cmd.AddValue("algo", "hpcc-probe, hpcc-int, dctcp or cubic", cfg.algo);
    cmd.AddValue("pods", "pods of the fat tree", cfg.pods);
    cmd.AddValue("tors", "ToRs per pod", cfg.tors);
    cmd.AddValue("aggs", "aggregation switches per pod", cfg.aggs);
    cmd.AddValue("cores", "core switches", cfg.cores);
    cmd.AddValue("hosts", "hosts per ToR", cfg.hosts);
    cmd.AddValue("host-rate", "host link rate", cfg.hostRate);
    cmd.AddValue("fabric-rate", "switch-to-switch link rate", cfg.fabricRate);
    cmd.AddValue("link-delay-us", "propagation delay of every link, us", cfg.linkDelayUs);
    cmd.AddValue("cdf", "flow-size CDF (../shared/workloads/)", cfg.cdf);
    cmd.AddValue("load", "background load, fraction of the hosts' capacity", cfg.load);
    cmd.AddValue("incast-load", "incast load, fraction of the hosts' capacity", cfg.incastLoad);
    cmd.AddValue("incast-senders", "senders of one incast", cfg.incastSenders);
    cmd.AddValue("long-flows", "long flows to host 0 at the start, from hosts 1..N", cfg.longFlows);
    cmd.AddValue("long-bytes", "bytes of each long flow", cfg.longBytes);
    cmd.AddValue("incast-bytes", "bytes each incast sender sends", cfg.incastBytes);
    cmd.AddValue("duration", "seconds in which flows start", cfg.duration);
    cmd.AddValue("drain", "seconds after --duration for the last flows", cfg.drain);
    cmd.AddValue("seed", "random seed (same seed, same run)", cfg.seed);
    cmd.AddValue("mss", "TCP payload per packet, bytes", cfg.mss);
    cmd.AddValue("buffer", "bytes of buffer per switch port", cfg.bufferBytes);
    cmd.AddValue("min-rto-us", "TCP's minimum RTO, us", cfg.minRtoUs);
    cmd.AddValue("queue-from", "seconds after which queue lengths are sampled", cfg.queueFrom);
    cmd.AddValue("eta", "HPCC eta", cfg.eta);
    cmd.AddValue("max-stage", "HPCC maxStage", cfg.maxStage);
    cmd.AddValue("rai", "HPCC R_AI, bit/s (W_ai = R_AI * T); 0: 50 Mbit/s per 100 Gbit/s", cfg.raiBps);
    cmd.AddValue("t-us", "HPCC T, us; 0: the largest base RTT", cfg.tUs);
    cmd.AddValue("stale-rtts", "tcp_hpcc stale-rtts", cfg.staleRtts);
    cmd.AddValue("start", "tcp_hpcc start: line-rate or slow-start", cfg.start);
    cmd.AddValue("pacing-gain", "tcp_hpcc pacing-gain, percent of W/T", cfg.pacingGainPct);
    cmd.AddValue("int-bytes", "per-packet INT's bytes in each data packet", cfg.intBytes);
    cmd.AddValue("outstanding", "hpccd: probes out per flow", cfg.outstanding);
    cmd.AddValue("sample-cost-us", "hpccd: host cost per sample, us", cfg.sampleCostUs);
    cmd.AddValue("respond-cost-us", "hpccd: receiver cost per response, us", cfg.respondCostUs);
    cmd.AddValue("budget", "hpccd: probes per second per host, 0 = unbounded", cfg.budget);
    cmd.AddValue("probe-timeout-us", "hpccd: a probe unanswered this long is replaced", cfg.probeTimeoutUs);
    cmd.AddValue("probe-hops", "hpccd: hop records a probe has room for", cfg.probeHops);
    cmd.AddValue("fcr", "Fast Congestion Response at every switch port and host", cfg.fcr);
    cmd.AddValue("fcr-qlen-high", "hpcc_int fcr-qlen-high, bytes", cfg.fcrHigh);
    cmd.AddValue("fcr-qlen-low", "hpcc_int fcr-qlen-low, bytes (default: half of high)", cfg.fcrLow);
    cmd.AddValue("fcr-interval-us", "hpcc_int fcr-interval, us", cfg.fcrIntervalUs);
    cmd.AddValue("fcr-eta", "hpcc_int fcr-eta, per mille of B", cfg.fcrEta);
    cmd.AddValue("fcr-sender-max", "hpcc_int fcr-sender-max, per interval", cfg.fcrSenderMax);
    cmd.AddValue("fcr-rate-min", "tcp_hpcc fcr rate-min, bit/s", cfg.fcrRateMin);
    cmd.AddValue("fcr-hold-max-us", "tcp_hpcc fcr hold-max, us", cfg.fcrHoldMaxUs);
    cmd.AddValue("pairs", "long flows from host i of the first ToR to host i of the last", cfg.pairs);
    cmd.AddValue("ccm-tries", "tcp_hpcc ccm-tries: path changes by the coordination rule; 0: none", cfg.ccmTries);
    cmd.AddValue("ccm-samples", "tcp_hpcc ccm-samples", cfg.ccmSamples);
    cmd.AddValue("ccm-gap-rtts", "tcp_hpcc ccm-gap-rtts", cfg.ccmGapRtts);
    cmd.AddValue("ccm-pause", "tcp_hpcc ccm-pause, s", cfg.ccmPauseS);
    cmd.AddValue("ccm-share", "tcp_hpcc ccm-share, percent", cfg.ccmShare);
    cmd.AddValue("plb", "DCTCP with PLB (net.ipv4.tcp_plb_enabled)", cfg.plb);
    cmd.AddValue("plb-rehash-rounds", "tcp_plb_rehash_rounds", cfg.plbRehashRounds);
    cmd.AddValue("plb-idle-rehash-rounds", "tcp_plb_idle_rehash_rounds", cfg.plbIdleRehashRounds);
    cmd.AddValue("plb-cong-thresh", "tcp_plb_cong_thresh, of 256", cfg.plbCongThresh);
    cmd.AddValue("plb-suspend-rto", "tcp_plb_suspend_rto_sec, s", cfg.plbSuspendRtoS);
    cmd.AddValue("rto-rehash",
                 "a new flow label at every RTO, as Linux's net.core.txrehash for IPv6",
                 cfg.rtoRehash);
    cmd.AddValue("series-us", "the first ToR's uplinks sampled this often, us; 0: off", cfg.seriesUs);
    cmd.AddValue("out", "output directory", cfg.out);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(cfg.algo != "hpcc-probe" && cfg.algo != "hpcc-int" && cfg.algo != "dctcp" &&
                        cfg.algo != "cubic",
                    "unknown --algo " << cfg.algo);
    NS_ABORT_MSG_IF(cfg.cdf.empty() && (cfg.load > 0 || cfg.incastLoad > 0),
                    "--cdf is required with a --load or --incast-load");
    NS_ABORT_MSG_IF(cfg.ccmTries && cfg.algo != "hpcc-probe" && cfg.algo != "hpcc-int",
                    "--ccm-tries needs an HPCC --algo");
    NS_ABORT_MSG_IF(cfg.plb && cfg.algo != "dctcp", "--plb needs --algo=dctcp");
    NS_ABORT_MSG_IF(cfg.ccmTries > 255 || cfg.ccmSamples < 1 || cfg.ccmSamples > 255 ||
                        cfg.ccmGapRtts < 1 || cfg.ccmGapRtts > 255 ||
                        cfg.ccmShare > HPCC_CCM_SHARE_MAX || cfg.ccmPauseS > HPCC_CCM_PAUSE_MAX,
                    "--ccm-* out of range (tries 0-255, samples and gap-rtts 1-255, share 0-"
                        << HPCC_CCM_SHARE_MAX << ", pause 0-" << HPCC_CCM_PAUSE_MAX << " s)");
    NS_ABORT_MSG_IF(cfg.plbRehashRounds > 31 || cfg.plbIdleRehashRounds > 31 ||
                        cfg.plbCongThresh > 256 || cfg.plbSuspendRtoS > 255,
                    "--plb-* out of range (rounds 0-31, cong-thresh 0-256, suspend-rto 0-255 s)");
    NS_ABORT_MSG_IF(cfg.pairs > cfg.hosts || (cfg.pairs && cfg.pods * cfg.tors < 2),
                    "--pairs needs two ToRs and at most --hosts pairs");
    NS_ABORT_MSG_IF(cfg.seriesUs < 0, "--series-us must not be negative");
    NS_ABORT_MSG_IF(cfg.start != "line-rate" && cfg.start != "slow-start",
                    "unknown --start " << cfg.start);
    NS_ABORT_MSG_IF(cfg.pacingGainPct < HPCC_PACING_GAIN_MIN || cfg.pacingGainPct > HPCC_PACING_GAIN_MAX,
                    "--pacing-gain out of range");
    NS_ABORT_MSG_IF(cfg.fcr && cfg.algo != "hpcc-probe" && cfg.algo != "hpcc-int",
                    "--fcr needs an HPCC --algo");
    if (cfg.fcrLow == UINT64_MAX)
    {
        cfg.fcrLow = cfg.fcrHigh / 2;
    }
    NS_ABORT_MSG_IF(cfg.fcr && (!cfg.fcrHigh || cfg.fcrLow >= cfg.fcrHigh),
                    "--fcr-qlen-low must be below --fcr-qlen-high, which must not be 0");
    NS_ABORT_MSG_IF(cfg.fcrIntervalUs < 1 || cfg.fcrIntervalUs > HPCC_INT_INTERVAL_MAX,
                    "--fcr-interval-us out of range (1 to " << HPCC_INT_INTERVAL_MAX << ")");
    NS_ABORT_MSG_IF(cfg.fcrEta < 100 || cfg.fcrEta > 1000, "--fcr-eta out of range (100 to 1000)");
    NS_ABORT_MSG_IF(cfg.fcrSenderMax < 1 || cfg.fcrSenderMax > 1024,
                    "--fcr-sender-max out of range (1 to 1024)");
    NS_ABORT_MSG_IF(cfg.fcrRateMin < 1 || cfg.fcrRateMin > HPCC_RATE_MAX,
                    "--fcr-rate-min out of range");
    NS_ABORT_MSG_IF(cfg.fcrHoldMaxUs < 1 || cfg.fcrHoldMaxUs > 1000000,
                    "--fcr-hold-max-us out of range (1 to 1000000)");
    if (!cfg.cdf.empty())
    {
        LoadCdf(cfg.cdf);
    }
    fcrHop.high = cfg.fcrHigh;
    fcrHop.low = cfg.fcrLow;
    fcrHop.intervalNs = (uint64_t)cfg.fcrIntervalUs * 1000;
    fcrHop.eta = cfg.fcrEta;
    fcrHop.senderMax = cfg.fcrSenderMax;

    RngSeedManager::SetSeed(cfg.seed);
    RngSeedManager::SetRun(1);
    hostRateBps = DataRate(cfg.hostRate).GetBitRate();
    fabricRateBps = DataRate(cfg.fabricRate).GetBitRate();

    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpPrrRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(16 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(16 << 20));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(MicroSeconds(cfg.minRtoUs * 5)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(cfg.minRtoUs)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(NanoSeconds(100)));
    Config::SetDefault("ns3::TcpSocketState::MaxPacingRate", DataRateValue(DataRate(hostRateBps)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(cfg.algo == "dctcp" ? TcpSocketState::On : TcpSocketState::Off));
    /* the receivers (sockets accepted from each host's listener, whose
     * congestion ops they fork) run DCTCP too, as a DCTCP fabric's hosts
     * do: its receiver echoes each CE mark in ACKs until a packet without
     * one (ECE per packet); ns-3's default, CUBIC, echoes as RFC 3168
     * says, ECE on every ACK until the sender's CWR, which inflates
     * DCTCP's marked fraction toward 1 */
    if (cfg.algo == "dctcp")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpDctcp::GetTypeId()));
    }

    BuildFatTree();
    BuildRoutes();

    /* T: the largest base RTT, as the paper sets it; W_init = B_host * T */
    double rtt = 0;
    for (uint32_t s = 0; s < hostNodes.GetN(); s++)
    {
        for (uint32_t d = 0; d < hostNodes.GetN(); d++)
        {
            if (s != d)
            {
                double r = 2 * hostDist[s][d] * cfg.linkDelayUs * 1e-6;
                r += hostDist[s][d] * WireBytes(cfg.mss) * 8.0 / std::min(hostRateBps, fabricRateBps);
                rtt = std::max(rtt, r);
            }
        }
    }
    hpcc_params_default(&hostParams.p);
    hostParams.p.t_ns = cfg.tUs > 0 ? (uint64_t)(cfg.tUs * 1000) : (uint64_t)std::ceil(rtt * 1e9);
    hostParams.p.eta = (uint64_t)(cfg.eta * HPCC_U_ONE);
    hostParams.p.max_stage = cfg.maxStage;
    hostParams.p.w_init = hpcc_bdp(hostRateBps, hostParams.p.t_ns);
    double rai = cfg.raiBps > 0 ? cfg.raiBps : 50e6 * hostRateBps / 100e9;
    hostParams.p.w_ai = (uint64_t)(rai / 8 * hostParams.p.t_ns * 1e-9 * (1 << HPCC_W_SHIFT));
    hostParams.p.w_ai = std::max<uint64_t>(hostParams.p.w_ai, 1);
    hostParams.staleRtts = cfg.staleRtts;
    hostParams.slowStart = cfg.start == "slow-start";
    hostParams.pacingGainPct = cfg.pacingGainPct;
    hostParams.maxPacingBps = hostRateBps;
    hostParams.fcr = cfg.fcr;
    hostParams.fcrHoldMaxNs = (uint64_t)cfg.fcrHoldMaxUs * 1000;
    hostParams.fcrRateMin = cfg.fcrRateMin;
    hostParams.ccm.tries = cfg.ccmTries;
    hostParams.ccm.samples = cfg.ccmSamples;
    hostParams.ccm.gap_rtts = cfg.ccmGapRtts;
    hostParams.ccm.pause_ns = (uint64_t)cfg.ccmPauseS * 1000000000ULL;
    hostParams.ccmShare = cfg.ccmShare;
    plbParams.rehashRounds = cfg.plbRehashRounds;
    plbParams.idleRehashRounds = cfg.plbIdleRehashRounds;
    plbParams.congThresh = cfg.plbCongThresh;
    plbParams.suspendRtoNs = (uint64_t)cfg.plbSuspendRtoS * 1000000000ULL;
    NS_ABORT_MSG_IF(!hpcc_params_valid(&hostParams.p), "HPCC parameters out of range");

    agentParams.outstanding = cfg.outstanding;
    agentParams.sampleCost = NanoSeconds(cfg.sampleCostUs * 1000);
    agentParams.respondCost = NanoSeconds(cfg.respondCostUs * 1000);
    agentParams.budget = cfg.budget;
    agentParams.timeout = NanoSeconds(cfg.probeTimeoutUs * 1000);
    agentParams.probeBytes = 20 + 20 + 24 + cfg.probeHops * 40;

    nextPort.assign(hostNodes.GetN(), 1024);
    for (uint32_t h = 0; h < hostNodes.GetN(); h++)
    {
        Ptr<Socket> l = Socket::CreateSocket(hostNodes.Get(h), TcpSocketFactory::GetTypeId());
        l->Bind(InetSocketAddress(Ipv4Address::GetAny(), 80));
        l->Listen();
        l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                             MakeCallback(&Accept));
        listeners.push_back(l);
        Ptr<HpccAgent> a = CreateObject<HpccAgent>();
        a->Setup(&agentParams, h, hostAddr[h], 6863);
        a->hostParams = &hostParams;
        a->fcrPort = cfg.fcr ? HPCC_WIRE_FCR_PORT : 0;
        hostNodes.Get(h)->AddApplication(a);
        a->SetStartTime(Seconds(0));
        agents.push_back(a);
        hostNodes.Get(h)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Rx",
                                                                                 MakeCallback(&HostRx));
    }

    for (auto& e : fcrSwitches)
    {
        Ptr<Node> node = NodeList::GetNode(e.first);
        e.second.sock = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
        e.second.sock->Bind();
    }
    GenerateFlows();
    /* after the workload's generators: a random variable takes the next
     * stream, and one before them would change every workload */
    labelRng = CreateObject<UniformRandomVariable>();
    if (cfg.seriesUs > 0)
    {
        Simulator::Schedule(MicroSeconds(cfg.seriesUs), &SampleUplinks, true);
    }
    Simulator::Schedule(Seconds(cfg.duration), &StopWhenDone);
    Simulator::Stop(Seconds(cfg.duration + cfg.drain));
    Simulator::Run();
    if (cfg.seriesUs > 0 && !series.empty() &&
        series.back().t + cfg.seriesUs * 1e-6 <= Simulator::Now().GetSeconds() + 1e-12)
    {
        SampleUplinks(false);
    }
    Write();
    std::cout << "algo " << cfg.algo << " flows " << FlowTable::All().size() << " completed "
              << completed << " T_ns " << hostParams.p.t_ns << " sim_end_s "
              << Simulator::Now().GetSeconds() << "\n";
    Simulator::Destroy();
    return 0;
}
