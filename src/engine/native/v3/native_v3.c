/*
 * The native engine's NFSv3 set-up: MNT (on the MOUNT port, then a new
 * connection to the NFS port when they differ), FSINFO (rtmax and wtmax
 * bound --bs), the work directory's LOOKUPs one component at a time, then a
 * LOOKUP per file, as many at once as calls are free; then, when --mix
 * locks, the NLM connection (native_nlm.c). A connection after the
 * first on a set-up thread starts from what that one learned (native_known.c
 * fills it in before the start).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../native_call.h"
#include "../native_known.h"
#include "../native_ops.h"
#include "native_meta3.h"
#include "native_nlm.h"
#include "native_v3.h"

static void v3_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

/* Every set-up reply comes back here. */
static const struct nat_handler v3_handler = { .reply = v3_reply, .timeout = nat_setup_timeout };

static bool send_mnt(struct engine_conn *c)
{
	XDR x;
	struct nat_call *call = nat_call_start(c, &x, MOUNT_PROGRAM, MOUNT_V3, MNT3_MNT, NK_MNT,
					       &v3_handler);

	if (!call || !mnt3_enc_mnt(&x, c->cfg->path))
		return false;
	c->state = NS_MOUNTING;
	return nat_call_send(c, call, &x, NULL, 0) == 0;
}

static bool send_fh_call(struct engine_conn *c, uint32_t proc, enum nat_kind kind,
			 const struct nfs_fh *fh)
{
	XDR x;
	struct nat_call *call = nat_call_start(c, &x, NFS_PROGRAM, NFS_V3, proc, kind, &v3_handler);

	if (!call || !nfs3_enc_fh(&x, fh))
		return false;
	return nat_call_send(c, call, &x, NULL, 0) == 0;
}

static bool send_lookup(struct engine_conn *c, const struct nfs_fh *dir, const char *name,
			uint32_t arg)
{
	XDR x;
	struct nat_call *call = nat_call_start(c, &x, NFS_PROGRAM, NFS_V3, NFS3_LOOKUP, NK_LOOKUP,
					       &v3_handler);

	if (!call || !nfs3_enc_lookup(&x, dir, name))
		return false;
	call->arg = arg;
	return nat_call_send(c, call, &x, NULL, 0) == 0;
}

/* LOOKUPs for the files not asked for yet (nor known: native_known.c), as far as
 * free calls go; the set-up is done when none is left to ask or answer. */
static bool lookup_files(struct engine_conn *c)
{
	char name[32];

	while (c->next_file < c->nfiles && c->nfree) {
		if (c->files[c->next_file].open) {
			c->next_file++;
			continue;
		}
		wl_file_name(NULL, c->file_ids[c->next_file], name, sizeof(name));
		if (!send_lookup(c, &c->dir, name, c->next_file))
			return false;
		c->next_file++;
		c->pending++;
	}
	/* Every file known: ready, or first the NLM connection for --mix's locks. */
	if (c->pending == 0 && c->next_file == c->nfiles)
		return nat_nlm_setup_end(c);
	return true;
}

/* The next component of the work directory below the export, or all done. */
static bool lookup_dir(struct engine_conn *c, const struct nfs_fh *from)
{
	const char *p = c->cfg->dir;
	char name[256];
	unsigned i = 0;
	size_t n;

	/* c->pending counts the components looked up so far. */
	for (;;) {
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (i++ == c->pending || !n)
			break;
		p += n;
	}
	if (!n) {
		c->dir = *from;
		c->pending = 0;
		c->next_file = 0;
		if (c->nfiles == 0) {
			nat_setup_done(c, true);
			return true;
		}
		return lookup_files(c);
	}
	snprintf(name, sizeof(name), "%.*s", (int)n, p);
	c->pending++;
	return send_lookup(c, from, name, UINT32_MAX);
}

