// The page of `solve serve`: draws positions the JSON API solves. No framework, no build step,
// nothing fetched from anywhere but this server.
//
// State: the game, a start board (empty unless the URL names one), the moves played from it and a
// cursor (how many of them are on the board; undo and redo move the cursor). The URL holds
// ?game=...&moves=4,0,8 (under gravity the columns: &moves=1,1,3; and &board=... for another start,
// &play=X or O against the perfect player, &hints=on or off when the hints switch differs from its
// default), so a link restores the position. A link's moves are replayed here by the rules (nothing
// solved on the way), so a link opens at its position at once; a move that cannot be played is refused
// naming the ply ("ply 2: column 3 is full on ..."), and the moves before it are kept. `?game=` is
// resolved by the server's reading of game names (GET /api/v1/games/{name}), which solves nothing.
//
// The board is drawn at once, before any answer: a position's moves are the rule's (every empty cell,
// under gravity each column's landing cell), so it can be played while its answer is awaited. The answer
// adds the outcomes (the hints), the result and the verdicts. A game answered by search (Connect Four) says
// so while its search runs; a search the server refuses (503: past its budget) is a sentence beside the
// board, which stays playable.
//
// Hints (each empty cell's outcome, the best moves, the result in the status) are on by default when
// exploring and off against the perfect player; the switch changes them until the mode changes.
//
// Who played each move is recorded when it is played (you, the perfect player, or "" exploring), so
// choosing another side never relabels the moves already on the board; choosing a side when the game
// is over starts a new game with it.
//
// A finished position: the API says `"over": true` (newer servers) or `"to_move": null` (older
// ones); both are read the same way.
//
// Gravity (a game whose rule has `drops`: Connect Four's family): a move is a column and the piece lands
// on the lowest empty cell of it. A click on any cell of a column, or on the column's head above the
// board, plays that column's landing cell (the API lists only those as moves); the hints are on the
// heads, one a column, not in the cells. Moves are recorded as cells (the landing cells) and written as
// columns wherever a person reads or writes them (the list of moves, the URL, the paste box), as everywhere:
// under gravity a bare number is a column. The board is drawn as Connect Four players know it: a frame of round
// holes, the pieces discs (X red, O yellow, each with its letter on it and its colour in its accessible name).
// The column heads are one stop for Tab; the arrow keys move between them and Enter or Space drops.
"use strict";

