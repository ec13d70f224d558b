"""Seed 000 Figure 11 (the chat benchmark on each RCU variant) from
tools/chatbench.py (`make chatbench`): user/bin/chat.c over UDP on the
loopback interface, files=rcu and files=lock, beside the paper's
finding."""
from qs import REPO

from figs import Section, pyplot, save
from figs.doc import Doc

from qs import chatbench as tool

KEY = "chat"
TITLE = "Seed 000 Figure 11: the chat benchmark on each RCU variant"


def available():
    if not (REPO / "tools" / "chatbench.py").exists() or not (REPO / "user" / "bin" / "chat.c").exists():
        return False, "no tools/chatbench.py or user/bin/chat.c"
    return True, ""


def collect(ctx):
    # The paper's 20 rooms and 500 messages; 5 clients a room is what the
    # kernel's 128 processes allow for 20 rooms. QUICK: a tenth of the
    # messages. One run a boot, to keep make figures short.
    rooms, clients = 20, 5
    messages, repeat = (50, 1) if ctx.quick else (500, 1)
    res = tool.collect(ctx.cpus, rooms, clients, messages, repeat, ctx.kvm)
    return dict(results=res, rooms=rooms, clients=clients, messages=messages, repeat=repeat,
                cpus=ctx.cpus)


def render(data, ctx, out):
    res = data["results"]
    doc = Doc()
    s = Section(KEY, TITLE, doc)
    for stem, modes in res.items():
        for m, x in modes.items():
            s.runs.append(dict(config=f"compare-{stem}", cpus=data["cpus"], accel=x["accel"],
                               cpu=x.get("cpu"), cmdline=x["cmdline"], variant=x.get("banner"),
                               log=x["log"], elapsed_s=x.get("elapsed_s"),
                               status="ok" if x.get("per_s") else (x.get("why") or "?")))
    p = tool.PAPER
    doc.p(f"`tools/chatbench.py` (`make chatbench`): every variant's configuration (the builds "
          f"of `make compare`) booted at -smp {data['cpus']} with `files=rcu` and with "
          f"`files=lock`, and `chat -r {data['rooms']} -c {data['clients']} -m "
          f"{data['messages']}` run {data['repeat']} time(s) a boot: {data['rooms']} rooms of "
          f"{data['clients']} client processes, each client sending {data['messages']} messages "
          "that every other client of its room reads, over UDP on the loopback interface, with a "
          "window per reader so that nothing is lost (docs/chat.md). The paper: "
          f"{p['rooms']} rooms and {p['messages']} messages on a {p['machine']}, with "
          f"{p['patches']}; \"{p['finding']}\". Its clients per room are not stated; ours are "
          "5 because 20 rooms of them, one process each, must fit the kernel's 128 processes.")
    text, _ = tool.report(res, data["cpus"], data["rooms"], data["clients"], data["messages"],
                          data["repeat"])
    rows = []
    rates = []
    for stem, modes in res.items():
        r, lk = (modes.get(m, {}).get("per_s") for m in tool.MODES)
        if r:
            rates.append(r)
        rows.append([stem, r or "?", lk or "?", f"{r / lk:.2f}" if r and lk else "?"])
    doc.table(["variant", "files=rcu (messages read/s)", "files=lock", "rcu ÷ lock"], rows)
    if len(rates) > 1:
        spread = max(rates) / min(rates)
        doc.p(f"Across the variants (files=rcu) the fastest reads {spread:.2f} × as many "
              "messages a second as the slowest" +
              (": little sensitivity to the variant, the paper's finding. The benchmark's time "
               "goes to system calls, the loopback device and scheduling; RCU's read side is "
               "a small share of it and its grace periods only delay frees."
               if spread < 1.3 else
               ": more than the paper's \"little sensitivity\"; under TCG on a shared host a "
               "boot's speed moves with the host's load, so read the spread beside the "
               "host's load in the machine section before blaming a variant."))
    png = plot(res, out / "seed000-fig11-chat.png")
    if png:
        s.pngs.append(png)
        doc.img(png, "seed 000 Figure 11: chat throughput by RCU variant, files=rcu and files=lock")
    doc.p("The table as `make chatbench` prints it:")
    doc.pre(text)
    return s


def plot(res, path):
    stems = [s for s in res if any(res[s].get(m, {}).get("per_s") for m in tool.MODES)]
    if not stems:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.2))
    w = 0.4
    for k, (m, color) in enumerate(zip(tool.MODES, ("tab:blue", "tab:gray"))):
        ys = [res[s].get(m, {}).get("per_s") or 0 for s in stems]
        ax.bar([i + (k - 0.5) * w for i in range(len(stems))], ys, w, label=f"files={m}",
               color=color)
    ax.set_xticks(range(len(stems)))
    ax.set_xticklabels(stems, rotation=30, ha="right")
    ax.set_ylabel("messages read per second")
    ax.set_title("chat benchmark by RCU variant")
    ax.legend()
    return save(fig, path)
