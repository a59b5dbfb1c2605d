/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - hpccd's settings: defaults, "key = value" files and the
 * command line's keys (hpccd(8), CONFIGURATION FILE).  The parser works on
 * a buffer, so selftests/fuzz/fuzz_config.c can drive it.
 */
#ifndef _HPCCD_CONFIG_H
#define _HPCCD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/hpcc_wire.h>

/* probes a flow may have out at once: probe-pipeline's largest */
#define HPCCD_PIPE_MAX	8
/* threads flows are split over at most: shards' largest */
#define HPCCD_SHARDS_MAX	64

/* Probe encodings: the project's own records, an IOAM
 * pre-allocated trace (IPv6 only), an INT-MD v2.1 stack or an IFA 2.0 stack
 * (IPv4 and IPv6).
 */
enum hpccd_encoding {
	HPCCD_ENC_OWN,
	HPCCD_ENC_IOAM,
	HPCCD_ENC_INT_MD,
	HPCCD_ENC_IFA,
};

#define HPCCD_MAX_ENCODINGS	16
#define HPCCD_MAX_CAPACITY	256

/**
 * struct hpccd_prefix - an "encoding = NAME PREFIX/LEN" line
 * @addr: the prefix as an IPv6 address, network byte order (an IPv4
 *	prefix is stored IPv4-mapped, ::ffff:a.b.c.d/96+LEN)
 * @len: its length, 0..128
 * @enc: enum hpccd_encoding
 */
struct hpccd_prefix {
	uint8_t addr[16];
	uint8_t len;
	uint8_t enc;
};

/**
 * struct hpccd_capacity - a "capacity = SWITCH PORT RATE" line: B of the
 * hop (switch ID, egress port ID) for records that carry none
 * @switch_id: the hop's switch ID (IOAM node_id, INT switch ID)
 * @port_id: its egress port ID
 * @rate: B, bit/s, 1..1.6e12
 */
struct hpccd_capacity {
	uint32_t switch_id;
	uint32_t port_id;
	uint64_t rate;
};

/**
 * struct hpccd_int_ts - an "int-ts-unit = UNIT SWITCH" line: the unit of
 * the INT timestamps the hop with that switch ID stamps
 * @switch_id: the hop's INT switch ID
 * @unit: enum hpcc_int_ts_unit
 */
struct hpccd_int_ts {
	uint32_t switch_id;
	uint32_t unit;
};

#define HPCCD_MAX_KEYS	32

/**
 * struct hpccd_key - a "key = ID HEX PREFIX/LEN [accept]" line of the key
 *	file (auth-key-file): a MAC key shared with the hosts of a prefix
 * @id: the key's id, 1..2^32 - 1, carried in each MAC (HPCC_WIRE_EXT_MAC)
 * @key: the key, HPCC_WIRE_MAC_KEY_LEN bytes (64 hex digits)
 * @pfx: the peers it is for: responses to them are signed with it and
 *	responses from them must carry a MAC by a key of theirs
 * @accept_only: "accept": checks MACs but does not sign (the first step of
 *	a rotation, Documentation/admin-guide.rst)
 * @expires_ns: 0 for a key of the file; for a key a reload removed, when
 *	it stops being accepted (CLOCK_MONOTONIC, auth-overlap-s after the
 *	reload)
 */
struct hpccd_key {
	uint32_t id;
	uint8_t key[HPCC_WIRE_MAC_KEY_LEN];
	struct hpccd_prefix pfx;
	bool accept_only;
	uint64_t expires_ns;
};

/**
 * struct hpccd_nkey - a "notify-key = ID HEX PREFIX/LEN [accept]" line of
 *	the key file: a MAC key for FCR messages and CCM notifications
 *	(struct hpcc_wire_nmac), shared with the hops of a prefix.  hpccd
 *	sets them in its host's module (fcr-set) at its start, at each
 *	reload and when the module appears; ``hpccctl fcr set key-file``
 *	does the same without hpccd, ``hpccctl int set key-file`` on a hop
 * @id: the key's id, 1..2^32 - 1
 * @key: HPCC_WIRE_NMAC_KEY_LEN bytes (32 hex digits)
 * @pfx: the hops (at a sender) or the senders (at a hop)
 * @accept: accepted, never used to sign
 */
