/*
 * merge_read: the pieces of a JSON report that every part of --merge reads
 * (merge.c the whole run, merge_series.c its intervals, merge_servers.c its
 * servers): counts, histograms from their buckets, an operation's figures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "merge_read.h"

uint64_t merge_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	/* Nothing negative, nothing a report cannot hold (an int64 when read back). */
	if (json_is_integer(v))
		return json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
	if (json_is_real(v) && json_real_value(v) > 0 && json_real_value(v) < 9.2e18)
		return (uint64_t)llround(json_real_value(v));
	return 0;
}

int merge_buckets_add(json_t *b, struct hist *h, uint64_t *lo_seen, uint64_t *hi_seen)
{
	json_t *x;
	size_t j;

	if (!json_is_array(b))
		return -EINVAL;
	json_array_foreach(b, j, x) {
		json_t *jl = json_array_get(x, 0), *jh = json_array_get(x, 1);
		json_t *jc = json_array_get(x, 2);
		uint64_t lo, hi, c;

		if (json_array_size(x) != 3 || !json_is_integer(jl) || !json_is_integer(jh) ||
		    !json_is_integer(jc) || json_integer_value(jl) < 0 ||
		    json_integer_value(jc) < 0 || (uint64_t)json_integer_value(jl) > HIST_MAX_VALUE)
			return -EINVAL;
		lo = (uint64_t)json_integer_value(jl);
		hi = (uint64_t)json_integer_value(jh);
		c = (uint64_t)json_integer_value(jc);
		h->counts[hist_index(h->sub_bits, lo)] += c;
		h->count += c;
		if (c && lo_seen && lo < *lo_seen)
			*lo_seen = lo;
		if (c && hi_seen && hi > *hi_seen)
			*hi_seen = hi;
	}
	return 0;
}

uint64_t merge_u64(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

int merge_hist_read(json_t *b, json_t *lat, struct hist *h)
{
	double mean, sd, n;

	if (merge_buckets_add(b, h, NULL, NULL) < 0)
		return -EINVAL;
	if (!h->count)
		return 0;
	if (!json_is_object(lat))
		return -EINVAL;
	n = (double)h->count;
	mean = json_number_value(json_object_get(lat, "mean"));
	sd = json_number_value(json_object_get(lat, "stdev"));
	h->min = merge_u64(lat, "min");
	h->max = merge_u64(lat, "max");
	h->sum = (uint64_t)llround(mean * n);
	h->sumsq = n * (sd * sd + mean * mean);
	return 0;
}

/*
 * Wire time (--wire-time), where the entry has it: the replies left out and,
 * made as the run made them (on first use), the wire and client histograms,
 * wire_count values each. 0, -EINVAL or -ENOMEM.
 */
static int read_wire(json_t *o, struct op_stats *s)
{
	json_t *wb = json_object_get(o, "wire_buckets"), *cb = json_object_get(o, "client_buckets");

	s->wire_missed = merge_num(o, "wire_missed");
	if (!wb && !cb)
		return 0;
	if (hist_init(&s->wire, s->lat.sub_bits) < 0 || hist_init(&s->client, s->lat.sub_bits) < 0)
		return -ENOMEM;
	if (merge_hist_read(wb, json_object_get(o, "wire_lat_ns"), &s->wire) < 0 ||
	    merge_hist_read(cb, json_object_get(o, "client_lat_ns"), &s->client) < 0 ||
	    s->wire.count != merge_num(o, "wire_count") || s->client.count != s->wire.count)
		return -EINVAL;
	return 0;
}

/*
 * One operation's JSON ({ops, bytes, errors, lat_ns, buckets}, and its wire
 * time if any) into s. 0, -EINVAL or -ENOMEM.
 */
int merge_read_op(json_t *o, struct op_stats *s)
{
	json_t *lat = json_object_get(o, "lat_ns"), *b = json_object_get(o, "buckets");

	if (!json_is_object(lat) || !json_is_array(b))
		return -EINVAL;
	s->ops = merge_num(o, "ops");
	s->bytes = merge_num(o, "bytes");
	/* READ_PLUS's holes (absent elsewhere: 0), never more than its bytes. */
	s->holes = merge_num(o, "hole_bytes");
	if (s->holes > s->bytes)
		return -EINVAL;
	s->errors = merge_num(o, "errors");
	if (merge_hist_read(b, lat, &s->lat) < 0 || s->lat.count != s->ops)
		return -EINVAL;	/* the buckets hold every successful operation */
	return read_wire(o, s);
}
