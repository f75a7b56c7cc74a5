// Following a game live from the stream process (SSE), where the server names one (data-stream); polling otherwise,
// and while the stream is not answering.  A token never goes in the stream's URL: the page trades it (in the
// Authorization header) for a stream ticket, spent by the one connection it opens within 60 s.
import { $, gameId, streamBase, token } from "./common.js";

const RETRIES = 3;  // consecutive failures before the page stays on polling (until the token changes)

let source = null;
let opened = 0;      // which call of follow() the current connection belongs to
let failures = 0;
let mode = "polling";

// Whether the page needs no polling: it hears of new events from the stream, or there will be none.
export function noPolling() { return mode === "live" || mode === "over"; }

// ``next``: "live" (the stream answers), "polling" (the page asks the API every 4 s) or "over" (nothing more to come).
function setMode(next, why) {
  mode = next;
  const out = $("live-mode");
  const what = { live: "live, from the stream", polling: "polling every 4 s", over: "the game is over" }[next];
  out.textContent = `${what}${why ? ` (${why})` : ""}`;
  out.dataset.mode = next;
}

export function stop() {
  opened += 1;
  if (source) source.close();
  source = null;
  if (mode === "live") setMode("polling", "connecting to the stream");
}

async function ticket() {
  const response = await fetch(`${streamBase}/games/${encodeURIComponent(gameId)}/stream-tickets`,
    { method: "POST", headers: { Authorization: `Bearer ${token()}` }, cache: "no-store" });
  if (!response.ok) throw new Error(`stream ticket: HTTP ${response.status}`);
  return (await response.json()).ticket;
}

// Follow the game from the seq ``after()`` gives, handing each event to ``onEvent``; ``finished``: nothing more will
// come, so nothing is opened.  A failed connection is tried again with a new ticket from where the page is.
export function start(after, onEvent, finished) {
  failures = 0;
  return follow(after, onEvent, finished);
}

async function follow(after, onEvent, finished) {
  stop();
  const mine = opened;
  if (finished) { setMode("over", "nothing more to follow"); return; }
  if (!streamBase) { setMode("polling", "this server names no stream"); return; }
  let url = `${streamBase}/games/${encodeURIComponent(gameId)}/stream?format=sse&after=${after()}`;
  try {
    if (token()) url += `&ticket=${encodeURIComponent(await ticket())}`;
  } catch (e) {
    if (mine === opened) retry(after, onEvent, mine);
    return;
  }
  if (mine !== opened) return;  // a newer follow() began meanwhile
  const events = new EventSource(url);
  source = events;
  events.onopen = () => { failures = 0; setMode("live"); };
  events.onmessage = (message) => onEvent(JSON.parse(message.data), "stream");
  events.addEventListener("end", () => { events.close(); setMode("over", "its last event came from the stream"); });
  // EventSource would reconnect with the same, spent ticket: close it and open anew instead.
  events.onerror = () => { events.close(); if (source === events) { source = null; retry(after, onEvent, mine); } };
}

function retry(after, onEvent, mine) {
  failures += 1;
  setMode("polling", failures > RETRIES ? "the stream is not answering" : "reconnecting to the stream");
  if (failures <= RETRIES) setTimeout(() => { if (mine === opened) follow(after, onEvent, false); }, 1000 * failures);
}
