// The Arbiter console: plain JavaScript over the public /v1 API.  Tokens live in sessionStorage only and go out in
// the Authorization header; everything shown is set with textContent (never parsed as HTML), so names are text.
"use strict";

const page = document.body.dataset.page;
const gameId = document.body.dataset.game;
const $ = (id) => document.getElementById(id);
const key = (what) => `arbiter:${gameId || "-"}:${what}`;

function token() { return sessionStorage.getItem(key("token")); }
function otherTokens() { return JSON.parse(sessionStorage.getItem(key("tokens")) || "{}"); }

async function api(path, { method = "GET", body, as, raw } = {}) {
  const headers = {};
  const tok = as === undefined ? token() : as;
  if (tok) headers.Authorization = `Bearer ${tok}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`/v1${path}`, {
    method, headers, body: raw ? body : body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
  });
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = text; }
  if (!response.ok) {
    const err = (data && data.error) || { message: `HTTP ${response.status}` };
    const details = err.details && Object.keys(err.details).length ? ` ${JSON.stringify(err.details)}` : "";
    throw new Error(`${response.status} ${err.code || ""}: ${err.message}${details}`);
  }
  return data;
}

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}
function pretty(value) { return JSON.stringify(value, null, 2); }
function showError(e) { $("error").textContent = e ? String(e.message || e) : ""; }
function guard(fn) { return (...args) => Promise.resolve(fn(...args)).catch(showError); }

// -- the token ----------------------------------------------------------------------------------------------
let me = { role: "public" };
let game = null;

function tokenForm() {
  $("token-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const value = $("token-input").value.trim();
    if (value) sessionStorage.setItem(key("token"), value);
    $("token-input").value = "";
    await refresh(true);
  }));
  $("token-forget").addEventListener("click", guard(async () => {
    sessionStorage.removeItem(key("token"));
    sessionStorage.removeItem(key("tokens"));
    await refresh(true);
  }));
}

function roleText() {
  if (me.role === "gm") return "You are the GM.";
  if (me.role === "player") return `You are player ${me.player_id}.`;
  return "No token: you see what the public sees.";
}

// -- the game summary, board and countdown -------------------------------------------------------------------
let deadline = null;
let boardUrl = null;
let boardDrawn = null;  // the seq and token the board was drawn for: polling redraws it only when either changes

async function loadGame() {
  if (!gameId) return;
  game = await api(`/games/${encodeURIComponent(gameId)}`);
  me = game.you || { role: "public" };
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
  if (game.state && drawn !== boardDrawn) { await loadBoard(); boardDrawn = drawn; }
}

function nameOf(id) {
  const p = game && game.players.find((x) => x.id === id);
  return p ? `${p.name} (${id})` : id;
}

async function showSeed() {
  const seed = game.seed;
  if (!seed) { $("g-seed").textContent = "hidden until the end"; return; }
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(seed));
  const hex = Array.from(new Uint8Array(digest)).map((b) => b.toString(16).padStart(2, "0")).join("");
  const ok = hex === game.seed_commitment;
  $("g-seed").replaceChildren(el("code", seed), document.createTextNode(" "),
    el("span", ok ? "matches the commitment" : "does NOT match the commitment", { class: ok ? "ok" : "bad" }));
}

async function loadBoard() {
  const headers = token() ? { Authorization: `Bearer ${token()}` } : {};
  const response = await fetch(`/v1/games/${encodeURIComponent(gameId)}/board.svg`, { headers, cache: "no-store" });
  if (!response.ok) return;
  const blob = await response.blob();
  if (boardUrl) URL.revokeObjectURL(boardUrl);
  boardUrl = URL.createObjectURL(new Blob([blob], { type: "image/svg+xml" }));
  $("board").src = boardUrl;
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

// -- the timeline -------------------------------------------------------------------------------------------
let lastSeq = 0;

async function pollEvents() {
  for (;;) {
    const pageOf = await api(`/games/${encodeURIComponent(gameId)}/events?after=${lastSeq}&limit=500`);
    for (const event of pageOf.events) addEvent(event);
    if (pageOf.next_after == null) break;
  }
  const slider = $("replay-seq");
  if (slider) {
    const atEnd = Number(slider.value) === Number(slider.max);
    const grew = Number(slider.max) !== Math.max(lastSeq, 1);
    slider.max = String(Math.max(lastSeq, 1));
    if (atEnd && grew) { slider.value = slider.max; await showReplay(); }  // following the game live
  }
}

function addEvent(event) {
  if (event.seq <= lastSeq) return;
  lastSeq = event.seq;
  const item = el("li", null, { value: String(event.seq), "data-seq": String(event.seq) });
  const details = el("details");
  const actor = event.actor ? ` by ${event.actor}` : "";
  details.append(el("summary", `#${event.seq} ${event.type}${actor} — ${event.at}`));
  const receipt = { game_id: gameId, seq: event.seq, hash: event.hash, prev_hash: event.prev_hash, at: event.at };
  details.append(el("p", `hash ${event.hash}`, { class: "note" }), el("h3", "Receipt"), el("pre", pretty(receipt)),
    el("h3", "Event"), el("pre", pretty(event)));
  item.append(details);
  $("timeline").prepend(item);
}

