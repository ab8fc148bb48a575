"""Cache entries only this machine made: every cache file's name is salted with a secret kept
outside the project.

A project's `.reasonboard-cache/` can arrive with the project: committed to the repository,
copied from another machine, restored by CI. A build must never trust it (PRODUCT.md,
"Untrusted checkouts"): a PointsDB made elsewhere and saved under the expected name would
publish forged ranks with `data/` untouched, since a name made from the inputs alone is
predictable. So every name is `salted`: an HMAC of what the entry depends on, keyed by 32
random bytes this user keeps in `$XDG_CACHE_HOME/reasonboard/salt` (`~/.cache/...`), never in
the project. An entry made elsewhere never has the name this build looks for, and is
ignored; it is data in any case (DuckDB, JSON, npz), never code. Where no salt can be kept
(a read-only home), each process draws its own: nothing is reused, nothing is trusted.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

_SALT: bytes | None = None


def salt_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "reasonboard" / "salt"


def machine_salt() -> bytes:
    """This user's secret, made on first use (readable by the user alone)."""
    global _SALT
    if _SALT is None:
        _SALT = _load_or_make(salt_path())
    return _SALT


def _load_or_make(path: Path) -> bytes:
    try:
        data = path.read_bytes()
        if len(data) == 32:
            return data
    except OSError:
        pass
    fresh = secrets.token_bytes(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".salt-{os.getpid()}-{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(fresh)
        try:
            os.link(tmp, path)  # the first of two builds starting at once wins; both read it
        except FileExistsError:
            pass
        finally:
            os.unlink(tmp)
        data = path.read_bytes()
        return data if len(data) == 32 else fresh
    except OSError:
        return fresh


def salted(key: str, length: int = 24) -> str:
    """The name of a cache entry for `key`: unpredictable without this machine's salt."""
    return hmac.new(machine_salt(), key.encode("utf-8"), hashlib.sha256).hexdigest()[:length]
