#!/usr/bin/env python3
"""Seeds for the nfs3, nfs4 and gss fuzz targets, cut from real captures.

    tests/fuzz/mkseeds.py OUTDIR CAPTURE.pcap...

Reads classic pcap files (Ethernet, as dumpcap writes on lo; convert pcapng
with `editcap -F pcap`), puts each TCP direction back in order (loopback
captures have no loss), cuts ONC RPC records (record marking), matches replies
to calls by xid and writes, per kind of reply, at most PER_KIND files:

  OUTDIR/nfs3/<proc>-<n>   byte 0 the decoder fuzz_nfs3.c reads it with, byte 1
                           an odd offset, then the results after the RPC header
  OUTDIR/nfs4/<ops>-<n>    byte 0 flags (0), byte 1 an odd offset, then the
                           COMPOUND's results (status, tag, results)
  OUTDIR/gss/<kind>-<n>    the whole reply record (header included), after
                           fuzz_gss.c's two control bytes
  OUTDIR/nfs42/real-<op>-<n>  the replies to minor version 2 COMPOUNDs of a v4.2
                           operation (fuzz_nfs42.c): bytes 0-1 as for nfs4, then
                           READ_PLUS's count and offset from its call, the results
  OUTDIR/nfs42/<name>      NFSv4.2 replies built here from RFC 7862 / RFC 8276's
                           XDR (write_nfs42), for what a server seldom sends
                           (asynchronous COPY, mixed READ_PLUS segments, garbage).
                           Alone: tests/fuzz/mkseeds.py --nfs42 OUTDIR

The corpora in tests/fuzz/corpus/ were made this way from a native run against
the private nfs-ganesha (tests/ganesha.sh; see tests/fuzz/README.md).
nfs42/real-* come from the v4.2 requests native_v42.c builds, sent to
nfs-ganesha 4.3 at minor version 2 before the engine's I/O path sent them (a
driver over nat_queue; ganesha answers the xattr ops, COPY and CLONE with
NFS4ERR_NOTSUPP and every READ_PLUS with one empty data segment at offset 0).
The pcap and replay seeds with v4.2 COMPOUNDs (file-v42-made.pcap, its segment
feeds, made-v42) are made by write_v42.
"""
import os
import struct
import sys

PER_KIND = 4
# fuzz_nfs3.c's decoders, by NFSv3 procedure (MOUNT's MNT is 0)
NFS3_DEC = {1: 1, 3: 2, 4: 3, 6: 4, 7: 5, 21: 6, 8: 7, 9: 7, 2: 8, 12: 8, 13: 8,
            14: 8, 19: 9, 17: 10}
NFS3_NAME = {1: 'getattr', 2: 'setattr', 3: 'lookup', 4: 'access', 6: 'read', 7: 'write',
             8: 'create', 9: 'mkdir', 12: 'remove', 13: 'rmdir', 14: 'rename',
             17: 'readdirplus', 19: 'fsinfo', 21: 'commit'}


NFS42_NAME = {59: 'allocate', 60: 'copy', 62: 'deallocate', 63: 'io_advise', 68: 'read_plus',
              69: 'seek', 71: 'clone', 72: 'getxattr', 73: 'setxattr', 74: 'listxattrs',
              75: 'removexattr'}


def compound_call(rec, at):
    """A COMPOUND call's minorversion, last opcode read, and READ_PLUS's count and
    offset (0, 0 without one); the ops are read as far as SEQUENCE, PUTFH, SAVEFH
    and READ_PLUS go."""
    at = skip_opaque(rec, at)			# tag
    minor, nops = struct.unpack('>II', rec[at:at + 8])
    at += 8
    last, count, off = 0, 0, 0
    for _ in range(nops):
        op = struct.unpack('>I', rec[at:at + 4])[0]
        at += 4
        last = op
        if op == 53:				# SEQUENCE: sessionid, 4 words
            at += 32
        elif op == 22:				# PUTFH
            at = skip_opaque(rec, at)
        elif op == 32:				# SAVEFH
            pass
        elif op == 68:				# READ_PLUS: stateid, offset, count
            off, count = struct.unpack('>QI', rec[at + 16:at + 28])
            break
        else:
            break
    return minor, last, count, off


