// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-hpcc.cc - tcp_hpcc's congestion control over ns-3's TCP.  The order
 * of an ACK is kernel/tcp_hpcc/main.c's hpcc_cong_control_rs(): the newest
 * telemetry through NewAck (input.c's hpcc_take_telemetry()), the
 * staleness rule, then the law in force: W and W/T (cc.c's
 * hpcc_apply_w()) or the fallback law.  The arithmetic is the module's
 * own: kernel/lib/hpcc_core.c and hpcc_host.h; path changes by its
 * coordination rule (kernel/lib/hpcc_ccm.c).  And DCTCP with PLB's
 * rehash (TcpDctcpPlb), the baseline of path changes.
 */
#include "hpcc-model.h"

namespace hpccsim
{

NS_OBJECT_ENSURE_REGISTERED(TcpHpcc);

/* Every clock reading is offset so that 0 keeps meaning "never" (the
 * module's idle_since and sample_time). */
static const uint64_t CLOCK_BASE = 1000000000ULL;

TypeId
TcpHpcc::GetTypeId()
{
    static TypeId tid = TypeId("hpccsim::TcpHpcc")
                            .SetParent<TcpNewReno>()
                            .SetGroupName("Internet")
                            .AddConstructor<TcpHpcc>();
    return tid;
}

TcpHpcc::TcpHpcc()
    : TcpNewReno()
{
}

TcpHpcc::TcpHpcc(const TcpHpcc& o)
    : TcpNewReno(o),
      m_hp(o.m_hp),
      m_flow(o.m_flow)
{
}

std::string
TcpHpcc::GetName() const
{
    return "TcpHpcc";
}

Ptr<TcpCongestionOps>
TcpHpcc::Fork()
{
    return CopyObject<TcpHpcc>(this);
}

bool
TcpHpcc::HasCongControl() const
{
    return true;
}

uint64_t
TcpHpcc::Now() const
{
    return CLOCK_BASE + Simulator::Now().GetNanoSeconds();
}

void
TcpHpcc::Configure(const HostParams* hp, uint32_t flow)
{
    m_hp = hp;
    m_flow = flow;
}

/*
 * hpcc_init(): the core's state, and the start the start parameter
 * selects: line-rate, W = W_init (the socket's initial window and pacing
 * rate are set from it), or slow-start, the fallback law until a sample
 * measures U.
 */
void
TcpHpcc::Init(Ptr<TcpSocketState> tcb)
{
    NS_ASSERT_MSG(m_hp, "TcpHpcc::Configure before the socket takes it");
    m_tcb = tcb;
    if (m_hp->ccm.tries)
    {
        m_rng = CreateObject<UniformRandomVariable>();
    }
    hpcc_flow_init(&m_core, &m_hp->p);
    m_activeTime = Now();
    m_idleSince = m_activeTime;
    if (m_hp->slowStart)
    {
        m_mode = FALLBACK;
        m_starting = true;
    }
    else
    {
        m_mode = HPCC;
        uint64_t rate = hpcc_host_pacing_rate(m_core.w, m_hp->pacingGainPct, m_hp->p.t_ns);
        tcb->m_pacingRate = DataRate(std::min(rate * 8, m_hp->maxPacingBps));
    }
}

bool
TcpHpcc::InFlight() const
{
    return m_tcb && m_tcb->m_highTxMark.Get() > m_tcb->m_lastAckedSeq;
}

void
TcpHpcc::Deliver(const Sample& s)
{
    m_tlm = s;
    m_tlmTime = Now();
    m_tlmGen++;
}

/* hpcc_ssthresh(): Reno's halving; in HPCC mode W and Wc are capped at it. */
uint32_t
TcpHpcc::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    uint32_t ssthresh = std::max(tcb->m_cWnd.Get() / 2, 2 * tcb->m_segmentSize);

    if (m_mode == HPCC)
    {
        uint64_t cap = (uint64_t)ssthresh << HPCC_W_SHIFT;
        m_core.w = std::min(m_core.w, cap);
        m_core.wc = std::min(m_core.wc, cap);
        m_core.inc_stage = 0;
    }
    return ssthresh;
}

/* ns-3 grows the window here before CongControl: the fallback law's Reno. */
void
TcpHpcc::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    if (m_mode != HPCC)
    {
        TcpNewReno::IncreaseWindow(tcb, segmentsAcked);
    }
}

