"""The card inside a PNG: a base64 JSON text chunk named `ccv3` (preferred) or `chara`.

Chunks are read with struct and zlib (tEXt, zTXt, iTXt); no imaging library.
Compressed chunks are inflated with a cap so a tiny chunk cannot expand into
gigabytes.
"""

from __future__ import annotations

import base64
import binascii
import struct
import zlib

from pingpong.core.errors import UserError
from pingpong.core.safe_parse import parse_json

from ..files import MAX_TEXT_BYTES

SIGNATURE = b"\x89PNG\r\n\x1a\n"
KEYWORDS = ("ccv3", "chara")


def _inflate(data: bytes, where: str) -> bytes:
    d = zlib.decompressobj()
    try:
        out = d.decompress(data, MAX_TEXT_BYTES + 1)
    except zlib.error:
        raise UserError(f"{where}: damaged compressed text chunk in PNG") from None
    if len(out) > MAX_TEXT_BYTES:
        raise UserError(f"{where}: card chunk too large when uncompressed")
    return out


def _text_chunk(kind: bytes, body: bytes, where: str) -> tuple[str, bytes] | None:
    """(keyword, text bytes) of a tEXt/zTXt/iTXt chunk, or None for other chunks."""
    if kind not in (b"tEXt", b"zTXt", b"iTXt") or b"\x00" not in body:
        return None
    key, rest = body.split(b"\x00", 1)
    keyword = key.decode("latin-1").lower()
    if keyword not in KEYWORDS:
        return None
    if kind == b"tEXt":
        return keyword, rest
    if kind == b"zTXt":
        return keyword, _inflate(rest[1:], where)
    if len(rest) < 2:
        raise UserError(f"{where}: damaged iTXt chunk '{keyword}' in PNG")
    compressed, text = rest[0], rest[2:]
    parts = text.split(b"\x00", 2)  # language tag, translated keyword, text
    if len(parts) != 3:
        raise UserError(f"{where}: damaged iTXt chunk '{keyword}' in PNG")
    return keyword, _inflate(parts[2], where) if compressed else parts[2]


def png_text_chunks(data: bytes, where: str) -> dict[str, bytes]:
    """Card-related text chunks by keyword (the first of each keyword wins)."""
    if not data.startswith(SIGNATURE):
        raise UserError(f"{where}: not a PNG file")
    found: dict[str, bytes] = {}
    pos = len(SIGNATURE)
    while pos < len(data):
        if pos + 8 > len(data):
            raise UserError(f"{where}: truncated PNG (chunk header cut off)")
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if len(body) < length:
            raise UserError(f"{where}: truncated PNG (chunk {kind.decode('latin-1')!r} cut off)")
        pos += 12 + length
        if kind == b"IEND":
            break
        chunk = _text_chunk(kind, body, where)
        if chunk and chunk[0] not in found:
            found[chunk[0]] = chunk[1]
    return found


def _decode(keyword: str, payload: bytes, where: str) -> dict:
    try:
        raw = base64.b64decode(b"".join(payload.split()), validate=True)
    except (binascii.Error, ValueError):
        raise UserError(f"{where}: PNG chunk '{keyword}' is not base64-encoded card JSON") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:  # base64 of JSON in another encoding (latin-1, cp1251...)
        raise UserError(f"{where}: PNG chunk '{keyword}' decodes to card JSON that is not UTF-8 text "
                        f"(byte {exc.start}); save the card as UTF-8") from None
    obj = parse_json(text, f"{where}: PNG chunk '{keyword}'")
    if not isinstance(obj, dict):
        raise UserError(f"{where}: PNG chunk '{keyword}' holds {type(obj).__name__}, not a card object")
    return obj


def card_json_from_png(data: bytes, where: str) -> dict:
    """The card JSON object: ccv3 when it decodes, else chara."""
    chunks = png_text_chunks(data, where)
    if not chunks:
        raise UserError(f"{where}: no character card in this PNG (no 'ccv3' or 'chara' text chunk)")
    first_error: UserError | None = None
    for keyword in KEYWORDS:
        if keyword in chunks:
            try:
                return _decode(keyword, chunks[keyword], where)
            except UserError as exc:
                first_error = first_error or exc
    assert first_error is not None
    raise first_error
