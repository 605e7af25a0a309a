/*
 * trace_nfs4: a COMPOUND's operations. Each operation's arguments are read
 * (the ones a replay needs) or stepped over; an operation whose arguments
 * this file does not know ends the decoding of its COMPOUND (the ops after
 * it are counted as left out). The reply gives each op's status without
 * reading its results: a COMPOUND stops at its first failure, so the ops
 * before the last result succeeded and the last has the COMPOUND's status.
 * Results are read only as far as they are known, for GETFH's handle, OPEN's and
 * LOCK's stateids (their `other`: what later CLOSE, LOCK, LOCKU ... name) and
 * READ_PLUS's bytes of data and of holes. The v4.2 operations (RFC 7862,
 * RFC 8276 for xattrs) keep what a replay sends again: offsets, lengths,
 * SEEK's what, COPY and CLONE's two files (SAVEFH's and the current one),
 * the xattr's name and value size. The state operations (OPEN, CLOSE, LOCK,
 * LOCKU, LOCKT, OPEN_DOWNGRADE) keep their stateids and lock-owners (interned,
 * trace.h), share access and deny, lock type and range.
 */
#include <errno.h>
#include <string.h>

#include "trace_nfs4.h"

#define FH4_MAX 128
#define NAME4_MAX 4096
#define OPS_MAX 256
#define XATTR_VALUE_MAX (1u << 20)
#define SEGS_MAX 4096	/* READ_PLUS's contents in one reply */

static const char *const names[] = {
	[3] = "ACCESS", "CLOSE", "COMMIT", "CREATE", "DELEGPURGE", "DELEGRETURN", "GETATTR",
	"GETFH", "LINK", "LOCK", "LOCKT", "LOCKU", "LOOKUP", "LOOKUPP", "NVERIFY", "OPEN",
	"OPENATTR", "OPEN_CONFIRM", "OPEN_DOWNGRADE", "PUTFH", "PUTPUBFH", "PUTROOTFH", "READ",
	"READDIR", "READLINK", "REMOVE", "RENAME", "RENEW", "RESTOREFH", "SAVEFH", "SECINFO",
	"SETATTR", "SETCLIENTID", "SETCLIENTID_CONFIRM", "VERIFY", "WRITE", "RELEASE_LOCKOWNER",
	"BACKCHANNEL_CTL", "BIND_CONN_TO_SESSION", "EXCHANGE_ID", "CREATE_SESSION",
	"DESTROY_SESSION", "FREE_STATEID", "GET_DIR_DELEGATION", "GETDEVICEINFO",
	"GETDEVICELIST", "LAYOUTCOMMIT", "LAYOUTGET", "LAYOUTRETURN", "SECINFO_NO_NAME",
	"SEQUENCE", "SET_SSV", "TEST_STATEID", "WANT_DELEGATION", "DESTROY_CLIENTID",
	"RECLAIM_COMPLETE", "ALLOCATE", "COPY", "COPY_NOTIFY", "DEALLOCATE", "IO_ADVISE",
	"LAYOUTERROR", "LAYOUTSTATS", "OFFLOAD_CANCEL", "OFFLOAD_STATUS", "READ_PLUS", "SEEK",
	"WRITE_SAME", "CLONE", "GETXATTR", "SETXATTR", "LISTXATTRS", "REMOVEXATTR",
};

const char *trace_nfs4_name(unsigned op)
{
	if (op == 10044)
		return "ILLEGAL";
	return op < sizeof(names) / sizeof(names[0]) ? names[op] : NULL;
}

int trace_is_session_op(unsigned op)
{
	/* SETCLIENTID(_CONFIRM), RENEW (v4.0); BIND_CONN .. DESTROY_SESSION, SEQUENCE,
	 * DESTROY_CLIENTID, RECLAIM_COMPLETE (v4.1) */
	return op == 30 || op == 35 || op == 36 || (op >= 41 && op <= 44) || op == 53 ||
	       op == 57 || op == 58;
}

static bool bitmap(XDR *x)
{
	uint32_t n;

	return xdrx_get32(x, &n) && n <= 16 && xdrx_skip32(x, n);
}

