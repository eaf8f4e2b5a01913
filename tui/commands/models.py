"""`pingpong models`: every configured model, whether its key is set, and whether it answers.

Reachability is a GET {base_url}/models with a short timeout, all endpoints at
once. Keys are sent but never printed. The rows and the checks are data
(`plan_rows`, `check_all`), so the TUI's Models screen fills its table from the
same checks, in the same words, as each answer comes.
"""

from __future__ import annotations

import time
import urllib.error
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pingpong.core.errors import UserError
from pingpong.tui.commands.output import print_json

if TYPE_CHECKING:
    from argparse import Namespace

    from pingpong.core.domain import ModelSpec
    from pingpong.core.home import Home

CHECK_TIMEOUT = 3.0
MAX_CHECKS = 16
"""Endpoints asked at once."""


@dataclass(frozen=True)
class Probe:
    """What one check asks: the endpoint, the key to send (never shown) and the model it should list."""

    base_url: str
    key: str | None = field(repr=False)
    model: str | None


@dataclass(frozen=True)
class Answer:
    """A check's outcome: "yes" or "no", the note or failure line, and how long the answer took."""

    reachable: str
    reason: str | None
    seconds: float


@dataclass
class ModelRow:
    """One configured model and what its check said so far ("skipped" until an answer comes)."""

    spec: ModelSpec
    key_set: bool | None
    reachable: str = "skipped"
    reason: str | None = None
    seconds: float | None = None
    probe: Probe | None = field(default=None, repr=False)

    def answered(self, answer: Answer) -> None:
        self.reachable, self.reason, self.seconds = answer.reachable, answer.reason, answer.seconds

    def to_json(self) -> dict[str, object]:
        """The object `pingpong models --format json` prints for the model."""
        from pingpong.core.config import shown_url

        spec = self.spec
        return {"name": spec.name, "kind": spec.kind, "base_url": shown_url(spec.base_url) if spec.base_url else None,
                "model": spec.model, "api_key_env": spec.api_key_env, "key_set": self.key_set,
                "max_concurrency": spec.max_concurrency, "reachable": self.reachable, "reason": self.reason}


def key_text(row: ModelRow) -> str:
    """The key column: the variable's name and whether it is set (never its value)."""
    return "-" if row.key_set is None else f"{row.spec.api_key_env} {'set' if row.key_set else 'NOT SET'}"


def reach_text(row: ModelRow) -> str:
    """The reachable column: yes/no/skipped, with the note or failure line."""
    return row.reachable + (f" ({row.reason})" if row.reason else "")


