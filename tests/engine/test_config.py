"""config.toml: models parsed and validated, errors name the file and the field."""

from __future__ import annotations

import pytest

from pingpong.core.config import check_ready, is_local, load_models, resolve
from pingpong.core.errors import UserError
from pingpong.core.home import Home

GOOD = """
[models.gpt-4o-mini]
base_url = "https://api.openai.com/v1"
model = "gpt-4o-mini"
api_key_env = "PINGPONG_TEST_OPENAI_KEY"
max_concurrency = 4
merge_system = true
timeout = 30
[models.gpt-4o-mini.params]
temperature = 0.7
frequency_penalty = 0.2

[models.local]
base_url = "http://127.0.0.1:8080/v1"
model = "llama"
"""


def _home(tmp_path, text: str) -> Home:
    (tmp_path / "config.toml").write_text(text, encoding="utf-8")
    return Home(tmp_path)


def test_good_config(tmp_path):
    models = load_models(_home(tmp_path, GOOD))
    assert set(models) == {"gpt-4o-mini", "local", "offline"}
    spec = models["gpt-4o-mini"]
    assert (spec.kind, spec.model, spec.max_concurrency, spec.merge_system, spec.timeout) == \
        ("openai", "gpt-4o-mini", 4, True, 30)
    assert spec.params == {"temperature": 0.7, "frequency_penalty": 0.2}
    assert models["offline"].kind == "offline"
    assert resolve(models, "local").base_url == "http://127.0.0.1:8080/v1"


def test_no_config_file_means_offline_only(tmp_path):
    assert list(load_models(Home(tmp_path))) == ["offline"]


def test_explicit_config_that_does_not_exist(tmp_path):
    with pytest.raises(UserError, match="config file not found"):
        load_models(Home(tmp_path, config_override=tmp_path / "nope.toml"))


def test_bad_toml_names_the_file(tmp_path):
    with pytest.raises(UserError) as info:
        load_models(_home(tmp_path, "[models.x\nbase_url = 1"))
    assert str(tmp_path / "config.toml") in str(info.value) and "invalid TOML" in str(info.value)


@pytest.mark.parametrize("entry,where", [
    ('base_url = "http://h/v1"\nmodel = "m"\ncolour = "red"', "models.x.colour: unknown field"),
    ('base_url = "http://h/v1"\nmodel = "m"\nmax_concurrency = 0', "models.x.max_concurrency"),
    ('base_url = "http://h/v1"', "models.x.model: missing"),
    ('model = "m"', "models.x.base_url: missing"),
    ('base_url = "ftp://h"\nmodel = "m"', "models.x.base_url: expected an http(s) URL"),
    ('base_url = "http://[::1/v1"\nmodel = "m"', "models.x.base_url: not a valid URL"),
    ('base_url = "http://h:99999/v1"\nmodel = "m"', "models.x.base_url: not a valid URL"),
    ('base_url = "http://h/v1"\nmodel = "m"\ntimeout = "soon"', "models.x.timeout"),
])
def test_bad_fields_are_named(tmp_path, entry, where):
    with pytest.raises(UserError) as info:
        load_models(_home(tmp_path, f"[models.x]\n{entry}\n"))
    assert where in str(info.value) and "config.toml" in str(info.value)


@pytest.mark.parametrize("text, key", [
    ('autor = "ann"\n', "autor"),
    ('user_nmae = "Alex"\n', "user_nmae"),
    ('[modles.gpt]\nbase_url = "http://h/v1"\nmodel = "m"\n', "modles"),
])
def test_a_misspelled_setting_is_refused_not_ignored(tmp_path, text, key):
    with pytest.raises(UserError) as info:
        load_models(_home(tmp_path, text))
    assert str(info.value) == (f"{tmp_path / 'config.toml'}: {key}: unknown setting (config.toml takes author, "
                               "user_name, [keymap] and [models.NAME] tables)")


