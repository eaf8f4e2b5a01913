"""The Textual application: one app object that owns the store, the model pool and the screens.

`create_app(home)` is the factory the CLI and the tests use, so a test can build the whole app
against a temporary home without touching the user's files.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App, SystemCommand
from textual.binding import Binding

from pingpong.core.errors import UserError
from pingpong.core.home import Home
from pingpong.core.vocabulary import HUMAN
from pingpong.tui.palette import ScreenCommands
from pingpong.tui.runs import SessionRuns

if TYPE_CHECKING:  # the first screen needs no pydantic model: they are imported where sessions start
    from textual.screen import Screen

    from pingpong.characters.library import CardLibrary
    from pingpong.core.domain import Character, ModelSpec, Price, SessionSpec, Situation
    from pingpong.core.llm import ModelPool
    from pingpong.core.methods.roleinteract_data import PaddingPool
    from pingpong.sessions.costs import PlayerSpend
    from pingpong.sessions.store import Store
    from pingpong.situations.catalog import Catalog
    from pingpong.situations.library import SituationLibrary
    from pingpong.situations.probes import ProbeLibrary, SceneLibrary
    from pingpong.situations.questions import QuestionLibrary
    from pingpong.situations.seeds import SeedLibrary


@dataclass
class PlayRequest:
    """Open the app straight into a live session (`pingpong play`)."""

    spec: SessionSpec
    character: Character
    situation: Situation
    cast: tuple[Character, ...] = ()
    """A group scene's member cards (the spec's cast)."""


@dataclass
class AnnotateRequest:
    """Open the app on the rating queue (`pingpong annotate`)."""

    sample: int | None = None
    players: list[str] | None = None
    methods: list[str] | None = None
    author: str | None = None
    """Who rates (`--author`); None: config `author`, else the OS user."""


@dataclass
class ResumeRequest:
    """Open the app on a stored session, resumed (`pingpong sessions resume` of one with a person's seat)."""

    session_id: int


@dataclass
class NewSessionRequest:
    """Open the app on the new-session form, prefilled (`pingpong play` with missing choices)."""

    defaults: dict[str, Any] = field(default_factory=dict)


class PingPongApp(App):
    """pingpong: play, judge, replay and watch role-play sessions."""

    CSS_PATH = "pingpong.tcss"
    TITLE = "pingpong"
    COMMANDS = App.COMMANDS | {ScreenCommands}
    BINDINGS = [
        Binding("f1", "help", "Help", id="help"),
        Binding("question_mark", "help", "Help", show=False, id="help-alt"),
        # hidden from the footer (no room at 80 columns; q quits from home, the help says ctrl+q)
        Binding("ctrl+q", "quit", "Quit", tooltip="Quit (asks first while sessions run)", show=False, id="quit",
                priority=True),
        # escape first leaves a text box (the Home filter, the message box); then the screen's own escape
        Binding("escape", "leave_input", "Leave the text box", show=False, id="leave-input", priority=True),
    ]

    def __init__(self, home: Home, *, initial: PlayRequest | NewSessionRequest | AnnotateRequest | ResumeRequest | None = None,
                 watch_interval: float = 1.0, bundled: tuple[Path, Path] | None = None) -> None:
        super().__init__()
        self.home = home
        self.bundled = bundled
        self.initial = initial
        self.watch_interval = watch_interval
        self._store: Store | None = None
        self._pool: ModelPool | None = None
        self._models: dict[str, ModelSpec] | None = None
        self.runs = SessionRuns(self)
        from pingpong.tui.keymap import load_keymap

        self.keymap = load_keymap(home)  # [keymap] of config.toml; a wrong entry stops here, one line
        if self.keymap:
            self.set_keymap(self.keymap)

    # -- services -------------------------------------------------------------------------
    @property
    def store(self) -> Store:
        """The store used on the event loop's thread (workers in threads open their own)."""
        if self._store is None:
            self._store = self.open_store()
        return self._store

    def open_store(self) -> Store:
        """A database this process cannot write opens read-only: the app then shows what is stored
        and refuses, with one message, whatever would change it (writable)."""
        from pingpong.sessions.store import Store

        self.home.ensure()
        return Store(self.home.db_path, reading=True)

    def writable(self, doing: str) -> bool:
        """Whether the database can be written; if not, the person is told that `doing` (e.g.
        "starting a session") would write it, and nothing is done."""
        store = self.store
        if not store.read_only:
            return True
        self.notify(f"{doing[:1].upper()}{doing[1:]} needs to write the database, which cannot be written here "
                    f"({store.unwritable}). Nothing was changed.", title="Read-only database", severity="warning",
                    timeout=8)
        return False

    @property
    def models(self) -> dict[str, ModelSpec]:
        if self._models is None:
            from pingpong.core.config import load_models

            self._models = load_models(self.home)
        return self._models

    def prices(self) -> dict[str, Price]:
        """{model: price} from config.toml ({} without prices, or when the config cannot be read)."""
        from pingpong.core.config import prices

        try:
            return prices(self.models)
        except UserError:
            return {}

    def session_spend(self, session_id: int, store: Store | None = None) -> PlayerSpend | None:
        """What a session cost so far (sessions.costs), or None when no model has a price."""
        price_of = self.prices()
        if not price_of:
            return None
        from pingpong.sessions.costs import session_spend

        return session_spend((store or self.store).conn, session_id, price_of)

    @property
    def pool(self) -> ModelPool:
        if self._pool is None:
            from pingpong.core.llm import ModelPool

            self._pool = ModelPool(self.models)
        return self._pool

    def cards(self) -> CardLibrary:
        from pingpong.characters.library import CardLibrary

        if self.bundled is not None:
            return CardLibrary(self.home, bundled_dir=self.bundled[0])
        return CardLibrary(self.home)

    def scenes(self) -> SceneLibrary:
        """Group scenes (RoleInteract); tests put theirs in the bundled situations folder's scenes/."""
        from pingpong.situations.probes import SceneLibrary

        if self.bundled is not None:
            return SceneLibrary(self.home, bundled_dir=self.bundled[1] / "scenes")
        return SceneLibrary(self.home)

    def probes(self) -> ProbeLibrary:
        """RoleInteract's probe sets; tests put theirs in the bundled situations folder's probes/."""
        from pingpong.situations.probes import ProbeLibrary

        if self.bundled is not None:
            return ProbeLibrary(self.home, bundled_dir=self.bundled[1] / "probes")
        return ProbeLibrary(self.home)

    def padding(self, lang: str) -> PaddingPool:
        """The padding pool of ``lang`` memory probes take their small talk from (UserError if none)."""
        from pingpong.situations.probes import load_padding

        return load_padding(lang, self.home, bundled_dir=self.bundled[1] / "probes" if self.bundled else None)

    def situations(self) -> SituationLibrary:
        from pingpong.situations.library import SituationLibrary

        if self.bundled is not None:
            return SituationLibrary(self.home, bundled_dir=self.bundled[1])
        return SituationLibrary(self.home)

    def seeds(self) -> SeedLibrary:
        from pingpong.situations.seeds import SEEDS_SUBDIR, SeedLibrary

        if self.bundled is not None:
            return SeedLibrary(self.home, bundled_dir=self.bundled[1] / SEEDS_SUBDIR)
        return SeedLibrary(self.home)

    def questions(self) -> QuestionLibrary:
        """RoleBench's question sets (bundled, and the home's own)."""
        from pingpong.situations.questions import QuestionLibrary

        return QuestionLibrary(self.home)

    def catalog(self) -> Catalog:
        """Every library a method lists from (what `situations list` reads), opened on first use."""
        from pingpong.situations.catalog import Catalog

        return Catalog(self.situations, self.seeds, self.probes, self.scenes, self.questions)

    def shown_key(self, binding_id: str, default: str) -> str:
        """The key a hint written on a screen names for a binding: its `[keymap]` key, else `default`."""
        from pingpong.tui.keymap import shown_key

        return shown_key(self.keymap, binding_id, default)

    def author(self) -> str:
        """Who a person's score is recorded under (config `author`, else the OS user)."""
        from pingpong.core.config import author

        try:
            return author(self.home)
        except UserError:
            return HUMAN

    def start_session(self, spec: SessionSpec, character: Character, situation: Situation,
                      cast: Sequence[Character] = ()) -> int:
        """Store a new session; {{user}} in its card becomes config `user_name` (when set)."""
        from pingpong.core.config import user_name
        from pingpong.sessions.live import start_session

        if spec.user_name is None:
            spec = spec.model_copy(update={"user_name": user_name(self.home)})
        return start_session(self.store, spec, character, situation, cast=cast)

    # -- lifecycle ------------------------------------------------------------------------
    def on_mount(self) -> None:
        from pingpong.tui.screens.home import HomeScreen

        try:
            self.store.mark_orphans_interrupted()
            read_only = self.store.read_only
        except Exception as exc:  # a broken database must still show the app and the reason
            self.notify(f"database: {exc}", severity="error", timeout=10)
            read_only = False
        if read_only:
            self.title = f"{self.TITLE} (read-only database)"
            self.notify(f"{self.store.path}: {self.store.unwritable}. Sessions, replays, the leaderboard and the "
                        "cards can be read; nothing can be started, rated or forked.", title="Read-only database",
                        timeout=10)
        self.push_screen(HomeScreen())
        initial = self.initial
        if isinstance(initial, PlayRequest):
            self.open_live(self.start_session(initial.spec, initial.character, initial.situation, initial.cast))
        elif isinstance(initial, NewSessionRequest):
            self.action_new_session(initial.defaults)
        elif isinstance(initial, AnnotateRequest):
            self.action_annotate(initial.sample, initial.players, initial.methods, initial.author)
        elif isinstance(initial, ResumeRequest):
            self.open_live(initial.session_id)

    async def on_unmount(self) -> None:
        await self.runs.close()  # before the store closes: each session is left interrupted, resumable
        if self._pool is not None:
            await self._pool.aclose()
        if self._store is not None:
            self._store.close()

    # -- navigation actions (also used by the command palette) ---------------------------
    def open_live(self, session_id: int, *, follow: bool = False, paused: bool = False) -> None:
        from pingpong.tui.screens.live import LiveScreen

        self.push_screen(LiveScreen(session_id, follow=follow, paused=paused))

    def action_new_session(self, defaults: dict | None = None) -> None:
        from pingpong.tui.screens.new_session import NewSessionScreen

        if not self.writable("starting a session"):
            return

        self.push_screen(NewSessionScreen(defaults or {}))

    def action_open_replay(self, session_id: int) -> None:
        from pingpong.tui.screens.replay import ReplayScreen

        self.push_screen(ReplayScreen(session_id))

    def action_leaderboard(self) -> None:
        from pingpong.tui.screens.leaderboard import LeaderboardScreen

        self.push_screen(LeaderboardScreen())

    def action_compare(self, session_id: int | None = None) -> None:
        """Pairs of sessions side by side (those holding ``session_id`` when given)."""
        from pingpong.tui.screens.compare import CompareScreen

        self.push_screen(CompareScreen(session_id))

    def action_dmt_leaderboard(self) -> None:
        from pingpong.tui.screens.leaderboard import LeaderboardScreen

        self.push_screen(LeaderboardScreen("dmt"))

    def action_characters(self) -> None:
        from pingpong.tui.screens.characters import CharactersScreen

        self.push_screen(CharactersScreen())

    def action_situations(self) -> None:
        from pingpong.tui.screens.situations import SituationsScreen

        self.push_screen(SituationsScreen())

    def action_annotate(self, sample: int | None = None, players: list[str] | None = None,
                        methods: list[str] | None = None, author: str | None = None) -> None:
        from pingpong.tui.screens.annotate import AnnotateScreen

        if not self.writable("opening the rating queue"):
            return
        self.push_screen(AnnotateScreen(sample=sample, players=players, methods=methods, author=author))

    def action_models(self) -> None:
        from pingpong.tui.screens.models import ModelsScreen

        self.push_screen(ModelsScreen())

    def action_agreement(self) -> None:
        from pingpong.tui.screens.agreement import AgreementScreen

        self.push_screen(AgreementScreen())

    def action_watch(self) -> None:
        from pingpong.tui.screens.watch import WatchScreen

        self.push_screen(WatchScreen())

    def action_help(self) -> None:
        from pingpong.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """leave_input only while a screen's text box has the keys: elsewhere (and in dialogs, which
        close on escape) the screen's own escape runs, and the footer shows it."""
        if action == "leave_input":
            from textual.screen import ModalScreen

            return _is_text_box(self.focused) and not isinstance(self.screen, ModalScreen)
        return True

    def action_leave_input(self) -> None:
        """Escape in a screen's text box: leave the box (keys are shortcuts again), nothing more."""
        screen = self.screen
        leave = getattr(screen, "leave_input", None)
        if callable(leave):
            leave()
        else:
            screen.set_focus(None)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's own palette commands, but its Quit: the screen's quit keys are listed already."""
        for command in super().get_system_commands(screen):
            if command.callback != self.action_quit:
                yield command

    async def action_quit(self) -> None:
        """Quit; with sessions running in this app, ask first (they would stop)."""
        running = sorted(self.runs.ids())
        if not running:
            self.exit()
            return
        from pingpong.tui.screens.choice import ChoiceScreen

        def answered(choice: str | None) -> None:
            if choice == "quit":
                self.runs.stop_all()
                self.exit()

        names = ", ".join(str(i) for i in running)
        self.push_screen(ChoiceScreen(
            "Quit pingpong?", f"Session{'s' if len(running) > 1 else ''} {names} still running here would stop "
            "(each can be resumed later).", [("q", "Stop and quit", "quit"), ("escape", "Stay", "stay")]), answered)


def _is_text_box(widget: object) -> bool:
    """An Input or a TextArea. TextArea is looked for only once some screen imported it: importing
    it to learn that Home has none would cost every start of the app (its module is large)."""
    from textual.widgets import Input

    text_area = sys.modules.get("textual.widgets._text_area")
    return isinstance(widget, Input) or (text_area is not None and isinstance(widget, text_area.TextArea))


def create_app(home: Home, *, initial: PlayRequest | NewSessionRequest | AnnotateRequest | ResumeRequest | None = None,
               watch_interval: float = 1.0, bundled: tuple[Path, Path] | None = None) -> PingPongApp:
    """Build the app for a home folder.

    initial: open a live session (PlayRequest), the prefilled form (NewSessionRequest), the
    rating queue (AnnotateRequest) or a stored session resumed (ResumeRequest).
    watch_interval: seconds between database polls of watched runs and sessions.
    bundled: (cards dir, situations dir) replacing the shipped ones (tests use fixed content); DMT seeds
    are then read from the situations dir's `dmt` folder.
    """
    return PingPongApp(home, initial=initial, watch_interval=watch_interval, bundled=bundled)
