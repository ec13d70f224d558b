#!/usr/bin/env python3
"""Configuration front end: kconfiglib on the top-level Kconfig, one .config per build dir.

Usage (from the Makefile, with KCONFIG_CONFIG=$(O)/.config in the environment):
  kconfig.py defconfig FILE   write .config from a defconfig in configs/
  kconfig.py olddefconfig     update .config to the current Kconfig, new symbols at default
  kconfig.py menuconfig       the curses menu
  kconfig.py savedefconfig    write the minimal defconfig to $(O)/defconfig
  kconfig.py genconfig        write $(O)/include/generated/autoconf.h and $(O)/auto.conf
"""
import os
import sys

try:
    import kconfiglib
except ImportError:
    sys.exit("kconfig: the Python package 'kconfiglib' is missing.\n"
             "  Install it with:  python3 -m pip install kconfiglib\n"
             "  (or run tools/setup-deps.sh, which installs everything the build needs)")


def load(strict_config=True):
    kconf = kconfiglib.Kconfig("Kconfig", warn_to_stderr=False)
    kconf.warn_assign_undef = True      # CONFIG_TYPO=y is an error, not silence
    cfg = os.environ.get("KCONFIG_CONFIG", "build/.config")
    return kconf, cfg


# Symbols renamed since a .config may have been written: named in the error.
# The preemptible kernel is KPREEMPT because "preempt" alone is the
# rcu-preempt variant (docs/scheduler.md).
RENAMED = {"PREEMPT": "KPREEMPT", "PREEMPT_NONE": "KPREEMPT_NONE"}


def fail_on_warnings(kconf, what):
    """A bad configuration fails the build with a readable message."""
    for sym in kconf.unique_defined_syms:
        sym.str_value                   # range checks only warn when a value is computed
    bad = [w for w in kconf.warnings
           if any(s in w for s in ("undefined symbol", "was assigned the value",
                                   "is not a valid", "is invalid for",
                                   "outside the active range", "malformed"))]
    # A bool asked for as y that its dependencies turn off (an option that
    # needs one CPU, a variant's option on another variant) is an error too,
    # not a silent n.
    for sym in kconf.unique_defined_syms:
        if sym.orig_type in (kconfiglib.BOOL, kconfiglib.TRISTATE) and \
                sym.user_value == 2 and sym.tri_value != 2 and \
                (sym.choice is None or sym.choice.user_selection is sym):
            bad.append(f"CONFIG_{sym.name}=y cannot be set: it depends on "
                       f"{kconfiglib.expr_str(sym.direct_dep)}, which does not hold here")
    if bad:
        sys.stderr.write(f"kconfig: {what} has errors:\n")
        for w in bad:
            sys.stderr.write("  " + w.replace("\n", "\n  ") + "\n")
        for old, new in RENAMED.items():
            if any(f"undefined symbol {old}\n" in w + "\n" for w in bad):
                sys.stderr.write(f"CONFIG_{old} is now CONFIG_{new}: edit {what}, or make it again "
                                 f"from configs/ (make <name>_defconfig).\n")
        sys.stderr.write("Allowed values are listed by 'make menuconfig' and in the Kconfig files.\n")
        sys.exit(1)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd = sys.argv[1]
    kconf, cfg = load()
    out = os.path.dirname(cfg) or "."
    if cmd == "defconfig":
        src = sys.argv[2]
        if not os.path.exists(src):
            names = sorted(f for f in os.listdir("configs") if f.endswith("defconfig"))
            sys.exit(f"kconfig: no such configuration '{src}'. Available:\n  " + "\n  ".join(names))
        kconf.load_config(src)
        fail_on_warnings(kconf, src)
        kconf.write_config(cfg)
        print(f"  CONFIG  {cfg} from {src}")
    elif cmd == "olddefconfig":
        if os.path.exists(cfg):
            kconf.load_config(cfg)
            fail_on_warnings(kconf, cfg)
        kconf.write_config(cfg)
    elif cmd == "menuconfig":
        import menuconfig
        if os.path.exists(cfg):
            kconf.load_config(cfg)
        menuconfig.menuconfig(kconf)
    elif cmd == "savedefconfig":
        kconf.load_config(cfg)
        dst = os.path.join(out, "defconfig")
        kconf.write_min_config(dst)
        print(f"  CONFIG  minimal configuration written to {dst}")
    elif cmd == "genconfig":
        kconf.load_config(cfg)
        fail_on_warnings(kconf, cfg)
        os.makedirs(os.path.join(out, "include", "generated"), exist_ok=True)
        kconf.write_autoconf(os.path.join(out, "include", "generated", "autoconf.h"))
        kconf.write_config(os.path.join(out, "auto.conf"), header="")
        # auto.conf is the Makefile's stamp: always fresh after genconfig.
        # autoconf.h keeps its old time when its content did not change,
        # so a touched but unchanged .config rebuilds nothing.
        os.utime(os.path.join(out, "auto.conf"), None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
