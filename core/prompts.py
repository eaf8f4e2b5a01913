"""Turn cards, situations and transcripts into OpenAI message lists.

The wording lives in Jinja2 templates (core/templates/*.j2) so a user can
replace any of them with a file of the same name in their own folder. Card and
message text only ever enters a template as a variable, and the environment is
sandboxed with StrictUndefined: a persona containing ``{{ 7*7 }}`` reaches the
model verbatim, and a template typo fails loudly instead of rendering blanks.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pingpong.core.domain import Character, Message, PromptFormat, Situation
from pingpong.core.errors import UserError

if TYPE_CHECKING:
    from jinja2 import Template

PACKAGE_TEMPLATES = Path(__file__).parent / "templates"

LANGUAGE_NAMES = {
    "en": "English", "ru": "Russian", "de": "German", "fr": "French", "es": "Spanish",
    "it": "Italian", "pt": "Portuguese", "uk": "Ukrainian", "pl": "Polish", "nl": "Dutch",
    "tr": "Turkish", "ja": "Japanese", "zh": "Chinese", "ko": "Korean", "ar": "Arabic",
}

Messages = list[dict[str, str]]

Prompting = Literal["zsp", "fsp", "fsd"]
"""The player's prompting strategy (METHOD.md "RoleLLM"); None keeps every example as prior turns."""


def language_name(code: str) -> str:
    """'ru' -> 'Russian'; unknown codes are passed through so the model still gets a hint."""
    return LANGUAGE_NAMES.get(code, code)


def lore_for(character: Character, transcript: Sequence[Message]) -> list[str]:
    """The card's lorebook entries that the greeting and recent messages activate (SillyTavern's
    rules, core.lorebook), with {{char}}/{{user}} filled in as plain text."""
    from pingpong.core.lorebook import active_entries, character_book
    from pingpong.core.macros import replace_macros

    book = character_book(character)
    if book is None:
        return []
    recent = [t for t in (character.greeting, *(m.text for m in transcript)) if t]
    return [replace_macros(entry, character.char_name, character.lang) for entry in active_entries(book, recent)]


