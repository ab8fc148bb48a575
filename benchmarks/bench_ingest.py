"""The ingest benchmark: `reasonboard ingest` over a corpus of real Inspect logs.

    python benchmarks/bench_ingest.py [--trials 200000] [--rounds 3] [--keep DIR]

(`--trials 2000000` is the size the per-sample issue's target is set at: at most 1.5x a plain
parse, memory flat.)

Corpus: the real Inspect AI `.eval` logs of `tests/data/per-instance/` (the `popularity`
eval set of three frontier models and the 285-sample MMLU log), replicated under new model
names (`bench/model-00001`, ...) until the corpus holds at least `--trials` trials. Each
replica is a new zip whose `header.json` names the new model; its sample members are the
real ones, byte for byte before compression.

Measured in the same run, each side in a fresh process so peak memory is its own:

1. ingest: `run_ingest` over the corpus directory (discover, read, sum in DuckDB, write the
   trials files);
2. plain parse: the same sample members read from the same zips and given to
   `json.loads`, nothing else: the floor any importer of these files pays.

Both sides run `--rounds` times, alternating, and the medians are compared. Printed:
trials per second of each, the ratio ingest / plain (target: at most 1.5), bytes per trial
of the trials files written, and peak RSS of
each. Ingest runs a second time over a quarter of the corpus, so its peak memory at
two sizes shows whether memory grows with the number of trials (target: flat).
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "tests" / "data" / "per-instance" / "inspect"
TEMPLATES = (
    LOGS / "inspect_ai" / "log-sets" / "set" / "2025-09-15T15-02-26-04-00_popularity_L8g2GLGDDfsiXvdJ8LyZNJ.eval",
    LOGS / "inspect_ai" / "log-sets" / "set" / "2025-09-15T15-02-26-04-00_popularity_LthYhadZHuQjsMYHHKRep2.eval",
    LOGS / "inspect_ai" / "log-sets" / "set" / "2025-09-15T15-02-26-04-00_popularity_eF3BogZE3jzpiWBjjDWbik.eval",
    LOGS / "inspect_demo" / "assets" / "logs" / "2025-07-30T18-42-38+00-00_mmlu_ZYEnfbu3nstBuwzjiAGzuG.eval",
)


def make_corpus(out: Path, trials: int) -> tuple[int, int]:
    """Replicas of the template logs under new model names; returns (files, trials).

    Each template's sample members are compressed once, into a zip without `header.json`;
    a replica is those bytes copied, with its own `header.json` appended (readers find
    members by name, not by position). Compressing every member again per replica made the
    2-million-trial corpus take half an hour. A corpus already at `out` that was made for
    the same `trials` (as recorded in `<out>.json` beside it) is reused."""
    made = out.with_name(out.name + ".json")
    if made.is_file():
        record = json.loads(made.read_text())
        if record.get("asked") == trials:
            return record["files"], record["trials"]
    shutil.rmtree(out, ignore_errors=True)
    templates = []
    for path in TEMPLATES:
        with zipfile.ZipFile(path) as z:
            members = [(i.filename, z.read(i)) for i in z.infolist()]
        header = json.loads(dict(members)["header.json"])
        samples = sum(name.startswith("samples/") for name, _ in members)
        body = io.BytesIO()
        with zipfile.ZipFile(body, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
            for member, data in members:
                if member != "header.json":
                    z.writestr(member, data)
        templates.append((path.name, header, body.getvalue(), samples))
    out.mkdir(parents=True, exist_ok=True)
    files = written = 0
    replica = 0
    while written < trials:
        replica += 1
        for k, (name, header, body, samples) in enumerate(templates):
            # One model per replica log: the popularity logs share their sample ids, so
            # under one name they would be the same trials (and count once).
            model = f"bench/model-{replica:05d}-{k}"
            header = {**header, "eval": {**header["eval"], "model": model}}
            target = out / f"{replica:05d}" / name
            target.parent.mkdir(exist_ok=True)
            target.write_bytes(body)
            with zipfile.ZipFile(target, "a", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
                z.writestr("header.json", json.dumps(header).encode())
            files += 1
            written += samples
    made.write_text(json.dumps({"asked": trials, "files": files, "trials": written}))
    return files, written


def run_ingest_side(corpus: Path, data: Path) -> dict:
    from reasonboard.ingest import IngestOptions, run_ingest

    shutil.rmtree(data, ignore_errors=True)  # each round writes its trials files afresh
    start, cpu = time.perf_counter(), _cpu()
    result = run_ingest(IngestOptions(paths=(corpus,), data_dir=data))
    seconds, cpu = time.perf_counter() - start, _cpu() - cpu
    written = sum(p.stat().st_size for p in (data / "trials").glob("*.parquet"))
    return {"seconds": seconds, "cpu": cpu, "trials": sum(p.total for p in result.points),
            "points": len(result.points), "peak_mb": _peak_mb(), "bytes": written}


def run_plain_side(corpus: Path) -> dict:
    start, cpu = time.perf_counter(), _cpu()
    samples = 0
    for path in sorted(corpus.rglob("*.eval")):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if info.filename.startswith("samples/"):
                    json.loads(z.read(info))
                    samples += 1
    return {"seconds": time.perf_counter() - start, "cpu": _cpu() - cpu, "trials": samples, "peak_mb": _peak_mb()}


def _cpu() -> float:
    """CPU seconds of this process, its threads (DuckDB's) included: on a shared machine the
    wall time measures the neighbours as much as the work."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def _child(side: str, corpus: Path, data: Path) -> dict:
    """Run one side in a fresh interpreter and read its JSON result."""
    out = subprocess.run([sys.executable, __file__, "--side", side, "--corpus", str(corpus), "--data", str(data)],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _median(results: list[dict]) -> dict:
    """The result with the median time (its other figures come with it)."""
    return sorted(results, key=lambda r: r["seconds"])[len(results) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3, help="Alternating timings of each side (medians).")
    parser.add_argument("--keep", type=Path, default=None, help="Keep the corpus and output here.")
    parser.add_argument("--side", choices=("ingest", "plain"), help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side == "ingest":
        print(json.dumps(run_ingest_side(args.corpus, args.data)))
        return
    if args.side == "plain":
        print(json.dumps(run_plain_side(args.corpus)))
        return

    base = args.keep or Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    try:
        start = time.perf_counter()
        files, trials = make_corpus(base / "corpus", args.trials)
        quarter_files, quarter_trials = make_corpus(base / "quarter", args.trials // 4)
        print(f"corpus: {files} .eval files, {trials:,} trials "
              f"(quarter: {quarter_files} files, {quarter_trials:,} trials), made in {time.perf_counter() - start:.1f} s")
        # Alternating rounds, medians: this VM's speed drifts by half within minutes, so
        # one timing of each side taken a minute apart cannot be compared.
        plains, ingests = [], []
        for _ in range(args.rounds):
            plains.append(_child("plain", base / "corpus", base / "data-plain"))
            ingests.append(_child("ingest", base / "corpus", base / "data"))
        plain = _median(plains)
        ingest = _median(ingests)
        small = _child("ingest", base / "quarter", base / "data-quarter")
        assert ingest["trials"] == plain["trials"] == trials, (ingest, plain, trials)
        print(f"plain json.loads of the sample members: {plain['seconds']:.1f} s (median of {args.rounds}), "
              f"{plain['trials'] / plain['seconds']:,.0f} trials/s, peak RSS {plain['peak_mb']:.0f} MB")
        print(f"reasonboard ingest:                      {ingest['seconds']:.1f} s (median of {args.rounds}), "
              f"{ingest['trials'] / ingest['seconds']:,.0f} trials/s, peak RSS {ingest['peak_mb']:.0f} MB "
              f"({ingest['points']} points; trials files {ingest['bytes'] / ingest['trials']:.2f} bytes per trial)")
        print("rounds (plain / ingest, s): " + ", ".join(f"{p['seconds']:.1f} / {i['seconds']:.1f}"
                                                     for p, i in zip(plains, ingests)))
        print(f"ratio ingest / plain parse: {ingest['seconds'] / plain['seconds']:.2f} (target <= 1.5)")
        cpu = sorted(i["cpu"] for i in ingests)[len(ingests) // 2] / sorted(p["cpu"] for p in plains)[len(plains) // 2]
        print("CPU seconds (plain / ingest): " + ", ".join(f"{p['cpu']:.1f} / {i['cpu']:.1f}"
                                                        for p, i in zip(plains, ingests))
              + f"; ratio of the medians {cpu:.2f}")
        print(f"peak RSS of ingest at {small['trials']:,} trials: {small['peak_mb']:.0f} MB; "
              f"at {ingest['trials']:,}: {ingest['peak_mb']:.0f} MB (flat when these are close)")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
