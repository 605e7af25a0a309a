/*
 * tap: the packet tap's socket, filter and ring (tap.h). It knows packets,
 * not connections: native_tap.c maps segments to calls and replies.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"

#define TAP_BLOCK (1u << 16)
#define TAP_BLOCKS 32u		/* 2 MiB a tap: 8,192 frames */
#define TAP_FRAME 256u		/* the frame header, sockaddr_ll and TAP_SNAP bytes */

struct tap {
	int fd;
	uint8_t *ring;
	unsigned nframes, next;
};

static uint32_t get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return get16(p) << 16 | get16(p + 2);
}

int tap_parse(const uint8_t *p, size_t caplen, struct tap_pkt *k)
{
	size_t ihl, doff, tot;

	if (caplen < 20 || p[0] >> 4 != 4 || p[9] != IPPROTO_TCP)
		return -1;
	ihl = (p[0] & 0xfu) * 4;
	if (ihl < 20 || (get16(p + 6) & 0x3fff) || caplen < ihl + 20)
		return -1;	/* a fragment (MF or an offset) */
	tot = get16(p + 2);
	doff = (p[ihl + 12] >> 4) * 4u;
	if (doff < 20 || tot <= ihl + doff)
		return -1;	/* no bytes (an ACK, a SYN) */
	memcpy(&k->saddr, p + 12, 4);
	memcpy(&k->daddr, p + 16, 4);
	k->sport = (uint16_t)get16(p + ihl);
	k->dport = (uint16_t)get16(p + ihl + 2);
	k->seq = get32(p + ihl + 4);
	k->len = (uint32_t)(tot - ihl - doff);
	k->head = k->len >= 8 && caplen >= ihl + doff + 8;
	k->mark = k->head ? get32(p + ihl + doff) : 0;
	k->xid = k->head ? get32(p + ihl + doff + 4) : 0;
	return 0;
}

int tap_stream_init(struct tap_stream *s, unsigned cap)
{
	unsigned n = 16;

	while (n < cap)
		n <<= 1;
	if (s->cap < n) {
		free(s->seg);
		s->seg = malloc(n * sizeof(*s->seg));
		s->cap = s->seg ? n : 0;
		if (!s->seg)
			return -ENOMEM;
	}
	s->head = s->n = 0;
	s->known = false;
	return 0;
}

void tap_stream_free(struct tap_stream *s)
{
	free(s->seg);
	memset(s, 0, sizeof(*s));
}

void tap_stream_add(struct tap_stream *s, const struct tap_pkt *k)
{
	struct tap_seg *g;

	if (!s->cap)
		return;
	if (s->n == s->cap) {
		s->head = (s->head + 1) & (s->cap - 1);
		s->n--;
	}
	g = &s->seg[(s->head + s->n++) & (s->cap - 1)];
	g->seq = k->seq;
	g->len = k->len;
	g->ns = k->ns;
}

void tap_stream_anchor(struct tap_stream *s, uint32_t seq, uint64_t off)
{
	s->seq0 = seq - (uint32_t)off;
	s->known = true;
}

bool tap_carries(const struct tap_stream *s, const struct tap_pkt *k, uint64_t off)
{
	return s->known && (uint32_t)(s->seq0 + (uint32_t)off - k->seq) < k->len;
}

int tap_stream_time(const struct tap_stream *s, uint64_t off, uint64_t *ns)
{
	uint32_t b = s->seq0 + (uint32_t)off;

	if (!s->known)
		return -EAGAIN;
	/* Newest first: a reply's last segment is among the latest. */
	for (unsigned i = s->n; i-- > 0;) {
		const struct tap_seg *g = &s->seg[(s->head + i) & (s->cap - 1)];

		if ((uint32_t)(b - g->seq) < g->len) {
			*ns = g->ns;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * The filter, on a SOCK_DGRAM tap (offsets from the IP header): drop what
 * is not IPv4 (the tap takes every protocol: tap_open) and the outgoing
 * copy on lo; keep IPv4 TCP, not a fragment, carrying bytes, from
 * or to one of the ports; TAP_SNAP bytes of it. The ports are tried one
 * after the other, each followed by its own return: a BPF jump reaches 255
 * instructions at most.
 */
static int set_filter(int fd, const uint16_t *ports, unsigned nports)
{
	struct sock_filter *f = malloc((32 + 4 * (size_t)nports) * sizeof(*f));
	unsigned n = 0, to_drop[8], nd = 0, drop;
	struct sock_fprog prog;
	int rc;

	if (!f)
		return -ENOMEM;
#define OP(c, k) (f[n++] = (struct sock_filter)BPF_STMT((c), (k)))
#define JMP(c, k, t, e) (f[n++] = (struct sock_filter)BPF_JUMP((c), (k), (t), (e)))
	OP(BPF_LD | BPF_H | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_PROTOCOL));
	JMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 0);
	to_drop[nd++] = (n - 1) << 1;		/* jf */
	OP(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_PKTTYPE));
	JMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 2);
	OP(BPF_LD | BPF_W | BPF_ABS, (uint32_t)(SKF_AD_OFF + SKF_AD_IFINDEX));
	JMP(BPF_JMP | BPF_JEQ | BPF_K, if_nametoindex("lo"), 0, 0);
	to_drop[nd++] = (n - 1) << 1 | 1;	/* jt */
	OP(BPF_LDX | BPF_B | BPF_MSH, 0);	/* X: the IP header's length */
	OP(BPF_LD | BPF_B | BPF_ABS, 0);
	OP(BPF_ALU | BPF_AND | BPF_K, 0xf0);
	JMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40, 0, 0);
	to_drop[nd++] = (n - 1) << 1;		/* jf */
	OP(BPF_LD | BPF_B | BPF_ABS, 9);
	JMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 0);
	to_drop[nd++] = (n - 1) << 1;
	OP(BPF_LD | BPF_H | BPF_ABS, 6);
	JMP(BPF_JMP | BPF_JSET | BPF_K, 0x3fff, 0, 0);
	to_drop[nd++] = (n - 1) << 1 | 1;
	OP(BPF_LD | BPF_H | BPF_ABS, 2);	/* the IP total length ... */
	OP(BPF_ST, 0);
	OP(BPF_LD | BPF_B | BPF_IND, 12);	/* ... less both headers */
	OP(BPF_ALU | BPF_RSH | BPF_K, 4);
	OP(BPF_ALU | BPF_LSH | BPF_K, 2);
	OP(BPF_ALU | BPF_ADD | BPF_X, 0);
	OP(BPF_MISC | BPF_TAX, 0);
	OP(BPF_LD | BPF_MEM, 0);
	OP(BPF_ALU | BPF_SUB | BPF_X, 0);
	JMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1);	/* no bytes: the drop next */
	drop = n;
	OP(BPF_RET | BPF_K, 0);
	OP(BPF_LDX | BPF_B | BPF_MSH, 0);
	for (unsigned dir = 0; dir < 2; dir++) {
		OP(BPF_LD | BPF_H | BPF_IND, dir * 2);	/* source, then destination port */
		for (unsigned i = 0; i < nports; i++) {
			JMP(BPF_JMP | BPF_JEQ | BPF_K, ports[i], 0, 1);
			OP(BPF_RET | BPF_K, TAP_SNAP);
		}
	}
	OP(BPF_RET | BPF_K, 0);
