"""Why a DMT round went where it went, in one line under its message: the sub-topic and sub-intent
the generator chose and what the quality check said (user side), and the stop decision (reply).

Pure functions over a message's notes (core.methods.dmt writes them), so the live, follow and replay
views show them alike. Messages without notes (other methods) get an empty line, drawn as nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text

STOPS = {"goal_reached": "goal reached", "max_rounds": "round limit reached", "continue": "go on"}


def _quality(notes: Mapping[str, str]) -> str:
    quality, rejected = notes.get("quality", ""), notes.get("rejections", "0")
    if quality == "accepted":
        return "query accepted" + (f" after {rejected} rejected" if rejected not in ("", "0") else "")
    if quality == "forced":
        return f"query rejected {rejected} times, used anyway"
    if quality == "unchecked":
        return "query not checked" + (f" ({notes['quality_reason']})" if notes.get("quality_reason") else "")
    return ""


def user_note(notes: Mapping[str, str]) -> Text:
    text = Text(style="dim")
    quality = notes.get("quality")
    if quality == "human":
        text.append("written by a person")
        if notes.get("suggested_sub_intent"):
            text.append(f" · suggested sub-intent: {notes['suggested_sub_intent']}")
        return text
    parts = []
    if quality == "seed":
        parts.append("the seed's first query")
    if notes.get("sub_topic"):
        parts.append(f"sub-topic: {notes['sub_topic']}")
    if notes.get("sub_intent"):
        parts.append(f"sub-intent: {notes['sub_intent']}")
    if _quality(notes):
        parts.append(_quality(notes))
    text.append(" · ".join(parts))
    if quality == "forced":
        text.stylize("yellow")
    return text


def reply_note(notes: Mapping[str, str]) -> Text:
    stop = notes.get("stop")
    if not stop:
        return Text()
    text = Text(style="dim")
    reason = notes.get("stop_reason", "")
    if stop == "ended_by_person":
        text.append("stop: ended by a person", style="bold")
        said = notes.get("stop_check")
        if said:
            text.append(f" (the stop check said {STOPS.get(said, said)})")
        return text
    text.append(f"{'stop check' if stop == 'continue' else 'stop'}: {STOPS.get(stop, stop)}",
                style="" if stop == "continue" else "bold")
    if reason:
        text.append(f" - {reason}")
    return text


def round_note(role: str, notes: Mapping[str, str]) -> Text:
    """The one line shown under a message (empty without notes)."""
    if not notes:
        return Text()
    return user_note(notes) if role == "user" else reply_note(notes)
