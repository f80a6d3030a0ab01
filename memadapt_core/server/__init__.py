"""The memadapt service: MCP over stdio or HTTP, and the JSON API, over one engine per process.

Imported only by ``memadapt mcp`` and ``memadapt serve`` (it needs the ``mcp`` extra), never by
``import memadapt_core``.
"""

from .run import run_stdio, serve

__all__ = ["run_stdio", "serve"]