#undef OP
#undef JMP
	for (unsigned i = 0; i < nd; i++) {
		unsigned at = to_drop[i] >> 1;

		if (to_drop[i] & 1)
			f[at].jt = (uint8_t)(drop - at - 1);
		else
			f[at].jf = (uint8_t)(drop - at - 1);
	}
	prog.len = (unsigned short)n;
	prog.filter = f;
	rc = setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ? -errno : 0;
	free(f);
	return rc;
}

int tap_filter_ports(struct tap *t, const uint16_t *ports, unsigned nports)
{
	if (nports > TAP_PORTS_MAX)
		return -EINVAL;
	return set_filter(t->fd, ports, nports);
}

int tap_open(struct tap **out, const uint16_t *ports, unsigned nports, bool lo_only)
{
	struct tpacket_req req = {
		.tp_block_size = TAP_BLOCK, .tp_block_nr = TAP_BLOCKS,
		.tp_frame_size = TAP_FRAME, .tp_frame_nr = TAP_BLOCK / TAP_FRAME * TAP_BLOCKS,
	};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int version = TPACKET_V2, one = 1, rc;
	struct tap *t;

	if (nports == 0 || nports > TAP_PORTS_MAX)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->ring = MAP_FAILED;
	/*
	 * Protocol 0: nothing arrives before the filter and the ring are in place.
	 * Then bound for every protocol (ETH_P_ALL), as a capture is: such taps
	 * see a segment as it arrives, before IP and TCP take it in. A tap bound
	 * for IPv4 alone is handed the segment after them, when the receiver's
	 * TCP has queued it and woken its reader: a call's time was then late by
	 * 0.2-60 us against dumpcap's (sanitizer build, loaded host), its wire
	 * time short by as much; bound for all, within 3 us.
	 */
	t->fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (t->fd < 0) {
		rc = -errno;
		goto fail;
	}
	if ((rc = set_filter(t->fd, ports, nports)) < 0)
		goto fail;
	if (setsockopt(t->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) < 0 ||
	    setsockopt(t->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0) {
		rc = -errno;
		goto fail;
	}
	/* On lo alone the copy that leaves is not even made (Linux 4.20; the
	 * filter drops it where this option is missing). */
	if (lo_only) {
		sll.sll_ifindex = (int)if_nametoindex("lo");
		setsockopt(t->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	}
	t->ring = mmap(NULL, (size_t)TAP_BLOCK * TAP_BLOCKS, PROT_READ | PROT_WRITE, MAP_SHARED,
		       t->fd, 0);
	if (t->ring == MAP_FAILED ||
	    bind(t->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		rc = -errno;
		goto fail;
	}
	t->nframes = req.tp_frame_nr;
	*out = t;
	return 0;
fail:
	tap_close(t);
	return rc;
}

int tap_probe(void)
{
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

void tap_close(struct tap *t)
{
	if (!t)
		return;
	if (t->ring != MAP_FAILED)
		munmap(t->ring, (size_t)TAP_BLOCK * TAP_BLOCKS);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

unsigned tap_drain(struct tap *t, void (*fn)(void *arg, const struct tap_pkt *k), void *arg)
{
	unsigned n = 0;

	for (;;) {
		struct tpacket2_hdr *h = (void *)(t->ring + (size_t)t->next * TAP_FRAME);
		struct tap_pkt k;

		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
			return n;
		if (tap_parse((uint8_t *)h + h->tp_net, h->tp_snaplen, &k) == 0) {
			k.ns = (uint64_t)h->tp_sec * 1000000000u + h->tp_nsec;
			fn(arg, &k);
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		t->next = t->next + 1 == t->nframes ? 0 : t->next + 1;
		n++;
	}
}

uint64_t tap_drops(struct tap *t)
{
	struct tpacket_stats st;
	socklen_t len = sizeof(st);

	if (!t || getsockopt(t->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) < 0)
		return 0;
	return st.tp_drops;
}
