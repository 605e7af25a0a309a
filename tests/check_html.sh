#!/usr/bin/env bash
# Renders an nfsload HTML report in headless Chromium and checks that it shows
# something: the screenshot is not blank (many colours, a good share of pixels
# off the background) and the DOM Chromium built holds every <svg> of the file
# and the five section headings. Then, in a window 900 px wide, that the whole
# Totals table is in view: its last column (max) ends inside the viewport, and
# the page does not scroll sideways.
#
#   tests/check_html.sh FILE.html OUT.png
#
# Exit 0 (pass) or 1 (fail, or chromium missing) with one line saying why; 2 on
# bad usage. CHROMIUM overrides the browser (default: chromium). The browser
# runs with a fresh profile and HOME in a temporary directory, removed after.
set -euo pipefail

WIDTH=1280
HEIGHT=2400
NARROW=900		# a laptop's half screen
TIMEOUT=90
MIN_COLOURS=64		# a blank or error page has a handful
MIN_INK_PCT=3		# pixels that are not the most common colour

if (($# != 2)); then
	echo "usage: $0 FILE.html OUT.png" >&2
	exit 2
fi
html=$1
png=$2
browser=${CHROMIUM:-chromium}

fail() {
	echo "check_html: FAIL: $*"
	exit 1
}

[[ -r $html ]] || fail "cannot read $html"
command -v "$browser" >/dev/null || fail "$browser not found (scripts/deps.sh test installs it)"
command -v python3 >/dev/null || fail "python3 not found"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_html.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
url="file://$(realpath "$html")"

# One run of the browser on a page in a window of the size (WxH), with its own
# profile; stderr kept for the failure line.
run_browser() {
	local size=$1 page=$2 profile
	shift 2
	profile=$(mktemp -d "$tmp/profile.XXXXXX")
	HOME=$tmp timeout --kill-after=10 "$TIMEOUT" "$browser" --headless --no-sandbox \
		--disable-gpu --disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$profile" \
		--window-size="$size" "$@" "$page" 2>>"$tmp/stderr"
}
browser_error() {
	grep -v -e dbus -e '^$' "$tmp/stderr" | tail -1
}

rm -f "$png"
if ! run_browser "$WIDTH,$HEIGHT" "$url" --screenshot="$png" >/dev/null || [[ ! -s $png ]]; then
	fail "no screenshot from $browser: $(browser_error)"
fi
if ! run_browser "$WIDTH,$HEIGHT" "$url" --dump-dom >"$tmp/dom.html" ||
	[[ ! -s $tmp/dom.html ]]; then
	fail "no DOM from $browser: $(browser_error)"
fi

# The page has no script and keeps none: a copy of it gets one that measures
# the laid-out totals table and writes the figures into the title, which
# --dump-dom then shows. The table is found by its header (p99.99, ending in
# max), not by an id, so that older pages are measured alike.
python3 - "$html" "$tmp/narrow.html" <<'EOF'
import sys

src = open(sys.argv[1], encoding="utf-8", errors="replace").read()
probe = r"""<script>
(function () {
	var de = document.documentElement, found = "no totals table";
	var tables = document.querySelectorAll("section table");
	for (var i = 0; i < tables.length; i++) {
		var head = tables[i].rows.length ? tables[i].rows[0].cells : [];
		var last = head.length ? head[head.length - 1] : null;
		if (!last || last.textContent.trim() !== "max" ||
		    tables[i].rows[0].textContent.indexOf("p99.99") < 0)
			continue;
		found = [innerWidth, de.clientWidth, de.scrollWidth,
			 Math.ceil(last.getBoundingClientRect().right)].join(" ");
		break;
	}
	document.title = "check_html-measure " + found;
})();
</script>
"""
if "</body>" not in src:
    print("check_html: FAIL: no </body> in " + sys.argv[1])
    sys.exit(1)
open(sys.argv[2], "w", encoding="utf-8").write(src.replace("</body>", probe + "</body>", 1))
EOF
if ! run_browser "$NARROW,$HEIGHT" "file://$tmp/narrow.html" --dump-dom >"$tmp/narrow.dom" ||
	[[ ! -s $tmp/narrow.dom ]]; then
	fail "no DOM from $browser at $NARROW px: $(browser_error)"
fi

python3 - "$png" "$html" "$tmp/dom.html" "$WIDTH" "$HEIGHT" "$MIN_COLOURS" "$MIN_INK_PCT" \
	"$tmp/narrow.dom" "$NARROW" <<'EOF'
import re
import struct
import sys
import zlib
from collections import Counter

png_path, html_path, dom_path = sys.argv[1:4]
width, height, min_colours, min_ink = map(int, sys.argv[4:8])
narrow_path, narrow = sys.argv[8], int(sys.argv[9])


def fail(msg):
    print("check_html: FAIL: " + msg)
    sys.exit(1)


def read_png(path):
    """(width, height, rows of RGB(A) bytes): 8-bit RGB or RGBA, not interlaced."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    pos, idat, hdr = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if not hdr:
        fail("PNG without IHDR")
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("PNG of depth %d, colour type %d, interlace %d: not decoded here"
             % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        cur = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ftype == 1:  # Sub
            for i in range(bpp, stride):
                cur[i] = (cur[i] + cur[i - bpp]) & 255
        elif ftype == 2:  # Up
            cur = bytearray((a + b) & 255 for a, b in zip(cur, prev))
        elif ftype == 3:  # Average
            for i in range(stride):
                left = cur[i - bpp] if i >= bpp else 0
                cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 255
        elif ftype == 4:  # Paeth
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                cur[i] = (cur[i] + pred) & 255
        elif ftype != 0:
            fail("PNG row %d has filter %d" % (y, ftype))
        rows.append(cur)
        prev = cur
    return w, h, bpp, rows


w, h, bpp, rows = read_png(png_path)
if (w, h) != (width, height):
    fail("screenshot is %dx%d, not %dx%d" % (w, h, width, height))
colours = Counter()
for row in rows:
    colours.update(bytes(row[i:i + 3]) for i in range(0, len(row), bpp))
background, bg_count = colours.most_common(1)[0]
ink = 100.0 * (w * h - bg_count) / (w * h)
if len(colours) < min_colours:
    fail("screenshot has %d colours (< %d): blank?" % (len(colours), min_colours))
if ink < min_ink:
    fail("only %.1f%% of the screenshot is off the background #%s (< %d%%)"
         % (ink, background.hex(), min_ink))

src = open(html_path, encoding="utf-8", errors="replace").read()
dom = open(dom_path, encoding="utf-8", errors="replace").read()
want = ["nfsload report", "Summary", "Throughput over time", "Latency over time",
        "Latency percentile spectrum", "Per-connection p99"]
missing = [h for h in want if h not in dom]
if missing:
    fail("rendered DOM lacks the heading(s) " + ", ".join(missing))
if dom.count("<svg") != src.count("<svg") or dom.count("<svg") != dom.count("</svg>"):
    fail("rendered DOM has %d <svg> and %d </svg>, the file %d <svg>"
         % (dom.count("<svg"), dom.count("</svg>"), src.count("<svg")))
if "<script" in dom.lower():
    fail("rendered DOM has a <script>")

# The window's width, the viewport's without its scroll bar, the page's, and
# the right edge of the totals table's max column, in CSS pixels.
m = re.search(r"<title>check_html-measure ([^<]*)</title>",
              open(narrow_path, encoding="utf-8", errors="replace").read())
if not m:
    fail("no measurement at %d px (the probe did not run)" % narrow)
fields = m.group(1).split()
if len(fields) != 4 or not all(f.isdigit() for f in fields):
    fail("at %d px: %s" % (narrow, m.group(1)))
inner, client, page, max_right = map(int, fields)
if inner != narrow:
    fail("the window is %d px wide, not %d: --window-size was not applied" % (inner, narrow))
if max_right > client:
    fail("at %d px the Totals table's max column ends at %d px, past the %d px in view"
         % (narrow, max_right, client))
if page > client:
    fail("at %d px the page is %d px wide and scrolls sideways (%d px in view)"
         % (narrow, page, client))
print("check_html: ok: %d svg charts rendered, %d colours, %.1f%% ink; at %d px the totals "
      "end at %d of %d px" % (dom.count("<svg"), len(colours), ink, narrow, max_right, client))
EOF
