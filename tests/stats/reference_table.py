"""The PingPong reference's leaderboard arithmetic (its build_table_v2 script), restated in our own
words for tests: read a folder of version 2 results files the way that script does and give, per
player, the figures its table shows.

What the script does, step by step:
- every `*.json` file in the folder is one (player, judge) file; a conversation is identified by
  its message list, so the files of several judges of one conversation meet there;
- a judge's entry whose `is_refusal` list holds a 1 makes that conversation a refusal of the player
  and is left out of the scores; the refusal ratio is refusal conversations over all conversations;
- for every other entry, each score list is averaged (keys naming a refusal are skipped); the
  entry's final is the weighted sum of those means with the published weights 0.333 each;
- per conversation, every figure is the mean over the judges that kept an entry (judge weight 1);
- per player, each figure is the mean over conversations (the script reports the mean of 1000
  bootstrap means, whose expectation is this plain mean: we use the plain mean);
- avg_length is the integer part of the mean character count of the player's messages over its
  distinct conversations; the length factor uses the median of those integers, moved 7% of the way
  from 1 and clamped to [0.93, 1]; the length-normalised score is the final times the factor;
- rank: players sorted by that score, each printed with two decimals; a player opens a new rank
  (its position) when its printed score is more than 0.06 away from the score that opened the
  current rank.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from statistics import mean, median

PUBLISHED_WEIGHTS = (0.333, 0.333, 0.333)
METRICS = ("in_character", "entertaining", "fluency")


def reference_table(folder: Path) -> dict[str, dict]:
    """{player model name: {refusal_ratio, in_character, entertaining, fluency, final, avg_length,
    length_norm, rank, conversations}}."""
    dialogs: dict[str, dict[str, list]] = defaultdict(dict)
    refusals: dict[str, set[str]] = defaultdict(set)
    kept: dict[str, dict[str, tuple[str, dict]]] = defaultdict(dict)  # conversation -> judge -> (player, scores)
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        player, judge = data["player"]["model_name"], data["judge"]["model_name"]
        for entry in data["outputs"]:
            key = str(entry["messages"])
            dialogs[player][key] = entry["messages"]
            if max(entry["scores"]["is_refusal"]) == 1:
                refusals[player].add(key)
                continue
            kept[key][judge] = (player, entry["scores"])

    per_player: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for by_judge in kept.values():
        figures: dict[str, list[float]] = defaultdict(list)
        player = ""
        for player, scores in by_judge.values():
            means = {k: mean(v) for k, v in scores.items() if "refusal" not in k}
            for k, v in means.items():
                figures[k].append(v)
            figures["final"].append(sum(w * means[m] for w, m in zip(PUBLISHED_WEIGHTS, METRICS)))
        for k, values in figures.items():
            per_player[player][k].append(mean(values))

    table: dict[str, dict] = {}
    for player, figures in per_player.items():
        replies = [len(m["content"]) for msgs in dialogs[player].values() for m in msgs if m["role"] == "assistant"]
        row = {k: mean(v) for k, v in figures.items()}
        row.update(avg_length=int(mean(replies)), conversations=len(dialogs[player]),
                   refusal_ratio=len(refusals[player]) / len(dialogs[player]), finals=figures["final"])
        table[player] = row
    middle = median(r["avg_length"] for r in table.values())
    for row in table.values():
        x = 1 + (middle / row["avg_length"] - 1) * 0.07
        factor = min(1.0, max(0.93, x))
        row["length_norm"] = mean(f * factor for f in row.pop("finals"))
    ordered = sorted(table, key=lambda p: table[p]["length_norm"], reverse=True)
    opener = None
    for position, player in enumerate(ordered, 1):
        shown = float(f"{table[player]['length_norm']:.2f}")
        if opener is None or abs(shown - opener[1]) > 0.06:
            opener = (position, shown)
        table[player]["rank"] = opener[0]
    return table
