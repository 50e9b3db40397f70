#!/usr/bin/python3
"""nlprobe: independent netlink reader/writer for the nkctl test suite.

Standard library only (raw AF_NETLINK sockets + struct).  Prints one compact
JSON document on stdout; on error prints a message on stderr and exits 1.

Usage:
  nlprobe.py [-n NETNS] links
  nlprobe.py [-n NETNS] link NAME
  nlprobe.py [-n NETNS] netkit-add NAME [peer PEERNAME] [single] [mode l2|l3]
        [policy forward|blackhole] [peer-policy forward|blackhole]
        [scrub none|default] [peer-scrub none|default] [headroom N]
        [tailroom N] [rxqueues N] [txqueues N] [peer-netns NS]
  nlprobe.py [-n NETNS] del NAME
  nlprobe.py [-n NETNS] link-netns IFNAME NETNS NEW_IFINDEX
  nlprobe.py [-n NETNS] queues [IFINDEX]
  nlprobe.py [-n NETNS] napis
  nlprobe.py [-n NETNS] family NAME
  nlprobe.py [-n NETNS] queue-create IFINDEX LEASE_IFINDEX LEASE_QUEUE [NETNS_ID]
  nlprobe.py [-n NETNS] rings IFINDEX
  nlprobe.py [-n NETNS] rings-set IFINDEX [tcp-data-split on|off|auto] [hds-thresh N]
  nlprobe.py [-n NETNS] channels IFINDEX
  nlprobe.py [-n NETNS] rss IFINDEX
  nlprobe.py [-n NETNS] rss-contexts IFINDEX
  nlprobe.py [-n NETNS] features IFINDEX NAME
  nlprobe.py [-n NETNS] qstats IFINDEX [queue|device]
  nlprobe.py [-n NETNS] ntuple IFNAME
  nlprobe.py [-n NETNS] ntuple-add IFNAME FLOW-TYPE [src-ip A] [dst-ip A]
        [src-port N] [dst-port N] [proto N] action QUEUE|drop [loc N|any|first|last]
  nlprobe.py [-n NETNS] ntuple-del IFNAME LOC
  nlprobe.py [-n NETNS] serve
        (reads one command a line, e.g. "rings 3" or "-n NS2 rss 3", and
        answers each with one line: its JSON, or {"error": MESSAGE})

NETNS is a name under /run/netns or a path (e.g. /proc/PID/ns/net).
"""

import ctypes
import errno
import fcntl
import json
import os
import socket
import struct
import sys

# ---------------------------------------------------------------- constants
NETLINK_ROUTE = 0
NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
NETLINK_GET_STRICT_CHK = 12

NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_ROOT = 0x100
NLM_F_MATCH = 0x200
NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
# flags on NLMSG_ERROR / NLMSG_DONE
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200

NLMSG_NOOP = 1
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLMSG_OVERRUN = 4

NLMSGERR_ATTR_MSG = 1
NLMSGERR_ATTR_OFFS = 2
NLMSGERR_ATTR_MISS_TYPE = 5
NLMSGERR_ATTR_MISS_NEST = 6

NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
NLA_TYPE_MASK = 0x3FFF

CLONE_NEWNET = 0x40000000

# rtnetlink
RTM_NEWLINK = 16
RTM_DELLINK = 17
RTM_GETLINK = 18

IFLA_ADDRESS = 1
IFLA_IFNAME = 3
IFLA_MTU = 4
IFLA_LINK = 5
IFLA_OPERSTATE = 16
IFLA_LINKINFO = 18
IFLA_NET_NS_FD = 28
IFLA_NUM_TX_QUEUES = 31
IFLA_NUM_RX_QUEUES = 32
IFLA_LINK_NETNSID = 37
IFLA_NEW_IFINDEX = 49

IFLA_INFO_KIND = 1
IFLA_INFO_DATA = 2

IFLA_NETKIT_PEER_INFO = 1
IFLA_NETKIT_PRIMARY = 2
IFLA_NETKIT_POLICY = 3
IFLA_NETKIT_PEER_POLICY = 4
IFLA_NETKIT_MODE = 5
IFLA_NETKIT_SCRUB = 6
IFLA_NETKIT_PEER_SCRUB = 7
IFLA_NETKIT_HEADROOM = 8
IFLA_NETKIT_TAILROOM = 9
IFLA_NETKIT_PAIRING = 10

NETKIT_POLICY = {"forward": 0, "blackhole": 2}
NETKIT_MODE = {"l2": 0, "l3": 1}
NETKIT_SCRUB = {"none": 0, "default": 1}
NETKIT_PAIRING = {"pair": 0, "single": 1}

IFINFOMSG = struct.Struct("=BxHiII")  # family, pad, type, index, flags, change

# generic netlink
GENL_ID_CTRL = 16
GENLMSGHDR = struct.Struct("=BBH")
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_VERSION = 3
CTRL_ATTR_HDRSIZE = 4
CTRL_ATTR_MAXATTR = 5
CTRL_ATTR_OPS = 6
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_OP_ID = 1
CTRL_ATTR_OP_FLAGS = 2
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2

# netdev family
NETDEV_CMD_QUEUE_GET = 10
NETDEV_CMD_NAPI_GET = 11
NETDEV_CMD_QUEUE_CREATE = 16

NETDEV_A_QUEUE_ID = 1
NETDEV_A_QUEUE_IFINDEX = 2
NETDEV_A_QUEUE_TYPE = 3
NETDEV_A_QUEUE_NAPI_ID = 4
NETDEV_A_QUEUE_DMABUF = 5
NETDEV_A_QUEUE_IO_URING = 6
NETDEV_A_QUEUE_XSK = 7
NETDEV_A_QUEUE_LEASE = 8

NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN = 1

NETDEV_A_LEASE_IFINDEX = 1
NETDEV_A_LEASE_QUEUE = 2
NETDEV_A_LEASE_NETNS_ID = 3

NETDEV_A_NAPI_IFINDEX = 1
NETDEV_A_NAPI_ID = 2
NETDEV_A_NAPI_IRQ = 3
NETDEV_A_NAPI_PID = 4
NETDEV_A_NAPI_DEFER_HARD_IRQS = 5
NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT = 6
NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT = 7
NETDEV_A_NAPI_THREADED = 8

QUEUE_TYPES = {0: "rx", 1: "tx"}


class Fail(Exception):
    """Error reported on stderr, exit 1."""


