"""Forwarding through the guest and its route cache (docs/net-route-cache.md).

The guest is a router between two raw links whose other ends are this
test (unix datagram sockets: it writes and reads Ethernet frames as the
hosts on each wire):

    host A 10.1.0.1 --- eth0 10.1.0.15 [guest] eth1 10.2.0.15 --- 10.2.0.1, 10.2.0.2
                                                                  (two gateways to
                                                                   10.9.0.0/16)

test_route_forward_smp2, in phases, each inside a `nettest wait` (which
checks the guest's allocations are back at their baseline afterwards):
  1. a datagram A -> 10.9.x.x and one B -> A are forwarded: TTL one less,
     the header checksum right (updated incrementally), the UDP bytes as
     sent, the next hop's MAC (the guest ARPed for it); TTL 1 comes back
     as ICMP time exceeded, a destination without a route as ICMP net
     unreachable, both from the guest's address on A;
  2. while `rtflap` moves 10.9.0.0/16 between the two gateways every
     10 ms and switches the cache between rcu, rwlock and off, thousands
     of datagrams to random 10.9.x.x: every one arrives (lost ones are
     sent again), intact, at one of the two gateways, and both are used;
  3. a collision flood: destinations that, under the key the command
     line fixes (rtcache.secret=), hash to one bucket for packets from A:
     all forwarded; rtstat shows the chain held at its limit, evicting;
  4. the benchmark: a flood A -> B for each mode, forwarded packets per
     second (BENCH route_forward).
test_route_forward_smp1: the benchmark at -smp 1, after the fuzzer's
routing calls on a router (where some of its random routes are valid).
test_gdb_rtcache: qs-rtcache shows the cache's buckets and entries.
"""
import json
import multiprocessing
import os
import random
import re
import select
import shutil
import socket
import struct
import tempfile
import time

import pytest

import netpkt as P
import qrun
from conftest import record_summary
from test_net import Guest

A_GMAC, A_HMAC = "52:54:00:00:0a:0f", "02:00:00:00:0a:01"
B_GMAC, B_H1MAC, B_H2MAC = "52:54:00:00:0b:0f", "02:00:00:00:0b:01", "02:00:00:00:0b:02"
A_G, A_H = "10.1.0.15", "10.1.0.1"
B_G, B_H1, B_H2 = "10.2.0.15", "10.2.0.1", "10.2.0.2"
SECRET = "0f0e0d0c0b0a09080706050403020100"
EPH0_IFINDEX = 2                            # lo is 1, then eth0, eth1
MODES = ("rcu", "rwlock", "off")
BENCH_ORDER = MODES + MODES[::-1]          # each twice, the better counts: a loaded host drifts


# ---------------------------------------------------------------- SipHash (the attacker's)

M64 = (1 << 64) - 1


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M64


def siphash_2u64(a, b, k0, k1):
    """SipHash-2-4 of two 64-bit words (kernel/lib/siphash.c's siphash_2u64)."""
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261,
         k1 ^ 0x7465646279746573]

    def rnd():
        v[0] = (v[0] + v[1]) & M64; v[1] = _rotl(v[1], 13); v[1] ^= v[0]; v[0] = _rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & M64; v[3] = _rotl(v[3], 16); v[3] ^= v[2]
        v[0] = (v[0] + v[3]) & M64; v[3] = _rotl(v[3], 21); v[3] ^= v[0]
        v[2] = (v[2] + v[1]) & M64; v[1] = _rotl(v[1], 17); v[1] ^= v[2]; v[2] = _rotl(v[2], 32)
    for m in (a, b, 16 << 56):
        v[3] ^= m
        rnd()
        rnd()
        v[0] ^= m
    v[2] ^= 0xff
    for _ in range(4):
        rnd()
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def le32(addr):
    """An address as the kernel holds it (network order) read as a little-endian u32."""
    return struct.unpack("<I", P.ip(addr))[0]


def colliders(n, src, iif, bucket=77, buckets=1024):
    """n destinations in 10.9.0.0/16 whose input key (dst, src, iif, tos 0)
    lands in one bucket of rt_hash_table under SECRET (route_cache.c's
    rt_hash_code)."""
    k0, k1 = int(SECRET[:16], 16), int(SECRET[16:], 16)
    out = []
    for i in range(1, 65536):
        d = f"10.9.{i >> 8}.{i & 255}"
        if siphash_2u64(le32(d) << 32 | le32(src), iif << 8, k0, k1) % buckets == bucket:
            out.append(d)
            if len(out) == n:
                break
    return out


