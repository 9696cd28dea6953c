"""Cached listings sent over streamable HTTP without being encoded again.

``serve`` keeps each listing's result per catalog and protocol version (see
``SkillServer._cached_listing``), but the SDK's transport encodes every answer
anew (``JSONRPCResponse.model_dump_json``): hundreds of KB of JSON per
``resources/list`` at 1,000 skills, about a fifth of the server's time under
load. Here each kept result is encoded once, by the SDK's own model, and an
answer whose result *is* that kept result — the same keys, every value the
very object kept (the SDK copies the dict, not its values) — is sent as
``{"jsonrpc":"2.0","id":<id>,"result":<the kept text>}``.

Only the final encoding is replaced: everything the transport checks before
it (session, initialization, headers, body size) runs unchanged, and so does
the way the SDK builds the HTTP response around the text. Anything that is
not recognisably a kept result — another answer, a result with a key added,
an id that is not a plain ``int`` or ``str``, a message with fields the SDK
would encode differently — takes the SDK's own path, as does every answer
when the SDK lacks the hook used (:func:`splicing_transport` returns
``None``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["EncodedListings", "splicing_transport"]

_MISSING = object()
# the frame the SDK's model gives a response whose id is 0 (checked for every
# result encoded, so a change in the SDK's encoding turns the splice off)
_HEAD = '{"jsonrpc":"2.0","id":0,"result":'
_TAIL = "}"
_DUMP_ARGS: dict[str, Any] = {"by_alias": True, "exclude_unset": True}  # the transport's encoding


def encode_result(result: dict[str, Any]) -> bytes | None:
    """The JSON text the SDK's transport writes for ``result`` inside an answer
    (``None`` when its frame is not the one expected)."""
    from mcp_types import JSONRPCResponse

    text = JSONRPCResponse(jsonrpc="2.0", id=0, result=result).model_dump_json(**_DUMP_ARGS)
    if not (text.startswith(_HEAD) and text.endswith(_TAIL)):
        return None
    return text[len(_HEAD) : -len(_TAIL)].encode()


class EncodedListings:
    """The encoded text of the listing results kept for the current catalog.

    A result is found again by the identity of its values, never by its
    content: a result made for another catalog (other objects) is never
    answered with this text. Used from the event loop only.
    """

    def __init__(self) -> None:
        # id of a result's first value -> (the result, its encoded text); the
        # result is held, so its values (and their ids) stay alive
        self._by_value: dict[int, tuple[dict[str, Any], bytes]] = {}
        #: Answers whose result was sent from the kept text (not encoded again).
        self.spliced = 0

    def clear(self) -> None:
        """Forget every kept text (the catalog changed)."""
        self._by_value = {}

    def keep(self, result: dict[str, Any], body: bytes) -> None:
        """Keep ``body``, the text :func:`encode_result` gave for ``result``."""
        if result:
            self._by_value[id(next(iter(result.values())))] = (result, body)

    def body(self, result: Any) -> bytes | None:
        """The kept text of ``result`` if it is a kept result (same keys, same objects)."""
        if type(result) is not dict or not result:
            return None
        hit = self._by_value.get(id(next(iter(result.values()))))
        if hit is None:
            return None
        kept, body = hit
        if len(kept) != len(result):
            return None
        for key, value in kept.items():
            if result.get(key, _MISSING) is not value:
                return None
        return body

    def answer(self, message: Any) -> bytes | None:
        """The whole JSON text of ``message`` when its result is a kept one, else ``None``."""
        import pydantic_core
        from mcp_types import JSONRPCResponse

        if (
            type(message) is not JSONRPCResponse
            or message.jsonrpc != "2.0"
            or message.model_fields_set != {"jsonrpc", "id", "result"}
            or message.__pydantic_extra__
            or type(message.id) not in (int, str)
        ):
            return None
        body = self.body(message.result)
        if body is None:
            return None
        head = b'{"jsonrpc":"2.0","id":' + pydantic_core.to_json(message.id) + b',"result":'
        return head + body + b"}"


class _Preencoded:
    """A response message whose ``model_dump_json`` (with the transport's
    arguments) is text already made; anything else is the message's own."""

    __slots__ = ("_data", "_listings", "_message")

    def __init__(self, message: Any, data: bytes, listings: EncodedListings) -> None:
        self._message = message
        self._data = data
        self._listings = listings

    def model_dump_json(self, **kwargs: Any) -> Any:
        if kwargs == _DUMP_ARGS:
            self._listings.spliced += 1
            return self._data
        return self._message.model_dump_json(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._message, name)


def splicing_transport(listings: EncodedListings) -> type | None:
    """A subclass of the SDK's streamable-HTTP transport whose JSON answers carrying
    a kept listing use its kept text; ``None`` when the SDK has no
    ``_create_json_response`` to hook (every answer then takes the SDK's path)."""
    from mcp.server.streamable_http import StreamableHTTPServerTransport

    if not callable(getattr(StreamableHTTPServerTransport, "_create_json_response", None)):
        return None

    class SplicingTransport(StreamableHTTPServerTransport):
        """The SDK's transport; a kept listing's answer is not encoded again."""

        def _create_json_response(self, response_message: Any, *args: Any, **kwargs: Any) -> Any:
            if response_message is not None:
                data = listings.answer(response_message)
                if data is not None:
                    response_message = _Preencoded(response_message, data, listings)
            return super()._create_json_response(response_message, *args, **kwargs)

    return SplicingTransport