static bool v3_step(struct engine_conn *c, struct nat_call *call, XDR *x)
{
	struct nfs3_fsinfo fi;
	struct nfs_fh fh;
	uint32_t arg = call->arg;
	int st;

	switch (call->kind) {
	case NK_MNT:
		nat_call_free(c, call);
		st = mnt3_dec_mnt(x, &c->root, &c->mnt_flavors);
		if (st) {
			nat_set_error(c, "MOUNT of '%s' refused: %s%s", c->cfg->path,
				      st < 0 ? "bad reply" : strerror(-nfs3_errno((uint32_t)st)),
				      st == 13 ? " (is the client allowed by the export?)" :
				      st == 2 ? " (is the export path right?)" : "");
			return false;
		}
		if (nat_mount_apart(c->eng, c->srv)) {
			xport_close(c->sock);
			c->state = NS_CONNECT;
			return nat_dial(c, false) == 0;
		}
		c->state = NS_SETUP;
		return send_fh_call(c, NFS3_FSINFO, NK_FSINFO, &c->root);
	case NK_FSINFO:
		nat_call_free(c, call);
		if ((st = nfs3_dec_fsinfo(x, &fi))) {
			nat_set_error(c, "FSINFO failed: %s", st < 0 ? "bad reply" :
				      strerror(-nfs3_errno((uint32_t)st)));
			return false;
		}
		c->rtmax = fi.rtmax;
		c->wtmax = fi.wtmax;
		if ((c->rtmax && c->rtmax < c->cfg->bs) || (c->wtmax && c->wtmax < c->cfg->bs)) {
			nat_set_error(c, "--bs %llu is over the server's largest READ (%u) or WRITE (%u)",
				      (unsigned long long)c->cfg->bs, c->rtmax, c->wtmax);
			return false;
		}
		nat_step(c, NAT_STEP_MOUNT);
		c->pending = 0;
		return lookup_dir(c, &c->root);
	default:	/* NK_LOOKUP */
		nat_call_free(c, call);
		st = nfs3_dec_lookup(x, &fh, NULL);
		if (st) {
			nat_set_error(c, "LOOKUP of %s failed: %s", arg == UINT32_MAX ?
				      "the work directory" : "a file", st < 0 ? "bad reply" :
				      strerror(-nfs3_errno((uint32_t)st)));
			return false;
		}
		if (arg == UINT32_MAX)
			return lookup_dir(c, &fh);
		c->files[arg].fh = fh;
		c->files[arg].open = true;
		nat_step(c, NAT_STEP_OPEN);
		c->pending--;
		return lookup_files(c);
	}
}

static void v3_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	if (rpc_status < 0) {
		nat_call_free(c, call);
		nat_set_error(c, "%s refused by the server: %s",
			      call->kind == NK_MNT ? "MOUNT" : "NFSv3", strerror(-rpc_status));
		nat_setup_done(c, false);
		return;
	}
	if (!v3_step(c, call, x) && c->state != NS_DOWN)
		nat_setup_done(c, false);
}

bool nat_v3_start(struct engine_conn *c, bool mount, bool known)
{
	if (known) {
		c->state = NS_SETUP;
		c->pending = 0;
		c->next_file = 0;
		return lookup_files(c);
	}
	if (mount || !c->root.len)
		return send_mnt(c);
	c->state = NS_SETUP;
	return send_fh_call(c, NFS3_FSINFO, NK_FSINFO, &c->root);
}

static bool v3_mount(struct engine_conn *c)
{
	return nat_v3_start(c, true, false);
}

static bool v3_start(struct engine_conn *c)
{
	return nat_v3_start(c, false, c->kn_use && nat_known_apply(c));
}

static void v3_call_lost(struct engine_conn *c, struct nat_call *call)
{
	(void)c;	/* an NFSv3 call holds nothing but itself */
	(void)call;
}

/* NFSv3: MNT first, set-ups that learn from each other, no sessions, nothing to close. */
const struct nat_proto nat_proto_v3 = {
	.name = "NFSv3",
	.rpc_vers = NFS_V3,
	.learns = true,
	.sessions = false,
	.mount = v3_mount,
	.start = v3_start,
	.io_queue = nat_io3_queue,
	.meta_queue = nat_meta3_start,
	.meta_again = nat_meta3_again,
	.call_lost = v3_call_lost,
	.tick = NULL,
	.close = NULL,
};
