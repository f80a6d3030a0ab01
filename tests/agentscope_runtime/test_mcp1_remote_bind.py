"""The service's MCP door on a non-loopback bind, under mcp 1.x (this environment's SDK)."""

from tests.server.test_remote_bind import (  # noqa: F401 - collected here, under mcp 1.x
    any_address,
    test_a_host_not_listed_is_refused_with_421_on_any_bind,
    test_a_remote_client_naming_an_allowed_host_reaches_mcp_on_any_bind,
)
