from tests.engine.conftest import fake_pool, fake_server, fake_specs  # noqa: F401  (the engine's fixtures)
