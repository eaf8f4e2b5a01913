"""The batch runner: many conversations at once, resumable, counted as they go.

It is one more consumer of the engine's events (through sessions.live), like
the TUI: live.run_session records every message, call and verdict as it
happens, and the runner only decides what to run and keeps counters for the
progress display. Because everything is in the database the moment it
happens, a killed run loses at most the messages being generated, and the
same command started again finds where it stopped.

What happens to each planned (player, character, situation) of the run:
- a finished session exists -> skipped;
- an interrupted one exists (a Ctrl-C, or a 'running' row whose process died,
  which mark_orphans_interrupted turns into 'interrupted') -> resumed after its
  last stored message;
- a 'running' one whose process is alive (another `pingpong run` on the same
  run) -> left alone and reported, never run twice at once; looked at again when
  this run's own pairs are done, and resumed if that process has died meanwhile;
- only failed ones, or none -> a fresh session. A failed row is kept as the
  record of what went wrong (its error, its calls) and is never counted: the
  leaderboard counts finished sessions only, and at most one session per pair
  ever finishes because a pair with a finished session is always skipped.
  Fresh rather than resumed, because a failure that survived the retries may
  come from the conversation itself (an input a model rejects), which resuming
  would replay forever.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pingpong.core.domain import CastSeat, SessionSpec
from pingpong.core.errors import StorageError
from pingpong.core.events import CallFinished, Event, SessionFailed, SessionFinished
from pingpong.sessions.plan import PlanItem

if TYPE_CHECKING:
    from pingpong.sessions.live import Started
    from pingpong.sessions.queries import RunFacets

FINISHED, FAILED, INTERRUPTED, RUNNING = "finished", "failed", "interrupted", "running"


@dataclass
class PlayerCounts:
    """Where one player stands in the run; the display reads these, nothing else."""

    total: int = 0
    done: int = 0          # finished sessions, including those finished by an earlier run
    skipped: int = 0       # of `done`, how many were already finished when this run began
    in_flight: int = 0
    failed: int = 0
    elsewhere: int = 0     # run right now by another process
    requests: int = 0
    retries: int = 0
    tokens: int = 0        # every call of this player's conversations (player, interrogator, judges)
    player_latency_ms: float = 0.0
    player_replies: int = 0
    finished_here: int = 0   # of `done`, how many this process finished (workers' views are summed)

    @property
    def mean_latency_ms(self) -> float | None:
        return self.player_latency_ms / self.player_replies if self.player_replies else None


@dataclass
class RunProgress:
    """Counters of the whole run, updated from engine events as they arrive."""

    players: dict[str, PlayerCounts]
    started: float = field(default_factory=time.monotonic)
    finished_here: int = 0     # conversations this process brought to an end (finished or failed)
    requests: int = 0
    retries: int = 0
    failed_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: list[str] = field(default_factory=list)   # a few SessionFailed messages, for the summary
    interrupted: bool = False
    interrupted_sessions: int = 0     # sessions in flight when the run was cancelled

    @property
    def total(self) -> int:
        return sum(c.total for c in self.players.values())

    @property
    def done(self) -> int:
        return sum(c.done for c in self.players.values())

    @property
    def failed(self) -> int:
        return sum(c.failed for c in self.players.values())

    @property
    def in_flight(self) -> int:
        return sum(c.in_flight for c in self.players.values())

    @property
    def elsewhere(self) -> int:
        return sum(c.elsewhere for c in self.players.values())

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def eta(self) -> float | None:
        """Seconds left at the pace of this process so far; None before the first conversation ends."""
        left = self.total - self.done - self.failed - self.elsewhere
        if left <= 0:
            return 0.0
        if not self.finished_here:
            return None
        return left * self.elapsed / self.finished_here

    def on_event(self, counts: PlayerCounts, event: Event) -> None:
        if type(event) is not CallFinished:
            return
        call = event.call
        self.requests += 1
        counts.requests += 1
        if call.status == "retry":
            self.retries += 1
            counts.retries += 1
        elif call.status == "failed":
            self.failed_requests += 1
        used = (call.prompt_tokens or 0) + (call.completion_tokens or 0)
        self.prompt_tokens += call.prompt_tokens or 0
        self.completion_tokens += call.completion_tokens or 0
        counts.tokens += used
        if call.role == "player" and call.status == "ok" and call.latency_ms is not None:
            counts.player_latency_ms += call.latency_ms
            counts.player_replies += 1


@dataclass(frozen=True)
class RunSetup:
    """Everything decided before the first request: the run's name, seats and plan."""

    name: str
    interrogator: str
    judges: tuple[str, ...]
    items: tuple[PlanItem, ...]
    lang: str
    method: str = "pingpong"
    config: dict = field(default_factory=dict)
    prompting: str | None = None
    prompt_format: str = "detailed"
    warnings: tuple[str, ...] = ()
    """One line per bad file in the home's folders that the plan skipped."""
    user_name: str | None = None  # what {{user}} becomes in the cards (config user_name)

    @property
    def players(self) -> list[str]:
        return list(dict.fromkeys(item.player for item in self.items))

    @property
    def facets(self) -> RunFacets:
        """What sets this command's conversations apart in a run that other commands share."""
        return self.method, self.lang, self.interrogator, self.prompting, self.prompt_format

    def spec(self, item: PlanItem) -> SessionSpec:
        cast = [CastSeat(character=card.name, seat=item.player if card.name == item.character.name
                         else self.interrogator) for card in item.cast]
        return SessionSpec(character=item.character.name, situation=item.situation.name,
                           player=item.player, interrogator=self.interrogator,
                           judges=list(self.judges), method=self.method, lang=self.lang,
                           prompting=self.prompting, prompt_format=self.prompt_format,
                           user_name=self.user_name, cast=cast)  # type: ignore[arg-type]


