"""A public region's parts: what a move pushes when only some of them changed.

A region such as the seat list, the score sheet or the earlier tricks holds
elements that each stand alone: one seat, one round's row, one past trick. The
templates mark them ``data-part``, with an id and the region's ``data-version``.
A move usually changes one or two of them. When everything around them (the
region's *skeleton*) reads as in the render the pages already hold, the frame
carries only the parts that differ, each swapped by its id (``hx-swap-oob``,
idiomorph), instead of the whole region.

"The render the pages already hold" is the one this process sent last for the
region (games.live.frames keeps it on the table's GameState, which lives on only
while no other process moves the table: games.storage.state_cache). A page one version
behind holds exactly it: every region a frame leaves out is carried on
(static/js/live.js), and a page further behind asks for a snapshot.

A part may hold parts of its own (a past trick holds the sentence saying whether
its bonus still counts, which a later trick can change): each is kept with the
parts inside it blanked, and a part that goes whole carries the ones inside it.

Parts are found by scanning the HTML the templates made, not by parsing HTML in
general: a part is an element whose opening tag holds `` data-part``, up to the
end tag that balances it. tests/games/test_parts.py checks every region's parts.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

#: A part's mark in its opening tag. The templates write every attribute after a space
#: (never at the start of a line), and a literal is found many times faster than a
#: pattern that starts with ``\s``: a region is split on every move.
_MARK = " data-part"
_TAG = re.compile(r"<([a-z0-9]+)\b[^>]*>")
_ID = re.compile(r'\sid="([^"]+)"')
_VERSION = re.compile(r' data-version="\d+"')


@dataclass(frozen=True)
class Split:
    """A rendered region: its parts by id (each with the parts inside it blanked), and
    the rest with each part blanked."""

    skeleton: str
    parts: dict[str, str]
    #: part id -> the id of the part that holds it (parts held by the region itself: absent)
    inside: dict[str, str] = field(default_factory=dict)


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
    found = Split("", {}, {})
    skeleton = _blank(_VERSION.sub("", html), found, None)
    return Split(skeleton, found.parts, found.inside)


def _blank(html: str, found: Split, holder: str | None) -> str:
    """``html`` with each part in it blanked; the parts (and theirs) go into ``found``."""
    kept: list[str] = []
    at = 0
    while (part := _next_part(html, at)) is not None:
        tag = part.group(1)
        ident = _ID.search(part.group(0))
        if ident is None:
            raise ValueError(f"a <{tag} data-part> has no id")
        name = ident.group(1)
        end = end_of(html, tag, part.end())
        kept += [html[at : part.start()], f"\x00{name}\x00"]
        found.parts[name] = ""  # in page order: before the parts inside it
        if holder is not None:
            found.inside[name] = holder
        found.parts[name] = part.group(0) + _blank(html[part.end() : end], found, name)
        at = end
    kept.append(html[at:])
    return "".join(kept)


def _next_part(html: str, at: int) -> re.Match[str] | None:
    """The next opening tag from ``at`` that holds `` data-part`` as an attribute."""
    while (mark := html.find(_MARK, at)) >= 0:
        at = mark + len(_MARK)
        if html[at : at + 1] not in (" ", ">", "\n"):
            continue  # another attribute's name (data-parts, data-part-of)
        start = html.rfind("<", 0, mark)
        if start >= 0 and html.find(">", start, mark) < 0:
            opening = _TAG.match(html, start)
            if opening is not None:
                return opening
    return None


def changed_parts(before: Split, after: Split) -> list[str] | None:
    """The ids of ``after``'s parts that differ from ``before``'s, in page order (a part
    inside one that goes whole goes with it); None when anything else differs (the
    whole region must go)."""
    if before.skeleton != after.skeleton:
        return None
    changed = [ident for ident, part in after.parts.items() if before.parts.get(ident) != part]
    going = set(changed)
    return [ident for ident in changed if not _holders(after, ident) & going]


def _holders(region: Split, ident: str) -> set[str]:
    holders = set()
    while (ident := region.inside.get(ident, "")) != "":
        holders.add(ident)
    return holders


def pushed(region: Split, ids: list[str], version: int) -> str:
    """The parts ``ids`` of a split region, each marked to be swapped alone by its id
    (``hx-swap-oob``), with the ``version`` of the frame that carries it.

    The mark ``data-part`` is the server's (to split a render); the page never reads
    it, so a pushed part goes without its own (the parts inside it keep theirs), and
    without a line break between parts (each is a block: a list item, a table row).

    Each part goes inside a ``<template>``: a frame is parsed as HTML5 parses a
    fragment in a <body>, where a ``<tr>`` (a score sheet's row) outside its table
    is dropped, and a template's content keeps any element. htmx swaps the
    out-of-band elements it finds in a template (static/js/live.js sends socket
    frames through the same swap)."""
    marked = f' hx-swap-oob="morph" data-version="{version}"'
    return "".join(
        f"<template>{_whole(region, ident, version).replace(' data-part', marked, 1)}</template>"
        for ident in ids
    )


def _whole(region: Split, ident: str, version: int) -> str:
    """A part with the parts inside it put back, each with ``version``."""
    html = region.parts[ident]
    for inner, holder in region.inside.items():
        if holder == ident:
            # Its first " data-part" is its own opening tag's: the rest is escaped text.
            nested = _whole(region, inner, version).replace(
                " data-part", f' data-part data-version="{version}"', 1
            )
            html = html.replace(f"\x00{inner}\x00", nested, 1)
    return html


_OPENING = re.compile(r"<([a-z0-9]+)\b[^>]*>")


def elements(html: str) -> list[tuple[str, str]]:
    """The top-level elements of a frame, (id, HTML) each: what htmx swaps by id (the
    element inside a part's ``<template>``, see ``pushed``)."""
    found: list[tuple[str, str]] = []
    at = 0
    while (opening := _OPENING.search(html, at)) is not None:
        end = end_of(html, opening.group(1), opening.end())
        if opening.group(1) == "template":
            found += elements(html[opening.end() : end - len("</template>")])
        else:
            ident = _ID.search(opening.group(0))
            found.append((ident.group(1) if ident else "", html[opening.start() : end]))
        at = end
    return found
