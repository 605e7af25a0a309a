#!/usr/bin/env python3
"""v41-state.pcap: an NFSv4.1 client's state operations, made by hand (tests/replay_state.sh).

    tests/data/mkstate.py tests/data/v41-state.pcap

One TCP connection (10.0.0.1:900 -> 10.0.0.2:2049), every call a COMPOUND of minor version 1
(SEQUENCE first) with its reply, 1 ms apart, as RFC 8881's XDR has them (tshark decodes
every one whole):

  OPEN a (share BOTH, deny NONE), OPEN b (READ, deny NONE) and OPEN b again by the same
  open-owner (BOTH, deny WRITE: an upgrade, the same stateid), each with GETFH;
  on a: LOCK (a new lock-owner from a's open, WRITE 0+4096), LOCKT by another lock-owner
  (READ 0+100, denied: NFS4ERR_DENIED), LOCKU; on b: OPEN_DOWNGRADE to READ, deny NONE
  (modes b was opened with before, as RFC 7530 16.19.4 wants and nfs-ganesha checks);
  on a: LOCK of the existing lock-owner (WRITE 8192+4096), LOCKU; CLOSE a, CLOSE b;
  OPEN c, LOCK (a new lock-owner, READ to the end of the file), LOCKU, CLOSE c;
  then a CLOSE and a LOCK of an open this capture never shows (begun before it).

As the trace has them: OPEN 4, CLOSE 4, LOCK 4, LOCKU 3, LOCKT 1, OPEN_DOWNGRADE 1; the
CLOSE and LOCK of the open never shown are what a replay leaves out (2).
"""
import struct
import sys

w = lambda *v: b''.join(struct.pack('>I', x & 0xffffffff) for x in v)
u64 = lambda v: w(v >> 32, v)
opaque = lambda b: w(len(b)) + b + bytes(-len(b) % 4)
CLIENTID = 0x1122334455667788


def sid(seq, tag):
    """A stateid4: seqid, other (12 bytes from tag)."""
    return w(seq) + (tag * 12)[:12]


def fh(n):
    return opaque(bytes([n]) + b'\x02\x03\x04\x05\x06\x07\x08')


SEQ = w(53) + b'\x00' * 16 + w(1, 0, 63, 0)          # sessionid, seqid, slot, highest, cache
SEQ_RES = w(53, 0) + b'\x00' * 16 + w(1, 0, 63, 63, 0)
PUTROOT, PUTROOT_RES = w(24), w(24, 0)
put = lambda n: w(22) + fh(n)
PUT_RES = w(22, 0)
NONE_DENY, WRITE_DENY = 0, 2


def open_(name, access, deny, owner):
    return (w(18, 0, access, deny) + u64(CLIENTID) + opaque(owner) + w(0) +   # NOCREATE
            w(0) + opaque(name))                                               # CLAIM_NULL


def open_res(s):
    return w(18, 0) + s + w(1) + u64(1) + u64(2) + w(4, 0, 0)  # cinfo, rflags, attrset, NONE


def lock(ltype, off, length, new=None, exist=None):
    a = w(12, ltype, 0) + u64(off) + u64(length)
    if new:
        open_sid, owner = new
        return a + w(1, 0) + open_sid + w(0) + u64(CLIENTID) + opaque(owner)
    return a + w(0) + exist + w(0)


