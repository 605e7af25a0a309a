/*
 * trace_pcap: the one module that uses libpcap (and zlib, for a gzip'd
 * capture). Opens a pcap or pcapng file, peels the link layer (Ethernet,
 * Linux cooked v1 and v2, raw IP, BSD loopback), IPv4 or IPv6, and hands each TCP
 * segment to the reassembly. IP fragments and IPv6 extension headers other
 * than none are not followed (NFS over TCP does not make them on loopback
 * or a LAN); such packets are skipped.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trace_int.h"

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * A gzip'd capture is inflated as it is decoded (it is read once, in order), through a
 * stdio stream that libpcap reads like a file: memory stays that of a plain capture,
 * whatever the capture's size (read whole into memory, a 262 MB capture cost 262 MiB
 * of RSS, and the page faults and copies a third of the decoding's CPU).
 */
#define IOBUF (256u << 10)	/* stdio buffer of a plain capture */

struct gz {
	gzFile z;
	bool broken;	/* zlib said the data is not gzip (not a short file) */
};

static ssize_t gz_read(void *cookie, char *buf, size_t size)
{
	struct gz *g = cookie;
	int r = gzread(g->z, buf, size > 1u << 30 ? 1u << 30 : (unsigned)size);

	if (r < 0) {
		g->broken = true;
		errno = EIO;
		return -1;
	}
	return r;
}

static int gz_close(void *cookie)
{
	struct gz *g = cookie;
	int r = gzclose(g->z);

	free(g);
	return r == Z_OK ? 0 : EOF;
}

static FILE *gz_open(const char *file, struct gz **out)
{
	cookie_io_functions_t io = { .read = gz_read, .close = gz_close };
	struct gz *g = calloc(1, sizeof(*g));
	FILE *f = NULL;

	if (g && (g->z = gzopen(file, "rb"))) {
		gzbuffer(g->z, 1 << 17);
		if ((f = fopencookie(g, "rb", io))) {
			*out = g;
			return f;
		}
		gzclose(g->z);
	}
	free(g);
	return NULL;
}

/* The IP packet at p (caplen bytes captured of len): its TCP segment, if any. */
static int ip_packet(struct trace_ctx *c, const uint8_t *p, uint32_t caplen, uint32_t len)
{
	const uint8_t *src, *dst, *tcp;
	unsigned alen, hl, thl;
	uint32_t total;

	if (caplen < 1)
		return 0;
	if (p[0] >> 4 == 4) {
		if (caplen < 20 || p[9] != 6)
			return 0;
		hl = (p[0] & 15) * 4u;
		total = (uint32_t)p[2] << 8 | p[3];
		if ((p[6] & 0x3f) || p[7])	/* a fragment (MF or an offset) */
			return 0;
		src = p + 12, dst = p + 16, alen = 4;
	} else if (p[0] >> 4 == 6) {
		if (caplen < 40 || p[6] != 6)
			return 0;
		hl = 40;
		total = 40 + ((uint32_t)p[4] << 8 | p[5]);
		src = p + 8, dst = p + 24, alen = 16;
	} else {
		return 0;
	}
	if (hl < 20 || caplen < hl + 20 || total < hl + 20)
		return 0;
	if (len > total)	/* Ethernet padding past the IP packet */
		len = total;
	if (caplen > total)
		caplen = total;
	tcp = p + hl;
	thl = (tcp[12] >> 4) * 4u;
	if (thl < 20 || caplen < hl + thl)
		return 0;
	return trace_tcp_segment(c, src, dst, alen, (uint16_t)(tcp[0] << 8 | tcp[1]),
				 (uint16_t)(tcp[2] << 8 | tcp[3]), xdrx_be32(tcp + 4), tcp[13],
				 tcp + thl, caplen - hl - thl, len - hl - thl);
}