# ---------------------------------------------------------------- frames

def udp_frame(dst_mac, src_mac, src, dst, seq, ttl=64, size=32, dport=9):
    data = struct.pack("!I", seq) + bytes((seq + i) & 255 for i in range(size - 4))
    return P.eth(P.mac(dst_mac), P.mac(src_mac), P.ETH_P_IP,
                 P.ipv4(P.ip(src), P.ip(dst), 17, P.udp(P.ip(src), P.ip(dst), 4000, dport, data),
                        ttl=ttl, ident=seq & 0xffff))


def check_forwarded(frame, sent, from_mac, to_macs):
    """A frame the guest forwarded: returns (seq, next-hop MAC) after checking
    it is `sent` with one TTL less and a checksum that verifies."""
    dst, src, et, p = P.parse_eth(frame)
    _, _, _, q = P.parse_eth(sent)
    assert src == P.mac(from_mac), f"forwarded from {src.hex()}"
    assert dst in [P.mac(m) for m in to_macs], f"forwarded to {dst.hex()}, not a next hop"
    assert et == P.ETH_P_IP
    tot = struct.unpack("!H", p[2:4])[0]
    assert P.csum(p[:20]) == 0, "the header checksum does not verify after forwarding"
    assert p[8] == q[8] - 1, f"TTL {p[8]}, sent {q[8]}"
    assert p[:8] == q[:8] and p[9] == q[9] and p[12:20] == q[12:20], "header fields changed"
    assert p[20:tot] == q[20:tot], "the datagram changed on the way"
    return struct.unpack("!I", p[28:32])[0], dst


def is_udp_to(frame, dst_ip):
    _, _, et, p = P.parse_eth(frame)
    return et == P.ETH_P_IP and len(p) >= 28 and p[9] == 17 and p[16:20] == P.ip(dst_ip)


def icmp_of(frame, src_ip, dst_ip):
    """(type, code, quoted IP header) of an ICMP message src_ip -> dst_ip, else None."""
    _, _, et, p = P.parse_eth(frame)
    if et != P.ETH_P_IP or len(p) < 48 or p[9] != 1 or p[12:16] != P.ip(src_ip) \
            or p[16:20] != P.ip(dst_ip):
        return None
    assert P.csum(p[:20]) == 0 and P.csum(p[20:struct.unpack("!H", p[2:4])[0]]) == 0
    return p[20], p[21], p[28:48]


