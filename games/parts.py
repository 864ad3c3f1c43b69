"""A public region's parts: what a move pushes when only some of them changed.

A region such as the seat list, the score sheet or the earlier tricks holds
elements that each stand alone: one seat, one round's row, one past trick. The
templates mark them ``data-part``, with an id and the region's ``data-version``.
A move usually changes one or two of them. When everything around them (the
region's *skeleton*) reads as in the render the pages already hold, the frame
carries only the parts that differ, each swapped by its id (``hx-swap-oob``,
idiomorph), instead of the whole region.

"The render the pages already hold" is the one this process sent last for the
region (games.frames keeps it on the table's GameState, which lives on only
while no other process moves the table: games.state_cache). A page one version
behind holds exactly it: every region a frame leaves out is carried on
(static/js/live.js), and a page further behind asks for a snapshot.

Parts are found by scanning the HTML the templates made, not by parsing HTML in
general: a part is an element whose opening tag holds `` data-part``, up to the
end tag that balances it. tests/games/test_parts.py checks every region's parts.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_PART = re.compile(r"<([a-z0-9]+)\b[^>]*\sdata-part(?=[\s>])[^>]*>")
_ID = re.compile(r'\sid="([^"]+)"')
_VERSION = re.compile(r'\sdata-version="\d+"')


@dataclass(frozen=True)
class Split:
    """A rendered region: its parts by id, and the rest with each part blanked."""

    skeleton: str
    parts: dict[str, str]


@functools.cache
def _opening(tag: str) -> re.Pattern[str]:
    return re.compile(rf"<{tag}[\s>]")


def end_of(html: str, tag: str, start: int) -> int:
    """Where the element whose opening tag ends at ``start`` closes (after its end tag)."""
    opening, closing = _opening(tag), f"</{tag}>"
    depth, at = 1, start
    while depth:
        close = html.find(closing, at)
        if close < 0:
            raise ValueError(f"<{tag} data-part> is never closed")
        inner = opening.search(html, at, close)
        if inner is not None:
            depth, at = depth + 1, inner.end()
        else:
            depth, at = depth - 1, close + len(closing)
    return at


def split(html: str) -> Split:
    """The parts of a rendered region and its skeleton (versions left out of both)."""
    html = _VERSION.sub("", html)
    parts: dict[str, str] = {}
    skeleton: list[str] = []
    at = 0
    while (found := _PART.search(html, at)) is not None:
        tag = found.group(1)
        ident = _ID.search(found.group(0))
        if ident is None:
            raise ValueError(f"a <{tag} data-part> has no id")
        end = end_of(html, tag, found.end())
        skeleton += [html[at : found.start()], f"\x00{ident.group(1)}\x00"]
        parts[ident.group(1)] = html[found.start() : end]
        at = end
    skeleton.append(html[at:])
    return Split("".join(skeleton), parts)


def changed_parts(before: Split, after: Split) -> list[str] | None:
    """The ids of ``after``'s parts that differ from ``before``'s, in page order;
    None when anything else differs (the whole region must go)."""
    if before.skeleton != after.skeleton:
        return None
    return [ident for ident, part in after.parts.items() if before.parts.get(ident) != part]


def pushed(region: Split, ids: list[str], version: int) -> str:
    """The parts ``ids`` of a split region, each marked to be swapped alone by its id
    (``hx-swap-oob``), with the ``version`` of the frame that carries it."""
    marked = f' data-part hx-swap-oob="morph" data-version="{version}"'
    return "\n".join(region.parts[ident].replace(" data-part", marked, 1) for ident in ids)


_OPENING = re.compile(r"<([a-z0-9]+)\b[^>]*>")


def elements(html: str) -> list[tuple[str, str]]:
    """The top-level elements of a frame, (id, HTML) each: what htmx swaps by id."""
    found: list[tuple[str, str]] = []
    at = 0
    while (opening := _OPENING.search(html, at)) is not None:
        end = end_of(html, opening.group(1), opening.end())
        ident = _ID.search(opening.group(0))
        found.append((ident.group(1) if ident else "", html[opening.start() : end]))
        at = end
    return found
