from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # A renamed user or a new language reaches the open table pages (signals).
        from . import resync  # noqa: F401
