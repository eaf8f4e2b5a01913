"""`pingpong situations list|show`: the situation library from the command line."""

from __future__ import annotations

from pingpong.tui.commands.output import clip, console, fields_grid, print_json, safe, shown, warn


def situation_row(s, source: str) -> dict:
    """The `situations list --format json` object of one situation."""
    return {
        "name": s.name,
        "lang": s.lang,
        "num_turns": s.num_turns,
        "tags": s.tags,
        "topic": s.topic,
        "intent": s.intent.value if s.intent else None,
        "text": s.text,
        "source": source,
    }


def seed_row(seed, source: str) -> dict:
    """The `situations list --method dmt --format json` object of one seed."""
    return {**seed.model_dump(mode="json"), "num_turns": seed.max_rounds, "method": "dmt", "source": source}


def scene_row(scene, source: str) -> dict:
    """The `situations list --method roleinteract --format json` object of one group scene."""
    return {**scene.model_dump(mode="json"), "num_turns": scene.rounds + len(scene.questions), "tags": ["scene"],
            "method": "roleinteract", "kind": "scene", "source": source}


def scenes_listing(args, home) -> list[dict]:
    """The group scenes' JSON rows, for `situations list --method roleinteract`."""
    from pingpong.situations.probes import SceneLibrary

    lib = SceneLibrary(home)
    items = lib.all(args.lang)
    warn(lib.problems)
    return [scene_row(s, lib.source(s.name)) for s in items]


def print_scenes(rows: list[dict], fmt: str) -> None:
    from pingpong.tui.commands.table import Column, print_table

    def tested(row: dict) -> str:
        preference = next(m["preference"] for m in row["members"] if m["character"] == row["tested"])
        return f"{row['tested']} ({preference})"

    columns = [Column("name", 10), Column("lang", 9), Column("tested", 8), Column("members", 6, number=True),
               Column("rounds", 6, number=True), Column("setting", 4, least=12)]
    body = [[r["name"], r["lang"], tested(r), str(len(r["members"])), str(r["rounds"]), r["setting"]] for r in rows]
    print_table(columns, body, fmt, title=f"{len(rows)} group scenes", empty="no group scenes")


def show_scene(args, home, lib) -> int:
    scene = lib.get(args.name)
    if args.format == "json":
        print_json(scene_row(scene, lib.source(scene.name)))
        return 0
    from rich.panel import Panel
    from rich.text import Text

    out = console()
    marked = sum(1 for q in scene.questions if q.after)
    out.print(fields_grid((
        ("name", scene.name), ("lang", scene.lang), ("method", "roleinteract (group scene)"),
        ("tested", f"{scene.tested} ({scene.tested_member.preference})"),
        ("members", ", ".join(f"{m.character} ({m.preference})" for m in scene.members)),
        ("rounds", scene.rounds),
        ("questions", f"{len(scene.questions)}" + (f", {marked} at marked points" if marked else "")),
        ("source", f"{lib.source(scene.name)} ({lib.path(scene.name)})"),
    )))
    out.print(Panel(Text(shown(scene.setting)), title="setting (every member is told)", title_align="left"))
    out.print(Panel(Text(shown(scene.opening)), title="opening (the narrator)", title_align="left"))
    return 0


def list_seeds(args, home) -> int:
    from pingpong.situations.seeds import SeedLibrary

    lib = SeedLibrary(home)
    items = lib.all(args.lang)
    warn(lib.problems)
    if args.format == "json":
        print_json([seed_row(s, lib.source(s.name)) for s in items])
        return 0
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("lang", 9), Column("character", 7, short="char"), Column("intent", 4),
               Column("rounds", 8, number=True, short="n"), Column("topic", 5)]
    body = [[s.name, s.lang, s.character, s.intent.value, str(s.max_rounds), s.topic] for s in items]
    print_table(columns, body, args.format, title=f"{len(items)} DMT seeds", empty="no DMT seeds")
    return 0


def probe_set_row(probe_set, source: str) -> dict:
    """The `situations list --method roleinteract --format json` object of one probe set."""
    from pingpong.core.methods.roleinteract_data import DIMENSIONS, MEMORY_DIMENSIONS, memory_dimension
    from pingpong.core.methods.roleinteract_probes import memory_turns

    questions = {d: n for d in DIMENSIONS if (n := len(probe_set.by_dimension(d)))}
    memory = {d: n for d in MEMORY_DIMENSIONS if (n := sum(memory_dimension(m) == d for m in probe_set.memory))}
    return {"name": probe_set.character, "kind": "probe_set", "character": probe_set.character,
            "lang": probe_set.lang, "method": "roleinteract",
            "num_turns": max([1, *(memory_turns(m) for m in probe_set.memory)]),
            "tags": [*questions, *memory], "questions": questions, "memory": memory, "source": source}


