"""Compile locale/*/LC_MESSAGES/*.po into the .mo files Django reads, in Python.

GNU gettext (msgfmt) may be missing on a fresh machine or in the deployment
image, so the catalogues are compiled with Babel instead (``manage.py
compile_catalogues``, run by ``make serve``, ``make test`` and deploy/Dockerfile).
The .mo files are build output: never committed (.gitignore).

A catalogue that is not complete does not compile: a fuzzy entry, an empty
translation or a placeholder that does not match its msgid is an error, so no
English string slips onto a translated page unnoticed.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po


@dataclass(frozen=True)
class Problem:
    path: Path
    msgid: str
    what: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what}: {self.msgid!r}"


def catalogue_paths(locale_dir: Path) -> list[Path]:
    return sorted(locale_dir.glob("*/LC_MESSAGES/*.po"))


def read_catalogue(path: Path) -> Catalog:
    language = path.parent.parent.name
    with path.open("rb") as po:
        return read_po(po, locale=language)


def _is_empty(message: Message) -> bool:
    strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
    return not all(strings)


def problems(path: Path, catalog: Catalog | None = None) -> list[Problem]:
    """Everything that keeps ``path`` from being a complete catalogue."""
    catalog = catalog if catalog is not None else read_catalogue(path)
    found: list[Problem] = []
    if catalog.fuzzy:
        found.append(Problem(path, "", "the header is fuzzy"))
    for message in catalog:
        if not message.id:
            continue  # the header
        msgid = message.id if isinstance(message.id, str) else message.id[0]
        if message.fuzzy:
            found.append(Problem(path, msgid, "fuzzy"))
        if _is_empty(message):
            found.append(Problem(path, msgid, "no translation"))
        for _message, errors in [(message, message.check(catalog))]:
            found.extend(Problem(path, msgid, str(error)) for error in errors)
    return found


def compile_catalogue(path: Path) -> Path:
    """Write ``path``'s .mo beside it (atomically: parallel test workers may race)."""
    catalog = read_catalogue(path)
    target = path.with_suffix(".mo")
    fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".mo.tmp")
    try:
        with os.fdopen(fd, "wb") as mo:
            write_mo(mo, catalog, use_fuzzy=False)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def stale(path: Path) -> bool:
    target = path.with_suffix(".mo")
    return not target.exists() or target.stat().st_mtime < path.stat().st_mtime


def compile_all(locale_dir: Path, *, only_stale: bool = False) -> list[Path]:
    """Compile every catalogue under ``locale_dir``; ValueError listing what is wrong."""
    paths = catalogue_paths(locale_dir)
    wrong = [problem for path in paths for problem in problems(path)]
    if wrong:
        raise ValueError("\n".join(map(str, wrong)))
    return [compile_catalogue(path) for path in paths if not only_stale or stale(path)]
