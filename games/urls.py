from django.urls import path, re_path

from games.after import views as postgame_views
from games.play import views

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules_page, name="rules"),
    path("tables/new/", views.create_table, name="create_table"),
    path("tables/practice/", views.start_practice, name="start_practice"),
    # Invite tokens are URL-safe base64 (models.new_invite_token); anything else is a 404.
    re_path(r"^join/(?P<token>[A-Za-z0-9_-]{1,64})/$", views.join, name="join"),
    path("tables/<int:table_id>/", views.table, name="table"),
    path("tables/<int:table_id>/start/", views.start_game, name="start_game"),
    path("tables/<int:table_id>/bid/", views.place_bid, name="place_bid"),
    path("tables/<int:table_id>/play/", views.play_card, name="play_card"),
    path("tables/<int:table_id>/next-card/", views.preselect_card, name="preselect_card"),
    path("tables/<int:table_id>/next-trick/", views.next_trick, name="next_trick"),
    path("tables/<int:table_id>/next-round/", views.next_round, name="next_round"),
    path("tables/<int:table_id>/chat/", views.post_chat, name="post_chat"),
    path("tables/<int:table_id>/invite/", views.rotate_invite, name="rotate_invite"),
    path("tables/<int:table_id>/leave/", views.leave_table, name="leave_table"),
    # Computer players (issue 48)
    path("tables/<int:table_id>/computers/add/", views.add_computer, name="add_computer"),
    path("tables/<int:table_id>/computers/remove/", views.remove_computer, name="remove_computer"),
    path("tables/<int:table_id>/hand-over/", views.hand_over, name="hand_over"),
    path("tables/<int:table_id>/take-back/", views.take_back, name="take_back"),
    # After the game (issue 14)
    path(
        "tables/<int:table_id>/rematch/propose/",
        postgame_views.propose_rematch,
        name="propose_rematch",
    ),
    path(
        "tables/<int:table_id>/rematch/accept/",
        postgame_views.accept_rematch,
        name="accept_rematch",
    ),
    path(
        "tables/<int:table_id>/rematch/decline/",
        postgame_views.decline_rematch,
        name="decline_rematch",
    ),
    path("tables/<int:table_id>/replay/", postgame_views.replay_game, name="replay"),
    path("tables/<int:table_id>/scores.csv", postgame_views.export_scores, name="export_scores"),
    path("tables/<int:table_id>/record.json", postgame_views.export_record, name="export_record"),
    # Any username reverses (a name made outside the sign-up form must not break a page).
    path("players/<str:username>/", postgame_views.player, name="player"),
]
