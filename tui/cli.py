"""The `pingpong` command line: an argparse tree whose handlers are imported only when run.

argparse (not click) keeps `pingpong --help` to a few milliseconds: nothing
heavy (Textual, openai, numpy) is imported until a command actually runs.
Each handler is named as "module:function" and called as handler(args, home).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from collections.abc import Iterator

FORMATS_LIST = ("table", "json")
BREAKDOWNS = ("role_type", "intent", "prompt_format", "prompting")
"""What `leaderboard --by` can split a player's row by (which methods support which: tui.commands.stats)."""
FORMATS_ROWS = ("table", "tsv", "json")  # list commands: tsv = tab-separated, one line per row
CARD_FILES = "card files: our YAML, V1/V2/V3 JSON, PNG, .charx, PingPong settings JSON"


class _Parser(argparse.ArgumentParser):
    """Usage mistakes get one line (and status 2), like every other user error."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _common(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("global options")
    g.add_argument("--home", default=argparse.SUPPRESS, metavar="DIR",
                   help="folder with config.toml and pingpong.db (env PINGPONG_HOME)")
    g.add_argument("--db", default=argparse.SUPPRESS, metavar="PATH", help="database file to use")
    g.add_argument("--config", default=argparse.SUPPRESS, metavar="FILE", help="config.toml to use")


def _sub(subs, name: str, handler: str | None, help: str, **kw) -> argparse.ArgumentParser:
    p = subs.add_parser(name, help=help, description=help, **kw)
    _common(p)
    if handler:
        p.set_defaults(handler=handler)
    return p


def _fmt(p: argparse.ArgumentParser, choices=FORMATS_LIST, default="table") -> None:
    p.add_argument("--format", choices=choices, default=default, help=f"output format (default {default})")


def _csv(value: str) -> list[str]:
    names = [v.strip() for v in value.split(",") if v.strip()]
    if not names:  # "" would quietly mean "all"
        raise argparse.ArgumentTypeError(f"expected one or more names separated by commas, got {value!r}")
    return names


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected 1 or more, got {number}")
    return number


def _name(value: str) -> str:
    """A name given on the command line (a run, an author): not empty, spaces around it dropped."""
    if not value.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return value.strip()


class _Once(argparse.Action):
    """A seat option that takes one model: given twice it is refused, where plain argparse would keep
    the last (next to commands whose --player and --judge repeat, that reads as "both")."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"argument {option_string}: takes one model; given more than once")
        setattr(namespace, self.dest, values)


def _lang(value: str) -> str:
    """A language as cards and sessions store it: two lower-case letters (anything else matches nothing)."""
    import re

    from pingpong.core.vocabulary import LANG_PATTERN

    if not re.fullmatch(LANG_PATTERN, value):
        raise argparse.ArgumentTypeError(f"expected a two-letter language code such as en or ru, got {value!r}")
    return value


def _whole(value: str) -> int:
    """A whole number SQLite can store (ids, turns and counts are 64-bit there): anything larger is
    no session or turn there can be, and would overflow the query instead of finding nothing."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if not -(2**63) <= number < 2**63:
        raise argparse.ArgumentTypeError(f"{value[:24]}{'…' if len(value) > 24 else ''} is too large a number")
    return number


def _method(value: str) -> str:
    """One of the methods (anything else would match no session and no method's rules)."""
    from pingpong.core.vocabulary import METHODS

    if value not in METHODS:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(METHODS)}, got {value!r}")
    return value


def _method_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--method", default=None, type=_method, metavar="M",
                   help="evaluation method: pingpong (default), pingpong-v1, dmt, roleinteract or rolebench")
    p.add_argument("--prompting", choices=("zsp", "fsp", "fsd"), default=None,
                   help="how the player sees the card's examples: zsp none, fsp as text, fsd as prior turns "
                        "(top 5 by BM25); default: every example as prior turns")
    p.add_argument("--prompt-format", dest="prompt_format", choices=("minimal", "overview", "detailed"),
                   default="detailed", help="the player's system prompt: the card's name only, name and summary, "
                                            "or the full card with role-play instructions (default detailed)")
    p.add_argument("--version", type=_whole, choices=(1, 2), default=None,
                   help="alias: --version 1 is --method pingpong-v1, --version 2 is --method pingpong")