def existing_sessions(store, run_id: int, facets: RunFacets) -> dict[tuple[str, str, str], list[dict]]:
    """The run's sessions with these facets by (player, character, situation), oldest first."""
    from pingpong.sessions import queries

    found: dict[tuple[str, str, str], list[dict]] = {}
    for row in queries.run_pairs(store.conn, run_id, facets):
        found.setdefault(row[1:4], []).append(_pair_row(row))
    return found


def pair_sessions(store, run_id: int, facets: RunFacets, key: tuple[str, str, str]) -> list[dict]:
    """One pair's sessions in the run, oldest first, as decide() reads them."""
    from pingpong.sessions import queries

    return [_pair_row(row) for row in queries.run_pairs(store.conn, run_id, facets, key)]


def _pair_row(row: tuple) -> dict:
    sid, _player, _character, _situation, status, pid, host, written = row
    return {"id": sid, "status": status, "pid": pid, "host": host, "written": written}


def decide(rows: Sequence[dict]) -> tuple[str, int | None]:
    """What to do with one pair, given its sessions: ('skip'|'resume'|'elsewhere'|'new', id).
    A session left running by a process that has died is resumed, never left behind."""
    from pingpong.sessions.store import owner_alive

    if any(r["status"] == FINISHED for r in rows):
        return "skip", None
    for r in reversed(rows):
        if r["status"] == INTERRUPTED:
            return "resume", r["id"]
    for r in reversed(rows):
        if r["status"] == RUNNING:
            alive = owner_alive(r["pid"], r.get("host"), r.get("written"))
            return ("elsewhere", r["id"]) if alive else ("resume", r["id"])
    return "new", None


def longest_first(todo: list[tuple[PlanItem, int | None]], method: str) -> list[tuple[PlanItem, int | None]]:
    """Conversations with the most planned turns first, re-judgings last.

    Slots are handed out in this order (the semaphore is FIFO), so the long chains start in
    the first wave and the run does not end on a tail of 6-turn conversations started late.
    """
    from pingpong.core.methods import get_method

    planned = get_method(method).planned_turns

    def key(entry: tuple[PlanItem, int | None]) -> tuple[bool, int]:
        item, sid = entry
        return (sid is not None and sid < 0, -planned(item.situation))

    return sorted(todo, key=key)


