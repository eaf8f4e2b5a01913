"""Typed access to fields of a foreign JSON object, failing with the field's path."""

from __future__ import annotations

from typing import Any

from pingpong.core.errors import UserError

_JSON_TYPES = {str: "text", bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "an object"}


def json_type(value: Any) -> str:
    return "null" if value is None else _JSON_TYPES.get(type(value), type(value).__name__)


class Fields:
    """Reads data[key] as text, list of text or object; None/missing give empty values."""

    def __init__(self, data: dict, where: str, prefix: str = ""):
        self.data, self.where, self.prefix = data, where, prefix

    def fail(self, key: str, expected: str, value: Any):
        raise UserError(f"{self.where}: {self.prefix}{key}: expected {expected}, got {json_type(value)}")

    def text(self, key: str) -> str:
        value = self.data.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            self.fail(key, "text", value)
        return value

    def texts(self, key: str) -> list[str]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(key, "a list of text", value)
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.fail(f"{key}.{i}", "text", item)
        return value

    def mapping(self, key: str) -> dict:
        value = self.data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(key, "an object", value)
        return value

    def integer(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, "a whole number", value)
        return value


def clean_tags(tags: list[str]) -> list[str]:
    out: list[str] = []
    for tag in tags:
        tag = tag.strip()
        if tag and tag not in out:
            out.append(tag)
    return out