def _play_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--character", action="append", default=None, metavar="C",
                   help="character card name (see `pingpong cards list`); repeat for the members of a group "
                        "scene, each as NAME or NAME=SEAT (a model, or human to sit as that member)")
    p.add_argument("--situation", metavar="S",
                   help="situation name (see `pingpong situations list`), or a group scene with --method roleinteract")
    p.add_argument("--next-speaker", choices=("narrator", "turn"), default="narrator",
                   help="group scenes: the interrogator seat (narrator) picks who speaks next, or they speak "
                        "in turn (default narrator)")
    p.add_argument("--player", action=_Once, metavar="M|human", help="model that plays the character, or human")
    p.add_argument("--interrogator", action=_Once, metavar="M|human", help="model that plays the user, or human (you)")
    p.add_argument("--judge", action="append", default=None, metavar="M", help="repeat for several judges")
    p.add_argument("--turns", type=_whole, metavar="N", help="number of turns (default: the situation's)")
    _method_args(p)


def _run_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--player", action="append", required=True, metavar="M", help="player model; repeat for several")
    p.add_argument("--interrogator", action=_Once, required=True, metavar="M", help="interrogator model")
    p.add_argument("--judge", action="append", default=[], metavar="M",
                   help="judge model; repeat for several (pingpong-v1: none, its tester scores)")
    p.add_argument("--lang", choices=("en", "ru"), default="en", help="language of cards and situations (default en)")
    p.add_argument("--characters", type=_csv, metavar="A,B", help="only these characters (default: all)")
    p.add_argument("--situations", type=_csv, metavar="X,Y", help="only these situations (default: all)")
    p.add_argument("--concurrency", type=_whole, default=8, metavar="N", help="conversations at once (default 8)")
    p.add_argument("--workers", type=_whole, default=1, metavar="N",
                   help="worker processes sharing the run, each with --concurrency conversations (default 1: "
                        "this process; more pays for a fast local server)")
    p.add_argument("--every", type=_whole, default=1, metavar="K", help="keep every K-th pair")
    p.add_argument("--run", dest="run_name", type=_name, metavar="NAME", help="run name (default: from the models)")
    _method_args(p)


def _leaderboard_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--method", default="pingpong", type=_method, metavar="M",
                   help="whose sessions: pingpong (default), pingpong-v1, dmt, roleinteract or rolebench; "
                        "methods never share a row")
    p.add_argument("--include-forks", action="store_true", help="also count forked sessions")
    p.add_argument("--lang", type=_lang, metavar="L", help="only sessions in this language")
    _fmt(p, ("table", "tsv", "markdown", "csv", "json"))
    p.add_argument("--weights", metavar="A,B,C", help="weights of in_character,entertaining,fluency")
    p.add_argument("--scores", choices=("judges", "human", "merged"), default="merged",
                   help="whose scores: judges, people, or people's where they exist (default merged)")
    p.add_argument("--run", dest="run_name", metavar="NAME", help="only sessions of this run")
    p.add_argument("--curves", action="store_true",
                   help="also the mean final score by turn and the good-streak curve (a turn is good at >= 4; "
                        "an approximation from Likert scores, not a DMT-Score: see --method dmt)")
    p.add_argument("--by", choices=BREAKDOWNS, default=None,
                   help="one row per player, language and value of this: the card's role type, the situation's or "
                        "seed's intent, the player's prompt format (pingpong, pingpong-v1, dmt) or prompting strategy "
                        "(those and rolebench)")
    p.add_argument("--costs", action="store_true",
                   help="also what each player's conversations cost (needs price = {input, output} in config.toml)")


