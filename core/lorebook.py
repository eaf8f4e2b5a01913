"""A card's lorebook (SillyTavern "world info"): which entries the recent messages switch on.

SillyTavern cards may embed a `character_book`: entries of background text, each with
keys. An entry reaches the player's prompt while one of its keys appears in the last
few messages, so a card can hold far more lore than its description. This module
applies the rules users rely on, as SillyTavern does:

- `keys`: any one found in the scanned text activates the entry; a key written as
  `/pattern/flags` is a regular expression (flags i, m, s honoured; an invalid one, or one too
  long or repeating too much to compile at once, is matched as plain text; one that backtracks
  longer than REGEX_SECONDS on a message does not match it, so a card cannot hang a session);
- `selective` with `secondary_keys`: the selectiveLogic 0 AND ANY, 1 NOT ALL,
  2 NOT ANY, 3 AND ALL decides whether the secondary keys must (or must not) appear too;
- `constant` entries are always active; `enabled: false` ones never are;
- `case_sensitive` (default: not) and `match_whole_words` (default: not);
- `scan_depth`: how many of the most recent messages are scanned (an entry's own, else
  the caller's, else the book's, else 2 as in SillyTavern);
- the active entries' `content`, ordered by `insertion_order` (lower first).

Both shapes are read: a card's `character_book` (`entries` a list, V2/V3 field names,
SillyTavern extras in each entry's `extensions`) and a SillyTavern world file (`entries`
an object, `key`/`keysecondary`/`order`/`disable`/... names). Nothing random
(`probability`) and no recursion: the result depends only on the book and the messages.
Malformed entries are skipped, never raised: a card is foreign input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pingpong.core.domain import Character

if TYPE_CHECKING:
    import regex

DEFAULT_SCAN_DEPTH = 2
AND_ANY, NOT_ALL, NOT_ANY, AND_ALL = 0, 1, 2, 3
"""SillyTavern's selectiveLogic values."""

_REGEX_KEY = re.compile(r"^/(.+)/([a-z]*)$", re.DOTALL)
_JS_NAMED_GROUP = re.compile(r"\(\?<(?![=!])")
_FLAGS = "ims"
"""The JavaScript flags honoured: ignore case, multiline, dot matches newlines."""
MAX_PATTERN_CHARS = 1000
MAX_REPEATS = 100_000
"""How far a pattern key's counted repeats ({n}, {n,m}) may multiply: compiling expands them, and
`(?:x{60000}){60000}` would take minutes and gigabytes before any search could time out."""
_COUNTED = re.compile(r"\{(\d+)(?:,(\d*))?\}")
REGEX_SECONDS = 0.05
"""How long one lorebook pattern may search one message (Python's re cannot be stopped: the regex
module's searches take a timeout)."""


def character_book(card: Character) -> Mapping[str, Any] | None:
    """The lorebook a card carries, where the importers keep it (extensions.source_card.character_book),
    or one written at the top of extensions (our own YAML cards); None when it has none, or its
    `entries` is neither a list nor a mapping (a book of 5 entries is no book)."""
    source = card.extensions.get("source_card")
    for book in ((source or {}).get("character_book") if isinstance(source, Mapping) else None,
                 card.extensions.get("character_book")):
        if isinstance(book, Mapping) and isinstance(book.get("entries"), (list, Mapping)) and book["entries"]:
            return book
    return None


def with_entry_text(card: Character, sub: Callable[[str], str]) -> Character:
    """The card with ``sub`` applied to the content of every entry of its lorebook (the names filled in,
    as in the card's other fields); the card itself when it has no book."""
    book = character_book(card)
    if book is None:
        return card
    entries = book["entries"]

    def one(entry: Any) -> Any:
        if isinstance(entry, Mapping) and isinstance(entry.get("content"), str):
            return {**entry, "content": sub(entry["content"])}
        return entry

    named = {**book, "entries": {k: one(e) for k, e in entries.items()} if isinstance(entries, Mapping)
             else [one(e) for e in entries]}
    extensions = dict(card.extensions)
    source = extensions.get("source_card")
    if isinstance(source, Mapping) and source.get("character_book") is book:
        extensions["source_card"] = {**source, "character_book": named}
    else:
        extensions["character_book"] = named
    return card.model_copy(update={"extensions": extensions})


