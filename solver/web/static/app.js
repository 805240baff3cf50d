// The page of `solve serve`: draws positions the JSON API solves. No framework, no build step,
// nothing fetched from anywhere but this server.
//
// State: the game, a start board (empty unless the URL names one), the moves played from it and a
// cursor (how many of them are on the board; undo and redo move the cursor). The URL holds
// ?game=...&moves=4,0,8 (and &board=... for another start), so a link restores the position.
"use strict";

(() => {
  const $ = (selector) => document.querySelector(selector);
  const VERBS = { win: "wins", draw: "draws", loss: "loses" };

  const state = {
    games: [], more: "", game: null, start: "", moves: [], cursor: 0, mode: "both",
    position: null, analysis: null, token: 0, focus: 0,
  };
  const positions = new Map();

  async function api(path) {
    const response = await fetch(path, { headers: { accept: "application/json" } });
    let body = null;
    try { body = await response.json(); } catch (_) { body = null; }
    if (!response.ok) throw new Error((body && body.error) || `HTTP ${response.status}`);
    return body;
  }

  function lookup(board) {
    const key = `${state.game} ${board}`;
    if (!positions.has(key)) {
      const query = api(`/api/v1/${encodeURIComponent(state.game)}?board=${encodeURIComponent(board)}`);
      query.catch(() => positions.delete(key));
      positions.set(key, query);
    }
    return positions.get(key);
  }

  const info = () => state.games.find((game) => game.name === state.game);
  const plural = (n) => (n === 1 ? "ply" : "plies");
  const label = (move) => (move.result === "draw" ? "D" : `${move.result[0].toUpperCase()}${move.plies}`);
  const coords = (cell) => [Math.floor(cell / info().cols), cell % info().cols];

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

  // -- updating ------------------------------------------------------------------
  async function update() {
    const token = ++state.token;
    const board = boardText(cellsAt(state.cursor));
    document.body.dataset.busy = "true";
    let position;
    try {
      position = await lookup(board);
    } catch (error) {
      if (token !== state.token) return;
      showError(error.message);
      if (state.cursor > 0) {           // a move list that cannot be played: keep what can
        state.moves = state.moves.slice(0, state.cursor - 1);
        state.cursor = state.moves.length;
        refreshAnalysis();
        update();
      } else {
        delete document.body.dataset.busy;
      }
      return;
    }
    if (token !== state.token) return;
    state.position = position;
    render();
    writeUrl();
    delete document.body.dataset.busy;
    computerMove(token);
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
    return p && p.to_move && (state.mode === "both" || p.to_move === state.mode);
  }

  function renderBoard() {
    const game = info();
    const p = state.position;
    const board = $("#board");
    board.style.setProperty("--cols", game.cols);
    board.style.setProperty("--rows", game.rows);
    if (board.children.length !== game.cells || board.dataset.game !== game.name) {
      const buttons = [];
      for (let cell = 0; cell < game.cells; cell += 1) {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.cell = String(cell);
        button.addEventListener("click", () => onCell(cell));
        buttons.push(button);
      }
      board.replaceChildren(...buttons);
      board.dataset.game = game.name;
      state.focus = Math.min(state.focus, game.cells - 1);
    }
    const cells = p.board.replace(/\//g, "").split("");
    const moves = new Map(p.moves.map((move) => [move.cell, move]));
    const last = state.cursor > 0 ? state.moves[state.cursor - 1] : -1;
    const playable = humanToMove();
    for (const button of board.children) {
      const cell = Number(button.dataset.cell);
      const [row, col] = coords(cell);
      const move = moves.get(cell);
      const where = `row ${row}, column ${col}`;
      button.className = "cell";
      button.replaceChildren();
      delete button.dataset.label;
      if (cells[cell] !== ".") {
        button.classList.add(`piece-${cells[cell]}`);
        button.append(span("piece", cells[cell]));
        button.setAttribute("aria-label", `${where}: ${cells[cell]}`);
        button.setAttribute("aria-disabled", "true");
      } else if (move) {
        const text = label(move);
        button.classList.add(move.result);
        button.dataset.label = text;
        button.append(span("label", text));
        let name = `${where}: ${p.to_move} ${VERBS[move.result]}`;
        if (move.result !== "draw") name += ` in ${move.plies} ${plural(move.plies)}`;
        if (move.best) {
          button.classList.add("best");
          button.append(span("star", "★"));
          name += ", best move";
        }
        button.setAttribute("aria-label", name);
        button.setAttribute("aria-disabled", playable ? "false" : "true");
      } else {
        button.setAttribute("aria-label", `${where}: empty, the game is over`);
        button.setAttribute("aria-disabled", "true");
      }
      if (cell === last) button.classList.add("last");
      button.tabIndex = cell === state.focus ? 0 : -1;
    }
    board.dataset.board = p.board;
    board.dataset.toMove = p.to_move || "";
    board.dataset.ply = String(state.cursor);
  }

  function span(className, text) {
    const element = document.createElement("span");
    element.className = className;
    element.setAttribute("aria-hidden", "true");
    element.textContent = text;
    return element;
  }

  function renderStatus() {
    const p = state.position;
    let text;
    if (!p.to_move) {
      text = p.winner ? `Game over: ${p.winner} has won.` : "Game over: a draw.";
    } else {
      const value = p.value > 0 ? "+1" : String(p.value);
      const plies = `${p.plies} ${plural(p.plies)}`;
      text = `${p.to_move} to move ${VERBS[p.result]} in ${plies} under perfect play (value for X ${value}).`;
      if (state.mode !== "both") {
        text += p.to_move === state.mode ? " Your move." : " The perfect player is moving…";
      }
    }
    $("#status").textContent = text;
    const best = p.best_moves.map(([r, c]) => `${r},${c}`).join("  ");
    $("#detail").textContent = `${best ? `Best (row,col): ${best} · ` : ""}board ${p.board} · code ${p.code} · ${p.game}`;
  }

  function renderPlies() {
    const list = $("#plies");
    list.replaceChildren();
    const analysed = state.analysis && !state.start && sameMoves(state.analysis.moves, state.moves) ? state.analysis : null;
    state.moves.forEach((cell, index) => {
      const ply = index + 1;
      const item = document.createElement("li");
      if (ply === state.cursor) item.setAttribute("aria-current", "step");
      if (ply > state.cursor) item.classList.add("future");
      const [row, col] = coords(cell);
      const player = sideToMoveAt(index);
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = `${ply}. ${player} ${row},${col}`;
      button.setAttribute("aria-label", `go to ply ${ply}: ${player} at row ${row}, column ${col}`);
      button.addEventListener("click", () => { state.cursor = ply; update(); });
      item.append(button);
      if (analysed) {
        const judged = analysed.plies[index];
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
        item.append(verdict, outcomes);
      }
      list.append(item);
    });
    if (!state.moves.length) {
      const item = document.createElement("li");
      item.textContent = "No moves yet: click a cell.";
      list.append(item);
    }
    const summary = $("#summary");
    if (analysed && state.moves.length) {
      summary.textContent = ["X", "O"].map((player) => {
        const s = analysed.summary[player];
        return `${player}: ${s.moves} ${s.moves === 1 ? "move" : "moves"}; best ${s.best}, ok ${s.ok}, mistakes ${s.mistakes}, blunders ${s.blunders}`;
      }).join(" · ");
    } else {
      summary.textContent = state.start && state.moves.length ? "Verdicts need a game played from the empty board." : "";
    }
  }

  const sameMoves = (a, b) => a.length === b.length && a.every((cell, i) => cell === b[i]);

  async function refreshAnalysis() {
    if (state.start || !state.moves.length) { state.analysis = null; return; }
    const moves = state.moves.slice();
    const game = state.game;
    try {
      const analysis = await api(`/api/v1/${encodeURIComponent(game)}/analyze?moves=${moves.join("+")}`);  // "4+0+8": cells separated by spaces
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
    const p = state.position;
    if (!humanToMove() || !p.moves.some((move) => move.cell === cell)) return;
    play(cell);
  }

  function play(cell) {
    showError("");
    state.moves = state.moves.slice(0, state.cursor).concat([cell]);
    state.cursor = state.moves.length;
    refreshAnalysis();
    update();
  }

  function computerMove(token) {
    const p = state.position;
    if (state.mode === "both" || !p.to_move || p.to_move === state.mode) return;
    setTimeout(() => {
      if (token !== state.token) return;
      const best = p.best_cells;
      play(best[Math.floor(Math.random() * best.length)]);
    }, 350);
  }

  function undo() {
    if (state.cursor === 0) return;
    state.cursor -= 1;
    if (state.mode !== "both") {
      while (state.cursor > 0 && sideToMoveAt(state.cursor) !== state.mode) state.cursor -= 1;
    }
    showError("");
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
    state.cursor = 0;
    state.analysis = null;
    showError("");
    update();
  }

  function showError(message) {
    $("#error").textContent = message;
  }

  // -- the URL ---------------------------------------------------------------------
  function writeUrl() {
    const params = new URLSearchParams();
    params.set("game", state.game);
    if (state.start) params.set("board", state.start);
    if (state.cursor) params.set("moves", state.moves.slice(0, state.cursor).join(","));
    if (state.mode !== "both") params.set("play", state.mode);
    const url = `${location.pathname}?${params.toString().replace(/%2F/g, "/").replace(/%2C/g, ",")}`;
    history.replaceState(null, "", url);
    const example = `curl '${location.origin}/api/v1/${state.game}?board=${state.position.board}'`;
    $("#api-example").textContent = example;
  }

  async function readUrl() {
    const params = new URLSearchParams(location.search);
    const wanted = params.get("game");
    const served = state.games.map((game) => game.name);
    state.game = served[0];
    if (wanted) {
      const match = state.games.find((game) => game.name === wanted || game.name === `${wanted}k${Math.min(...wanted.split("x").map(Number))}`);
      if (match) state.game = match.name;
      else showError(`The game ${wanted} is not served here. ${state.more}`);
    }
    const play = params.get("play");
    if (play === "X" || play === "O") state.mode = play;
    const board = params.get("board");
    if (board) {
      try {
        const p = await lookup(board);
        state.start = /[XO]/.test(p.board) ? p.board : "";
      } catch (error) {
        showError(`The board in the link cannot be shown: ${error.message}`);
      }
    }
    const moves = params.get("moves");
    if (moves) {
      const cells = moves.split(/[,\s]+/).filter(Boolean).map(Number);
      const ok = cells.every((cell) => Number.isInteger(cell) && cell >= 0 && cell < info().cells);
      if (ok) {
        state.moves = cells;
        state.cursor = cells.length;
      } else {
        showError(`The moves in the link cannot be read: ${moves}`);
      }
    }
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

  async function onPaste(event) {
    event.preventDefault();
    const text = $("#paste").value.trim();
    try {
      const analysis = await api(`/api/v1/${encodeURIComponent(state.game)}/analyze?moves=${encodeURIComponent(text)}`);
      state.start = "";
      state.moves = analysis.moves;
      state.cursor = analysis.moves.length;
      state.analysis = analysis;
      showError("");
      update();
    } catch (error) {
      showError(error.message);
    }
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
    $("#mode").addEventListener("change", (event) => { state.mode = event.target.value; update(); });
    $("#game").addEventListener("change", (event) => {
      state.game = event.target.value;
      $("#paste").placeholder = info().cells > 9 ? "5 0 10  or  1,1 0,0 2,2" : "4 0 8  or  1,1 0,0 2,2";
      reset();
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
    $("#more").textContent = `Serving ${state.games.map((game) => game.name).join(", ")}. ${listing.more}.`;
    const select = $("#game");
    for (const game of state.games) {
      const option = document.createElement("option");
      option.value = game.name;
      option.textContent = `${game.name} (${game.rows}×${game.cols}, ${game.k} in a row)`;
      select.append(option);
    }
    await readUrl();
    select.value = state.game;
    $("#mode").value = state.mode;
    refreshAnalysis();
    update();
  }

  init();
})();