def _report_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write index.html and its pages into")
    p.add_argument("--run", dest="run_name", metavar="NAME", help="only sessions of this run")


def _judge_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run", dest="runs", action="append", default=[], metavar="NAME", help="sessions of this run")
    p.add_argument("--session", dest="sessions", action="append", default=[], type=_whole, metavar="ID",
                   help="this session (repeat for several)")
    p.add_argument("--judge", action="append", required=True, metavar="M", help="judge model; repeat for several")
    p.add_argument("--concurrency", type=_whole, default=8, metavar="N", help="sessions judged at once (default 8)")


def _compare_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--baseline", action=_Once, required=True, metavar="M", help="player every other player is measured against")
    p.add_argument("--judge", action=_Once, required=True, metavar="M",
                   help="model that reads two sessions and names the better one")
    p.add_argument("--player", action="append", default=None, metavar="M",
                   help="compare this player (repeat for several; default: every player that shares a "
                        "character, situation and method with the baseline)")
    p.add_argument("--run", dest="run_name", metavar="NAME", help="only sessions of this run")
    p.add_argument("--concurrency", type=_whole, default=8, metavar="N", help="judgements at once (default 8)")
    _fmt(p)


def _agreement_args(p: argparse.ArgumentParser) -> None:
    _fmt(p)
    p.add_argument("--level", choices=("turn", "conversation"), default="turn",
                   help="pair scores per turn or per conversation (default turn)")
    p.add_argument("--lang", type=_lang, metavar="L", help="only sessions in this language")


def _annotate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sample", type=_whole, default=None, metavar="N",
                   help="conversations per player (default 8); without options the queue you last "
                        "worked on continues")
    p.add_argument("--player", action="append", default=None, metavar="M",
                   help="only this player's sessions; repeat for several (default: every player)")
    p.add_argument("--method", action="append", default=None, type=_method, metavar="M",
                   help="only this method's sessions; repeat for several (default: every method people rate: "
                        "pingpong, pingpong-v1, dmt)")
    p.add_argument("--author", type=_name, metavar="A", help="who rates (default: author in config.toml, else OS user); "
                                                 "each person has their own queues")


def _sessions_args(p: argparse.ArgumentParser) -> None:
    ss = p.add_subparsers(title="sessions commands", metavar="ACTION", required=True)
    q = _sub(ss, "list", "pingpong.tui.commands.sessions:list_sessions", "list sessions")
    _fmt(q, FORMATS_ROWS)
    q.add_argument("--status", choices=("running", "interrupted", "finished", "failed"), help="only this status")
    q.add_argument("--run", dest="run_name", metavar="NAME", help="only sessions of this run")
    q.add_argument("--limit", type=_positive, default=None, metavar="N", help="at most N, newest first")
    q = _sub(ss, "show", "pingpong.tui.commands.sessions:show_session", "show one session")
    q.add_argument("id", type=_whole, help="session id (see `pingpong sessions list`)")
    _fmt(q)
    q = _sub(ss, "score", "pingpong.tui.commands.sessions:score", "record a person's score for one turn or the whole conversation (append-only)")
    q.add_argument("id", type=_whole, help="session id")
    q.add_argument("--turn", type=_whole, metavar="N", help="player turn, from 1 (default: the whole conversation)")
    q.add_argument("--metric", metavar="NAME", help="metric to score (the session's method lists them)")
    q.add_argument("--value", metavar="V", help="value on the metric's scale: 1-5, 1-10, good|bad, 0-1")
    q.add_argument("--refusal", choices=("true", "false"), help="mark the turn a refusal, or not")
    q.add_argument("--versus", type=_whole, metavar="OTHER",
                   help="your preference between this session and session OTHER (same character, situation and "
                        "method): --value 1 this one is better, 0 OTHER is, 0.5 as good")
    q.add_argument("--author", type=_name, metavar="A", help="who scores (default: author in config.toml, else OS user)")
    q.add_argument("--reason", metavar="R", help="why, in a few words")
    q = _sub(ss, "resume", "pingpong.tui.commands.sessions:resume", "continue an interrupted session")
    q.add_argument("id", type=_whole, help="session id")
    q = _sub(ss, "fork", "pingpong.tui.commands.sessions:fork",
             "start a new session from the first N turns of another, and run it on")
    q.add_argument("id", type=_whole, help="session id to fork")
    q.add_argument("--turn", type=_whole, required=True, metavar="N", help="keep turns 1..N")
    q.add_argument("--player", action=_Once, metavar="M", help="player model from there on (default: the same)")
    q.add_argument("--interrogator", action=_Once, metavar="M|human", help="interrogator from there on (default: the same)")