def packets(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    linktype = struct.unpack(end + 'I', data[20:24])[0]
    if linktype != 1:
        sys.exit(f'{path}: link type {linktype}, only Ethernet')
    at = 24
    while at + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + 'IIII', data[at:at + 16])
        yield data[at + 16:at + 16 + incl]
        at += 16 + incl


def segments(path):
    for p in packets(path):
        if len(p) < 14 or p[12:14] != b'\x08\x00':
            continue
        ip = p[14:]
        hl = (ip[0] & 15) * 4
        if ip[9] != 6:
            continue
        total = struct.unpack('>H', ip[2:4])[0]
        tcp = ip[hl:total]
        sport, dport, seq = struct.unpack('>HHI', tcp[:8])
        thl = (tcp[12] >> 4) * 4
        yield (ip[12:16], sport, ip[16:20], dport), seq, tcp[13], tcp[thl:]


def records(path):
    """(direction key, record) in capture order, fragments joined."""
    streams = {}
    for key, seq, flags, payload in segments(path):
        s = streams.setdefault(key, {'next': None, 'buf': b'', 'rec': b''})
        if flags & 2:
            s['next'] = (seq + 1) & 0xffffffff
            continue
        if not payload or s['next'] is None:
            continue
        if seq != s['next']:	# a retransmission (loopback: none expected)
            continue
        s['next'] = (seq + len(payload)) & 0xffffffff
        s['buf'] += payload
        while len(s['buf']) >= 4:
            mark = struct.unpack('>I', s['buf'][:4])[0]
            n = mark & 0x7fffffff
            if len(s['buf']) < 4 + n:
                break
            s['rec'] += s['buf'][4:4 + n]
            s['buf'] = s['buf'][4 + n:]
            if mark >> 31:
                yield key, s['rec']
                s['rec'] = b''


def skip_opaque(b, at):
    n = struct.unpack('>I', b[at:at + 4])[0]
    return at + 4 + ((n + 3) & ~3)


def main():
    out = sys.argv[1]
    calls = {}
    count = {}
    gss_seeds = []
    for cap in sys.argv[2:]:
        for key, rec in records(cap):
            if len(rec) < 8:
                continue
            xid, mtype = struct.unpack('>II', rec[:8])
            if mtype == 0:
                prog, vers, proc = struct.unpack('>III', rec[12:24])
                at = skip_opaque(rec, 28)		# cred (flavor at 24)
                at = skip_opaque(rec, at + 4)		# verifier
                ops = compound_call(rec, at) if (prog, vers, proc) == (100003, 4, 1) else None
                calls[xid] = (prog, vers, proc, ops)
                continue
            if xid not in calls or struct.unpack('>I', rec[8:12])[0] != 0:
                continue
            prog, vers, proc, ops = calls.pop(xid)
            at = 12
            at = skip_opaque(rec, at + 4)		# verifier
            if struct.unpack('>I', rec[at:at + 4])[0] != 0:
                continue
            results = rec[at + 4:]
            if prog == 100005 and proc == 1:
                kind, target, sel = 'mnt', 'nfs3', 0
            elif prog == 100003 and vers == 3 and proc in NFS3_DEC:
                kind, target, sel = NFS3_NAME[proc], 'nfs3', NFS3_DEC[proc]
            elif prog == 100003 and vers == 4 and proc == 1 and ops and ops[0] == 2 and \
                    ops[1] in NFS42_NAME:
                # NFSv4.2: fuzz_nfs42.c's control bytes carry READ_PLUS's count and offset
                minor, last, rp_count, rp_off = ops
                kind, target, sel = f'real-{NFS42_NAME.get(last, last)}', 'nfs42', 0
                results = struct.pack(">IQ", rp_count, rp_off) + results
            elif prog == 100003 and vers == 4 and proc == 1:
                # the kind: how many results and about how long (the ops are in them)
                nres = struct.unpack('>I', results[skip_opaque(results, 4):][:4])[0]
                kind, target, sel = f'n{nres}-len{len(results) // 32 * 32}', 'nfs4', 0
            else:
                continue
            k = (target, kind)
            count[k] = count.get(k, 0) + 1
            if count[k] > PER_KIND:
                continue
            os.makedirs(f'{out}/{target}', exist_ok=True)
            with open(f'{out}/{target}/{kind}-{count[k]}', 'wb') as f:
                f.write(bytes([sel, 1]) + results)
            if count[k] == 1 and (target == 'nfs3' or len(gss_seeds) < 40):
                gss_seeds.append((f'{target}-{kind}', rec, at))
    write_gss(out, gss_seeds)
    for cap in sys.argv[2:]:
        write_segments(out, cap)
    write_replay(out)
    write_nfs42(out)
    write_v42(out)


