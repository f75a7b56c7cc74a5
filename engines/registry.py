"""Every game type the service runs, by name and version."""
from __future__ import annotations

import threading

from engines.contract import Engine

_ENGINES: dict[str, dict[str, Engine]] = {}

# Each package registers its engine on import; a game not yet written is skipped.
GAME_PACKAGES = ("extreme_ways", "sxyzm_cyclone", "golden_strider", "strategic_aspect", "elemental_tag")


def register(engine: Engine) -> Engine:
    _ENGINES.setdefault(engine.meta.name, {})[engine.meta.version] = engine
    return engine


_loaded = False
_loading = threading.Lock()


def _load() -> None:
    """Import every game package once, before anyone reads the registry (an engine
    imported directly must not hide the rest, and threads must not see it half-filled)."""
    global _loaded
    if _loaded:
        return
    with _loading:
        if _loaded:
            return
        for optional in GAME_PACKAGES:
            try:
                __import__(f"engines.{optional}")
            except ModuleNotFoundError as exc:
                if exc.name != f"engines.{optional}":
                    raise
        _loaded = True


def names() -> list[str]:
    _load()
    return sorted(_ENGINES)


def latest(name: str) -> Engine | None:
    _load()
    versions = _ENGINES.get(name)
    if not versions:
        return None
    return versions[max(versions, key=_version_key)]


def get(name: str, version: str | None = None) -> Engine | None:
    _load()
    if version is None:
        return latest(name)
    return _ENGINES.get(name, {}).get(version)


def versions(name: str) -> list[str]:
    _load()
    return sorted(_ENGINES.get(name, {}), key=_version_key)


def all_latest() -> list[Engine]:
    return [e for e in (latest(n) for n in names()) if e is not None]


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))
