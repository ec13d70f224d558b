"""Frames built by hand for tests that talk to a guest over a raw link:
Ethernet, ARP, IPv4, UDP and ICMP, each field settable so that a test can
make it wrong on purpose. Checksums are computed unless given.

RawLink is the host end of a QEMU `-netdev dgram` whose other end is the
guest's NIC: one Ethernet frame per unix datagram, both ways. It answers
ARP requests for its own address, so the guest can answer us.
"""
import os
import random
import select
import socket
import struct
import time

ETH_P_IP, ETH_P_ARP = 0x0800, 0x0806


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def ip(s):
    return socket.inet_aton(s)


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def eth(dst, src, etype, payload):
    return dst + src + struct.pack("!H", etype) + payload


def arp(op, sha, spa, tha, tpa, hrd=1, pro=ETH_P_IP, hln=6, pln=4):
    return struct.pack("!HHBBH", hrd, pro, hln, pln, op) + sha + spa + tha + tpa


def ipv4(src, dst, proto, payload, ttl=64, ihl=None, options=b"", version=4, tot_len=None,
         frag=0, check=None, ident=1):
    ihl = ihl if ihl is not None else 5 + len(options) // 4
    hlen = 20 + len(options)
    tot = tot_len if tot_len is not None else hlen + len(payload)
    hdr = struct.pack("!BBHHHBBH4s4s", version << 4 | (ihl & 0xf), 0, tot & 0xffff, ident, frag,
                      ttl, proto, 0, src, dst) + options
    c = csum(hdr) if check is None else check
    hdr = hdr[:10] + struct.pack("!H", c) + hdr[12:]
    return hdr + payload


def udp(src, dst, sport, dport, data, length=None, check=None):
    ln = length if length is not None else 8 + len(data)
    hdr = struct.pack("!HHHH", sport, dport, ln & 0xffff, 0)
    if check is None:
        pseudo = src + dst + struct.pack("!BBH", 0, 17, 8 + len(data))
        check = csum(pseudo + hdr + data) or 0xffff
    return hdr[:6] + struct.pack("!H", check) + data


def icmp(type_, code, rest, data, check=None):
    msg = struct.pack("!BBH", type_, code, 0) + rest + data
    c = csum(msg) if check is None else check
    return msg[:2] + struct.pack("!H", c) + msg[4:]


def parse_eth(frame):
    return frame[0:6], frame[6:12], struct.unpack("!H", frame[12:14])[0], frame[14:]


class RawLink:
    """The host end of a guest's dgram NIC, in directory tmp. others:
    {ip: mac} of more hosts on this wire whose ARP requests it answers
    (several next hops behind one link)."""

    def __init__(self, tmp, my_mac, my_ip, others=None):
        self.host_path = os.path.join(tmp, "host.sock")
        self.guest_path = os.path.join(tmp, "guest.sock")
        self.mac, self.ip = mac(my_mac), ip(my_ip)
        self.arp_table = {self.ip: self.mac}
        self.arp_table.update({ip(a): mac(m) for a, m in (others or {}).items()})
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.host_path)
        self.sent = 0

    def close(self):
        self.sock.close()

    def send(self, frame):
        assert frame, "QEMU's dgram backend stops reading after an empty datagram"
        try:
            self.sock.sendto(frame, self.guest_path)
            self.sent += 1
        except (FileNotFoundError, ConnectionRefusedError):
            pass                            # QEMU is not listening yet

    def recv(self, timeout):
        """The next frame from the guest (ARP requests for us are answered
        on the way), or None after timeout seconds."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return None
            frame = self.sock.recv(65536)
            if len(frame) >= 42:
                dst, src, etype, p = parse_eth(frame)
                who = p[24:28]
                if etype == ETH_P_ARP and p[6:8] == b"\0\1" and who in self.arp_table:
                    m = self.arp_table[who]
                    self.send(eth(src, m, ETH_P_ARP, arp(2, m, who, p[8:14], p[14:18])))
            return frame

    def expect(self, pred, timeout, resend=None, every=0.3):
        """Frames until pred(frame) is true; resend() every `every` seconds
        meanwhile. The frame, or None after timeout."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if resend:
                resend()
            stop = min(end, time.monotonic() + every)
            while time.monotonic() < stop:
                f = self.recv(stop - time.monotonic())
                if f is not None and pred(f):
                    return f
        return None


def random_frames(n, dst, src, seed=1):
    """n frames of random bytes after a real Ethernet header: EtherType IPv4,
    ARP or random; lengths from 14 to 1514."""
    rnd = random.Random(seed)
    frames = []
    for _ in range(n):
        etype = rnd.choice([ETH_P_IP, ETH_P_IP, ETH_P_ARP, rnd.randrange(0x600, 0x10000)])
        body = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 1500)))
        if etype == ETH_P_IP and rnd.random() < 0.5:
            body = b"\x45" + body[1:]       # a plausible first byte, to get further in
        frames.append(eth(dst, src, etype, body))
    return frames
