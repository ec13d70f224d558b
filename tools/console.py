#!/usr/bin/env python3
"""make console: this terminal on the serial console of the kernel that
`make gdb` is debugging (QEMU serves it on build/<name>/console.sock).

  tools/console.py [--build-dir build] [SOCKET]

Keys go to the guest as typed (the terminal in raw mode, Enter as a
carriage return, like a serial line); Ctrl-] leaves. The last lines the
guest printed before you attached come first, from the session's log, so
the prompt you attach at is on screen. Without a terminal on stdin (a
script), stdin's lines are typed and the output printed until QEMU closes
the console.
"""
import argparse
import os
import selectors
import sys
import termios
import tty
from pathlib import Path

from qs import REPO
from qs.gdb import connect_unix, console_paths

QUIT = b"\x1d"                   # Ctrl-]


def find_socket(build_dir, path):
    """The socket to attach to: the one named, else build_dir's, else the
    newest under build/ (make gdb RCU=x puts it in build/rcu_x)."""
    if path:
        return Path(path)
    bdir = Path(build_dir)
    bdir = bdir if bdir.is_absolute() else REPO / bdir
    sock, _ = console_paths(bdir)
    if sock.exists():
        return sock
    found = sorted((REPO / "build").glob("**/console.sock"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise SystemExit(f"console: no {os.path.relpath(sock, REPO)}: start `make gdb` first "
                         f"(with the same O= or RCU=)")
    print(f"console: no {os.path.relpath(sock, REPO)}; attaching to the newest, "
          f"{os.path.relpath(found[-1], REPO)}", file=sys.stderr)
    return found[-1]


def replay_tail(sock_path, lines=15):
    log = console_paths(sock_path.parent)[1]
    if log.exists():
        tail = log.read_bytes().split(b"\n")[-lines:]
        sys.stdout.buffer.write(b"\n".join(tail))
        sys.stdout.flush()


def relay(sock, interactive):
    sel = selectors.DefaultSelector()
    sel.register(sock, selectors.EVENT_READ)
    stdin = sys.stdin.buffer.raw if hasattr(sys.stdin.buffer, "raw") else sys.stdin.buffer
    sel.register(stdin, selectors.EVENT_READ)
    out = sys.stdout.buffer
    while True:
        for key, _ in sel.select():
            if key.fileobj is sock:
                data = sock.recv(65536)
                if not data:
                    return "QEMU closed the console"
                out.write(data)
                out.flush()
                continue
            data = os.read(stdin.fileno(), 4096)
            if not data:                     # a script's stdin ended: keep printing
                sel.unregister(stdin)
                continue
            if interactive and QUIT in data:
                data = data[:data.index(QUIT)]
                if data:
                    sock.sendall(data)
                return "left (Ctrl-])"
            if not interactive:
                data = data.replace(b"\n", b"\r")
            sock.sendall(data)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build", help="the O= of make gdb (default build)")
    ap.add_argument("socket", nargs="?", help="the console socket (default: the build dir's)")
    a = ap.parse_args(argv)
    path = find_socket(a.build_dir, a.socket)
    try:
        sock = connect_unix(path)
    except OSError as e:
        raise SystemExit(f"console: cannot attach to {path}: {e.strerror} (is make gdb running?)")
    interactive = os.isatty(sys.stdin.fileno())
    print(f"console: attached to {os.path.relpath(path, REPO)}"
          + ("; Ctrl-] leaves" if interactive else ""), file=sys.stderr)
    replay_tail(path)
    saved = termios.tcgetattr(sys.stdin.fileno()) if interactive else None
    try:
        if interactive:
            tty.setraw(sys.stdin.fileno())
        why = relay(sock, interactive)
    finally:
        if saved:
            termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)
        sock.close()
    print(f"\r\nconsole: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