/*
 * hpcc_tx_start(): sending resumes with nothing in flight; the staleness
 * clock skips the idle period (hpcc_host_idle_end()), and the next ACK
 * that finds the flow sending announces it to hpccd.  An RTO
 * (CA_EVENT_LOSS) pauses path changes (hpcc_ccm_on_rto()).
 */
void
TcpHpcc::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
    if (event == TcpSocketState::CA_EVENT_LOSS)
    {
        hpcc_ccm_rto(&m_ccm, &m_hp->ccm, Now());
        return;
    }
    if (event != TcpSocketState::CA_EVENT_TX_START)
    {
        return;
    }
    uint64_t now = Now();
    if (m_idleSince)
    {
        uint64_t news = hpcc_host_last_news(m_activeTime, m_tlmGen != 0, m_tlmTime);
        m_activeTime = hpcc_host_idle_end(news, m_idleSince, now);
        m_idleSince = 0;
    }
    m_activePending = true;
}

/* hpcc_resume(): fresh telemetry after a fallback restarts the core from
 * the current window. */
void
TcpHpcc::Resume(Ptr<TcpSocketState> tcb)
{
    hpcc_flow_restart(&m_core, &m_hp->p, (uint64_t)tcb->m_cWnd.Get() << HPCC_W_SHIFT);
    m_mode = HPCC;
    m_starting = false;
}

/* hpcc_take_telemetry(): the newest sample, if one arrived since the last
 * ACK, through NewAck. */
void
TcpHpcc::TakeTelemetry(Ptr<TcpSocketState> tcb, uint64_t now)
{
    if (m_tlmGen == m_usedGen)
    {
        return;
    }
    m_usedGen = m_tlmGen;
    Sample s = m_tlm;
    if (m_mode != HPCC && (!m_starting || hpcc_flow_on_path(&m_core, s.hops, s.nhop)))
    {
        Resume(tcb);
    }
    hpcc_flow_set_n(&m_core, &m_hp->p, 0);
    uint64_t w0 = m_core.w, wc0 = m_core.wc;
    uint32_t stage0 = m_core.inc_stage;
    int step = hpcc_new_ack(&m_core,
                            &m_hp->p,
                            tcb->m_lastAckedSeq.GetValue(),
                            tcb->m_highTxMark.Get().GetValue(),
                            s.hops,
                            s.nhop);
    if (step == HPCC_STEP_W || step == HPCC_STEP_WC)
    {
        CcmStep(now, w0, wc0, stage0);
    }
    m_samples++;
}

/*
 * hpcc_ccm_step() (kernel/tcp_hpcc/ccm.c): the coordination rule on the
 * sample NewAck just ran, built and held as the module does
 * (hpcc_host_ccm_sample(), hpcc_host_ccm_hold()); a change is a new flow
 * label (onReroute, the module's sk_rethink_txhash()), which the flow's
 * next probes carry too.
 */
void
TcpHpcc::CcmStep(uint64_t now, uint64_t w0, uint64_t wc0, uint32_t stage0)
{
    const hpcc_ccm_cfg& c = m_hp->ccm;
    if (!c.tries || m_mode != HPCC || !onReroute || !m_rng)
    {
        return;
    }
    hpcc_ccm_sample smp;
    hpcc_host_ccm_sample(&m_core,
                         &m_hp->p,
                         w0,
                         m_hp->ccmShare,
                         now,
                         hpcc_host_rtt(m_srttNs, m_hp->p.t_ns),
                         &smp);
    if (smp.congested)
    {
        smp.rnd = m_rng->GetInteger(0, UINT32_MAX);
    }
    int act = hpcc_ccm_decide(&m_ccm, &c, &smp);
    static const bool debug = getenv("HPCC_SIM_CCM_DEBUG");
    if (debug)
    {
        std::cerr << "ccm flow " << m_flow << " t " << (now - CLOCK_BASE) << " u "
                  << (double)m_core.u / HPCC_U_ONE << " w0 " << (w0 >> HPCC_W_SHIFT) << " bind "
                  << m_core.bind_hop << "/" << m_core.nhop << " cong " << smp.congested
                  << " streak " << (int)m_ccm.streak << " tried " << (int)m_ccm.tried << " act "
                  << act << "\n";
    }
    if (act == HPCC_CCM_RATE)
    {
        return;
    }
    hpcc_host_ccm_hold(&m_core, w0, wc0, stage0);
    if (act == HPCC_CCM_WAIT)
    {
        m_ccmWaits++;
        return;
    }
    onReroute();
}