def main(path):
    oa, ob, oc = sid(1, b'Oa'), sid(1, b'Ob'), sid(1, b'Oc')
    ob2 = sid(2, b'Ob')
    la, lc = b'La', b'Lc'
    calls = [
        (PUTROOT + open_(b'a', 3, NONE_DENY, b'open-a') + w(10),
         PUTROOT_RES + open_res(oa) + w(10, 0) + fh(1), 0),
        (PUTROOT + open_(b'b', 1, NONE_DENY, b'open-b') + w(10),
         PUTROOT_RES + open_res(ob) + w(10, 0) + fh(2), 0),
        (PUTROOT + open_(b'b', 3, WRITE_DENY, b'open-b') + w(10),
         PUTROOT_RES + open_res(ob2) + w(10, 0) + fh(2), 0),
        (put(1) + lock(2, 0, 4096, new=(oa, b'lock-a')), PUT_RES + w(12, 0) + sid(1, la), 0),
        (put(1) + w(13, 1) + u64(0) + u64(100) + u64(CLIENTID) + opaque(b'lock-x'),
         PUT_RES + w(13, 10010) + u64(0) + u64(4096) + w(2) + u64(CLIENTID) + opaque(b'lock-a'),
         10010),
        (put(1) + w(14, 2, 0) + sid(1, la) + u64(0) + u64(4096),
         PUT_RES + w(14, 0) + sid(2, la), 0),
        (put(2) + w(21) + ob2 + w(0, 1, 0), PUT_RES + w(21, 0) + sid(3, b'Ob'), 0),
        (put(1) + lock(2, 8192, 4096, exist=sid(2, la)), PUT_RES + w(12, 0) + sid(3, la), 0),
        (put(1) + w(14, 2, 0) + sid(3, la) + u64(8192) + u64(4096),
         PUT_RES + w(14, 0) + sid(4, la), 0),
        (put(1) + w(4, 0) + oa, PUT_RES + w(4, 0) + sid(0xffffffff, b'\x00'), 0),
        (put(2) + w(4, 0) + sid(3, b'Ob'), PUT_RES + w(4, 0) + sid(0xffffffff, b'\x00'), 0),
        (PUTROOT + open_(b'c', 1, NONE_DENY, b'open-c') + w(10),
         PUTROOT_RES + open_res(oc) + w(10, 0) + fh(3), 0),
        (put(3) + lock(1, 0, 2**64 - 1, new=(oc, b'lock-c')), PUT_RES + w(12, 0) + sid(1, lc), 0),
        (put(3) + w(14, 1, 0) + sid(1, lc) + u64(0) + u64(2**64 - 1),
         PUT_RES + w(14, 0) + sid(2, lc), 0),
        (put(3) + w(4, 0) + oc, PUT_RES + w(4, 0) + sid(0xffffffff, b'\x00'), 0),
        (put(9) + w(4, 0) + sid(5, b'Oz'), PUT_RES + w(4, 0) + sid(0xffffffff, b'\x00'), 0),
        (put(9) + lock(2, 0, 10, exist=sid(5, b'Lz')), PUT_RES + w(12, 0) + sid(6, b'Lz'), 0),
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
        frame = bytes(12) + b'\x08\x00' + ip + tcp
        pkts.append(struct.pack('<IIII', us // 1000000, us % 1000000, len(frame), len(frame)) +
                    frame)
        us += 100

    pkt(True, cseq - 1, 0x02)
    pkt(False, sseq - 1, 0x12)
    for xid, (args, res, status) in enumerate(calls, 100):
        nops = 3  # SEQUENCE, PUT*FH, the op (OPEN: and GETFH)
        if args.startswith(PUTROOT):
            nops = 4
        call = w(xid, 0, 2, 100003, 4, 1, 0, 0, 0, 0) + w(0, 1, nops) + SEQ + args
        nres = nops if status == 0 else 3
        reply = w(xid, 1, 0, 0, 0, 0) + w(status, 0, nres) + SEQ_RES + res
        for to_srv, rec in ((True, call), (False, reply)):
            rec = w(0x80000000 | len(rec)) + rec
            pkt(to_srv, cseq if to_srv else sseq, 0x18, rec)
            if to_srv:
                cseq += len(rec)
            else:
                sseq += len(rec)
        us += 800  # the calls 1 ms apart
    image = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1) + b''.join(pkts)
    with open(path, 'wb') as f:
        f.write(image)


if __name__ == '__main__':
    main(sys.argv[1] if len(sys.argv) > 1 else 'v41-state.pcap')
