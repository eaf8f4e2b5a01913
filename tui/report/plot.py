"""Score-by-turn plots as inline SVG: the geometry here, the markup in templates/_plot.html.j2.

No plotting library and no script: a few polylines on a fixed grid render in any browser, print,
and need nothing next to the HTML file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
DASHES = ("", "7 4", "2 3", "9 3 2 3")  # lines that lie on each other still show each colour
WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 12, 30  # margins for the axes' labels


@dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str  # the tooltip after the line's name: "turn 2: 4.33"


@dataclass(frozen=True)
class Line:
    name: str
    colour: str
    dash: str  # the stroke-dasharray ("" solid)
    points: list[Point]

    @property
    def path(self) -> str:
        """The polyline's `points` attribute."""
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    lines: list[Line]
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]]


def _ticks(lo: float, hi: float) -> list[float]:
    """Whole-number ticks for Likert scales (1..5, 1..10), quarters for 0..1."""
    if hi - lo <= 1:
        return [lo + (hi - lo) * i / 4 for i in range(5)]
    step = 1 if hi - lo <= 5 else 2 if hi - lo <= 10 else max(1, round((hi - lo) / 5))
    out, value = [], lo
    while value <= hi + 1e-9:
        out.append(value)
        value += step
    return out


def chart(series: Mapping[str, Sequence[tuple[int, float]]], lo: float, hi: float) -> Chart | None:
    """Lines of (turn, value) on a turn axis from 1 to the last turn and a value axis from lo to hi;
    None when there is nothing to draw."""
    drawn = {name: list(points) for name, points in series.items() if points}
    if not drawn or hi <= lo:
        return None
    last = max(t for points in drawn.values() for t, _ in points)
    span_x = WIDTH - LEFT - RIGHT
    span_y = HEIGHT - TOP - BOTTOM

    def x(turn: float) -> float:
        return LEFT + (span_x / 2 if last <= 1 else span_x * (turn - 1) / (last - 1))

    def y(value: float) -> float:
        return TOP + span_y * (1 - (min(max(value, lo), hi) - lo) / (hi - lo))

    lines = [Line(name, COLOURS[i % len(COLOURS)], DASHES[i % len(DASHES)],
                  [Point(x(t), y(v), f"turn {t}: {v:.2f}") for t, v in sorted(points)])
             for i, (name, points) in enumerate(drawn.items())]
    every = max(1, last // 12)  # at most about a dozen turn labels
    x_ticks = [(x(t), str(t)) for t in range(1, last + 1) if (t - 1) % every == 0 or t == last]
    y_ticks = [(y(v), f"{v:g}") for v in _ticks(lo, hi)]
    return Chart(WIDTH, HEIGHT, LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM, lines, x_ticks, y_ticks)
