from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # An action's outcome reaches the open table pages (games.play.outcome.committed),
        # and so do a renamed user and a new language (signals).
        from games.live import broadcast, resync  # noqa: F401
