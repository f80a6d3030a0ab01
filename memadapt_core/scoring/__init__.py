"""What a record scores, without I/O: its relevance to a query (``ranking``: fusion of dense and sparse candidates,
the boosts, the relevance floor) and its heat (``heat``: how often and how lately it was used)."""