// -- GM actions -------------------------------------------------------------------------------------------------
function gmForm() {
  $("gm-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const type = $("gm-action").value;
    const reason = $("gm-reason").value.trim();
    const path = `/games/${encodeURIComponent(gameId)}`;
    let answer;
    if (type === "start") {
      answer = await api(`${path}/start`, { method: "POST" });
    } else {
      const body = { type, reason };
      if (type === "gm.extend_deadline") body.seconds = Number($("gm-seconds").value);
      if (type === "gm.eject") body.player_id = $("gm-player").value;
      answer = await api(`${path}/actions`, { method: "POST", body });
    }
    $("gm-result").textContent = `Done: seq ${answer.seq}, hash ${answer.hash}`;
    showError(null);
    await refresh(false);
  }));
  $("extra-token-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const value = $("extra-token").value.trim();
    $("extra-token").value = "";
    const seen = await api(`/games/${encodeURIComponent(gameId)}`, { as: value });
    if (!seen.you || seen.you.role !== "player") throw new Error("That is not a player's token of this game.");
    const tokens = otherTokens();
    tokens[seen.you.player_id] = value;
    sessionStorage.setItem(key("tokens"), JSON.stringify(tokens));
    $("gm-result").textContent = `Added ${seen.you.player_id} for "view as".`;
    viewAsOptions();
  }));
}

function gmPlayers() {
  const select = $("gm-player");
  const chosen = select.value;
  select.replaceChildren(...game.players.filter((p) => !p.ejected).map((p) => el("option", `${p.name} (${p.id})`,
    { value: p.id })));
  if (chosen) select.value = chosen;
}

// -- replay and "view as" -------------------------------------------------------------------------------------
function viewAsOptions() {
  const select = $("replay-as");
  const chosen = select.value;
  const options = [];
  if (me.role === "gm") options.push(el("option", "GM", { value: "gm" }));
  if (me.role === "player") options.push(el("option", `${me.player_id} (you)`, { value: `p:${me.player_id}` }));
  options.push(el("option", "Public", { value: "public" }));
  const tokens = otherTokens();
  for (const p of game.players) {
    if (me.role === "player" && p.id === me.player_id) continue;
    const known = tokens[p.id] ? "" : " — public view (no token in this tab)";
    options.push(el("option", `${p.name} (${p.id})${known}`, { value: `p:${p.id}` }));
  }
  select.replaceChildren(...options);
  if (chosen && [...select.options].some((o) => o.value === chosen)) select.value = chosen;
}

function viewerToken(choice) {
  if (choice === "gm") return token();
  if (choice === "public") return null;
  const id = choice.slice(2);
  if (me.role === "player" && me.player_id === id) return token();
  return otherTokens()[id] || null;
}

let replayAsked = 0;  // only the latest request's frame is shown: answers may come back out of order

