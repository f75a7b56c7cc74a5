// What a GM runs a game with: the platform's GM actions and the game's own (Extreme Ways' gm.set_garnets), a deadline
// set by the clock or a date and time, signing players up, the export; and, on the index page, creating a game.
import { $, api, copyText, el, gamePath, guard, keepTokenFor, session, showError, token } from "./common.js";
import { buildFields } from "./forms.js";
import { gameType, schemas } from "./play.js";

const PLATFORM = [
  { type: "start", title: "Start (close sign-up)", when: ["signup"] },
  { type: "gm.pause", title: "Pause", when: ["running"] },
  { type: "gm.resume", title: "Resume", when: ["paused"] },
  { type: "gm.extend_deadline", title: "Move the deadline", when: ["running"] },
  { type: "gm.resolve_now", title: "Resolve the phase now", when: ["running"] },
  { type: "gm.eject", title: "Eject a player", when: ["signup", "running", "paused"] },
];

let readGame = null;  // reads the fields of the game's own GM action, where one is chosen
let drawnFor = null;

// The actions offered for the game's status, the platform's first, then the game type's own.
export async function gmPanel() {
  const { game } = session;
  const type = await gameType();
  const own = type.actions.filter((a) => a.actor === "gm").map((a) => ({ type: a.type, title: a.description,
    when: ["signup", "running", "paused"], action: a }));
  const offered = [...PLATFORM, ...own].filter((a) => a.when.includes(game.status));
  const key = `${game.status}:${offered.map((a) => a.type).join(",")}`;
  players();
  if (key === drawnFor) return;
  drawnFor = key;
  const select = $("gm-action");
  const chosen = select.value;
  select.replaceChildren(...offered.map((a) => el("option", a.action ? a.type : a.title, { value: a.type })));
  if (offered.some((a) => a.type === chosen)) select.value = chosen;
  $("gm-form").hidden = !offered.length;
  const { schemas: all } = await schemas();
  const draw = () => {
    const one = offered.find((a) => a.type === select.value);
    $("gm-extend").hidden = select.value !== "gm.extend_deadline";
    $("gm-eject").hidden = select.value !== "gm.eject";
    $("gm-help").textContent = one && one.action ? one.title : "";
    $("gm-reason-box").hidden = Boolean(one && one.action);
    readGame = one && one.action ? buildFields($("gm-fields"), all[one.action.schema], { example: one.action.example,
      legal: { player_id: { choices: session.game.players.filter((p) => !p.ejected && !p.left).map((p) => p.id) } },
      skip: ["type", "reason"], prefix: "gm" }) : null;
    if (!readGame) $("gm-fields").replaceChildren();
  };
  select.onchange = draw;
  draw();
  await joinFields(type);
}

function players() {
  const select = $("gm-player");
  const chosen = select.value;
  select.replaceChildren(...session.game.players.filter((p) => !p.ejected && !p.left).map((p) =>
    el("option", `${p.name} (${p.id})`, { value: p.id })));
  if (chosen) select.value = chosen;
}

// The new deadline: seconds added, or a local date and time sent as UTC; exactly one of them.
function deadlineBody() {
  const seconds = $("gm-seconds").value.trim();
  const at = $("gm-deadline").value;
  if (!seconds === !at) throw new Error("Give either the seconds to add or the new date and time (one of them).");
  if (seconds) return { seconds: Number(seconds) };
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) throw new Error("That date and time cannot be read.");
  return { deadline: when.toISOString().replace(/\.\d{3}Z$/, "Z") };
}

