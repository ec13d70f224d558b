"""The network stack from outside the guest (docs/net.md).

test_net_host_smp2: one guest, two e1000s sharing one IRQ line:
  eth0 on QEMU user networking (restrict=on) with a UDP forward from
  127.0.0.1, eth1 a raw link whose other end is this test (a unix
  datagram socket: the test writes and reads Ethernet frames byte by
  byte, as a second host on the wire).
  1. Malformed frames on eth1, each aimed at one check (truncated
     headers, lengths that lie, bad checksums, IP options, fragments,
     oversize frames, ARP garbage, ...): every error counter must read
     exactly what was aimed at it, and the guest's packet buffers, sockets
     and kmalloc objects must be back at their baseline.
  2. Random bytes on eth1, and eth1's link taken down and up from QEMU's
     monitor (QMP set_link): no crash, both link changes seen,
     allocations back at the baseline.
  3. 10,000 UDP datagrams of random sizes to udpecho, every one back
     intact (checksums checked); then the benchmarks: round trips over
     eth1, a flood through the forward on eth0.
test_net_host_smp1: the benchmarks again at -smp 1.

Benchmarks (BENCH lines, kept in build/test-defconfig/results/):
host-to-guest UDP round trips per second, and the datagrams per second a
guest receives from a flood (its udpecho -s sink counts them).
"""
import json
import os
import random
import re
import shutil
import socket
import struct
import tempfile
import threading
import time

import pytest

import netpkt as P
from qs import ktap
from qs import REPO
from qs.boot import boot
from qs.build import build
from qs.net import Nic, free_udp_port
from conftest import record_summary

G_MAC, H_MAC = "52:54:00:00:03:0f", "02:00:00:00:03:01"
G_IP, H_IP = "10.0.3.15", "10.0.3.1"
WAIT_PORT, WAIT_PORT2, CLOSED_PORT = 5000, 5002, 5001


class Console:
    """The guest's console lines as they arrive."""

    def __init__(self):
        self.lines = []
        self.cv = threading.Condition()

    def add(self, line):
        with self.cv:
            self.lines.append(line.rstrip("\r\n"))
            self.cv.notify_all()

    def wait_for(self, rx, timeout, start=0):
        """The index of the first line from `start` matching rx; None after timeout."""
        pat = re.compile(rx)
        end = time.monotonic() + timeout
        with self.cv:
            while True:
                for i in range(start, len(self.lines)):
                    if pat.search(self.lines[i]):
                        return i
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)

    def text(self):
        with self.cv:
            return "\n".join(self.lines)


class Guest:
    """A guest booting in a thread while the test talks to it; QEMU's
    monitor (QMP) on a unix socket in tmp."""

    def __init__(self, kvm, label, cpus, cmdline, nics, tmp, timeout=240):
        build("test-defconfig", "defconfig")
        self.console = Console()
        self.result = None
        self.qmp_path = os.path.join(tmp, "qmp.sock")
        extra = ["-qmp", f"unix:{self.qmp_path},server=on,wait=off"]

        def run():
            self.result = boot(name="test-defconfig", cpus=cpus, cmdline=cmdline,
                                    timeout=timeout, kvm=kvm, label=label, nics=nics,
                                    extra=extra, watch=self.console.add)
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def wait_for(self, rx, timeout, start=0):
        i = self.console.wait_for(rx, timeout, start)
        if i is None:
            pytest.fail(f"the guest never printed /{rx}/; last lines:\n"
                        + "\n".join(self.console.lines[-30:]), pytrace=False)
        return i

    def finish(self, timeout):
        self.thread.join(timeout)
        assert self.result is not None, "the guest did not end"
        return self.result

    def stop(self):
        """A test that failed half-way: end QEMU now rather than at its timeout."""
        if self.thread.is_alive():
            try:
                qmp(self.qmp_path, {"execute": "quit"})
            except (OSError, ValueError):
                pass
            self.thread.join(30)


def counters(text):
    """The counters of one `netstat -a` (name -> value)."""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^  (\w+) +(\d+)  ", text, re.M)}


