"""Models behind an HTTP proxy: the calls and the checks before a run go through the proxy the
environment names (HTTP_PROXY and friends), loopback addresses never do, NO_PROXY is obeyed.

The endpoint's host (models.example) does not resolve: only tests/fakeproxy.py, which sends
every request on to the fake server, reaches it."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from pingpong.core.errors import UserError
from pingpong.core.proxies import proxy_for
from tests.fakeproxy import FakeProxy
from tests.runner.conftest import (
    assert_complete_once,
    pingpong,
    run_args,
    standard_models,
    write_config,
)
from tests.runner.test_bad_input import closed_port

PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
REMOTE = "http://models.example/v1"


@pytest.fixture
def clean_env(monkeypatch):
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    return monkeypatch


@pytest.fixture
def proxy(fake, clean_env):
    upstream = urlsplit(fake.base_url)
    with FakeProxy(upstream=(upstream.hostname, upstream.port)) as running:
        clean_env.setenv("HTTP_PROXY", running.url)
        yield running


def remote_home(home):
    models = standard_models(REMOTE)
    write_config(home, models)
    return home


def test_a_run_reaches_a_remote_endpoint_through_the_proxy(home, fake, proxy):
    result = pingpong(remote_home(home), *run_args())
    assert result.rc == 0, result.err
    assert_complete_once(home)
    targets = [r.target for r in proxy.requests]
    assert f"{REMOTE}/models" in targets  # the check before the run took the same road
    chats = [r for r in proxy.requests if r.method == "POST"]
    assert len(chats) == len(fake.chat_requests) > 0
    assert all(r.target == f"{REMOTE}/chat/completions" for r in chats)
    assert all(r.headers["authorization"] == "Bearer not-a-real-key" for r in chats)
    assert any(r.body.get("stream") for r in fake.chat_requests)  # streamed replies came through whole


def test_without_the_proxy_the_same_endpoint_is_unreachable(home, fake, clean_env):
    result = pingpong(remote_home(home), *run_args())
    assert result.rc == 2 and "unreachable" in result.err and "through proxy" not in result.err
    assert fake.requests == []


def test_a_dead_proxy_is_named_in_the_line(home, fake, clean_env):
    clean_env.setenv("HTTP_PROXY", f"http://user:secret@127.0.0.1:{closed_port()}")
    result = pingpong(remote_home(home), *run_args())
    assert result.rc == 2 and "Traceback" not in result.err
    line = result.err.strip().splitlines()[0]
    assert "unreachable through proxy http://user:***@127.0.0.1:" in line and "secret" not in result.err


def test_no_proxy_sends_the_host_directly(home, fake, proxy, clean_env):
    clean_env.setenv("NO_PROXY", "other.example,models.example")
    result = pingpong(remote_home(home), *run_args())
    assert result.rc == 2 and "unreachable" in result.err  # directly, the name does not resolve
    assert proxy.requests == []


def test_a_local_server_is_reached_directly_whatever_the_proxy(home, fake, proxy):
    result = pingpong(home, *run_args("--every", "8"))  # the home's models are on 127.0.0.1
    assert result.rc == 0, result.err
    assert proxy.requests == [] and fake.chat_requests


def test_a_proxy_that_cannot_reach_the_server_fails_the_check(home, fake, clean_env):
    with FakeProxy(upstream=("127.0.0.1", closed_port()), connect_status=502) as proxy:
        clean_env.setenv("HTTPS_PROXY", proxy.url)
        models = standard_models(REMOTE.replace("http:", "https:"))
        write_config(home, models)
        result = pingpong(home, *run_args())
    assert result.rc == 2 and "Traceback" not in result.err
    assert "unreachable through proxy" in result.err and "502" in result.err
    assert [r.method for r in proxy.requests] == ["CONNECT"]
    assert proxy.requests[0].target == "models.example:443"


def test_the_models_command_checks_through_the_proxy(home, fake, proxy):
    result = pingpong(remote_home(home), "models")
    assert result.rc == 0, result.err
    assert {r.target for r in proxy.requests} == {f"{REMOTE}/models"}
    assert "yes" in result.out


@pytest.mark.parametrize("env, url, expected", [
    ({"HTTP_PROXY": "http://p:3128"}, "http://models.example/v1", "http://p:3128"),
    ({"HTTP_PROXY": "p:3128"}, "http://models.example/v1", "http://p:3128"),
    ({"HTTP_PROXY": "http://p:3128"}, "https://models.example/v1", None),
    ({"HTTPS_PROXY": "https://p:3129"}, "https://models.example/v1", "https://p:3129"),
    ({"ALL_PROXY": "http://p:1"}, "https://models.example/v1", "http://p:1"),
    ({"ALL_PROXY": "http://p:1", "NO_PROXY": ".example"}, "https://models.example/v1", None),
    ({"ALL_PROXY": "http://p:1", "NO_PROXY": "*"}, "https://models.example/v1", None),
    ({"ALL_PROXY": "http://p:1", "NO_PROXY": "example.org"}, "https://models.example/v1", "http://p:1"),
    ({"ALL_PROXY": "http://p:1"}, "http://localhost:8000/v1", None),
    ({"ALL_PROXY": "http://p:1"}, "http://127.0.0.5:8000/v1", None),
    ({"ALL_PROXY": "http://p:1"}, "http://[::1]:8000/v1", None),
    ({"ALL_PROXY": "http://p:1"}, "http://key:pw@models.example/v1", "http://p:1"),
    ({}, "https://models.example/v1", None),
])
def test_which_proxy_a_url_takes(clean_env, env, url, expected):
    for name, value in env.items():
        clean_env.setenv(name, value)
    assert proxy_for(url) == expected


def test_a_socks_proxy_is_refused_in_one_line(home, fake, clean_env):
    clean_env.setenv("ALL_PROXY", "socks5://user:pw@p:1080")
    with pytest.raises(UserError, match=r"socks5://user:\*\*\*@p:1080.*http:// or https:// proxies"):
        proxy_for(REMOTE)
    result = pingpong(remote_home(home), *run_args())
    assert result.rc == 2 and "Traceback" not in result.err and "socks5://user:***@p:1080" in result.err
    assert "pw" not in result.err.replace("proxies", "")



def test_https_goes_through_the_proxys_tunnel(home, fake, clean_env, tmp_path):
    """https: a CONNECT tunnel through the proxy, the server's certificate checked against SSL_CERT_FILE."""
    import ssl

    import trustme

    ca = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("models.example").configure_cert(served)
    fake._httpd.socket = served.wrap_socket(fake._httpd.socket, server_side=True)
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    clean_env.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    upstream = urlsplit(fake.base_url)
    with FakeProxy(upstream=(upstream.hostname, upstream.port), connect_status=200) as proxy:
        clean_env.setenv("HTTPS_PROXY", proxy.url)
        write_config(home, standard_models(REMOTE.replace("http:", "https:")))
        result = pingpong(home, *run_args())
    assert result.rc == 0, result.err
    assert_complete_once(home)
    assert {(r.method, r.target) for r in proxy.requests} == {("CONNECT", "models.example:443")}
    assert len(fake.chat_requests) > 0
