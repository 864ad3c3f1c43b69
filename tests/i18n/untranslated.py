"""Find English shown as-is on a page that should be in another language (issue 13).

The English catalogue lists every msgid of the site. A page rendered in French,
German or Spanish must not show any of them untranslated: each msgid is cut into
its literal pieces (between placeholders and HTML tags), and a piece found as a
whole phrase in the page's visible text (text nodes and the attributes people
read: aria-label, title, placeholder, alt) is an untranslated string. A msgid whose
translation is the same word ("Total", "Kraken") cannot be told apart and is
skipped; tests/i18n/test_catalogues.py keeps that list short and explicit.
"""

from __future__ import annotations

import functools
import re
from html.parser import HTMLParser

from babel.messages.pofile import read_po
from django.conf import settings

PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]|<[^>]+>")
READ_ATTRIBUTES = {"aria-label", "title", "placeholder", "alt"}
LETTERS = re.compile(r"[A-Za-z]{3,}")


def catalogue(language: str):  # type: ignore[no-untyped-def]
    path = settings.LOCALE_PATHS[0] / language / "LC_MESSAGES" / "django.po"
    with path.open("rb") as po:
        return read_po(po, locale=language)


@functools.cache
def english_pieces(language: str) -> dict[str, str]:
    """piece -> its msgid, for every msgid that ``language`` translates differently."""
    pieces: dict[str, str] = {}
    for message in catalogue(language):
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        for msgid, translated in zip(ids, strings, strict=False):
            if translated == msgid:
                continue
            for piece in PLACEHOLDER.split(msgid):
                piece = piece.strip(" .,:;!?()“”·…\n")
                if LETTERS.search(piece) and piece not in translated:
                    pieces[piece] = msgid
    return pieces


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self.skip:
            self.skip -= 1

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def untranslated(html: str, language: str, *, ignore: tuple[str, ...] = ()) -> list[str]:
    """The msgids shown untranslated in ``html`` (a page meant to be in ``language``)."""
    text = visible_text(html)
    for word in ignore:  # e.g. the players' names
        text = text.replace(word, " ")
    found = []
    for piece, msgid in english_pieces(language).items():
        if re.search(rf"(?<![\w-]){re.escape(piece)}(?![\w-])", text):
            found.append(f"{piece!r} (msgid {msgid!r})")
    return sorted(found)
