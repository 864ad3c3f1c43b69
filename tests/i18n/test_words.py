"""Issue 13: the rules engine's explanations in each language (games.pages.words).

games.rules stays Django-free; games.pages.words gives it gettext and the site's card
names. R6 (the highest of the lead suit wins, other suits never do), R5 (the lead)
and R9 (a bonus) read in French, German and Spanish with the seeds' card names.
"""

from __future__ import annotations

import pytest
from django.utils import translation

from games import rules
from games.pages.words import table_words

PLAYS = [rules.Play(rules.card(code)) for code in ("G5", "G12", "Y14")]
EXPECTED = {
    "fr": (
        [
            "La plus forte en vert gagne : Vert 12",
            "Les autres couleurs ne gagnent jamais : Jaune 14",
        ],
        "Couleur demandée : vert",
    ),
    "de": (
        ["Die höchste Karte in Grün gewinnt: Grün 12", "Andere Farben gewinnen nie: Gelb 14"],
        "Ausgespielt: Grün",
    ),
    "es": (
        ["Gana la carta más alta en verde: Verde 12", "Los otros palos nunca ganan: Amarillo 14"],
        "Palo de salida: verde",
    ),
    "en": (["Highest green wins: Green 12", "Other suits never win: Yellow 14"], "Lead: green"),
}


@pytest.mark.parametrize("language", EXPECTED)
def test_r5_r6_explanations_read_in_the_language(language: str) -> None:
    with translation.override(language):
        words = table_words(player=lambda position: ("anne", "bert", "cleo")[position])
        reason = rules.explain_trick(PLAYS).reason
        assert rules.describe_trick(reason, words) == EXPECTED[language][0]
        assert rules.describe_lead(rules.lead_state(PLAYS), words) == EXPECTED[language][1]


@pytest.mark.parametrize(
    ("language", "mermaid"), [("fr", "Sirène"), ("de", "Meerjungfrau"), ("es", "Sirena")]
)
def test_r7_kraken_sentence_names_the_player_in_the_language(language: str, mermaid: str) -> None:
    plays = [rules.Play(rules.card(code)) for code in ("MER1", "KRA", "G3")]
    with translation.override(language):
        words = table_words(player=lambda position: ("anne", "bert", "cleo")[position])
        sentences = rules.describe_trick(rules.explain_trick(plays).reason, words)
        assert words.card_name(plays[0]) == mermaid
    assert "Kraken" in sentences[0] and "anne" in sentences[0]