def probe_sets_listing(args, home) -> list[dict]:
    """The RoleInteract probe sets' JSON rows, with their questions per dimension."""
    from pingpong.situations.probes import ProbeLibrary

    lib = ProbeLibrary(home)
    items = [probe_set_row(p, lib.source(p.character, p.lang)) for p in lib.all(args.lang)]
    warn(lib.problems)
    return items


def print_probe_sets(rows: list[dict], fmt: str) -> None:
    from pingpong.tui.commands.roleinteract_board import TITLES
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10, least=16), Column("lang", 9),
               *(Column(title, 5, number=True, name=dimension) for dimension, title in TITLES.items())]
    body = [[r["name"], r["lang"], *(str({**r["questions"], **r["memory"]}.get(d, 0)) for d in TITLES)] for r in rows]
    print_table(columns, body, fmt, title=f"{len(rows)} RoleInteract probe sets", empty="no RoleInteract probe sets")


def list_roleinteract(args, home) -> int:
    """The probe sets, then the group scenes (JSON: one list, each row with its `kind`)."""
    probes, scenes = probe_sets_listing(args, home), scenes_listing(args, home)
    if args.format == "json":
        print_json([*probes, *scenes])
        return 0
    print_probe_sets(probes, args.format)
    print_scenes(scenes, args.format)
    return 0


def question_set_row(question_set, source: str) -> dict:
    """The `situations list --method rolebench --format json` object of one question set."""
    characters = sorted({c for q in question_set.questions for c in getattr(q, "in_role", {})}) \
        if question_set.kind == "general" else [question_set.character]
    tags = ["raw", "cus"] if question_set.kind == "general" else ["spe"]  # the RoleLLM subsets its answers score
    return {"name": question_set.name, "kind": question_set.kind, "lang": question_set.lang, "method": "rolebench",
            "num_turns": 1, "tags": tags, "questions": len(question_set.questions), "characters": characters,
            "source": source}


def list_question_sets(args, home) -> int:
    """RoleBench's question sets: each language's general instructions and each card's own questions."""
    from pingpong.situations.questions import QuestionLibrary
    from pingpong.tui.commands.table import Column, print_table

    lib = QuestionLibrary(home)
    items = [question_set_row(q, lib.source(q.name)) for q in lib.all(args.lang)]
    warn(lib.problems)
    if args.format == "json":
        print_json(items)
        return 0
    columns = [Column("name", 10), Column("lang", 9), Column("kind", 6), Column("questions", 8, number=True, short="n"),
               Column("characters", 4, least=12)]
    body = [[r["name"], r["lang"], r["kind"], str(r["questions"]), ", ".join(r["characters"])] for r in items]
    print_table(columns, body, args.format, title=f"{len(items)} RoleBench question sets (one question a session; "
                "`play --method rolebench --character C --situation SET-ID`)", empty="no RoleBench question sets")
    return 0


def list_situations(args, home) -> int:
    from pingpong.situations.library import SituationLibrary

    method = getattr(args, "method", None)  # the parser took only a method's name
    if method == "dmt":
        return list_seeds(args, home)
    if method == "roleinteract":
        return list_roleinteract(args, home)
    if method == "rolebench":
        return list_question_sets(args, home)

    lib = SituationLibrary(home)
    items = lib.all(lang=args.lang)
    warn(lib.problems)
    if args.format == "json":
        print_json([situation_row(s, lib.source(s.name)) for s in items])
        return 0
    from pingpong.tui.commands.table import Column, print_table

    columns = [Column("name", 10), Column("lang", 9), Column("turns", 8, number=True, short="n"), Column("tags", 4),
               Column("text", 6, least=12)]
    body = [[s.name, s.lang, str(s.num_turns), ", ".join(s.tags), s.text] for s in items]
    print_table(columns, body, args.format, title=f"{len(items)} situations", empty="no situations")
    return 0


