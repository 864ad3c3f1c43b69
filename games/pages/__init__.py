"""What a table page shows: template contexts from a game state (presenter), the regions'
templates, the engine's explanations and sentences in the reader's language."""