struct hpccd_nkey {
	uint32_t id;
	uint8_t key[HPCC_WIRE_NMAC_KEY_LEN];
	struct hpccd_prefix pfx;
	bool accept;
};

#define HPCCD_MAX_NKEYS	16

/* rp-filter values: the kernel's rp_filter numbering (0, off, not offered) */
#define HPCCD_RP_STRICT	1
#define HPCCD_RP_LOOSE	2

/**
 * struct hpccd_cfg - hpccd's settings
 * @file: the configuration file
 * @stats_file: statistics file ("" for stderr)
 * @budget: probe-budget, probes per second for all flows, 1..10,000,000
 * @max_hops: max-hops, hop records per probe, 1..HPCC_MAX_HOPS
 * @timeout_min_us: timeout-min-us, 100..10,000,000
 * @timeout_max_us: timeout-max-us, 100..10,000,000, >= @timeout_min_us
 * @tick_us: tick-us, the shortest time between two timer wakeups,
 *	100..100,000 (deadlines closer than this are handled together)
 * @probe_pipeline: probe-pipeline, probes a flow may have out at once,
 *	1..HPCCD_PIPE_MAX (hpccd_sched_pipeline())
 * @shards: shards, the threads flows are split over, 1..HPCCD_SHARDS_MAX
 *	(fanout.h); read at the start only
 * @response_rate: response-rate, responses per second to one source
 *	address, 1..10,000,000
 * @response_budget: response-budget, responses per second to all sources
 *	together, 1..10,000,000
 * @response_budget_bytes: response-budget-bytes, bytes per second of all
 *	responses together (IP headers included), 1,500..1,000,000,000
 * @response_amplification: response-amplification, how much larger than
 *	its probe a response may be: HPCCD_AMP_NONE (0: not at all),
 *	HPCCD_AMP_TAIL (1, the default: by HPCC_WIRE_RESP_EXT_MAX bytes at
 *	most, the receiver's fixed extensions), HPCCD_AMP_ANY (2: any)
 * @rp_filter: rp-filter, the reverse-path check of a probe's source, in
 *	the kernel's rp_filter numbering: HPCCD_RP_STRICT (1: a route back
 *	by the interface the probe came in on, as rp_filter 1 does) or
 *	HPCCD_RP_LOOSE (2: any unicast route back, as rp_filter 2); 0 (no
 *	check) is not offered: a response needs a unicast route back
 * @tcp_check: tcp-check, 0 or 1: only probes of flows this host has a TCP
 *	connection for count in N and get a receiver's state
 *	(receiver-based, only-U)
 * @n_flows_per_source: n-flows-per-source, flows one source (an IPv4
 *	address, an IPv6 /64) counts for in N at most, 1..1,048,576
 * @max_flows: max-flows, flows the sender role tracks, 1..16,777,216
 * @reconcile_s: reconcile-s, seconds between two comparisons of the flow
 *	table with the module's, 1..3600
 * @event_buffer_kb: event-buffer-kb, the receive buffer of the module's
 *	events, KiB, 64..65536 (an event takes about 0.7 KiB of it)
 * @report_n_flows: report-n-flows, 0 or 1: responses carry the receiver's
 *	N (HPCC_WIRE_EXT_N_FLOWS)
 * @n_flows_window_ms: n-flows-window-ms, how long after its last probe a
 *	flow still counts in N, 1..60,000
 * @n_flows_max: n-flows-max, flows the receiver's count tracks at most,
 *	1..1,048,576 (about 200 bytes each)
 * @enc: "encoding = ioam|int-md|ifa PREFIX/LEN" lines, @n_enc of them
 * @fcr: "fcr = PREFIX/LEN" lines, @n_fcr of them: destinations whose
 *	flows' probes announce FCR support (HPCC_WIRE_EXT_FCR)
 * @ccm: "ccm = PREFIX/LEN" lines, @n_ccm of them: destinations whose
 *	flows' probes carry the coordination tag (HPCC_WIRE_EXT_AR, the
 *	sender as the AR point; draft-lyu-rtgwg-coordinated-congestion-
 *	management section 6.1), so that the hops with CCM on send them
 *	notifications; at most HPCCD_MAX_ENCODINGS
 *	(at most HPCCD_MAX_ENCODINGS; the file's, replaced on each read):
 *	destinations whose probes carry an IOAM trace (IPv6 prefixes only),
 *	an INT-MD stack or an IFA stack (IPv4 or IPv6); the longest prefix
 *	wins; every other destination gets the project's own records
 * @ifa_base_ns: ifa-base-ns, the residence time of an empty queue on the
 *	IFA hops of paths to this host (their pipeline latency), ns,
 *	0..1,000,000,000 (default 0): subtracted before a residence time is
 *	read as a queue (Documentation/algorithm.rst, "Partial telemetry")
 * @int_qlen_unit: int-qlen-unit, bytes per unit of the INT queue
 *	occupancy the path's hops report (the spec leaves the unit to the
 *	device: bytes, cells or packets), 1..65536 (default 1: bytes, as
 *	hpcc_int reports it)
 * @int_tx_util_full: int-tx-util-full, the INT egress Tx utilization
 *	value that means 100 % on the path's hops (the spec leaves the
 *	format to the device), 1..4294967294; 0 (the default): the field is
 *	ignored and U comes from the queue alone
 * @int_ts_unit: "int-ts-unit = UNIT" (no switch): the unit of the INT
 *	timestamps of hops no @int_ts line names, enum hpcc_int_ts_unit: ns
 *	(the default, as hpcc_int stamps them), us or ntp (2^-32 s)
 * @int_ts: "int-ts-unit = UNIT SWITCH" lines, @n_int_ts of them (at most
 *	HPCCD_MAX_CAPACITY; the file's, replaced on each read)
 * @ioam_namespace: ioam-namespace, the IOAM-Namespace-ID of those probes,
 *	0..65535 (Linux: `ip ioam namespace add ID` on the transit nodes)
 * @ioam_ts: ioam-ts, the namespace's timestamp format, enum
 *	hpcc_ioam_ts_fmt: posix (Linux), ptp or ntp
 * @default_rate: default-rate, B in bit/s for a record with none that the
 *	capacity table does not name, 0 (none: such a record is refused) to
 *	1.6e12
 * @cap: "capacity = SWITCH PORT RATE" lines, @n_cap of them (at most
 *	HPCCD_MAX_CAPACITY; the file's, replaced on each read)
 * @rx_based: "rx-based = PREFIX/LEN" lines, @n_rx_based of them:
 *	destinations whose flows' probes ask for receiver-based HPCC
 *	(HPCC_WIRE_EXT_MODE; draft-pan-tsvwg-hpccplus-02 section 6.2)
 * @private_to: "private = PREFIX/LEN" lines, @n_private of them: senders
 *	to which responses carry no hop records (draft-miao-ccwg-hpcc section
 *	9.1): only W when the flow is receiver-based, only U otherwise
 *	(HPCC_WIRE_MODE_U, measured on the withheld records)
 * @rx_answer: rx-answer, 0 or 1 (default 1): run receiver-based HPCC for
 *	the flows that ask; 0 refuses them (HPCC_WIRE_MODE_REFUSED)
 * @rx_max_flows: rx-max-flows, receiver-based and private only-U flows
 *	tracked at most, 1..1,048,576 (default 4096; about 500 bytes each);
 *	a flow beyond it is refused (only U: sent no U)
 * @key_file: auth-key-file, the file of "key" lines ("" for none: no
 *	response is signed or checked); it must be a regular file owned by
 *	hpccd's user and not readable by group or others
 * @auth_overlap_s: auth-overlap-s, how long a key that a reload removed
 *	is still accepted, s, 0..86400 (default 60)
 * @auth_permissive: "auth-permissive = PREFIX/LEN" lines, @n_auth_permissive
 *	of them (at most HPCCD_MAX_ENCODINGS): senders of responses whose
 *	MACs are checked and counted but never refuse them (a rollout's
 *	first phase, Documentation/admin-guide.rst)
 * @keys: the key file's keys, @n_keys of them (at most HPCCD_MAX_KEYS)
 * @nkeys: the key file's notify-key lines, @n_nkeys of them (at most
 *	HPCCD_MAX_NKEYS)
 * @syslog: log to syslog
 * @verbose: debug messages
 */
