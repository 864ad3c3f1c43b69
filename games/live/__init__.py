"""The live table, everything after an action commits: which regions an outcome changes
for each page (frames, parts, what pages hold), their delivery through the channel
layer (broadcast), presence, and the sockets (consumers, push, routing, resync)."""
