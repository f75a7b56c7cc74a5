// The Arbiter console: plain JavaScript modules over the public /v1 API (common.js), no build step.  This one starts
// each page, keeps the token and draws the game's summary; timeline.js the timeline and replay (live from the stream
// where there is one: live.js), reports.js the forum report, gm.js the GM's tools, audit.js the audit and verify
// panels, play.js the orders.
import { $, api, dropPendingToken, el, forgetToken, gameId, gamePath, guard, keepPendingToken, keepToken, page,
  pendingToken, picture, session, showError, showPicture, token } from "./common.js";
import { auditButton, verifyForm } from "./audit.js";
import { createForm, gmForm, gmPanel } from "./gm.js";
import * as live from "./live.js";
import { behalfChoice, behalfPanel, olderReceipts, orderSubmit, playerPanels } from "./play.js";
import { reportForm, reportMoved } from "./reports.js";
import { sha256Hex } from "./sha256.js";
import * as timeline from "./timeline.js";

// -- the token: kept only once the API has taken it for this game ------------------------------------------------
async function useToken(value) {
  if (!gameId) { keepPendingToken(value); return; }
  try {
    await api(gamePath(), { bearer: value });
  } catch (e) {
    if (e.status === 401 || e.status === 403 || e.status === 429) {
      throw new Error(`${e.message} — this token was not kept: the page goes on as before.`);
    }
    throw e;
  }
  keepToken(value);
}

function tokenForm() {
  $("token-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const value = $("token-input").value.trim();
    $("token-input").value = "";
    if (value) await useToken(value);
    showError(null, "token-error");
    await refresh(true);
  }, "token-error"));
  $("token-forget").addEventListener("click", guard(async () => {
    forgetToken();
    dropPendingToken();
    showError(null, "token-error");
    await refresh(true);
  }, "token-error"));
}

// A token pasted on the index page comes with the first game page opened after it, kept if it is that game's.
async function adoptPendingToken() {
  const pending = pendingToken();
  if (!pending || !gameId) return;
  dropPendingToken();
  if (token()) return;
  try { await useToken(pending); } catch (e) { showError(e, "token-error"); }
}

function roleText() {
  const { me } = session;
  if (me.role === "gm") return "You are the GM.";
  if (me.role === "player") return `You are player ${me.player_id}.`;
  if (page === "index") return pendingToken() ? "A token is ready for the game you open." : "";
  return "No token: you see what the public sees.";
}

// -- the game summary, board and countdown -------------------------------------------------------------------
let deadline = null;
let boardDrawn = null;  // the seq and token the board was drawn for: a refresh redraws it only when either changes

async function loadGame() {
  let game;
  try {
    game = await api(gamePath());
  } catch (e) {
    if (e.status === 401 && token()) {  // a token that no longer works is dropped, not sent every 4 s
      forgetToken();
      showError(new Error(`${e.message} — the token was forgotten.`), "token-error");
      game = await api(gamePath());
    } else throw e;
  }
  session.game = game;
  session.me = game.you || { role: "public" };
  $("token-role").textContent = roleText();
  $("g-type").textContent = `${game.type} ${game.version}${game.name ? ` — ${game.name}` : ""}`;
  $("g-status").textContent = game.status;
  const phase = game.phase;
  $("g-phase").textContent = phase ? `${phase.name || phase.kind || ""} (#${phase.number})` +
    `${phase.prompt ? ` — ${phase.prompt}` : ""}` : "none";
  $("g-awaiting").textContent = phase && phase.awaiting ? (phase.awaiting.map(nameOf).join(", ") || "nobody") : "-";
  deadline = phase && phase.deadline ? new Date(phase.deadline) : null;
  $("g-deadline").textContent = phase && phase.deadline ? `${phase.deadline} (${deadline.toLocaleString()})` :
    phase && phase.paused_remaining_seconds != null ? `paused (${phase.paused_remaining_seconds} s left)` : "none";
  tick();
  if ($("g-players")) $("g-players").textContent = game.players.map((p) =>
    `${p.name} (${p.id}${p.ejected ? ", ejected" : ""}${p.left ? ", left" : ""})`).join(", ") || "none yet";
  if ($("g-commitment")) $("g-commitment").textContent = game.seed_commitment || "";
  if ($("g-seed")) showSeed();
  const drawn = `${game.seq}:${token() || ""}`;
  if (game.state && drawn !== boardDrawn) {
    boardDrawn = drawn;
    guard(drawBoard)(game, drawn);  // not awaited: the page is usable while the picture comes
  }
}

async function drawBoard(game, drawn) {
  const shown = await picture(`${gamePath()}/board.svg`);
  if (drawn !== boardDrawn) { if (shown) URL.revokeObjectURL(shown.url); return; }
  showPicture($("board"), shown, `The ${game.type} board at seq ${game.seq}, as your view shows it`);
}

function nameOf(id) {
  const p = session.game && session.game.players.find((x) => x.id === id);
  return p ? `${p.name} (${id})` : id;
}

