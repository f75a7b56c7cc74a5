// The Arbiter console: plain JavaScript modules over the public /v1 API (common.js), no build step.  This one starts
// each page and draws the game, its timeline (live from the stream where there is one: live.js), the GM's actions,
// the replay and the reports; audit.js the audit and verify panels; play.js a player's page.
import { $, api, el, forgetToken, gameId, gamePath, guard, keepToken, page, pictureUrl, pretty, session, showError,
  showPicture, token } from "./common.js";
import { auditButton, verifyForm } from "./audit.js";
import * as live from "./live.js";
import { orderSubmit, playerPanels } from "./play.js";

// -- the token ----------------------------------------------------------------------------------------------
function tokenForm() {
  $("token-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const value = $("token-input").value.trim();
    if (value) keepToken(value);
    $("token-input").value = "";
    await refresh(true);
  }));
  $("token-forget").addEventListener("click", guard(async () => {
    forgetToken();
    await refresh(true);
  }));
}

function roleText() {
  const { me } = session;
  if (me.role === "gm") return "You are the GM.";
  if (me.role === "player") return `You are player ${me.player_id}.`;
  return "No token: you see what the public sees.";
}

// -- the game summary, board and countdown -------------------------------------------------------------------
let deadline = null;
let boardDrawn = null;  // the seq and token the board was drawn for: a refresh redraws it only when either changes

async function loadGame() {
  if (!gameId) return;
  const game = await api(gamePath());
  session.game = game;
  session.me = game.you || { role: "public" };
  $("token-role").textContent = roleText();
  $("g-type").textContent = `${game.type} ${game.version}${game.name ? ` — ${game.name}` : ""}`;
  $("g-status").textContent = game.status;
  const phase = game.phase;
  $("g-phase").textContent = phase ? `${phase.name || phase.kind || ""} (#${phase.number})` : "none";
  $("g-awaiting").textContent = phase && phase.awaiting ? (phase.awaiting.map(nameOf).join(", ") || "nobody") : "-";
  deadline = phase && phase.deadline ? new Date(phase.deadline) : null;
  $("g-deadline").textContent = phase && phase.deadline ? phase.deadline :
    phase && phase.paused_remaining_seconds != null ? `paused (${phase.paused_remaining_seconds} s left)` : "none";
  tick();
  if ($("g-players")) $("g-players").textContent = game.players.map((p) =>
    `${p.name} (${p.id}${p.ejected ? ", ejected" : ""}${p.left ? ", left" : ""})`).join(", ") || "none yet";
  if ($("g-commitment")) $("g-commitment").textContent = game.seed_commitment || "";
  if ($("g-seed")) await showSeed();
  const drawn = `${game.seq}:${token() || ""}`;
  if (game.state && drawn !== boardDrawn) {
    showPicture($("board"), await pictureUrl(`${gamePath()}/board.svg`));
    boardDrawn = drawn;
  }
}

function nameOf(id) {
  const p = session.game && session.game.players.find((x) => x.id === id);
  return p ? `${p.name} (${id})` : id;
}

async function showSeed() {
  const { game } = session;
  const seed = game.seed;
  if (!seed) { $("g-seed").textContent = "hidden until the end"; return; }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(seed));
  const hex = Array.from(new Uint8Array(digest)).map((b) => b.toString(16).padStart(2, "0")).join("");
  const ok = hex === game.seed_commitment;
  $("g-seed").replaceChildren(el("code", seed), document.createTextNode(" "),
    el("span", ok ? "matches the commitment" : "does NOT match the commitment", { class: ok ? "ok" : "bad" }));
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

// -- the timeline: polled from /events, or live from the stream ------------------------------------------------
let lastSeq = 0;

async function pollEvents() {
  for (;;) {
    const pageOf = await api(`${gamePath()}/events?after=${lastSeq}&limit=500`);
    for (const event of pageOf.events) addEvent(event, "poll");
    if (pageOf.next_after == null) break;
  }
}

