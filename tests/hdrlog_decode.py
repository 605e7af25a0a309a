#!/usr/bin/env python3
"""Decode an HdrHistogram interval log (format 1.x, V2 compressed histograms).

    tests/hdrlog_decode.py FILE

Written from the format, independently of nfsload's C encoder: base64, the
compressed cookie and length, zlib, the V2 header, ZigZag LEB128 counts, and
HdrHistogram's bucket and percentile math (AbstractHistogram.valueFromIndex,
highestEquivalentValue, getValueAtPercentile). Python 3 stdlib only.

Prints one JSON object per interval line:
  {"tag": "read", "start": 1.0, "length": 1.0, "max_ms": 1.235,
   "count": 1000, "min": 50000, "max": 1234943, "p50": ..., "p99": ...,
   "p50_lowest": ..., "p99_lowest": ...}
start and length are the line's seconds; max_ms is its Interval_Max column;
count is the total of the decoded counts; min, max, p50 and p99 are values
(ns in nfsload) from the counts, as HdrHistogram reports them: min is its
bucket's lowest value, the others their bucket's highest (0 when empty);
p50_lowest and p99_lowest are the lowest values of p50's and p99's buckets
(the percentile lies in [p50_lowest, p50], whatever a reader reports in it).
tag is null on an untagged line.

Exits 1 with a message naming the line on anything malformed: a missing or
unknown version header, a bad field, base64, cookie, length, zlib stream,
count run past the histogram, or an Interval_Max outside the decoded max's
bucket.
"""
import base64
import binascii
import json
import math
import re
import struct
import sys
import zlib

COMPRESSED_COOKIE_BASE = 0x1C849304
ENCODING_COOKIE_BASE = 0x1C849303
V2_HEADER = struct.Struct(">Iiiiqqd")   # 40 bytes
LEGEND = '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"'
NUMBER = re.compile(r"^\d+(\.\d+)?$")


class Malformed(Exception):
    pass


class Layout:
    """HdrHistogram's bucket configuration (AbstractHistogram.init)."""

    def __init__(self, lowest, highest, digits):
        if lowest < 1 or not 0 <= digits <= 5 or highest < 2 * lowest:
            raise Malformed("bad histogram parameters %d %d %d" % (lowest, highest, digits))
        largest_single_unit = 2 * 10 ** digits
        self.unit_magnitude = int(math.floor(math.log2(lowest)))
        sub_bucket_count_magnitude = int(math.ceil(math.log2(largest_single_unit)))
        self.half_magnitude = max(sub_bucket_count_magnitude, 1) - 1
        self.sub_bucket_count = 1 << (self.half_magnitude + 1)
        self.half_count = self.sub_bucket_count // 2
        untrackable = self.sub_bucket_count << self.unit_magnitude
        buckets = 1
        while untrackable <= highest:
            untrackable <<= 1
            buckets += 1
        self.counts_len = (buckets + 1) * self.half_count

    def lowest_at(self, index):
        """valueFromIndex: the lowest value counted at index."""
        bucket = (index >> self.half_magnitude) - 1
        sub_bucket = (index & (self.half_count - 1)) + self.half_count
        if bucket < 0:
            sub_bucket -= self.half_count
            bucket = 0
        return sub_bucket << (bucket + self.unit_magnitude)

    def highest_at(self, index):
        """highestEquivalentValue(valueFromIndex(index))."""
        bucket = max((index >> self.half_magnitude) - 1, 0)
        return self.lowest_at(index) + (1 << (bucket + self.unit_magnitude)) - 1


def zigzag_varints(data):
    """ZigZag LEB128 longs as ZigZagEncoding.getLong reads them (9th byte whole)."""
    pos = 0
    while pos < len(data):
        value = 0
        for i in range(9):
            if pos >= len(data):
                raise Malformed("truncated varint")
            b = data[pos]
            pos += 1
            if i == 8:
                value |= b << 56
                break
            value |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                break
        yield (value >> 1) ^ -(value & 1)


