"""`pingpong report`: the stored sessions as static HTML that opens from disk, with no server.

index.html holds the leaderboard of every method (the Likert ones with a weight selector, a small
inline script), players/NAME.html each player's characters x situations grid, sessions/ID.html
every conversation with its turn scores, the judges' explanations and people's scores. Plots are
inline SVG; nothing is fetched from anywhere.

Templates (templates/*.j2) render in Jinja2's immutable sandbox with autoescaping: cards, messages,
explanations and names only ever enter them as variables, each in a <bdi> (the `bdi` macro) or, in
the title and tooltips, through `isolated`: a bidi control inside one reorders that text only, never
the page's own words or the next name; and in a <bdi>, an override (U+202E RIGHT-TO-LEFT OVERRIDE,
...) is named on the page rather than obeyed, so a reviewer reads the words in the order written.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from jinja2 import FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from pingpong.core.domain import METRICS, SCALE_BOUNDS, Price
from pingpong.core.errors import UserError
from pingpong.sessions.files import Staged, remove_leftovers
from pingpong.sessions.report import Report, collect, conversations
from pingpong.sessions.scoring import PUBLISHED_WEIGHTS
from pingpong.sessions.seats import AS_WRITTEN_WORDS, RULE_WORDS, asks_as_written, scored_by_rule
from pingpong.sessions.store import Store
from pingpong.tui.report.plot import chart
from pingpong.tui.report.sandbox import ReportEnvironment

TEMPLATES = Path(__file__).parent / "templates"
GENERATOR = "pingpong report"
"""Every page's <meta name="generator">: how a later report knows the pages it may remove."""
OWN_PAGES = {"players": re.compile(r"[a-z0-9-]+-[0-9a-f]{8}\.html"), "sessions": re.compile(r"\d+\.html")}
"""The sub-folders the report writes pages into, and the names it gives them (player_file, session ids)."""
LIKERT_SCALE = {"pingpong": "1-5", "pingpong-v1": "1-10"}


def num(value: float | None, digits: int = 2) -> str:
    """A figure as the tables show it; '-' where there is none."""
    if value is None:
        return "-"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def plus_minus(value: float | None, ci: float | None, digits: int = 2) -> str:
    """'4.17 ± 0.05' (the half width of the interval), '4.17' without one, '-' without a value."""
    if value is None:
        return "-"
    return f"{value:.{digits}f}" + ("" if ci is None else f" ± {ci:.{digits}f}")


def score_text(value: float | None, scale: str, metric: str) -> str:
    """A stored value on its scale: a refusal flag as yes/no, a DMT label as good/bad, 4 not 4.0."""
    if value is None:
        return "-"
    if metric == "is_refusal":
        return "refusal" if value >= 1 else "no"
    if scale == "good-bad":
        return "good" if value >= 1 else "bad"
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3f}" if scale == "0-1" else f"{value:.2f}"


ISOLATE_OPENERS = "\u2066\u2067\u2068"  # LRI, RLI, FSI
FSI, PDI = "\u2068", "\u2069"
OVERRIDES = {"\u202a": "LRE", "\u202b": "RLE", "\u202c": "PDF", "\u202d": "LRO", "\u202e": "RLO"}
"""Embeddings and overrides: inside a text they reverse the rest of it, so a reply could show a
reviewer words in another order than the model wrote them. The page names them instead."""


_BIDI = re.compile(f"[{ISOLATE_OPENERS}{PDI}{''.join(OVERRIDES)}]")
"""Any character `balanced` and `shown` change: most text has none, and is kept as it is."""


def balanced(text: object) -> str:
    """User text whose isolates pair up: a PDI that closes none of its own would end the isolate
    around it (even a <bdi>, in Chromium) and is dropped; one it leaves open is closed."""
    text = str(text)
    if not _BIDI.search(text):
        return text
    depth, kept = 0, []
    for ch in text:
        if ch in ISOLATE_OPENERS:
            depth += 1
        elif ch == PDI:
            if not depth:
                continue
            depth -= 1
        kept.append(ch)
    return "".join(kept) + PDI * depth


def shown(text: object) -> Markup:
    """User text for the page: isolates balanced, and each embedding or override written as its
    name in a marked span (⟨RLO⟩) rather than obeyed; everything else escaped."""
    text = str(text)
    if not _BIDI.search(text):
        return escape(text)
    parts = re.split(f"([{''.join(OVERRIDES)}])", balanced(text))
    return Markup("").join(
        Markup('<span class="ctl" title="a bidi control the text holds">⟨{}⟩</span>').format(OVERRIDES[p])
        if p in OVERRIDES else escape(p) for p in parts)


def bdi(text: object) -> Markup:
    """User text in its own <bdi>, as `shown` writes it: its direction never turns the page's."""
    return Markup("<bdi>") + shown(text) + Markup("</bdi>")