static bool fattr(XDR *x)
{
	return bitmap(x) && xdrx_skip_opaque(x, 1 << 20);
}

static bool owner(XDR *x)	/* state_owner4: clientid, opaque */
{
	return xdrx_skip32(x, 2) && xdrx_skip_opaque(x, 1024);
}

/* n bytes interned in tab: its index in *out (left as it was when out of memory). */
static bool intern(struct trace_table *tab, const uint8_t *p, uint32_t n, uint32_t *out)
{
	uint32_t i = trace_intern(tab, p, n);

	if (i == UINT32_MAX)
		return false;
	*out = i;
	return true;
}

/* A lock-owner (state_owner4: clientid, opaque) interned whole in t->owners. */
static bool lock_owner(struct trace_ctx *c, XDR *x, uint32_t *out)
{
	uint8_t buf[8 + 1024];
	const uint8_t *p;
	uint32_t n;

	if (!xdrx_get_fixed(x, buf, 8) || !xdrx_get_opaque(x, 1024, &p, &n))
		return false;
	memcpy(buf + 8, p, n);
	return intern(&c->t->owners, buf, 8 + n, out);
}

/*
 * A stateid4: its other interned in t->states. The special ones (RFC 8881
 * 8.2.3): other all zeros or all ones is the anonymous or bypass stateid (0:
 * none), all zeros with seqid 1 the current stateid (TRACE_STATE_CURRENT).
 */
static bool stateid(struct trace_ctx *c, XDR *x, uint32_t *out)
{
	static const uint8_t zeros[12], ones[12] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
						     0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t other[12];
	uint32_t seqid;

	if (!xdrx_get32(x, &seqid) || !xdrx_get_fixed(x, other, sizeof(other)))
		return false;
	if (!memcmp(other, zeros, sizeof(other))) {
		*out = seqid == 1 ? TRACE_STATE_CURRENT : 0;
		return true;
	}
	if (!memcmp(other, ones, sizeof(other))) {
		*out = 0;
		return true;
	}
	return intern(&c->t->states, other, sizeof(other), out);
}

/* An OPEN's or OPEN_DOWNGRADE's share access and deny, as trace_op.what has them. */
static bool share(XDR *x, struct trace_op *op)
{
	uint32_t access, deny;

	if (!xdrx_get32(x, &access) || !xdrx_get32(x, &deny))
		return false;
	op->what = (access & 3) | (deny & 3) << 8;	/* OPEN4_SHARE_ACCESS_WANT_*: not kept */
	return true;
}

static bool channel_attrs(XDR *x)
{
	uint32_t n;

	return xdrx_skip32(x, 6) && xdrx_get32(x, &n) && n <= 1 && xdrx_skip32(x, n);
}

static bool cb_sec_parms(XDR *x)
{
	uint32_t n, flavor;

	if (!xdrx_get32(x, &n) || n > 16)
		return false;
	while (n--) {
		if (!xdrx_get32(x, &flavor))
			return false;
		if (flavor == 1) {	/* AUTH_SYS */
			uint32_t g;

			if (!xdrx_skip32(x, 1) || !xdrx_skip_opaque(x, 255) || !xdrx_skip32(x, 2) ||
			    !xdrx_get32(x, &g) || g > 16 || !xdrx_skip32(x, g))
				return false;
		} else if (flavor == 6) {
			if (!xdrx_skip32(x, 1) || !xdrx_skip_opaque(x, 1024) ||
			    !xdrx_skip_opaque(x, 1024))
				return false;
		} else if (flavor != 0) {
			return false;
		}
	}
	return true;
}

/* A v4.2 length4 (64 bits) into op->count, cut to what a count holds. */
static bool length(XDR *x, struct trace_op *op)
{
	uint64_t n;

	if (!xdrx_get64(x, &n))
		return false;
	op->count = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	return true;
}

/* IO_ADVISE's hints (a bitmap4): its first word. */
static bool hints(XDR *x, uint32_t *first)
{
	uint32_t n;

	*first = 0;
	if (!xdrx_get32(x, &n) || n > 16)
		return false;
	return n == 0 || (xdrx_get32(x, first) && xdrx_skip32(x, n - 1));
}

