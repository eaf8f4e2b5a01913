"""Token counts when the API reports none: an offline estimate, never a download.

tiktoken fetches its vocabulary files from the internet on first use. We only
ask it for an encoding when the file is already in its cache with the right
hash; otherwise a character-class heuristic does the job.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import tempfile

_VOCABS = (  # (encoding, source blob, sha256 tiktoken expects)
    ("o200k_base", "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
     "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"),
    ("cl100k_base", "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
     "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"),
)

_PIECE = re.compile(r"\w{1,5}|[^\w\s]")  # up to 5 characters of a word, or one mark
_WORD = re.compile(r"\w+")
_OTHER_SCRIPT_LETTER = re.compile(r"[^\W\x00-\x7f]")  # a letter (or digit) beyond ASCII


def _cache_dir() -> str | None:
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return os.environ["TIKTOKEN_CACHE_DIR"] or None
    if "DATA_GYM_CACHE_DIR" in os.environ:
        return os.environ["DATA_GYM_CACHE_DIR"] or None
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _cached(blob: str, sha256: str) -> bool:
    folder = _cache_dir()
    if not folder:
        return False
    path = os.path.join(folder, hashlib.sha1(blob.encode()).hexdigest())
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest() == sha256
    except OSError:
        return False


@functools.lru_cache(maxsize=1)
def _encoding():
    """A tiktoken encoding whose file is cached and valid, or None (never downloads)."""
    for name, blob, sha in _VOCABS:
        if _cached(blob, sha):
            try:
                import tiktoken

                return tiktoken.get_encoding(name)
            except Exception:  # a broken install must not break token counting
                return None
    return None


def heuristic_tokens(text: str) -> int:
    """About 5 characters per token for ASCII words, 2.5 for other scripts; 1 per punctuation mark.

    The regex engine does the counting: cutting every word into pieces of at most 5 characters
    gives ceil(n / 5) pieces for a word of n; a word with a letter of another script then gets
    ceil(n / 2.5) - ceil(n / 5) more. The offline models count every prompt, and a Python loop
    over every word cost them a fifth of a millisecond per call."""
    total = len(_PIECE.findall(text))
    if not text.isascii() and _OTHER_SCRIPT_LETTER.search(text):
        for word in _WORD.findall(text):
            if not word.isascii():
                n = len(word)
                total += (2 * n + 4) // 5 - (n + 4) // 5
    return total


def estimate_tokens(text: str) -> int:
    """Tokens in a piece of text: tiktoken when available offline, else the heuristic."""
    if not text:
        return 0
    enc = _encoding()
    if enc is not None:
        return len(enc.encode(text, disallowed_special=()))
    return heuristic_tokens(text)


def estimate_messages(messages: list[dict]) -> int:
    """Prompt tokens of a chat request: content plus a small per-message overhead."""
    total = 3
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
        total += 4 + estimate_tokens(content or "")
    return total
