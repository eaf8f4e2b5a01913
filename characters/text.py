"""Small text helpers for cards: slugs (with Cyrillic transliteration), language guess, summaries.

Card names are ids on disk and on the command line, so they must be plain ASCII
slugs even when the character is called "Баба-Яга".
"""

from __future__ import annotations

import re

_TRANSLIT = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "yo", "ж": "zh",
    "з": "z", "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o",
    "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts",
    "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
    "я": "ya", "і": "i", "ї": "yi", "є": "ye", "ґ": "g",
}
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z]")
MAX_SLUG = 48


def slugify(text: str, fallback: str = "character") -> str:
    """A name matching core.domain.NAME_PATTERN: lowercase ASCII, digits, '-'."""
    import unicodedata

    out = []
    for ch in text.lower():
        if ch in _TRANSLIT:
            out.append(_TRANSLIT[ch])
        else:
            out.append(unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode())
    slug = re.sub(r"[^a-z0-9]+", "-", "".join(out)).strip("-")
    slug = slug[:MAX_SLUG].rstrip("-")
    return slug or fallback


def unique_name(base: str, taken: set[str]) -> str:
    """base, or base-2, base-3 ... whichever is not in taken (taken is updated)."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    taken.add(name)
    return name


def guess_lang(*texts: str) -> str:
    """'ru' when Cyrillic letters dominate the text, else 'en'."""
    joined = " ".join(texts)
    cyr = len(_CYRILLIC.findall(joined))
    lat = len(_LATIN.findall(joined))
    return "ru" if cyr and cyr >= lat else "en"


def first_sentences(text: str, limit: int = 240) -> str:
    """Leading whole sentences of text, at most about limit characters (cut at a word if needed)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    out = ""
    for sentence in re.split(r"(?<=[.!?…])\s+", text):
        if out and len(out) + 1 + len(sentence) > limit:
            break
        out = f"{out} {sentence}".strip()
    if len(out) > limit:
        out = out[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return out