/* hpcc_apply_w(): snd_cwnd = W / mss, pacing rate W / T times the gain. */
void
TcpHpcc::ApplyW(Ptr<TcpSocketState> tcb)
{
    uint32_t mss = tcb->m_segmentSize;
    uint32_t cwnd = hpcc_host_cwnd(m_core.w, mss, (1U << 30) / std::max(mss, 1U));
    uint64_t rate = hpcc_host_pacing_rate(m_core.w, m_hp->pacingGainPct, m_hp->p.t_ns);

    tcb->m_cWnd = cwnd * mss;
    tcb->m_cWndInfl = tcb->m_cWnd;
    tcb->m_pacingRate = DataRate(std::min(rate * 8, m_hp->maxPacingBps));
}

/* hpcc_update_pacing_rate(): the kernel's pacing rule for the fallback law. */
void
TcpHpcc::FallbackPacing(Ptr<TcpSocketState> tcb)
{
    double srtt = m_srttNs * 1e-9;
    if (srtt <= 0)
    {
        tcb->m_pacingRate = DataRate(m_hp->maxPacingBps);
        return;
    }
    double ratio = tcb->m_cWnd < tcb->m_ssThresh / 2 ? tcb->m_pacingSsRatio : tcb->m_pacingCaRatio;
    double bytes = std::max(tcb->m_cWnd.Get(), tcb->m_bytesInFlight.Get());
    double bps = bytes * 8 * ratio / 100 / srtt;
    tcb->m_pacingRate = DataRate((uint64_t)std::min(bps, (double)m_hp->maxPacingBps));
}

/* hpcc_cong_control_rs(): every ACK. */
void
TcpHpcc::CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs)
{
    uint64_t now = Now();
    Mode law = FALLBACK;

    /* srtt as the kernel keeps it (7/8 old, 1/8 new; ns-3's socket keeps
     * its own out of reach of the congestion ops), from each ACK's sample */
    int64_t rtt = tcb->m_lastRtt.Get().GetNanoSeconds();
    if (rtt > 0)
    {
        m_srttNs = m_srttNs ? (7 * m_srttNs + (uint64_t)rtt) / 8 : (uint64_t)rtt;
    }

    if (tcb->m_congState <= TcpSocketState::CA_DISORDER)
    {
        TakeTelemetry(tcb, now);
        if (m_mode == HPCC)
        {
            uint64_t news = hpcc_host_last_news(m_activeTime, m_tlmGen != 0, m_tlmTime);
            if (hpcc_host_stale(now, news, m_hp->staleRtts, hpcc_host_rtt(m_srttNs, m_hp->p.t_ns)))
            {
                /* hpcc_to_fallback() */
                m_mode = FALLBACK;
                tcb->m_ssThresh = std::max(tcb->m_cWnd.Get(), 2 * tcb->m_segmentSize);
                m_fallbacks++;
                if (getenv("HPCC_SIM_DEBUG"))
                {
                    std::cerr << "fallback flow " << m_flow << " at " << (now - CLOCK_BASE)
                              << " news " << (int64_t)(news - CLOCK_BASE) << " srtt " << m_srttNs
                              << " samples " << m_samples << " gen " << m_tlmGen << "\n";
                }
            }
        }
        law = m_mode;
    }
    if (law == HPCC)
    {
        ApplyW(tcb);
    }
    else
    {
        FallbackPacing(tcb);
    }
    if (m_hp->fcr)
    {
        FcrApply(tcb, law, now);
    }
    /* hpcc_report() */
    bool inflight = InFlight();
    if (!inflight && !m_idleSince)
    {
        m_idleSince = now;
    }
    if (inflight && m_activePending)
    {
        m_activePending = false;
        if (onActive)
        {
            onActive();
        }
    }
}