def _export_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("pingpong", "jsonl", "annotations"), required=True,
                   help="PingPong results JSON files, our lossless JSONL, or people's conversation ratings "
                        "as PingPong annotation JSONL")
    p.add_argument("--out", metavar="PATH",
                   help="file (jsonl, annotations) or folder (pingpong); default stdout for jsonl and annotations, "
                        "./pingpong-results for pingpong")


def _import_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="files to import (each in its own transaction)")


def _cards_args(p: argparse.ArgumentParser) -> None:
    cs = p.add_subparsers(title="cards commands", metavar="ACTION", required=True)
    q = _sub(cs, "list", "pingpong.tui.commands.cards:list_cards", "list character cards")
    _fmt(q, FORMATS_ROWS)
    q.add_argument("--lang", type=_lang, metavar="L", help="only cards in this language")
    q = _sub(cs, "show", "pingpong.tui.commands.cards:show_card", "show one card")
    q.add_argument("name", help="card name (see `pingpong cards list`)")
    _fmt(q)
    q = _sub(cs, "validate", "pingpong.tui.commands.cards:validate_cards", "check card files without importing")
    q.add_argument("paths", nargs="+", metavar="PATH", help=CARD_FILES)
    q = _sub(cs, "import", "pingpong.tui.commands.cards:import_cards", "import card files into your library")
    q.add_argument("paths", nargs="+", metavar="PATH", help=CARD_FILES)
    q.add_argument("--lang", type=_lang, metavar="L", help="language of the imported cards (default: guessed)")
    q.add_argument("--force", action="store_true", help="replace a card already in your library")


def _situations_args(p: argparse.ArgumentParser) -> None:
    s2 = p.add_subparsers(title="situations commands", metavar="ACTION", required=True)
    q = _sub(s2, "list", "pingpong.tui.commands.situations:list_situations", "list situations")
    _fmt(q, FORMATS_ROWS)
    q.add_argument("--lang", type=_lang, metavar="L", help="only situations in this language")
    q.add_argument("--method", type=_method, metavar="M",
                   help="dmt: list the DMT seeds instead; roleinteract: the probe sets and group scenes; "
                        "rolebench: the question sets")
    q = _sub(s2, "show", "pingpong.tui.commands.situations:show_situation", "show one situation")
    q.add_argument("name", help="situation name (see `pingpong situations list`)")
    q.add_argument("--method", type=_method, metavar="M", help="look only among this method's situations (dmt: seeds; "
                                                 "roleinteract: probe sets, probes, group scenes; rolebench: question sets)")
    _fmt(q)


def _models_args(p: argparse.ArgumentParser) -> None:
    _fmt(p, FORMATS_ROWS)
    p.add_argument("--no-check", action="store_true", help="skip the reachability check")


def _serve_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--port", type=_whole, default=8000, metavar="P", help="port to listen on (default 8000)")
    p.add_argument("--host", default="127.0.0.1", metavar="H",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 opens it to your network)")


