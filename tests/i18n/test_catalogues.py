"""Issue 13: four complete catalogues that compile on a machine without GNU gettext.

Checks the committed locale/*/LC_MESSAGES/django.po: no fuzzy and no empty entry,
placeholders that match their msgid, the right plural forms, and a translation for
every sentence of the rules engine (games.rules.wording, R5-R9 explanations);
then compiles them with Babel (config.catalogues) into a scratch directory and
reads them back through gettext.
"""

from __future__ import annotations

import gettext
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import translation

from config.catalogues import catalogue_paths, compile_all, problems, read_catalogue
from games.pages import regions_messages, rules_messages

LOCALE = Path(settings.LOCALE_PATHS[0])
LANGUAGES = [code for code, _name in settings.LANGUAGES]
PLURAL_FORMS = {
    "fr": "nplurals=2; plural=(n > 1);",
    "en": "nplurals=2; plural=(n != 1);",
    "de": "nplurals=2; plural=(n != 1);",
    "es": "nplurals=2; plural=(n != 1);",
}
#: The only msgids a language writes exactly as English does: names of cards and
#: the game, and words the languages share. Anything else left equal to its msgid
#: is an untranslated entry.
SAME_AS_ENGLISH = {
    "fr": {
        "Options", "Pirate", "Skull King", "Kraken", "Date", "Table", "Score", "Place",
        "Pages", "Base", "Bonus", "Total", "total", "base", "bonus", "Message", "Actions",
        "scores", "%(points)s points", "%(suit)s %(rank)d", "%(suit)s %(rank)s", "phase",
        "version", "table", "tables", "Scores", "Normal", "1 minute", "2 minutes",
    },
    "de": {
        "Skull King", "Kraken", "Tigress", "Bonus", "Lobby", "Chat", "offline",
        "%(suit)s %(rank)d", "%(suit)s %(rank)s", "%(card)s: +%(points)d",
        "%(user)s: %(total)s in %(round)s", "Normal", "Computer %(n)s", "Fair.",
    },
    "es": {
        "Skull King", "Kraken", "Escape", "Chat", "Base", "base", "Total", "total",
        "%(suit)s %(rank)d", "%(suit)s %(rank)s", "%(card)s: +%(points)d", "Normal",
    },
}  # fmt: skip


def test_there_is_one_catalogue_per_language() -> None:
    found = {path.parent.parent.name for path in catalogue_paths(LOCALE)}
    assert found == set(LANGUAGES)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_fuzzy_no_empty_entry_and_matching_placeholders(language: str) -> None:
    path = LOCALE / language / "LC_MESSAGES" / "django.po"
    assert problems(path) == []
    assert "#, fuzzy" not in path.read_text()


@pytest.mark.parametrize("language", LANGUAGES)
def test_plural_forms_are_the_language_s_own(language: str) -> None:
    path = LOCALE / language / "LC_MESSAGES" / "django.po"
    assert f'"Plural-Forms: {PLURAL_FORMS[language]}\\n"' in path.read_text()
    plurals = [m for m in read_catalogue(path) if m.id and not isinstance(m.id, str)]
    assert plurals, "the site has plural messages (cards left, tricks won)"
    for message in plurals:
        assert len(message.string) == 2 and all(message.string), message.id


@pytest.mark.parametrize("language", ["fr", "de", "es"])
def test_only_the_listed_words_are_written_as_in_english(language: str) -> None:
    catalog = read_catalogue(LOCALE / language / "LC_MESSAGES" / "django.po")
    same = {m.id for m in catalog if m.id and isinstance(m.id, str) and m.string == m.id}
    assert same == SAME_AS_ENGLISH[language]


def test_the_rules_engine_sentences_are_extracted_up_to_date() -> None:
    """games/pages/rules_messages_generated.py is what games.rules.wording holds today."""
    assert rules_messages.GENERATED.read_text() == rules_messages.source()


