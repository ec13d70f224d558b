"""A guest's serial console, driven by pexpect.

spawn() starts QEMU with its first serial port on a pseudo-terminal
(qs.qemu: serial="stdio") and returns a Console; attach() wraps a console
QEMU serves on a unix socket (make gdb). Either way, everything the guest
prints goes through one Sink, which keeps the log (a file, flushed as it
comes, so `tail -f` works), echoes it if asked, hands each complete line
to a watcher (a test talking to the guest) and notes the host time at
which the CPUs came online.

Typing is done at the guest's pace: Console.type_after(regex, text)
waits until the guest has printed regex and only then sends the text,
and Console.shell(commands) waits for the shell's prompt before each
command, as a person would. A run that does not end within its time is
asked for its Ctrl-T dump (tasks, timers, grace periods: a few seconds at
most), then killed (SIGKILL: the kernel has nothing to flush) and called a
timeout.
"""
import os
import re
import signal
import sys
import termios
import time

import pexpect
import pexpect.fdpexpect

# The shell's prompt (user/bin/sh.c): "$ " at the start of a line.
PROMPT = re.compile(rb"(?:^|\n)\$ ")
# The last line of the Ctrl-T dump (kernel/core/sysrq.c).
STATS_END = re.compile(rb"---- end of statistics ----")
DUMP_LIMIT_S = 5


class Sink:
    """pexpect's logfile_read: every byte the guest prints."""

    def __init__(self, log_path=None, echo=False, watch=None, start=None):
        self.chunks = []
        self.logf = open(log_path, "wb") if log_path else None
        self.echo = echo
        self.watch = watch
        self.start = start if start is not None else time.monotonic()
        self.online_at = None           # seconds from start to "CPUs online in"
        self._line = b""

    def write(self, data):
        self.chunks.append(data)
        if self.logf:
            self.logf.write(data)
            self.logf.flush()
        if self.echo:
            sys.stdout.write(data.decode(errors="replace"))
            sys.stdout.flush()
        self._line += data
        *lines, self._line = self._line.split(b"\n")
        for raw in lines:
            if self.online_at is None and b"CPUs online in" in raw:
                self.online_at = time.monotonic() - self.start
            if self.watch:
                self.watch(raw.decode(errors="replace") + "\n")

    def flush(self):
        pass

    def close(self):
        if self._line and self.watch:
            self.watch(self._line.decode(errors="replace"))
        self._line = b""
        if self.logf:
            self.logf.close()
            self.logf = None

    def text(self):
        return b"".join(self.chunks).decode(errors="replace")


class Console:
    """One guest's console: a pexpect child (QEMU on a pty) or a socket."""

    def __init__(self, child, sink, deadline):
        self.child = child
        self.sink = sink
        self.deadline = deadline         # time.monotonic() at which the run is over
        child.logfile_read = sink

    def left(self):
        return max(0.0, self.deadline - time.monotonic())

    def expect(self, pattern, timeout=None):
        """Wait until the guest prints pattern (a regex, str or bytes);
        False if it ended or the time ran out first."""
        if isinstance(pattern, str):
            pattern = pattern.encode()
        t = self.left() if timeout is None else min(timeout, self.left())
        i = self.child.expect([re.compile(pattern) if isinstance(pattern, bytes) else pattern,
                               pexpect.EOF, pexpect.TIMEOUT], timeout=t)
        return i == 0

    def send(self, text, enter=True):
        """Type text on the console, then Enter (a carriage return, as a
        terminal sends it)."""
        self.child.send(text.encode() + (b"\r" if enter else b""))

    def type_after(self, pattern, text):
        if not self.expect(pattern):
            return False
        self.send(text)
        return True

    def shell(self, commands):
        """Type each command at the shell's prompt, waiting for the prompt
        before each (output from other CPUs may land anywhere meanwhile)."""
        for c in commands:
            if not self.type_after(PROMPT, c):
                return False
        return True


class QemuConsole(Console):
    """QEMU itself under pexpect, its serial port on the pty."""

    def dump_before_kill(self, limit=DUMP_LIMIT_S):
        """A hung guest's last words: press Ctrl-T (kernel/core/sysrq.c)
        and give the kernel a few seconds to print its tasks, timers and
        grace periods into the log, so that a timeout says who waits for
        what. A guest too stuck to answer just costs the few seconds."""
        try:
            self.child.send(b"\x14")
            self.child.expect([STATS_END, pexpect.EOF, pexpect.TIMEOUT], timeout=limit)
        except OSError:
            pass

    def wait(self):
        """Wait for QEMU to exit within the deadline: its exit status, or
        None after killing it at the deadline."""
        i = self.child.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=self.left())
        self.ended = time.monotonic()
        if i == 1 and self.child.isalive():
            self.dump_before_kill()
            self.child.kill(signal.SIGKILL)
        self.child.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=5)
        self.child.close(force=True)
        self.sink.close()
        if i == 1:
            return None
        if self.child.signalstatus is not None:
            return 128 + self.child.signalstatus
        return self.child.exitstatus


def spawn(cmd, timeout, log_path=None, stderr_path=None, echo=False, watch=None, cwd=None):
    """Start cmd (QEMU with serial="stdio") on a pseudo-terminal. QEMU's
    stderr goes to stderr_path, not into the console log."""
    def in_child():
        fd = os.open(stderr_path or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 2)
        os.close(fd)
        # The guest's bytes as they are: no "\n" -> "\r\n" on the way out
        # (QEMU keeps the terminal's output flags when it makes it raw).
        attrs = termios.tcgetattr(1)
        attrs[1] &= ~termios.ONLCR
        termios.tcsetattr(1, termios.TCSANOW, attrs)

    start = time.monotonic()
    sink = Sink(log_path, echo, watch, start)
    child = pexpect.spawn(cmd[0], list(cmd[1:]), timeout=None, echo=False, cwd=cwd,
                          preexec_fn=in_child, maxread=65536)
    return QemuConsole(child, sink, start + timeout)


def attach(sock, timeout, log_path=None, echo=False, watch=None):
    """A Console on a connected socket (QEMU's serial as a unix socket)."""
    start = time.monotonic()
    child = pexpect.fdpexpect.fdspawn(sock.fileno(), timeout=None, maxread=65536)
    return Console(child, Sink(log_path, echo, watch, start), start + timeout)