class BatchRunner:
    """Runs a RunSetup against a Store and a ModelPool; `progress` is live while it runs."""

    def __init__(self, store, pool, setup: RunSetup, *, concurrency: int = 8, renderer=None,
                 freeze: bool = False):
        """renderer: one core.prompts.PromptRenderer shared by every conversation (pass one
        built with the home's templates folder; it also saves compiling templates per session).
        freeze: this process is the run's (the command's, a worker's): what is alive once the
        run has started lives as long as it, and is frozen out of the garbage collector's
        walks (a full one over openai's types stopped every conversation for a tenth of a second)."""
        if concurrency < 1:
            from pingpong.core.errors import UserError

            raise UserError(f"--concurrency: must be 1 or more, got {concurrency}")
        self.store = store
        self.pool = pool
        self.setup = setup
        self.concurrency = concurrency
        self.renderer = renderer
        self.freeze = freeze
        from pingpong.sessions.commits import CommitGroup

        self.commits = CommitGroup(store)
        """The conversations' writes, committed together when they come together."""
        self.progress = RunProgress({p: PlayerCounts() for p in setup.players})
        self.run_id: int | None = None
        self._todo: list[tuple[PlanItem, int | None]] | None = None
        self._elsewhere: list[PlanItem] = []
        """Pairs another process was running when this one looked; taken over if it dies."""

    def _open_run(self) -> int:
        run_id = self.store.run_id(self.setup.name, self.setup.config)
        # The run row says what the latest command planned, so a watcher can show totals.
        self.store.set_run_config(run_id, self.setup.config)
        return run_id

    def prepare(self) -> int:
        """Mark orphans, open the run, sort the plan into done / elsewhere / to run; returns to-run count.

        Called by run() when not called before; calling it first lets a display
        show the totals before anything starts.
        """
        self.store.mark_orphans_interrupted()
        self.run_id = self._open_run()
        from pingpong.core.methods import get_method
        from pingpong.sessions import queries

        found = existing_sessions(self.store, self.run_id, self.setup.facets)
        finished = [r["id"] for rows in found.values() for r in rows if r["status"] == FINISHED]
        unjudged = set(queries.failed_judge_turns(self.store.conn, finished)) if self.setup.judges else set()
        if self.setup.judges and get_method(self.setup.method).scorer is None:  # a judge added to a rerun
            unjudged |= queries.lacking_judges(self.store.conn, finished, self.setup.judges)
        self._todo = []
        self._elsewhere = []
        for counts in self.progress.players.values():
            counts.total = counts.done = counts.skipped = counts.elsewhere = 0
        for item in self.setup.items:
            counts = self.progress.players[item.player]
            counts.total += 1
            action, sid = decide(found.get(item.key, ()))
            done = next((r["id"] for r in found.get(item.key, ()) if r["status"] == FINISHED), None)
            if action == "skip" and done in unjudged:
                self._todo.append((item, -done))  # finished, but judge turns failed or a judge is new: judge
                counts.done += 1
                counts.skipped += 1
            elif action == "skip":
                counts.done += 1
                counts.skipped += 1
            elif action == "elsewhere":
                counts.elsewhere += 1
                self._elsewhere.append(item)
            else:
                self._todo.append((item, sid))
        return len(self._todo)

    async def run(self) -> RunProgress:
        """Run what is left of the plan. Cancelling it interrupts the sessions in flight."""
        if self._todo is None:
            self.prepare()
        from pingpong.sessions import live  # what runs a session: not imported while the first ones wait

        todo, self._todo = longest_first(self._todo or [], self.setup.method), None
        self.pool.warm(self._seats())  # openai imported and clients built before the first claim
        live.preload(self.pool, self.setup.method, self._seats(), self.setup.prompting)  # the scorer, BM25
        if self.freeze:
            import gc

            gc.freeze()
        self.progress.started = time.monotonic()
        gate = asyncio.Semaphore(self.concurrency)
        while True:
            await self._run_all(gate, todo)
            todo = self._taken_over()
            if not todo:
                return self.progress

    async def _run_all(self, gate: asyncio.Semaphore, todo: list[tuple[PlanItem, int | None]]) -> None:
        tasks = [asyncio.create_task(self._conversation(gate, item, sid)) for item, sid in todo]
        try:
            await asyncio.gather(*tasks)
        except asyncio.CancelledError:
            self.progress.interrupted = True
            await _stop(tasks)
            raise
        except StorageError:  # the database takes no more writes: every conversation stops here
            await _stop(tasks)
            raise

    def _taken_over(self) -> list[tuple[PlanItem, int | None]]:
        """Look again at the pairs another process was running: those it finished count as done;
        those whose process has died since (a kill -9 leaves them 'running') are this run's to
        resume, so no pair is left behind. Pairs still alive elsewhere stay theirs."""
        assert self.run_id is not None
        items, self._elsewhere = self._elsewhere, []
        todo: list[tuple[PlanItem, int | None]] = []
        for item in items:
            action, sid = decide(pair_sessions(self.store, self.run_id, self.setup.facets, item.key))
            counts = self.progress.players[item.player]
            if action == "elsewhere":
                self._elsewhere.append(item)
                continue
            counts.elsewhere -= 1
            if action == "skip":
                counts.done += 1
            else:
                todo.append((item, sid))
        return todo

    def _seats(self) -> list[str]:
        return [*self.setup.players, self.setup.interrogator, *self.setup.judges]

    async def _claim(self, item: PlanItem) -> tuple[str, int | None, Started | None]:
        """Decide a pair planned as new again, and create its session, in one write transaction.

        Another `pingpong run` of the same run may have started (or finished) the pair since
        prepare() looked; checking and creating under one BEGIN IMMEDIATE means two processes
        never both create a session for it. Returns decide()'s action, the session id, and
        the session as open_session made it when it is new.
        """
        from pingpong.sessions import live

        run_id = self.run_id
        assert run_id is not None
        claimed: list[tuple[str, int | None, Started | None]] = []

        def claim() -> None:
            action, sid = decide(pair_sessions(self.store, run_id, self.setup.facets, item.key))
            started = None
            if action == "new":  # created running, its seats recorded: run_session starts right away
                started = live.open_session(self.store, self.pool, self.setup.spec(item), item.character,
                                            item.situation, run_id, item.cast)
                sid = started.session_id
            claimed.append((action, sid, started))

        # shares the loop's next commit, whose BEGIN IMMEDIATE guards it; dropped if Ctrl-C comes first
        await self.commits.write(claim, unless_cancelled=True)
        return claimed[0]

    def _status(self, sid: int | None) -> str | None:
        from pingpong.sessions import queries

        return None if sid is None else queries.session_status(self.store.conn, sid)

    async def _rejudge(self, item: PlanItem, sid: int) -> None:
        """A finished pair whose judge turns failed: ask its judges again (nothing else is called)."""
        from contextlib import aclosing

        from pingpong.sessions import live

        counts = self.progress.players[item.player]
        try:
            async with aclosing(live.judge_session(self.store, self.pool, sid, list(self.setup.judges))) as events:
                async for event in events:
                    self.progress.on_event(counts, event)
        except live.JudgedElsewhere:
            pass  # another process is asking the same judges now: its verdicts land in the same rows

    def failed_judges(self) -> dict[str, tuple[int, str | None]]:
        """{judge: (its (session, turn) scorings of this run still failed, the newest error)}:
        `pingpong judge` or a rerun retries them."""
        from pingpong.sessions import queries

        if self.run_id is None:
            return {}
        ids = [row[0] for row in queries.run_pairs(self.store.conn, self.run_id, self.setup.facets)]
        return queries.failed_judges(self.store.conn, ids)

    async def _conversation(self, gate: asyncio.Semaphore, item: PlanItem, sid: int | None) -> None:
        from contextlib import aclosing

        from pingpong.core.errors import UserError
        from pingpong.sessions import live
        from pingpong.sessions.recorder import DRAFT_SECONDS

        counts = self.progress.players[item.player]
        if sid is not None and sid < 0:
            async with gate:
                await self._rejudge(item, -sid)
            return
        async with gate:
            counts.in_flight += 1
            outcome, error = None, None
            try:
                started = None
                if sid is None:
                    action, sid, started = await self._claim(item)
                    if action in ("skip", "elsewhere"):  # another process got to this pair first
                        counts.in_flight -= 1
                        if action == "skip":
                            counts.done += 1
                            counts.skipped += 1
                        else:
                            counts.elsewhere += 1
                            self._elsewhere.append(item)
                        return
                assert sid is not None
                on_event = self.progress.on_event
                kwargs = {"renderer": self.renderer} if self.renderer is not None else {}
                async with aclosing(live.run_session(self.store, self.pool, started or sid, deltas=DRAFT_SECONDS,
                                                     commits=self.commits, **kwargs)) as events:
                    async for event in events:
                        on_event(counts, event)
                        if type(event) is SessionFinished:
                            outcome = FINISHED
                        elif type(event) is SessionFailed:
                            outcome, error = FAILED, event.error
            except asyncio.CancelledError:
                counts.in_flight -= 1
                if sid is not None:
                    self.progress.interrupted_sessions += 1
                raise
            except StorageError:
                counts.in_flight -= 1
                raise
            except UserError as exc:
                status = self._status(sid)
                if status != FAILED:  # claim refused: another process took the session meanwhile
                    counts.in_flight -= 1
                    counts.elsewhere += 1
                    self._elsewhere.append(item)
                    return
                outcome, error = FAILED, str(exc)  # e.g. a broken user template
            except Exception as exc:  # one broken conversation must not sink the batch
                outcome, error = FAILED, f"{type(exc).__name__}: {exc}"
                if sid is not None:  # live.run_session marks it too; start_session may not have
                    self.store.set_status(sid, FAILED, error)
            if outcome is None and sid is not None:  # the engine stopped without an end event
                outcome = self._status(sid)
            counts.in_flight -= 1
            self.progress.finished_here += 1
            if outcome == FINISHED:
                counts.done += 1
                counts.finished_here += 1
            else:
                counts.failed += 1
                if len(self.progress.errors) < 5:
                    self.progress.errors.append(
                        f"{item.player} / {item.character.name} / {item.situation.name}: "
                        f"{error or outcome}")


