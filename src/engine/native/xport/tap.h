/*
 * tap: a packet tap for wire time (--wire-time=tap). An AF_PACKET socket
 * with a TPACKET_V2 ring that the kernel fills as packets pass this host's
 * interfaces, each frame with its own receive time: the times a capture
 * (tcpdump, tshark) gives, one per segment, where socket timestamps give one
 * per receive (stamp.h). A classic BPF filter keeps only IPv4 TCP segments
 * that carry bytes, to or from the given ports (servers' or local), and on
 * loopback only the copy that arrives (each segment passes lo twice; libpcap
 * skips the other copy too).
 * Frames are read from shared memory without a system call (tap_drain).
 * Opening it needs CAP_NET_RAW.
 */
#ifndef NFSLOAD_TAP_H
#define NFSLOAD_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One TCP segment, as the tap saw it. */
struct tap_pkt {
	uint32_t saddr, daddr;	/* IPv4, network order */
	uint16_t sport, dport;	/* host order */
	uint32_t seq;		/* the sequence number of its first byte */
	uint32_t len;		/* bytes it carries (from the IP header: a frame may hold fewer) */
	uint64_t ns;		/* when the tap saw it, CLOCK_REALTIME */
	bool head;		/* its first 8 bytes were captured: mark and xid below */
	uint32_t mark, xid;	/* an RPC record mark and XID, if it starts a record */
};

/*
 * Reads an IPv4 packet (p at its IP header; caplen bytes captured): 0 and
 * *k filled (ns left alone) for a TCP segment carrying bytes, -1 otherwise
 * (not TCP over IPv4, a fragment, no bytes, too little captured).
 */
int tap_parse(const uint8_t *p, size_t caplen, struct tap_pkt *k);

/*
 * One direction of a TCP stream as the tap saw it: the latest segments and
 * which sequence number stream offset 0 has, once a segment known to start
 * at some offset told it. Offsets are the stream's bytes since it opened;
 * sequence numbers are their low 32 bits plus the initial one, so wraps fall
 * out of unsigned arithmetic.
 */
struct tap_seg {
	uint32_t seq, len;
	uint64_t ns;
};
struct tap_stream {
	struct tap_seg *seg;	/* a ring, oldest at head; cap a power of 2 */
	unsigned head, n, cap;
	uint32_t seq0;
	bool known;
};
/* Room for cap segments (kept if there is already as much): 0 or -ENOMEM.
 * The segments and the anchor are forgotten. */
int tap_stream_init(struct tap_stream *s, unsigned cap);
void tap_stream_free(struct tap_stream *s);
/* Keeps k (the oldest is dropped when full). */
void tap_stream_add(struct tap_stream *s, const struct tap_pkt *k);
/* A segment with sequence number seq starts at stream offset off. */
void tap_stream_anchor(struct tap_stream *s, uint32_t seq, uint64_t off);
/* Whether k carried the byte at stream offset off (false while no anchor). */
bool tap_carries(const struct tap_stream *s, const struct tap_pkt *k, uint64_t off);
/* When the segment that carried the byte at offset off was seen: 0, or
 * -EAGAIN (no anchor yet), -ENOENT (no such segment kept). */
int tap_stream_time(const struct tap_stream *s, uint64_t off, uint64_t *ns);

/* Bytes of each segment captured: IP and TCP headers with options, 8 bytes of data. */
#define TAP_SNAP 128

struct tap;

/* A tap for TCP to or from ports[0..nports) (at most TAP_PORTS_MAX), on
 * every interface or on lo only: 0, or -errno (-EPERM without CAP_NET_RAW). */
#define TAP_PORTS_MAX 256
int tap_open(struct tap **out, const uint16_t *ports, unsigned nports, bool lo_only);
/* From now on, TCP to or from these ports instead (none: nothing; segments
 * already in the ring stay): 0, or -errno. */
int tap_filter_ports(struct tap *t, const uint16_t *ports, unsigned nports);
/* Whether this process may open one: 0, or -errno. */
int tap_probe(void);
void tap_close(struct tap *t);
/* Hands each frame the kernel has filled since the last call to fn, in the
 * order they came; frames tap_parse refuses are skipped. Frames handed. */
unsigned tap_drain(struct tap *t, void (*fn)(void *arg, const struct tap_pkt *k), void *arg);
/* Segments the kernel dropped for want of room in the ring, since the last call. */
uint64_t tap_drops(struct tap *t);

#endif
