"""The OpenAPI 3.1 document of the HTTP API, served at ``/api/v1/openapi.json``."""

from __future__ import annotations

from typing import Any

from ..api import __version__

_MOVE = {
    "type": "object",
    "description": "The outcome of playing one empty cell (under gravity, the lowest empty cell of a column: "
    "`moves` lists only those, one a column that is not full). `result` and `plies` are for the player making the move "
    "(the side to move now). The lichess tablebase API gives each move's category from the other side "
    '(the side to move after the move): a move whose `result` is "win" here is "loss" there, '
    '"draw" is "draw", "loss" here is "win" there.',
    "properties": {
        "cell": {"type": "integer", "description": "flat index row * cols + col"},
        "row": {"type": "integer"},
        "col": {"type": "integer", "description": "under gravity, the column the piece is dropped in (row: where it lands)"},
        "value": {"type": "integer", "enum": [1, 0, -1], "description": "the game's value for X after the move"},
        "result": {
            "type": "string",
            "enum": ["win", "draw", "loss"],
            "description": "for the mover (the side to move before the move), under perfect play after it",
        },
        "plies": {"type": "integer", "description": "plies from the current position to the end, this move included"},
        "best": {"type": "boolean", "description": "the move reaches the position's best score"},
    },
    "required": ["cell", "row", "col", "value", "result", "plies", "best"],
}

_POSITION = {
    "type": "object",
    "description": "What `solve lookup --json` prints (Position.to_dict), with `moves` best first: wins fastest "
    "first, then draws, then losses slowest first, ties in cell order. While the game goes on: "
    '`"over": false` and `to_move`; a finished board has `"over": true` and `winner` '
    "(null for a draw) and no `to_move`. `result` is on every board, as Python's `Position.result`: for the side to move, "
    'and on a finished board for the player who would have been next (a won game reads "loss").',
    "properties": {
        "game": {"type": "string", "example": "3x3k3"},
        "code": {"type": "integer", "description": "base-3 code: sum(digit * 3**cell), digit 0 empty, 1 X, 2 O"},
        "code_str": {
            "type": "string",
            "pattern": "^[0-9]+$",
            "description": "`code` in decimal digits: exact in JavaScript, whose JSON.parse rounds a number past 2**53 (a Connect Four code can be)",
        },
        "board": {"type": "string", "example": "XO./.X./..."},
        "over": {"type": "boolean", "description": "the game has ended (a line of k, or a full board)"},
        "to_move": {"type": "string", "enum": ["X", "O"], "description": "only while the game goes on"},
        "winner": {"type": ["string", "null"], "enum": ["X", "O", None], "description": "only on a finished board: who made a line, null for a draw"},
        "value": {"type": "integer", "enum": [1, 0, -1], "description": "for X under perfect play"},
        "result": {
            "type": "string",
            "enum": ["win", "draw", "loss"],
            "description": "for the side to move, under perfect play; on a finished board, for the player who would have been next "
            '(a won game reads "loss"; under misère, where completing a line loses, "win"; a full board "draw")',
        },
        "plies": {"type": "integer", "description": "plies to the end under perfect play (win fastest, lose slowest); 0 when over"},
        "score": {"type": "integer", "description": "100-d win in d plies, 0 draw, -(100-d) loss in d plies"},
        "best_moves": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}, "description": "[row, col]"},
        "best_cells": {"type": "array", "items": {"type": "integer"}},
        "best_columns": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "only under gravity (games named ...-gravity, whose rule has `drops`): the columns of the best moves, "
            "in column order (a move is a column; the piece lands on the lowest empty cell of it, the cell in `best_cells`)",
        },
        "moves": {"type": "array", "items": {"$ref": "#/components/schemas/Move"}},
    },
    "required": ["game", "code", "code_str", "board", "over", "value", "result", "plies", "score", "best_moves", "best_cells", "moves"],
    "oneOf": [
        {"properties": {"over": {"const": False}}, "required": ["to_move"]},
        {"properties": {"over": {"const": True}}, "required": ["winner"]},
    ],
}

_MOVES = (
    "The game from the empty board, one move per ply, each written as one argument of `solve analyze`: a cell "
    "`row * cols + col` (`4`) or a row,col pair (`1,1`, `(1,1)`, `[1, 1]`). Moves are separated by spaces (`+` or "
    "`%20` in a URL) or `;`: `4 0 8`, `4;0;8`, `1,1;0,0;2,2`, `(1, 1) (0, 0)` (a move with a space inside is "
    "bracketed). A comma never separates moves: `1,1` is row 1, col 1 (cell 4), and `4,0,8` is refused. "
    "Default: no moves (the empty board)."
)