def test_the_table_regions_sentences_are_extracted_up_to_date() -> None:
    """games/pages/regions_messages_generated.py holds what the Jinja2 regions say today."""
    assert regions_messages.GENERATED.read_text() == regions_messages.source()
    # Both kinds of message are found: the seat list's "N cards left" is a plural.
    assert "Your hand" in regions_messages.messages()
    assert ("%(n)s card left", "%(n)s cards left") in regions_messages.messages()


@pytest.mark.parametrize("language", ["fr", "de", "es"])
def test_every_table_region_sentence_is_translated(language: str) -> None:
    catalog = read_catalogue(LOCALE / language / "LC_MESSAGES" / "django.po")
    for text in regions_messages.messages():
        message = catalog.get(text if isinstance(text, str) else text[0])
        assert message is not None and message.string, text
        if isinstance(text, tuple):
            assert message.id == text and all(message.string), text
        elif text not in SAME_AS_ENGLISH[language]:
            assert message.string != text, text


@pytest.mark.parametrize("language", ["fr", "de", "es"])
def test_every_rules_engine_sentence_is_translated(language: str) -> None:
    catalog = read_catalogue(LOCALE / language / "LC_MESSAGES" / "django.po")
    for sentence in rules_messages.sentences():
        message = catalog.get(sentence)
        assert message is not None and message.string, sentence
        if sentence not in SAME_AS_ENGLISH[language]:
            assert message.string != sentence


def test_the_catalogues_compile_in_python_and_read_back(tmp_path: Path) -> None:
    copy = tmp_path / "locale"
    shutil.copytree(LOCALE, copy, ignore=shutil.ignore_patterns("*.mo"))
    compiled = compile_all(copy)
    assert len(compiled) == len(LANGUAGES)
    french = gettext.translation("django", localedir=copy, languages=["fr"])
    assert french.gettext("Next trick") == "Pli suivant"
    assert french.gettext("Next round") == "Manche suivante"
    assert french.gettext("Ghost player (Graybeard)") == "Joueur fantôme (Barbe Grise)"
    assert french.ngettext("%(n)s trick", "%(n)s tricks", 1) == "%(n)s pli"
    assert french.ngettext("%(n)s trick", "%(n)s tricks", 0) == "%(n)s pli"  # French: 0 is singular
    german = gettext.translation("django", localedir=copy, languages=["de"])
    assert german.ngettext("%(n)s trick", "%(n)s tricks", 0) == "%(n)s Stiche"


def test_a_fuzzy_entry_refuses_to_compile(tmp_path: Path) -> None:
    copy = tmp_path / "locale"
    shutil.copytree(LOCALE, copy, ignore=shutil.ignore_patterns("*.mo"))
    po = copy / "de" / "LC_MESSAGES" / "django.po"
    po.write_text(po.read_text().replace('msgid "Next trick"', '#, fuzzy\nmsgid "Next trick"', 1))
    with pytest.raises(ValueError, match="fuzzy"):
        compile_all(copy)


def test_the_management_command_compiles_the_site_s_catalogues() -> None:
    call_command("compile_catalogues")
    for language in LANGUAGES:
        assert (LOCALE / language / "LC_MESSAGES" / "django.mo").exists()


def test_card_names_in_each_language() -> None:
    """R1's card names as the seeds write them."""
    from games.templatetags.cards import card_name

    expected = {
        "fr": ("Sirène", "Baleine blanche", "Fuite", "Vert 12"),
        "de": ("Meerjungfrau", "Weißer Wal", "Flucht", "Grün 12"),
        "es": ("Sirena", "Ballena Blanca", "Escape", "Verde 12"),
        "en": ("Mermaid", "White Whale", "Escape", "Green 12"),
    }
    for language, names in expected.items():
        with translation.override(language):
            assert (
                card_name("MER1"),
                card_name("WHA"),
                card_name("ESC1"),
                card_name("G12"),
            ) == names