class NetlinkError(Fail):
    def __init__(self, err, msg=None, offs=None, miss_type=None, miss_nest=None):
        self.err = err
        self.extack = msg
        self.offs = offs
        self.miss_type = miss_type
        self.miss_nest = miss_nest
        Fail.__init__(self, self.describe())

    def describe(self):
        if self.err == errno.EOPNOTSUPP:
            name = "EOPNOTSUPP"  # errno.errorcode says ENOTSUP (same value)
        else:
            name = errno.errorcode.get(self.err, "E%d" % self.err)
        s = "netlink error: %s (%s)" % (name, os.strerror(self.err))
        if self.extack:
            s += ": " + self.extack
        extra = []
        if self.offs is not None:
            extra.append("bad attribute at offset %d" % self.offs)
        if self.miss_type is not None:
            extra.append("missing attribute type %d" % self.miss_type)
        if self.miss_nest is not None:
            extra.append("in nest at offset %d" % self.miss_nest)
        if extra:
            s += " [" + ", ".join(extra) + "]"
        return s


# ---------------------------------------------------------------- attributes
def _align4(n):
    return (n + 3) & ~3


def nla(atype, data):
    """Encode one attribute (data: bytes)."""
    hdr = struct.pack("=HH", 4 + len(data), atype)
    return hdr + data + b"\0" * (_align4(len(data)) - len(data))


def nla_u8(t, v):
    return nla(t, struct.pack("=B", v))


def nla_u16(t, v):
    return nla(t, struct.pack("=H", v))


def nla_u32(t, v):
    return nla(t, struct.pack("=I", v))


def nla_s32(t, v):
    return nla(t, struct.pack("=i", v))


def nla_str(t, s):
    return nla(t, s.encode() + b"\0")


def nla_nest(t, *attrs):
    return nla(t | NLA_F_NESTED, b"".join(attrs))


def parse_attrs(buf, off=0, end=None):
    """Yield (type, payload bytes); type masked with NLA_TYPE_MASK.
    Later duplicates are kept (list), so use attr_list for multi-attrs."""
    if end is None:
        end = len(buf)
    out = []
    while off + 4 <= end:
        alen, atype = struct.unpack_from("=HH", buf, off)
        if alen < 4 or off + alen > end:
            break
        out.append((atype & NLA_TYPE_MASK, bytes(buf[off + 4:off + alen])))
        off += _align4(alen)
    return out


def attr_map(buf):
    d = {}
    for t, v in parse_attrs(buf):
        d.setdefault(t, v)  # first occurrence wins
    return d


def get_uint(v):
    """Unsigned integer of any netlink width (u8/u16/u32/u64/uint)."""
    if len(v) == 1:
        return v[0]
    if len(v) == 2:
        return struct.unpack("=H", v)[0]
    if len(v) == 4:
        return struct.unpack("=I", v)[0]
    if len(v) == 8:
        return struct.unpack("=Q", v)[0]
    return int.from_bytes(v, sys.byteorder)


def get_s32(v):
    if len(v) == 4:
        return struct.unpack("=i", v)[0]
    return get_uint(v)


def get_str(v):
    return v.split(b"\0", 1)[0].decode(errors="replace")


def name_or_int(table, value):
    for k, v in table.items():
        if v == value:
            return k
    return value


# ---------------------------------------------------------------- socket
REPLY_TIMEOUT = 120


class Netlink:
    def __init__(self, proto):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        except OSError:
            pass
        for opt in (NETLINK_EXT_ACK, NETLINK_CAP_ACK, NETLINK_GET_STRICT_CHK):
            try:
                self.sock.setsockopt(SOL_NETLINK, opt, 1)
            except OSError:
                pass
        self.sock.bind((0, 0))
        # a reply that never comes must fail the test, not hang it
        self.sock.settimeout(REPLY_TIMEOUT)
        self.seq = 1000
        self.buf = bytearray(65536)

    def close(self):
        self.sock.close()

    def _recv(self):
        try:
            return self._recv_one()
        except socket.timeout:
            raise Fail("no reply from the kernel in %d s" % REPLY_TIMEOUT)

    def _recv_one(self):
        while True:
            n = self.sock.recv_into(self.buf, len(self.buf),
                                    socket.MSG_PEEK | socket.MSG_TRUNC)
            if n > len(self.buf):
                self.buf = bytearray(_align4(n) + 4096)
                continue
            n = self.sock.recv_into(self.buf, len(self.buf))
            return bytes(self.buf[:n])

    def _error_from(self, payload, flags, is_done):
        """Build NetlinkError from an NLMSG_ERROR / NLMSG_DONE payload."""
        if len(payload) < 4:
            return None
        (err,) = struct.unpack_from("=i", payload, 0)
        if err == 0:
            return None
        tlv_off = None
        if flags & NLM_F_ACK_TLVS:
            if is_done:
                tlv_off = 4
            elif len(payload) >= 20:
                if flags & NLM_F_CAPPED:
                    tlv_off = 20
                else:
                    (olen,) = struct.unpack_from("=I", payload, 4)
                    tlv_off = 4 + _align4(olen)
        msg = offs = miss_type = miss_nest = None
        if tlv_off is not None and tlv_off < len(payload):
            for t, v in parse_attrs(payload, tlv_off):
                if t == NLMSGERR_ATTR_MSG:
                    msg = get_str(v)
                elif t == NLMSGERR_ATTR_OFFS:
                    offs = get_uint(v)
                elif t == NLMSGERR_ATTR_MISS_TYPE:
                    miss_type = get_uint(v)
                elif t == NLMSGERR_ATTR_MISS_NEST:
                    miss_nest = get_uint(v)
        return NetlinkError(-err, msg, offs, miss_type, miss_nest)

    def request(self, msgtype, flags, payload, dump=False):
        """Send one request; return list of (type, flags, payload) replies.
        dump=True adds NLM_F_DUMP and reads until NLMSG_DONE (multi-part);
        otherwise NLM_F_ACK is expected and replies are read until the ack."""
        self.seq += 1
        seq = self.seq
        flags |= NLM_F_REQUEST
        if dump:
            flags |= NLM_F_DUMP
        hdr = struct.pack("=IHHII", 16 + len(payload), msgtype, flags, seq, 0)
        self.sock.send(hdr + payload)
        replies = []
        want_ack = bool(flags & NLM_F_ACK)
        while True:
            data = self._recv()
            off = 0
            while off + 16 <= len(data):
                mlen, mtype, mflags, mseq, _pid = struct.unpack_from("=IHHII", data, off)
                if mlen < 16 or off + mlen > len(data):
                    raise Fail("malformed netlink message")
                body = data[off + 16:off + mlen]
                off += _align4(mlen)
                if mseq != seq:
                    continue  # stale or unrelated
                if mtype == NLMSG_ERROR:
                    e = self._error_from(body, mflags, False)
                    if e is not None:
                        raise e
                    return replies  # ack
                if mtype == NLMSG_DONE:
                    e = self._error_from(body, mflags, True)
                    if e is not None:
                        raise e
                    return replies
                if mtype in (NLMSG_NOOP, NLMSG_OVERRUN):
                    if mtype == NLMSG_OVERRUN:
                        raise Fail("netlink overrun")
                    continue
                replies.append((mtype, mflags, body))
                if not dump and not want_ack and not (mflags & NLM_F_MULTI):
                    return replies
            if not dump and not want_ack and replies:
                return replies


