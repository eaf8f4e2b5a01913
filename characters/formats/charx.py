"""The card inside a .charx (a zip with card.json at its root, plus assets we leave alone)."""

from __future__ import annotations

import io
import lzma
import zipfile
import zlib

from pingpong.core.errors import UserError
from pingpong.core.safe_parse import parse_json

from ..files import MAX_TEXT_BYTES, decode_text


def card_json_from_charx(data: bytes, where: str) -> object:
    """Parse card.json; its declared and real uncompressed size are capped (zip bombs)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            try:
                info = zf.getinfo("card.json")
            except KeyError:
                raise UserError(f"{where}: no card.json in this .charx archive") from None
            if info.file_size > MAX_TEXT_BYTES:
                raise UserError(f"{where}: card.json too large when uncompressed")
            with zf.open(info) as f:
                raw = f.read(MAX_TEXT_BYTES + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error, lzma.LZMAError,
            OSError):  # a damaged deflate, LZMA or bzip2 stream (bz2 raises OSError)
        raise UserError(f"{where}: not a readable .charx (zip) archive") from None
    except RuntimeError as exc:  # encrypted entries
        raise UserError(f"{where}: cannot read card.json ({exc})") from None
    if len(raw) > MAX_TEXT_BYTES:
        raise UserError(f"{where}: card.json too large when uncompressed")
    inner = f"{where}: card.json"
    return parse_json(decode_text(raw, inner), inner)