_RULE = {
    "type": "object",
    "description": "how the game is played",
    "properties": {
        "suffix": {"type": "string", "description": 'the suffix of the game\'s name: "" (normal play), "misere", "gravity", "gravity-misere"'},
        "title": {"type": "string", "description": "the rule in a few words"},
        "line_wins": {"type": "boolean", "description": "completing a line wins (false: misère, it loses)"},
        "drops": {
            "type": "boolean",
            "description": "gravity: a piece drops to the lowest empty cell of its column, so a move is a column "
            "(positions then carry `best_columns`, and a move elsewhere is refused saying where the piece would land)",
        },
    },
    "required": ["suffix", "title", "line_wins", "drops"],
}

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


_BOARD = {
    "name": "board",
    "in": "query",
    "required": False,
    "schema": {"type": "string", "default": "0"},
    "description": "a board string ('XO./.X./...', 'XO..X....', '.' '-' '_' or space for empty) or a base-3 code "
    "in ASCII digits ('88'), read as `solve lookup` reads its BOARD; "
    "default the empty board",
}

_MOVES_PARAMETER = {
    "name": "moves",
    "in": "query",
    "required": False,
    "schema": {"type": "string"},
    "description": _MOVES,
    "examples": {"cells": {"value": "4 0 8"}, "semicolons": {"value": "4;0;8"}, "row,col": {"value": "1,1;0,0;2,2"}, "brackets": {"value": "(1, 1) (0, 0)"}},
}

_ERRORS = {
    "400": _json(
        _ref("Error"),
        "the board or move list cannot be read or cannot occur (InvalidBoardError's message; under gravity "
        "a move that is not the lowest empty cell of its column, naming the cell the piece would land on)",
    ),
    "404": _json(_ref("Error"), "the game is not served: the message names the `solve build` command"),
    "414": _json(_ref("Error"), "the query string is too long"),
}
"""The errors of every GET endpoint that reads a game (and a board or moves)."""

_CACHED = {
    "ETag": {"schema": {"type": "string"}, "description": "the table's checksum and what was asked"},
    "Cache-Control": {"schema": {"type": "string"}, "description": "public, max-age=86400"},
}
"""The headers of an answer that may be cached."""