// ``via``: where the page heard of it ("poll" or "stream"), kept on the item.
function addEvent(event, via) {
  if (event.seq <= lastSeq) return;
  lastSeq = event.seq;
  const item = el("li", null, { value: String(event.seq), "data-seq": String(event.seq), "data-via": via });
  const details = el("details");
  const actor = event.actor ? ` by ${event.actor}` : "";
  details.append(el("summary", `#${event.seq} ${event.type}${actor} — ${event.at}`));
  const receipt = { game_id: gameId, seq: event.seq, hash: event.hash, prev_hash: event.prev_hash, at: event.at };
  details.append(el("p", `hash ${event.hash}`, { class: "note" }), el("h3", "Receipt"), el("pre", pretty(receipt)),
    el("h3", "Event"), el("pre", pretty(event)));
  item.append(details);
  $("timeline").prepend(item);
}

// The replay's slider reaches the newest seq; a slider at the end (or ``anew``: a page opened or a token changed)
// follows the game.
async function timelineMoved(anew) {
  const slider = $("replay-seq");
  const atEnd = Number(slider.value) === Number(slider.max);
  const grew = Number(slider.max) !== Math.max(lastSeq, 1);
  slider.max = String(Math.max(lastSeq, 1));
  if (anew || (atEnd && grew)) { slider.value = slider.max; await showReplay(); }
}

let catchingUp = null;  // one refresh at a time after stream events, however many arrive together

function heardLive(event, via) {
  addEvent(event, via);
  if (!catchingUp) {
    catchingUp = setTimeout(guard(async () => { catchingUp = null; await refresh(false); }), 150);
  }
}

// -- GM actions -------------------------------------------------------------------------------------------------
function gmForm() {
  $("gm-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const type = $("gm-action").value;
    const reason = $("gm-reason").value.trim();
    let answer;
    if (type === "start") {
      answer = await api(`${gamePath()}/start`, { method: "POST" });
    } else {
      const body = { type, reason };
      if (type === "gm.extend_deadline") body.seconds = Number($("gm-seconds").value);
      if (type === "gm.eject") body.player_id = $("gm-player").value;
      answer = await api(`${gamePath()}/actions`, { method: "POST", body });
    }
    $("gm-result").textContent = `Done: seq ${answer.seq}, hash ${answer.hash}`;
    showError(null);
    await refresh(false);
  }));
}

function gmPlayers() {
  const select = $("gm-player");
  const chosen = select.value;
  select.replaceChildren(...session.game.players.filter((p) => !p.ejected).map((p) =>
    el("option", `${p.name} (${p.id})`, { value: p.id })));
  if (chosen) select.value = chosen;
}

// -- replay and "view as": the board and the state at a seq as one viewer saw them (the API's ``at`` and ``as``) --
function viewAsOptions() {
  const { me, game } = session;
  const select = $("replay-as");
  const chosen = select.value;
  const options = [];
  if (me.role === "gm") options.push(el("option", "GM", { value: "gm" }));
  if (me.role === "player") options.push(el("option", `${me.player_id} (you)`, { value: me.player_id }));
  options.push(el("option", "Public", { value: "public" }));
  if (me.role === "gm") {
    for (const p of game.players) options.push(el("option", `${p.name} (${p.id})`, { value: p.id }));
  }
  select.replaceChildren(...options);
  if (chosen && [...select.options].some((o) => o.value === chosen)) select.value = chosen;
}

let replayAsked = 0;  // only the latest request's frame is shown: answers may come back out of order

