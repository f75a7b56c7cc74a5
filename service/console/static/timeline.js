// The game page's timeline and replay.  The timeline is windowed: a page opens with the newest WINDOW events and
// reads older ones only when asked, then only what is new (``after=``), so a game of thousands of events opens as
// fast as a short one; each event's JSON is drawn when it is opened.  The replay asks the API for one seq at a time
// (``replay?at=`` and ``board.svg?at=``), as the chosen viewer saw it.
import { $, api, el, gameId, gamePath, guard, picture, pretty, session, showPicture } from "./common.js";

const WINDOW = 100;
let lastSeq = 0;    // the newest event on the page
let oldestSeq = 0;  // the oldest one (older ones are read on "Show older events")
let startedSeq = 0;  // the game.started event's, once the page has read it

export const newest = () => lastSeq;

export function reset() {
  lastSeq = 0;
  oldestSeq = 0;
  startedSeq = 0;
  $("timeline").replaceChildren();
  $("replay-as").replaceChildren();
  $("timeline-older").hidden = true;
}

function item(event, via) {
  if (event.type === "game.started") startedSeq = event.seq;
  const node = el("li", null, { value: String(event.seq), "data-seq": String(event.seq), "data-via": via });
  const details = el("details");
  const actor = event.actor ? ` by ${event.actor}` : "";
  details.append(el("summary", `#${event.seq} ${event.type}${actor} — ${event.at}`));
  details.addEventListener("toggle", () => {
    if (!details.open || details.children.length > 1) return;
    const receipt = { game_id: gameId, seq: event.seq, hash: event.hash, prev_hash: event.prev_hash, at: event.at };
    details.append(el("p", `hash ${event.hash}`, { class: "note" }), el("h3", "Receipt"), el("pre", pretty(receipt)),
      el("h3", "Event"), el("pre", pretty(event)));
  });
  node.append(details);
  return node;
}

// ``via``: where the page heard of it ("poll" or "stream"), kept on the item.
export function addEvent(event, via) {
  if (event.seq <= lastSeq) return;
  if (!oldestSeq) oldestSeq = event.seq;
  lastSeq = event.seq;
  $("timeline").prepend(item(event, via));
}

// What is new since the newest event on the page; on a page just opened, the newest WINDOW events.
export async function pollEvents() {
  if (!lastSeq && session.game.seq > WINDOW) {
    const after = session.game.seq - WINDOW;
    const pageOf = await api(`${gamePath()}/events?after=${after}&limit=${WINDOW}`);
    for (const event of pageOf.events) addEvent(event, "poll");
    oldestSeq = after + 1;
    $("timeline-older").hidden = false;
  }
  for (;;) {
    const pageOf = await api(`${gamePath()}/events?after=${lastSeq}&limit=500`);
    for (const event of pageOf.events) addEvent(event, "poll");
    if (pageOf.next_after == null) break;
  }
}

async function older() {
  const after = Math.max(0, oldestSeq - 1 - WINDOW);
  const pageOf = await api(`${gamePath()}/events?after=${after}&limit=${oldestSeq - 1 - after}`);
  const list = $("timeline");
  for (const event of pageOf.events.filter((e) => e.seq < oldestSeq).reverse()) list.append(item(event, "poll"));
  oldestSeq = after + 1;
  $("timeline-older").hidden = oldestSeq <= 1;
}

// The replay's slider reaches the newest seq; a slider at the end (or ``anew``: a page opened or a token changed)
// follows the game.
export async function timelineMoved(anew) {
  const slider = $("replay-seq");
  const atEnd = Number(slider.value) === Number(slider.max);
  const grew = Number(slider.max) !== Math.max(lastSeq, 1);
  slider.max = String(Math.max(lastSeq, 1));
  if (anew || (atEnd && grew)) { slider.value = slider.max; await showReplay(); }
}

// -- replay and "view as": the board and the state at a seq as one viewer saw them (the API's ``at`` and ``as``) --
export function viewAsOptions() {
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
  if (select.options.length === options.length) return;  // the same viewers: keep the select as it is
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
  // The frame and its board are asked for together where the game had started by then (before, the board is
  // a 409, which the browser would log as an error); else the board only if the frame has a state.
  const started = session.game.status !== "signup" && at >= (startedSeq || oldestSeq || Infinity);
  const [frame, early] = await Promise.all([api(`${gamePath()}/replay?${query}`),
    started ? picture(`${gamePath()}/board.svg?${query}`) : null]);
  const shown = started ? early : frame.view && frame.view.state ? await picture(`${gamePath()}/board.svg?${query}`)
    : null;
  if (asked !== replayAsked) { if (shown) URL.revokeObjectURL(shown.url); return; }
  const event = frame.event;
  const who = $("replay-as").selectedOptions[0];
  const seen = who ? who.textContent : viewer;
  $("replay-line").textContent = `#${frame.seq} ${event.type}${event.actor ? ` by ${event.actor}` : ""} — ` +
    `${event.at}, as ${seen} saw it`;
  showPicture($("replay-board"), shown, `The board just after seq ${frame.seq} (${event.type}), as ${seen} saw it`);
  $("replay-note").textContent = shown ? "" : "No board yet: the game had not started at this seq.";
  $("replay-event").textContent = pretty(event);
  $("replay-view").textContent = pretty(frame.view ? frame.view.state : null);
}

export function replayForm() {
  const slider = $("replay-seq");
  const shown = guard(showReplay, "replay-error");
  slider.addEventListener("change", shown);
  slider.addEventListener("input", () => { $("replay-at").textContent = slider.value; });
  $("replay-as").addEventListener("change", shown);
  $("replay-back").addEventListener("click", () => {
    slider.value = String(Math.max(1, Number(slider.value) - 1)); shown();
  });
  $("replay-next").addEventListener("click", () => {
    slider.value = String(Math.min(Number(slider.max), Number(slider.value) + 1)); shown();
  });
  $("timeline-older").addEventListener("click", guard(older, "timeline-error"));
}
