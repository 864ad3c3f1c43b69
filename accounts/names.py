"""Usernames that would pass for the ghost Graybeard (R8), in any case or look-alike spelling.

At a ghost table the trick lists plays by name; a player called "Graybeard"
(or "Graybeard" spelt with a Cyrillic a) could not be told from the ghost. Names are
compared by a skeleton in the spirit of Unicode TR39: NFKC, every non-ASCII
character that Unicode's confusables list gives an ASCII look-alike for
replaced by it (the list comes with confusable_homoglyphs, built from Unicode's
data), then accents, case and separators dropped.
"""

from __future__ import annotations

import re
import unicodedata

from confusable_homoglyphs import confusables
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

#: The ghost's name in every language the site has or will have (games.pages.presenter.ghost_name).
GHOST_NAMES = (
    "Graybeard",  # English, also the German quick reference (seed 004)
    "Greybeard",  # British English
    "Barbe Grise",  # French (seed 000, the rule book)
    "Graubart",  # German
    "Barbagris",  # Spanish
    "Barba Gris",
)

# Besides letters and digits a username may hold . @ + - _ (Django's validator);
# "Barbe_Grise" and "Barbe.Grise" read as "Barbe Grise".
_SEPARATORS = re.compile(r"[\s._@+\-]+")


def _without_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def skeleton(name: str) -> str:
    """What a reader sees of ``name``: equal skeletons mean names that look the same."""
    # Look-alikes before case folding: GREEK CAPITAL BETA looks like B,
    # GREEK SMALL BETA does not look like b.
    text = unicodedata.normalize("NFKC", name)
    look_alikes: dict[str, str] = {}
    for entry in confusables.is_confusable(text, greedy=True) or []:
        char = entry["character"]
        if char.isascii():
            continue  # ASCII reads as itself
        for glyph in entry["homoglyphs"]:
            plain = _without_accents(glyph["c"])
            if plain.isascii():
                look_alikes[char] = plain
                break
    text = "".join(look_alikes.get(char, char) for char in text)
    # "Gráybeard" is still Graybeard to a reader skimming a trick: accents are dropped too.
    text = unicodedata.normalize("NFKC", _without_accents(text)).casefold()
    return _SEPARATORS.sub("", text)


_RESERVED = frozenset(skeleton(name) for name in GHOST_NAMES)

#: What the computer players are called in every language, with or without a number
#: (games.computer.players: "Computer 2"); the accounts they sit with are "computer-N".
COMPUTER_WORDS = ("computer", "ordinateur", "ordenador", "computadora")
_COMPUTER = re.compile(rf"({'|'.join(COMPUTER_WORDS)})[0-9]*")


def is_ghost_name(name: str) -> bool:
    return skeleton(name) in _RESERVED


def is_computer_name(name: str) -> bool:
    return _COMPUTER.fullmatch(skeleton(name)) is not None


def is_reserved(name: str) -> bool:
    return is_ghost_name(name) or is_computer_name(name)


def validate_not_reserved(value: str) -> None:
    """A username validator (the model's field): the ghost's and the computer players'
    names are not for people."""
    if is_ghost_name(value):
        raise ValidationError(
            _("“%(name)s” is the ghost's name at a two-player table; please choose another."),
            code="reserved",
            params={"name": value},
        )
    if is_computer_name(value):
        raise ValidationError(
            _("“%(name)s” is how computer players are called; please choose another."),
            code="reserved",
            params={"name": value},
        )