def openapi_document(games: list[str], *, max_batch: int, max_body: int) -> dict[str, Any]:
    """The OpenAPI document for a server serving ``games``."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "solved-tictactoe",
            "version": __version__,
            "description": "Exact answers for tic-tac-toe and m,n,k games (normal, misère and gravity play): every position's value, plies to the "
            "end under perfect play and best moves. Served by `solve serve`.",
        },
        "paths": _paths(games, max_batch=max_batch, max_body=max_body),
        "components": {"schemas": _schemas()},
    }


def _paths(games: list[str], *, max_batch: int, max_body: int) -> dict[str, Any]:
    """The ``paths`` of the document: every endpoint, its parameters and its answers."""
    game = {
        "name": "game",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "enum": games},
        "description": "a served game, e.g. 3x3k3 (4x4 is read as 4x4k4)",
    }
    board, errors, cached = _BOARD, _ERRORS, _CACHED
    return {
        "/api/v1/games": {"get": {"summary": "The games served", "responses": {"200": _json(_ref("Games"), "the games")}}},
        "/api/v1/games/{game}": {
            "get": {
                "summary": "The served game a name means (connect4 is 6x7k4-gravity), without solving any position",
                "parameters": [{**game, "schema": {"type": "string"}, "description": "any name the server reads: 3x3k3, 4x4, connect4"}],
                "responses": {"200": _json(_ref("Game"), "the game, as the listing gives it"), "404": errors["404"]},
            }
        },
        "/api/v1/{game}": {
            "get": {
                "summary": "Solve one position",
                "parameters": [game, board],
                "responses": {"200": {**_json(_ref("Position"), "the position"), "headers": cached}, **errors},
            }
        },
        "/api/v1/{game}/mainline": {
            "get": {
                "summary": "One line of perfect play to the end (the first best move in cell order at each ply)",
                "parameters": [game, board],
                "responses": {"200": {**_json(_ref("Mainline"), "the line"), "headers": cached}, **errors},
            }
        },
        "/api/v1/{game}/analyze": {
            "get": {
                "summary": "Judge every ply of a game from the empty board: best, ok, mistake or blunder",
                "parameters": [game, _MOVES_PARAMETER],
                "responses": {"200": {**_json(_ref("Analysis"), "what `solve analyze --json` prints"), "headers": cached}, **errors},
            }
        },
        "/api/v1/{game}/batch": {"post": _batch(game, errors["404"], max_batch=max_batch, max_body=max_body)},
        "/api/v1/{game}/outcomes.svg": {
            "get": {
                "summary": "A chart of the outcomes of each ply: the positions with that many pieces by their result with best play (SVG, no script)",
                "parameters": [game],
                "responses": {
                    "200": {"description": "the chart", "content": {"image/svg+xml": {"schema": {"type": "string"}}}, "headers": cached},
                    "404": errors["404"],
                },
            }
        },
    }


def _batch(game: dict[str, Any], not_served: dict[str, Any], *, max_batch: int, max_body: int) -> dict[str, Any]:
    """The batch endpoint: its body, bounded by ``max_batch`` boards and ``max_body`` bytes, and its answers."""
    return {
        "summary": f"Solve up to {max_batch:,} positions in one request",
        "description": (
            "A game answered by search (connect4) takes up to 1,000 boards, or move strings as {moves: [...]}, all searched within "
            "one request's budget: a board not answered by then is an error in its place."
        ),
        "parameters": [game],
        "requestBody": {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "minProperties": 1,
                        "properties": {
                            "boards": {"type": "array", "maxItems": max_batch, "items": {"type": ["string", "integer"]}},
                            "moves": {"type": "array", "maxItems": 1000, "items": {"type": "string"}},
                        },
                    }
                }
            },
        },
        "responses": {
            "200": _json(
                {"type": "object", "properties": {"results": {"type": "array", "items": {"oneOf": [_ref("Position"), _ref("Error")]}}}},
                "one result per board, in order: the position, or {error} for that board alone",
            ),
            "400": _json(_ref("Error"), 'the body is not JSON or not {"boards": [...]}'),
            "404": not_served,
            "413": _json(_ref("Error"), f"more than {max_batch:,} boards or a body over {max_body:,} bytes"),
            "503": _json(_ref("Error"), "too many batches are being answered at once: retry after the `Retry-After` seconds"),
        },
    }


def _schemas() -> dict[str, Any]:
    """The ``components.schemas`` the endpoints refer to (``#/components/schemas/...``)."""
    return {
        "Move": _MOVE,
        "Position": _POSITION,
        "Error": _ERROR,
        "Game": _game_schema(),
        "Games": {
            "type": "object",
            "properties": {
                "games": {"type": "array", "items": _game_schema()},
                "default": {"type": "string"},
                "more": {"type": "string", "description": "how to serve other games"},
            },
        },
        "Mainline": {
            "type": "object",
            "properties": {
                "game": {"type": "string"},
                "code": {"type": "integer"},
                "code_str": {"type": "string", "description": "`code` in decimal digits (exact in JavaScript)"},
                "board": {"type": "string"},
                "over": {"type": "boolean"},
                "to_move": {"type": "string"},
                "value": {"type": "integer"},
                "result": {"type": "string"},
                "plies": {"type": "integer"},
                "winner": {"type": ["string", "null"]},
                "final": {"type": "string"},
                "mainline": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "ply": {"type": "integer"},
                            "player": {"type": "string"},
                            "cell": {"type": "integer"},
                            "row": {"type": "integer"},
                            "col": {"type": "integer"},
                            "board": {"type": "string"},
                        },
                    },
                },
            },
        },
        "Analysis": {"type": "object", "description": "GameAnalysis.to_dict: game, moves, plies, final, summary"},
    }


def _game_schema() -> dict[str, Any]:
    """A served game, as ``/api/v1/games`` lists it and ``/api/v1/games/{game}`` gives it."""
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "rows": {"type": "integer"},
            "cols": {"type": "integer"},
            "k": {"type": "integer"},
            "cells": {"type": "integer"},
            "rule": _RULE,
            "checksum": {"type": "string"},
            "searched": {"type": "boolean", "description": "answered by search (Connect Four): a position may take up to the budget"},
        },
    }
