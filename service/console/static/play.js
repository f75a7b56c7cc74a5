// Orders: a player's page (their view and hints, the order form, their receipts) and the GM's "order on a player's
// behalf".  The form offers the orders the player's hint opens now (hints.js), each built from its schema in
// /v1/openapi.json (forms.js).
import { $, api, el, gameId, gamePath, guard, pretty, session, showError, token } from "./common.js";
import { buildFields } from "./forms.js";
import { knows, openOrder } from "./hints.js";

let catalogue = null;  // the game types and the OpenAPI document's schemas, fetched once

export async function schemas() {
  if (!catalogue) {
    const [types, document] = await Promise.all([api("/game-types", { bearer: null }), api("/openapi.json",
      { bearer: null })]);
    catalogue = { types: types.game_types, schemas: withEnumsInline(document.components.schemas) };
  }
  return catalogue;
}

// The document shares each order's enums as components (``{$ref}``, or ``{allOf: [{$ref}], ...}`` beside a
// description or nullable); the forms read an enum where it is used, so each reference to one is put back inline.
function withEnumsInline(all) {
  const enumOf = (node) => {
    const ref = node && (node.$ref || (node.allOf && node.allOf.length === 1 && node.allOf[0].$ref));
    const target = ref && all[ref.split("/").pop()];
    return target && target.enum ? target : null;
  };
  const inline = (node) => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== "object") return node;
    const target = enumOf(node);
    if (target) {
      const { $ref, allOf, ...rest } = node;
      return { ...target, ...rest };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
  };
  return inline(all);
}

export async function gameType() {
  const { types } = await schemas();
  return types.find((t) => t.name === session.game.type);
}

// The orders ``view`` (a player's) opens now, each with its bounds; a game without a hint reader offers the phase's.
async function openOrders(view, playerId) {
  const type = await gameType();
  const { schemas: all } = await schemas();
  const phase = session.game.phase;
  const open = [];
  for (const action of type.actions.filter((a) => a.actor === "player")) {
    const schema = all[action.schema] || { properties: {} };
    let bounds;
    if (knows(type.name)) bounds = openOrder(type.name, view, action.type, schema);
    else if (phase && phase.awaiting.includes(playerId) && (!action.phases.length || action.phases.includes(phase.name)))
      bounds = { legal: {} };
    if (bounds) open.push({ action, schema, ...bounds });
  }
  return open;
}

let reading = null;  // reads the form's body; null while no order is open
let justSent = false;  // the refresh after an accepted order keeps its receipt line

// Build the form in ``form`` (the page's #order-form) for ``view``; ``playerId`` whose view it is.
async function drawForm(view, playerId) {
  const open = await openOrders(view, playerId);
  const select = $("order-type");
  const chosen = select.value;
  select.replaceChildren(...open.map((o) => el("option", o.action.type, { value: o.action.type })));
  if (chosen && open.some((o) => o.action.type === chosen)) select.value = chosen;
  if (!justSent) $("order-result").textContent = "";  // an old receipt never stands beside a new form
  showError(null, "order-error");
  const draw = () => {
    const one = open.find((o) => o.action.type === select.value);
    $("order-send").disabled = !one;
    // The phase's prompt speaks to whom it awaits ("Your turn: …"): another player is told whom it awaits.
    const phase = session.game.phase;
    const names = (phase ? phase.awaiting : []).map((id) => {
      const p = session.game.players.find((x) => x.id === id);
      return p ? p.name : id;
    });
    $("order-help").textContent = one ? one.action.description
      : `No order is open to ${session.me.role === "gm" ? "this player" : "you"} now` +
        `${names.length ? `: the phase awaits ${names.join(", ")}` : ""}.`;
    reading = one ? buildFields($("order-fields"), one.schema, { example: one.action.example, legal: one.legal,
      order: one.order || [], skip: ["type", "on_behalf_of"], prefix: "order" }) : null;
    if (!one) $("order-fields").replaceChildren();
  };
  select.onchange = draw;
  draw();
}

// ``sent``: what the page does once an order is accepted (refresh what it shows).
export function orderSubmit(sent) {
  $("order-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    $("order-result").textContent = "";
    if (!reading) return;
    const body = { type: $("order-type").value, ...reading() };
    const behalf = $("order-player");
    if (behalf) body.on_behalf_of = behalf.value;
    const answer = await api(`${gamePath()}/actions`, { method: "POST", body });
    $("order-result").textContent = `Accepted: seq ${answer.seq}, hash ${answer.hash}` +
      `${behalf ? ` (entered for ${behalf.value}, marked entered by the GM)` : ""}`;
    showError(null, "order-error");
    justSent = true;
    try { await sent(); } finally { justSent = false; }
  }, "order-error"));
}