async function showReplay() {
  const asked = ++replayAsked;
  const at = Number($("replay-seq").value);
  $("replay-at").textContent = String(at);
  const choice = $("replay-as").value || "public";
  const tok = viewerToken(choice);
  const note = choice.startsWith("p:") && !tok ?
    "The API gives a player's view only to that player's token: this is the public view (and, for the GM, what " +
    "the GM saw). Add the player's token (GM section) to see exactly what they saw." : "";
  const frame = await api(`/games/${encodeURIComponent(gameId)}/replay?at=${at}`, { as: tok });
  // A player's view the API will not give the GM: beside the public view, what the GM saw (a superset of it).
  const withGm = Boolean(note) && me.role === "gm";
  const gmFrame = withGm ? await api(`/games/${encodeURIComponent(gameId)}/replay?at=${at}`) : null;
  if (asked !== replayAsked) return;
  $("replay-gm-box").hidden = !withGm;
  $("replay-gm").textContent = gmFrame ? pretty({ event: gmFrame.event, state: gmFrame.view && gmFrame.view.state })
    : "";
  $("replay-note").textContent = note;
  $("replay-event").textContent = pretty(frame.event);
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

// -- audit, verify, reports ----------------------------------------------------------------------------------
function verdict(target, result, recorded) {
  const first = result.divergences && result.divergences[0];
  if (result.ok) {
    target.replaceChildren(el("p", `Checks out: ${result.events} events, ${result.outcomes.checked} outcomes ` +
      `recomputed (seed ${result.outcomes.seed}).`, { class: "ok" }));
    return;
  }
  const nodes = [el("p", `Does not check out: first divergence at seq ${first.seq} (${first.check}): ` +
    `${first.problem}`, { class: "bad" })];
  if (recorded) {
    const side = el("div", null, { class: "side" });
    const left = el("div"); left.append(el("h3", "Recorded"), el("pre", pretty(recorded)));
    const right = el("div"); right.append(el("h3", "Recomputed"), el("pre", first.problem));
    side.append(left, right);
    nodes.push(side, el("p", "The audit names what differs from a fresh computation; the API does not return the " +
      "recomputed event itself.", { class: "note" }));
  }
  target.replaceChildren(...nodes);
}

function auditButton() {
  $("audit-run").addEventListener("click", guard(async () => {
    const result = await api(`/games/${encodeURIComponent(gameId)}/audit`);
    let recorded = null;
    if (!result.ok) {
      const seq = result.divergences[0].seq;
      const one = await api(`/games/${encodeURIComponent(gameId)}/events?after=${seq - 1}&limit=1`);
      recorded = one.events[0] || null;
    }
    verdict($("audit-result"), result, recorded);
  }));
}

function verifyForm() {
  $("verify-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const file = $("verify-file").files[0];
    const out = $("verify-verdict");
    if (!file) return;
    const text = await file.text();
    let events = [];
    try { events = JSON.parse(text).events || []; } catch (e) { events = []; }
    const result = await api("/replays/verify", { method: "POST", body: text, raw: true, as: null })
      .catch((e) => { out.replaceChildren(el("p", `Not checked: ${e.message}`, { class: "bad" })); return null; });
    if (!result) return;
    const first = result.divergences && result.divergences[0];
    const recorded = first && Array.isArray(events) ? events.find((e) => e && e.seq === first.seq) : null;
    verdict(out, result, recorded || null);
  }));
}

function reportForm() {
  $("report-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const format = $("report-format").value;
    const round = $("report-round").value;
    const query = `format=${encodeURIComponent(format)}${round ? `&round=${encodeURIComponent(round)}` : ""}`;
    const body = await api(`/games/${encodeURIComponent(gameId)}/report?${query}`);
    $("report-text").textContent = typeof body.report === "string" ? body.report : pretty(body.report);
  }));
  $("report-copy").addEventListener("click", guard(async () => {
    await navigator.clipboard.writeText($("report-text").textContent);
    $("report-copy").textContent = "Copied";
    setTimeout(() => { $("report-copy").textContent = "Copy"; }, 1500);
  }));
}

// -- the player's page ----------------------------------------------------------------------------------------
let types = null;
let formPhase = null;
let documentSchemas = null;

async function orderForm() {
  if (!types) {
    types = (await api("/game-types", { as: null })).game_types;
    documentSchemas = (await fetch("/v1/openapi.json").then((r) => r.json())).components.schemas;
  }
  const type = types.find((t) => t.name === game.type);
  const phase = game.phase && (game.phase.name || game.phase.kind);
  const actions = type.actions.filter((a) => a.actor === "player" && (!phase || a.phases.includes(phase)));
  const select = $("order-type");
  const chosen = select.value;
  select.replaceChildren(...actions.map((a) => el("option", a.type, { value: a.type })));
  if (chosen && actions.some((a) => a.type === chosen)) select.value = chosen;
  orderFields();
}