COMMANDS = {
    "play": ("pingpong.tui.commands.app:play", "open the TUI straight into a live session", _play_args),
    "run": ("pingpong.tui.commands.run:run", "batch run: players x characters x situations, resumable", _run_args),
    "judge": ("pingpong.tui.commands.judge:judge", "score stored sessions again, or retry failed judge turns",
              _judge_args),
    "leaderboard": ("pingpong.tui.commands.stats:leaderboard", "leaderboard of player models", _leaderboard_args),
    "compare": ("pingpong.tui.commands.compare:compare",
                "pairwise judging of stored sessions: win rates against a baseline, Bradley-Terry ratings",
                _compare_args),
    "agreement": ("pingpong.tui.commands.stats:agreement", "judge-human and judge-judge agreement", _agreement_args),
    "report": ("pingpong.tui.commands.report:report",
               "static HTML: the leaderboards, each player's grid, every conversation", _report_args),
    "annotate": ("pingpong.tui.commands.app:annotate",
                 "rate conversations blind, one by one, by each method's rubric (a rating queue that resumes)", _annotate_args),
    "sessions": (None, "list, show, score and resume stored sessions", _sessions_args),
    "export": ("pingpong.tui.commands.exchange:export", "export sessions", _export_args),
    "import": ("pingpong.tui.commands.exchange:import_",
               "import PingPong results JSON, PingPong annotation JSONL or our JSONL", _import_args),
    "cards": (None, "character cards", _cards_args),
    "situations": (None, "situations", _situations_args),
    "models": ("pingpong.tui.commands.models:models", "configured models, with reachability", _models_args),
    "serve": ("pingpong.tui.commands.serve:serve", "the same TUI in a web browser (textual-serve)", _serve_args),
}
"""name -> (handler, help, the function adding its arguments)"""


def _command_in(argv: list[str]) -> tuple[str | None, bool]:
    """The command named on the line (skipping the global options and their values), and whether
    an option before it asks for the top-level help (-h, --help, --he, ...), which lists them all."""
    takes_value = {"--home", "--db", "--config"}
    helped = False
    it = iter(argv)
    for token in it:
        if token in takes_value:
            next(it, None)
        elif not token.startswith("-"):
            return token, helped
        else:
            helped = helped or token.startswith(("-h", "--he"))
    return None, helped


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the command being run gets its arguments, and its sibling commands are
    left out unless a usage message lists them (the rest cost start-up time)."""
    parser = _Parser(
        prog="pingpong",
        description="Live role-play evaluation of language models. Without a command, opens the TUI.",
    )
    _common(parser)
    parser.set_defaults(handler="pingpong.tui.commands.app:open_tui")
    subs = parser.add_subparsers(title="commands", metavar="COMMAND")
    chosen, helped = _command_in(sys.argv[1:] if argv is None else argv)
    siblings = chosen not in COMMANDS or helped
    for name, (handler, help, add_arguments) in COMMANDS.items():
        if name == chosen:
            add_arguments(_sub(subs, name, handler, help))
        elif siblings:
            subs.add_parser(name, help=help)
    return parser


def _method_of_version(args: argparse.Namespace) -> None:
    """`--version 1|2`, the alias of the first releases, names the method; with a --method that is
    another one, which to run is unclear: UserError."""
    from pingpong.core.errors import UserError

    aliased = {1: "pingpong-v1", 2: "pingpong"}.get(args.version)
    if aliased is not None and args.method is not None and args.method != aliased:
        raise UserError(f"--version {args.version} is --method {aliased}, not --method {args.method}: give one of them")
    args.method = args.method or aliased or "pingpong"


def _check_prompting(args: argparse.Namespace) -> None:
    """--prompting with a --prompt-format that sends no examples: one line (core.prompts says why)."""
    from pingpong.core.errors import UserError
    from pingpong.core.vocabulary import prompting_problem

    problem = prompting_problem(getattr(args, "prompting", None), getattr(args, "prompt_format", "detailed"))
    if problem:
        raise UserError(f"--{problem}")


OWN_SIGTERM = frozenset({"pingpong.tui.commands.run", "pingpong.tui.commands.serve"})
"""Commands that stop on SIGTERM their own way (a run saves its conversations in flight, serve closes
its server); every other command takes it as Ctrl-C: a resumed session is saved as interrupted, an
import's transaction undone, an export's or a report's hidden files removed."""


