"""What a text says beyond its words, without I/O: the writing system it is in (``scripts``), the Chinese and
Japanese function words BM25 leaves out (``cjk_stopwords``), and the times it names (``temporal``; Chinese ones:
``temporal_zh``)."""
