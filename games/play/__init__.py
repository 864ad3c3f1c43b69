"""Playing a table: its game state, the actions that change it (one per intent, each in
one transaction), their outcomes, and the views that call them."""