def netstat_block(lines, start):
    """The text of the netstat output that begins after line index start."""
    out = []
    for line in lines[start + 1:]:
        if line.startswith("interfaces:"):
            break
        out.append(line)
    return "\n".join(out)


def bench(name, record):
    line = "BENCH " + json.dumps(record)
    print(line)
    record_summary(line)
    rdir = REPO / "build" / "test-defconfig" / "results"
    rdir.mkdir(parents=True, exist_ok=True)
    (rdir / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")


# ---------------------------------------------------------------- malformed frames

def malformed_cases():
    """(what, frame, {counter: how much it must rise})."""
    g, h, gi, hi = P.mac(G_MAC), P.mac(H_MAC), P.ip(G_IP), P.ip(H_IP)
    udp_ok = P.udp(hi, gi, 4000, CLOSED_PORT, b"12345678")

    def ipf(src=hi, dst=gi, proto=17, payload=udp_ok, **kw):
        return P.eth(g, h, P.ETH_P_IP, P.ipv4(src, dst, proto, payload, **kw))

    def arpf(**kw):
        a = dict(op=1, sha=h, spa=hi, tha=b"\0" * 6, tpa=gi)
        a.update(kw)
        return P.eth(P.mac("ff:ff:ff:ff:ff:ff"), h, P.ETH_P_ARP, P.arp(**a))

    hdr = {"ip_in_hdr_errors": 1}
    return [
        ("IP total length past the frame", ipf(tot_len=1000), {**hdr, "ip_in_truncated": 1}),
        ("IP total length inside the header", ipf(tot_len=12), {**hdr, "ip_in_truncated": 1}),
        ("IHL of 15 words past the frame", ipf(payload=b"", ihl=15), {**hdr, "ip_in_truncated": 1}),
        ("IHL of 3 words", ipf(ihl=3), {**hdr, "ip_in_bad_ihl": 1}),
        ("IP version 6", ipf(version=6), {**hdr, "ip_in_bad_version": 1}),
        ("IP header checksum wrong", ipf(check=0x1234), {**hdr, "ip_in_csum_errors": 1}),
        ("TTL 0", ipf(ttl=0), {**hdr, "ip_in_ttl_zero": 1}),
        ("an IP option running past the header", ipf(options=b"\x07\x10\x00\x00"),
         {**hdr, "ip_in_bad_options": 1}),
        ("IP options that are fine (NOP, NOP, NOP, end) to a closed port",
         ipf(options=b"\x01\x01\x01\x00"), {"ip_in_options": 1, "udp_no_ports": 1}),
        ("a first fragment (MF)", ipf(frag=0x2000), {"ip_in_frags_dropped": 1}),
        ("a later fragment (offset 128)", ipf(frag=0x0010), {"ip_in_frags_dropped": 1}),
        ("a protocol we do not speak (TCP)", ipf(proto=6), {"ip_in_unknown_protos": 1}),
        ("to another host", ipf(dst=P.ip("10.0.3.99")), {"ip_in_addr_errors": 1}),
        ("from the broadcast address", ipf(src=P.ip("255.255.255.255")), {"ip_in_bad_src": 1}),
        ("from 127.0.0.1 over a wire", ipf(src=P.ip("127.0.0.1")), {"ip_in_bad_src": 1}),
        ("UDP length past the packet", ipf(payload=P.udp(hi, gi, 4000, CLOSED_PORT, b"x" * 8, length=200)),
         {"udp_in_errors": 1}),
        ("UDP length under its header", ipf(payload=P.udp(hi, gi, 4000, CLOSED_PORT, b"x" * 8, length=4)),
         {"udp_in_errors": 1}),
        ("UDP checksum wrong", ipf(payload=P.udp(hi, gi, 4000, CLOSED_PORT, b"abcdefgh", check=0x1111)),
         {"udp_in_csum_errors": 1}),
        ("UDP with no checksum (0) to a closed port",
         ipf(payload=P.udp(hi, gi, 4000, CLOSED_PORT, b"abcdefgh", check=0)), {"udp_no_ports": 1}),
        ("ICMP checksum wrong", ipf(proto=1, payload=P.icmp(8, 0, b"\0\1\0\1", b"ping", check=0x2222)),
         {"icmp_in_errors": 1}),
        ("ICMP shorter than its header", ipf(proto=1, payload=b"\x08\x00\x00"), {"icmp_in_errors": 1}),
        ("an echo request to the subnet broadcast (ignored)",
         ipf(dst=P.ip("10.0.3.255"), proto=1, payload=P.icmp(8, 0, b"\0\7\0\1", b"bcast")),
         {"icmp_in_echos": 1}),
        ("an unknown EtherType", P.eth(g, h, 0x88b5, b"hello there"), {"eth_in_unknown_type": 1}),
        ("an 802.3 length field", P.eth(g, h, 0x0040, b"x" * 64), {"eth_in_unknown_type": 1}),
        ("a 10-byte runt (the NIC pads it to 60)", (g + h)[:10], {"eth_in_unknown_type": 1}),
        ("ARP with 7-byte hardware addresses", arpf() [:14] + P.arp(1, h + b"\0", hi, b"\0" * 7, gi, hln=7),
         {"arp_in_errors": 1}),
        ("ARP operation 9", arpf(op=9), {"arp_in_errors": 1}),
        ("ARP for IPv6", arpf(pro=0x86dd), {"arp_in_errors": 1}),
        ("ARP from a multicast MAC", arpf(sha=P.mac("01:00:5e:00:00:01")), {"arp_in_errors": 1}),
        ("ARP from the broadcast IP", arpf(spa=P.ip("255.255.255.255")), {"arp_in_errors": 1}),
        ("ARP between strangers", arpf(spa=P.ip("10.0.3.50"), tpa=P.ip("10.0.3.99")),
         {"arp_in_ignored": 1}),
        ("a 1600-byte frame", P.eth(g, h, P.ETH_P_IP, b"\0" * 1586), {"rx_length_errors": 1}),
        ("a 4000-byte frame (two descriptors)", P.eth(g, h, P.ETH_P_IP, b"\0" * 3986),
         {"rx_length_errors": 1}),
    ]


ERROR_COUNTERS = ["eth_in_runts", "eth_in_other_host", "eth_in_unknown_type", "arp_in_errors",
                  "arp_in_ignored", "ip_in_hdr_errors", "ip_in_truncated", "ip_in_bad_version",
                  "ip_in_bad_ihl", "ip_in_csum_errors", "ip_in_ttl_zero", "ip_in_bad_options",
                  "ip_in_options", "ip_in_bad_src", "ip_in_frags_dropped", "ip_in_addr_errors",
                  "ip_in_unknown_protos", "icmp_in_errors", "icmp_in_echos", "icmp_out_echo_reps",
                  "udp_in_errors", "udp_in_csum_errors", "udp_no_ports", "udp_rcvbuf_errors"]


def rendezvous(link, port, timeout=60):
    """A good datagram to the guest's `nettest wait` on port, again every 5 s
    until its "done" comes back. Returns how many were sent (0: no answer);
    those after the first may reach a closed port (udp_no_ports)."""
    g, h, gi, hi = P.mac(G_MAC), P.mac(H_MAC), P.ip(G_IP), P.ip(H_IP)
    frame = P.eth(g, h, P.ETH_P_IP, P.ipv4(hi, gi, 17, P.udp(hi, gi, 4000, port, b"over")))

    def is_done(f):
        _, _, et, p = P.parse_eth(f)
        return et == P.ETH_P_IP and len(p) >= 32 and p[9] == 17 and p[28:32] == b"done"
    sends = [0]

    def send():
        sends[0] += 1
        link.send(frame)
    return sends[0] if link.expect(is_done, timeout, resend=send, every=5.0) else 0


def arp_probe(link, timeout):
    """Ask for the guest's MAC until it answers (its NIC hears nothing for a
    second after it is brought up)."""
    h, hi, gi = P.mac(H_MAC), P.ip(H_IP), P.ip(G_IP)
    req = P.eth(P.mac("ff:ff:ff:ff:ff:ff"), h, P.ETH_P_ARP, P.arp(1, h, hi, b"\0" * 6, gi))

    def is_reply(f):
        _, _, et, p = P.parse_eth(f)
        return et == P.ETH_P_ARP and p[6:8] == b"\0\2" and p[14:18] == gi
    return link.expect(is_reply, timeout, resend=lambda: link.send(req))


# ---------------------------------------------------------------- UDP from the host
#
# QEMU's user networking with restrict=on drops every UDP datagram the
# guest sends (libslirp's udp_input: "if (slirp->restricted) goto bad",
# before it looks for the socket), hostfwd replies included. So the
# forward carries only what goes one way, the flood; echoes and round
# trips go over the raw link, with this test as the other host.

class UdpLink:
    """UDP between H_IP:sport (this test) and the guest over a RawLink;
    every datagram from the guest has its IP and UDP checksums checked."""

    def __init__(self, link, sport=4321):
        self.link, self.sport = link, sport
        self.g, self.h, self.gi, self.hi = P.mac(G_MAC), P.mac(H_MAC), P.ip(G_IP), P.ip(H_IP)
        self.ident = 0

    def send(self, data, dport=7):
        self.ident = (self.ident + 1) & 0xffff
        self.link.send(P.eth(self.g, self.h, P.ETH_P_IP,
                             P.ipv4(self.hi, self.gi, 17,
                                    P.udp(self.hi, self.gi, self.sport, dport, data),
                                    ident=self.ident)))

    def recv(self, timeout):
        """The next datagram to our port (its payload), or None."""
        end = time.monotonic() + timeout
        while True:
            f = self.link.recv(max(0.0, end - time.monotonic()))
            if f is None:
                return None
            _, _, et, p = P.parse_eth(f)
            if et != P.ETH_P_IP or len(p) < 28 or p[9] != 17 or p[16:20] != self.hi:
                continue
            ihl = (p[0] & 15) * 4
            tot = struct.unpack("!H", p[2:4])[0]
            u = p[ihl:tot]
            if struct.unpack("!H", u[2:4])[0] != self.sport:
                continue
            assert P.csum(p[:ihl]) == 0, "the guest sent a bad IP header checksum"
            ulen = struct.unpack("!H", u[4:6])[0]
            pseudo = p[12:20] + struct.pack("!BBH", 0, 17, ulen)
            assert P.csum(pseudo + u[:ulen]) == 0, "the guest sent a bad UDP checksum"
            return u[8:ulen]


def udp_probe(ul, timeout):
    """Until udpecho answers on the guest's port 7."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ul.send(b"probe")
        if ul.recv(0.5) == b"probe":
            return True
    return False


def echo_many(ul, count, window=16, seed=7):
    """count datagrams of random sizes and bytes, up to window in flight;
    each must come back byte for byte. Returns (sent again, seconds)."""
    rnd = random.Random(seed)
    payload, sent_at, done = {}, {}, set()
    resent = nxt = 0
    t0 = time.monotonic()
    while len(done) < count:
        assert time.monotonic() - t0 < 180, f"only {len(done)} of {count} echoed in 180 s"
        while nxt < count and len(sent_at) < window:
            data = struct.pack("!I", nxt) + rnd.randbytes(rnd.randrange(0, 1000))
            payload[nxt] = data
            ul.send(data)
            sent_at[nxt] = time.monotonic()
            nxt += 1
        got = ul.recv(0.2)
        if got is None:
            now = time.monotonic()
            for seq, t in list(sent_at.items()):
                if now - t > 1.0:               # lost on the way (UDP): ask again
                    ul.send(payload[seq])
                    sent_at[seq] = now
                    resent += 1
            continue
        seq = struct.unpack("!I", got[:4])[0] if len(got) >= 4 else -1
        assert seq in payload, f"an echo of something never sent ({len(got)} bytes)"
        assert got == payload[seq], f"datagram {seq} came back changed"
        if seq in sent_at:
            del sent_at[seq]
            done.add(seq)
    return resent, time.monotonic() - t0


def round_trips(ul, count):
    """count sequential round trips; (per second, mean microseconds)."""
    t0 = time.perf_counter()
    for i in range(count):
        data = struct.pack("!I", 0x80000000 | i) + b"r" * 60
        ul.send(data)
        while True:
            got = ul.recv(2.0)
            assert got is not None, f"round trip {i} lost"
            if got == data:
                break
    dt = time.perf_counter() - t0
    return count / dt, dt / count * 1e6


def flood(port, seconds, size=64):
    """Datagrams to 127.0.0.1:port (a hostfwd) as fast as this process sends them."""
    n = 0
    data = b"f" * size
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("127.0.0.1", port))
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for _ in range(64):
                try:
                    s.send(data)
                    n += 1
                except (BlockingIOError, ConnectionRefusedError):
                    pass
    return n


def host_benchmarks(guest, ul, fwd_sink, cpus, rtts=1000, flood_s=3.0):
    per_s, us = round_trips(ul, rtts)
    bench(f"udp_rtt_host_smp{cpus}", {"bench": "udp_rtt_host", "cpus": cpus, "round_trips": rtts,
                                      "per_s": round(per_s), "mean_us": round(us, 1)})
    sent = flood(fwd_sink, flood_s)
    i = guest.wait_for(r"^BENCH \{\"bench\":\"udp_flood_rx\"", 60)
    rx = json.loads(guest.console.lines[i][6:])
    bench(f"udp_flood_host_smp{cpus}", {"bench": "udp_flood_host", "cpus": cpus, "sent": sent,
                                        "sent_per_s": round(sent / flood_s),
                                        "received": rx["datagrams"], "received_per_s": rx["per_s"],
                                        "delivered": round(rx["datagrams"] / max(sent, 1), 3)})


# ---------------------------------------------------------------- QMP

def qmp(path, *commands):
    """Run QMP commands on QEMU's monitor socket; their answers."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        f = s.makefile("rw")
        json.loads(f.readline())                         # greeting
        out = []
        for cmd in ({"execute": "qmp_capabilities"},) + commands:
            f.write(json.dumps(cmd) + "\n")
            f.flush()
            while True:
                msg = json.loads(f.readline())
                if "return" in msg or "error" in msg:
                    out.append(msg)
                    break
        return out[1:]


def set_link(path, netdev, up):
    (ans,) = qmp(path, {"execute": "set_link", "arguments": {"name": netdev, "up": up}})
    assert "return" in ans, f"set_link: {ans}"


# ---------------------------------------------------------------- the tests

@pytest.mark.qemu
def test_net_host_smp2(kvm):
    tmp = tempfile.mkdtemp(prefix="qs-net-")
    fwd_sink = free_udp_port()
    link = P.RawLink(tmp, H_MAC, H_IP)
    nics = [Nic("user", hostfwd=[(fwd_sink, 9)], dump=False),
            Nic("dgram", local=link.guest_path, remote=link.host_path, mac=G_MAC)]
    cmdline = (f"ip=eth0:10.0.2.15/24,eth1:{G_IP}/24 gw=10.0.2.2 -- netstat; "
               f"nettest wait {WAIT_PORT} 120; netstat -a; nettest wait {WAIT_PORT2} 120; "
               "udpecho -p 7 -t 5 -s 9 -b udp_flood_rx; ifconfig; netstat -a; poweroff")
    guest = Guest(kvm, "net-host-smp2", 2, cmdline, nics, tmp)
    try:
        # 1. Malformed frames, each counted where it was aimed.
        guest.wait_for(rf"nettest: baseline taken .* waiting on port {WAIT_PORT}", 120)
        assert arp_probe(link, 30), "the guest never answered ARP on eth1"
        cases = malformed_cases()
        for _, frame, _ in cases:
            link.send(frame)
        sends = rendezvous(link, WAIT_PORT)
        assert sends, "no answer from nettest wait"
        i = guest.wait_for(r"^\$ netstat -a", 60)
        guest.wait_for(r"^interfaces:", 30, i)
        snap = counters(netstat_block(guest.console.lines, i))
        want = {c: 0 for c in ERROR_COUNTERS}
        for _, _, deltas in cases:
            for c, d in deltas.items():
                if c in want:
                    want[c] += d
        late = snap.get("udp_no_ports", 0) - want["udp_no_ports"]
        if 0 <= late < sends:           # repeats of the rendezvous that came after it
            want["udp_no_ports"] += late
        wrong = {c: (snap.get(c, 0), v) for c, v in want.items() if snap.get(c, 0) != v}
        assert not wrong, f"counters (got, wanted): {wrong}"
        # 2. Random bytes, and eth1's link down and up (QMP set_link).
        guest.wait_for(rf"waiting on port {WAIT_PORT2}", 60)
        for frame in P.random_frames(300, P.mac(G_MAC), P.mac(H_MAC)):
            link.send(frame)
        mark = len(guest.console.lines)
        set_link(guest.qmp_path, "net1", False)
        guest.wait_for(r"e1000: eth1: link down", 10, mark)
        set_link(guest.qmp_path, "net1", True)
        guest.wait_for(r"e1000: eth1: link up", 10, mark)
        assert rendezvous(link, WAIT_PORT2), "no answer after the random frames"
        # 3. 10,000 datagrams to udpecho, then the benchmarks.
        guest.wait_for(r"udpecho: echoing on port 7", 60)
        ul = UdpLink(link)
        assert udp_probe(ul, 30), "udpecho never answered"
        resent, secs = echo_many(ul, 10000)
        record_summary(f"net: 10000 datagrams echoed intact in {secs:.1f} s, {resent} sent again")
        host_benchmarks(guest, ul, fwd_sink, 2)
        r = guest.finish(120)
    finally:
        guest.stop()
        link.close()
        shutil.rmtree(tmp, ignore_errors=True)
    ok, why = r.verdict("poweroff")
    assert ok, f"{why}\n{r.tail(30)}"
    text = ktap.clean(r.log)
    assert len(re.findall(r"^nettest: PASS: allocations back at the baseline", text, re.M)) == 2
    alive = re.findall(r"^packet buffers (\d+) alive", text, re.M)
    assert len(alive) == 3 and alive[0] == alive[-1], f"packet buffers alive: {alive}"
    assert re.search(r"^udpecho: 1\d{4} datagrams, \d+ bytes echoed on port 7", text, re.M)
    eth1 = re.search(r"^eth1: .*\n.*\n.*\n +RX packets (\d+) .* length (\d+)", text, re.M)
    assert eth1 and int(eth1.group(2)) == 2, "eth1's oversize frames not counted"
    assert re.search(r"^eth1: .*\n(.*\n){4}.*link changes 3", text, re.M), "eth1's link changes"
    assert os.path.getsize(nics[1].pcap) > 10000 * 60, f"{nics[1].pcap}: too small"


@pytest.mark.qemu
def test_net_host_smp1(kvm):
    tmp = tempfile.mkdtemp(prefix="qs-net-")
    fwd_sink = free_udp_port()
    link = P.RawLink(tmp, H_MAC, H_IP)
    nics = [Nic("user", hostfwd=[(fwd_sink, 9)], dump=False),
            Nic("dgram", local=link.guest_path, remote=link.host_path, mac=G_MAC)]
    guest = Guest(kvm, "net-host-smp1", 1,
                  f"ip=eth0:10.0.2.15/24,eth1:{G_IP}/24 gw=10.0.2.2 -- "
                  "udpecho -p 7 -t 4 -s 9 -b udp_flood_rx; netstat; poweroff", nics, tmp)
    try:
        guest.wait_for(r"udpecho: echoing on port 7", 120)
        ul = UdpLink(link)
        assert udp_probe(ul, 30), "udpecho never answered"
        host_benchmarks(guest, ul, fwd_sink, 1)
        r = guest.finish(120)
    finally:
        guest.stop()
        link.close()
        shutil.rmtree(tmp, ignore_errors=True)
    ok, why = r.verdict("poweroff")
    assert ok, f"{why}\n{r.tail(30)}"