class PromptRenderer:
    """Builds the message lists for the four prompting tasks.

    ``user_dir`` (e.g. Home.templates_dir) is searched first, so a file there
    named like one of ours replaces it; a missing folder is simply skipped.
    """

    def __init__(self, user_dir: Path | None = None):
        # jinja2 is imported here, not with the module: the methods import this module for its
        # types, and a list of sessions renders no prompt
        from jinja2 import ChoiceLoader, FileSystemLoader, StrictUndefined
        from jinja2.exceptions import TemplateError

        from pingpong.core.prompt_env import PromptEnvironment

        self._template_error = TemplateError
        loaders: list[FileSystemLoader] = []
        if user_dir is not None and Path(user_dir).is_dir():
            loaders.append(FileSystemLoader(str(user_dir)))
        loaders.append(FileSystemLoader(str(PACKAGE_TEMPLATES)))
        self.user_dir = Path(user_dir) if user_dir is not None else None
        self.env = PromptEnvironment(
            loader=ChoiceLoader(loaders),
            undefined=StrictUndefined,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=False,
            auto_reload=False,  # read once per process: checking each file's mtime on every call costs a stat per prompt
        )
        self._templates: dict[str, Template] = {}

    # -- low level -------------------------------------------------------

    def render(self, name: str, **variables) -> str:
        """Render one template; template mistakes become a UserError naming the file."""
        from jinja2.exceptions import TemplateNotFound

        try:
            template = self._templates.get(name)
            if template is None:  # Jinja's own cache takes a lock and reorders its LRU list per lookup
                template = self._templates[name] = self.env.get_template(name)
            return template.render(**variables).strip()
        except TemplateNotFound as exc:
            raise UserError(f"{self._where(name)}: no template '{exc.name}' to include or extend") from exc
        except self._template_error as exc:
            raise UserError(f"{self._where(name)}: {' '.join(str(exc).split())}") from exc
        except RecursionError:
            raise UserError(f"{self._where(name)}: includes or extends itself without end") from None
        except UserError:
            raise
        except Exception as exc:  # what the template asked of its data failed: 1/0, 'a' + 1, range(10**10)
            raise UserError(f"{self._where(name)}: {type(exc).__name__}: {' '.join(str(exc).split())}") from None

    def _where(self, name: str) -> str:
        """The file a template name stands for: the home's override when there is one."""
        if self.user_dir is not None and (self.user_dir / name).is_file():
            return str(self.user_dir / name)
        return f"template {name}"

    @staticmethod
    def _card(character: Character) -> dict:
        return character.model_dump(mode="json")

    @staticmethod
    def _lines(transcript: Sequence[Message]) -> list[dict]:
        return [{"turn": m.turn, "role": m.role, "text": m.text, "speaker": m.speaker} for m in transcript]

    # -- player ----------------------------------------------------------

    @staticmethod
    def examples(character: Character, prompting: Prompting | None, last: str) -> tuple[Messages, str]:
        """The card's example dialogue as ``prompting`` gives it: (prior turns, text for the system
        prompt). ``last``: what the player answers now, which fsd's examples are picked to match."""
        examples = list(character.example_dialogue)
        example_text = character.example_text
        if prompting == "zsp":
            examples, example_text = [], ""
        elif prompting == "fsp":
            written = "\n\n".join(f"User: {ex.user}\n{character.char_name}: {ex.char}" for ex in examples)
            example_text = "\n\n".join(t for t in (written, example_text) if t)
            examples = []
        elif prompting == "fsd":
            from pingpong.core.retrieval import select_examples

            examples = select_examples(examples, last)
        turns: Messages = []
        for ex in examples:
            turns += [{"role": "user", "content": ex.user}, {"role": "assistant", "content": ex.char}]
        return turns, example_text

    def player(self, character: Character, transcript: Sequence[Message],
               prompting: Prompting | None = None, prompt_format: PromptFormat = "detailed") -> Messages:
        """The player's request: system persona (with catchphrases), examples, greeting, then the chat.

        How the card's example dialogue reaches the player (METHOD.md "RoleLLM"):
        None (the default) sends every example as real prior turns; ``zsp`` sends none;
        ``fsp`` writes them as text inside the system prompt; ``fsd`` sends as real prior
        turns the few most like the last user message (BM25), or all when there are few.

        ``prompt_format`` (METHOD.md, DMT-RoleBench) says how much of the card the player gets:
        ``detailed`` all of the above; ``minimal`` (the name) and ``overview`` (name and summary)
        only their one short system prompt and the chat, so no examples, lore or greeting. A
        strategy (zsp, fsp, fsd) says exactly which prior turns there are: none is the greeting
        (``greets``).
        """
        if prompt_format != "detailed":
            system = self.render(f"player_system_{prompt_format}.j2", character=self._card(character),
                                 language=language_name(character.lang))
            return [{"role": "system", "content": system},
                    *({"role": m.role, "content": m.text} for m in transcript)]
        last = next((m.text for m in reversed(transcript) if m.role == "user"), "")
        turns, example_text = self.examples(character, prompting, last)
        system = self.render(
            "player_system.j2", character=self._card(character), example_text=example_text,
            lore=lore_for(character, transcript), language=language_name(character.lang),
        )
        messages: Messages = [{"role": "system", "content": system}, *turns]
        if character.greeting and self.greets(prompt_format, prompting):
            messages.append({"role": "assistant", "content": character.greeting})
        for m in transcript:
            messages.append({"role": m.role, "content": m.text})
        return messages

    # -- interrogator ----------------------------------------------------

    def interrogator(self, character: Character, situation: Situation,
                     transcript: Sequence[Message], *, turn: int, num_turns: int,
                     lang: str | None = None, prompt_format: PromptFormat = "detailed",
                     prompting: Prompting | None = None) -> Messages:
        """The user's side: summary + situation only (never the full card)."""
        character = self.as_greeted(character, prompt_format, prompting)
        variables = dict(
            character={"char_name": character.char_name, "summary": character.summary,
                       "greeting": character.greeting},
            situation=situation.model_dump(mode="json"),
            transcript=self._lines(transcript),
            turn=turn, num_turns=num_turns,
            language=language_name(lang or situation.lang),
        )
        return [
            {"role": "system", "content": self.render("interrogator_system.j2", **variables)},
            {"role": "user", "content": self.render("interrogator_user.j2", **variables)},
        ]

    @staticmethod
    def greets(prompt_format: PromptFormat, prompting: Prompting | None) -> bool:
        """Does the card's greeting open the conversation as the player's first turn? Only with the
        whole card (``detailed``) and no RoleLLM strategy: a ``minimal`` or ``overview`` player is not
        given it, and zsp, fsp and fsd say exactly which prior turns there are (METHOD.md)."""
        return prompt_format == "detailed" and prompting is None

    @classmethod
    def as_greeted(cls, character: Character, prompt_format: PromptFormat,
                   prompting: Prompting | None = None) -> Character:
        """The card as the user's side may know it: its greeting opens the conversation only where the
        player said it (``greets``)."""
        return character if cls.greets(prompt_format, prompting) or not character.greeting \
            else character.model_copy(update={"greeting": ""})

    def interrogator_reask(self, messages: Messages, bad_answer: str, problem: str,
                           *, lang: str) -> Messages:
        """The first attempt plus the bad answer and a short correction."""
        note = self.render("interrogator_reask.j2", problem=problem, language=language_name(lang))
        return [*messages, {"role": "assistant", "content": bad_answer},
                {"role": "user", "content": note}]

    # -- judge (version 2) -----------------------------------------------

    def judge(self, character: Character, transcript: Sequence[Message], *,
              turns: Sequence[int], lang: str | None = None) -> Messages:
        """Whole card + whole conversation with numbered player turns; per-turn JSON asked."""
        variables = dict(
            character=self._card(character), transcript=self._lines(transcript),
            turns=list(turns), language=language_name(lang or character.lang),
        )
        return [
            {"role": "system", "content": self.render("judge_system.j2", **variables)},
            {"role": "user", "content": self.render("judge_user.j2", **variables)},
        ]

    def judge_reask(self, messages: Messages, bad_answer: str, problem: str,
                    *, turns: Sequence[int]) -> Messages:
        """Ask again, naming only the turns still missing."""
        note = self.render("judge_reask.j2", problem=problem, turns=list(turns))
        return [*messages, {"role": "assistant", "content": bad_answer},
                {"role": "user", "content": note}]

    # -- pairwise judge --------------------------------------------------

    def pairwise(self, character: Character, situation: Situation, first: Sequence[Message],
                 second: Sequence[Message], *, lang: str | None = None) -> Messages:
        """Two conversations of the same card and situation, numbered 1 and 2 in the order given;
        the judge names the better player (METHOD.md "RoleLLM": pairwise evaluation)."""
        variables = dict(
            character=self._card(character), situation=situation.model_dump(mode="json"),
            conversations=[self._lines(first), self._lines(second)],
            language=language_name(lang or character.lang),
        )
        return [
            {"role": "system", "content": self.render("pairwise_system.j2", **variables)},
            {"role": "user", "content": self.render("pairwise_user.j2", **variables)},
        ]

    def pairwise_reask(self, messages: Messages, bad_answer: str, problem: str) -> Messages:
        note = self.render("pairwise_reask.j2", problem=problem)
        return [*messages, {"role": "assistant", "content": bad_answer},
                {"role": "user", "content": note}]

    # -- interrogator-judge (version 1) ----------------------------------

    def interrogator_judge(self, character: Character, situation: Situation,
                           transcript: Sequence[Message], *, turn: int | None,
                           score_turn: int | None, num_turns: int,
                           lang: str | None = None, prompt_format: PromptFormat = "detailed",
                           prompting: Prompting | None = None) -> Messages:
        """Full card; score player turn ``score_turn`` (None on the first call) and write
        the line for ``turn`` (None after the last reply)."""
        character = self.as_greeted(character, prompt_format, prompting)
        variables = dict(
            character=self._card(character), situation=situation.model_dump(mode="json"),
            transcript=self._lines(transcript), turn=turn, score_turn=score_turn,
            num_turns=num_turns, language=language_name(lang or situation.lang),
        )
        return [
            {"role": "system", "content": self.render("interrogator_judge_system.j2", **variables)},
            {"role": "user", "content": self.render("interrogator_judge_user.j2", **variables)},
        ]

    def interrogator_judge_reask(self, messages: Messages, bad_answer: str, problem: str,
                                 *, turn: int | None, score_turn: int | None) -> Messages:
        note = self.render("interrogator_judge_reask.j2", problem=problem, turn=turn,
                           score_turn=score_turn)
        return [*messages, {"role": "assistant", "content": bad_answer},
                {"role": "user", "content": note}]