@contextlib.contextmanager
def _sigterm_as_ctrl_c(wanted: bool) -> Iterator[None]:
    """SIGTERM (kill, systemd, `timeout`) raises KeyboardInterrupt while the command runs."""
    before = None
    if wanted:
        with contextlib.suppress(ValueError):  # main() called from another thread (a test): no signals
            before = (signal.signal(signal.SIGTERM, signal.default_int_handler),)
    try:
        yield
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before[0])


def main(argv: list[str] | None = None) -> int:
    args = build_parser(argv).parse_args(argv)
    from importlib import import_module

    from pingpong.core.errors import RunFailed, UserError
    from pingpong.core.home import Home

    try:
        if hasattr(args, "version"):
            _method_of_version(args)
        _check_prompting(args)
        home = Home.resolve(getattr(args, "home", None), getattr(args, "db", None), getattr(args, "config", None))
        module, func = args.handler.split(":")
        with _sigterm_as_ctrl_c(module not in OWN_SIGTERM):
            return int(getattr(import_module(module), func)(args, home) or 0)
    except UserError as exc:
        from pingpong.tui.commands.output import error

        error(exc)
        return 2
    except RunFailed as exc:
        from pingpong.tui.commands.output import one_line

        print(f"pingpong: {one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pingpong: interrupted", file=sys.stderr)
        _handled_interrupt()
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # anything else is a bug in pingpong itself, never the user's input
        damage = _damaged_database(exc, args)
        if damage:
            from pingpong.tui.commands.output import error

            error(UserError(damage))
            return 2
        _report_bug()
        return 1


def _damaged_database(exc: BaseException, args: argparse.Namespace) -> str | None:
    """The line for a database damaged inside (SQLite finds it only on reaching the broken pages, past
    the checks made when it is opened), or None. The user's disk, not a bug in pingpong."""
    from pingpong.core.home import Home
    from pingpong.sessions.store import is_damage

    if not is_damage(exc):
        return None
    path = Home.resolve(getattr(args, "home", None), getattr(args, "db", None), None).db_path
    return (f"{path}: the database file is damaged ({exc}); keep a copy of it, then "
            f"`sqlite3 {path} .recover | sqlite3 repaired.db` saves what can be read")


def _handled_interrupt() -> None:
    """Keep exit status 130 for a Ctrl-C handled here, also under ``python -m``.

    CPython remembers a KeyboardInterrupt that left code run by ``exec`` on a string, even one
    caught later; run with ``-m``, it then ends the process by SIGINT once ours has returned.
    Imports run such code (dataclasses build each ``__init__`` that way), so a Ctrl-C while the
    command imports would end it by the signal. Every string ``exec`` clears that flag first,
    so an empty one forgets the interrupt handled here."""
    exec("None")


def _report_bug() -> None:
    """The traceback, then one line saying this is pingpong's fault and where to report it."""
    import traceback
    from importlib import metadata

    traceback.print_exc()
    try:
        meta = metadata.metadata("pingpong")
        urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [] if ", " in u)
        version = meta["Version"]
    except metadata.PackageNotFoundError:
        urls, version = {}, "unknown"
    where = urls.get("Issues") or "the pingpong issue tracker"
    print(f"pingpong: internal error (a bug in pingpong {version}, not in your input); please report it at "
          f"{where} with the traceback above and the command you ran", file=sys.stderr)


def entry() -> int:
    """The `pingpong` command: main(), then an exit without the interpreter's last garbage
    collection, which walks every object still alive (openai's thousands of types: a third of
    a second after every run). Objects are still freed one by one, files closed and flushed."""
    code = main()
    import gc

    gc.freeze()
    return code


if __name__ == "__main__":
    sys.exit(entry())
