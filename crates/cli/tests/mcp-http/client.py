"""An MCP client on the official Python SDK's streamable HTTP transport, for
crates/cli/tests/mcp.rs: connects with a bearer token, lists the tools, calls
find_implementations, subscribes to mcursor://index, moves the index generation
(an edit and `mcursor index`), and waits for notifications/resources/updated.
Prints one JSON object per step on stdout.

usage: client.py URL TOKEN MCURSOR_BINARY REPOSITORY
"""

import json
import subprocess
import sys
import warnings

import anyio
import mcp.types as types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


def say(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


async def main(url, token, binary, repository):
    updated = anyio.Event()

    async def on_message(message):
        message = getattr(message, "root", message)
        if isinstance(message, types.ResourceUpdatedNotification):
            say("notified", uri=message.params.uri)
            updated.set()

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http:
        async with streamable_http_client(url, http_client=http) as (read, write, *_):
            async with ClientSession(read, write, message_handler=on_message) as session:
                init = await session.initialize()
                say("initialized", server=init.server_info.name)
                tools = await session.list_tools()
                say("tools", names=sorted(t.name for t in tools.tools))
                result = await session.call_tool("find_implementations", {"target": "Runner"})
                say(
                    "implementations",
                    text="".join(c.text for c in result.content if c.type == "text"),
                    error=bool(result.is_error),
                )
                # The 2025 protocol's subscription, which this server speaks.
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    await session.subscribe_resource("mcursor://index")
                say("subscribed")
                with open(f"{repository}/src/lib.rs", "a") as source:
                    source.write("\npub fn added_over_http() {}\n")
                subprocess.run([binary, "-C", repository, "index"], check=True, capture_output=True)
                with anyio.fail_after(15):
                    await updated.wait()
                found = await session.call_tool("find_symbol", {"name": "added_over_http"})
                say("found", text="".join(c.text for c in found.content if c.type == "text"))


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:5])