// The seed, which predicts every draw, stays hidden on the GM's screen until a click (once the game is over it is
// public, and shown); its check against the commitment needs no secure context (sha256.js).
let seedShownFor = null;

function showSeed() {
  const { game } = session;
  const seed = game.seed;
  const box = $("g-seed");
  if (!seed) { box.textContent = "hidden until the end"; seedShownFor = null; return; }
  if (seedShownFor === `${gameId}:${seed}:${game.status}`) return;
  seedShownFor = `${gameId}:${seed}:${game.status}`;
  const reveal = () => {
    const ok = sha256Hex(seed) === game.seed_commitment;
    box.replaceChildren(el("code", seed), document.createTextNode(" "),
      el("span", ok ? "matches the commitment" : "does NOT match the commitment", { class: ok ? "ok" : "bad" }));
  };
  if (game.status === "finished") { reveal(); return; }
  const button = el("button", "Show the seed", { type: "button", id: "seed-show" });
  button.addEventListener("click", reveal);
  box.replaceChildren(el("span", "Secret: whoever sees it can predict every draw of the game. ", { class: "note" }),
    button);
}

function tick() {
  const out = $("g-countdown");
  if (!out) return;
  if (!deadline) { out.textContent = ""; return; }
  let left = Math.round((deadline - Date.now()) / 1000);
  if (left <= 0) { out.textContent = "deadline passed"; return; }
  const d = Math.floor(left / 86400); left %= 86400;
  const h = Math.floor(left / 3600); left %= 3600;
  const m = Math.floor(left / 60); const s = left % 60;
  out.textContent = `${d ? `${d}d ` : ""}${h}h ${String(m).padStart(2, "0")}m ${String(s).padStart(2, "0")}s left`;
}

// -- the timeline, live --------------------------------------------------------------------------------------------
let catchingUp = null;  // one refresh at a time after stream events, however many arrive together

function heardLive(event, via) {
  timeline.addEvent(event, via);
  if (!catchingUp) {
    catchingUp = setTimeout(guard(async () => { catchingUp = null; await refresh(false); }), 150);
  }
}

// -- start -----------------------------------------------------------------------------------------------------
// ``full``: the token changed (or the page opened): everything is drawn again for it, and the stream reopened.
// Refreshes run one at a time, in the order asked (a token pasted while the page still draws for the last one).
let refreshing = Promise.resolve();

function refresh(full) {
  const next = refreshing.catch(() => null).then(() => drawAll(full));
  refreshing = next;
  return next;
}

async function drawAll(full) {
  if (page === "index") { $("token-role").textContent = roleText(); return; }
  if (full && page === "game") live.stop();  // what the last token's stream would still say is not for this one
  await loadGame();
  showError(null);
  if (page === "game") {
    const gm = session.me.role === "gm";
    $("gm").hidden = !gm;
    if (full) timeline.reset();
    if (full || !live.noPolling()) await timeline.pollEvents();
    // The stream opens as soon as the timeline has its events (the GM's panels come after).
    if (full) live.start(timeline.newest, heardLive, session.game.status === "finished");
    timeline.viewAsOptions();
    guard(reportMoved, "report-error")();  // not awaited: the report follows on its own
    if (gm) { await gmPanel(); await guard(behalfPanel, "order-error")(); } else $("orders").hidden = true;
    await timeline.timelineMoved(full);
  } else if (page === "play") {
    await playerPanels();
    await guard(reportMoved, "report-error")();
  }
}

async function index() {
  const open = (suffix) => {
    const id = $("open-id").value.trim();
    window.location.assign(`/console/games/${encodeURIComponent(id)}${suffix}`);
  };
  $("open-form").addEventListener("submit", (ev) => { ev.preventDefault(); open(""); });
  $("open-play").addEventListener("click", () => { if ($("open-form").reportValidity()) open("/play"); });
  await createForm();
  const listed = await api("/games", { bearer: null });
  $("games").replaceChildren(...listed.games.map((g) => {
    const entry = el("li");
    entry.append(el("a", g.name || g.game_id, { href: `/console/games/${encodeURIComponent(g.game_id)}` }),
      document.createTextNode(` — ${g.type}, ${g.status}`));
    return entry;
  }));
}

let polling = false;  // one poll at a time: a slow answer never piles requests up

async function poll() {
  if (polling || (live.noPolling() && page === "game")) return;
  polling = true;
  try { await refresh(false); } finally { polling = false; }
}

async function boot() {
  tokenForm();
  if ($("verify-form")) verifyForm();
  if (page === "index") { await index(); await refresh(true); return; }
  await adoptPendingToken();
  reportForm();
  if (page === "game") { gmForm(() => refresh(false)); timeline.replayForm(); auditButton(); behalfChoice(); }
  orderSubmit(() => refresh(false));
  if (page === "play") olderReceipts();
  await refresh(true);
  setInterval(tick, 1000);
  // Polling, where the timeline is not live: the game page's timeline and summary, the player's page.
  setInterval(guard(poll), 4000);
}

guard(boot)();