static int packet(struct trace_ctx *c, int dlt, const struct pcap_pkthdr *h, const uint8_t *p)
{
	uint32_t cap = h->caplen, len = h->len, skip;
	uint64_t ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
	unsigned type;

	if (!c->have_t0) {
		c->t0 = ns;
		c->have_t0 = true;
	}
	c->now = ns >= c->t0 ? ns - c->t0 : 0;
	if (c->now > c->t->span_ns)
		c->t->span_ns = c->now;
	c->t->packets++;
	if (cap < len)
		c->t->left.cut_packets++;
	switch (dlt) {
	case DLT_EN10MB:
		skip = 14;
		if (cap < 14)
			return 0;
		type = (unsigned)p[12] << 8 | p[13];
		while (type == 0x8100 && cap >= skip + 4) {	/* VLAN tags */
			type = (unsigned)p[skip + 2] << 8 | p[skip + 3];
			skip += 4;
		}
		if (type != 0x0800 && type != 0x86dd)
			return 0;
		break;
	case DLT_LINUX_SLL:
		skip = 16;
		break;
	case DLT_LINUX_SLL2:	/* tshark -i any */
		skip = 20;
		break;
	case DLT_NULL:
	case DLT_LOOP:
		skip = 4;
		break;
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		skip = 0;
		break;
	default:
		return 0;
	}
	if (cap < skip || len < skip)
		return 0;
	return ip_packet(c, p + skip, cap - skip, len - skip);
}

int trace_load(const char *file, struct trace *t, char *err, size_t len)
{
	char perr[PCAP_ERRBUF_SIZE] = "";
	struct trace_ctx c = { .t = t };
	uint8_t magic[2] = { 0 };
	struct gz *gz = NULL;	/* a gzip'd capture's stream state (freed by fclose) */
	FILE *f = fopen(file, "rb");
	char *iobuf = NULL;
	struct pcap_pkthdr *h;
	const u_char *p;
	pcap_t *pc;
	int rc = 0, r, dlt;

	memset(t, 0, sizeof(*t));
	if (!f)
		return fail(err, len, -errno, "%s: %s", file, strerror(errno));
	/* libpcap freads a record at a time, and a record over stdio's 4 KiB buffer is a
	 * read(2) of its own: one per 4 KiB READ reply or WRITE call, most of the decoding's
	 * CPU. A larger buffer makes it one read per 256 KiB. */
	if ((iobuf = malloc(IOBUF)))
		setvbuf(f, iobuf, _IOFBF, IOBUF);
	if (fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		fclose(f);
		free(iobuf);
		iobuf = NULL;
		errno = 0;
		if (!(f = gz_open(file, &gz)))
			return fail(err, len, errno ? -errno : -ENOMEM, "%s: %s", file,
				    strerror(errno ? errno : ENOMEM));
	} else {
		rewind(f);
	}
	/* pcap_close closes f. */
	pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!pc) {
		if (gz && gz->broken)
			snprintf(perr, sizeof(perr), "a broken gzip file");
		fclose(f);
		free(iobuf);
		return fail(err, len, -EINVAL, "not a pcap or pcapng capture (%s)", perr);
	}
	dlt = pcap_datalink(pc);
	if (dlt != DLT_EN10MB && dlt != DLT_LINUX_SLL && dlt != DLT_LINUX_SLL2 &&
	    dlt != DLT_NULL && dlt != DLT_LOOP && dlt != DLT_RAW && dlt != DLT_IPV4 &&
	    dlt != DLT_IPV6) {
		snprintf(err, len, "link type %s not supported (Ethernet, Linux cooked, raw IP, "
			 "loopback are)", pcap_datalink_val_to_name(dlt) ?: "?");
		pcap_close(pc);
		free(iobuf);
		return -EINVAL;
	}
	while ((r = pcap_next_ex(pc, &h, &p)) == 1 && rc == 0)
		rc = packet(&c, dlt, h, p);
	if (r == PCAP_ERROR && rc == 0)	/* a truncated last packet: what was read stands */
		t->left.incomplete++;
	if (rc == 0)
		trace_tcp_finish(&c);
	trace_tcp_free(&c);
	pcap_close(pc);
	free(iobuf);
	if (rc < 0) {
		trace_free(t);
		return fail(err, len, rc, "%s: %s", file, strerror(-rc));
	}
	return 0;
}
