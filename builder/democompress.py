"""The demo's simulated compressed output sizes (SAMPLES.md section 1, `compressed`).

The demo writes no output text, so it simulates what gzip would make of each output: a
trial's bits per output token are log-normal around `BITS` (the order gzip gives on
English reasoning), and `compressed = GZIP_FRAME + round(tokens * bits / 8)`, gzip's own
header and trailer included.

Two shapes the per-sample analyses should reveal (SAMPLES.md section 6):

* **A model that loops when it fails** (every fourth model: `index % 4 == 1`): its wrong
  and truncated answers repeat themselves, at `LOOP_BITS` per token, about a fifth of its
  correct answers' rate, which the compression analysis flags.
* **A model that truncates on long outputs** is the simulator's own shape (demo.py): hard
  trials are long, and past the sampler's `max_tokens` they are cut off, so a verbose model's
  hazard rises in the last bins of output tokens.

Each evaluation draws from its own stream (`stream(seed, "compressed", index, variant)`),
so adding this column changed no other simulated value.
"""

from __future__ import annotations

import numpy as np

from .demoworld import DemoEvaluation, normals, stream

#: Median bits per output token of an ordinary answer, and the spread of its logarithm.
BITS = 3.2
SPREAD = 0.25
#: Median bits per output token of a looping answer.
LOOP_BITS = 0.6
#: gzip's header (10 bytes) and trailer (8 bytes), plus the final block's few bytes.
GZIP_FRAME = 20


def loops_when_failing(run: DemoEvaluation) -> bool:
    """Whether this model repeats itself on the answers it gets wrong (every fourth model)."""
    return run.index % 4 == 1


def compressed_sizes(run: DemoEvaluation, seed: int, tokens: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """The simulated gzip size of each trial's output, in bytes (int64)."""
    z = normals(stream(seed, "compressed", run.index, run.variant), len(tokens))
    rate = BITS * np.exp(SPREAD * z)
    if loops_when_failing(run):
        rate = np.where(correct, rate, LOOP_BITS * np.exp(SPREAD * z))
    return GZIP_FRAME + np.rint(np.asarray(tokens, dtype=float) * rate / 8.0).astype(np.int64)