struct hpccd_cfg {
	char file[256];
	char stats_file[256];
	unsigned int budget;
	unsigned int max_hops;
	unsigned int timeout_min_us;
	unsigned int timeout_max_us;
	unsigned int tick_us;
	unsigned int probe_pipeline;
	unsigned int shards;
	unsigned int response_rate;
	unsigned int response_budget;
	unsigned int response_budget_bytes;
	unsigned int response_amplification;
	unsigned int rp_filter;
	unsigned int tcp_check;
	unsigned int n_flows_per_source;
	unsigned int max_flows;
	unsigned int reconcile_s;
	unsigned int event_buffer_kb;
	unsigned int report_n_flows;
	unsigned int n_flows_window_ms;
	unsigned int n_flows_max;
	struct hpccd_prefix enc[HPCCD_MAX_ENCODINGS];
	unsigned int n_fcr;
	struct hpccd_prefix fcr[HPCCD_MAX_ENCODINGS];
	unsigned int n_ccm;
	struct hpccd_prefix ccm[HPCCD_MAX_ENCODINGS];
	unsigned int n_enc;
	unsigned int int_qlen_unit;
	unsigned int int_tx_util_full;
	unsigned int int_ts_unit;
	struct hpccd_int_ts int_ts[HPCCD_MAX_CAPACITY];
	unsigned int n_int_ts;
	unsigned int ifa_base_ns;
	unsigned int ioam_namespace;
	unsigned int ioam_ts;
	uint64_t default_rate;
	struct hpccd_capacity cap[HPCCD_MAX_CAPACITY];
	unsigned int n_cap;
	unsigned int n_rx_based;
	struct hpccd_prefix rx_based[HPCCD_MAX_ENCODINGS];
	unsigned int n_private;
	struct hpccd_prefix private_to[HPCCD_MAX_ENCODINGS];
	unsigned int rx_answer;
	unsigned int rx_max_flows;
	char key_file[256];
	unsigned int auth_overlap_s;
	unsigned int n_auth_permissive;
	struct hpccd_prefix auth_permissive[HPCCD_MAX_ENCODINGS];
	struct hpccd_key keys[HPCCD_MAX_KEYS];
	unsigned int n_keys;
	struct hpccd_nkey nkeys[HPCCD_MAX_NKEYS];
	unsigned int n_nkeys;
	bool syslog;
	int verbose;
};

