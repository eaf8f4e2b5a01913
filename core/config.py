"""Models from config.toml: parsed, validated, and checked for their API key.

The key itself never lives in the config; each model names the environment
variable that holds it (api_key_env). Local endpoints (127.0.0.1, localhost)
may run without one.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from pingpong.core.errors import UserError
from pingpong.core.home import Home
from pingpong.core.safe_parse import MAX_CONFIG_BYTES, check_plain, decode_text, parse_toml, read_limited, show
from pingpong.core.vocabulary import HUMAN, OFFLINE

if TYPE_CHECKING:  # the models are imported by what builds them: the TUI reads [keymap] without pydantic
    from pydantic import ValidationError

    from pingpong.core.domain import ModelSpec, Price

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0"})
RESERVED = frozenset({OFFLINE, HUMAN})
# sampling parameters whose type we know; any other [models.NAME.params] key is passed on as is
NUMERIC_PARAMS = frozenset({"temperature", "top_p", "frequency_penalty", "presence_penalty"})
INTEGER_PARAMS = frozenset({"max_tokens", "max_completion_tokens", "seed", "n"})
REQUEST_FIELDS = {"model": "the model's own `model` key", "messages": "the conversation"}
"""Request fields pingpong writes itself: a params key of the same name would silently replace them."""
SECONDS_FIELDS = ("timeout", "deadline")
MAX_SECONDS = 24 * 3600.0
"""Longest timeout or deadline accepted: a day for one call is already more than any model needs."""


def offline_spec() -> ModelSpec:
    """The built-in deterministic stand-in for every role."""
    from pingpong.core.domain import ModelSpec

    return ModelSpec(name=OFFLINE, kind="offline", max_concurrency=64)


def shown_url(url: str) -> str:
    """A base URL as it may be printed or written: credentials in it are masked (`user:***@host`,
    and `***@host` for a token given as the user name)."""
    parts = urlparse(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return url
    user, colon, _ = userinfo.partition(":")
    return parts._replace(netloc=f"{user}:***@{host}" if colon else f"***@{host}").geturl()


def is_local(base_url: str | None) -> bool:
    if not base_url:
        return False
    return (urlparse(base_url).hostname or "").lower() in LOCAL_HOSTS


def _field_error(path: Any, name: str, exc: ValidationError) -> UserError:
    err = exc.errors()[0]
    loc = ".".join(show(p) for p in err.get("loc", ()))
    where = f"models.{name}.{loc}" if loc else f"models.{name}"
    msg = "unknown field" if err.get("type") == "extra_forbidden" else err.get("msg", "invalid value")
    if loc == "api_key_env" and err.get("type") == "string_pattern_mismatch":  # what it holds is never shown
        msg = "must name an environment variable (letters, digits, _), never hold the key itself"
    return UserError(f"{path}: {where}: {msg}")


def parse_models(data: dict[str, Any], path: Any = "config.toml") -> dict[str, ModelSpec]:
    """ModelSpecs from the parsed TOML document (only its [models.*] tables are ours)."""
    from pydantic import ValidationError

    from pingpong.core.domain import ModelSpec

    models: dict[str, ModelSpec] = {}
    table = data.get("models", {})
    if not isinstance(table, dict):
        raise UserError(f"{path}: models: expected tables like [models.NAME]")
    for name, entry in table.items():
        if not name.strip() or not name.isprintable():
            raise UserError(f"{path}: models.{show(repr(name))}: a model name must be printable text")
        if name in RESERVED:
            raise UserError(f"{path}: models.{name}: '{name}' is a reserved name")
        if not isinstance(entry, dict):
            raise UserError(f"{path}: models.{name}: expected a table [models.{name}]")
        if "name" in entry:
            raise UserError(f"{path}: models.{name}.name: unknown field (the table name is the model name)")
        try:
            spec = ModelSpec(name=name, **entry)
        except ValidationError as exc:
            raise _field_error(path, name, exc) from None
        for key in ("max_concurrency", *SECONDS_FIELDS):
            if isinstance(entry.get(key), bool):
                raise UserError(f"{path}: models.{name}.{key}: expected a number, got {entry[key]!r}")
        for key in SECONDS_FIELDS:
            seconds = getattr(spec, key)
            if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
                raise UserError(f"{path}: models.{name}.{key}: expected seconds above 0 and at most "
                                f"{MAX_SECONDS:g}, got {seconds!r}")
        check_plain(spec.params, str(path), ["models", name, "params"])
        for key, value in spec.params.items():
            if key in REQUEST_FIELDS:
                raise UserError(f"{path}: models.{name}.params.{key}: not a sampling parameter: pingpong sends "
                                f"{REQUEST_FIELDS[key]} there")
            if key == "stream" and not isinstance(value, bool):
                raise UserError(f"{path}: models.{name}.params.stream: expected true or false, got {value!r}")
            is_int = isinstance(value, int) and not isinstance(value, bool)
            if key in NUMERIC_PARAMS and not (is_int or isinstance(value, float)):
                raise UserError(f"{path}: models.{name}.params.{key}: expected a number, got {value!r}")
            if key in INTEGER_PARAMS and not is_int:
                raise UserError(f"{path}: models.{name}.params.{key}: expected a whole number, got {value!r}")
        if spec.kind == "openai":
            for required in ("base_url", "model"):
                if not getattr(spec, required):
                    raise UserError(f"{path}: models.{name}.{required}: missing (required for kind 'openai')")
            url = spec.base_url or ""
            try:  # urlparse, .hostname and .port raise on "http://[::1/v1" or a port past 65535
                _ = urlparse(url).hostname, urlparse(url).port
            except ValueError:
                raise UserError(f"{path}: models.{name}.base_url: not a valid URL (its host or port cannot be "
                                "read)") from None
            if urlparse(url).scheme not in ("http", "https"):
                raise UserError(f"{path}: models.{name}.base_url: expected an http(s) URL, got {shown_url(url)!r}")
        models[name] = spec
    models[OFFLINE] = offline_spec()
    return models


def prices(models: dict[str, ModelSpec]) -> dict[str, Price]:
    """{model: price} of the models whose config names one: what the cost figures are made of."""
    return {name: spec.price for name, spec in models.items() if spec.price is not None}


SETTINGS = ("author", "user_name", "keymap", "models")
"""The top-level keys of config.toml; anything else is a typo, refused."""


def read_config(home: Home) -> dict[str, Any]:
    """config.toml as a dict ({} when the default one does not exist yet)."""
    path = home.config_path
    if not path.exists() and not path.is_symlink():
        if home.config_override is not None:
            raise UserError(f"{path}: config file not found")
        return {}
    text = decode_text(read_limited(path, MAX_CONFIG_BYTES, "config file"), str(path))
    data = parse_toml(text, str(path))
    unknown = next((key for key in data if key not in SETTINGS), None)
    if unknown is not None:  # `autor = "ann"` or `[modles.x]` would otherwise be ignored without a word
        raise UserError(f"{path}: {show(unknown)}: unknown setting (config.toml takes "
                        f"{', '.join(SETTINGS[:2])}, [{SETTINGS[2]}] and [{SETTINGS[3]}.NAME] tables)")
    return data


def load_models(home: Home) -> dict[str, ModelSpec]:
    """Every configured model plus the built-in `offline`. A missing default config is fine.
    The home's template overrides are compiled too, so a broken one is refused before any run."""
    from pingpong.core.prompts import check_templates

    models = parse_models(read_config(home), home.config_path)
    check_templates(home.templates_dir)
    return models


