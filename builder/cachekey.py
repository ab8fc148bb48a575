"""Cache entries only this machine made: every cache file's name is salted with a secret kept
outside the project.

A project's `.reasonboard-cache/` can arrive with the project: committed to the repository,
copied from another machine, restored by CI. A build must never trust it (PRODUCT.md,
"Untrusted checkouts"): a PointsDB made elsewhere and saved under the expected name would
publish forged ranks with `data/` untouched, since a name made from the inputs alone is
predictable. So every name is `salted`: an HMAC of what the entry depends on, keyed by 32
random bytes this user keeps in `$XDG_CACHE_HOME/reasonboard/salt` (`~/.cache/...`), never in
the project. An entry made elsewhere never has the name this build looks for, and is
ignored; it is data in any case (DuckDB, JSON), never code. Where no salt can be kept (a
read-only home, a damaged file), each process draws its own: nothing is reused or trusted.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from contextlib import suppress
from pathlib import Path

_SALT: bytes | None = None


def salt_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "reasonboard" / "salt"


def machine_salt() -> bytes:
    """This user's secret, made on first use, readable by the user alone (of two builds
    starting at once, the first to create the file writes it)."""
    global _SALT
    if _SALT is None:
        path = salt_path()
        with suppress(OSError):  # made already, or no place to keep it
            path.parent.mkdir(parents=True, exist_ok=True)
            with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as fh:
                fh.write(secrets.token_bytes(32))
        try:
            found = path.read_bytes()
        except OSError:
            found = b""
        _SALT = found if len(found) == 32 else secrets.token_bytes(32)
    return _SALT


def salted(key: str, length: int = 24) -> str:
    """The name of a cache entry for `key`: unpredictable without this machine's salt."""
    return hmac.new(machine_salt(), key.encode("utf-8"), hashlib.sha256).hexdigest()[:length]