/**
 * hpccd_cfg_fcr() - whether probes to a destination announce FCR support
 * @c: the settings
 * @family: AF_INET or AF_INET6
 * @daddr: the destination, 4 or 16 bytes, network byte order
 *
 * Return: true when an "fcr" prefix holds @daddr (draft-even-tsvwg-
 * datacenter-fast-congestion section 6: the sender marks support).
 */
bool hpccd_cfg_fcr(const struct hpccd_cfg *c, int family, const void *daddr);

/**
 * hpccd_cfg_ccm() - whether probes to a destination carry the coordination
 *	tag
 * @c: the settings
 * @family: AF_INET or AF_INET6
 * @daddr: the destination, 4 or 16 bytes, network byte order
 *
 * Return: true when a "ccm" prefix holds @daddr (draft-lyu-rtgwg-
 * coordinated-congestion-management section 6.1: the sender tags its
 * flows' packets; here their probes, with the AR indicator).
 */
bool hpccd_cfg_ccm(const struct hpccd_cfg *c, int family, const void *daddr);

/**
 * hpccd_cfg_rx_based() - whether a flow to @daddr asks for receiver-based
 *	HPCC
 * @c: the settings
 * @family: AF_INET or AF_INET6
 * @daddr: the destination, network byte order
 *
 * Return: true when an "rx-based" prefix holds @daddr.
 */
