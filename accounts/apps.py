from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from . import language  # noqa: F401  (connects the user_logged_in receiver)
        from .moderators import on_post_migrate

        # Not sender=self: accounts migrates before games, whose permissions the
        # group holds (accounts.moderators says why a handler and not a migration).
        post_migrate.connect(on_post_migrate, dispatch_uid="accounts.moderators")
