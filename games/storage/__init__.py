"""How the game's rows are read and written fast: compiled reads and writes, an action's
transaction in few round trips, and the game state kept between moves."""