# ---------------------------------------------------------------- netns
def ns_path(ns):
    if "/" in ns:
        return ns
    return os.path.join("/run/netns", ns)


def open_ns(ns):
    path = ns_path(ns)
    try:
        return os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as e:
        raise Fail("cannot open netns %s: %s" % (path, e.strerror))


def enter_ns(ns):
    fd = open_ns(ns)
    try:
        if hasattr(os, "setns"):
            try:
                os.setns(fd, CLONE_NEWNET)
            except OSError as e:
                raise Fail("setns %s: %s" % (ns, e.strerror))
        else:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.setns(fd, CLONE_NEWNET) != 0:
                e = ctypes.get_errno()
                raise Fail("setns %s: %s" % (ns, os.strerror(e)))
    finally:
        os.close(fd)


# ---------------------------------------------------------------- rtnetlink
def fmt_addr(v):
    return ":".join("%02x" % b for b in v)


def decode_netkit(data):
    a = attr_map(data)
    nk = {}
    if IFLA_NETKIT_PRIMARY in a:
        nk["primary"] = bool(get_uint(a[IFLA_NETKIT_PRIMARY]))
    if IFLA_NETKIT_POLICY in a:
        nk["policy"] = name_or_int(NETKIT_POLICY, get_uint(a[IFLA_NETKIT_POLICY]))
    if IFLA_NETKIT_PEER_POLICY in a:
        nk["peer-policy"] = name_or_int(NETKIT_POLICY, get_uint(a[IFLA_NETKIT_PEER_POLICY]))
    if IFLA_NETKIT_MODE in a:
        nk["mode"] = name_or_int(NETKIT_MODE, get_uint(a[IFLA_NETKIT_MODE]))
    if IFLA_NETKIT_SCRUB in a:
        nk["scrub"] = name_or_int(NETKIT_SCRUB, get_uint(a[IFLA_NETKIT_SCRUB]))
    if IFLA_NETKIT_PEER_SCRUB in a:
        nk["peer-scrub"] = name_or_int(NETKIT_SCRUB, get_uint(a[IFLA_NETKIT_PEER_SCRUB]))
    if IFLA_NETKIT_HEADROOM in a:
        nk["headroom"] = get_uint(a[IFLA_NETKIT_HEADROOM])
    if IFLA_NETKIT_TAILROOM in a:
        nk["tailroom"] = get_uint(a[IFLA_NETKIT_TAILROOM])
    if IFLA_NETKIT_PAIRING in a:
        nk["pairing"] = name_or_int(NETKIT_PAIRING, get_uint(a[IFLA_NETKIT_PAIRING]))
    return nk


def decode_link(body):
    if len(body) < IFINFOMSG.size:
        raise Fail("short ifinfomsg")
    _fam, _type, index, flags, _change = IFINFOMSG.unpack_from(body, 0)
    a = attr_map(body[IFINFOMSG.size:])
    d = {"ifindex": index}
    if IFLA_IFNAME in a:
        d["ifname"] = get_str(a[IFLA_IFNAME])
    if IFLA_OPERSTATE in a:
        d["operstate"] = get_uint(a[IFLA_OPERSTATE])
    d["flags"] = flags
    if IFLA_MTU in a:
        d["mtu"] = get_uint(a[IFLA_MTU])
    if IFLA_NUM_RX_QUEUES in a:
        d["num-rx-queues"] = get_uint(a[IFLA_NUM_RX_QUEUES])
    if IFLA_NUM_TX_QUEUES in a:
        d["num-tx-queues"] = get_uint(a[IFLA_NUM_TX_QUEUES])
    if IFLA_LINK in a:
        d["link"] = get_uint(a[IFLA_LINK])
    if IFLA_LINK_NETNSID in a:
        d["link-netnsid"] = get_s32(a[IFLA_LINK_NETNSID])
    if IFLA_ADDRESS in a:
        d["address"] = fmt_addr(a[IFLA_ADDRESS])
    kind = None
    info_data = None
    if IFLA_LINKINFO in a:
        li = attr_map(a[IFLA_LINKINFO])
        if IFLA_INFO_KIND in li:
            kind = get_str(li[IFLA_INFO_KIND])
        info_data = li.get(IFLA_INFO_DATA)
    d["kind"] = kind
    if kind == "netkit":
        d["netkit"] = decode_netkit(info_data or b"")
    return d


def ifinfomsg(index=0, flags=0, change=0):
    return IFINFOMSG.pack(socket.AF_UNSPEC, 0, index, flags, change)


def cmd_links():
    nl = Netlink(NETLINK_ROUTE)
    replies = nl.request(RTM_GETLINK, 0, ifinfomsg(), dump=True)
    out = [decode_link(b) for t, _f, b in replies if t == RTM_NEWLINK]
    nl.close()
    return out


def cmd_link(name):
    for l in cmd_links():
        if l.get("ifname") == name:
            return l
    raise Fail("no such link: %s" % name)


def parse_int(s, what):
    try:
        return int(s, 0)
    except ValueError:
        raise Fail("bad %s: %r" % (what, s))


def pick(table, s, what):
    if s in table:
        return table[s]
    raise Fail("bad %s: %r (expected %s)" % (what, s, "|".join(table)))