/* COPY's ca_source_server<>: netloc4s (a name, a URL, or a netaddr4's two strings). */
static bool netlocs(XDR *x)
{
	uint32_t n, type;

	if (!xdrx_get32(x, &n) || n > 16)
		return false;
	while (n--)
		if (!xdrx_get32(x, &type) || type < 1 || type > 3 ||
		    !xdrx_skip_opaque(x, 1024) || (type == 3 && !xdrx_skip_opaque(x, 1024)))
			return false;
	return true;
}

/* OPEN's args past seqid: access, deny, owner, openflag4, open_claim4. */
static bool open_args(struct trace_ctx *c, struct trace_op *op, XDR *x, uint32_t cur)
{
	uint32_t how, mode, claim;

	if (!share(x, op) || !owner(x) || !xdrx_get32(x, &how))
		return false;
	if (how == 1) {	/* OPEN4_CREATE */
		if (!xdrx_get32(x, &mode))
			return false;
		op->stable = (uint8_t)(mode + 1);
		if ((mode <= 1 && !fattr(x)) || (mode == 2 && !xdrx_skip32(x, 2)) ||
		    (mode == 3 && (!xdrx_skip32(x, 2) || !fattr(x))) || mode > 3)
			return false;
	}
	if (!xdrx_get32(x, &claim))
		return false;
	switch (claim) {
	case 0: case 3:	/* CLAIM_NULL, CLAIM_DELEGATE_PREV: a name in the current dir */
		op->dir = cur;
		return trace_get_blob(c, x, &c->t->names, NAME4_MAX, &op->name);
	case 1:
		return xdrx_skip32(x, 1);
	case 2:
		op->dir = cur;
		return xdrx_skip32(x, 4) && trace_get_blob(c, x, &c->t->names, NAME4_MAX, &op->name);
	case 4: case 6:
		op->fh = cur;
		return true;
	case 5:
		op->fh = cur;
		return xdrx_skip32(x, 4);
	}
	return false;
}

