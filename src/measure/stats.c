/* stats: counters + histogram sets, see include/stats.h. */
#include <errno.h>
#include <stdlib.h>

#include "stats.h"

int op_stats_init(struct op_stats *s, int sub_bits, bool open_loop)
{
	s->ops = s->bytes = s->holes = s->errors = s->wire_missed = s->denied = 0;
	s->lat_unc = s->wire = s->client = s->lat_denied = (struct hist){ 0 };
	if (hist_init(&s->lat, sub_bits))
		return -ENOMEM;
	if (open_loop && hist_init(&s->lat_unc, sub_bits)) {
		hist_destroy(&s->lat);
		return -ENOMEM;
	}
	return 0;
}

void op_stats_destroy(struct op_stats *s)
{
	hist_destroy(&s->lat);
	hist_destroy(&s->lat_unc);
	hist_destroy(&s->wire);
	hist_destroy(&s->client);
	hist_destroy(&s->lat_denied);
}

void op_stats_reset(struct op_stats *s)
{
	s->ops = s->bytes = s->holes = s->errors = s->wire_missed = s->denied = 0;
	hist_reset(&s->lat);
	if (s->lat_denied.counts)
		hist_reset(&s->lat_denied);
	if (s->lat_unc.counts)
		hist_reset(&s->lat_unc);
	if (s->wire.counts) {
		hist_reset(&s->wire);
		hist_reset(&s->client);
	}
}

/* The wire histograms, made now or on first use like the source's (false: no memory). */
static bool wire_ready(struct op_stats *s, int sub_bits)
{
	if (s->wire.counts)
		return true;
	if (hist_init(&s->wire, sub_bits))
		return false;
	if (hist_init(&s->client, sub_bits)) {
		hist_destroy(&s->wire);
		return false;
	}
	return true;
}

void op_stats_denied(struct op_stats *s, uint64_t lat_ns)
{
	s->denied++;
	if (s->lat_denied.counts || hist_init(&s->lat_denied, s->lat.sub_bits) == 0)
		hist_record(&s->lat_denied, lat_ns);
}

int op_stats_wire_init_all(struct op_stats *s)
{
	for (int t = 0; t < OP_NTYPES; t++)
		if (!wire_ready(&s[t], s[t].lat.sub_bits))
			return -ENOMEM;
	return 0;
}

void op_stats_wire(struct op_stats *s, uint64_t w, uint64_t unc_ns)
{
	if (w == 0 || !wire_ready(s, s->lat.sub_bits)) {
		s->wire_missed++;
		return;
	}
	hist_record(&s->wire, w);
	hist_record(&s->client, unc_ns > w ? unc_ns - w : 0);
}

void op_stats_add(struct op_stats *dst, const struct op_stats *src)
{
	dst->ops += src->ops;
	dst->bytes += src->bytes;
	dst->holes += src->holes;
	dst->errors += src->errors;
	dst->denied += src->denied;
	hist_add(&dst->lat, &src->lat);
	if (src->lat_denied.counts && (dst->lat_denied.counts ||
				       hist_init(&dst->lat_denied, src->lat_denied.sub_bits) == 0))
		hist_add(&dst->lat_denied, &src->lat_denied);
	if (dst->lat_unc.counts && src->lat_unc.counts)
		hist_add(&dst->lat_unc, &src->lat_unc);
	dst->wire_missed += src->wire_missed;
	if (src->wire.counts && wire_ready(dst, src->wire.sub_bits)) {
		hist_add(&dst->wire, &src->wire);
		hist_add(&dst->client, &src->client);
	}
}

int op_stats_init_all(struct op_stats *s, int sub_bits, bool open_loop)
{
	for (int t = 0; t < OP_NTYPES; t++) {
		if (op_stats_init(&s[t], sub_bits, open_loop)) {
			while (t-- > 0)
				op_stats_destroy(&s[t]);
			return -ENOMEM;
		}
	}
	return 0;
}

void op_stats_destroy_all(struct op_stats *s)
{
	for (int t = 0; t < OP_NTYPES; t++)
		op_stats_destroy(&s[t]);
}

void op_stats_reset_all(struct op_stats *s)
{
	for (int t = 0; t < OP_NTYPES; t++)
		op_stats_reset(&s[t]);
}

void op_stats_add_all(struct op_stats *dst, const struct op_stats *src)
{
	for (int t = 0; t < OP_NTYPES; t++)
		op_stats_add(&dst[t], &src[t]);
}

struct op_stats *op_stats_new_n(unsigned n, int sub_bits)
{
	struct op_stats *s = n ? calloc(n, sizeof(*s)) : NULL;

	for (unsigned i = 0; s && i < n; i++) {
		if (op_stats_init(&s[i], sub_bits, false)) {
			op_stats_free_n(s, i);
			return NULL;
		}
	}
	return s;
}

void op_stats_free_n(struct op_stats *s, unsigned n)
{
	for (unsigned i = 0; s && i < n; i++)
		op_stats_destroy(&s[i]);
	free(s);
}

void op_stats_reset_n(struct op_stats *s, unsigned n)
{
	for (unsigned i = 0; s && i < n; i++)
		op_stats_reset(&s[i]);
}

void op_stats_add_n(struct op_stats *dst, const struct op_stats *src, unsigned n)
{
	for (unsigned i = 0; dst && src && i < n; i++)
		op_stats_add(&dst[i], &src[i]);
}