def cmd_netkit_add(args):
    if not args:
        raise Fail("netkit-add: NAME required")
    name = args[0]
    o = {}
    i = 1
    valued = ("peer", "mode", "policy", "peer-policy", "scrub", "peer-scrub",
              "headroom", "tailroom", "rxqueues", "txqueues", "peer-netns")
    while i < len(args):
        k = args[i]
        if k == "single":
            o["single"] = True
            i += 1
            continue
        if k not in valued:
            raise Fail("netkit-add: unknown keyword %r" % k)
        if i + 1 >= len(args):
            raise Fail("netkit-add: %s needs a value" % k)
        o[k] = args[i + 1]
        i += 2

    data = []
    peer_attrs = []
    nsfd = None
    if "peer" in o:
        peer_attrs.append(nla_str(IFLA_IFNAME, o["peer"]))
    if "peer-netns" in o:
        nsfd = open_ns(o["peer-netns"])
        peer_attrs.append(nla_u32(IFLA_NET_NS_FD, nsfd))
    top = [nla_str(IFLA_IFNAME, name)]
    if "rxqueues" in o:
        n = parse_int(o["rxqueues"], "rxqueues")
        top.append(nla_u32(IFLA_NUM_RX_QUEUES, n))
        peer_attrs.append(nla_u32(IFLA_NUM_RX_QUEUES, n))
    if "txqueues" in o:
        n = parse_int(o["txqueues"], "txqueues")
        top.append(nla_u32(IFLA_NUM_TX_QUEUES, n))
        peer_attrs.append(nla_u32(IFLA_NUM_TX_QUEUES, n))
    if o.get("single"):
        data.append(nla_u32(IFLA_NETKIT_PAIRING, NETKIT_PAIRING["single"]))
        # single: no peer info at all
    else:
        data.append(nla_nest(IFLA_NETKIT_PEER_INFO, ifinfomsg(), *peer_attrs))
    if "mode" in o:
        data.append(nla_u32(IFLA_NETKIT_MODE, pick(NETKIT_MODE, o["mode"], "mode")))
    if "policy" in o:
        data.append(nla_u32(IFLA_NETKIT_POLICY, pick(NETKIT_POLICY, o["policy"], "policy")))
    if "peer-policy" in o:
        data.append(nla_u32(IFLA_NETKIT_PEER_POLICY,
                            pick(NETKIT_POLICY, o["peer-policy"], "peer-policy")))
    if "scrub" in o:
        data.append(nla_u32(IFLA_NETKIT_SCRUB, pick(NETKIT_SCRUB, o["scrub"], "scrub")))
    if "peer-scrub" in o:
        data.append(nla_u32(IFLA_NETKIT_PEER_SCRUB,
                            pick(NETKIT_SCRUB, o["peer-scrub"], "peer-scrub")))
    if "headroom" in o:
        data.append(nla_u16(IFLA_NETKIT_HEADROOM, parse_int(o["headroom"], "headroom")))
    if "tailroom" in o:
        data.append(nla_u16(IFLA_NETKIT_TAILROOM, parse_int(o["tailroom"], "tailroom")))

    linkinfo = nla_nest(IFLA_LINKINFO,
                        nla_str(IFLA_INFO_KIND, "netkit"),
                        nla_nest(IFLA_INFO_DATA, *data))
    payload = ifinfomsg() + b"".join(top) + linkinfo
    nl = Netlink(NETLINK_ROUTE)
    try:
        nl.request(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK, payload)
    finally:
        nl.close()
        if nsfd is not None:
            os.close(nsfd)
    return {"ok": True}


def cmd_del(name):
    nl = Netlink(NETLINK_ROUTE)
    try:
        nl.request(RTM_DELLINK, NLM_F_ACK, ifinfomsg() + nla_str(IFLA_IFNAME, name))
    finally:
        nl.close()
    return {"ok": True}


def cmd_link_netns(args):
    """Move IFNAME to NETNS, with NEW_IFINDEX there (what ip cannot ask)."""
    if len(args) != 3:
        raise Fail("usage: link-netns IFNAME NETNS NEW_IFINDEX")
    nsfd = open_ns(args[1])
    nl = Netlink(NETLINK_ROUTE)
    try:
        nl.request(RTM_NEWLINK, NLM_F_ACK, ifinfomsg() + nla_str(IFLA_IFNAME, args[0]) +
                   nla_u32(IFLA_NET_NS_FD, nsfd) +
                   nla_s32(IFLA_NEW_IFINDEX, parse_int(args[2], "NEW_IFINDEX")))
    finally:
        nl.close()
        os.close(nsfd)
    return {"ok": True}


# ---------------------------------------------------------------- genetlink
def genl_family(nl, name):
    payload = GENLMSGHDR.pack(CTRL_CMD_GETFAMILY, 1, 0) + nla_str(CTRL_ATTR_FAMILY_NAME, name)
    try:
        replies = nl.request(GENL_ID_CTRL, NLM_F_ACK, payload)
    except NetlinkError as e:
        if e.err == errno.ENOENT:
            raise Fail("no such family: %s" % name)
        raise
    for _t, _f, body in replies:
        a = attr_map(body[GENLMSGHDR.size:])
        if CTRL_ATTR_FAMILY_ID not in a:
            continue
        fam = {"id": get_uint(a[CTRL_ATTR_FAMILY_ID])}
        if CTRL_ATTR_VERSION in a:
            fam["version"] = get_uint(a[CTRL_ATTR_VERSION])
        if CTRL_ATTR_MAXATTR in a:
            fam["maxattr"] = get_uint(a[CTRL_ATTR_MAXATTR])
        ops = {}
        if CTRL_ATTR_OPS in a:
            for _i, op in parse_attrs(a[CTRL_ATTR_OPS]):
                oa = attr_map(op)
                if CTRL_ATTR_OP_ID in oa:
                    ops[str(get_uint(oa[CTRL_ATTR_OP_ID]))] = \
                        get_uint(oa[CTRL_ATTR_OP_FLAGS]) if CTRL_ATTR_OP_FLAGS in oa else 0
        fam["ops"] = ops
        groups = {}
        if CTRL_ATTR_MCAST_GROUPS in a:
            for _i, g in parse_attrs(a[CTRL_ATTR_MCAST_GROUPS]):
                ga = attr_map(g)
                if CTRL_ATTR_MCAST_GRP_NAME in ga:
                    groups[get_str(ga[CTRL_ATTR_MCAST_GRP_NAME])] = \
                        get_uint(ga.get(CTRL_ATTR_MCAST_GRP_ID, b"\0\0\0\0"))
        fam["mcast-groups"] = groups
        return fam
    raise Fail("no such family: %s" % name)


def cmd_family(name):
    nl = Netlink(NETLINK_GENERIC)
    try:
        return genl_family(nl, name)
    finally:
        nl.close()


