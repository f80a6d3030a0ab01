"""The MCP door of the service: the memory tools over one ``AsyncMemory`` (``tools``), the task-memory tools
(``task_tools``) and the rule that an MCP session belongs to the token that opened it (``sessions``)."""