/* One op's arguments; *cur is the current filehandle as far as it is known (0: not). */
static bool args(struct trace_ctx *c, struct trace_op *op, XDR *x, uint32_t *cur, uint32_t *saved)
{
	struct trace_table *nm = &c->t->names;
	uint32_t v, n;

	switch (op->proc) {
	case 10: case 16: case 23: case 24: case 27:	/* no args */
		if (op->proc == 24 || op->proc == 23 || op->proc == 16)
			*cur = 0;
		if (op->proc == 27)
			op->fh = *cur;
		return true;
	case 31: case 32:	/* RESTOREFH, SAVEFH */
		if (op->proc == 31)
			*cur = *saved;
		else
			*saved = *cur;
		return true;
	case 22:
		return trace_get_blob(c, x, &c->t->fhs, FH4_MAX, &op->fh) && (*cur = op->fh, true);
	case 3: case 52:
		op->fh = *cur;
		return xdrx_skip32(x, 1);
	case 4: op->fh = *cur; return xdrx_skip32(x, 1) && stateid(c, x, &op->state);	/* CLOSE */
	case 5: case 25: case 68:	/* COMMIT, READ, READ_PLUS: (stateid,) offset, count */
		op->fh = *cur;
		if (op->proc != 5 && !xdrx_skip32(x, 4))
			return false;
		return xdrx_get64(x, &op->offset) && xdrx_get32(x, &op->count);
	case 59: case 62: case 63:	/* ALLOCATE, DEALLOCATE, IO_ADVISE: stateid, offset, length */
		op->fh = *cur;
		if (!xdrx_skip32(x, 4) || !xdrx_get64(x, &op->offset) || !length(x, op))
			return false;
		return op->proc != 63 || hints(x, &op->what);
	case 69:	/* SEEK: stateid, offset, what */
		op->fh = *cur;
		return xdrx_skip32(x, 4) && xdrx_get64(x, &op->offset) && xdrx_get32(x, &op->what);
	case 60: case 71:	/* COPY, CLONE: from the saved handle to the current one */
		op->fh = *saved;
		op->fh2 = *cur;
		if (!xdrx_skip32(x, 8) || !xdrx_get64(x, &op->offset) ||
		    !xdrx_get64(x, &op->offset2) || !length(x, op))
			return false;
		return op->proc == 71 || (xdrx_skip32(x, 2) && netlocs(x));
	case 72: case 75:	/* GETXATTR, REMOVEXATTR: a name */
		op->fh = *cur;
		return trace_get_blob(c, x, nm, NAME4_MAX, &op->name);
	case 73:	/* SETXATTR: option, name, value */
		op->fh = *cur;
		return xdrx_get32(x, &op->what) &&
		       trace_get_blob(c, x, nm, NAME4_MAX, &op->name) &&
		       xdrx_get32(x, &op->count) && op->count <= XATTR_VALUE_MAX &&
		       xdrx_skip(x, op->count);
	case 74:	/* LISTXATTRS: cookie, maxcount */
		op->fh = *cur;
		return xdrx_skip32(x, 2) && xdrx_get32(x, &op->count);
	case 66: case 67:	/* OFFLOAD_CANCEL, OFFLOAD_STATUS: a stateid */
		return xdrx_skip32(x, 4);
	case 38:	/* WRITE */
		op->fh = *cur;
		if (!xdrx_skip32(x, 4) || !xdrx_get64(x, &op->offset) || !xdrx_get32(x, &v) ||
		    !xdrx_get32(x, &op->count))
			return false;
		op->stable = (uint8_t)v;
		return xdrx_skip(x, op->count);
	case 6:	/* CREATE */
		op->dir = *cur;
		if (!xdrx_get32(x, &v) || (v == 5 && !xdrx_skip_opaque(x, NAME4_MAX)) ||
		    ((v == 3 || v == 4) && !xdrx_skip32(x, 2)))
			return false;
		return trace_get_blob(c, x, nm, NAME4_MAX, &op->name) && fattr(x);
	case 7: case 30: case 57: return xdrx_skip32(x, 2);
	case 8: case 45: op->fh = *cur; return xdrx_skip32(x, 4);
	case 9: op->fh = *cur; return bitmap(x);
	case 11: case 15: case 28: case 33:	/* LINK, LOOKUP, REMOVE, SECINFO: a name */
		op->dir = *cur;
		if (!trace_get_blob(c, x, nm, NAME4_MAX, &op->name))
			return false;
		if (op->proc == 15)
			*cur = 0;
		return true;
	case 12:	/* LOCK: type, reclaim, offset, length, locker4 */
		op->fh = *cur;
		if (!xdrx_get32(x, &op->what) || !xdrx_skip32(x, 1) || !xdrx_get64(x, &op->offset) ||
		    !xdrx_get64(x, &op->length) || !xdrx_get32(x, &v) || v > 1)
			return false;
		op->stable = (uint8_t)v;
		/* open_to_lock_owner4: open seqid, open stateid, lock seqid, lock-owner;
		 * exist_lock_owner4: lock stateid, lock seqid */
		return v ? xdrx_skip32(x, 1) && stateid(c, x, &op->state) && xdrx_skip32(x, 1) &&
			   lock_owner(c, x, &op->owner) :
			   stateid(c, x, &op->state) && xdrx_skip32(x, 1);
	case 13:	/* LOCKT: type, offset, length, lock-owner */
		op->fh = *cur;
		return xdrx_get32(x, &op->what) && xdrx_get64(x, &op->offset) &&
		       xdrx_get64(x, &op->length) && lock_owner(c, x, &op->owner);
	case 14:	/* LOCKU: type, seqid, lock stateid, offset, length */
		op->fh = *cur;
		return xdrx_get32(x, &op->what) && xdrx_skip32(x, 1) &&
		       stateid(c, x, &op->state) && xdrx_get64(x, &op->offset) &&
		       xdrx_get64(x, &op->length);
	case 17: case 37: return fattr(x);
	case 18: op->fh = *cur; return xdrx_skip32(x, 1) && open_args(c, op, x, *cur);
	case 19: case 58: return xdrx_skip32(x, 1);
	case 20: return xdrx_skip32(x, 5);
	case 21:	/* OPEN_DOWNGRADE: open stateid, seqid, access, deny */
		op->fh = *cur;
		return stateid(c, x, &op->state) && xdrx_skip32(x, 1) && share(x, op);
	case 26: op->dir = *cur; return xdrx_skip32(x, 6) && bitmap(x);
	case 29:	/* RENAME: from the saved dir to the current one */
		op->dir = *saved;
		return trace_get_blob(c, x, nm, NAME4_MAX, &op->name) &&
		       trace_get_blob(c, x, nm, NAME4_MAX, &op->name2);
	case 34: op->fh = *cur; return xdrx_skip32(x, 4) && fattr(x);
	case 35:
		return xdrx_skip32(x, 3) && xdrx_skip_opaque(x, 1024) &&
		       xdrx_skip_opaque(x, 1024) && xdrx_skip32(x, 1);
	case 36: return xdrx_skip32(x, 4);
	case 39: return owner(x);
	case 41: return xdrx_skip32(x, 6);
	case 42:	/* EXCHANGE_ID, state protection SP4_NONE only */
		if (!xdrx_skip32(x, 2) || !xdrx_skip_opaque(x, 1024) || !xdrx_skip32(x, 1) ||
		    !xdrx_get32(x, &v) || v != 0 || !xdrx_get32(x, &n) || n > 1)
			return false;
		return !n || (xdrx_skip_opaque(x, 1024) && xdrx_skip_opaque(x, 1024) &&
			      xdrx_skip32(x, 3));
	case 43:
		return xdrx_skip32(x, 4) && channel_attrs(x) && channel_attrs(x) &&
		       xdrx_skip32(x, 1) && cb_sec_parms(x);
	case 44: return xdrx_skip32(x, 4);
	case 53: return xdrx_skip32(x, 8);
	case 55: return xdrx_get32(x, &n) && n <= 1024 && xdrx_skip32(x, 4 * n);
	}
	return false;
}

