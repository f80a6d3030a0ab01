"""The no-I/O half of each call, shared by both twins: ``writes`` (add), ``reads`` (search, list, count; list
cursors), ``updates`` (update, get, history) and ``chat`` (answer)."""
