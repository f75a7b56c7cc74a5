"""The OpenAPI document, generated from the same marshmallow schemas that validate, and from what each
registered engine declares (orders, sign-up fields, views, results, hints, outcomes), so a game type is
typed the day it is registered and nothing published can drift from the code that uses it.

Every game type gets its own tag and typed operations under ``/v1/game-types/{name}/games/...`` (read the
game with a typed state and result, read its log with typed events, join with its sign-up fields, send one of
its orders: a union of its order schemas discriminated by ``type``); the generic operations under ``/v1/games``
serve every type.  Operations a token is optional for declare no ``security`` (so a generated client calls them
anonymously) and say in their description that a bearer token shows more.

Modules: ``parts`` (building blocks), ``games`` (a game type's components), ``events`` (the log's events, generic
and per game type), ``paths`` (operations and links), ``live`` (streams and webhooks), ``document`` (assembly).
"""
from service.openapi.document import describe, document, players, register_openapi
from service.openapi.games import join_json_schema, options_json_schema
from service.openapi.parts import pascal

__all__ = ["describe", "document", "join_json_schema", "options_json_schema", "pascal", "players",
           "register_openapi"]