def write_segments(out, cap, per=3, msgs=24):
    """fuzz_pcap.c's segment feeds: [1 | flags, piece] + messages "direction,
    length (2 bytes), payload": the first msgs payloads of each of the
    capture's first TCP connections, in capture order."""
    os.makedirs(f'{out}/pcap', exist_ok=True)
    flows = {}
    for key, seq, flags, payload in segments(cap):
        if not payload:
            continue
        rev = (key[2], key[3], key[0], key[1])
        flow = flows.get(key) or flows.get(rev)
        if flow is None:
            if len(flows) == per:
                continue
            flow = flows[key] = {'first': key, 'msgs': []}
        if len(flow['msgs']) < msgs and len(payload) < 65536:
            flow['msgs'].append((0 if key == flow['first'] else 1, payload))
    base = os.path.basename(cap).split('.')[0]
    for i, flow in enumerate(flows.values()):
        body = b''.join(bytes([d]) + struct.pack('>H', len(p)) + p for d, p in flow['msgs'])
        for flags, piece in ((1, 7), (3, 13), (7, 5)):
            with open(f'{out}/pcap/seg-{base}-{i}-{flags}', 'wb') as f:
                f.write(bytes([flags, piece]) + body)


def write_replay(out):
    """fuzz_replay.c's made-up traces (byte 0 bit 0 set): a v3 and a v4.1 session
    on a small tree, two connections each, as the fio and nfsload captures have."""
    os.makedirs(f'{out}/replay', exist_ok=True)
    fhs = [b'\x01' * 8, b'\x02' * 8, b'\x03' * 8, b'\x04' * 8, b'\x05' * 8]
    names = [b'dir', b'file.000000', b'a', b'b', b'..', b'x' * 70]
    tables = b''.join(bytes([len(t)]) + b''.join(bytes([len(x)]) + x for x in t)
                      for t in (fhs, names))

    def op(conn, flags, proc, status=0, fh=0, d=0, name=0, res=0, d2=0, n2=0, off=0,
           count=256, stable=0, delay=0x21):
        return bytes([conn, flags, proc, status, fh, d, name, res, d2, n2, off >> 8, off & 255,
                      count >> 8, count & 255, stable, delay])
    v3 = [op(0, 4, 1, res=1), op(0, 0, 19, fh=1), op(0, 0, 3, d=1, name=1, res=2),
          op(0, 0, 9, d=1, name=3, res=3), op(1, 0, 8, d=3, name=4, res=4, stable=1),
          op(0, 0, 7, fh=2, off=1, count=256, stable=2), op(1, 0, 6, fh=2, off=2),
          op(1, 0, 21, fh=2), op(0, 0, 14, d=3, name=4, d2=1, n2=5),
          op(1, 0, 12, d=1, name=5), op(0, 0, 17, fh=3), op(0, 0, 3, d=1, name=6, res=5),
          op(1, 0, 2, fh=4), op(0, 0, 13, d=1, name=3), op(1, 0, 18, fh=1)]
    v4 = [op(0, 0x13, 42), op(0, 0x13, 43), op(0, 0x13, 53), op(0, 0x11, 24),
          op(0, 0x11, 15, name=2), op(0, 0x11, 10, res=2),
          op(1, 0x13, 53), op(1, 0x11, 22, fh=2), op(1, 0x11, 18, name=2), op(1, 0x11, 10, res=3),
          op(1, 0x13, 53), op(1, 0x11, 22, fh=3), op(1, 0x11, 25, off=4),
          op(0, 0x13, 53), op(0, 0x11, 22, fh=3), op(0, 0x11, 38, off=5, stable=2),
          op(0, 0x13, 53), op(0, 0x11, 22, fh=1), op(0, 0x11, 29, name=3, n2=4),
          op(1, 0x13, 53), op(1, 0x11, 22, fh=1), op(1, 0x11, 6, name=4),
          op(1, 0x13, 53), op(1, 0x11, 22, fh=1), op(1, 0x11, 28, name=4),
          op(0, 0x13, 53), op(0, 0x11, 22, fh=3), op(0, 0x11, 4)]
    for name, ops, max_io in (('v3', v3, 5), ('v4', v4, 0), ('v3v4', v3 + v4, 9)):
        with open(f'{out}/replay/made-{name}', 'wb') as f:
            f.write(bytes([1, max_io]) + tables + b''.join(ops))