export function gmForm(refresh) {
  $("gm-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    $("gm-result").textContent = "";
    const type = $("gm-action").value;
    const reason = $("gm-reason").value.trim();
    let answer;
    if (type === "start") {
      answer = await api(`${gamePath()}/start`, { method: "POST" });
    } else {
      // The platform's GM actions carry a reason (public, in the log); a game's own (sealed) ones have none.
      if (!readGame && !reason) throw new Error("Give a reason: it is recorded in the public log with the action.");
      const body = readGame ? { type } : { type, reason };
      if (type === "gm.extend_deadline") Object.assign(body, deadlineBody());
      if (type === "gm.eject") body.player_id = $("gm-player").value;
      if (readGame) Object.assign(body, readGame());
      answer = await api(`${gamePath()}/actions`, { method: "POST", body });
    }
    $("gm-result").textContent = `Done: ${type}, seq ${answer.seq}, hash ${answer.hash}`;
    $("gm-reason").value = "";
    showError(null, "gm-error");
    await refresh();
  }, "gm-error"));
  $("join-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const body = readJoin();
    const joined = await api(`${gamePath()}/players`, { method: "POST", body });
    const copy = el("button", "Copy the token", { type: "button" });
    const said = el("span", "", { role: "status" });
    copy.addEventListener("click", guard(async () => { said.textContent = await copyText(joined.token); },
      "join-error"));
    const line = el("p", `Signed up ${joined.name} as ${joined.player_id}. Their token (shown once: send it to them ` +
      "privately): ");
    line.append(el("code", joined.token), " ", copy, " ", said);
    $("join-result").replaceChildren(line);
    showError(null, "join-error");
    for (const input of $("join-fields").querySelectorAll("input, textarea")) input.value = "";  // ready for the next
    for (const select of $("join-fields").querySelectorAll("select")) select.selectedIndex = 0;
    await refresh();
  }, "join-error"));
  $("export-run").addEventListener("click", guard(downloadExport, "export-error"));
}

let readJoin = () => ({});
let joinDrawn = null;

// Sign-up: the game type's join schema (name and its sign-up fields, the GM-only ones included).
async function joinFields(type) {
  const open = session.game.status === "signup" || type.late_joins;
  $("join-box").hidden = !open;
  if (!open || joinDrawn === type.name) return;
  joinDrawn = type.name;
  readJoin = buildFields($("join-fields"), type.join_schema, { example: type.join_schema.example || {},
    order: ["name"], prefix: "join" });
}

// The export, fetched with the token (never in a URL) and saved from a blob: link.
async function downloadExport() {
  const response = await fetch(`/v1${gamePath()}/export`, { headers: { Authorization: `Bearer ${token()}` },
    cache: "no-store" });
  if (!response.ok) throw new Error(`The export failed: HTTP ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  const link = el("a", "export", { href: url, download: `${session.game.game_id}.json` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// -- the index page: create a game ------------------------------------------------------------------------------
export async function createForm() {
  const { types } = await schemas();
  const select = $("create-type");
  select.replaceChildren(...types.filter((t) => !t.name.startsWith("test-")).map((t) =>
    el("option", t.title, { value: t.name })));
  let readOptions = () => ({});
  const draw = () => {
    const type = types.find((t) => t.name === select.value);
    $("create-help").textContent = `${type.summary} Players: ${type.players.min}-${type.players.max}.`;
    readOptions = buildFields($("create-options"), type.options_schema, { prefix: "option" });
  };
  select.onchange = draw;
  draw();
  $("create-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const body = { type: select.value, options: readOptions() };
    const name = $("create-name").value.trim();
    const seed = $("create-seed").value;
    if (name) body.name = name;
    if (seed) body.seed = seed;
    const created = await api("/games", { method: "POST", body });
    keepTokenFor(created.game_id, created.gm_token);
    const out = el("div");
    const line = el("p", `Created ${created.game_id}. Your GM token (shown once; kept in this tab for the game): `);
    line.append(el("code", created.gm_token));
    const link = el("a", "Open its GM page to sign players up", { href: `/console/games/${created.game_id}` });
    out.append(line, el("p", `Seed commitment ${created.seed_commitment}` +
      `${(created.warnings || []).length ? ` — warnings: ${created.warnings.join(", ")}` : ""}`, { class: "note" }));
    const go = el("p");
    go.append(link);
    out.append(go);
    $("create-result").replaceChildren(out);
    showError(null, "create-error");
  }, "create-error"));
}
