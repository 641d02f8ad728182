"""The printable report of the record (tablesense.documents.record): HTML, print-to-PDF.

One page per playing evening, a section per board with its contract and
result, every ruling (time, kind, law, offender, cards, the ruling's text)
and under each ruling every decision and note, with who sent it and when.
Everything from the journal is escaped (``html.escape``): a note with HTML
in it prints as text.

Served by the daemon at ``/report.html`` (its stylesheet ``report.css`` from
the static folder, as the page's Content-Security-Policy allows no inline
style), and written by ``tablesense record --format html`` as one file with
the stylesheet inline.
"""

from __future__ import annotations

from datetime import datetime
from html import escape
from itertools import groupby
from pathlib import Path

from tablesense.contract.catalogue import OPTIONS, kind_entry
from tablesense.documents.record import BoardRecord, Decision

CSS_PATH = Path(__file__).resolve().parents[1] / "static" / "report.css"
SEATS = {"N": "North", "E": "East", "S": "South", "W": "West"}
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def when(t: int) -> str:
    """Local time of a journal time (a scenario's small times print as offsets)."""
    if t < 10**11:
        return f"+{t / 1000:.1f} s"
    return datetime.fromtimestamp(t / 1000).strftime("%H:%M:%S")


def card(c: str) -> str:
    if len(c) == 2 and c[0] in SUIT_SYMBOLS:
        red = " red" if c[0] in "HD" else ""
        rank = "10" if c[1] == "T" else c[1]
        return f'<span class="card{red}">{SUIT_SYMBOLS[c[0]]}{escape(rank)}</span>'
    return escape(c)


def contract(b: BoardRecord) -> str:
    if not b.contract:
        return "no contract yet"
    c = b.contract
    strain = c[-1:]
    sym = {"N": "NT", **SUIT_SYMBOLS}.get(strain, escape(strain))
    text = escape(c[:-1]) + sym + {1: "×", 2: "××"}.get(b.doubled, "")
    if b.declarer:
        text += " by " + SEATS.get(b.declarer, b.declarer)
    if b.tricks:
        text += f" · tricks NS {b.tricks.get('NS', 0)}, EW {b.tricks.get('EW', 0)}"
    return text


def decision(d: Decision) -> str:
    who = escape(d.by) if d.by else "<i>no login</i>"
    if d.action == "resolve":
        what = "resolved" + (": " + escape(d.note) if d.note else "")
    elif d.action == "reopen":
        what = "re-opened" + (": " + escape(d.note) if d.note else "")
    else:
        entry = OPTIONS.get(d.option or "")  # type: ignore[call-overload]
        what = "decided: " + escape(entry.label if entry else str(d.option))
        extra = [x for x in (d.card and card(d.card),
                             d.suit and SUIT_SYMBOLS.get(d.suit, escape(d.suit)),
                             d.seat and SEATS.get(d.seat, escape(d.seat))) if x]
        if extra:
            what += " (" + ", ".join(extra) + ")"
    if d.refused:
        what += f' <span class="refused">refused by the engine: {escape(d.refused)}</span>'
    return (f'<li class="decision"><time>{when(d.t)}</time> <b class="by">{who}</b> '
            f"{what}</li>")


def board_html(b: BoardRecord) -> str:
    out = [f'<section class="board" data-table="{escape(b.table)}" data-board="{b.board}">',
           f"<h3>Table {escape(b.table)} · board {b.board}</h3>",
           f'<p class="facts">{escape(b.code or "")} · dealer '
           f"{SEATS.get(b.dealer or '', '?')} · vul {escape(b.vul or '?')} · {contract(b)}</p>"]
    if not b.rulings and not b.unmatched:
        out.append('<p class="none">No rulings.</p>')
    for inc in b.rulings:
        r = inc.ruling
        kind = str(r.get("kind"))
        entry = kind_entry(kind)
        sev = escape(str(r.get("severity")))
        cards = " ".join(card(str(c)) for c in r.get("cards") or [])
        offender = r.get("offender")
        out.append(f'<article class="ruling sev-{sev}" data-id="{escape(str(r.get("id")))}">')
        out.append(f'<h4><span class="id">{escape(str(r.get("id")))}</span> '
                   f"{escape(entry.label if entry else kind)} <span class=\"sev\">{sev}</span> "
                   f'<time>{when(int(r.get("t") or 0))}</time></h4>')
        meta = [escape(str(r.get("citation") or ""))]
        if offender:
            meta.append("offender " + SEATS.get(str(offender), escape(str(offender))))
        if cards:
            meta.append("cards " + cards)
        if r.get("supersedes"):
            meta.append("replaces " + escape(", ".join(r["supersedes"])))
        out.append(f'<p class="meta">{" · ".join(m for m in meta if m)}</p>')
        out.append(f'<p class="text">{escape(str(r.get("text") or ""))}</p>')
        if inc.decisions:
            out.append('<ul class="decisions">' + "".join(decision(d) for d in inc.decisions)
                       + "</ul>")
        elif r.get("severity") != "info":
            out.append('<p class="none">No decision or note recorded.</p>')
        out.append("</article>")
    if b.unmatched:
        out.append('<p class="label">Decisions that named no ruling:</p><ul class="decisions">'
                   + "".join(decision(d) for d in b.unmatched) + "</ul>")
    out.append("</section>")
    return "\n".join(out)


def report_html(boards: list[BoardRecord], *, title: str = "tablesense · the director's record",
                query: str = "", inline_css: bool = False) -> str:
    if inline_css:
        style = f"<style>\n{CSS_PATH.read_text(encoding='utf-8')}</style>"
    else:
        style = '<link rel="stylesheet" href="report.css">'
    head = (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<title>{escape(title)}</title>\n<link rel="icon" href="favicon.svg" '
            f'type="image/svg+xml">\n{style}\n</head>\n<body>\n')
    body = [f"<h1>{escape(title)}</h1>"]
    n_rulings = sum(len(b.rulings) for b in boards)
    body.append(f'<p class="summary">{len(boards)} board(s), {n_rulings} ruling(s)'
                + (f" matching “{escape(query)}”" if query else "")
                + f" · printed {datetime.now().strftime('%Y-%m-%d %H:%M')}</p>")
    if not boards:
        body.append('<p class="none">Nothing recorded.</p>')
    for evening, group in groupby(boards, key=lambda b: b.evening):
        body.append(f'<section class="evening"><h2>Evening of {escape(evening)}</h2>')
        body.extend(board_html(b) for b in group)
        body.append("</section>")
    return head + "\n".join(body) + "\n</body>\n</html>\n"