def _probe(base_url: str, key: str | None, model: str | None = None,
           timeout: float = CHECK_TIMEOUT) -> tuple[str, str | None]:
    """("yes", None) when GET /models answers 2xx, else ("no", why). When the answer lists the
    models the server serves and `model` is not among them, it is still "yes" (llama.cpp answers
    to any name) with a note: a misspelt model is then seen before a run. Through a proxy (see
    core/proxies.py), a "no" names it."""
    url = base_url.rstrip("/") + "/models"
    headers = {"Accept": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    from pingpong.sessions.plan_checks import PROBE_ERRORS, PROXY_FAILURES, probe_opener, probe_request, through

    request = probe_request(url, headers)  # credentials in the URL go as Basic auth
    try:
        with probe_opener(url).open(request, timeout=timeout) as resp:
            return "yes", _unlisted(resp.read(1 << 20), model)
    except UserError as exc:  # a proxy of a kind the calls cannot use
        return "no", str(exc)
    except urllib.error.HTTPError as exc:
        if exc.code in PROXY_FAILURES and through(url):
            why = f"HTTP {exc.code} {exc.reason}"
        elif exc.code == 404 and "/v1" in base_url:  # some servers answer chat calls but list no models
            return "yes", "it answers, with no model list at /models"
        else:
            hint = "; does base_url need /v1?" if exc.code == 404 else ""
            return "no", f"HTTP {exc.code} {exc.reason}{hint}"
    except urllib.error.URLError as exc:
        reason = exc.reason
        why = f"{type(reason).__name__}: {reason}" if isinstance(reason, Exception) else str(reason)
    except TimeoutError:
        why = f"no answer within {timeout:g}s"
    except PROBE_ERRORS as exc:  # a URL http.client refuses (InvalidURL) is a line, not a traceback
        why = f"{type(exc).__name__}: {exc}"
    return "no", why + through(url)


def check_endpoint(probe: Probe, timeout: float = CHECK_TIMEOUT) -> Answer:
    """One endpoint's check, timed."""
    start = time.perf_counter()
    reachable, reason = _probe(probe.base_url, probe.key, probe.model, timeout)
    return Answer(reachable, reason, time.perf_counter() - start)


def _unlisted(body: bytes, model: str | None) -> str | None:
    """A note when the server's model list ({"data": [{"id": ...}]}) leaves out `model`, else None."""
    import json

    try:
        listed = [m["id"] for m in json.loads(body)["data"] if isinstance(m, dict) and isinstance(m.get("id"), str)]
    except (ValueError, KeyError, TypeError):
        return None
    if not model or not listed or model in listed:
        return None
    shown = ", ".join(listed[:5]) + (f" and {len(listed) - 5} more" if len(listed) > 5 else "")
    return f"but '{model}' is not among the models it lists: {shown}"


def plan_rows(home: Home, check: bool = True) -> list[ModelRow]:
    """One row per configured model (built-in offline included); a row to check carries its probe.
    Raises UserError for a config that cannot be read."""
    import os

    from pingpong.core.config import is_local, key_status, load_models

    rows: list[ModelRow] = []
    for spec in load_models(home).values():
        row = ModelRow(spec, key_status(spec))
        if spec.kind == "offline":
            row.reachable, row.reason = "yes", "built in, no network"
        elif not check:
            row.reason = "--no-check"
        elif row.key_set is False and not is_local(spec.base_url):
            row.reason = f"{spec.api_key_env} is not set"
        else:
            key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
            row.probe = Probe(spec.base_url or "", key, spec.model)
        rows.append(row)
    return rows


def check_all(rows: list[ModelRow], answered: Callable[[int, Answer], None],
              timeout: float = CHECK_TIMEOUT) -> None:
    """Check every row that has a probe, all at once; `answered(index, answer)` as each answer comes."""
    probes = {i: row.probe for i, row in enumerate(rows) if row.probe is not None}
    if not probes:
        return
    with ThreadPoolExecutor(max_workers=min(MAX_CHECKS, len(probes))) as pool:
        futures = {pool.submit(check_endpoint, probe, timeout): i for i, probe in probes.items()}
        for future in as_completed(futures):
            answered(futures[future], future.result())


def model_rows(home: Home, check: bool = True) -> list[dict[str, object]]:
    """One dict per configured model (built-in offline included), checked concurrently."""
    rows = plan_rows(home, check)
    check_all(rows, lambda i, answer: rows[i].answered(answer))
    return [row.to_json() for row in rows]


def models(args: Namespace, home: Home) -> int:
    rows = plan_rows(home, check=not getattr(args, "no_check", False))
    check_all(rows, lambda i, answer: rows[i].answered(answer))
    if getattr(args, "format", "table") == "json":
        print_json([row.to_json() for row in rows])
        return 0
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("kind", 3), Column("base_url", 5, short="url", least=12),
               Column("model", 6), Column("key", 7), Column("max", 2, number=True),
               Column("reachable", 9, short="ok", least=3)]
    body = []
    for row in rows:
        shown = row.to_json()
        body.append([row.spec.name, row.spec.kind, str(shown["base_url"] or "-"), row.spec.model or "-",
                     key_text(row), str(row.spec.max_concurrency), reach_text(row)])
    print_table(columns, body, args.format, title="models")
    return 0
