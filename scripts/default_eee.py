"""Choose the real Every Eval Ever records of the default data (`data/eee/`).

PRODUCT.md asks for a few MB of real records that keep every benchmark with a card in
`data/cards/` and the models that make cross-party checks possible. This script makes that
choice from the shared corpus by a fixed rule, so it can be repeated and reviewed:

* only the collections that report a carded benchmark (`COLLECTIONS`); the others (HELM MMLU,
  RewardBench, Global MMLU Lite, LiveCodeBench Pro, HELM Instruct) have no card;
* in each, every record of a model that another kept collection also reports (model ids
  trimmed and case-folded: these give the cross-party comparisons of HELM Capabilities and
  the Open LLM Leaderboard on GPQA, IFEval and MMLU-Pro), plus every k-th of the other
  records in path order (k per collection below; enough rows that the Open LLM benchmarks
  fill more than one page of results).

Files are copied unchanged, keeping the `<collection>/<developer>/<model>/<uuid>.json` layout.

    python scripts/default_eee.py [--corpus PATH]          # rewrite data/eee/
    python scripts/default_eee.py [--corpus PATH] --check  # exit 1 when data/eee/ differs
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "eee-2026-02"
TARGET = ROOT / "data" / "eee"
#: collection -> keep every k-th record that is not shared with another collection
COLLECTIONS = {"helm_capabilities": 1, "helm_classic": 4, "helm_lite": 4, "hfopenllm_v2": 40}


def model_id(path: Path) -> str:
    doc = json.loads(path.read_text(encoding="utf-8"))
    return str((doc.get("model_info") or {}).get("id") or "").strip().casefold()


def choose(corpus: Path) -> list[Path]:
    """The chosen records, as paths relative to the corpus, sorted."""
    records = {name: sorted(p for p in (corpus / name).rglob("*.json") if p.is_file()) for name in COLLECTIONS}
    ids = {path: model_id(path) for paths in records.values() for path in paths}
    collections_of: dict[str, set[str]] = defaultdict(set)
    for name, paths in records.items():
        for path in paths:
            collections_of[ids[path]].add(name)
    chosen = []
    for name, every in COLLECTIONS.items():
        others = [p for p in records[name] if len(collections_of[ids[p]]) < 2]
        shared = [p for p in records[name] if len(collections_of[ids[p]]) >= 2]
        chosen += shared + others[::every]
    return sorted(p.relative_to(corpus) for p in chosen)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--check", action="store_true", help="compare with data/eee/ instead of writing it")
    args = parser.parse_args()
    chosen = choose(args.corpus)
    present = sorted(p.relative_to(TARGET) for p in TARGET.rglob("*.json") if p.is_file()) if TARGET.is_dir() else []
    if args.check:
        same = present == chosen and all(
            (TARGET / p).read_bytes() == (args.corpus / p).read_bytes() for p in chosen)
        print("data/eee is up to date" if same else "data/eee differs from the rule: run scripts/default_eee.py")
        return 0 if same else 1
    shutil.rmtree(TARGET, ignore_errors=True)
    for rel in chosen:
        (TARGET / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.corpus / rel, TARGET / rel)
    size = sum((TARGET / p).stat().st_size for p in chosen)
    counts = {name: sum(1 for p in chosen if p.parts[0] == name) for name in COLLECTIONS}
    print(f"wrote {len(chosen)} records ({size / 1e6:.1f} MB) to {TARGET}: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