int trace_nfs4_call(struct trace_ctx *c, uint32_t conn, uint32_t proc, XDR *x)
{
	struct trace *t = c->t;
	uint32_t minor = 0, nops = 0, cur = 0, saved = 0, id;
	struct trace_op *op;

	if (proc == 0) {
		if (!(op = trace_new_op(c, conn)))
			return -ENOMEM;
		op->version = 4;
		return 1;
	}
	if (proc != 1 || !xdrx_skip_opaque(x, 1024) || !xdrx_get32(x, &minor) ||
	    !xdrx_get32(x, &nops) || nops > OPS_MAX || minor > 2) {
		t->left.undecoded++;
		return 0;
	}
	t->versions |= 2u << minor;
	id = ++t->compounds;
	for (uint32_t i = 0; i < nops; i++) {
		uint32_t num;

		if (!xdrx_get32(x, &num)) {
			t->left.v4_ops += nops - i;
			break;
		}
		if (!(op = trace_new_op(c, conn)))
			return -ENOMEM;
		op->version = 4;
		op->minor = (uint8_t)minor;
		op->proc = (uint16_t)num;
		op->compound = id;
		op->compound_status = TRACE_NO_REPLY;
		if (trace_is_session_op(num))
			t->session_ops++;
		if (!args(c, op, x, &cur, &saved)) {
			t->left.v4_ops += nops - i - 1;
			break;
		}
	}
	return 1;
}

/* READ_PLUS's read_plus_res4: eof, then data (offset, bytes) and holes (offset, length). */
static bool read_plus_res(struct trace_op *op, XDR *x)
{
	uint32_t n, kind, len;
	uint64_t hole;

	op->data_bytes = op->hole_bytes = 0;
	if (!xdrx_skip32(x, 1) || !xdrx_get32(x, &n) || n > SEGS_MAX)
		return false;
	while (n--) {
		if (!xdrx_get32(x, &kind) || kind > 1 || !xdrx_skip32(x, 2))	/* its offset */
			return false;
		if (kind == 0) {
			if (!xdrx_get32(x, &len) || !xdrx_skip(x, len))
				return false;
			op->data_bytes += len;
		} else {
			if (!xdrx_get64(x, &hole))
				return false;
			op->hole_bytes += hole;
		}
	}
	return true;
}

