// A player's page: their view and hints, an order form built from the game type's action schemas, their receipts.
import { $, api, el, gameId, gamePath, guard, pretty, session, showError, token } from "./common.js";

let types = null;
let formPhase = null;
let documentSchemas = null;

async function orderForm() {
  const game = session.game;
  if (!types) {
    types = (await api("/game-types", { bearer: null })).game_types;
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
  const game = session.game;
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

// ``sent``: what the page does once an order is accepted (refresh what it shows).
export function orderSubmit(sent) {
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
    const answer = await api(`${gamePath()}/actions`, { method: "POST", body });
    $("order-result").textContent = `Accepted: seq ${answer.seq}, hash ${answer.hash}`;
    showError(null);
    await sent();
  }));
}

export async function playerPanels() {
  const { game, me } = session;
  $("view").textContent = pretty(game.state);
  const you = game.state && typeof game.state === "object" ? game.state.you : null;
  $("hints").textContent = you ? pretty(you) : "No hints: paste your player token.";
  // Receipts: each of this player's orders as the log holds it (what `arbiter verify` checks against an export).
  const list = $("receipts");
  const mine = [];
  if (me.role === "player") {
    for (let after = 0; after !== null;) {
      const pageOf = await api(`${gamePath()}/events?after=${after}&limit=1000`);
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
