from django.contrib import admin
from django.urls import include, path

from config.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("sheets/", include("games.sheets.urls")),  # seed 001: the score sheet
    path("", include("games.urls")),
]