def show_situation(args, home) -> int:
    """Any name `situations list` gives, with or without --method: a situation, group scene, RoleBench
    question set, DMT seed, RoleInteract probe set (by its card's name) or one probe. `--method`
    picks among kinds that share a name (sherlock-holmes has a probe set and a question set)."""
    from pingpong.situations.library import SituationLibrary

    method = getattr(args, "method", None)  # the parser took only a method's name
    lib = SituationLibrary(home)
    if method in (None, "pingpong", "pingpong-v1") and args.name in lib.names():
        return show_plain(args, lib)
    if method in (None, "roleinteract"):
        from pingpong.situations.probes import SceneLibrary

        scenes = SceneLibrary(home)
        if args.name in scenes.names():
            return show_scene(args, home, scenes)
    if method in (None, "rolebench"):
        from pingpong.situations.questions import QuestionLibrary

        questions = QuestionLibrary(home)
        if args.name in questions.names():
            return show_question_set(args, questions)
        if show_question(args, questions):
            return 0
    if method in (None, "dmt"):
        from pingpong.situations.seeds import SeedLibrary

        seeds = SeedLibrary(home)
        if args.name in seeds.names():
            return show_seed(args, seeds)
    if method in (None, "roleinteract") and show_probes(args, home):
        return 0
    if method not in (None, "pingpong", "pingpong-v1"):
        from pingpong.core.errors import UserError

        raise UserError(f"unknown {method} situation '{args.name}' (see `pingpong situations list --method {method}`)")
    return show_plain(args, lib)


def show_plain(args, lib) -> int:
    """A PingPong situation."""
    s = lib.get(args.name)
    if args.format == "json":
        print_json({**s.model_dump(mode="json"), "source": lib.source(s.name)})
        return 0
    from rich.panel import Panel
    from rich.text import Text

    out = console()
    out.print(fields_grid((
        ("name", s.name), ("lang", s.lang), ("turns", s.num_turns), ("tags", ", ".join(s.tags)),
        ("topic", s.topic), ("intent", s.intent.value if s.intent else None),
        ("source", f"{lib.source(s.name)} ({lib.path(s.name)})"),
    )))
    out.print(Panel(Text(shown(s.text)), title="situation (the interrogator sees this)", title_align="left"))
    return 0


def show_question_set(args, lib) -> int:
    """A RoleBench question set: what it is, then each question's id and instruction."""
    found = lib.get(args.name)
    row = question_set_row(found, lib.source(found.name))
    if args.format == "json":
        print_json({**row, "questions": [q.model_dump(mode="json") for q in found.questions]})
        return 0
    from rich.table import Table
    from rich.text import Text

    out = console()
    out.print(fields_grid((("name", found.name), ("lang", found.lang), ("method", "rolebench"),
                           ("kind", found.kind), ("characters", ", ".join(row["characters"])),
                           ("source", f"{row['source']} ({lib.path(found.name)})"))))
    table = Table(title=f"{len(found.questions)} questions (a session's situation is NAME-ID)", title_justify="left")
    table.add_column("id", no_wrap=True)
    table.add_column("instruction")
    for q in found.questions:
        table.add_row(safe(q.id), Text(shown(clip(q.instruction, 100))))
    out.print(table)
    return 0


def show_seed(args, lib) -> int:
    """A DMT seed: its card, intent and limit, then the first query and the goal."""
    seed = lib.get(args.name)
    if args.format == "json":
        print_json(seed_row(seed, lib.source(seed.name)))
        return 0
    from rich.panel import Panel
    from rich.text import Text

    out = console()
    out.print(fields_grid((("name", seed.name), ("lang", seed.lang), ("method", "dmt"), ("character", seed.character),
                           ("intent", seed.intent.value), ("topic", seed.topic), ("rounds", f"at most {seed.max_rounds}"),
                           ("tags", ", ".join(seed.tags)), ("source", f"{lib.source(seed.name)} ({lib.path(seed.name)})"))))
    out.print(Panel(Text(shown(seed.initial_query)), title="first query (round 1, sent as written)", title_align="left"))
    out.print(Panel(Text(shown(seed.goal)), title="goal (the stop check ends the dialogue once reached)", title_align="left"))
    return 0


def show_probes(args, home) -> bool:
    """A probe set by its card's name, or one probe by its situation name ('koschei-mem-01'); False
    when the name is neither."""
    from pingpong.core.methods.roleinteract_data import ChoiceQuestion, MemoryProbe
    from pingpong.core.methods.roleinteract_probes import probe_name
    from pingpong.situations.probes import ProbeLibrary

    lib = ProbeLibrary(home)
    sets = [p for p in lib.all() if p.character == args.name]
    if len(sets) > 1:
        from pingpong.core.errors import UserError

        raise UserError(f"probe sets for '{args.name}' exist in {', '.join(p.lang for p in sets)}; "
                        "see `pingpong situations list --method roleinteract --lang L`")
    if sets:
        show_probe_set(args, sets[0], lib.source(sets[0].character, sets[0].lang))
        return True
    for probe_set in lib.all():
        probes: list[ChoiceQuestion | MemoryProbe] = [*probe_set.questions, *probe_set.memory]
        for probe in probes:
            if probe_name(probe_set, probe.id) == args.name:
                show_probe(args, probe_set, probe)
                return True
    return False


