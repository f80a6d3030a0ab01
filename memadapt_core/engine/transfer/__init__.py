"""Export and import: JSON Lines read and written a batch at a time (``jsonl``: the line codec and the streaming
loops) and the twins' calls over them (``twins``: ``AsyncTransfers`` and ``Transfers``)."""
