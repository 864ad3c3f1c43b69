from django.apps import AppConfig


class SheetsConfig(AppConfig):
    name = "games.sheets"
    label = "sheets"
    default_auto_field = "django.db.models.BigAutoField"
