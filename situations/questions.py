"""The RoleBench question library: bundled sets plus the user's own under $PINGPONG_HOME/situations/rolebench.

A file's ``kind`` says which set it is: ``general`` (one per language, named ``general-<lang>``)
or ``role_specific`` (one per character, named after the card). A user file with the same name
as a bundled set replaces it; a broken user file is skipped and its one-line error kept in
``problems``, like cards and situations.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from pingpong.characters.collection import YamlCollection
from pingpong.characters.files import describe_validation, load_yaml, read_text, yaml_line
from pingpong.core.errors import UserError
from pingpong.core.home import Home
from pingpong.core.methods.rolebench_data import QUESTION_SETS, GeneralSet, QuestionSet, RoleSet

BUNDLED_DIR = Path(__file__).parent / "bundled" / "rolebench"
USER_SUBDIR = "rolebench"


def load_question_file(path: Path | str) -> QuestionSet:
    """One question set in our YAML format; UserError names the file, the field and the line."""
    where = str(path)
    text = read_text(path, what="question set file")
    data = load_yaml(text, where)
    if not isinstance(data, dict):
        found = "empty" if data is None else f"a {type(data).__name__}"
        raise UserError(f"{where}: expected a mapping with kind, lang and questions, found {found}")
    kind = data.get("kind")
    model = QUESTION_SETS.get(kind) if isinstance(kind, str) else None
    if model is None:
        line = yaml_line(text, ("kind",))
        at = f" (line {line})" if line and "kind" in data else ""
        raise UserError(f"{where}: kind: expected one of {', '.join(QUESTION_SETS)}{at}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UserError(describe_validation(where, exc, text, what="question set")) from None


class QuestionLibrary(YamlCollection[QuestionSet]):
    """RoleBench sets by name: ``general(lang)``, ``role_sets(lang)``, ``role_set(character, lang)``, ``problems``."""

    what = "question set"

    def __init__(self, home: Home | None = None, bundled_dir: Path | None = None):
        user_dir = home.situations_dir / USER_SUBDIR if home else None
        super().__init__(bundled_dir or BUNDLED_DIR, user_dir, load_question_file)

    def general(self, lang: str) -> GeneralSet | None:
        """The general instructions of ``lang`` (RAW and CUS), or None when there are none."""
        found = self._scan().get(f"general-{lang}")
        return found if isinstance(found, GeneralSet) else None

    def role_sets(self, lang: str | None = None) -> list[RoleSet]:
        """Every role-specific set (SPE) of ``lang`` (all languages for None), sorted by character."""
        return [s for s in self.all(lang) if isinstance(s, RoleSet)]

    def role_set(self, character: str, lang: str | None = None) -> RoleSet | None:
        """The role-specific set of the card named ``character`` (in ``lang``, the card's language,
        when given), or None when it has none. A user set in another language than the card's cannot
        serve it: it does not hide the bundled set then, and `problems` says so once."""
        found = self._scan().get(character)
        if not isinstance(found, RoleSet):
            return None
        if lang is None or found.lang == lang:
            return found
        if self.source(character) == "user":
            bundled = YamlCollection(self.bundled_dir, None, load_question_file)._scan().get(character)
            line = (f"{self.path(character)}: lang {found.lang}, but the card '{character}' is in {lang}; "
                    f"{'the bundled set is used' if isinstance(bundled, RoleSet) else 'ignored'}")
            if line not in self.problems:
                self.problems.append(line)
            if isinstance(bundled, RoleSet) and bundled.lang == lang:
                return bundled
        return None