def author(home: Home, given: str | None = None) -> str:
    """Who a person's scores are recorded under: ``given`` (a command's --author) when it names
    someone, else `author` in config.toml, else the OS user."""
    if given and given.strip():
        return given.strip()
    name = read_config(home).get("author")
    if isinstance(name, str) and name.strip():
        return name.strip()
    if name is not None:
        raise UserError(f"{home.config_path}: author: expected a name in quotes, e.g. author = \"alice\"")
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        raise UserError("cannot tell who you are: set author = \"NAME\" in config.toml or pass --author") from None


def user_name(home: Home) -> str | None:
    """What {{user}} becomes in cards: `user_name` in config.toml; None leaves the card language's
    neutral name ("User")."""
    name = read_config(home).get("user_name")
    if name is None:
        return None
    if not isinstance(name, str) or not name.strip():
        raise UserError(f"{home.config_path}: user_name: expected a name in quotes, e.g. user_name = \"Alex\"")
    return name.strip()


def resolve(models: dict[str, ModelSpec], name: str) -> ModelSpec:
    """The spec called `name`, or a UserError listing what is configured."""
    try:
        return models[name]
    except KeyError:
        configured = ", ".join(sorted(models)) or "none"
        raise UserError(f"unknown model '{name}' (configured: {configured})") from None


def key_status(spec: ModelSpec) -> bool | None:
    """True/False: the key variable is set or not; None: the model needs no key variable."""
    if spec.kind != "openai" or not spec.api_key_env:
        return None
    return bool(os.environ.get(spec.api_key_env))


def _header_safe(value: str) -> bool:
    """True when value can travel in an HTTP header: printable ASCII only (no newline, no tab)."""
    return all(" " <= ch <= "~" for ch in value)


def _key(spec: ModelSpec) -> str | None:
    """The key from the environment, refused (without showing it) when a header cannot carry it."""
    value = os.environ.get(spec.api_key_env) if spec.api_key_env else None
    if value and not _header_safe(value):
        raise UserError(f"model '{spec.name}': environment variable {spec.api_key_env} holds a character an "
                        "HTTP header cannot carry (a newline, control or non-ASCII character); set it to the key alone")
    return value


def check_ready(spec: ModelSpec) -> None:
    """UserError when a remote model's key variable is missing (local endpoints need none) or
    holds something that cannot be sent."""
    if spec.kind != "openai":
        return
    _key(spec)
    if key_status(spec) is False and not is_local(spec.base_url):
        raise UserError(f"model '{spec.name}': environment variable {spec.api_key_env} is not set")


def api_key(spec: ModelSpec) -> str:
    """The key to send: from the environment, or a placeholder for endpoints that need none."""
    value = _key(spec)
    if value:
        return value
    check_ready(spec)
    return "not-needed"
