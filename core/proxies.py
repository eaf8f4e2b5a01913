"""Which HTTP proxy, if any, the environment names for a model's base URL.

Behind a company proxy, a remote endpoint is only reachable through it. The variables are
the ones curl, urllib and openai's own client read: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and
NO_PROXY, in lower or upper case. A loopback address (localhost, 127.x.x.x, ::1) is always
reached directly: a proxy's loopback is not this machine's, and a local server (vLLM,
llama.cpp) must keep working where a proxy is set for everything else. The model calls and the
reachability checks before a run both ask this one function, so a check takes the calls' road.
"""

from __future__ import annotations

import ipaddress
import urllib.parse
import urllib.request

from pingpong.core.config import LOCAL_HOSTS, shown_url
from pingpong.core.errors import UserError

SCHEMES = ("http", "https")
"""Proxies the calls can go through: an HTTP proxy, spoken to in plain HTTP or in TLS."""


def proxy_for(url: str) -> str | None:
    """The proxy to reach `url` through (its URL), or None to connect directly.

    UserError when the environment names a proxy of another kind (socks5://...) for it."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host or _loopback(host):
        return None
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    # NO_PROXY as urllib reads it: names matched as suffixes, a port when one is given, * for all
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]  # not in typeshed
    if not proxy or bypass(parts.netloc.rpartition("@")[2], proxies):
        return None
    if "://" not in proxy:
        proxy = f"http://{proxy}"
    if urllib.parse.urlsplit(proxy).scheme.lower() not in SCHEMES:
        raise UserError(f"the environment's proxy for {shown_url(url)} is {shown_url(proxy)}: "
                        "models are reached through http:// or https:// proxies only (or set NO_PROXY)")
    return proxy


def _loopback(host: str) -> bool:
    if host in LOCAL_HOSTS or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