async function showReplay() {
  const asked = ++replayAsked;
  const at = Number($("replay-seq").value);
  $("replay-at").textContent = String(at);
  const viewer = $("replay-as").value || "public";
  const query = `at=${at}&as=${encodeURIComponent(viewer)}`;
  const frame = await api(`${gamePath()}/replay?${query}`);
  const picture = frame.view && frame.view.state ? await pictureUrl(`${gamePath()}/board.svg?${query}`) : null;
  if (asked !== replayAsked) { if (picture) URL.revokeObjectURL(picture); return; }
  const event = frame.event;
  const who = $("replay-as").selectedOptions[0];
  $("replay-line").textContent = `#${frame.seq} ${event.type}${event.actor ? ` by ${event.actor}` : ""} — ` +
    `${event.at}, as ${who ? who.textContent : viewer} saw it`;
  showPicture($("replay-board"), picture);
  $("replay-board").alt = `The board just after seq ${frame.seq}, as ${who ? who.textContent : viewer} saw it`;
  $("replay-note").textContent = picture ? "" : "No board yet: the game had not started at this seq.";
  $("replay-event").textContent = pretty(event);
  $("replay-view").textContent = pretty(frame.view ? frame.view.state : null);
}

function replayForm() {
  const slider = $("replay-seq");
  slider.addEventListener("change", guard(showReplay));
  slider.addEventListener("input", () => { $("replay-at").textContent = slider.value; });
  $("replay-as").addEventListener("change", guard(showReplay));
  $("replay-back").addEventListener("click", guard(async () => {
    slider.value = String(Math.max(1, Number(slider.value) - 1)); await showReplay();
  }));
  $("replay-next").addEventListener("click", guard(async () => {
    slider.value = String(Math.min(Number(slider.max), Number(slider.value) + 1)); await showReplay();
  }));
}

// -- reports ---------------------------------------------------------------------------------------------------
function reportForm() {
  $("report-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const format = $("report-format").value;
    const round = $("report-round").value;
    const query = `format=${encodeURIComponent(format)}${round ? `&round=${encodeURIComponent(round)}` : ""}`;
    const body = await api(`${gamePath()}/report?${query}`);
    $("report-text").textContent = typeof body.report === "string" ? body.report : pretty(body.report);
  }));
  $("report-copy").addEventListener("click", guard(async () => {
    await navigator.clipboard.writeText($("report-text").textContent);
    $("report-copy").textContent = "Copied";
    setTimeout(() => { $("report-copy").textContent = "Copy"; }, 1500);
  }));
}

// -- start -----------------------------------------------------------------------------------------------------
// ``full``: the token changed (or the page opened): everything is drawn again for it, and the stream reopened.
async function refresh(full) {
  if (page === "index") { $("token-role").textContent = roleText(); return; }
  if (full && page === "game") live.stop();  // what the last token's stream would still say is not for this one
  await loadGame();
  if (page === "game") {
    $("gm").hidden = session.me.role !== "gm";
    if (session.me.role === "gm") gmPlayers();
    if (full) { lastSeq = 0; $("timeline").replaceChildren(); $("replay-as").replaceChildren(); }
    if (full || !live.noPolling()) await pollEvents();
    viewAsOptions();
    await timelineMoved(full);
    if (full) live.start(() => lastSeq, heardLive, session.game.status === "finished");
  } else if (page === "play") {
    await playerPanels();
  }
}

async function index() {
  $("open-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    window.location.assign(`/console/games/${encodeURIComponent($("open-id").value.trim())}`);
  });
  $("open-play").addEventListener("click", () => {
    if ($("open-form").reportValidity())
      window.location.assign(`/console/games/${encodeURIComponent($("open-id").value.trim())}/play`);
  });
  const listed = await api("/games", { bearer: null });
  $("games").replaceChildren(...listed.games.map((g) => {
    const item = el("li");
    item.append(el("a", g.name || g.game_id, { href: `/console/games/${encodeURIComponent(g.game_id)}` }),
      document.createTextNode(` — ${g.type}, ${g.status}`));
    return item;
  }));
}

async function boot() {
  tokenForm();
  if ($("verify-form")) verifyForm();
  if (page === "index") { await index(); await refresh(true); return; }
  if (page === "game") { gmForm(); replayForm(); auditButton(); reportForm(); }
  if (page === "play") orderSubmit(() => refresh(false));
  await refresh(true);
  setInterval(tick, 1000);
  // Polling, where the timeline is not live: the game page's timeline and summary, the player's page.
  setInterval(guard(() => (live.noPolling() && page === "game" ? null : refresh(false))), 4000);
}

guard(boot)();