def write_v42(out):
    """A 4.2 client's COMPOUNDs, made here (no client on these machines sends them all and
    ganesha's VFS export has no xattrs): the calls and replies of tests/test_trace.c's
    test_v42_compounds as a capture (pcap/ and replay/ file-v42-made.pcap, pcap/'s segment
    feeds seg-file-v42-made-*), and a made-up trace of the same ops (replay/made-v42)."""
    w = lambda *v: b''.join(struct.pack('>I', x & 0xffffffff) for x in v)
    u64 = lambda v: w(v >> 32, v)
    sid = w(0, 0, 0, 0)
    fh = lambda b: w(8, b << 24 | 0x020304, 0x05060708)
    name = lambda s: w(len(s)) + s + bytes(-len(s) % 4)
    seq = w(53) + w(*([1] * 8))
    seq_res = w(53, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0)
    calls = [
        (6, w(22) + fh(1) + w(68) + sid + u64(4096) + w(8192) + w(69) + sid + u64(12288) + w(1) +
         w(59) + sid + u64(100) + u64(200) + w(62) + sid + u64(300) + u64(5 << 30) +
         w(63) + sid + u64(7) + u64(9) + w(1, 0x20),
         w(0, 0, 7) + seq_res + w(22, 0, 68, 0, 1, 2, 0) + u64(4096) + name(b'hello') +
         w(1) + u64(4101) + u64(8187) + w(69, 0, 0) + u64(16384) + w(59, 0, 62, 0, 63, 0, 1, 0x20)),
        (5, w(22) + fh(1) + w(32, 22) + fh(2) + w(60) + sid + sid + u64(0) + u64(65536) +
         u64(4096) + w(1, 1, 1, 1) + name(b'srv') + w(71) + sid + sid + u64(8) + u64(16) + u64(32),
         w(0, 0, 6) + seq_res + w(22, 0, 32, 0, 22, 0, 60, 0, 0) + u64(4096) + w(2, 7, 7, 1, 1, 71, 0)),
        (6, w(22) + fh(2) + w(72) + name(b'nfsload.1') + w(73, 0) + name(b'nfsload.2') +
         name(bytes(range(10))) + w(74) + u64(0) + w(4096) + w(75) + name(b'nfsload.3') +
         w(68) + sid + u64(0) + w(512),
         w(10004, 0, 3) + seq_res + w(22, 0, 72, 10004)),
    ]
    pkts = []
    cseq, sseq, us = 1001, 5001, 1000000

    def pkt(to_srv, sq, flags, payload=b''):
        nonlocal us
        a, b = (b'\x0a\x00\x00\x01', b'\x0a\x00\x00\x02')
        src, dst = (a, b) if to_srv else (b, a)
        sp, dp = (900, 2049) if to_srv else (2049, 900)
        tcp = struct.pack('>HHIIBBHHH', sp, dp, sq, 0, 0x50, flags, 65535, 0, 0) + payload
        ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, src, dst)
        eth = bytes(12) + b'\x08\x00'
        frame = eth + ip + tcp
        pkts.append(struct.pack('<IIII', us // 1000000, us % 1000000, len(frame), len(frame)) + frame)
        us += 100
    pkt(True, cseq - 1, 0x02)
    pkt(False, sseq - 1, 0x12)
    for xid, (nops, args, res) in enumerate(calls, 70):
        call = w(xid, 0, 2, 100003, 4, 1, 0, 0, 0, 0) + w(0, 2, nops + 1) + seq + args
        reply = w(xid, 1, 0, 0, 0, 0) + res
        for to_srv, rec in ((True, call), (False, reply)):
            rec = w(0x80000000 | len(rec)) + rec
            pkt(to_srv, cseq if to_srv else sseq, 0x18, rec)
            if to_srv:
                cseq += len(rec)
            else:
                sseq += len(rec)
    image = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1) + b''.join(pkts)
    for d in ('pcap', 'replay'):
        os.makedirs(f'{out}/{d}', exist_ok=True)
        with open(f'{out}/{d}/file-v42-made.pcap', 'wb') as f:
            f.write(image)
    write_segments(out, f'{out}/pcap/file-v42-made.pcap')
    write_replay42(out)


def write_replay42(out):
    """fuzz_replay.c's made-up trace of a 4.2 session (minor version 2): READ_PLUS, SEEK,
    ALLOCATE, DEALLOCATE, IO_ADVISE, COPY and CLONE (SAVEFH, PUTFH), the xattr ops."""
    fhs = [b'\x01' * 8, b'\x02' * 8, b'\x03' * 8]
    names = [b'file.000000', b'nfsload.1', b'bad/name']
    tables = b''.join(bytes([len(t)]) + b''.join(bytes([len(x)]) + x for x in t)
                      for t in (fhs, names))

    def op(conn, flags, proc, fh=0, name=0, off=0, count=16, status=0):
        return bytes([conn, flags, proc, status, fh, 0, name, 0, 0, 0, off >> 8, off & 255,
                      count >> 8, count & 255, 0, 0x21])
    new, more = 0x23, 0x21	# NFSv4, minor 2; a new COMPOUND or not
    ops = [op(0, new, 42), op(0, new, 43)]
    for conn, proc, fh, extra in ((0, 68, 1, {'off': 2, 'count': 300}), (0, 69, 1, {}),
                                  (1, 59, 2, {'off': 1}), (1, 62, 2, {'count': 999}),
                                  (0, 63, 1, {}), (1, 72, 2, {'name': 2}),
                                  (1, 73, 2, {'name': 2, 'count': 4}), (0, 74, 1, {}),
                                  (0, 75, 1, {'name': 3}), (1, 68, 2, {'status': 1})):
        ops += [op(conn, new, 53), op(conn, more, 22, fh=fh), op(conn, more, proc, fh=fh, **extra)]
    for proc in (60, 71):	# COPY, CLONE from file 1 (SAVEFH) to file 3
        ops += [op(0, new, 53), op(0, more, 22, fh=1), op(0, more, 32), op(0, more, 22, fh=3),
                op(0, more, proc, off=1, count=64)]
    ops += [op(0, new, 53), op(0, more, 24), op(0, more, 69)]	# on the root: left out
    os.makedirs(f'{out}/replay', exist_ok=True)
    with open(f'{out}/replay/made-v42', 'wb') as f:
        f.write(bytes([1, 3]) + tables + b''.join(ops))


def xdr_opaque(b):
    return struct.pack('>I', len(b)) + b + bytes(-len(b) % 4)


def write_gss(out, seeds):
    """fuzz_gss.c's inputs: [mode, seq] + a reply record. Each real reply as
    service none (1), and re-wrapped as RPCSEC_GSS would carry it: a flavor 6
    verifier, integrity's body (2) and privacy's (3), a context creation's
    reply (0). The MICs and wrap tokens are the sizes MIT's krb5 makes (28 and
    60 bytes), their bytes not a real key's: no GSS call accepts them without
    a context anyway."""
    os.makedirs(f'{out}/gss', exist_ok=True)
    seq = 7
    mic = bytes(range(0x40, 0x40 + 28))
    for name, rec, at in seeds:
        head = rec[:12]			# xid, REPLY, MSG_ACCEPTED
        results = rec[at + 4:]
        gverf = struct.pack('>I', 6) + xdr_opaque(mic)
        ok = struct.pack('>I', 0)
        kinds = {
            'none': (1, rec),
            'integrity': (2, head + gverf + ok + xdr_opaque(struct.pack('>I', seq) + results) +
                          xdr_opaque(mic)),
            'privacy': (3, head + gverf + ok +
                        xdr_opaque(bytes(range(16)) + struct.pack('>I', seq) + results +
                                   bytes(range(44)))),
        }
        for kind, (mode, r) in kinds.items():
            with open(f'{out}/gss/{kind}-{name}', 'wb') as f:
                f.write(bytes([mode, seq]) + r)
    # context creation: handle, major, minor, window, token
    for i, (major, window) in enumerate(((0, 128), (1, 0), (0x10000, 64))):
        rec = struct.pack('>III', 0x1000 + i, 1, 0) + struct.pack('>I', 6) + xdr_opaque(mic)
        rec += struct.pack('>I', 0) + xdr_opaque(bytes(range(16))) + struct.pack('>III', major, 0,
                                                                               window)
        rec += xdr_opaque(bytes(range(100)))
        with open(f'{out}/gss/init-{i}', 'wb') as f:
            f.write(bytes([0, 0]) + rec)
    # denied: RPCSEC_GSS_CREDPROBLEM and CTXPROBLEM (AUTH_ERROR 13, 14)
    for stat in (13, 14):
        with open(f'{out}/gss/denied-{stat}', 'wb') as f:
            f.write(bytes([2, seq]) + struct.pack('>IIIII', 0x2000 + stat, 1, 1, 1, stat))


def write_nfs42(out):
    """fuzz_nfs42.c's inputs: [sel, odd] + READ_PLUS's count (u32) and offset
    (u64) + COMPOUND4res. Each reply as the engine's requests get it: SEQUENCE,
    PUTFH (COPY and CLONE: PUTFH, SAVEFH, PUTFH), the operation; the refusals
    (NOTSUPP, OP_ILLEGAL, NOXATTR) and a few with the callbacks' stop (sel)."""
    os.makedirs(f'{out}/nfs42', exist_ok=True)
    w = lambda *v: struct.pack('>' + 'I' * len(v), *v)
    q = lambda v: struct.pack('>Q', v)
    sid = w(0, 0x01020304, 0x05060708, 0x090a0b0c)
    seq = w(53, 0) + bytes(range(16)) + w(7, 0, 63, 63, 0)
    putfh = w(22, 0)
    two = (putfh, w(32, 0), putfh)

    def data(off, b):
        return w(0) + q(off) + xdr_opaque(b)

    def hole(off, n):
        return w(1) + q(off) + q(n)

    def cinfo():
        return w(1) + q(41) + q(42)

    def reply(status, *results):
        return w(status) + xdr_opaque(b'') + w(len(results)) + b''.join(results)

    blk = bytes((i * 7 + 1) & 0xff for i in range(512))
    seeds = {
        'read_plus-mixed': (0, 4096, 8192, reply(0, seq, putfh, w(68, 0, 1, 4) +
                            data(8192, blk) + hole(8704, 1024) + data(9728, blk[:100]) +
                            hole(9828, 2460))),
        'read_plus-data': (0, 512, 0, reply(0, seq, putfh, w(68, 0, 0, 1) + data(0, blk))),
        'read_plus-hole-wide': (0, 4096, 65536, reply(0, seq, putfh, w(68, 0, 0, 1) +
                                hole(0, 1 << 30))),
        'read_plus-eof-empty': (0, 4096, 1 << 20, reply(0, seq, putfh, w(68, 0, 1, 0))),
        'read_plus-stop-2': (2, 4096, 8192, reply(0, seq, putfh, w(68, 0, 0, 3) +
                             data(8192, blk[:10]) + hole(8202, 10) + data(8212, blk[:3]))),
        'read_plus-overlap': (0, 4096, 0, reply(0, seq, putfh, w(68, 0, 0, 2) +
                              data(0, blk[:64]) + data(32, blk[:64]))),
        'read_plus-hole-wraps': (0, 4096, 8192, reply(0, seq, putfh, w(68, 0, 0, 1) +
                                 hole(8192, (1 << 64) - 1))),
        'read_plus-ganesha43': (0, 4096, 65536, reply(0, seq, putfh, w(68, 0, 0, 1) +
                                data(0, b''))),
        'read_plus-from-before': (0, 142, 8050, reply(0, seq, putfh, w(68, 0, 0, 2) +
                                  data(8000, blk[:100]) + hole(8100, 92))),
        'read_plus-illegal': (0, 4096, 0, reply(10044, seq, putfh, w(10044, 10044))),
        'seek-data': (0, 0, 0, reply(0, seq, putfh, w(69, 0, 0) + q(123456))),
        'seek-eof-misread': (16, 0, 0, reply(0, seq, putfh, w(69, 0, 1) + q(0))),
        'seek-nxio': (0, 0, 0, reply(6, seq, putfh, w(69, 6))),
        'allocate': (0, 0, 0, reply(0, seq, putfh, w(59, 0))),
        'deallocate': (0, 0, 0, reply(0, seq, putfh, w(62, 0))),
        'io_advise': (0, 0, 0, reply(0, seq, putfh, w(63, 0, 2, 0x12, 0))),
        'copy': (0, 0, 0, reply(0, seq, *two, w(60, 0, 0) + q(1 << 20) + w(2) + bytes(8) +
                 w(1, 1))),
        'copy-async': (0, 0, 0, reply(0, seq, *two, w(60, 0, 1) + sid + q(0) + w(0) +
                       bytes(8) + w(0, 0))),
        'copy-noreqs': (0, 0, 0, reply(10094, seq, *two, w(60, 10094, 1, 0))),
        'copy-notsupp': (0, 0, 0, reply(10004, seq, *two, w(60, 10004))),
        'clone': (0, 0, 0, reply(0, seq, *two, w(71, 0))),
        'clone-illegal': (0, 0, 0, reply(10044, seq, *two, w(10044, 10044))),
        'getxattr': (0, 0, 0, reply(0, seq, putfh, w(72, 0) + xdr_opaque(b'value-3'))),
        'getxattr-noxattr': (0, 0, 0, reply(10095, seq, putfh, w(72, 10095))),
        'setxattr': (0, 0, 0, reply(0, seq, putfh, w(73, 0) + cinfo())),
        'removexattr': (0, 0, 0, reply(0, seq, putfh, w(75, 0) + cinfo())),
        'listxattrs': (0, 0, 0, reply(0, seq, putfh, w(74, 0) + q(7) + w(3) + xdr_opaque(b'a') +
                       xdr_opaque(b'nfsload.1') + xdr_opaque(b'') + w(1))),
        'listxattrs-stop-1': (1, 0, 0, reply(0, seq, putfh, w(74, 0) + q(0) + w(2) +
                              xdr_opaque(b'x') + xdr_opaque(b'yy') + w(0))),
        'all': (0, 1000, 0, reply(0, seq, putfh, w(68, 0, 1, 1) + hole(0, 1000),
                                  w(69, 0, 0) + q(4096), w(59, 0), w(62, 0),
                                  w(63, 0, 1, 1), w(72, 0) + xdr_opaque(b'v'),
                                  w(73, 0) + cinfo(), w(74, 0) + q(0) + w(0, 1),
                                  w(75, 0) + cinfo(), w(32, 0), putfh,
                                  w(60, 0, 0) + q(0) + w(0) + bytes(8) + w(0, 0), w(71, 0))),
    }
    for name, (sel, count, off, rep) in seeds.items():
        with open(f'{out}/nfs42/{name}', 'wb') as f:
            f.write(bytes([sel, 1]) + struct.pack('>IQ', count, off) + rep)


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--nfs42':
        write_nfs42(sys.argv[2])
    else:
        main()