// -- a player's page ---------------------------------------------------------------------------------------------
let formFor = null;    // the phase and token the form was built for: polling never wipes an order being typed
let receiptsAfter = 0;  // the receipts are read once, then only what is new

export async function playerPanels() {
  const { game, me } = session;
  $("view").textContent = pretty(game.state);
  const you = game.state && typeof game.state === "object" ? game.state.you : null;
  $("hints").textContent = you ? pretty(you) : "No hints: paste your player token.";
  await receipts(me);
  const phaseKey = `${game.phase ? game.phase.number : "-"}:${game.status}:${token() || ""}`;
  $("orders").hidden = me.role !== "player";
  if (me.role === "player" && phaseKey !== formFor) { await drawForm(game.state, me.player_id); formFor = phaseKey; }
}

// A receipt: one of the player's orders as the log holds it (what `arbiter verify` checks against an export).
function receipt(e) {
  return el("li", JSON.stringify({ game_id: gameId, seq: e.seq, hash: e.hash, prev_hash: e.prev_hash, at: e.at,
    order: e.data.action, ...(e.data.entered_by ? { entered_by: e.data.entered_by } : {}) }));
}

const mine = (e, me) => e.actor === me.player_id && e.type === "action.submitted";
const RECENT = 500;    // a page opens with the receipts of the newest RECENT events; older ones on request
let receiptsFrom = 0;  // the first seq read

// The events after ``after`` up to ``until``, page by page.
async function read(after, until) {
  const events = [];
  for (let at = after; at !== null && at < until;) {
    const pageOf = await api(`${gamePath()}/events?after=${at}&limit=${Math.min(1000, until - at)}`);
    events.push(...pageOf.events.filter((e) => e.seq <= until));
    at = pageOf.next_after;
  }
  return events;
}

async function receipts(me) {
  const list = $("receipts");
  if (me.role !== "player") {
    list.replaceChildren();
    list.dataset.for = "";
    $("receipts-older").hidden = true;
    return;
  }
  if (list.dataset.for !== me.player_id) {
    list.replaceChildren();
    list.dataset.for = me.player_id;
    receiptsAfter = Math.max(0, session.game.seq - RECENT);
    receiptsFrom = receiptsAfter + 1;
    $("receipts-older").hidden = receiptsAfter === 0;
  }
  if (receiptsAfter >= session.game.seq) return;
  const until = session.game.seq;
  for (const e of (await read(receiptsAfter, until)).filter((x) => mine(x, me))) list.prepend(receipt(e));
  receiptsAfter = until;
}

export function olderReceipts() {
  $("receipts-older").addEventListener("click", guard(async () => {
    const { me } = session;
    const older = (await read(0, receiptsFrom - 1)).filter((x) => mine(x, me)).reverse();
    $("receipts").append(...older.map(receipt));
    receiptsFrom = 1;
    $("receipts-older").hidden = true;
  }, "receipts-error"));
}

// -- the GM's order on a player's behalf ---------------------------------------------------------------------------
let behalfFor = null;

// The GM picks a player; the form is built from that player's view (the replay's ``as`` at the newest seq).
export async function behalfPanel() {
  const { game } = session;
  const select = $("order-player");
  const chosen = select.value;
  const players = game.players.filter((p) => !p.ejected && !p.left);
  select.replaceChildren(...players.map((p) => el("option", `${p.name} (${p.id})`, { value: p.id })));
  if (chosen && players.some((p) => p.id === chosen)) select.value = chosen;
  $("orders").hidden = game.status !== "running" || !players.length;
  if ($("orders").hidden) return;
  const key = `${game.phase ? game.phase.number : "-"}:${select.value}`;
  if (key === behalfFor) return;
  behalfFor = key;
  const frame = await api(`${gamePath()}/replay?at=${game.seq}&as=${encodeURIComponent(select.value)}`);
  await drawForm(frame.view ? frame.view.state : null, select.value);
}

export function behalfChoice() {
  $("order-player").addEventListener("change", guard(async () => { behalfFor = null; await behalfPanel(); },
    "order-error"));
}
