"""The QEMU command line, built in one place (docs/design.md), and what
QEMU's exit status means.

The kernel ends a run through isa-debug-exit (port 0xf4): it writes v and
QEMU exits with (v << 1) | 1, so 33 is a pass, 35 a failure, 37 a panic;
0 follows an ACPI power-off; anything else is a crash (a triple fault
resets the machine, and -no-reboot turns that into an exit).
"""
from pathlib import Path

from qs import replay
from qs.kvm import TCG_CPU, kvm_cpu_model
from qs.net import nic_args

EXIT_PASS, EXIT_FAIL, EXIT_PANIC = 33, 35, 37
STATUS_BY_CODE = {EXIT_PASS: "pass", EXIT_FAIL: "fail", EXIT_PANIC: "panic", 0: "poweroff"}
MEMORY = "512M"


def serial_args(serial):
    """The first serial port:
      "stdio"        the console on QEMU's stdin/stdout, which the runner
                     drives (qs.console); signal=off, so that a byte typed
                     at the guest (Ctrl-C is 0x03) never stops QEMU
      "mon:stdio"    a person's terminal: the console, Ctrl-A C the monitor
      ("socket", path, log)   a unix socket QEMU listens on, for `make
                     console`; everything the guest prints also goes to log
      anything else  QEMU's own -serial syntax (file:PATH, ...)"""
    if serial == "stdio":
        return ["-chardev", "stdio,id=console,signal=off", "-serial", "chardev:console"]
    if isinstance(serial, tuple) and serial[0] == "socket":
        _, path, log = serial
        spec = f"socket,id=console,path={path},server=on,wait=off"
        if log:
            spec += f",logfile={log}"
        return ["-chardev", spec, "-serial", "chardev:console"]
    return ["-serial", serial]


def qemu_command(image, boot="kernel", cpus=4, cmdline="", accel="tcg", serial="stdio",
                 gdb_port=None, stopped=False, extra=(), nics=None, cpu=None):
    """The one QEMU command line of the project. image is the ELF (boot=kernel)
    or the ISO (boot=iso; then the command line is in its grub.cfg). nics:
    the guest's network cards (qs.net.Nic); none by default. cpu: QEMU's
    -cpu; by default `max` under TCG and, under KVM, the model the KVM
    probe found boots here (qs.kvm: `host` is refused by some nested
    hypervisors). In the deterministic mode (qs.replay: QS_DETERMINISTIC=1)
    the accelerator, the CPU, the clocks and the command line are that
    mode's, whatever was asked: this is where every boot gets them."""
    det = replay.enabled()
    if det:
        replay.refuse_nics(nics)
        replay.refuse_build(image)
        if serial == "mon:stdio":
            replay.note(replay.TYPING_NOTE)
        if gdb_port:
            replay.note(replay.GDB_NOTE)
        accel, cpu = "tcg", replay.CPU
        if boot != "iso":
            cmdline = replay.kernel_cmdline(cmdline)
        else:
            # GRUB's command line is in the ISO; without RDRAND the route
            # cache's key comes from the TSC, virtual time here: still the
            # same from run to run at one shift.
            replay.note("an ISO boot keeps its own command line (no rtcache.secret=)")
    cmd = ["qemu-system-x86_64", "-M", "q35", "-m", MEMORY, "-smp", str(cpus),
           "-display", "none", "-no-reboot",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"] + serial_args(serial)
    if serial != "mon:stdio":
        cmd += ["-monitor", "none"]
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", cpu or kvm_cpu_model()]
    elif det:
        cmd += replay.accel_args() + ["-cpu", cpu]
    else:
        cmd += ["-accel", "tcg,thread=multi", "-cpu", cpu or TCG_CPU]
    if boot == "iso":
        cmd += ["-cdrom", str(image)]
    else:
        cmd += ["-kernel", str(replay.boot_file_alias(image) if det else image)]
        # The user programs, as a Multiboot module (the ISO carries its own).
        initrd = Path(image).with_name("initrd.cpio")
        if initrd.exists():
            cmd += ["-initrd", str(replay.boot_file_alias(initrd) if det else initrd)]
        if cmdline:
            cmd += ["-append", cmdline]
    if gdb_port:
        cmd += ["-gdb", f"tcp:127.0.0.1:{gdb_port}"]
    if stopped:
        cmd += ["-S"]
    return cmd + nic_args(nics) + list(extra)