def check_templates(user_dir: Path | None) -> int:
    """Compile every override template (``*.j2``) in user_dir as PromptRenderer would, so a broken one
    is refused at start-up instead of failing every conversation; UserError names the file and line.
    Returns how many were compiled (0 without a folder)."""
    from jinja2.exceptions import TemplateSyntaxError

    from pingpong.core.safe_parse import MAX_CONFIG_BYTES, decode_text, read_limited

    if user_dir is None or not Path(user_dir).is_dir():
        return 0
    try:
        files = sorted(p for p in Path(user_dir).iterdir() if p.suffix == ".j2" and not p.name.startswith("."))
    except OSError as exc:
        raise UserError(f"{user_dir}: cannot list the templates folder ({exc.strerror or exc})") from None
    renderer = PromptRenderer(user_dir)
    env = renderer.env
    for file in files:
        source = decode_text(read_limited(file, MAX_CONFIG_BYTES, "template file"), str(file))
        try:
            env.compile(source, file.name, str(file))
        except TemplateSyntaxError as exc:
            raise UserError(f"{file}: line {exc.lineno}: {' '.join(str(exc.message).split())}") from None
        except (RecursionError, SyntaxError, MemoryError):
            raise UserError(f"{file}: template nested too deeply to compile") from None
    if files:
        rehearse(renderer)
    return len(files)