class Wires:
    """Both links, read together (each answers ARP for its hosts as it reads)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def recv(self, timeout):
        """(link, frame) or (None, None) after timeout."""
        r = select.select([self.a.sock, self.b.sock], [], [], max(0.0, timeout))[0]
        for link in (self.a, self.b):
            if link.sock in r:
                f = link.recv(0.001)        # ready: returns at once (0 would not read)
                if f is not None:
                    return link, f
        return None, None

    def expect(self, link, pred, timeout, resend, every=0.5):
        end = time.monotonic() + timeout
        nxt = 0
        while time.monotonic() < end:
            if time.monotonic() >= nxt:
                resend()
                nxt = time.monotonic() + every
            got, f = self.recv(min(0.1, end - time.monotonic()))
            if got is link and pred(f):
                return f
        return None


def rendezvous(w, port, timeout=60):
    """A datagram from A to the guest's `nettest wait PORT`, again every 5 s,
    until its "done" comes back."""
    frame = udp_frame(A_GMAC, A_HMAC, A_H, A_G, 0, dport=port)

    def done(f):
        _, _, et, p = P.parse_eth(f)
        return is_udp_to(f, A_H) and p[28:32] == b"done"
    return w.expect(w.a, done, timeout, lambda: w.a.send(frame), every=5.0) is not None


# ---------------------------------------------------------------- phases

def phase_basic(w):
    far = "10.9.1.2"
    sent = udp_frame(A_GMAC, A_HMAC, A_H, far, 1)
    f = w.expect(w.b, lambda f: is_udp_to(f, far), 30, lambda: w.a.send(sent))
    assert f, "nothing forwarded from A to 10.9.1.2"
    check_forwarded(f, sent, B_GMAC, [B_H1MAC])
    back = udp_frame(B_GMAC, B_H1MAC, B_H1, A_H, 2)
    f = w.expect(w.a, lambda f: is_udp_to(f, A_H), 10, lambda: w.b.send(back))
    assert f, "nothing forwarded from B to A"
    check_forwarded(f, back, A_GMAC, [A_HMAC])
    ttl1 = udp_frame(A_GMAC, A_HMAC, A_H, far, 3, ttl=1)
    f = w.expect(w.a, lambda f: icmp_of(f, A_G, A_H) is not None, 10, lambda: w.a.send(ttl1))
    assert f, "no ICMP time exceeded for TTL 1"
    t, c, quoted = icmp_of(f, A_G, A_H)
    assert (t, c) == (11, 0) and quoted == P.parse_eth(ttl1)[3][:20], f"ICMP {t}/{c}"
    nowhere = udp_frame(A_GMAC, A_HMAC, A_H, "192.168.7.7", 4)
    f = w.expect(w.a, lambda f: icmp_of(f, A_G, A_H) is not None and icmp_of(f, A_G, A_H)[0] == 3,
                 10, lambda: w.a.send(nowhere))
    assert f and icmp_of(f, A_G, A_H)[1] == 0, "no ICMP net unreachable for a destination without a route"


def deliver_all(w, dsts, seq0, stop=None, window=16):
    """Datagrams A -> each of dsts (cycled) until stop() (or all sent once
    when stop is None), up to `window` in flight, each sent again after a
    second without its copy on B; returns {seq: next-hop MAC} once every
    one has arrived, checked."""
    sent, at, got = {}, {}, {}
    seq = seq0
    t0 = time.monotonic()
    while True:
        more = (len(sent) < len(dsts)) if stop is None else not stop()
        if not more and not at:
            return got
        assert time.monotonic() - t0 < 240, f"{len(at)} datagrams never forwarded"
        while more and len(at) < window:
            d = dsts[(seq - seq0) % len(dsts)]
            sent[seq] = udp_frame(A_GMAC, A_HMAC, A_H, d, seq)
            w.a.send(sent[seq])
            at[seq] = time.monotonic()
            seq += 1
            more = (len(sent) < len(dsts)) if stop is None else True
        link, f = w.recv(0.05)
        if link is w.b and is_forwarded_udp(f):
            s = struct.unpack("!I", P.parse_eth(f)[3][28:32])[0]
            assert s in sent, f"a datagram never sent came out on B (seq {s})"
            _, hop = check_forwarded(f, sent[s], B_GMAC, [B_H1MAC, B_H2MAC])
            got[s] = hop
            at.pop(s, None)
        now = time.monotonic()
        for s, t in list(at.items()):
            if now - t > 1.0:
                w.a.send(sent[s])
                at[s] = now


def is_forwarded_udp(frame):
    """A UDP datagram from host A (what deliver_all() sends), seen elsewhere."""
    if frame is None:
        return False
    _, _, et, p = P.parse_eth(frame)
    return et == P.ETH_P_IP and len(p) >= 32 and p[9] == 17 and p[12:16] == P.ip(A_H)


def _sender(path, frames, until, q):
    """A child process: frames to the guest's NIC as fast as it takes them
    (a unix datagram socket blocks while QEMU's queue is full: the guest
    sets the pace)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.settimeout(0.5)                       # a guest that stopped reading cannot hang us
    n = 0
    while time.monotonic() < until:
        for f in frames:
            try:
                s.sendto(f, path)
                n += 1
            except OSError:
                pass
    q.put(n)


def _counter(sock, start, until, q):
    """A child process: the frames forwarded from A that reach B between
    start and until (monotonic seconds), counted and dropped."""
    buf = bytearray(2048)
    src = P.ip(A_H)
    sock.settimeout(0.05)
    n = 0
    while True:
        try:
            k = sock.recv_into(buf)
        except socket.timeout:
            k = 0
        now = time.monotonic()
        if now >= until:
            break
        if k >= 34 and now >= start and buf[12:14] == b"\x08\x00" and buf[26:30] == src:
            n += 1
    q.put(n)