def test_a_key_in_place_of_its_variables_name_is_refused_without_showing_it(tmp_path):
    with pytest.raises(UserError) as info:
        load_models(_home(tmp_path, '[models.x]\nbase_url = "http://h/v1"\nmodel = "m"\n'
                                    'api_key_env = "sk-proj-AbC123-secret"\n'))
    assert "models.x.api_key_env: must name an environment variable" in str(info.value)
    assert "AbC123" not in str(info.value)


def test_reserved_names(tmp_path):
    with pytest.raises(UserError, match="models.offline: 'offline' is a reserved name"):
        load_models(_home(tmp_path, '[models.offline]\nbase_url = "http://h/v1"\nmodel = "m"\n'))


def test_unknown_model_lists_configured(tmp_path):
    models = load_models(_home(tmp_path, GOOD))
    with pytest.raises(UserError, match=r"unknown model 'gpt5' \(configured: gpt-4o-mini, local, offline\)"):
        resolve(models, "gpt5")


def test_missing_key_env(tmp_path, monkeypatch):
    monkeypatch.delenv("PINGPONG_TEST_OPENAI_KEY", raising=False)
    models = load_models(_home(tmp_path, GOOD))
    with pytest.raises(UserError, match="model 'gpt-4o-mini': environment variable PINGPONG_TEST_OPENAI_KEY is not set"):
        check_ready(models["gpt-4o-mini"])
    check_ready(models["local"])
    check_ready(models["offline"])
    monkeypatch.setenv("PINGPONG_TEST_OPENAI_KEY", "sk-x")
    check_ready(models["gpt-4o-mini"])


def test_is_local():
    assert is_local("http://127.0.0.1:9/v1") and is_local("http://localhost/v1")
    assert not is_local("https://api.openai.com/v1") and not is_local(None)


@pytest.mark.parametrize("param,where", [
    ('temperature = "hot"', "models.x.params.temperature: expected a number"),
    ("top_p = true", "models.x.params.top_p: expected a number"),
    ("max_tokens = 1.5", "models.x.params.max_tokens: expected a whole number"),
    ('model = "another"', "models.x.params.model: not a sampling parameter"),  # it would replace the model
    ('messages = "all gone"', "models.x.params.messages: not a sampling parameter"),
    ('stream = "no"', "models.x.params.stream: expected true or false"),
])
def test_bad_sampling_params_are_named(tmp_path, param, where):
    with pytest.raises(UserError) as info:
        text = f'[models.x]\nbase_url = "http://h/v1"\nmodel = "m"\n[models.x.params]\n{param}\n'
        load_models(_home(tmp_path, text))
    assert where in str(info.value) and "config.toml" in str(info.value)


def test_other_params_pass_through(tmp_path):
    text = '[models.x]\nbase_url = "http://h/v1"\nmodel = "m"\n[models.x.params]\ntemperature = 1\nstop = ["END"]\n'
    assert load_models(_home(tmp_path, text))["x"].params == {"temperature": 1, "stop": ["END"]}


def test_author_must_be_text(tmp_path):
    from pingpong.core.config import author

    assert author(_home(tmp_path, 'author = " ann "\n')) == "ann"
    with pytest.raises(UserError, match="config.toml: author: expected a name in quotes"):
        author(_home(tmp_path, "author = 5\n"))


def test_a_password_in_a_base_url_is_never_shown(tmp_path):
    from pingpong.core.config import shown_url

    assert shown_url("http://user:hunter2@127.0.0.1:9/v1") == "http://user:***@127.0.0.1:9/v1"
    assert shown_url("https://api.example.com/v1") == "https://api.example.com/v1"
    assert shown_url("http://sk-token@example.com/v1") == "http://***@example.com/v1"
    assert shown_url("http://u:pw@with@at@example.com:8/v1") == "http://u:***@example.com:8/v1"
    with pytest.raises(UserError) as info:
        load_models(_home(tmp_path, '[models.x]\nbase_url = "ftp://u:hunter2@h/v1"\nmodel = "m"\n'))
    assert "hunter2" not in str(info.value) and "ftp://u:***@h/v1" in str(info.value)