def show_probe_set(args, probe_set, source: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from pingpong.core.methods.roleinteract_data import memory_dimension
    from pingpong.core.methods.roleinteract_probes import probe_name

    row = probe_set_row(probe_set, source)
    probes = [(probe_name(probe_set, q.id), q.dimension, q.question) for q in probe_set.questions]
    probes += [(probe_name(probe_set, m.id), memory_dimension(m), m.ask) for m in probe_set.memory]
    if args.format == "json":
        print_json({**row, "probes": [{"name": n, "dimension": d, "question": q} for n, d, q in probes]})
        return
    out = console()
    out.print(fields_grid((("name", row["name"]), ("lang", row["lang"]), ("method", "roleinteract (probe set)"),
                           ("source", source))))
    table = Table(title=f"{len(probes)} probes (each one a session's situation)", title_justify="left")
    for column in ("name", "dimension", "question"):
        table.add_column(column, no_wrap=column != "question")
    for name, dimension, question in probes:
        table.add_row(safe(name), safe(dimension), Text(shown(clip(question, 100))))
    out.print(table)


def show_probe(args, probe_set, probe) -> None:
    from rich.panel import Panel
    from rich.text import Text

    from pingpong.core.methods.roleinteract_data import ChoiceQuestion, memory_dimension
    from pingpong.core.methods.roleinteract_probes import probe_name

    name = probe_name(probe_set, probe.id)
    if args.format == "json":
        print_json({"name": name, "set": probe_set.character, "lang": probe_set.lang, "method": "roleinteract",
                    **probe.model_dump(mode="json")})
        return
    out = console()
    choice = isinstance(probe, ChoiceQuestion)
    out.print(fields_grid((("name", name), ("lang", probe_set.lang), ("method", "roleinteract"),
                           ("set", probe_set.character),
                           ("dimension", probe.dimension if choice else memory_dimension(probe)),
                           ("answer", ", ".join(probe.answer) if choice else None),
                           ("keywords", None if choice else ", ".join(probe.keywords)),
                           ("padding", None if choice else f"{probe.padding} utterances ({probe.padding_from})"))))
    if choice:
        if probe.context:
            out.print(Panel(Text(shown(probe.context)), title="context", title_align="left"))
        options = "\n".join(f"{letter}. {text}" for letter, text in probe.options.items())
        out.print(Panel(Text(shown(f"{probe.question}\n\n{options}")), title="question", title_align="left"))
    else:
        out.print(Panel(Text(shown(probe.plant)), title="plant (the fact the user states)", title_align="left"))
        out.print(Panel(Text(shown(probe.ask)), title="ask (the question after the padding)", title_align="left"))


def show_question(args, lib) -> bool:
    """One RoleBench question by its situation name ('tally-s01', 'general-en-g03'): the set, the
    instruction and its references; False when no set has a question so named."""
    from pingpong.core.methods.rolebench_data import GeneralSet

    for question_set in lib.all():
        for q in question_set.questions:
            if f"{question_set.name}-{q.id}" != args.name:
                continue
            general = isinstance(question_set, GeneralSet)
            references: dict[str, object] = {"references": list(q.references)}
            if general:
                references["in_role"] = {c: list(answers) for c, answers in q.in_role.items()}
            if args.format == "json":
                print_json({"name": args.name, "set": question_set.name, "kind": question_set.kind,
                            "lang": question_set.lang, "method": "rolebench", "num_turns": 1,
                            "instruction": q.instruction, **references})
                return True
            from rich.panel import Panel
            from rich.text import Text

            out = console()
            out.print(fields_grid((("name", args.name), ("lang", question_set.lang), ("method", "rolebench"),
                                   ("set", f"{question_set.name} ({question_set.kind})"))))
            out.print(Panel(Text(shown(q.instruction)), title="instruction (the player answers it)", title_align="left"))
            lines = [f"• {r}" for r in q.references]
            if general:
                lines += [f"{c}: {a}" for c, answers in q.in_role.items() for a in answers]
            out.print(Panel(Text(shown("\n".join(lines))), title="references (Rouge-L against these)", title_align="left"))
            return True
    return False
