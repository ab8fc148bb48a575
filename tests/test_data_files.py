"""The data files are written by a faster encoder than `json.dumps` (outputs.py):
here its bytes are compared with a plain reading written in this file, `json.dumps` of the
documents laid out one top-level list element per line, on the default build's real signals
(EEE records of data/eee) and on hand-made triples with the texts most likely to trip a
hand-assembled encoder: non-ASCII, quotes, backslashes, control characters, `%`, a string
that spells a key, empty and unsorted lists, several parties, shared and unshared checks."""

from __future__ import annotations

import dataclasses
import json
import math
from typing import Any

import pytest
from reasonboard.outputs import leaderboard_document, pairwise_document, signals_json, triple_lines
from reasonboard.signals import Comparability, Divergence, PartyScore, Provenance, Reproducibility, SetupDifference
from reasonboard.signals.model import TripleSignals


def plain(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def plain_file(document: dict[str, Any]) -> bytes:
    """The data files' layout (PRODUCT.md "Outputs"), read plainly: sorted keys, each element of
    a non-empty top-level list on its own line, indented by two spaces."""
    parts = []
    for key in sorted(document):
        value = document[key]
        if isinstance(value, list) and value:
            parts.append(plain(key) + ":[\n" + ",\n".join("  " + plain(item) for item in value) + "\n]")
        else:
            parts.append(plain(key) + ":" + plain(value))
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode("utf-8")


# -- the default build: real signals ------------------------------------------------------------


def test_signals_json_of_the_default_build_is_the_plain_encoding(default_build):
    signals = default_build.results.signals
    published = (default_build.out / "data" / "signals.json").read_bytes()
    assert published == plain_file(signals.to_json())
    assert signals_json(signals) == published
    # The real data reach every path of the encoder: shared and unshared checks, flagged and
    # N/A ones, several parties, gaps.
    triples = signals.triples
    assert len(triples) > 100
    assert any(len(t.comparability.scores) > 1 for t in triples)
    assert {t.comparability.flag for t in triples} == {None, True, False}
    assert any(t.reproducibility.gap for t in triples) and any(t.comparability.variant.differing for t in triples)
    assert len({id(t.reproducibility) for t in triples}) < len(triples) / 10, "the records are shared"


def test_leaderboard_and_pairwise_of_the_default_build_are_the_plain_encoding(default_build):
    results = default_build.results
    data = default_build.out / "data"
    assert (data / "leaderboard.json").read_bytes() == plain_file(leaderboard_document(results.leaderboard))
    assert (data / "pairwise.json").read_bytes() == plain_file(pairwise_document(results.pairwise, results.comparisons))


# -- hand-made triples ---------------------------------------------------------------------------

AWKWARD = ("Ünïcødé – 模型 😀", 'say "hi"\\', "tab\there\x00\x1f", "100% of %s", '"scores":{}', "")

SHARED_REPRO = Reproducibility(True, ("temperature", "max_tokens"), False)
NA_VARIANT = Divergence("variant", None, None, None, 0.05, "fallback", 1.0, (), "one report")
NA_CROSS = Divergence("cross_party", None, None, None, 0.05, "fallback", 1.0, (), "one party")


def triple(model: str, *, parties: tuple[str, ...] = ("acme",), scores: tuple[PartyScore, ...] | None = None,
           variant: Divergence = NA_VARIANT, cross: Divergence = NA_CROSS,
           provenance: Provenance | None = None, repro: Reproducibility = SHARED_REPRO,
           reports: int = 1) -> TripleSignals:
    if scores is None:
        scores = tuple(PartyScore(p, 0.5, 1, None) for p in parties)
    if provenance is None:
        provenance = Provenance(False, len(parties) > 1, {"third_party": reports}, parties)
    return TripleSignals(model, model, "bench/slice", "bench", "slice", "accuracy", reports, parties,
                         tuple(range(reports)), repro, provenance, Comparability(variant, cross, scores))


def awkward_triples() -> list[TripleSignals]:
    shared_provenance = Provenance(True, False, {"first_party": 1}, ("acme",), ("Data bias",))
    triples = [triple(text, parties=(text,) if text else ()) for text in AWKWARD]
    triples += [triple(f"shared-{i}", provenance=shared_provenance) for i in range(3)]
    differing = (SetupDifference("max_tokens", ("2048", None)), SetupDifference("prompt_template", ("a%b", "ü")))
    for spread, score in ((0.12345678, 1e-07), (0.0, 123456789.123), (-0.0, -0.5), (1e16, 0.1 + 0.2)):
        variant = Divergence("variant", spread > 0.05, spread, spread, 0.05, "percent", 100.0, differing, None)
        cross = Divergence("cross_party", False, 0.01, 0.5, 0.05, 'metric_"config"', 50.0, (), None)
        scores = (PartyScore("zeta", score, 2, 0.1), PartyScore("Älpha", 3, 1, None), PartyScore("alpha", -score, 1, None))
        triples.append(triple("compared", parties=("zeta", "Älpha", "alpha"), scores=scores, variant=variant,
                              cross=cross, repro=Reproducibility(False, (), True), reports=4))
    # Equal checks that are different objects, and the same objects in another pairing.
    triples.append(triple("equal-copies", variant=dataclasses.replace(NA_VARIANT), cross=dataclasses.replace(NA_CROSS)))
    triples.append(triple("swapped-pair", variant=triples[-2].comparability.variant, cross=NA_CROSS, reports=2))
    return triples


def test_triple_lines_equal_plain_json_of_each_triple():
    triples = awkward_triples()
    assert triple_lines(triples) == [plain(t.to_json()) for t in triples]


def test_the_awkward_texts_reach_the_file_as_json_writes_them():
    lines = triple_lines(awkward_triples())
    assert '"model":"Ünïcødé – 模型 😀"' in lines[0]  # ensure_ascii=False: as written
    assert '"model":"say \\"hi\\"\\\\"' in lines[1]
    assert '"model":"tab\\there\\u0000\\u001f"' in lines[2]
    assert '"model":"100% of %s"' in lines[3]
    assert '"parties":["\\"scores\\":{}"]' in lines[4] and lines[4].count('"scores":{') == 1
    assert '"parties":[]' in lines[5] and '"scores":{}' in lines[5]
    compared = json.loads(lines[9])["comparability"]
    assert list(compared["cross_party"]["scores"]) == ["alpha", "zeta", "Älpha"]  # sorted by code point
    assert compared["cross_party"]["scores"]["Älpha"] == 3 and '"Älpha":3}' in lines[9]  # an int stays an int


def test_a_nan_is_refused_as_json_dumps_refuses_it():
    bad = triple("nan", scores=(PartyScore("acme", math.nan, 1, None),))
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        plain(bad.to_json())
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        triple_lines([bad])


def test_signals_json_with_hand_made_triples_is_the_plain_encoding(default_build):
    signals = dataclasses.replace(default_build.results.signals, triples=tuple(awkward_triples()))
    assert signals_json(signals) == plain_file(signals.to_json())
    empty = dataclasses.replace(signals, triples=(), benchmarks=())
    assert signals_json(empty) == plain_file(empty.to_json())
    assert b'\n"triples":[]' in signals_json(empty)


def test_records_made_on_the_fly_are_not_taken_for_earlier_ones_at_the_same_address():
    """The shared texts are found by identity: an object freed after its line must not lend
    its text to a new one that Python places at the same address."""
    def made():
        for i in range(200):
            repro = Reproducibility(i % 2 == 0, ("temperature",) * (i % 2), i % 3 == 0)
            provenance = Provenance(i % 2 == 1, False, {"first_party": i}, ("acme",))
            variant = dataclasses.replace(NA_VARIANT, basis=f"basis {i}")
            yield triple(f"m{i}", repro=repro, provenance=provenance, variant=variant, reports=i)

    assert triple_lines(made()) == [plain(t.to_json()) for t in made()]