def netdev_request(cmd, flags, attrs, dump=False):
    nl = Netlink(NETLINK_GENERIC)
    try:
        fam = genl_family(nl, "netdev")
        payload = GENLMSGHDR.pack(cmd, fam.get("version", 1), 0) + b"".join(attrs)
        replies = nl.request(fam["id"], flags, payload, dump=dump)
    finally:
        nl.close()
    return [attr_map(b[GENLMSGHDR.size:]) for t, _f, b in replies if t == fam["id"]]


def decode_queue(a):
    q = {}
    if NETDEV_A_QUEUE_ID in a:
        q["id"] = get_uint(a[NETDEV_A_QUEUE_ID])
    if NETDEV_A_QUEUE_IFINDEX in a:
        q["ifindex"] = get_uint(a[NETDEV_A_QUEUE_IFINDEX])
    if NETDEV_A_QUEUE_TYPE in a:
        q["type"] = QUEUE_TYPES.get(get_uint(a[NETDEV_A_QUEUE_TYPE]),
                                    get_uint(a[NETDEV_A_QUEUE_TYPE]))
    if NETDEV_A_QUEUE_NAPI_ID in a:
        q["napi-id"] = get_uint(a[NETDEV_A_QUEUE_NAPI_ID])
    if NETDEV_A_QUEUE_DMABUF in a:
        q["dmabuf"] = get_uint(a[NETDEV_A_QUEUE_DMABUF])
    if NETDEV_A_QUEUE_IO_URING in a:
        io = {}
        ia = attr_map(a[NETDEV_A_QUEUE_IO_URING])
        if NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN in ia:
            io["rx-buf-len"] = get_uint(ia[NETDEV_A_IO_URING_PROVIDER_INFO_RX_BUF_LEN])
        q["io-uring"] = io
    if NETDEV_A_QUEUE_XSK in a:
        q["xsk"] = {}
    if NETDEV_A_QUEUE_LEASE in a:
        la = attr_map(a[NETDEV_A_QUEUE_LEASE])
        lease = {}
        if NETDEV_A_LEASE_IFINDEX in la:
            lease["ifindex"] = get_uint(la[NETDEV_A_LEASE_IFINDEX])
        if NETDEV_A_LEASE_QUEUE in la:
            qa = attr_map(la[NETDEV_A_LEASE_QUEUE])
            lq = {}
            if NETDEV_A_QUEUE_ID in qa:
                lq["id"] = get_uint(qa[NETDEV_A_QUEUE_ID])
            if NETDEV_A_QUEUE_TYPE in qa:
                t = get_uint(qa[NETDEV_A_QUEUE_TYPE])
                lq["type"] = QUEUE_TYPES.get(t, t)
            lease["queue"] = lq
        if NETDEV_A_LEASE_NETNS_ID in la:
            lease["netns-id"] = get_s32(la[NETDEV_A_LEASE_NETNS_ID])
        q["lease"] = lease
    return q


def cmd_queues(ifindex=None):
    attrs = []
    if ifindex is not None:
        attrs.append(nla_u32(NETDEV_A_QUEUE_IFINDEX, ifindex))
    return [decode_queue(a) for a in netdev_request(NETDEV_CMD_QUEUE_GET, 0, attrs, dump=True)]


def cmd_napis():
    out = []
    keys = ((NETDEV_A_NAPI_ID, "id"), (NETDEV_A_NAPI_IFINDEX, "ifindex"),
            (NETDEV_A_NAPI_IRQ, "irq"), (NETDEV_A_NAPI_PID, "pid"),
            (NETDEV_A_NAPI_THREADED, "threaded"),
            (NETDEV_A_NAPI_DEFER_HARD_IRQS, "defer-hard-irqs"),
            (NETDEV_A_NAPI_GRO_FLUSH_TIMEOUT, "gro-flush-timeout"),
            (NETDEV_A_NAPI_IRQ_SUSPEND_TIMEOUT, "irq-suspend-timeout"))
    for a in netdev_request(NETDEV_CMD_NAPI_GET, 0, [], dump=True):
        n = {}
        for t, k in keys:
            if t in a:
                n[k] = get_uint(a[t])
        out.append(n)
    return out


def cmd_queue_create(args):
    if len(args) not in (3, 4):
        raise Fail("usage: queue-create IFINDEX LEASE_IFINDEX LEASE_QUEUE [NETNS_ID]")
    ifindex = parse_int(args[0], "IFINDEX")
    lifindex = parse_int(args[1], "LEASE_IFINDEX")
    lqueue = parse_int(args[2], "LEASE_QUEUE")
    lease = [nla_u32(NETDEV_A_LEASE_IFINDEX, lifindex),
             nla_nest(NETDEV_A_LEASE_QUEUE,
                      nla_u32(NETDEV_A_QUEUE_ID, lqueue),
                      nla_u32(NETDEV_A_QUEUE_TYPE, 0))]
    if len(args) == 4:
        lease.append(nla_s32(NETDEV_A_LEASE_NETNS_ID, parse_int(args[3], "NETNS_ID")))
    attrs = [nla_u32(NETDEV_A_QUEUE_IFINDEX, ifindex),
             nla_u32(NETDEV_A_QUEUE_TYPE, 0),
             nla_nest(NETDEV_A_QUEUE_LEASE, *lease)]
    replies = netdev_request(NETDEV_CMD_QUEUE_CREATE, NLM_F_ACK, attrs)
    for a in replies:
        if NETDEV_A_QUEUE_ID in a:
            return {"id": get_uint(a[NETDEV_A_QUEUE_ID])}
    raise Fail("queue-create: no queue id in reply")


# ---------------------------------------------------------------- ethtool rings
ETHTOOL_MSG_RINGS_GET = 15
ETHTOOL_MSG_RINGS_SET = 16
ETHTOOL_A_RINGS_HEADER = 1
ETHTOOL_A_HEADER_DEV_INDEX = 1
ETHTOOL_A_RINGS_TCP_DATA_SPLIT = 11
ETHTOOL_A_RINGS_HDS_THRESH = 17
TCP_DATA_SPLIT = {0: "unknown", 1: "off", 2: "on"}


def ethtool_request(cmd, flags, attrs, dump=False):
    nl = Netlink(NETLINK_GENERIC)
    try:
        fam = genl_family(nl, "ethtool")
        payload = GENLMSGHDR.pack(cmd, fam.get("version", 1), 0) + b"".join(attrs)
        replies = nl.request(fam["id"], flags, payload, dump=dump)
    finally:
        nl.close()
    return [attr_map(b[GENLMSGHDR.size:]) for t, _f, b in replies if t == fam["id"]]