async def _stop(tasks: list[asyncio.Task]) -> None:
    """Cancel the conversations still going and wait until each has stopped (its session is then
    interrupted, or left running for the next run to resume when the database takes no writes)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def prepare_run(home, *, players: Sequence[str], interrogator: str, judges: Sequence[str],
                lang: str = "en", characters: Sequence[str] | None = None,
                situations: Sequence[str] | None = None, every: int = 1,
                run_name: str | None = None, method: str = "pingpong", models: dict | None = None,
                prompting: str | None = None, prompt_format: str = "detailed") -> tuple[RunSetup, dict]:
    """Check every name and key and build the plan; no network. UserError on bad input.

    Returns the setup and the specs of the models it uses (for ModelPool and the
    reachability check, which the caller runs next: sessions.plan_checks.check_reachable).
    """
    from pingpong.characters.library import CardLibrary
    from pingpong.core import config
    from pingpong.core.domain import HUMAN
    from pingpong.core.errors import UserError
    from pingpong.core.methods import get_method
    from pingpong.sessions.plan import build_plan, default_run_name, pick
    from pingpong.sessions.plan_checks import resolve_models, seated_judges
    from pingpong.situations.library import SituationLibrary

    if models is None:
        models = config.load_models(home)
    get_method(method)  # an unknown method is a one-line error before anything else
    judges = seated_judges(method, interrogator, judges)
    if HUMAN in (*players, interrogator, *judges):
        raise UserError("run: 'human' cannot sit in a batch run; use `pingpong play` to take a seat")
    specs = resolve_models(models, [*players, interrogator, *judges])
    card_library = CardLibrary(home)
    libraries: list = [card_library]  # each keeps the bad files it skipped in `problems`
    skipped: list[str] = []  # and the plan, the seeds and scenes naming a card the library lacks
    if method == "dmt":
        from pingpong.sessions.plan import build_seed_plan
        from pingpong.situations.seeds import SeedLibrary

        seed_library = SeedLibrary(home)
        libraries.append(seed_library)
        items = build_seed_plan(players, card_library.all(lang=lang), seed_library.all(lang),
                                characters=characters, seed_names=situations, lang=lang, every=every,
                                where=seed_library.path, skipped=skipped)
        cards = list({item.character.name: item.character for item in items}.values())
        sits = list({item.situation.name: item.situation for item in items}.values())
    else:
        cards = pick(card_library.all(lang=lang), characters, "character", lang)
        if not cards:
            raise UserError(f"no character cards for lang {lang}")
        if method == "rolebench":  # the questions are the situations: one per planned session
            from pingpong.sessions.rolebench_plan import rolebench_plan
            from pingpong.situations.questions import QuestionLibrary

            libraries.append(QuestionLibrary(home))
            items = rolebench_plan(libraries[-1], players, cards, lang, situations, every)
            sits = list({item.situation.name: item.situation for item in items}.values())
        elif method == "roleinteract":  # each probe and each group scene is a situation of its own
            items = _roleinteract_items(home, players, cards, lang, situations, every, skipped)
            sits = list({item.situation.name: item.situation for item in items}.values())
        else:
            libraries.append(SituationLibrary(home))
            sits = pick(libraries[-1].all(lang=lang), situations, "situation", lang)
            if not sits:
                raise UserError(f"no situations for lang {lang}")
            items = build_plan(players, cards, sits, every)
        cards = list({item.character.name: item.character for item in items}.values()) or cards
    name = run_name or default_run_name(players, interrogator, judges, lang, method)
    if prompting and not run_name:  # another strategy is another run, never a resumed one
        name += f"-{prompting}"
    if prompt_format != "detailed" and not run_name:  # so is another system-prompt format
        name += f"-{prompt_format}"
    setup = RunSetup(
        name=name, interrogator=interrogator, judges=tuple(judges), items=tuple(items),
        lang=lang, method=method, prompting=prompting, prompt_format=prompt_format, user_name=config.user_name(home),
        config={"players": list(players), "interrogator": interrogator, "judges": judges,
                "lang": lang, "method": method, "every": every, "prompting": prompting,
                "prompt_format": prompt_format,
                "characters": [c.name for c in cards], "situations": [s.name for s in sits],
                "planned": len(items)},
        warnings=(*(problem for library in libraries for problem in library.problems), *skipped))
    return setup, specs


def _roleinteract_items(home, players: Sequence[str], cards: Sequence, lang: str,
                        situations: Sequence[str] | None, every: int, skipped: list[str]) -> list[PlanItem]:
    """A RoleInteract run: the probes of the run's characters, then the group scenes that test them.
    ``situations`` may name scenes, probes, question ids or dimensions; UserError when nothing is left."""
    from pingpong.characters.library import CardLibrary
    from pingpong.core.errors import UserError
    from pingpong.sessions.roleinteract_plan import roleinteract_plan
    from pingpong.sessions.scene_plan import scene_plan
    from pingpong.situations.probes import ProbeLibrary, SceneLibrary, load_padding

    scene_library = SceneLibrary(home)
    scenes = scene_library.all(lang)
    scene_names = {scene.name for scene in scenes}
    only_scenes = None if situations is None else [n for n in situations if n in scene_names]
    only_probes = None if situations is None else [n for n in situations if n not in scene_names]
    items: list[PlanItem] = []
    probes = ProbeLibrary(home)
    if only_probes != []:   # names that are no probe are an error; no probes at all is fine with scenes
        items += roleinteract_plan(probes, lambda: load_padding(lang, home), players, cards, lang,
                                   only_probes, every, required=bool(only_probes))
    if only_scenes != []:
        items += scene_plan(scenes, cards, CardLibrary(home).all(lang=lang), players, only_scenes, every,
                            where=scene_library.path, skipped=skipped)
    skipped += [*probes.problems, *scene_library.problems]  # their bad files, read by now
    if not items:
        raise UserError(f"no RoleInteract probes or group scenes for these characters in lang {lang}")
    return items


def loop_factory():
    """uvloop's event loop where it is installed: a big run is bound by event-loop CPU."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop
