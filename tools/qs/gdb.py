"""QEMU stopped at the first instruction under gdb (make gdb), with the
console on a unix socket so that the student can type at the shell in a
second terminal (make console, tools/console.py) while gdb holds the
first, as xv6's make qemu-gdb does.

QEMU listens on build/<name>/console.sock and also writes everything the
guest prints to build/<name>/logs/gdb-serial.log (its chardev logfile), so
the boot is on record even before anyone attaches. The gdb stub listens on
127.0.0.1:(1234 + uid % 1000), or the next free port.
"""
import ctypes
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from qs import REPO
from qs.qemu import qemu_command


def gdb_port(base=None):
    """1234 + uid % 1000, or the first free port after it. Each pytest
    worker starts 20 ports further on: two workers that probe the same
    free port at once would both give it to QEMU, and one stub would not
    listen."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    offset = 20 * int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0
    port = base or 1234 + os.getuid() % 1000 + offset
    for p in range(port, port + 200):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
                return p
            except OSError:
                continue
    raise SystemExit("qrun: no free TCP port for the gdb stub")


def gdb_command(elf, port, batch_cmds=None):
    cmd = ["gdb", "-q", "-nx",
           "-iex", "set pagination off",
           "-iex", "set confirm off",
           "-ex", f"file {elf}",
           "-ex", f"source {REPO / 'tools' / 'gdb' / 'quiescent.py'}",
           "-ex", f"target remote 127.0.0.1:{port}"]
    if batch_cmds is not None:
        cmd.insert(1, "-batch")
        for c in batch_cmds:
            cmd += ["-ex", c]
    return cmd


def console_paths(build_dir):
    """(socket, log) of the gdb console of a build directory. A pytest
    worker's are its own (console-gw1.sock): two workers that compute one
    module fixture at once, each its own session on one build, would
    otherwise unlink each other's socket and truncate each other's log,
    and the first would wait in vain for its socket to appear."""
    bdir = Path(build_dir)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    tag = f"-{worker}" if worker else ""
    return bdir / f"console{tag}.sock", bdir / "logs" / f"gdb-serial{tag}.log"


def connect_unix(path):
    """A stream socket connected to path, however long the path: a unix
    socket address holds 108 bytes, so connect through the directory's
    /proc/self/fd entry."""
    path = Path(path)
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(f"/proc/self/fd/{dfd}/{path.name}")
        except OSError:
            s.close()
            raise
        return s
    finally:
        os.close(dfd)


def _die_with_parent():
    """In the child before exec: SIGKILL when the runner dies, however it
    dies (QEMU is in a session of its own, out of reach of the terminal's
    signals, and would otherwise idle on forever)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Session:
    """QEMU stopped (-S) with the gdb stub and the console socket; a context
    manager that ends QEMU on the way out. stopped=False: running from its
    first instruction, gdb to attach later (make replay STOP=)."""

    def __init__(self, elf, image=None, boot="kernel", cpus=4, cmdline="", serial_log=None,
                 stopped=True):
        self.elf = Path(elf)
        self.port = gdb_port()
        self.sock_path, self.log_path = console_paths(self.elf.parent)
        if serial_log:
            self.log_path = Path(serial_log)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_path.write_bytes(b"")
        self.sock_path.unlink(missing_ok=True)
        # QEMU runs in REPO with the socket's path relative to it: short
        # enough for a unix socket address wherever the tree is.
        rel = os.path.relpath(self.sock_path, REPO)
        self.cmd = qemu_command(image or elf, boot=boot, cpus=cpus, cmdline=cmdline, accel="tcg",
                                serial=("socket", rel, str(self.log_path)), gdb_port=self.port,
                                stopped=stopped)
        # Its own session: Ctrl-C in gdb's terminal is for gdb, not for QEMU.
        self.qemu = subprocess.Popen(self.cmd, cwd=REPO, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True, preexec_fn=_die_with_parent)
        try:
            self._wait_listening()
        except BaseException:
            self.close()
            raise

    def _wait_listening(self):
        # Up to 90 s: two test workers' builds and boots beside this QEMU
        # on two host cores have kept it from listening for over 30.
        for _ in range(1800):
            if self.sock_path.exists() and self._stub_listens():
                return
            if self.qemu.poll() is not None:
                raise SystemExit("qrun: QEMU exited at once:\n" + self.qemu.stdout.read().decode())
            time.sleep(0.05)
        raise SystemExit(f"qrun: QEMU's gdb stub did not listen on port {self.port}")

    def _stub_listens(self):
        """Whether the gdb stub's port is in LISTEN, from /proc/net/tcp: a
        connection to ask would be taken for gdb's, and QEMU stops a
        running machine when gdb connects (make replay STOP= attaches
        only once the kernel has stopped its own run)."""
        want = f":{self.port:04X}"
        rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
        return any(r.split()[1].endswith(want) and r.split()[3] == "0A" for r in rows)

    def gdb_command(self, batch_cmds=None):
        return gdb_command(self.elf, self.port, batch_cmds)

    def serial_text(self):
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def close(self):
        if self.qemu.poll() is None:
            self.qemu.kill()
        self.qemu.wait()
        self.sock_path.unlink(missing_ok=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def gdb_session(elf, image=None, boot="kernel", cpus=4, cmdline="", batch_cmds=None,
                timeout=120, serial_log=None):
    """Start QEMU stopped (-S) with the gdb stub, attach gdb. With batch_cmds
    run them and return (gdb_output, serial_log_text); else interactive:
    gdb on this terminal, the console on the socket."""
    with Session(elf, image, boot, cpus, cmdline, serial_log) as s:
        gcmd = s.gdb_command(batch_cmds)
        if batch_cmds is None:
            rel_log = os.path.relpath(s.log_path, REPO)
            rel_dir = os.path.relpath(s.elf.parent, REPO)
            print(f"qrun: QEMU stopped at the first instruction, gdb stub on 127.0.0.1:{s.port}\n"
                  f"qrun: the console: in a second terminal, `make console O={rel_dir}` "
                  f"(Ctrl-] leaves it); everything it prints is also in {rel_log}\n"
                  f"qrun: try  continue, then Ctrl-C, qs-rcu-gp, continue, and `rcu sync` at "
                  f"the console (qs-help lists Quiescent's commands)")
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C belongs to gdb
            subprocess.call(gcmd)
            return None, s.serial_text()
        p = subprocess.run(gcmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout)
        return p.stdout, s.serial_text()