def decode_histogram(text):
    """Returns (layout, counts) from a base64 compressed V2 histogram."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as e:
        raise Malformed("base64: %s" % e)
    if len(raw) < 8:
        raise Malformed("histogram too short")
    cookie, zlen = struct.unpack(">Ii", raw[:8])
    if cookie & ~0xF0 != COMPRESSED_COOKIE_BASE:
        raise Malformed("compressed cookie 0x%08x is not V2" % cookie)
    if zlen != len(raw) - 8:
        raise Malformed("deflated length %d, %d bytes follow" % (zlen, len(raw) - 8))
    try:
        d = zlib.decompressobj()
        enc = d.decompress(raw[8:])
        if not d.eof or d.unused_data:
            raise Malformed("zlib stream truncated or followed by junk")
    except zlib.error as e:
        raise Malformed("zlib: %s" % e)
    if len(enc) < V2_HEADER.size:
        raise Malformed("V2 encoding too short")
    (cookie, payload_len, offset, digits, lowest, highest,
     ratio) = V2_HEADER.unpack_from(enc)
    if cookie & ~0xF0 != ENCODING_COOKIE_BASE:
        raise Malformed("encoding cookie 0x%08x is not V2" % cookie)
    if payload_len != len(enc) - V2_HEADER.size:
        raise Malformed("payload length %d, %d bytes follow"
                        % (payload_len, len(enc) - V2_HEADER.size))
    if offset != 0 or ratio != 1.0:
        raise Malformed("normalizing offset %d / ratio %g not supported" % (offset, ratio))
    layout = Layout(lowest, highest, digits)
    counts = [0] * layout.counts_len
    index = 0
    for value in zigzag_varints(enc[V2_HEADER.size:]):
        n = -value if value < 0 else 1
        if index + n > layout.counts_len:
            raise Malformed("counts run past the histogram's %d" % layout.counts_len)
        if value > 0:
            counts[index] = value
        index += n
    return layout, counts


def index_at_percentile(counts, total, pct):
    """The index AbstractHistogram.getValueAtPercentile (pct > 0) stops at; None if empty."""
    if total == 0:
        return None
    pct = min(max(math.nextafter(pct, -math.inf), 0.0), 100.0)
    rank = max(math.ceil(pct * total / 100.0), 1)
    seen = 0
    for i, c in enumerate(counts):
        seen += c
        if seen >= rank:
            return i
    return None


def value_at_percentile(layout, counts, total, pct):
    """AbstractHistogram.getValueAtPercentile (pct > 0)."""
    i = index_at_percentile(counts, total, pct)
    return 0 if i is None else layout.highest_at(i)


def lowest_at_percentile(layout, counts, total, pct):
    """The lowest value of the bucket getValueAtPercentile reports from (0 if empty)."""
    i = index_at_percentile(counts, total, pct)
    return 0 if i is None else layout.lowest_at(i)


def parse_line(line):
    tag = None
    if line.startswith("Tag="):
        tag, sep, line = line[4:].partition(",")
        if not sep or not tag or re.search(r"[ ,\r\n]", tag):
            raise Malformed("bad tag")
    fields = line.split(",")
    if len(fields) != 4:
        raise Malformed("%d fields, want 4 after the tag" % len(fields))
    for f in fields[:3]:
        if not NUMBER.match(f):
            raise Malformed("not a number: %r" % f)
    start, length, max_ms = (float(f) for f in fields[:3])
    layout, counts = decode_histogram(fields[3])
    total = sum(counts)
    nonzero = [i for i, c in enumerate(counts) if c]
    out = {
        "tag": tag, "start": start, "length": length, "max_ms": max_ms, "count": total,
        "min": layout.lowest_at(nonzero[0]) if nonzero else 0,
        "max": layout.highest_at(nonzero[-1]) if nonzero else 0,
        "p50": value_at_percentile(layout, counts, total, 50.0),
        "p99": value_at_percentile(layout, counts, total, 99.0),
        "p50_lowest": lowest_at_percentile(layout, counts, total, 50.0),
        "p99_lowest": lowest_at_percentile(layout, counts, total, 99.0),
    }
    # Interval_Max (ms, 3 decimals) must fall in the decoded max's bucket.
    lo = layout.lowest_at(nonzero[-1]) if nonzero else 0
    if not lo - 500 <= max_ms * 1e6 <= out["max"] + 500:
        raise Malformed("Interval_Max %s ms outside the max bucket [%d, %d] ns"
                        % (fields[2], lo, out["max"]))
    return out


def main(argv):
    if len(argv) != 2:
        print("usage: hdrlog_decode.py FILE", file=sys.stderr)
        return 2
    version = None
    legend = False
    with open(argv[1], encoding="ascii", errors="replace", newline="\n") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            try:
                if line.startswith("#"):
                    m = re.match(r"#\[Histogram log format version (\d+)\.(\d+)\]$", line)
                    if m:
                        version = (int(m.group(1)), int(m.group(2)))
                        if version[0] != 1:
                            raise Malformed("unknown log format version")
                    elif re.match(r"#\[(StartTime|BaseTime):", line) and \
                            not re.match(r"#\[(StartTime|BaseTime): \d+\.\d{3} \(seconds since epoch\)", line):
                        raise Malformed("bad StartTime/BaseTime")
                    continue
                if line == LEGEND:
                    legend = True
                    continue
                if version is None or not legend:
                    raise Malformed("interval before the version and legend lines")
                print(json.dumps(parse_line(line)))
            except Malformed as e:
                print("%s:%d: %s" % (argv[1], n, e), file=sys.stderr)
                return 1
    if version is None or not legend:
        print("%s: no version or legend line" % argv[1], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
