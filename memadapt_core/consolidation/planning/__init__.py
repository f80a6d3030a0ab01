"""The no-I/O half of each consolidation step: the question put to the LLM, its answer's schema, and the plan of
store operations built from the answer (``plan.py``). The workers' steps (``steps.py``) call these."""