/* LISTXATTRS4resok: cookie, names<>, eof. */
static bool listxattrs_res(XDR *x)
{
	uint32_t n;

	if (!xdrx_skip32(x, 2) || !xdrx_get32(x, &n) || n > 65536)
		return false;
	while (n--)
		if (!xdrx_skip_opaque(x, NAME4_MAX))
			return false;
	return xdrx_skip32(x, 1);
}

/* COPY4resok: write_response4 (callback id<1>, count, committed, verifier), requirements. */
static bool copy_res(XDR *x)
{
	uint32_t n;

	return xdrx_get32(x, &n) && n <= 1 && xdrx_skip32(x, 4 * n) && xdrx_skip32(x, 7);
}

/* GETFH's handle and READ_PLUS's bytes: results stepped over while they are known and
 * successful. */
static void results(struct trace_ctx *c, struct trace_op *ops, uint32_t n, XDR *x)
{
	uint32_t num, st, v, last = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (!xdrx_get32(x, &num) || num != ops[i].proc || !xdrx_get32(x, &st) || st)
			return;
		switch (num) {
		case 10:
			if (!trace_get_blob(c, x, &c->t->fhs, FH4_MAX, &ops[i].result_fh))
				return;
			if (last)	/* the LOOKUP, OPEN or CREATE it follows */
				ops[last - 1].result_fh = ops[i].result_fh;
			continue;
		case 15: case 18: case 6:
			last = i + 1;
			break;
		}
		switch (num) {
		case 15: case 16: case 22: case 23: case 24: case 31: case 32: case 58:
		case 8: case 59: case 62: case 71: break;
		case 25: if (!xdrx_skip32(x, 1) || !xdrx_skip_opaque(x, UINT32_MAX)) return; break;
		case 68: if (!read_plus_res(&ops[i], x)) return; break;
		case 69: if (!xdrx_skip32(x, 3)) return; break;	/* SEEK: eof, offset */
		case 63: if (!bitmap(x)) return; break;
		case 60: if (!copy_res(x)) return; break;
		case 72: if (!xdrx_skip_opaque(x, XATTR_VALUE_MAX)) return; break;
		case 73: case 75: if (!xdrx_skip32(x, 5)) return; break;	/* change_info4 */
		case 74: if (!listxattrs_res(x)) return; break;
		case 53: if (!xdrx_skip32(x, 9)) return; break;
		case 3: case 5: if (!xdrx_skip32(x, 2)) return; break;
		case 4: case 14: case 20: case 21: if (!xdrx_skip32(x, 4)) return; break;	/* a stateid */
		case 13: break;
		case 12:	/* LOCK: the lock's stateid */
			if (!stateid(c, x, &ops[i].result_state))
				return;
			break;
		case 9: if (!fattr(x)) return; break;
		case 6: if (!xdrx_skip32(x, 5) || !bitmap(x)) return; break;
		case 18:	/* stateid, change_info, rflags, attrset, delegation NONE(_EXT) */
			if (!stateid(c, x, &ops[i].result_state) || !xdrx_skip32(x, 6) || !bitmap(x) ||
			    !xdrx_get32(x, &v) || (v != 0 && v != 3) ||
			    (v == 3 && (!xdrx_get32(x, &v) ||
					((v == 1 || v == 2) && !xdrx_skip32(x, 1)))))
				return;
			break;
		default:
			return;
		}
	}
}

void trace_nfs4_reply(struct trace_ctx *c, const struct trace_call *call, XDR *x)
{
	struct trace_op *ops;
	uint32_t st, n;

	/* A COMPOUND of no operations: nothing to give a status (t->ops may still be NULL). */
	if (call->n == 0)
		return;
	ops = &c->t->ops[call->first];
	if (call->proc == 0) {
		ops[0].status = 0;
		return;
	}
	if (!xdrx_get32(x, &st) || !xdrx_skip_opaque(x, 1024) || !xdrx_get32(x, &n))
		return;
	for (uint32_t i = 0; i < call->n; i++) {
		ops[i].compound_status = (int32_t)st;
		ops[i].status = i + 1 < n ? 0 : i + 1 == n ? (int32_t)st : TRACE_NOT_RUN;
	}
	results(c, ops, n < call->n ? n : call->n, x);
}