/*
 * hpcc_fcr_lock() and hpcc_fcr_hold() (notify.c): a message whose sequence
 * number names no data in flight is refused; one taken into the holds
 * lowers the pacing rate at once to the lowest rate held (the window waits
 * for the next ACK, FcrApply()).  snd_una and snd_nxt are ns-3's last
 * acknowledged and highest sent sequence numbers.
 */
void
TcpHpcc::FcrTake(const hpcc_fcr_msg& m, FcrCounts* c)
{
    if (!m_tcb ||
        !hpcc_fcr_in_window(m.seq,
                            m_tcb->m_lastAckedSeq.GetValue(),
                            m_tcb->m_highTxMark.Get().GetValue()))
    {
        c->badSeq++;
        return;
    }
    uint64_t now = Now();
    int res = hpcc_fcr_hold_put(m_fcr, &m, now, m_hp->fcrHoldMaxNs);
    if (res == HPCC_FCR_PUT_OLD || res == HPCC_FCR_PUT_FULL)
    {
        c->ignored++;
        return;
    }
    m_fcrGen++;
    uint64_t low = hpcc_fcr_lowest(m_fcr, now);
    if (low && m_tcb->m_pacingRate.Get().GetBitRate() > low)
    {
        m_tcb->m_pacingRate = DataRate(low);
    }
    c->accepted++;
}

/*
 * hpcc_fcr_apply() (kernel/tcp_hpcc/fcr.c), after the law of this ACK: the
 * lowest rate R held caps the pacing rate at R and the window at R x T
 * (hpcc_host_fcr_window()); under the HPCC law W and Wc are capped too,
 * not below W_min, so that HPCC's law raises W from there once no hold is
 * in force.
 */
void
TcpHpcc::FcrApply(Ptr<TcpSocketState> tcb, Mode law, uint64_t now)
{
    if (m_fcrGen == m_fcrUsedGen && now >= m_fcrUntil)
    {
        m_fcrRate = 0;
        return;
    }
    uint64_t until = 0;
    for (const hpcc_fcr_hold& h : m_fcr)
    {
        if (h.rate && h.until > now)
        {
            until = std::max(until, h.until);
        }
    }
    uint64_t rate = hpcc_fcr_lowest(m_fcr, now);
    m_fcrUsedGen = m_fcrGen;
    m_fcrUntil = until;
    m_fcrRate = rate;
    if (!rate)
    {
        return;
    }
    uint32_t mss = tcb->m_segmentSize;
    uint64_t w = hpcc_host_fcr_window(rate, m_hp->p.t_ns, mss);
    if (law == HPCC)
    {
        uint64_t wq = std::max<uint64_t>(w << HPCC_W_SHIFT, m_hp->p.w_min);
        m_core.w = std::min(m_core.w, wq);
        m_core.wc = std::min(m_core.wc, wq);
    }
    uint64_t cwnd = std::max<uint64_t>(w / std::max(mss, 1U), HPCC_FCR_W_MIN_MSS);
    if (tcb->m_cWnd.Get() > cwnd * mss)
    {
        tcb->m_cWnd = cwnd * mss;
        tcb->m_cWndInfl = tcb->m_cWnd;
    }
    if (tcb->m_pacingRate.Get().GetBitRate() > rate)
    {
        tcb->m_pacingRate = DataRate(rate);
    }
}

/* --- DCTCP with PLB ------------------------------------------------------ */

NS_OBJECT_ENSURE_REGISTERED(TcpDctcpPlb);

TypeId
TcpDctcpPlb::GetTypeId()
{
    static TypeId tid = TypeId("hpccsim::TcpDctcpPlb")
                            .SetParent<TcpDctcp>()
                            .SetGroupName("Internet")
                            .AddConstructor<TcpDctcpPlb>();
    return tid;
}

