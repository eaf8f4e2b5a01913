"""`pingpong models --format json` as a user runs it: a subprocess with its own --home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PINGPONG_TEST_")}
    env.update(env_extra or {})
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "pingpong.tui.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def _config(tmp_path, fake_server, unused_port_url) -> Path:
    (tmp_path / "config.toml").write_text(f"""
[models.fake]
base_url = "{fake_server.base_url}"
model = "fake-model"
max_concurrency = 3

[models.keyed]
base_url = "{fake_server.base_url}"
model = "fake-model"
api_key_env = "PINGPONG_TEST_MODELS_KEY"

[models.remote]
base_url = "https://llm.example.invalid/v1"
model = "big"
api_key_env = "PINGPONG_TEST_REMOTE_KEY"

[models.down]
base_url = "{unused_port_url}"
model = "gone"
""")
    return tmp_path


def test_models_json(tmp_path, fake_server, unused_port_url):
    home = _config(tmp_path, fake_server, unused_port_url)
    proc = _run("models", "--format", "json", "--home", str(home),
                env_extra={"PINGPONG_TEST_MODELS_KEY": "sk-do-not-print"})
    assert proc.returncode == 0, proc.stderr
    assert "sk-do-not-print" not in proc.stdout + proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert set(rows) == {"fake", "keyed", "remote", "down", "offline"}
    assert rows["fake"]["reachable"] == "yes" and rows["fake"]["max_concurrency"] == 3
    assert rows["fake"]["key_set"] is None and rows["fake"]["kind"] == "openai"
    assert rows["keyed"]["key_set"] is True and rows["keyed"]["reachable"] == "yes"
    assert rows["remote"]["key_set"] is False and rows["remote"]["reachable"] == "skipped"
    assert "PINGPONG_TEST_REMOTE_KEY is not set" in rows["remote"]["reason"]
    assert rows["down"]["reachable"] == "no" and rows["down"]["reason"]
    assert rows["offline"]["reachable"] == "yes"
    keyed_probe = [r for r in fake_server.requests if r.method == "GET" and "sk-do-not-print" in r.headers.get("authorization", "")]
    assert keyed_probe and all(r.path.endswith("/models") for r in fake_server.requests)


def test_models_no_check_and_table(tmp_path, fake_server, unused_port_url):
    home = _config(tmp_path, fake_server, unused_port_url)
    proc = _run("models", "--format", "json", "--no-check", "--home", str(home))
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert rows["fake"]["reachable"] == "skipped" and fake_server.requests == []
    table = _run("models", "--no-check", "--home", str(home))
    assert table.returncode == 0 and "fake-model" in table.stdout


def test_models_bad_config_exits_2(tmp_path):
    (tmp_path / "config.toml").write_text("[models.x]\nbase_url = 'http://h/v1'\nmodel = 'm'\nwat = 1\n")
    proc = _run("models", "--home", str(tmp_path))
    assert proc.returncode == 2 and "models.x.wat: unknown field" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_models_notes_a_model_the_server_does_not_list(tmp_path, fake_server):
    """A misspelt `model` passed as reachable and failed only in the run."""
    (tmp_path / "config.toml").write_text(f"""
[models.typo]
base_url = "{fake_server.base_url}"
model = "fake-modle"
""")
    proc = _run("models", "--format", "json", "--home", str(tmp_path))
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert rows["typo"]["reachable"] == "yes"  # some servers answer to any name: a note, not a refusal
    assert rows["typo"]["reason"] == "but 'fake-modle' is not among the models it lists: fake-model"


def test_a_server_without_a_model_list_is_reachable_and_one_without_v1_gets_a_hint(tmp_path):
    """llama.cpp-like servers answer chat calls but 404 on /models: "no" sent users hunting a problem
    that was not there. A base URL without /v1 that 404s is the usual mistake: asked about."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class NoList(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), NoList)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        (tmp_path / "config.toml").write_text(f'[models.listless]\nbase_url = "{url}/v1"\nmodel = "m"\n'
                                              f'[models.bare]\nbase_url = "{url}"\nmodel = "m"\n')
        rows = {r["name"]: r for r in json.loads(_run("models", "--format", "json", "--home", str(tmp_path)).stdout)}
    finally:
        server.shutdown()
    assert (rows["listless"]["reachable"], rows["listless"]["reason"]) == ("yes", "it answers, with no model list at /models")
    assert rows["bare"]["reachable"] == "no" and rows["bare"]["reason"].endswith("does base_url need /v1?")


class _Redirect:
    """A server whose every GET answers 302 to `target`: a proxy sending the model list elsewhere."""

    def __init__(self, target: str) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(302)
                self.send_header("Location", target)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_redirect_to_another_host_does_not_carry_the_key(fake_server):
    from pingpong.sessions.plan_checks import _probe as run_probe
    from pingpong.tui.commands.models import _probe

    hop = _Redirect(fake_server.base_url + "/models")  # another port: another origin
    try:
        assert _probe(hop.url, "sk-stay-home", "fake-model")[0] == "yes"
        assert run_probe(hop.url + "/models", 3) is None
    finally:
        hop.close()
    assert [r.path for r in fake_server.requests] == ["/v1/models", "/v1/models"]
    assert all("authorization" not in r.headers for r in fake_server.requests)


def test_credentials_in_the_base_url_reach_the_probe_as_the_calls_send_them(fake_server):
    from pingpong.sessions.plan_checks import _probe as run_probe
    from pingpong.tui.commands.models import _probe

    url = fake_server.base_url.replace("http://", "http://qa%40user:pw@with@at@")
    assert _probe(url, None, "fake-model") == ("yes", None)
    assert fake_server.requests[-1].headers["authorization"] == "Basic cWFAdXNlcjpwd0B3aXRoQGF0"  # qa@user:pw@with@at
    assert run_probe(url + "/models", 3) is None
    # a URL urllib cannot send is a reason, not a traceback
    assert run_probe("http://127.0.0.1:port/v1/models", 3)
    assert _probe("http://127.0.0.1:port/v1", None)[0] == "no"