def flood_bench(w, seconds, flows):
    """Datagrams A -> flows from one process as fast as the guest takes them,
    those that come out on B counted by another for `seconds` after half a
    second's ramp. (sent a second, forwarded a second)."""
    frames = [udp_frame(A_GMAC, A_HMAC, A_H, d, i) for i, d in enumerate(flows)]
    assert w.expect(w.b, is_forwarded_udp, 30, lambda: w.a.send(frames[0])), \
        "nothing forwarded (ARP for the gateway?)"
    ctx = multiprocessing.get_context("fork")
    qs, qc = ctx.Queue(), ctx.Queue()
    t0 = time.monotonic()
    start, until = t0 + 0.5, t0 + 0.5 + seconds
    cnt = ctx.Process(target=_counter, args=(w.b.sock, start, until, qc), daemon=True)
    snd = ctx.Process(target=_sender, args=(w.a.guest_path, frames, until, qs), daemon=True)
    cnt.start()
    snd.start()
    sent, fwd = qs.get(timeout=60), qc.get(timeout=60)
    snd.join(10)
    cnt.join(10)
    while w.b.recv(0.2) is not None:        # what is still in the guest comes out
        pass
    return sent / (until - t0), fwd / seconds


def bench(name, record):
    line = "BENCH " + json.dumps(record)
    print(line)
    record_summary(line)
    rdir = qrun.REPO / "build" / "test-defconfig" / "results"
    rdir.mkdir(parents=True, exist_ok=True)
    (rdir / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")


def run_benchmarks(guest, w, cpus, port0, seconds=2.0):
    flows = [f"10.9.{i}.{i * 7 % 250 + 1}" for i in range(64)]
    best = {}
    for i, mode in enumerate(BENCH_ORDER):
        guest.wait_for(rf"waiting on port {port0 + i}$", 120)
        sent, fwd = flood_bench(w, seconds, flows)
        if fwd > best.get(mode, (0, 0))[1]:
            best[mode] = (sent, fwd)
        assert rendezvous(w, port0 + i), f"no answer from nettest wait {port0 + i}"
    for mode in MODES:
        sent, fwd = best[mode]
        bench(f"route_forward_{mode}_smp{cpus}",
              {"bench": "route_forward", "mode": mode, "cpus": cpus, "flows": len(flows),
               "sent_per_s": round(sent), "forwarded_per_s": round(fwd)})
    rates = {m: best[m][1] for m in MODES}
    record_summary(f"route: forwarded per second at -smp {cpus}: " +
                   ", ".join(f"{m} {rates[m]:.0f}" for m in MODES) +
                   f" (rcu/rwlock {rates['rcu'] / max(rates['rwlock'], 1):.2f})")


def bench_script(port0):
    return "; ".join(f"route cache {m}; nettest wait {port0 + i} 120" for i, m in enumerate(BENCH_ORDER))


def make_links(tmp):
    da, db = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    os.mkdir(da)
    os.mkdir(db)
    a = P.RawLink(da, A_HMAC, A_H)
    b = P.RawLink(db, B_H1MAC, B_H1, others={B_H2: B_H2MAC})
    nics = [qrun.Nic("dgram", local=a.guest_path, remote=a.host_path, mac=A_GMAC),
            qrun.Nic("dgram", local=b.guest_path, remote=b.host_path, mac=B_GMAC, dump=False)]
    return a, b, nics


ROUTER = (f"ip=eth0:{A_G}/24,eth1:{B_G}/24 net.ip_forward=1 rtcache.secret={SECRET} -- "
          f"route add 10.9.0.0/16 gw {B_H1}")


@pytest.mark.qemu
def test_route_forward_smp2(kvm):
    tmp = tempfile.mkdtemp(prefix="qs-route-")
    a, b, nics = make_links(tmp)
    w = Wires(a, b)
    cmdline = (f"{ROUTER}; netstat; nettest wait 5000 120; "
               f"rtflap 10.9.0.0/16 {B_H1} {B_H2} 200 10 25; route; "
               f"nettest wait 5001 120; rtstat; {bench_script(5002)}; "
               "route cache rcu; netstat; poweroff")
    guest = Guest(kvm, "route-forward-smp2", 2, cmdline, nics, tmp)
    try:
        # 1. Forwarding both ways, TTL exceeded, no route.
        guest.wait_for(r"waiting on port 5000$", 120)
        phase_basic(w)
        assert rendezvous(w, 5000), "no answer from nettest wait 5000"
        # 2. Routes moving under the traffic.
        guest.wait_for(r"^rtflap: started", 60)
        rnd = random.Random(5)
        dsts = [f"10.9.{rnd.randrange(256)}.{rnd.randrange(1, 255)}" for _ in range(512)]
        flap_done = [False]
        mark = len(guest.console.lines)

        def stop():
            if not flap_done[0]:
                flap_done[0] = guest.console.wait_for(r"^rtflap: \d+ flips", 0, mark) is not None
            return flap_done[0]
        got = deliver_all(w, dsts, 1000, stop)
        hops = {h for h in got.values()}
        record_summary(f"route: {len(got)} datagrams forwarded intact while the route moved, "
                       f"{sum(h == P.mac(B_H1MAC) for h in got.values())} via {B_H1}, "
                       f"{sum(h == P.mac(B_H2MAC) for h in got.values())} via {B_H2}")
        assert hops == {P.mac(B_H1MAC), P.mac(B_H2MAC)}, "the moves did not show in the traffic"
        # 3. A collision flood aimed at one bucket with the known key.
        guest.wait_for(r"waiting on port 5001$", 60)
        coll = colliders(48, A_H, EPH0_IFINDEX)
        for _ in range(3):
            deliver_all(w, coll, 100000 + _ * 1000)
        assert rendezvous(w, 5001), "no answer from nettest wait 5001"
        i = guest.wait_for(r"^  chain_evictions +\d+", 30)
        evictions = int(guest.console.lines[i].split()[1])
        longest = int(re.search(r"^  longest_chain +(\d+)", guest.console.text(), re.M).group(1))
        assert evictions >= 48 and longest <= 8, f"chain evictions {evictions}, longest chain {longest}"
        # 4. Forwarded packets per second, each mode.
        run_benchmarks(guest, w, 2, 5002)
        r = guest.finish(180)
    finally:
        guest.stop()
        a.close()
        b.close()
        shutil.rmtree(tmp, ignore_errors=True)
    ok, why = r.verdict("poweroff")
    assert ok, f"{why}\n{r.tail(30)}"
    text = qrun.ktap.clean(r.log)
    passes = re.findall(r"^nettest: PASS: allocations back at the baseline", text, re.M)
    assert len(passes) == 2 + len(BENCH_ORDER), f"{len(passes)} nettest baselines held"
    alive = re.findall(r"^packet buffers (\d+) alive", text, re.M)
    assert len(alive) == 2 and alive[0] == alive[-1], f"packet buffers alive: {alive}"
    assert re.search(r"^rtflap: 200 flips, 8 mode switches", text, re.M)


@pytest.mark.qemu
def test_route_forward_smp1(kvm):
    tmp = tempfile.mkdtemp(prefix="qs-route-")
    a, b, nics = make_links(tmp)
    w = Wires(a, b)
    guest = Guest(kvm, "route-forward-smp1", 1,
                  f"{ROUTER}; fuzz 2 2000; {bench_script(5002)}; route cache rcu; poweroff",
                  nics, tmp)
    try:
        guest.wait_for(r"waiting on port 5002$", 120)
        warm = udp_frame(A_GMAC, A_HMAC, A_H, "10.9.0.1", 1)
        assert w.expect(w.b, lambda f: is_udp_to(f, "10.9.0.1"), 30, lambda: w.a.send(warm)), \
            "nothing forwarded"
        run_benchmarks(guest, w, 1, 5002)
        r = guest.finish(120)
    finally:
        guest.stop()
        a.close()
        b.close()
        shutil.rmtree(tmp, ignore_errors=True)
    ok, why = r.verdict("poweroff")
    assert ok, f"{why}\n{r.tail(30)}"
    text = qrun.ktap.clean(r.log)
    added = re.findall(r"^fuzz: root: \d+ route changes \(\d+ refused\), (\d+) routes added", text, re.M)
    assert added and int(added[-1]) > 0, "the fuzzer added no route on a router"
    assert re.search(r"^fuzz: PASS: ", text, re.M)


@pytest.mark.qemu
def test_gdb_rtcache(defconfig_elf):
    """qs-rtcache (tools/gdb/rtcache.py) at the end of the routing ktests of
    kernel/net/net_test.c: the loopback routes they looked up are in the cache."""
    cmds = ["hbreak qemu_exit", "continue", "qs-rtcache", "qs-rtcache all"]
    out, _ = qrun.gdb_session(defconfig_elf, cpus=1, cmdline="ktest=net_route_*",
                              batch_cmds=cmds, timeout=120)
    assert "Python Exception" not in out and "Error" not in out, out
    assert re.search(r"rtcache=rcu genid=\d+ entries=[1-9]", out), out
    assert re.search(r"chain length: buckets  0:\d+  1:", out), out
    assert re.search(r"dst 127\.0\.0\.1 +src 0\.0\.0\.0 +iif 0 tos 0x0 -> gw 127\.0\.0\.1 +lo +ref 1", out), out
