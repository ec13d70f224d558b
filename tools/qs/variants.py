"""The RCU variants: the one list is kernel/rcu/Kconfig's choice "RCU
implementation", read here for every tool and, through tools/variants.py,
for kernel/rcu/variants.mk.

Each entry of the choice is `config RCU_<NAME>` with a prompt that starts
"<name>: " (docs/rcu/README.md, "Names"); the name written with _ for -
is its stem, which names its file kernel/rcu/rcu_<stem>.c and its
defconfigs configs/rcu_<stem>_defconfig (and rcu_<stem>_kpreempt_defconfig
for the preemptible kernel, where there is one). A variant is added to the
tree by adding it there; what else a variant must have (a doc page, a gdb
view, a row in the papers' figures) tests/test_variant_list.py names.

The list's order is the choice's default first, then by name: a new
entry's place in Kconfig does not reorder every tool's output.
"""
import re
import sys
from dataclasses import dataclass

from qs import REPO

KCONFIG = "kernel/rcu/Kconfig"
CHOICE_PROMPT = "RCU implementation"

# The variants that are not a correct RCU as the tree ships them, and so
# are left out of what measures or tortures every variant: their own
# scenarios and grading expect them to fail.
NOT_REAL = {
    "busted": "grace periods end at once, to show that the tests catch it",
    "student": "lab 4's skeleton, which runs callbacks at once until the student writes it",
}


@dataclass(frozen=True)
class Variant:
    name: str          # as the kernel, RCU= and the docs spell it: poll-percpu
    symbol: str        # its Kconfig symbol: RCU_POLL_PERCPU

    @property
    def stem(self):
        """The name joined to the rest of a file name: poll_percpu."""
        return self.name.replace("-", "_")

    @property
    def source(self):
        return f"kernel/rcu/rcu_{self.stem}.c"

    def defconfig(self, kpreempt=False):
        return f"rcu_{self.stem}{'_kpreempt' if kpreempt else ''}_defconfig"


def _choice_text(text):
    """The lines of the choice whose prompt is CHOICE_PROMPT."""
    for m in re.finditer(r"^choice\n(.*?)^endchoice", text, re.M | re.S):
        if re.search(rf'^\s+prompt "{CHOICE_PROMPT}"', m.group(1), re.M):
            return m.group(1)
    raise ValueError(f"{KCONFIG}: no choice with the prompt \"{CHOICE_PROMPT}\"")


def read(repo=REPO):
    """Every variant, in the list's order (see the module's text)."""
    body = _choice_text((repo / KCONFIG).read_text())
    default = re.search(r"^\s+default (\w+)", body, re.M)
    found = []
    for m in re.finditer(r'^config (\w+)\n\s+bool "([^":]+):', body, re.M):
        symbol, name = m.groups()
        if symbol != "RCU_" + name.upper().replace("-", "_"):
            raise ValueError(f"{KCONFIG}: {symbol}'s prompt names it {name!r}: "
                             f"the symbol of variant {name} is RCU_{name.upper().replace('-', '_')}")
        found.append(Variant(name, symbol))
    if len(found) != len(re.findall(r"^config ", body, re.M)):
        raise ValueError(f"{KCONFIG}: every entry of the choice is `config RCU_<NAME>` "
                         "with a prompt `bool \"<name>: ...\"`")
    first = default.group(1) if default else None
    return sorted(found, key=lambda v: (v.symbol != first, v.name))


def names(repo=REPO):
    return [v.name for v in read(repo)]


def real(repo=REPO):
    """The variants meant to be correct: every one less NOT_REAL."""
    return [v for v in read(repo) if v.name not in NOT_REAL]


def find(name, repo=REPO):
    """The variant called name, written with - or _ (RCU= takes either)."""
    for v in read(repo):
        if name in (v.name, v.stem):
            return v
    raise KeyError(f"no RCU variant {name!r}; {KCONFIG} has: {' '.join(names(repo))}")


def defconfig_facts(defconfig, repo=REPO):
    """(preemption model, CONFIG_NR_CPUS or None) that configs/<defconfig>
    asks for, or None if there is no such file."""
    path = repo / "configs" / defconfig
    if not path.exists():
        return None
    text = path.read_text()
    nr = re.search(r"^CONFIG_NR_CPUS=(\d+)$", text, re.M)
    model = "kpreempt" if re.search(r"^CONFIG_KPREEMPT=y$", text, re.M) else "none"
    return model, int(nr.group(1)) if nr else None


def configs(variant, repo=REPO):
    """[(defconfig, model, NR_CPUS)] of the variant's defconfigs that exist."""
    out = []
    for cfg in (variant.defconfig(), variant.defconfig(kpreempt=True)):
        facts = defconfig_facts(cfg, repo)
        if facts:
            out.append((cfg, *facts))
    return out


def make_lines(repo=REPO):
    """kernel/rcu/variants.mk's line for each variant's own file."""
    return [f"rcu-variant-$(CONFIG_{v.symbol}) += {v.source}" for v in read(repo)]


def main(argv=None):
    """Print the variants' names, or with --make the lines variants.mk includes."""
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--make"]):
        sys.exit("usage: tools/variants.py [--make]")
    try:
        if argv:
            print(f"# Each RCU variant's own file, from {KCONFIG}'s choice (tools/variants.py --make).")
            print("\n".join(make_lines()))
        else:
            print(" ".join(names()))
    except (OSError, ValueError) as e:
        sys.exit(f"variants: {e}")
