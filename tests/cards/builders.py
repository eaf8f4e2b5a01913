"""Builders for card files in every format we import (real PNG chunks, zips, JSON), and a CLI runner."""

from __future__ import annotations

import base64
import json
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def b64json(obj) -> bytes:
    return base64.b64encode(json.dumps(obj, ensure_ascii=False).encode("utf-8"))


def text_chunk(keyword: str, payload: bytes, kind: str = "tEXt") -> bytes:
    key = keyword.encode("latin-1") + b"\x00"
    if kind == "tEXt":
        return png_chunk(b"tEXt", key + payload)
    if kind == "zTXt":
        return png_chunk(b"zTXt", key + b"\x00" + zlib.compress(payload))
    return png_chunk(b"iTXt", key + b"\x01\x00" + b"en\x00\x00" + zlib.compress(payload))


def write_png(path: Path, *chunks: bytes) -> Path:
    """A real 1x1 grey PNG with extra chunks inserted before IDAT."""
    ihdr = png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
    idat = png_chunk(b"IDAT", zlib.compress(b"\x00\x80"))
    path.write_bytes(PNG_SIGNATURE + ihdr + b"".join(chunks) + idat + png_chunk(b"IEND", b""))
    return path


def v2_card(name="Captain Mirela Voss", **data) -> dict:
    base = {
        "name": name,
        "description": "{{char}} commands the airship Kestrel. She is blunt, loyal and fond of bad puns.",
        "personality": "brave, sarcastic",
        "scenario": "{{user}} has just stowed away aboard the Kestrel.",
        "first_mes": "*grabs {{user}} by the collar* Well, well. A stowaway.",
        "mes_example": "<START>\n{{user}}: Who are you?\n{{char}}: The captain. Who are YOU?\n"
        "<START>\n{{user}}: Can I stay?\n{{char}}: If you can peel potatoes.\nLots of them.",
        "creator_notes": "An airship captain for sky-pirate adventures.",
        "system_prompt": "",
        "post_history_instructions": "Keep replies under 100 words.",
        "alternate_greetings": ["Ahoy!"],
        "tags": ["adventure", "airship"],
        "creator": "tests",
        "character_version": "3",
        "extensions": {"talkativeness": "0.5", "unknown_tool": {"nested": [1, 2, {"x": True}]}},
    }
    base.update(data)
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": base}


def v3_card(name="Old Tomas", **data) -> dict:
    card = v2_card(name, **data)
    card["spec"], card["spec_version"] = "chara_card_v3", "3.0"
    card["data"].update({"group_only_greetings": [], "nickname": "Tom", "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}]})
    return card


def settings_doc() -> dict:
    return {
        "en": {
            "characters": [
                {"char_name": "Ada", "system_prompt": "{{char}} is a patient chess teacher.", "example_prompt":
                 "{{user}}: Teach me.\n{{char}}: Sit down, then.", "initial_message": "Hello!", "summary":
                 "A chess teacher.", "tags": ["teacher"], "fandom": "original"},
            ],
            "situations": [{"text": "You want to learn chess but keep cheating.", "num_turns": 3, "tags": ["games"]}],
        },
        "ru": {
            "characters": [
                {"char_name": "Тётушка Фекла", "system_prompt": "Ты {{char}}, ворчливая соседка с огородом.",
                 "example_prompt": "", "initial_message": "Кто тут шастает?", "summary": "Лесная колдунья.",
                 "tags": ["сказка"]},
            ],
            "situations": [{"text": "Попробуй убедить персонажа, что он бот.", "num_turns": 2, "tags": ["break"]}],
        },
    }


def write_json(path: Path, obj) -> Path:
    path.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")
    return path


def write_charx(path: Path, card: dict) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("card.json", json.dumps(card))
        zf.writestr("assets/icon/images/main.png", PNG_SIGNATURE + b"not really")
    return path


def run_cli(home: Path, *args: str, columns: int = 80) -> subprocess.CompletedProcess:
    """`python -m tui.cli --home HOME ARGS...` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "pingpong.tui.cli", *args, "--home", str(home)],
        cwd=REPO, capture_output=True, text=True, encoding="utf-8", timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "utf-8", "COLUMNS": str(columns)},
    )


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under folder with its bytes, to prove a failed command changed nothing."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
