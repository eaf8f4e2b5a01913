"""`pingpong models`: every configured model, whether its key is set, and whether it answers.

Reachability is a GET {base_url}/models with a short timeout, all endpoints at
once. Keys are sent but never printed.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from pingpong.tui.commands.output import print_json

CHECK_TIMEOUT = 3.0


def _probe(base_url: str, key: str | None, model: str | None = None,
           timeout: float = CHECK_TIMEOUT) -> tuple[str, str | None]:
    """("yes", None) when GET /models answers 2xx, else ("no", why). When the answer lists the
    models the server serves and `model` is not among them, it is still "yes" (llama.cpp answers
    to any name) with a note: a misspelt model is then seen before a run."""
    url = base_url.rstrip("/") + "/models"
    headers = {"Accept": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    from pingpong.sessions.plan_checks import PROBE_ERRORS, direct_opener, probe_request

    request = probe_request(url, headers)

    try:
        with direct_opener().open(request, timeout=timeout) as resp:
            return "yes", _unlisted(resp.read(1 << 20), model)
    except urllib.error.HTTPError as exc:
        if exc.code == 404 and "/v1" in base_url:  # some servers answer chat calls but list no models
            return "yes", "it answers, with no model list at /models"
        hint = "; does base_url need /v1?" if exc.code == 404 else ""
        return "no", f"HTTP {exc.code} {exc.reason}{hint}"
    except urllib.error.URLError as exc:
        reason = exc.reason
        return "no", f"{type(reason).__name__}: {reason}" if isinstance(reason, Exception) else str(reason)
    except TimeoutError:
        return "no", f"no answer within {timeout:g}s"
    except PROBE_ERRORS as exc:
        return "no", f"{type(exc).__name__}: {exc}"


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


def model_rows(home, check: bool = True) -> list[dict]:
    """One dict per configured model (built-in offline included), checked concurrently."""
    import os

    from pingpong.core.config import is_local, key_status, load_models, shown_url

    rows: list[dict[str, object]] = []
    probes: dict[int, tuple[str, str | None, str | None]] = {}
    for spec in load_models(home).values():
        row: dict[str, object] = {
            "name": spec.name, "kind": spec.kind, "base_url": shown_url(spec.base_url) if spec.base_url else None, "model": spec.model,
            "api_key_env": spec.api_key_env, "key_set": key_status(spec),
            "max_concurrency": spec.max_concurrency, "reachable": "skipped", "reason": None,
        }
        if spec.kind == "offline":
            row["reachable"], row["reason"] = "yes", "built in, no network"
        elif not check:
            row["reason"] = "--no-check"
        elif row["key_set"] is False and not is_local(spec.base_url):
            row["reason"] = f"{spec.api_key_env} is not set"
        else:
            key = os.environ.get(spec.api_key_env) if spec.api_key_env else None
            probes[len(rows)] = (spec.base_url or "", key, spec.model)
        rows.append(row)
    if probes:
        with ThreadPoolExecutor(max_workers=min(16, len(probes))) as pool:
            futures = {i: pool.submit(_probe, url, key, model) for i, (url, key, model) in probes.items()}
            for i, fut in futures.items():
                rows[i]["reachable"], rows[i]["reason"] = fut.result()
    return rows


def models(args, home) -> int:
    rows = model_rows(home, check=not getattr(args, "no_check", False))
    if getattr(args, "format", "table") == "json":
        print_json(rows)
        return 0
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("kind", 3), Column("base_url", 5, short="url", least=12),
               Column("model", 6), Column("key", 7), Column("max", 2, number=True),
               Column("reachable", 9, short="ok", least=3)]
    body = []
    for r in rows:
        key = "-" if r["key_set"] is None else f"{r['api_key_env']} {'set' if r['key_set'] else 'NOT SET'}"
        reach = r["reachable"] + (f" ({r['reason']})" if r["reason"] else "")
        body.append([r["name"], r["kind"], r["base_url"] or "-", r["model"] or "-", key, str(r["max_concurrency"]),
                     reach])
    print_table(columns, body, args.format, title="models")
    return 0
