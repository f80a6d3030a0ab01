"""Task memory's wing: trajectories and tool calls checked and rendered, experiences recalled for a new task, and
ReMe's experience libraries read and written (docs/task-memory.md). The engine twins call these; the LLM's part is in
``consolidation/``."""
