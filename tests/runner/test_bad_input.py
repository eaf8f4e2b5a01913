"""Bad input stops `pingpong run` with one line and exit 2, before any request is sent."""

from __future__ import annotations

import socket

import pytest

from tests.runner.conftest import (
    model_entry,
    pingpong,
    run_args,
    standard_models,
    write_config,
)


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_refused(result, *needles: str) -> None:
    assert result.rc == 2, (result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("pingpong: error: ")
    assert "Traceback" not in result.err
    for needle in needles:
        assert needle in lines[0]


@pytest.mark.parametrize("args, needle", [
    (run_args(players=("alpha", "nobody")), "nobody"),
    (["run", "--player", "alpha", "--interrogator", "nobody", "--judge", "judge-one"], "nobody"),
    (["run", "--player", "alpha", "--interrogator", "asker", "--judge", "ghost"], "ghost"),
    (run_args()[:-4] + ["--characters", "tin-sailor,no-such-card"], "no-such-card"),
    (run_args()[:-2] + ["--situations", "lost-map,no-such-situation"], "no-such-situation"),
    (run_args("--every", "0"), "--every"),
    (run_args("--concurrency", "0"), "--concurrency"),
])
def test_unknown_names_and_bad_numbers(home, fake, args, needle):
    assert_refused(pingpong(home, *args), needle)
    assert fake.requests == []


def test_missing_key_variable(home, fake, monkeypatch):
    # Local endpoints may go without a key, so the model needing one is a remote one;
    # the check fails before any network, so the unresolvable host is never looked up.
    models = standard_models(fake.base_url)
    models["beta"] = model_entry("https://llm.invalid/v1", "beta-model", key_env="PINGPONG_NO_SUCH_KEY")
    write_config(home, models)
    monkeypatch.delenv("PINGPONG_NO_SUCH_KEY", raising=False)
    assert_refused(pingpong(home, *run_args()), "beta", "PINGPONG_NO_SUCH_KEY")
    assert fake.requests == []


def test_unreachable_base_url(home, fake):
    models = standard_models(fake.base_url)
    models["alpha"] = model_entry(f"http://127.0.0.1:{closed_port()}/v1", "alpha-model")
    write_config(home, models)
    assert_refused(pingpong(home, *run_args()), "alpha", "unreachable")
    assert fake.chat_requests == []  # only the GET /models probes of the reachable endpoint
    assert all(r.method == "GET" for r in fake.requests)


def test_a_home_that_is_a_file(tmp_path, fake):
    home = tmp_path / "home"
    home.write_text("not a folder", encoding="utf-8")
    result = pingpong(home, "run", "--player", "offline", "--interrogator", "offline", "--judge", "offline",
                      "--every", "64")
    assert_refused(result, str(home), "must be a folder")
    assert home.read_text(encoding="utf-8") == "not a folder"


def test_a_proxy_in_the_environment_does_not_make_a_server_unreachable(home, fake, monkeypatch):
    """A loopback server is reached directly whatever proxy the environment names, by the calls and
    by the check before a run alike (it once refused a local server through a dead http_proxy)."""
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{closed_port()}")
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    write_config(home, standard_models(fake.base_url))
    result = pingpong(home, *run_args("--every", "8"))
    assert result.rc == 0, result.err


def test_an_unreachable_base_url_is_named_without_its_password(home, fake):
    models = standard_models(fake.base_url)
    models["alpha"] = model_entry(f"http://user:hunter2@127.0.0.1:{closed_port()}/v1", "alpha-model")
    write_config(home, models)
    result = pingpong(home, *run_args())
    assert result.rc == 2 and "unreachable" in result.err and "user:***@127.0.0.1" in result.err
    assert "hunter2" not in result.err + result.out