def cmd_rings(args):
    """rings IFINDEX: tcp-data-split and hds-thresh as the kernel reports them."""
    if len(args) != 1:
        raise Fail("usage: rings IFINDEX")
    hdr = nla_nest(ETHTOOL_A_RINGS_HEADER, nla_u32(ETHTOOL_A_HEADER_DEV_INDEX, parse_int(args[0], "IFINDEX")))
    out = {}
    for a in ethtool_request(ETHTOOL_MSG_RINGS_GET, NLM_F_ACK, [hdr]):
        if ETHTOOL_A_RINGS_TCP_DATA_SPLIT in a:
            v = get_uint(a[ETHTOOL_A_RINGS_TCP_DATA_SPLIT])
            out["tcp-data-split"] = TCP_DATA_SPLIT.get(v, v)
        if ETHTOOL_A_RINGS_HDS_THRESH in a:
            out["hds-thresh"] = get_uint(a[ETHTOOL_A_RINGS_HDS_THRESH])
    return out


def cmd_rings_set(args):
    """rings-set IFINDEX [tcp-data-split on|off|auto] [hds-thresh N]"""
    if len(args) < 3 or len(args) % 2 != 1:
        raise Fail("usage: rings-set IFINDEX [tcp-data-split on|off|auto] [hds-thresh N]")
    attrs = [nla_nest(ETHTOOL_A_RINGS_HEADER, nla_u32(ETHTOOL_A_HEADER_DEV_INDEX, parse_int(args[0], "IFINDEX")))]
    for k, v in zip(args[1::2], args[2::2]):
        if k == "tcp-data-split":
            attrs.append(nla_u8(ETHTOOL_A_RINGS_TCP_DATA_SPLIT, pick({"auto": 0, "off": 1, "on": 2}, v, k)))
        elif k == "hds-thresh":
            attrs.append(nla_u32(ETHTOOL_A_RINGS_HDS_THRESH, parse_int(v, k)))
        else:
            raise Fail("rings-set: unknown %r" % k)
    ethtool_request(ETHTOOL_MSG_RINGS_SET, NLM_F_ACK, attrs)
    return {"ok": True}


ETHTOOL_MSG_CHANNELS_GET = 17
ETHTOOL_A_CHANNELS_HEADER = 1
CHANNELS_KEYS = ((2, "rx-max"), (3, "tx-max"), (4, "other-max"), (5, "combined-max"),
                 (6, "rx-count"), (7, "tx-count"), (8, "other-count"), (9, "combined-count"))
ETHTOOL_MSG_RSS_GET = 38
ETHTOOL_A_RSS_HEADER = 1
ETHTOOL_A_RSS_CONTEXT = 2
ETHTOOL_A_RSS_HFUNC = 3
ETHTOOL_A_RSS_INDIR = 4
ETHTOOL_A_RSS_HKEY = 5


def ethtool_hdr(atype, ifindex):
    return nla_nest(atype, nla_u32(ETHTOOL_A_HEADER_DEV_INDEX, parse_int(ifindex, "IFINDEX")))


def cmd_channels(args):
    """channels IFINDEX: ethtool CHANNELS_GET (what ethtool -l shows)."""
    if len(args) != 1:
        raise Fail("usage: channels IFINDEX")
    out = {}
    for a in ethtool_request(ETHTOOL_MSG_CHANNELS_GET, NLM_F_ACK, [ethtool_hdr(ETHTOOL_A_CHANNELS_HEADER, args[0])]):
        for t, k in CHANNELS_KEYS:
            if t in a:
                out[k] = get_uint(a[t])
    return out


