"""Interpretation-guide bands (STATISTICS.md section 9).

The numbers that separate bands and the words that describe them live in
`content/bands.toml`, so a publisher can reword the guide without touching code. A band's
lower edge is inclusive; values below the last band's edge fall into the last band.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..config import read_toml
from ..errors import InputError

SCALES = ("reasonscore", "score_per_token", "ci_width")


@dataclass(frozen=True)
class Band:
    key: str
    label: str
    text: str
    low: float
    high: float | None  # None for the open top band


@dataclass(frozen=True)
class Bands:
    scales: dict[str, tuple[Band, ...]]

    def classify(self, scale: str, value: float | None) -> Band | None:
        if value is None or not np.isfinite(value):
            return None
        for band in self.scales[scale]:
            if value >= band.low:
                return band
        return self.scales[scale][-1]

    def keys(self, scale: str, values: np.ndarray) -> list[str | None]:
        """Vectorised band keys for an array of values (one sorted search, no loop);
        None where a value is missing (NaN), like `classify`."""
        bands = self.scales[scale]
        values = np.asarray(values, dtype=float)
        edges = np.array([b.low for b in reversed(bands)])
        idx = np.searchsorted(edges, values, side="right") - 1
        idx = np.clip(idx, 0, len(bands) - 1)
        ordered = list(reversed(bands))
        return [ordered[i].key if ok else None for i, ok in zip(idx.tolist(), np.isfinite(values).tolist())]

    def reasonscore(self, value: float | None) -> Band | None:
        return self.classify("reasonscore", value)

    def score_per_token(self, value: float | None) -> Band | None:
        return self.classify("score_per_token", value)

    def ci_width(self, margin: float | None) -> Band | None:
        return self.classify("ci_width", margin)

    def by_key(self, scale: str, key: str) -> Band | None:
        return next((b for b in self.scales[scale] if b.key == key), None)

    def all(self) -> dict[str, tuple[Band, ...]]:
        return dict(self.scales)


def load_bands(path: Path) -> Bands:
    """Read and check `bands.toml`: every scale present, edges strictly decreasing."""
    raw = read_toml(path, "band wording file")
    unknown = sorted(set(raw) - set(SCALES))
    if unknown:
        raise InputError(path, f"unknown key '{unknown[0]}' (known: {', '.join(SCALES)})")
    scales: dict[str, tuple[Band, ...]] = {}
    for scale in SCALES:
        entries = raw.get(scale)
        if not isinstance(entries, list) or not entries:
            raise InputError(path, f"'{scale}' must list at least one band")
        bands: list[Band] = []
        previous: float | None = None
        for i, entry in enumerate(entries, start=1):
            extra = sorted(set(entry) - {"key", "min", "label", "text"})
            if extra:
                raise InputError(path, f"{scale} band {i}: unknown key '{extra[0]}'")
            try:
                key, low, label, text = entry["key"], float(entry["min"]), entry["label"], entry["text"]
            except (KeyError, TypeError, ValueError):
                raise InputError(path, f"{scale} band {i}: needs key, min (a number), label and text") from None
            if previous is not None and low >= previous:
                raise InputError(path, f"{scale} band {i}: 'min' must be below the band above it")
            bands.append(Band(str(key), str(label), str(text), low, previous))
            previous = low
        scales[scale] = tuple(bands)
    return Bands(scales)