def isolated(text: object) -> str:
    """User text for plain-text places (the page title, tooltips): between FSI and PDI."""
    return FSI + balanced(text) + PDI


def player_file(name: str) -> str:
    """A file name for a player's page: readable, safe on every file system, distinct per name."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:48] or "player"
    return f"{slug}-{zlib.crc32(name.encode('utf-8')):08x}.html"


def scale_of(method: str) -> tuple[float, float]:
    """The bounds a Likert board's score-by-turn plot spans."""
    lo, hi = SCALE_BOUNDS[LIKERT_SCALE.get(method, "1-5")]
    return float(lo), float(hi)


def dmt_metrics(rows: list[dict]) -> list[str]:
    """The DMT metrics any row has a score for, in the method's order."""
    from pingpong.core.methods.dmt_rules import DMT_METRICS

    return [m for m in DMT_METRICS if any(m in r["metrics"] for r in rows)]


def roleinteract_dimensions(rows: list[dict]) -> list[tuple[str, str]]:
    """(dimension, column title) of the RoleInteract dimensions any row has, as the CLI's board shows them."""
    from pingpong.tui.commands.roleinteract_board import TITLES, dimensions

    return [(d, TITLES.get(d, d)) for d in dimensions(rows)]


def environment() -> ReportEnvironment:
    env = ReportEnvironment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True,
                                        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(num=num, pm=plus_minus, score=score_text, shown=shown, isolated=isolated)
    env.globals.update(bdi=bdi, player_file=player_file, chart=chart, scale_of=scale_of, dmt_metrics=dmt_metrics,
                       roleinteract_dimensions=roleinteract_dimensions, metrics=METRICS, weightings=PUBLISHED_WEIGHTS,
                       generator=GENERATOR, scored_by_rule=scored_by_rule, asks_as_written=asks_as_written,
                       rule_words=RULE_WORDS, as_written_words=AS_WRITTEN_WORDS)
    return env


@dataclass(frozen=True)
class Written:
    """What a report holds, for the command's closing line."""

    index: Path
    players: int
    conversations: int


def _folder(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise UserError(f"--out: {out} is a file, not a folder")
    try:
        for sub in (out, out / "players", out / "sessions"):
            sub.mkdir(parents=True, exist_ok=True)
            remove_leftovers(sub)  # of a report killed while it wrote
    except OSError as exc:
        raise UserError(f"--out: cannot create {out}: {exc.strerror or exc}") from None


def _write(pages: Staged, path: Path, text: str) -> None:
    try:
        pages.write(path, text)
    except OSError as exc:
        raise UserError(f"--out: cannot write {path}: {exc.strerror or exc}") from None


def _remove_stale(out: Path, written: set[Path]) -> None:
    """Remove the pages an earlier report wrote into players/ and sessions/ that this one did not
    write again. A file is such a page only when it has a name the report gives there and carries
    its generator tag: whatever else a person put in the folder stays."""
    tag = f'<meta name="generator" content="{GENERATOR}">'.encode()
    for sub, names in OWN_PAGES.items():
        for path in (out / sub).iterdir():
            if path in written or not names.fullmatch(path.name) or path.is_symlink() or not path.is_file():
                continue
            try:
                with open(path, "rb") as fh:
                    if tag in fh.read(1024):
                        path.unlink()
            except OSError as exc:
                raise UserError(f"--out: cannot remove the old page {path}: {exc.strerror or exc}") from None


def write_report(store: Store, out: Path, *, run: str | None = None,
                 prices: Mapping[str, Price] | None = None) -> Written:
    """Write the report of the stored sessions (of one run) into the folder `out`; the pages of an
    earlier report there that this one does not have are removed."""
    report: Report = collect(store, run=run, prices=prices)
    _folder(out)
    env = environment()
    pages = Staged()
    try:
        written: set[Path] = set()
        player_page = env.get_template("player.html.j2")
        for player in report.players:
            path = out / "players" / player_file(player.player)
            _write(pages, path, player_page.render(report=report, player=player))
            written.add(path)
        session_page = env.get_template("session.html.j2")
        for conv in conversations(store, report, prices):
            path = out / "sessions" / f"{conv.stored.id}.html"
            _write(pages, path, session_page.render(conv=conv))
            written.add(path)
        likert = any(b.kind == "likert" and b.rows for b in report.boards)
        _write(pages, out / "index.html", env.get_template("index.html.j2").render(report=report, likert=likert))
        try:
            pages.commit()
        except OSError as exc:
            raise UserError(f"--out: cannot put the pages in place in {out}: {exc.strerror or exc}") from None
    finally:
        pages.discard()
    _remove_stale(out, written)
    return Written(out / "index.html", len(report.players), len(report.sessions))