/* A copy (a fork, for an accepted socket) is another connection: it
 * takes no callback of the original's flow. */
TcpDctcpPlb::TcpDctcpPlb(const TcpDctcpPlb& o)
    : TcpDctcp(o),
      m_pp(o.m_pp)
{
}

std::string
TcpDctcpPlb::GetName() const
{
    return "TcpDctcpPlb";
}

Ptr<TcpCongestionOps>
TcpDctcpPlb::Fork()
{
    return CopyObject<TcpDctcpPlb>(this);
}

void
TcpDctcpPlb::Configure(const PlbParams* pp)
{
    m_pp = pp;
}

/* dctcp_init() with tcp_plb_init(); each round's end (ns-3's DCTCP traces
 * it with the round's marked and acknowledged bytes) is
 * dctcp_update_alpha()'s call of tcp_plb_update_state() and
 * tcp_plb_check_rehash(). */
void
TcpDctcpPlb::Init(Ptr<TcpSocketState> tcb)
{
    TcpDctcp::Init(tcb);
    m_tcb = tcb;
    if (!m_rng)
    {
        m_rng = CreateObject<UniformRandomVariable>();
    }
    if (!m_hooked)
    {
        bool ok = TraceConnectWithoutContext("CongestionEstimate",
                                             MakeCallback(&TcpDctcpPlb::Round, this));
        NS_ABORT_MSG_IF(!ok, "TcpDctcp has no CongestionEstimate trace");
        m_hooked = true;
    }
}

void
TcpDctcpPlb::Round(uint32_t bytesMarked, uint32_t bytesAcked, double)
{
    if (!m_pp || !bytesAcked)
    {
        return;
    }
    /* ce_ratio, of 256 (TCP_PLB_SCALE) */
    uint32_t ratio = (uint32_t)(((uint64_t)bytesMarked << 8) / bytesAcked);
    if (ratio < m_pp->congThresh)
    {
        m_consecCongRounds = 0;
    }
    else if (m_consecCongRounds < m_pp->rehashRounds)
    {
        m_consecCongRounds++;
    }
    CheckRehash();
}

/* tcp_plb_check_rehash(): nothing in flight is packets_out 0, after the
 * ACK at a round's end (m_bytesInFlight is still the count before it) */
void
TcpDctcpPlb::CheckRehash()
{
    if (!m_pp || !onRehash || !m_tcb)
    {
        return;
    }
    bool forced = m_consecCongRounds >= m_pp->rehashRounds;
    bool idle = m_tcb->m_highTxMark.Get() <= m_tcb->m_lastAckedSeq;
    bool idleRehash = idle && m_pp->idleRehashRounds &&
                      m_consecCongRounds >= m_pp->idleRehashRounds;
    if (!forced && !idleRehash)
    {
        return;
    }
    uint64_t now = Simulator::Now().GetNanoSeconds();
    if (m_pauseUntil && now < m_pauseUntil)
    {
        return;
    }
    m_pauseUntil = 0;
    m_consecCongRounds = 0;
    onRehash();
}

/* dctcp_cwnd_event(): an RTO pauses rehashing for suspend_rto_sec plus a
 * random part of it (tcp_plb_update_state_upon_rto()); a restart with
 * nothing in flight may rehash. */
void
TcpDctcpPlb::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
    TcpDctcp::CwndEvent(tcb, event);
    if (!m_pp)
    {
        return;
    }
    if (event == TcpSocketState::CA_EVENT_LOSS)
    {
        uint64_t pause = m_pp->suspendRtoNs;
        pause += (uint64_t)(m_rng->GetValue(0, 1) * (double)pause);
        m_pauseUntil = Simulator::Now().GetNanoSeconds() + pause;
        if (!m_pauseUntil)
        {
            m_pauseUntil = 1;
        }
        m_consecCongRounds = 0;
    }
    else if (event == TcpSocketState::CA_EVENT_TX_START)
    {
        CheckRehash();
    }
}

} // namespace hpccsim