def active_entries(book: Mapping, recent_texts: Sequence[str], *, scan_depth: int | None = None) -> list[str]:
    """The content of every entry the recent messages activate, lower insertion_order first.

    recent_texts: the conversation's messages, oldest first; the last scan_depth are scanned.
    scan_depth: overrides the book's own `scan_depth` (an entry's own still wins).
    """
    entries = book.get("entries")
    if isinstance(entries, Mapping):
        entries = list(entries.values())
    if not isinstance(entries, list):
        return []
    depth = _depth(scan_depth, _depth(book.get("scan_depth"), DEFAULT_SCAN_DEPTH))
    chosen: list[tuple[float, int, str]] = []
    for index, raw in enumerate(entries):
        if not isinstance(raw, Mapping):
            continue
        entry = _Entry(raw)
        if entry.is_active(recent_texts, depth):
            chosen.append((entry.order, index, entry.content))
    return [content for _, _, content in sorted(chosen)]


def _depth(value: Any, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return default
    return value


class _Entry:
    """One entry, read leniently from either shape (card or world file)."""

    def __init__(self, raw: Mapping):
        ext = raw.get("extensions")
        self.raw, self.ext = raw, ext if isinstance(ext, Mapping) else {}
        content = raw.get("content")
        self.content = content.strip() if isinstance(content, str) else ""
        order = self._get("insertion_order", "order")
        self.order = order if isinstance(order, int | float) and not isinstance(order, bool) else 100

    def _get(self, *names: str) -> Any:
        """The first of names set on the entry, else in its extensions."""
        for where in (self.raw, self.ext):
            for name in names:
                if where.get(name) is not None:
                    return where[name]
        return None

    def _flag(self, *names: str) -> bool:
        return self._get(*names) is True

    def _keys(self, *names: str) -> list[str]:
        value = self._get(*names)
        if isinstance(value, str):
            value = value.split(",")
        if not isinstance(value, list):
            return []
        return [k.strip() for k in value if isinstance(k, str) and k.strip()]

    def is_active(self, recent_texts: Sequence[str], depth: int) -> bool:
        if not self.content or self._flag("disable") or self.raw.get("enabled") is False:
            return False
        if self._flag("constant"):
            return True
        depth = _depth(self._get("scan_depth", "scanDepth"), depth)
        text = "\n".join(list(recent_texts)[-depth:]) if depth else ""
        if not text:
            return False
        primary = self._keys("keys", "key")
        if not any(self._matches(key, text) for key in primary):
            return False
        secondary = self._keys("secondary_keys", "keysecondary")
        if not self._flag("selective") or not secondary:
            return True
        found = [self._matches(key, text) for key in secondary]
        logic = self._get("selectiveLogic", "selective_logic")
        if logic == NOT_ALL:
            return not all(found)
        if logic == NOT_ANY:
            return not any(found)
        if logic == AND_ALL:
            return all(found)
        return any(found)  # AND_ANY, SillyTavern's default

    def _matches(self, key: str, text: str) -> bool:
        pattern = _regex(key)
        if pattern is not None:
            try:
                return pattern.search(text, timeout=REGEX_SECONDS) is not None
            except TimeoutError:  # catastrophic backtracking: a card's pattern must not hang the session
                return False
        case_sensitive = self._flag("case_sensitive", "caseSensitive")
        if not case_sensitive:
            key, text = key.lower(), text.lower()
        if self._flag("match_whole_words", "matchWholeWords") and not re.search(r"\s", key):
            return re.search(rf"(?:^|\W){re.escape(key)}(?:$|\W)", text) is not None
        return key in text


def _regex(key: str) -> regex.Pattern[str] | None:
    """`/pattern/flags` as a compiled pattern; None for plain keys and for patterns that do not compile."""
    m = _REGEX_KEY.match(key)
    if m is None:
        return None
    import regex  # only cards with pattern keys need it

    flags = {"i": regex.IGNORECASE, "m": regex.MULTILINE, "s": regex.DOTALL}
    wanted = 0
    for letter in m.group(2):
        if letter in _FLAGS:
            wanted |= flags[letter]
    if not _cheap_to_compile(m.group(1)):
        return None
    try:
        return regex.compile(_JS_NAMED_GROUP.sub("(?P<", m.group(1)), wanted | regex.VERSION0)
    except (regex.error, ValueError, OverflowError):
        return None


def _cheap_to_compile(source: str) -> bool:
    """Whether a pattern is short enough and its counted repeats multiply to few enough copies to
    compile at once (a pattern key that is not is matched as plain text, like one that does not compile)."""
    if len(source) > MAX_PATTERN_CHARS:
        return False
    copies = 1
    for low, high in _COUNTED.findall(source):
        copies *= max(int(low), int(high or 0), 1)
        if copies > MAX_REPEATS:
            return False
    return True