function orderFields() {
  const type = types.find((t) => t.name === game.type);
  const action = type.actions.find((a) => a.type === $("order-type").value);
  const box = $("order-fields");
  box.replaceChildren();
  $("order-help").textContent = action ? action.description : "No order is open to you now.";
  if (!action) return;
  const schema = documentSchemas[action.schema] || { properties: {} };
  for (const [name, prop] of Object.entries(schema.properties || {})) {
    if (name === "type" || name === "on_behalf_of") continue;
    const id = `order-${name}`;
    box.append(el("label", `${name}${prop.description ? ` — ${prop.description}` : ""}`, { for: id }));
    let input;
    const example = action.example ? action.example[name] : undefined;
    if (prop.enum) {
      input = el("select", null, { id, "data-kind": "string" });
      input.append(...prop.enum.filter((v) => v !== null).map((v) => el("option", v, { value: v })));
    } else if (prop.type === "integer" || prop.type === "number") {
      input = el("input", null, { id, type: "number", "data-kind": "number" });
      if (prop.minimum !== undefined) input.min = prop.minimum;
      if (prop.maximum !== undefined) input.max = prop.maximum;
      if (example !== undefined) input.value = example;
    } else if (prop.type === "boolean") {
      input = el("input", null, { id, type: "checkbox", "data-kind": "boolean" });
    } else if (prop.type === "string") {
      input = el("input", null, { id, "data-kind": "string" });
      if (example !== undefined && example !== null) input.value = example;
    } else {
      input = el("textarea", null, { id, "data-kind": "json", rows: "2" });
      input.value = example === undefined ? "" : JSON.stringify(example);
    }
    input.dataset.field = name;
    box.append(input);
  }
}

function orderSubmit() {
  $("order-type").addEventListener("change", orderFields);
  $("order-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const body = { type: $("order-type").value };
    for (const input of $("order-fields").querySelectorAll("[data-field]")) {
      const kind = input.dataset.kind;
      if (kind === "boolean") body[input.dataset.field] = input.checked;
      else if (input.value === "") continue;
      else if (kind === "number") body[input.dataset.field] = Number(input.value);
      else if (kind === "json") body[input.dataset.field] = JSON.parse(input.value);
      else body[input.dataset.field] = input.value;
    }
    const answer = await api(`/games/${encodeURIComponent(gameId)}/actions`, { method: "POST", body });
    $("order-result").textContent = `Accepted: seq ${answer.seq}, hash ${answer.hash}`;
    showError(null);
    await refresh(false);
  }));
}

async function playerPanels() {
  $("view").textContent = pretty(game.state);
  const you = game.state && typeof game.state === "object" ? game.state.you : null;
  $("hints").textContent = you ? pretty(you) : "No hints: paste your player token.";
  // Receipts: each of this player's orders as the log holds it (what `arbiter verify` checks against an export).
  const list = $("receipts");
  const mine = [];
  if (me.role === "player") {
    for (let after = 0; after !== null;) {
      const pageOf = await api(`/games/${encodeURIComponent(gameId)}/events?after=${after}&limit=1000`);
      mine.push(...pageOf.events.filter((e) => e.actor === me.player_id && e.type === "action.submitted"));
      after = pageOf.next_after;
    }
  }
  list.replaceChildren(...mine.reverse().map((e) => el("li", JSON.stringify(
    { game_id: gameId, seq: e.seq, hash: e.hash, prev_hash: e.prev_hash, at: e.at, order: e.data.action }))));
  // The form is rebuilt only when the phase or the token changes, so polling never wipes an order being typed.
  const phaseKey = `${game.phase ? game.phase.number : "-"}:${token() || ""}`;
  if (me.role === "player" && phaseKey !== formPhase) { await orderForm(); formPhase = phaseKey; }
}

// -- start -----------------------------------------------------------------------------------------------------
async function refresh(full) {
  if (page === "index") { $("token-role").textContent = roleText(); return; }
  await loadGame();
  if (page === "game") {
    $("gm").hidden = me.role !== "gm";
    if (me.role === "gm") gmPlayers();
    if (full) { lastSeq = 0; $("timeline").replaceChildren(); }
    await pollEvents();
    if (full) $("replay-as").replaceChildren();  // a new token: view as its owner first
    viewAsOptions();
    if (full) { $("replay-seq").value = $("replay-seq").max; await showReplay(); }
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
  const listed = await api("/games", { as: null });
  $("games").replaceChildren(...listed.games.map((g) => {
    const item = el("li");
    item.append(el("a", g.name || g.game_id, { href: `/console/games/${encodeURIComponent(g.game_id)}` }),
      document.createTextNode(` — ${g.type}, ${g.status}`));
    return item;
  }));
}

document.addEventListener("DOMContentLoaded", guard(async () => {
  tokenForm();
  if ($("verify-form")) verifyForm();
  if (page === "index") { await index(); await refresh(true); return; }
  if (page === "game") { gmForm(); replayForm(); auditButton(); reportForm(); }
  if (page === "play") orderSubmit();
  await refresh(true);
  setInterval(tick, 1000);
  setInterval(guard(() => refresh(false)), 4000);
}));