bool hpccd_cfg_rx_based(const struct hpccd_cfg *c, int family,
			const void *daddr);

/* response-amplification values */
#define HPCCD_AMP_NONE	0
#define HPCCD_AMP_TAIL	1
#define HPCCD_AMP_ANY	2

/**
 * hpccd_cfg_response_fits() - may a response of @resp_len bytes answer a
 * probe of @probe_len bytes (both IP lengths)?
 * @c: the settings (response-amplification)
 * @resp_len: the response's length, bytes
 * @probe_len: the probe's, bytes
 * @own: the probe's flow is one of this host's TCP connections (tcp-check)
 *
 * Return: true when response-amplification lets it: 0, @resp_len <=
 * @probe_len; 1, the same for a probe that is not @own, and @resp_len <=
 * @probe_len + HPCC_WIRE_RESP_EXT_MAX (48: N, mode, W or U, MAC, what a
 * receiver adds to a probe's records) for one that is, so a probe of an
 * older sender whose records are all filled is still answered for a real
 * connection, no spoofed probe draws more bytes than it cost, and no
 * record is added per hop; 2, always.
 */
bool hpccd_cfg_response_fits(const struct hpccd_cfg *c, size_t resp_len,
			     size_t probe_len, bool own);

/**
 * hpccd_cfg_private() - whether responses to @saddr withhold the records
 * @c: the settings
 * @family: AF_INET or AF_INET6
 * @saddr: the probe's source, the flow's sender
 *
 * Return: true when a "private" prefix holds @saddr.
 */
bool hpccd_cfg_private(const struct hpccd_cfg *c, int family,
		       const void *saddr);

/**
 * hpccd_cfg_auth_permissive() - whether a failed MAC check of a response
 *	from @saddr is counted only
 * @c: the settings
 * @family: AF_INET or AF_INET6
 * @saddr: the response's source
 *
 * Return: true when an "auth-permissive" prefix holds @saddr.
 */
bool hpccd_cfg_auth_permissive(const struct hpccd_cfg *c, int family,
			       const void *saddr);

/**
 * hpccd_prefix_holds() - whether @p holds an address
 * @p: the prefix
 * @family: AF_INET or AF_INET6
 * @addr: 4 or 16 bytes, network byte order
 *
 * Return: true if it does (an IPv4 address as its IPv4-mapped form).
 */
bool hpccd_prefix_holds(const struct hpccd_prefix *p, int family,
			const void *addr);

/**
 * hpccd_cfg_read_keys() - read @c->key_file: a regular file owned by the
 *	effective user, not accessible to group or others, below 64 KiB,
 *	not a symbolic link; its lines as hpccd_cfg_parse_keys() reads them
 * @c: settings whose key_file names the file; @keys and @nkeys replaced
 *
 * Return: 0, or -1 (reported; no key kept).
 */
int hpccd_cfg_read_keys(struct hpccd_cfg *c);

/**
 * hpccd_cfg_parse_keys() - the key file's text: "key = ID HEX PREFIX/LEN
 *	[accept]" lines, # comments, blank lines
 * @c: settings whose @keys are replaced
 * @name: for messages
 * @buf: the text, @len bytes
 *
 * Return: 0, or -1 when a line was bad (then no key is kept: a key file
 * half read would leave some peers unsigned).
 */
int hpccd_cfg_parse_keys(struct hpccd_cfg *c, const char *name,
			 const char *buf, size_t len);