def rehearse(renderer: PromptRenderer) -> None:
    """Build every prompt of the four tasks once from a sample card and conversation, so an override
    that only fails when rendered (an unknown variable, a missing include, extending itself) is a
    UserError naming its file before a run, not a failed conversation each. The group scenes'
    templates are compiled but not rehearsed: they need a cast."""
    from pingpong.core.domain import ExampleTurn

    card = Character(name="sample", char_name="Sample", lang="en", summary="A sample card.", persona="Plain.",
                     greeting="Hello.", example_dialogue=[ExampleTurn(user="Hi?", char="Hello.")])
    situation = Situation(name="sample", lang="en", num_turns=2, text="Ask the way.")
    chat = [Message(turn=1, role="user", author="q", text="Which way?"),
            Message(turn=1, role="assistant", author="p", text="North.")]
    for prompting in (None, "zsp", "fsp", "fsd"):
        renderer.player(card, chat, prompting)
    for prompt_format in ("minimal", "overview"):
        renderer.player(card, chat, prompt_format=prompt_format)
    asked = renderer.interrogator(card, situation, chat, turn=2, num_turns=2)
    renderer.interrogator_reask(asked, "?", "too short", lang="en")
    judged = renderer.judge(card, chat, turns=[1])
    renderer.judge_reask(judged, "?", "no JSON", turns=[1])
    renderer.pairwise_reask(renderer.pairwise(card, situation, chat, chat), "?", "no choice")
    for turn, score_turn in ((1, None), (2, 1), (None, 2)):
        v1 = renderer.interrogator_judge(card, situation, chat, turn=turn, score_turn=score_turn, num_turns=2)
        renderer.interrogator_judge_reask(v1, "?", "no JSON", turn=turn, score_turn=score_turn)
