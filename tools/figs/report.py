"""The report: the machine, what ran, each part's section, the targets;
written as report.md and report.html beside the PNGs."""
from figs import accel_label
from figs.doc import Doc


def machine(meta, sections):
    """The machine table, and the warnings a reader must see first."""
    m = meta["machine"]
    runs = [r for s in sections for r in s.runs]
    accels = sorted({r["accel"] for r in runs if r.get("accel")}) or ["(no boot)"]
    labels = sorted({accel_label(r) for r in runs if r.get("accel")}) or ["(no boot)"]
    vcpus = max([r["cpus"] for r in runs if r.get("cpus")] or [meta["cpus"]])
    cores = m["host_cores"]
    doc = Doc()
    doc.h(2, "The machine")
    doc.table(["", ""], [
        ["host CPU", m["cpu_model"]],
        ["host cores (nproc)", cores],
        ["host caches, memory", f"{m['caches']}; {m['memory_gib']} GiB"],
        ["host kernel, QEMU", f"{m['host_kernel']}; {m['qemu']}"],
        ["accelerator", ", ".join(labels)
         + (f"; asked for KVM={meta.get('kvm')}" if str(meta.get("kvm", "0")) != "0" else
            "" if "kvm" in accels else " (KVM=1 to ask for KVM; /dev/kvm "
            + ("present" if m["kvm_device"] else "absent") + ")")],
        ["host's KVM", m.get("kvm_module", "?") + (f"; the probe: {m['kvm_probe']}"
                                                   if m.get("kvm_probe") else "")],
        ["virtual CPUs", f"CPUS={meta['cpus']} (the most any boot had: {vcpus})"],
        ["host load average (1, 5, 15 min)", f"{m['load_start']} at the start, "
                                             f"{meta.get('load_end')} at the end"],
        ["tree", f"commit {m['commit']}"],
        ["run", f"`{meta['command']}`, started {m['started']}, "
                f"{meta['wall_s'] / 60:.1f} minutes"],
    ])
    notes = []
    if vcpus > cores:
        notes.append(f"**Overcommitted**: {vcpus} virtual CPUs on {cores} host cores. The "
                     "virtual CPUs take turns on the host's cores, so every figure by CPU "
                     "count measures the host's scheduler as much as the kernel: read the "
                     "ratios between disciplines in one row, not the scaling.")
    if m["load_start"] and m["load_start"][0] > 0.5 * cores:
        notes.append(f"**Loaded host**: the load average was {m['load_start'][0]} on {cores} "
                     "cores when the run started; other work took host time from the virtual "
                     "CPUs, so figures moved between cells by more than the kernel's doing.")
    if notes:
        doc.ul(notes)
    return doc


def accel_cell(runs):
    """Which accelerator and CPU model a part's boots used, and why any
    that asked for KVM ran under TCG."""
    if not runs:
        return ""
    labels = sorted({accel_label(r) for r in runs})
    why = sorted({r["accel_why"].split(": ", 1)[-1] for r in runs
                  if r.get("accel") == "tcg" and "KVM not used" in (r.get("accel_why") or "")})
    return ", ".join(labels) + "".join(f"; {w}" for w in why)


def contents(sections):
    doc = Doc()
    doc.h(2, "What ran")
    rows = []
    for s in sections:
        cfgs = sorted({f"{r.get('config')} ({r.get('variant')}, -smp {r.get('cpus')})"
                       for r in s.runs})
        rows.append([s.title, s.status, "" if s.wall_s is None else f"{s.wall_s:.0f}",
                     "; ".join(cfgs[:4]) + (f"; and {len(cfgs) - 4} more" if len(cfgs) > 4 else ""),
                     accel_cell(s.runs)])
    doc.table(["part", "status", "wall s", "configurations booted", "accelerator"], rows)
    return doc


def targets(meta, sections):
    doc = Doc()
    doc.h(2, "Targets (benchmarks: printed, never asserted)")
    items = [f"{s.title.split(':')[0]}: {t}" for s in sections for t in s.targets]
    limit = 5 if meta["quick"] else 30
    wall = meta["wall_s"] / 60
    items.append(f"`make figures{' QUICK=1' if meta['quick'] else ''}` under {limit} minutes on 2 "
                 f"cores: {wall:.1f} minutes on {meta['machine']['host_cores']} host cores"
                 + (f" ({'met' if wall < limit else 'NOT met'})"
                    if meta["machine"]["host_cores"] == 2 else " (not a 2-core host)"))
    doc.ul(items)
    return doc


def write(meta, sections, out):
    """report.md and report.html in out; returns their paths."""
    doc = Doc()
    doc.h(1, "Quiescent: the papers' figures")
    doc.p(f"Written by `tools/figures.py` (`make figures`). Every number below was measured in "
          f"the boots listed under each part; the paper's numbers stand beside ours with one "
          f"sentence on each difference. How to read each figure: `docs/figures.md`.")
    doc.extend(machine(meta, sections))
    doc.extend(contents(sections))
    for s in sections:
        doc.h(2, s.title)
        if s.status != "ok":
            doc.p(f"**{s.status}**")
        doc.extend(s.doc)
    doc.extend(targets(meta, sections))
    md, html = out / "report.md", out / "report.html"
    md.write_text(doc.to_markdown())
    html.write_text(doc.to_html("Quiescent: the papers' figures"))
    return md, html
