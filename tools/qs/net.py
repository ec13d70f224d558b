"""The guest's network cards and the QEMU backends behind them.

Traffic never leaves this machine (docs/design.md, "Networking"): QEMU
user networking with restrict=on and host forwards on 127.0.0.1, or guests
joined by unix datagram sockets. QEMU 7.2's dgram backend carries one
Ethernet frame per datagram and stops reading for good after a zero-length
one.
"""
import socket
from dataclasses import dataclass, field


@dataclass
class Nic:
    """One e1000 in a guest and the QEMU backend behind it:
      user   QEMU's user networking (slirp) with restrict=on: the guest is
             10.0.2.15, the gateway 10.0.2.2; hostfwd=[(host_port,
             guest_port)] forwards UDP from 127.0.0.1 on the host;
      dgram  a unix datagram socket at local, sending to the one at
             remote: another guest's, or a test's (raw Ethernet frames,
             one per datagram; QEMU 7.2 stops reading for good after a
             zero-length datagram, so never send one).
    pcap: a file for -object filter-dump (every frame, both directions,
    the first PCAP_SNAPLEN bytes of each); boot() puts one beside the log
    unless dump is False (a flood's millions of frames tell nothing)."""
    kind: str = "user"
    hostfwd: list = field(default_factory=list)
    local: str = None
    remote: str = None
    mac: str = None
    pcap: str = None
    dump: bool = True


PCAP_SNAPLEN = 256


def nic_args(nics):
    """QEMU arguments for the guest's NICs; -nic none without any, so that
    no default card appears on an unrestricted network."""
    if not nics:
        return ["-nic", "none"]
    args = []
    for i, n in enumerate(nics):
        nid = f"net{i}"
        if n.kind == "user":
            spec = f"user,id={nid},restrict=on" + "".join(
                f",hostfwd=udp:127.0.0.1:{h}-:{g}" for h, g in n.hostfwd)
        elif n.kind == "dgram":
            spec = (f"dgram,id={nid},local.type=unix,local.path={n.local},"
                    f"remote.type=unix,remote.path={n.remote}")
        else:
            raise ValueError(f"unknown NIC kind {n.kind!r}")
        args += ["-netdev", spec, "-device", f"e1000,netdev={nid}" + (f",mac={n.mac}" if n.mac else "")]
        if n.pcap:
            args += ["-object", f"filter-dump,id=dump{i},netdev={nid},file={n.pcap},"
                                f"maxlen={PCAP_SNAPLEN}"]
    return args


def free_udp_port():
    """A UDP port on 127.0.0.1 nobody holds now (for a hostfwd)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
