"""Small inline SVG charts, so report.html needs no script, font or stylesheet from anywhere."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#4d7c0f", "#be185d"]
# Series whose meaning has a colour: what was (grey) and what is now (blue), kept and not.
NAMED = {
    "before": "#9ca3af",
    "after": "#2563eb",
    "accepted": "#16a34a",
    "rejected": "#9ca3af",
    "pending": "#ea580c",
}
W, H, PAD = 560, 220, 40


def _frame(title: str, body: str, height: int = H) -> str:
    return (
        f'<svg role="img" width="{W}" height="{height}" '
        f'viewBox="0 0 {W} {height}"><title>{escape(title)}</title>'
        f'<text x="{PAD}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>'
        f"{body}</svg>"
    )


def line_chart(title: str, series: dict[str, list[tuple[str, float]]]) -> str:
    """One line per series over the x labels (nights); y is a score in [0, 1]. Callers
    draw it only with two nights or more (one point is not a line)."""
    labels = sorted({x for points in series.values() for x, _ in points})
    span = max(len(labels) - 1, 1)
    plot_w, plot_h = W - 2 * PAD - 120, H - 2 * PAD

    def xy(label: str, y: float) -> tuple[float, float]:
        x = PAD + plot_w * labels.index(label) / span if len(labels) > 1 else PAD + plot_w / 2
        return x, PAD + plot_h * (1 - max(0.0, min(1.0, y)))

    parts = [
        f'<line x1="{PAD}" y1="{PAD + plot_h}" x2="{PAD + plot_w}" y2="{PAD + plot_h}" '
        'stroke="#888"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{PAD + plot_h}" stroke="#888"/>',
    ]
    for tick in (0.0, 0.5, 1.0):
        _, y = xy(labels[0], tick)
        parts.append(
            f'<text x="{PAD - 6}" y="{y + 4}" font-size="10" text-anchor="end">{tick}</text>'
        )
    for i, (name, points) in enumerate(sorted(series.items())):
        color = PALETTE[i % len(PALETTE)]
        coords = [xy(x, y) for x, y in sorted(points)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{path}"/>')
        parts.extend(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in coords)
        ly = PAD + 14 * i
        parts.append(
            f'<rect x="{W - 150}" y="{ly - 9}" width="10" height="10" fill="{color}"/>'
            f'<text x="{W - 135}" y="{ly}" font-size="11">{escape(name[:24])}</text>'
        )
    for label in (labels[0], labels[-1]):
        x, _ = xy(label, 0)
        parts.append(
            f'<text x="{x:.1f}" y="{H - 12}" font-size="10" text-anchor="middle">'
            f"{escape(label[:10])}</text>"
        )
    return _frame(title, "".join(parts))


def bar_chart(
    title: str,
    rows: Sequence[tuple[str, Sequence[tuple[str, float]]]],
    top: float | None = None,
    unit: str = "",
) -> str:
    """Horizontal grouped bars: each row a label with (series, value) segments side by side.
    Bars scale to ``top`` (e.g. 100 for percentages), else to the largest value; ``unit``
    follows each value's label ("%"). Callers leave out a chart with no rows."""
    top = top or max((v for _, segs in rows for _, v in segs), default=0) or 1
    names = list(dict.fromkeys(s for _, segs in rows for s, _ in segs))  # first-seen order

    def colour(series: str) -> str:
        return NAMED.get(series) or PALETTE[names.index(series) % len(PALETTE)]

    bar_h, label_w = 12, 190
    height = PAD + len(rows) * (bar_h * len(names) + 10) + 20 * len(names)
    parts: list[str] = []
    y = PAD
    for label, segs in rows:
        parts.append(f'<text x="{PAD}" y="{y + bar_h}" font-size="11">{escape(label[:30])}</text>')
        for series, value in segs:
            color = colour(series)
            width = (W - PAD - label_w - 60) * min(value, top) / top
            parts.append(
                f'<rect x="{PAD + label_w}" y="{y}" width="{width:.1f}" height="{bar_h}" '
                f'fill="{color}"><title>{escape(series)}: {value:g}</title></rect>'
                f'<text x="{PAD + label_w + width + 4:.1f}" y="{y + bar_h - 2}" font-size="10">'
                f"{value:g}{escape(unit)}</text>"
            )
            y += bar_h
        y += 10
    for i, series in enumerate(names):
        color = colour(series)
        parts.append(
            f'<rect x="{PAD}" y="{y + 20 * i}" width="10" height="10" fill="{color}"/>'
            f'<text x="{PAD + 15}" y="{y + 20 * i + 9}" font-size="11">{escape(series)}</text>'
        )
    return _frame(title, "".join(parts), height + 10)
