"""Where pingpong keeps its files: $PINGPONG_HOME (or --home) holds config and database."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple


class Home(NamedTuple):
    """The home folder and the overrides of its database and config (a NamedTuple, not a dataclass:
    every command makes one, and importing dataclasses costs more than the rest of this module)."""

    root: Path
    db_override: Path | None = None
    config_override: Path | None = None

    @classmethod
    def resolve(cls, home: str | None = None, db: str | None = None, config: str | None = None) -> "Home":
        root = home or os.environ.get("PINGPONG_HOME")
        if root is None:
            import platformdirs

            root = platformdirs.user_data_dir("pingpong", appauthor=False)
        db_path = Path(db).expanduser() if db else None
        if db_path is not None and not db_path.parent.is_dir():  # a typo would make folders and a new database
            from pingpong.core.errors import UserError

            raise UserError(f"--db {db}: there is no folder {db_path.parent}")
        return cls(Path(root).expanduser(), db_path, Path(config).expanduser() if config else None)

    @property
    def config_path(self) -> Path:
        return self.config_override or self.root / "config.toml"

    @property
    def db_path(self) -> Path:
        return self.db_override or self.root / "pingpong.db"

    @property
    def characters_dir(self) -> Path:
        return self.root / "characters"

    @property
    def situations_dir(self) -> Path:
        return self.root / "situations"

    @property
    def templates_dir(self) -> Path:
        return self.root / "templates"

    def ensure(self) -> None:
        from pingpong.core.errors import UserError

        if self.root.exists() and not self.root.is_dir():
            raise UserError(f"{self.root}: is a file; the pingpong home (--home, PINGPONG_HOME) must be a folder")
        try:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)  # a new home is its owner's alone
        except OSError as exc:
            raise UserError(f"{self.root}: cannot create the pingpong home folder ({exc.strerror})") from None