(() => {
  const $ = (selector) => document.querySelector(selector);
  const VERBS = { win: "wins", draw: "draws", loss: "loses" };
  const VERDICTS = { best: "a best move", ok: "an ok move", mistake: "a mistake", blunder: "a blunder" };
  const DIRECTIONS = [[0, 1], [1, 0], [1, 1], [1, -1]];
  const DISCS = { X: "red", O: "yellow" };  // gravity: the colour of each player's discs (each disc shows its letter too)

  const state = {
    games: [], more: "", game: null, start: "", moves: [], by: [], cursor: 0, mode: "both",
    hints: null,  // null: the mode's default (on exploring, off against the perfect player)
    position: null, analysis: null, token: 0, focus: 0,
    head: 0,  // gravity: the column head that Tab reaches (the arrow keys move it)
    dropped: -1,  // gravity: the cell just played, whose piece is shown falling once
  };
  const positions = new Map();
  // An answer that has not come after this many milliseconds: the board is drawn by the rules meanwhile (a quick answer
  // is drawn once, its dropped disc falling once).
  const DRAWN_AFTER_MS = 80;

  async function api(path) {
    const response = await fetch(path, { headers: { accept: "application/json" } });
    let body = null;
    try { body = await response.json(); } catch (_) { body = null; }
    if (!response.ok) {
      const error = new Error((body && body.error) || `HTTP ${response.status}`);
      error.status = response.status;
      throw error;
    }
    return body;
  }

  function lookup(board) {
    const key = `${state.game} ${board}`;
    if (!positions.has(key)) {
      const query = api(`/api/v1/${encodeURIComponent(state.game)}?board=${encodeURIComponent(board)}`);
      query.then((position) => answered.set(key, position), () => positions.delete(key));
      positions.set(key, query);
    }
    return positions.get(key);
  }
  const answered = new Map();  // the answers already here, by game and board: drawn without waiting

  const info = () => state.games.find((game) => game.name === state.game);
  const plural = (n) => (n === 1 ? "ply" : "plies");
  const isOver = (p) => p.over === true || !p.to_move;
  const hintsOn = () => (state.hints === null ? state.mode === "both" : state.hints);
  const opponent = (player) => (player === "X" ? "O" : "X");
  const label = (move) => (move.result === "draw" ? "D" : `${move.result[0].toUpperCase()}${move.plies}`);
  const coords = (cell) => [Math.floor(cell / info().cols), cell % info().cols];
  // Whether pieces drop (gravity), as the listing of games says.
  const drops = () => Boolean(info() && info().rule && info().rule.drops);
  // How a move is named: "0,1" (row,col), or under gravity "col 1".
  const moveName = (cell) => (drops() ? `col ${coords(cell)[1]}` : coords(cell).join(","));

  // -- the board as cells ------------------------------------------------------
  function startCells() {
    const game = info();
    if (!state.start) return new Array(game.cells).fill(".");
    return state.start.replace(/\//g, "").split("");
  }

  function cellsAt(count) {
    const cells = startCells();
    let pieces = cells.filter((c) => c !== ".").length;
    for (const cell of state.moves.slice(0, count)) {
      cells[cell] = pieces % 2 === 0 ? "X" : "O";
      pieces += 1;
    }
    return cells;
  }

  function boardText(cells) {
    const { rows, cols } = info();
    const out = [];
    for (let r = 0; r < rows; r += 1) out.push(cells.slice(r * cols, (r + 1) * cols).join(""));
    return out.join("/");
  }

  function sideToMoveAt(count) {
    const pieces = startCells().filter((c) => c !== ".").length + count;
    return pieces % 2 === 0 ? "X" : "O";
  }

  // The lines of `player` on `cells`: each a run of k or more of its pieces in a row, column or diagonal,
  // as far as it goes (a run of four on a k=3 board is one line of four, not two of three), its cells in order.
  function lines(cells, player) {
    const { rows, cols, k } = info();
    const found = [];
    const mine = (r, c) => r >= 0 && r < rows && c >= 0 && c < cols && cells[r * cols + c] === player;
    for (let r = 0; r < rows; r += 1) {
      for (let c = 0; c < cols; c += 1) {
        for (const [dr, dc] of DIRECTIONS) {
          if (!mine(r, c) || mine(r - dr, c - dc)) continue;  // a run starts here only
          const run = [];
          for (let [rr, cc] = [r, c]; mine(rr, cc); rr += dr, cc += dc) run.push(rr * cols + cc);
          if (run.length >= k) found.push(run.sort((a, b) => a - b));
        }
      }
    }
    return found;
  }

  // Who won a finished position (the API's winner), who completed a line and its lines (usually one; two
  // when the last move completed two at once), with their cells. In normal play the winner completed the
  // line; in misère play the one who completed it lost.
  function finishedLines(p) {
    const cells = p.board.replace(/\//g, "").split("");
    for (const player of ["X", "O"]) {
      const found = lines(cells, player);
      if (found.length) return { winner: p.winner || player, completer: player, lines: found, cells: new Set(found.flat()) };
    }
    return { winner: null, completer: null, lines: [], cells: new Set() };
  }

  // A position as the rules give it, before (or without) the server's answer: whose move, whether it is over
  // and who won, and the moves the rule allows (every empty cell; under gravity the landing cell of each column
  // with room), with no outcome. `pending` marks it: no hints, no verdicts, no move of the perfect player.
  function localPosition(cells) {
    const { rows, cols } = info();
    const pieces = cells.filter((c) => c !== ".").length;
    const completer = ["X", "O"].find((player) => lines(cells, player).length) || null;
    const over = Boolean(completer) || pieces === cells.length;
    const winner = completer && (lineWins() ? completer : opponent(completer));
    const moves = [];
    if (!over) {
      for (let col = 0; col < cols; col += 1) {
        for (let row = rows - 1; row >= 0; row -= 1) {
          const cell = row * cols + col;
          if (cells[cell] !== ".") continue;
          moves.push({ cell, row, col });
          if (drops()) break;  // under gravity only the lowest empty cell of the column
        }
      }
      moves.sort((a, b) => a.cell - b.cell);
    }
    return {
      game: state.game, board: boardText(cells), over, to_move: over ? null : pieces % 2 === 0 ? "X" : "O", winner,
      moves, best_moves: [], best_cells: [], pending: true,
    };
  }

  // Whether completing a line wins (normal play) or loses (misère), as the listing of games says.
  const lineWins = () => !info() || !info().rule || info().rule.line_wins;

  // "a win in 5 plies", "a draw", "a loss in 1 ply": a result for the mover in words.
  function outcomeWords(result, plies) {
    if (result === "draw") return "a draw";
    return `a ${result} in ${plies} ${plural(plies)}`;
  }

  // -- updating ------------------------------------------------------------------
  async function update() {
    const token = ++state.token;
    const cells = cellsAt(state.cursor);
    const board = boardText(cells);
    const known = answered.get(`${state.game} ${board}`);
    if (known) {
      state.position = known;
      render();
      writeUrl();
      delete document.body.dataset.busy;
      computerMove(token);
      return;
    }
    state.position = null;  // no click plays on the last board meanwhile
    document.body.dataset.busy = "true";
    const query = lookup(board);
    const drawn = setTimeout(() => {  // an answer that takes longer: the board drawn by the rules, playable while it comes
      if (token !== state.token) return;
      state.position = localPosition(cells);
      render();
      writeUrl();
    }, DRAWN_AFTER_MS);
    const searching = setTimeout(() => showSearching(token), 400);
    let position;
    try {
      position = await query;
    } catch (error) {
      clearTimeout(searching);
      clearTimeout(drawn);
      if (token !== state.token) return;
      if (error.status === 503 || error.status === 504) {  // refused (a search past its budget): the board stays, playable
        state.position = { ...localPosition(cells), refused: refusedWords(error.message) };
        render();
        writeUrl();
        delete document.body.dataset.busy;
        return;
      }
      $("#detail").textContent = "";
      showError(error.message);
      if (state.cursor > 0) {           // a move list that cannot be played: keep what can
        state.moves = state.moves.slice(0, state.cursor - 1);
        state.by = state.by.slice(0, state.moves.length);
        state.cursor = state.moves.length;
        refreshAnalysis();
        update();
      } else {
        state.position = localPosition(cells);  // the board stays there to play
        render();
        $("#detail").textContent = "";
        delete document.body.dataset.busy;
      }
      return;
    }
    clearTimeout(searching);
    clearTimeout(drawn);
    if (token !== state.token) return;
    state.position = position;
    render();
    writeUrl();
    delete document.body.dataset.busy;
    computerMove(token);
  }

  // A game answered by search (Connect Four) may take seconds on a position: say so while it runs, within the server's budget.
  function showSearching(token) {
    if (token !== state.token || !info() || !info().searched) return;
    $("#detail").textContent = `Searching this position: ${info().name} is answered by search, not read from a table… `
      + "The board can be played meanwhile.";
    $("#detail").dataset.searching = "true";
  }

  // The sentence beside a board whose answer the server refused: what happened, and that the board is still there to play.
  function refusedWords(message) {
    return `This position was not solved within the server's time budget (${message}), so its outcomes are not shown; `
      + "the board can still be played: a later position is solved faster.";
  }

  function render() {
    renderBoard();
    renderStatus();
    renderPlies();
    $("#undo").disabled = state.cursor === 0;
    $("#redo").disabled = state.cursor >= state.moves.length;
  }

  function humanToMove() {
    const p = state.position;
    return Boolean(p && !isOver(p) && (state.mode === "both" || p.to_move === state.mode));
  }

  function renderBoard() {
    const game = info();
    const p = state.position;
    delete $("#detail").dataset.searching;
    const board = $("#board");
    const gravity = drops();
    const wrap = $("#board-wrap");
    wrap.style.setProperty("--cols", game.cols);
    wrap.style.setProperty("--rows", gravity ? game.rows + 0.8 : game.rows);  // under gravity the column heads and the frame take a row too
    wrap.classList.toggle("drops", gravity);
    if (board.children.length !== game.cells || board.dataset.game !== game.name) {
      const buttons = [];
      for (let cell = 0; cell < game.cells; cell += 1) {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.cell = String(cell);
        button.addEventListener("click", () => onCell(cell));
        pointing(button, () => aim(cell % game.cols));
        buttons.push(button);
      }
      board.replaceChildren(...buttons);
      board.dataset.game = game.name;
      state.focus = Math.min(state.focus, game.cells - 1);
    }
    board.setAttribute("aria-label", gravity
      ? "Board: arrow keys move between cells, Enter or Space drops a piece in the cell's column"
      : "Board: arrow keys move between cells, Enter or Space plays");
    const cells = p.board.replace(/\//g, "").split("");
    const over = isOver(p);
    const moves = new Map(over ? [] : p.moves.map((move) => [move.cell, move]));
    const line = over ? finishedLines(p) : { winner: null, completer: null, cells: new Set() };
    const last = state.cursor > 0 ? state.moves[state.cursor - 1] : -1;
    const playable = humanToMove();
    const hints = hintsOn() && !p.pending;  // no outcome is known before the answer
    const open = new Set(over ? [] : p.moves.map((move) => move.col));  // gravity: the columns not full
    for (const button of board.children) {
      const cell = Number(button.dataset.cell);
      const [row, col] = coords(cell);
      const move = moves.get(cell);
      const where = `row ${row}, column ${col}`;
      button.className = "cell";
      button.replaceChildren();
      button.style.removeProperty("--fall");
      delete button.dataset.label;
      if (gravity) {
        renderDropCell(button, cells[cell], move, { where, col, over, hints, line });
        button.setAttribute("aria-disabled", playable && open.has(col) ? "false" : "true");
        if (cell === state.dropped && cell === last) {
          button.classList.add("dropped");  // the piece falls from the column's head to its cell
          button.style.setProperty("--fall", String(row + 1));
        }
      } else if (cells[cell] !== ".") {
        button.classList.add(`piece-${cells[cell]}`);
        button.append(span("piece", cells[cell]));
        button.setAttribute("aria-label", `${where}: ${cells[cell]}${markLine(button, cells[cell], line)}`);
        button.setAttribute("aria-disabled", "true");
      } else if (move && hints) {
        renderHint(button, move, `${where}: ${p.to_move}`);
        button.setAttribute("aria-disabled", playable ? "false" : "true");
      } else {
        button.classList.add("empty");
        button.setAttribute("aria-label", `${where}: empty${over ? ", the game is over" : ""}`);
        button.setAttribute("aria-disabled", playable ? "false" : "true");
      }
      if (cell === last) button.classList.add("last");
      button.tabIndex = cell === state.focus ? 0 : -1;
    }
    state.dropped = -1;
    renderColumns(p, over, playable, hints);
    board.classList.toggle("over", over);
    board.classList.toggle("hints", hints);
    board.classList.toggle("drops", gravity);
    board.dataset.board = p.board;
    board.dataset.toMove = over ? "" : p.to_move || "";
    board.dataset.winner = line.winner || "";
    board.dataset.line = !line.completer ? "" : line.completer === line.winner ? "winning" : "losing";
    board.dataset.ply = String(state.cursor);
  }

  // A piece of a finished game: the winner's pieces stay plain and the loser's fade; a completed line is
  // marked as what it is: the winning line (normal play: "in-line", bold) or, in misère play, the losing
  // line ("lost-line", dashed: its player lost). Returns the words for the cell's accessible name.
  function markLine(button, piece, line) {
    if (!line.completer) return "";
    if (piece !== line.winner) button.classList.add("loser");
    if (!line.cells.has(Number(button.dataset.cell))) return "";
    const winning = line.completer === line.winner;
    button.classList.add(winning ? "in-line" : "lost-line");
    return winning ? ", in the winning line" : ", in the losing line";
  }

  // A cell under gravity, a round hole in the frame: a piece (a disc, X red and O yellow, its letter on it and
  // its colour in its name), the ringed hole a piece dropped in its column lands on (tinted with the outcome when
  // hints are on), or an empty hole above it. The hints themselves are on the column heads.
  function renderDropCell(button, piece, move, { where, col, over, hints, line }) {
    if (piece !== ".") {
      button.classList.add(`piece-${piece}`);
      button.append(span("piece", piece));
      button.setAttribute("aria-label", `${where}: ${piece} (${DISCS[piece]} disc)${markLine(button, piece, line)}`);
      return;
    }
    button.classList.add("empty");
    let name = `${where}: empty`;
    if (over) name += ", the game is over";
    else if (move) {
      button.classList.add("landing");
      if (hints) button.classList.add(move.result);
      name += `, a piece dropped in column ${col} lands here`;
    } else name += `, a piece dropped in column ${col} falls further`;
    button.setAttribute("aria-label", name);
  }

  // Gravity: a head above each column, saying what dropping a piece there leads to for the side to
  // move (W3, D, L4; the best outlined and starred) when hints are on, an arrow when they are off,
  // nothing on a full column. A click drops the piece, as a click on any cell of the column does.
  function renderColumns(p, over, playable, hints) {
    const game = info();
    const heads = $("#columns");
    heads.hidden = !drops();
    if (!drops()) { heads.replaceChildren(); delete heads.dataset.game; return; }
    if (heads.children.length !== game.cols || heads.dataset.game !== game.name) {
      const buttons = [];
      for (let col = 0; col < game.cols; col += 1) {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.col = String(col);
        button.addEventListener("click", () => { state.head = col; onColumn(col); });
        button.addEventListener("keydown", onHeadKey);
        pointing(button, () => aim(col));
        buttons.push(button);
      }
      heads.replaceChildren(...buttons);
      heads.dataset.game = game.name;
      state.head = Math.min(state.head, game.cols - 1);
    }
    const byColumn = new Map(over ? [] : p.moves.map((move) => [move.col, move]));
    for (const button of heads.children) {
      const col = Number(button.dataset.col);
      const move = byColumn.get(col);
      button.className = "column";
      button.replaceChildren();
      delete button.dataset.label;
      let name = `column ${col}: `;
      if (!move) {
        button.classList.add("full");
        name += over ? "the game is over" : "full";
      } else if (hints) {
        const text = label(move);
        button.classList.add(move.result);
        button.dataset.label = text;
        button.append(span("label", text));
        name += `${p.to_move} ${VERBS[move.result]}`;
        if (move.result !== "draw") name += ` in ${move.plies} ${plural(move.plies)}`;
        if (move.best) {
          button.classList.add("best");
          button.append(span("star", "★"));
          name += ", best move";
        }
      } else {
        button.append(span("arrow", "▼"));
        name += `drop ${p.to_move} here`;
      }
      button.setAttribute("aria-label", name);
      button.setAttribute("aria-disabled", move && playable ? "false" : "true");
      button.tabIndex = col === state.head ? 0 : -1;
    }
  }

  // Gravity: the column heads are one stop for Tab; the arrow keys (and Home, End) move between them,
  // Enter or Space drops a piece in the focused one (it is a button).
  function onHeadKey(event) {
    const cols = info().cols;
    const steps = { ArrowLeft: -1, ArrowRight: 1, Home: -cols, End: cols };
    if (!(event.key in steps)) return;
    event.preventDefault();
    state.head = Math.max(0, Math.min(cols - 1, Number(event.target.dataset.col) + steps[event.key]));
    for (const button of $("#columns").children) button.tabIndex = Number(button.dataset.col) === state.head ? 0 : -1;
    $("#columns").children[state.head].focus();
  }

  // A mouse over `button` aims (shades its column); leaving, nothing is aimed. A finger does not: a tap
  // would leave the column shaded after the move (a phone has no pointer to move away).
  function pointing(button, onEnter) {
    button.addEventListener("pointerenter", (event) => { if (event.pointerType === "mouse") onEnter(); });
    button.addEventListener("pointerleave", () => aim(-1));
  }

  // Gravity: the column under the pointer, its head and its empty cells shaded (-1: none).
  function aim(col) {
    if (!drops()) return;
    const cols = info().cols;
    for (const button of $("#board").children) button.classList.toggle("aim", Number(button.dataset.cell) % cols === col);
    for (const button of $("#columns").children) button.classList.toggle("aim", Number(button.dataset.col) === col);
  }

  // An empty cell with its hint: the outcome label small in a corner, a star on a best move.
  function renderHint(button, move, who) {
    const text = label(move);
    button.classList.add("empty", move.result);
    button.dataset.label = text;
    button.append(span("label", text));
    let name = `${who} ${VERBS[move.result]}`;
    if (move.result !== "draw") name += ` in ${move.plies} ${plural(move.plies)}`;
    if (move.best) {
      button.classList.add("best");
      button.append(span("star", "★"));
      name += ", best move";
    }
    button.setAttribute("aria-label", name);
  }

  function span(className, text) {
    const element = document.createElement("span");
    element.className = className;
    element.setAttribute("aria-hidden", "true");
    element.textContent = text;
    return element;
  }

  // The status in plain words ("X to move: a draw with best play", "X won") and a detail line in
  // words (the plies, the best moves; or the winning line). The code and the value for X are for
  // developers: they are in the "For developers" details.
  function renderStatus() {
    const p = state.position;
    const hints = hintsOn() && !p.pending;
    let text;
    let detail;
    if (p.pending && !isOver(p)) {
      text = `${p.to_move} to move${state.mode === p.to_move ? " (you)" : ""}`;
      if (state.mode !== "both" && state.mode !== p.to_move) text = `${p.to_move} to move: the perfect player is thinking…`;
      detail = p.refused || "";
    } else if (isOver(p)) {
      const { winner, completer, lines: found } = finishedLines(p);
      text = winner ? `${winner} won` : "Draw";
      if (winner && !lineWins()) text += ` (${completer} completed a line and lost)`;
      const you = yourSide();
      if (you) text += winner === you ? ": you won" : winner ? ": the perfect player won" : ": you held the perfect player";
      detail = winner ? lineWords(found) : "The board is full with no line.";
    } else {
      const outcome = p.result === "draw" ? "a draw" : `${p.result === "win" ? p.to_move : opponent(p.to_move)} wins`;
      text = `${p.to_move} to move${state.mode === p.to_move ? " (you)" : ""}`;
      if (hints) text += `: ${outcome} with best play`;
      if (state.mode !== "both" && state.mode !== p.to_move) text = `${p.to_move} to move: the perfect player is thinking…`;
      const best = bestWords(p);
      detail = hints ? `in ${p.plies} ${plural(p.plies)} · ${best}` : "Hints are off.";
    }
    $("#status").textContent = text;
    $("#detail").textContent = detail;
    $("#legend").hidden = !hints || isOver(p);
    $("#discs").hidden = !drops();
    $("#hints").checked = hints;
    const where = drops() ? ["each column shows what dropping a piece there", "dropping a piece in each column"] : ["each empty cell shows what playing there", "playing each empty cell"];
    $("#tagline").textContent = hints
      ? `Every position solved. Hints are on: ${where[0]} leads to under perfect play.`
      : `Every position solved. Hints are off: Show hints marks what ${where[1]} leads to under perfect play.`;
    $("#hints-help").textContent = drops()
      ? "Above each column, what dropping a piece there leads to; the best columns are starred."
      : "Each empty cell shows what playing there leads to, and the best moves are starred.";
    const value = p.value > 0 ? "+1" : String(p.value);
    $("#position-data").textContent = p.pending
      ? `This position: board ${p.board}; the server's answer is not here (yet).`
      : `This position: code ${p.code_str} in the ${p.game || state.game} table, value for X ${value} `
        + "(+1 X wins, 0 a draw, -1 O wins with best play), board " + p.board + ".";
    $("#detail").classList.toggle("refused", Boolean(p.refused));
  }

  // A finished game's line or lines in words, each listing exactly its cells: "3 in a row (row,col): 0,0 1,1 2,2",
  // in misère play "the losing line, ...", two at once "the winning lines, 3 in a row each (row,col): 0,0 0,1 0,2 and 0,0 1,0 2,0".
  function lineWords(found) {
    const lengths = [...new Set(found.map((line) => line.length))].join(" and ");
    const where = found.map((line) => line.map((cell) => coords(cell).join(",")).join(" ")).join(" and ");
    if (found.length === 1) return `${lineWins() ? "" : "the losing line, "}${lengths} in a row (row,col): ${where}`;
    return `the ${lineWins() ? "winning" : "losing"} lines, ${lengths} in a row each (row,col): ${where}`;
  }

  // The best moves in words: "every move is best", "best (row,col): 0,0  2,2", under gravity "best columns: 1, 2".
  function bestWords(p) {
    if (p.best_moves.length === p.moves.length) return drops() ? "every column is best" : "every move is best";
    if (drops()) return `best columns: ${(p.best_columns || p.best_moves.map(([, c]) => c)).join(", ")}`;
    return `best (row,col): ${p.best_moves.map(([r, c]) => `${r},${c}`).join("  ")}`;
  }

  // The side you played in the game on the board: that of your last move, or null when the perfect
  // player made none of its moves (exploring).
  function yourSide() {
    const by = state.by.slice(0, state.cursor);
    if (!by.includes("perfect")) return null;
    const last = by.lastIndexOf("you");
    return last < 0 ? opponent(sideToMoveAt(by.lastIndexOf("perfect"))) : sideToMoveAt(last);
  }

  function renderPlies() {
    const list = $("#plies");
    list.replaceChildren();
    const analysed = state.analysis && !state.start && sameMoves(state.analysis.moves, state.moves) ? state.analysis : null;
    const listed = state.cursor > 0 ? state.moves : [];  // undone to the empty board: nothing is listed
    listed.forEach((cell, index) => {
      const ply = index + 1;
      const item = document.createElement("li");
      if (ply === state.cursor) item.setAttribute("aria-current", "step");
      if (ply > state.cursor) item.classList.add("future");
      const [row, col] = coords(cell);
      const player = sideToMoveAt(index);
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = `${ply}. ${player} ${moveName(cell)}`;
      button.setAttribute("aria-label", drops()
        ? `go to ply ${ply}: ${player} in column ${col}, landing on row ${row}`
        : `go to ply ${ply}: ${player} at row ${row}, column ${col}`);
      button.addEventListener("click", () => { state.cursor = ply; update(); });
      item.append(button);
      const judged = judgedAt(analysed, index);
      if (analysed && !judged) {  // a game answered by search: a ply the server's budget left unjudged
        const verdict = document.createElement("span");
        verdict.className = "verdict unjudged";
        verdict.textContent = "not judged";
        verdict.title = analysed.why_unjudged || "not judged within the server's budget";
        item.append(verdict);
      }
      if (judged) {
        item.dataset.verdict = judged.verdict;
        const verdict = document.createElement("span");
        verdict.className = `verdict ${judged.verdict}`;
        verdict.textContent = judged.verdict;
        const before = judged.result_before === "draw" ? "D" : `${judged.result_before[0].toUpperCase()}${judged.plies_before}`;
        const after = judged.result_after === "draw" ? "D" : `${judged.result_after[0].toUpperCase()}${judged.plies_after}`;
        const outcomes = document.createElement("span");
        outcomes.className = "outcomes";
        outcomes.textContent = `${before} → ${after}`;
        outcomes.title = "the mover's result under perfect play before and after the move";
        item.append(verdict);
        if (hintsOn()) item.append(outcomes);
      }
      list.append(item);
    });
    if (!listed.length) {
      const item = document.createElement("li");
      const what = drops() ? "a column" : "a cell";
      item.textContent = state.moves.length ? `No moves on the board: click ${what}, or Redo.` : `No moves yet: click ${what}.`;
      list.append(item);
    }
    renderLastMove(analysed);
    const summary = $("#summary");
    if (analysed && state.cursor) {
      summary.textContent = ["X", "O"].map((player) => {
        const s = tally(analysed.plies.filter((judged) => judged.ply <= state.cursor), player);
        return `${player}: ${s.moves} ${s.moves === 1 ? "move" : "moves"}; best ${s.best}, ok ${s.ok}, mistakes ${s.mistake}, blunders ${s.blunder}`;
      }).join(" · ");
    } else {
      summary.textContent = state.start && state.cursor ? "Verdicts need a game played from the empty board." : "";
    }
  }

  // The judged ply at `index` (0 for ply 1) of an analysis, or undefined (a game answered by search judges the plies
  // its searches answered within the server's budget: `unjudged` lists the others).
  const judgedAt = (analysed, index) => (analysed ? (analysed.plies || []).find((judged) => judged.ply === index + 1) : undefined);

  // A player's verdicts over the plies on the board (the analysis covers undone moves too).
  function tally(plies, player) {
    const counts = { moves: 0, best: 0, ok: 0, mistake: 0, blunder: 0 };
    for (const judged of plies) {
      if (judged.player !== player) continue;
      counts.moves += 1;
      counts[judged.verdict] += 1;
    }
    return counts;
  }

  // The last move's verdict, above the board (on a phone too). Against the perfect player: your last move.
  // Who played a move is what was recorded when it was played, whatever the side chosen now.
  function renderLastMove(analysed) {
    const element = $("#last-move");
    const played = state.by.slice(0, state.cursor);
    let index = played.includes("perfect") ? played.lastIndexOf("you") : -1;
    if (index < 0) index = state.cursor - 1;
    element.className = "last-move";
    delete element.dataset.verdict;
    if (index < 0) { element.textContent = ""; return; }
    const player = sideToMoveAt(index);
    const who = { you: "Your move", perfect: "The perfect player" }[state.by[index]] || "Last move";
    let text = `${who}: ${player} ${drops() ? "in" : "at"} ${moveName(state.moves[index])}`;
    const judged = judgedAt(analysed, index);
    if (judged) {
      text += `, ${VERDICTS[judged.verdict]}`;
      if (hintsOn()) text += ` (${change(judged)} for ${player})`;  // the results are hints: not against the perfect player
      element.classList.add(judged.verdict);
      element.dataset.verdict = judged.verdict;
    }
    element.textContent = text;
  }

  // What a move did to its mover's result: "keeps a draw", "a win in 7 plies instead of 5", "a draw became a loss in 6 plies".
  function change(judged) {
    const before = outcomeWords(judged.result_before, judged.plies_before);
    const after = outcomeWords(judged.result_after, judged.plies_after);
    if (before === after) return `keeps ${after}`;
    if (judged.result_before === judged.result_after) return `${after} instead of ${judged.plies_before}`;
    return `${before} became ${after}`;
  }

  // Moves as a person writes them: cells, or under gravity columns (a bare number is a column there).
  const written = (cells) => (drops() ? cells.map((cell) => cell % info().cols) : cells);

  // The API's analysis of a move list ("4+0+8", under gravity the columns "1+1+3"): every ply judged, and the cells played.
  const analyzeMoves = (game, moves) => api(`/api/v1/${encodeURIComponent(game)}/analyze?moves=${moves.map(encodeURIComponent).join("+")}`);

  const sameMoves = (a, b) => a.length === b.length && a.every((cell, i) => cell === b[i]);

  async function refreshAnalysis() {
    if (state.start || !state.moves.length) { state.analysis = null; return; }
    const moves = state.moves.slice();
    const game = state.game;
    try {
      if (info() && info().searched) {  // one engine serves both: the position shown is asked first
        await lookup(boardText(cellsAt(moves.length))).catch(() => null);
        if (game !== state.game || !sameMoves(moves, state.moves)) return;
      }
      const analysis = await analyzeMoves(game, written(moves));
      if (game === state.game && sameMoves(moves, state.moves)) {
        state.analysis = analysis;
        if (state.position) renderPlies();
      }
    } catch (_) {
      // an unplayable list is reported by update()
    }
  }

  // -- playing -------------------------------------------------------------------
  function onCell(cell) {
    state.focus = cell;
    if (drops()) { onColumn(cell % info().cols); return; }
    const p = state.position;
    if (!p) return;
    const why = refusal(p, cell);
    if (why) { notify(why); return; }
    play(cell, state.mode === "both" ? "" : "you");
  }

  // Gravity: drop a piece in column `col`; it lands on the column's lowest empty cell (the API's move for that column).
  function onColumn(col) {
    const p = state.position;
    if (!p) return;
    const move = isOver(p) ? null : p.moves.find((m) => m.col === col);
    let why = "";
    if (isOver(p)) why = "The game is over: New game starts again, Undo takes a move back.";
    else if (!humanToMove()) why = "Wait: the perfect player is moving.";
    else if (!move) why = "That column is full.";
    if (why) { notify(why); return; }
    play(move.cell, state.mode === "both" ? "" : "you");
  }

  // Why a click on `cell` does nothing, in a few words; "" when it plays.
  function refusal(p, cell) {
    if (p.board.replace(/\//g, "")[cell] !== ".") return "That cell is taken.";
    if (isOver(p)) return "The game is over: New game starts again, Undo takes a move back.";
    if (!humanToMove()) return "Wait: the perfect player is moving.";
    if (!p.moves.some((move) => move.cell === cell)) return "That cell cannot be played.";
    return "";
  }

  // Say it in the live region; cleared first so the same words twice are announced twice.
  function notify(message) {
    const notice = $("#notice");
    notice.textContent = "";
    if (message) setTimeout(() => { notice.textContent = message; }, 20);
  }

  // Play `cell` after the moves on the board; `by` records who played it ("you", "perfect" or "" exploring).
  function play(cell, by) {
    showError("");
    notify("");
    state.moves = state.moves.slice(0, state.cursor).concat([cell]);
    state.by = state.by.slice(0, state.cursor).concat([by]);
    state.cursor = state.moves.length;
    state.dropped = cell;
    refreshAnalysis();
    update();
  }

  function computerMove(token) {
    const p = state.position;
    if (state.mode === "both" || p.pending || isOver(p) || p.to_move === state.mode) return;
    setTimeout(() => {
      if (token !== state.token) return;
      const best = p.best_cells;
      play(best[Math.floor(Math.random() * best.length)], "perfect");
    }, 350);
  }

  function undo() {
    if (state.cursor === 0) return;
    state.cursor -= 1;
    if (state.mode !== "both") {
      while (state.cursor > 0 && sideToMoveAt(state.cursor) !== state.mode) state.cursor -= 1;
    }
    showError("");
    notify("");
    update();
  }

  function redo() {
    if (state.cursor >= state.moves.length) return;
    state.cursor += 1;
    if (state.mode !== "both") {
      while (state.cursor < state.moves.length && sideToMoveAt(state.cursor) !== state.mode) state.cursor += 1;
    }
    showError("");
    update();
  }

  function reset() {
    state.start = "";
    state.moves = [];
    state.by = [];
    state.cursor = 0;
    state.analysis = null;
    showError("");
    notify("");
    update();
  }

  function showError(message) {
    $("#error").textContent = message;
    if (!message) $("#paste-error").textContent = "";
  }

  // -- the URL ---------------------------------------------------------------------
  function writeUrl() {
    const params = new URLSearchParams();
    params.set("game", state.game);
    if (state.start) params.set("board", state.start);
    if (state.cursor) params.set("moves", written(state.moves.slice(0, state.cursor)).join(","));
    if (state.mode !== "both") params.set("play", state.mode);
    if (state.hints !== null && state.hints !== (state.mode === "both")) params.set("hints", state.hints ? "on" : "off");
    const url = `${location.pathname}?${params.toString().replace(/%2F/g, "/").replace(/%2C/g, ",")}`;
    history.replaceState(null, "", url);
    const example = `curl '${location.origin}/api/v1/${state.game}?board=${state.position.board}'`;
    $("#api-example").textContent = example;
  }

  // The served game another name means ("connect4", "4x4-gravity"), as the server reads game names (GET
  // /api/v1/games/{name}: no position solved); undefined if none.
  async function servedAs(name) {
    try {
      const found = await api(`/api/v1/games/${encodeURIComponent(name)}`);
      return state.games.find((game) => game.name === found.name);
    } catch (_) {
      return undefined;
    }
  }

  async function readUrl() {
    const params = new URLSearchParams(location.search);
    const wanted = params.get("game");
    const served = state.games.map((game) => game.name);
    state.game = served[0];
    if (wanted) {
      const match = state.games.find((game) => game.name === wanted || game.name === `${wanted}k${Math.min(...wanted.split("x").map(Number))}`)
        || await servedAs(wanted);
      if (match) state.game = match.name;
      else showError(`The game ${wanted} is not served here. ${state.more}`);
    }
    const play = params.get("play");
    if (play === "X" || play === "O") state.mode = play;
    const hints = params.get("hints");
    if (hints === "on" || hints === "off") state.hints = hints === "on";
    const board = params.get("board");
    if (board) {
      try {
        const p = await lookup(board);
        state.start = /[XO]/.test(p.board) ? p.board : "";
      } catch (error) {
        if (error.status === 503 && boardForm(board)) state.start = /[XO]/.test(board) ? board : "";  // read; only its answer was refused
        else showError(`The board in the link cannot be shown: ${error.message}`);
      }
    }
    const moves = params.get("moves");
    if (moves) {
      const cells = await linkMoves(moves.split(/[,\s]+/).filter(Boolean));
      state.moves = cells;
      state.by = cells.map((_, index) => (state.mode === "both" ? "" : sideToMoveAt(index) === state.mode ? "you" : "perfect"));
      state.cursor = cells.length;
    }
  }

  // Whether `board` is written as the page writes a board ("XO./.X./...": rows of X, O and '.', separated by '/'),
  // of the game shown: the server read it (its answer alone was refused), so the page can draw it.
  function boardForm(board) {
    const { rows, cols } = info();
    const written = board.split("/");
    return written.length === rows && written.every((row) => row.length === cols && /^[.XO]+$/.test(row));
  }

  // The cells of a link's moves (cells, or under gravity columns), replayed here by the rules from the start
  // board (nothing solved on the way: a link opens at its position at once). A move that cannot be played is
  // refused naming its ply, in the server's move reader's words from the empty board (its analyze checks every
  // move before it solves anything), and the moves before it are kept.
  async function linkMoves(moves) {
    try {
      return movesFrom(startCells(), moves);
    } catch (local) {
      let message = local.message;
      if (!state.start) {
        try { await analyzeMoves(state.game, moves); } catch (error) { if (/^ply \d+:/.test(error.message)) message = error.message; }
      }
      showError(`The moves in the link cannot be played: ${message}`);
      const refused = /^ply (\d+):/.exec(message);
      return refused && Number(refused[1]) > 1 ? linkMoves(moves.slice(0, Number(refused[1]) - 1)) : [];
    }
  }

  // The cells of `moves` played in turn from `cells`, each one of the moves the rule allows there (localPosition).
  function movesFrom(start, moves) {
    const cells = start.slice();
    const played = [];
    let pieces = cells.filter((c) => c !== ".").length;
    for (const [index, text] of moves.entries()) {
      const p = localPosition(cells);
      const wanted = /^[0-9]+$/.test(text) ? Number(text) : NaN;
      const move = isOver(p) ? null : p.moves.find((m) => (drops() ? m.col : m.cell) === wanted);
      if (!move) {
        const what = drops() ? `column ${text}` : `cell ${text}`;
        const why = isOver(p) ? "the game is over" : /^[0-9]+$/.test(text) && wanted < (drops() ? info().cols : info().cells) ? (drops() ? "is full" : "is taken") : "is not on the board";
        throw new Error(`ply ${index + 1}: ${isOver(p) ? `cannot play ${what}: ${why}` : `${what} ${why}`} on ${p.board}`);
      }
      cells[move.cell] = pieces % 2 === 0 ? "X" : "O";
      pieces += 1;
      played.push(move.cell);
    }
    return played;
  }

  // -- wiring -----------------------------------------------------------------------
  function onBoardKey(event) {
    const game = info();
    const steps = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -game.cols, ArrowDown: game.cols, Home: -game.cells, End: game.cells };
    if (!(event.key in steps)) return;
    event.preventDefault();
    const from = Number(event.target.dataset.cell ?? state.focus);
    let to = from + steps[event.key];
    if (event.key === "ArrowLeft" && from % game.cols === 0) to = from;
    if (event.key === "ArrowRight" && from % game.cols === game.cols - 1) to = from;
    to = Math.max(0, Math.min(game.cells - 1, to));
    state.focus = to;
    for (const button of $("#board").children) button.tabIndex = Number(button.dataset.cell) === to ? 0 : -1;
    $("#board").children[to].focus();
  }

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const tag = event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if (event.key === "u") undo();
    else if (event.key === "r") redo();
    else if (event.key === "n") reset();
  }

  // A pasted game is explored (both sides yours); its error shows under the paste box, where the eyes are.
  async function onPaste(event) {
    event.preventDefault();
    const text = $("#paste").value.trim();
    $("#paste-error").textContent = "";
    try {
      const analysis = await api(`/api/v1/${encodeURIComponent(state.game)}/analyze?moves=${encodeURIComponent(text)}`);
      state.start = "";
      state.moves = analysis.moves;
      state.by = analysis.moves.map(() => "");
      state.cursor = analysis.moves.length;
      state.analysis = analysis;
      showError("");
      update();
    } catch (error) {
      $("#paste-error").textContent = error.message;
    }
  }

  // The outcomes of each ply of the game, drawn by the server (GET /api/v1/{game}/outcomes.svg), shown
  // when its details are open. The SVG is parsed as XML and adopted: nothing in it runs.
  async function renderOutcomes() {
    const box = $("#outcomes-chart");
    if (!$("#outcomes").open || box.dataset.game === state.game) return;
    const game = state.game;
    box.dataset.game = game;
    box.textContent = "Counting…";
    try {
      const response = await fetch(`/api/v1/${encodeURIComponent(game)}/outcomes.svg`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const picture = new DOMParser().parseFromString(await response.text(), "image/svg+xml").documentElement;
      if (game !== state.game) return;
      box.replaceChildren(document.importNode(picture, true));
    } catch (error) {
      delete box.dataset.game;
      box.textContent = `The chart cannot be drawn: ${error.message}`;
    }
  }

  // An example move list for the paste box, of the game shown (under gravity the columns, as `solve analyze` reads them).
  function setPlaceholder() {
    const game = info();
    $("#paste").placeholder = drops()
      ? `${Math.min(1, game.cols - 1)} ${Math.min(1, game.cols - 1)} 0  (columns)`
      : game.cells > 9 ? "5 0 10  or  1,1 0,0 2,2" : "4 0 8  or  1,1 0,0 2,2";
  }

  // What the page is called: the game it plays ("Solved tic-tac-toe", "Solved Connect Four", "Solved 4x4k4-gravity").
  function setTitle() {
    const game = info();
    const names = { "3x3k3": "tic-tac-toe", "3x3k3-misere": "misère tic-tac-toe", "6x7k4-gravity": "Connect Four", "6x7k4-gravity-misere": "misère Connect Four" };
    const title = `Solved ${names[game.name] || game.name}`;
    $("#title").textContent = title;
    document.title = title;
  }

  // The games by rule (normal play, misère, gravity, gravity misère), each rule's by board size (cells, then
  // rows, then k). The listing's order is the server's (its first game is the page's default).
  function byRule(games) {
    const rank = (game) => [game.rule && game.rule.drops ? 1 : 0, game.rule && !game.rule.line_wins ? 1 : 0, game.cells, game.rows, game.k];
    const order = (a, b) => rank(a).reduce((found, value, i) => found || value - rank(b)[i], 0) || a.name.localeCompare(b.name);
    return [...games].sort(order);
  }

  // The games in the menu, in groups by rule (byRule).
  function gameMenu(games) {
    const groups = new Map();
    for (const game of byRule(games)) {
      const title = game.rule && game.rule.title ? game.rule.title : "normal play";
      if (!groups.has(title)) {
        const group = document.createElement("optgroup");
        group.label = title.charAt(0).toUpperCase() + title.slice(1);
        groups.set(title, group);
      }
      const option = document.createElement("option");
      option.value = game.name;
      option.textContent = `${game.name} (${game.rows}×${game.cols}, ${game.k} in a row)`;
      groups.get(title).append(option);
    }
    return [...groups.values()];
  }

  async function onShare() {
    try {
      await navigator.clipboard.writeText(location.href);
      $("#detail").textContent = "Link copied: " + location.href;
    } catch (_) {
      $("#detail").textContent = "Link: " + location.href;
    }
  }

  async function init() {
    $("#board").addEventListener("keydown", onBoardKey);
    document.addEventListener("keydown", onKey);
    $("#undo").addEventListener("click", undo);
    $("#redo").addEventListener("click", redo);
    $("#reset").addEventListener("click", reset);
    $("#share").addEventListener("click", onShare);
    $("#paste-form").addEventListener("submit", onPaste);
    $("#mode").addEventListener("change", (event) => {
      state.mode = event.target.value;
      state.hints = null;
      if (state.mode !== "both" && state.position && isOver(state.position)) reset();  // a side for the next game
      else update();
    });
    $("#outcomes").addEventListener("toggle", renderOutcomes);
    $("#hints").addEventListener("change", (event) => {
      state.hints = event.target.checked;
      if (state.position) { render(); writeUrl(); }
    });
    $("#game").addEventListener("change", (event) => {
      state.game = event.target.value;
      setPlaceholder();
      setTitle();
      reset();
      renderOutcomes();
    });
    let listing;
    try {
      listing = await api("/api/v1/games");
    } catch (error) {
      $("#status").textContent = "";
      showError(`Cannot reach the server: ${error.message}`);
      return;
    }
    state.games = listing.games;
    state.more = listing.more;
    $("#more").textContent = `Serving ${byRule(state.games).map((game) => game.name).join(", ")}. ${listing.more}.`;
    const select = $("#game");
    select.replaceChildren(...gameMenu(state.games));
    await readUrl();
    select.value = state.game;
    setPlaceholder();
    setTitle();
    $("#mode").value = state.mode;
    refreshAnalysis();
    update();
  }

  init();
})();
