"""One text, two renderings: the report is written once as blocks
(headings, paragraphs, tables, images, lists, preformatted text) and
rendered as Markdown (report.md) and as a self-contained HTML page
(report.html). Inline markup is the Markdown subset `code`, **bold** and
[text](url), which to_html() translates."""
import html
import re


class Doc:
    def __init__(self):
        self.blocks = []

    def h(self, level, text):
        self.blocks.append(("h", level, text))

    def p(self, text):
        self.blocks.append(("p", text))

    def ul(self, items):
        self.blocks.append(("ul", list(items)))

    def table(self, head, rows):
        self.blocks.append(("table", list(head), [list(r) for r in rows]))

    def img(self, src, alt):
        self.blocks.append(("img", src, alt))

    def pre(self, text):
        self.blocks.append(("pre", text))

    def extend(self, other):
        self.blocks += other.blocks

    def to_markdown(self):
        out = []
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                out.append("#" * b[1] + " " + b[2])
            elif kind == "p":
                out.append(b[1])
            elif kind == "ul":
                out.append("\n".join(f"- {i}" for i in b[1]))
            elif kind == "table":
                head, rows = b[1], b[2]
                lines = ["| " + " | ".join(map(str, head)) + " |", "|" + "---|" * len(head)]
                lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |"
                          for r in rows]
                out.append("\n".join(lines))
            elif kind == "img":
                out.append(f"![{b[2]}]({b[1]})")
            elif kind == "pre":
                out.append("```\n" + b[1].rstrip("\n") + "\n```")
        return "\n\n".join(out) + "\n"

    def to_html(self, title):
        body = []
        for b in self.blocks:
            kind = b[0]
            if kind == "h":
                anchor = re.sub(r"[^a-z0-9]+", "-", b[2].lower()).strip("-")
                body.append(f'<h{b[1]} id="{anchor}">{inline(b[2])}</h{b[1]}>')
            elif kind == "p":
                body.append(f"<p>{inline(b[1])}</p>")
            elif kind == "ul":
                body.append("<ul>" + "".join(f"<li>{inline(i)}</li>" for i in b[1]) + "</ul>")
            elif kind == "table":
                head = "".join(f"<th>{inline(str(c))}</th>" for c in b[1])
                rows = "".join("<tr>" + "".join(f"<td>{inline(str(c))}</td>" for c in r) + "</tr>"
                               for r in b[2])
                body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
            elif kind == "img":
                body.append(f'<figure><img src="{html.escape(b[1])}" alt="{html.escape(b[2])}">'
                            f"<figcaption>{inline(b[2])}</figcaption></figure>")
            elif kind == "pre":
                body.append(f"<pre>{html.escape(b[1])}</pre>")
        return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
                f"</title>\n<style>{STYLE}</style></head>\n<body>\n" + "\n".join(body)
                + "\n</body></html>\n")


STYLE = ("body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em;line-height:1.4}"
         "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:.2em .5em;"
         "text-align:left;vertical-align:top}th{background:#eee}pre{background:#f6f6f6;padding:.5em;"
         "overflow-x:auto}figure{display:inline-block;margin:.5em}figcaption{font-size:80%}"
         "code{background:#f2f2f2}")


def inline(text):
    """`code`, **bold** and [text](url) in escaped text."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        s = html.escape(part)
        s = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", s)
        s = re.sub(r"\[([^\]]+)\]\(([^)\s]+)\)", r'<a href="\2">\1</a>', s)
        out.append(s)
    return "".join(out)
