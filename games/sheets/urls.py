from django.urls import path, re_path

from . import views

T = r"(?P<token>[A-Za-z0-9_-]{1,32})"

urlpatterns = [
    path("new/", views.new_sheet, name="new_sheet"),
    re_path(rf"^{T}/$", views.sheet_page, name="sheet"),
    re_path(rf"^{T}/bids/$", views.post_bids, name="sheet_bids"),
    re_path(rf"^{T}/results/$", views.post_results, name="sheet_results"),
    re_path(
        rf"^{T}/rounds/(?P<number>[0-9]{{1,2}})/(?P<kind>bids|results)/$",
        views.correct_round,
        name="sheet_correct",
    ),
    re_path(rf"^{T}/sheet\.csv$", views.sheet_csv, name="sheet_csv"),
    re_path(rf"^{T}/sheet\.json$", views.sheet_json, name="sheet_json"),
]