/**
 * hpccd_cfg_encoding() - the encoding of probes to a destination
 * @c: settings
 * @family: AF_INET or AF_INET6
 * @daddr: the destination, network byte order (4 or 16 bytes)
 *
 * Return: enum hpccd_encoding of the longest matching "encoding" prefix
 * (an IPv4 destination matches IPv4 prefixes, and ::/0), HPCCD_ENC_OWN
 * when none matches.
 */
int hpccd_cfg_encoding(const struct hpccd_cfg *c, int family,
		       const void *daddr);

/**
 * hpccd_cfg_rate() - B for a hop record that carries none
 * @c: settings
 * @switch_id: the hop's switch ID
 * @port_id: its egress port ID
 *
 * Return: the capacity table's rate for the hop, else default-rate (0:
 * none), bit/s.
 */
uint64_t hpccd_cfg_rate(const struct hpccd_cfg *c, uint32_t switch_id,
			uint32_t port_id);

/**
 * hpccd_cfg_int_ts_unit() - the unit of an INT hop's timestamps
 * @c: settings
 * @has_switch: the hop reported its switch ID
 * @switch_id: that ID
 *
 * Return: enum hpcc_int_ts_unit of the int-ts-unit line that names the
 * switch, else of the line that names none (default ns).
 */
unsigned int hpccd_cfg_int_ts_unit(const struct hpccd_cfg *c, bool has_switch,
				   uint32_t switch_id);

/** hpccd_cfg_defaults() - the defaults (those of daemon/hpccd/hpccd.conf) */
void hpccd_cfg_defaults(struct hpccd_cfg *c);

/**
 * hpccd_cfg_log - where the parser reports a bad setting (one line, no
 * newline); stderr when NULL
 */
extern void (*hpccd_cfg_log)(const char *msg);

/**
 * hpccd_cfg_set() - one setting
 * @c: settings to change
 * @k: key
 * @v: value
 * Return: 0, or -1 for an unknown key or a bad value (reported).
 */
int hpccd_cfg_set(struct hpccd_cfg *c, const char *k, const char *v);

/**
 * hpccd_cfg_parse() - "key = value" lines, # comments, blank lines
 * @c: settings to change
 * @name: for messages ("FILE:LINE: ...")
 * @buf: the text, @len bytes, not NUL-terminated necessarily; lines of
 *	more than 511 bytes are refused
 * Return: 0, or -1 when any line was bad or timeout-min-us exceeds
 * timeout-max-us (the good lines are applied).
 */
int hpccd_cfg_parse(struct hpccd_cfg *c, const char *name, const char *buf,
		    size_t len);

/**
 * hpccd_cfg_read() - hpccd_cfg_parse() of the file @c->file (at most 1 MiB),
 *	then hpccd_cfg_parse_keys() of @c->key_file if it names one
 * @must_exist: a missing file is an error (else it is the defaults)
 *
 * The key file is refused (no key kept, -1) when it is not a regular file
 * owned by the effective user, or when group or others may read or write
 * it.
 *
 * Return: 0 or -1.
 */
int hpccd_cfg_read(struct hpccd_cfg *c, bool must_exist);

/**
 * hpccd_cfg_load() - the settings a start gives: the defaults, then the
 *	file (and its key file), then the command line's settings
 * @c: replaced whole
 * @file: the configuration file
 * @must_exist: a missing @file is an error (-c given); else it is the
 *	defaults
 * @args: the command line's settings, @n_args key and value pairs
 *	(args[2i] the key, args[2i + 1] the value), applied after the file
 *	so that they win over it
 * @n_args: how many pairs
 *
 * hpccd calls it at the start and for each SIGHUP, so that a reload gives
 * what a restart would: a setting the file no longer names returns to its
 * default or to the command line's value, and a key file the file no
 * longer names leaves no key.
 *
 * Return: 0, or -1 (reported) when the file, the key file or a command
 * line setting is bad; @c is then not to be used.
 */
int hpccd_cfg_load(struct hpccd_cfg *c, const char *file, bool must_exist,
		   const char *const *args, unsigned int n_args);

#endif /* _HPCCD_CONFIG_H */