def cmd_rss(args):
    """rss IFINDEX: ethtool RSS_GET of context 0: hash function, indirection table, key length."""
    if len(args) != 1:
        raise Fail("usage: rss IFINDEX")
    out = {}
    for a in ethtool_request(ETHTOOL_MSG_RSS_GET, NLM_F_ACK, [ethtool_hdr(ETHTOOL_A_RSS_HEADER, args[0])]):
        if ETHTOOL_A_RSS_CONTEXT in a:
            out["context"] = get_uint(a[ETHTOOL_A_RSS_CONTEXT])
        if ETHTOOL_A_RSS_HFUNC in a:
            out["hfunc"] = get_uint(a[ETHTOOL_A_RSS_HFUNC])
        if ETHTOOL_A_RSS_INDIR in a:
            v = a[ETHTOOL_A_RSS_INDIR]
            out["indir"] = list(struct.unpack("=%dI" % (len(v) // 4), v))
        if ETHTOOL_A_RSS_HKEY in a:
            out["hkey-len"] = len(a[ETHTOOL_A_RSS_HKEY])
    return out


def cmd_rss_contexts(args):
    """rss-contexts IFINDEX: the additional RSS contexts (rss-get dump), each with its table."""
    if len(args) != 1:
        raise Fail("usage: rss-contexts IFINDEX")
    out = []
    for a in ethtool_request(ETHTOOL_MSG_RSS_GET, 0, [ethtool_hdr(ETHTOOL_A_RSS_HEADER, args[0])], dump=True):
        ctx = get_uint(a[ETHTOOL_A_RSS_CONTEXT]) if ETHTOOL_A_RSS_CONTEXT in a else 0
        if not ctx:
            continue
        v = a.get(ETHTOOL_A_RSS_INDIR, b"")
        out.append({"context": ctx, "indir": list(struct.unpack("=%dI" % (len(v) // 4), v))})
    return out


ETHTOOL_MSG_FEATURES_GET = 11
FEATURES_SETS = ((2, "hw"), (3, "wanted"), (4, "active"))


def cmd_features(args):
    """features IFINDEX NAME: is feature NAME changeable (hw), wanted, active (verbose bitsets)."""
    if len(args) != 2:
        raise Fail("usage: features IFINDEX NAME")
    out = {}
    for a in ethtool_request(ETHTOOL_MSG_FEATURES_GET, NLM_F_ACK, [ethtool_hdr(1, args[0])]):
        for t, key in FEATURES_SETS:
            bs = attr_map(a.get(t, b""))
            found = False
            for bt, bit in parse_attrs(bs.get(3, b"")):
                b = attr_map(bit)
                if get_str(b.get(2, b"\0")) == args[1]:
                    found = 1 in bs or 3 in b
            out[key] = found
    return out


# netdev qstats-get (a dump; scope 0 = the device, 1 = per queue)
NETDEV_CMD_QSTATS_GET = 12
NETDEV_A_QSTATS_IFINDEX = 1
NETDEV_A_QSTATS_QUEUE_TYPE = 2
NETDEV_A_QSTATS_QUEUE_ID = 3
NETDEV_A_QSTATS_SCOPE = 4
QSTATS_KEYS = ((8, "rx-packets"), (9, "rx-bytes"), (10, "tx-packets"), (11, "tx-bytes"),
               (13, "rx-hw-drops"))


def cmd_qstats(args):
    """qstats IFINDEX [queue|device]: packet and byte counters per queue (default) or in all."""
    if len(args) not in (1, 2):
        raise Fail("usage: qstats IFINDEX [queue|device]")
    scope = pick({"device": 0, "queue": 1}, args[1] if len(args) == 2 else "queue", "scope")
    attrs = [nla_u32(NETDEV_A_QSTATS_IFINDEX, parse_int(args[0], "IFINDEX"))]
    if scope:
        attrs.append(nla_u32(NETDEV_A_QSTATS_SCOPE, scope))
    out = []
    for a in netdev_request(NETDEV_CMD_QSTATS_GET, 0, attrs, dump=True):
        q = {}
        if NETDEV_A_QSTATS_IFINDEX in a:
            q["ifindex"] = get_uint(a[NETDEV_A_QSTATS_IFINDEX])
        if NETDEV_A_QSTATS_QUEUE_TYPE in a:
            t = get_uint(a[NETDEV_A_QSTATS_QUEUE_TYPE])
            q["type"] = QUEUE_TYPES.get(t, t)
        if NETDEV_A_QSTATS_QUEUE_ID in a:
            q["id"] = get_uint(a[NETDEV_A_QSTATS_QUEUE_ID])
        for t, k in QSTATS_KEYS:
            if t in a:
                q[k] = get_uint(a[t])
        out.append(q)
    return out if scope else (out[0] if out else {})


# ---------------------------------------------------------------- ethtool n-tuple (ioctl)
# struct ethtool_rxnfc (192 bytes on x86_64): cmd u32 @0, flow_type u32 @4,
# data u64 @8, fs @16 (struct ethtool_rx_flow_spec, 168 bytes: flow_type @0,
# h_u @4 (52), h_ext @56 (20), m_u @76 (52), m_ext @128 (20), ring_cookie
# u64 @152, location u32 @160), rule_cnt u32 @184, rule_locs[] u32 @188.
SIOCETHTOOL = 0x8946
ETHTOOL_GRXCLSRLCNT = 0x2E
ETHTOOL_GRXCLSRULE = 0x2F
ETHTOOL_GRXCLSRLALL = 0x30
ETHTOOL_SRXCLSRLDEL = 0x31
ETHTOOL_SRXCLSRLINS = 0x32
RXNFC_SIZE = 192
FS_OFF = 16
RX_CLS_FLOW_DISC = 0xFFFFFFFFFFFFFFFF
RX_CLS_LOC_SPECIAL = 0x80000000
RX_CLS_LOC = {"any": 0xFFFFFFFF, "first": 0xFFFFFFFE, "last": 0xFFFFFFFD}
FLOW_TYPES = {"tcp4": 0x01, "udp4": 0x02, "tcp6": 0x05, "udp6": 0x06, "ip4": 0x0D, "ip6": 0x0E}
FLOW_NAMES = {v: k for k, v in FLOW_TYPES.items()}
FLOW_RSS = 0x20000000


def ethtool_ioctl(ifname, buf):
    """SIOCETHTOOL with ifr_data pointing at the ctypes buffer BUF."""
    ifr = struct.pack("16sP", ifname.encode(), ctypes.addressof(buf)) + b"\0" * 16
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifr)
    except OSError as e:
        raise Fail("SIOCETHTOOL on %s: %s" % (ifname, os.strerror(e.errno)))
    finally:
        s.close()


def rxnfc(ifname, cmd, extra=0, fill=None):
    buf = ctypes.create_string_buffer(RXNFC_SIZE + 4 * extra)
    struct.pack_into("=I", buf, 0, cmd)
    if fill:
        fill(buf)
    ethtool_ioctl(ifname, buf)
    return buf


def spec_fields(flow):
    """(name, offset in h_u/m_u, size) of the fields a flow type has, by kind."""
    if flow in (0x01, 0x02):
        return [("src-ip", 0, 4), ("dst-ip", 4, 4), ("src-port", 8, 2), ("dst-port", 10, 2), ("tos", 12, 1)]
    if flow == 0x0D:
        return [("src-ip", 0, 4), ("dst-ip", 4, 4), ("l4-4-bytes", 8, 4), ("tos", 12, 1), ("proto", 14, 1)]
    if flow in (0x05, 0x06):
        return [("src-ip", 0, 16), ("dst-ip", 16, 16), ("src-port", 32, 2), ("dst-port", 34, 2), ("tclass", 36, 1)]
    if flow == 0x0E:
        return [("src-ip", 0, 16), ("dst-ip", 16, 16), ("l4-4-bytes", 32, 4), ("tclass", 36, 1), ("proto", 37, 1)]
    return []


def field_str(name, raw):
    if name.endswith("-ip"):
        return socket.inet_ntop(socket.AF_INET6 if len(raw) == 16 else socket.AF_INET, raw)
    return int.from_bytes(raw, "big")


def decode_rule(buf):
    fs = bytes(buf)[FS_OFF:FS_OFF + 168]
    flow, = struct.unpack_from("=I", fs, 0)
    ring, loc = struct.unpack_from("=QI", fs, 152)
    ctx = struct.unpack_from("=I", bytes(buf), 184)[0] if flow & FLOW_RSS else None
    flow &= ~FLOW_RSS
    r = {"location": loc, "flow-type": FLOW_NAMES.get(flow, flow)}
    if ctx is not None:
        r["context"] = ctx
    for name, off, size in spec_fields(flow):
        m = fs[76 + off:76 + off + size]
        if any(m):
            r[name] = field_str(name, fs[4 + off:4 + off + size])
            if any(b != 0xFF for b in m):
                r[name + "-mask"] = field_str(name, m)
    r["action"] = "drop" if ring == RX_CLS_FLOW_DISC else ring & 0xFFFFFFFF
    return r


def cmd_ntuple(args):
    """ntuple IFNAME: the n-tuple rule table (GRXCLSRLCNT, GRXCLSRLALL, GRXCLSRULE)."""
    if len(args) != 1:
        raise Fail("usage: ntuple IFNAME")
    dev = args[0]
    b = rxnfc(dev, ETHTOOL_GRXCLSRLCNT)
    data, = struct.unpack_from("=Q", b, 8)
    cnt, = struct.unpack_from("=I", b, 184)
    b = rxnfc(dev, ETHTOOL_GRXCLSRLALL, cnt, lambda x: struct.pack_into("=I", x, 184, cnt))
    n, = struct.unpack_from("=I", b, 184)
    locs = struct.unpack_from("=%dI" % n, b, 188)
    rules = [decode_rule(rxnfc(dev, ETHTOOL_GRXCLSRULE, 0,
                               lambda x, l=l: struct.pack_into("=I", x, FS_OFF + 160, l)))
             for l in locs]
    return {"size": data & ~RX_CLS_LOC_SPECIAL & 0xFFFFFFFF,
            "special": bool(data & RX_CLS_LOC_SPECIAL), "count": cnt, "rules": rules}


def cmd_ntuple_add(args):
    """ntuple-add IFNAME FLOW-TYPE [field value]... action QUEUE|drop [loc N|any|first|last]"""
    if len(args) < 4 or len(args) % 2 != 0:
        raise Fail("usage: ntuple-add IFNAME FLOW-TYPE [src-ip A] [dst-ip A] [src-port N] "
                   "[dst-port N] [proto N] action QUEUE|drop [loc N|any|first|last]")
    dev, flow = args[0], pick(FLOW_TYPES, args[1], "flow type")
    fields = {name: (off, size) for name, off, size in spec_fields(flow)}
    fs = bytearray(168)
    struct.pack_into("=I", fs, 0, flow)
    ring, loc = None, RX_CLS_LOC["any"]
    for k, v in zip(args[2::2], args[3::2]):
        if k == "action":
            ring = RX_CLS_FLOW_DISC if v == "drop" else parse_int(v, k)
        elif k == "loc":
            loc = RX_CLS_LOC[v] if v in RX_CLS_LOC else parse_int(v, k)
        elif k in fields:
            off, size = fields[k]
            try:
                raw = (socket.inet_pton(socket.AF_INET6 if size == 16 else socket.AF_INET, v)
                       if k.endswith("-ip") else parse_int(v, k).to_bytes(size, "big"))
            except (OSError, OverflowError):
                raise Fail("ntuple-add: bad %s %r" % (k, v))
            fs[4 + off:4 + off + size] = raw
            fs[76 + off:76 + off + size] = b"\xff" * size
        else:
            raise Fail("ntuple-add: no field %r for this flow type" % k)
    if ring is None:
        raise Fail("ntuple-add: action QUEUE|drop is required")
    struct.pack_into("=QI", fs, 152, ring, loc)

    def fill(b):
        b[FS_OFF:FS_OFF + 168] = bytes(fs)
    b = rxnfc(dev, ETHTOOL_SRXCLSRLINS, 0, fill)
    return {"location": struct.unpack_from("=I", b, FS_OFF + 160)[0]}


def cmd_ntuple_del(args):
    if len(args) != 2:
        raise Fail("usage: ntuple-del IFNAME LOC")
    loc = parse_int(args[1], "LOC")
    rxnfc(args[0], ETHTOOL_SRXCLSRLDEL, 0, lambda b: struct.pack_into("=I", b, FS_OFF + 160, loc))
    return {"ok": True}


# ---------------------------------------------------------------- main
def usage():
    sys.stderr.write(__doc__.split("Usage:", 1)[1].split("NETNS is", 1)[0])


def main(argv):
    args = list(argv)
    ns = None
    while args and args[0].startswith("-"):
        if args[0] in ("-n", "--netns"):
            if len(args) < 2:
                raise Fail("-n needs a NETNS")
            ns = args[1]
            args = args[2:]
        elif args[0] in ("-h", "--help"):
            usage()
            return 0
        else:
            raise Fail("unknown option %s" % args[0])
    if not args:
        usage()
        return 1
    if ns is not None:
        enter_ns(ns)
    if args == ["serve"]:
        return serve()
    sys.stdout.write(json.dumps(run(args[0], args[1:]), separators=(",", ":")) + "\n")
    return 0


def serve():
    """Answer commands from stdin until EOF: a test that reads the kernel
    hundreds of times pays Python's start once (about a second under TCG).
    A line may start with -n NETNS: that command runs there, the next ones
    again where serve started."""
    home = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] in ("-n", "--netns") and len(words) > 2:
                enter_ns(words[1])
                words = words[2:]
            res = run(words[0], words[1:])
        except Exception as e:  # an answer, whatever went wrong: the test waits for one
            res = {"error": str(e) or type(e).__name__}
        finally:
            enter_ns("/proc/self/fd/%d" % home)
        sys.stdout.write(json.dumps(res, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 0


def run(cmd, rest):

    def need(n):
        if len(rest) != n:
            raise Fail("%s: expected %d argument(s)" % (cmd, n))

    if cmd == "links":
        need(0)
        res = cmd_links()
    elif cmd == "link":
        need(1)
        res = cmd_link(rest[0])
    elif cmd == "netkit-add":
        res = cmd_netkit_add(rest)
    elif cmd == "del":
        need(1)
        res = cmd_del(rest[0])
    elif cmd == "link-netns":
        res = cmd_link_netns(rest)
    elif cmd == "queues":
        if len(rest) > 1:
            raise Fail("queues: at most one IFINDEX")
        res = cmd_queues(parse_int(rest[0], "IFINDEX") if rest else None)
    elif cmd == "napis":
        need(0)
        res = cmd_napis()
    elif cmd == "family":
        need(1)
        res = cmd_family(rest[0])
    elif cmd == "queue-create":
        res = cmd_queue_create(rest)
    elif cmd == "rings":
        res = cmd_rings(rest)
    elif cmd == "rings-set":
        res = cmd_rings_set(rest)
    elif cmd == "channels":
        res = cmd_channels(rest)
    elif cmd == "rss":
        res = cmd_rss(rest)
    elif cmd == "rss-contexts":
        res = cmd_rss_contexts(rest)
    elif cmd == "features":
        res = cmd_features(rest)
    elif cmd == "qstats":
        res = cmd_qstats(rest)
    elif cmd == "ntuple":
        res = cmd_ntuple(rest)
    elif cmd == "ntuple-add":
        res = cmd_ntuple_add(rest)
    elif cmd == "ntuple-del":
        res = cmd_ntuple_del(rest)
    else:
        raise Fail("unknown command %r" % cmd)
    return res


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Fail as e:
        sys.stderr.write("nlprobe: %s\n" % e)
        sys.exit(1)
    except OSError as e:
        sys.stderr.write("nlprobe: %s\n" % e)
        sys.exit(1)
