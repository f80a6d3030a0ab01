"""How a text becomes the vectors it is stored and searched by, without I/O: its BM25 sparse vector (``sparse``),
the rarity of the embedder's tokens in a scope (``token_stats``), long texts embedded a passage at a time
(``passages``) and a message's dense vector mixed with its neighbours' (``dense_context``)."""
