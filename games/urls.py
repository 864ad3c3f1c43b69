from django.urls import path, re_path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules_page, name="rules"),
    path("tables/new/", views.create_table, name="create_table"),
    # Invite tokens are URL-safe base64 (models.new_invite_token); anything else is a 404.
    re_path(r"^join/(?P<token>[A-Za-z0-9_-]{1,64})/$", views.join, name="join"),
    path("tables/<int:table_id>/", views.table, name="table"),
    path("tables/<int:table_id>/start/", views.start_game, name="start_game"),
    path("tables/<int:table_id>/bid/", views.place_bid, name="place_bid"),
    path("tables/<int:table_id>/play/", views.play_card, name="play_card"),
    path("tables/<int:table_id>/next-trick/", views.next_trick, name="next_trick"),
    path("tables/<int:table_id>/next-round/", views.next_round, name="next_round"),
    path("tables/<int:table_id>/chat/", views.post_chat, name="post_chat"),
    path("tables/<int:table_id>/invite/", views.rotate_invite, name="rotate_invite"),
    path("tables/<int:table_id>/leave/", views.leave_table, name="leave_table"),
]
