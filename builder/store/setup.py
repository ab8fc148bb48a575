"""A result row's setup as stored: the ten setup fields in canonical text (EVALCARDS.md section 7).

`canonical()` writes each value as text so that equal setups compare equal in SQL: numbers
to 8 significant digits, strings trimmed, objects as sorted JSON, absent as NULL. The
comparability signal (signals/comparability.py) groups rows by these columns; what is
stored is decided here, so the store's cache key covers it.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping

#: Setup fields in display order; also the setup column names of `reported_rows`.
SETUP_FIELDS = (
    "temperature", "top_p", "top_k", "max_tokens", "prompt_template", "reasoning",
    "agentic_eval_config", "harness", "harness_version", "agent_scaffold",
)
#: The setup fields read from `generation_config.generation_args`.
GENERATION_FIELDS = SETUP_FIELDS[:7]
#: The token limit as harnesses spell it in the generation settings ingest records
#: (lm-eval `max_gen_toks`, Hugging Face `max_new_tokens`), EEE's own spelling first.
TOKEN_LIMIT_KEYS = ("max_tokens", "max_new_tokens", "max_gen_toks", "max_output_tokens")


def with_token_limit(args: Mapping[str, Any]) -> Mapping[str, Any]:
    """`args` with `max_tokens` set from the harness's own spelling of the token limit when
    it has no `max_tokens` (a limit recorded as `max_gen_toks` is reported, not missing)."""
    if args.get("max_tokens") is not None:
        return args
    limit = next((args[k] for k in TOKEN_LIMIT_KEYS if args.get(k) is not None), None)
    return args if limit is None else {**args, "max_tokens": limit}


def canonical(value: Any) -> str | None:
    """The comparable text of one setup value (None when absent or null)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return repr(value)
        return format(value, ".8g")
    if isinstance(value, str):
        return value.strip()
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def agent_scaffold(model_details: Mapping[str, Any], generation_details: Mapping[str, Any]) -> Any:
    """The agent scaffold: `model_info.additional_details.agent_scaffold` or `.agent_name`,
    else `generation_config.additional_details.agent_scaffold` (first one given)."""
    for value in (model_details.get("agent_scaffold"), model_details.get("agent_name"),
                  generation_details.get("agent_scaffold")):
        if value is not None:
            return value
    return None
