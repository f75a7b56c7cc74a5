// What every page of the console shares: the tab's token, calls to the public /v1 API, and building nodes.  Tokens
// live in sessionStorage only and go out in the Authorization header; everything shown is set with textContent
// (never parsed as HTML), so names are text.

export const page = document.body.dataset.page;
export const gameId = document.body.dataset.game;
export const streamBase = document.body.dataset.stream || "";  // the stream process's /v1, where the server has one
export const $ = (id) => document.getElementById(id);
export const gamePath = () => `/games/${encodeURIComponent(gameId)}`;
const key = (what, game = gameId) => `arbiter:${game || "-"}:${what}`;

// Who the tab's token is and the game as it sees it, kept up to date by the page's refresh.
export const session = { me: { role: "public" }, game: null };

export function token() { return sessionStorage.getItem(key("token")); }
export function keepToken(value) { sessionStorage.setItem(key("token"), value); }
export function forgetToken() { sessionStorage.removeItem(key("token")); }
export function keepTokenFor(game, value) { sessionStorage.setItem(key("token", game), value); }
// A token pasted on the index page, for the next game page this tab opens (which keeps it only if it is that game's).
export function pendingToken() { return sessionStorage.getItem("arbiter:-:token"); }
export function keepPendingToken(value) { sessionStorage.setItem("arbiter:-:token", value); }
export function dropPendingToken() { sessionStorage.removeItem("arbiter:-:token"); }
// Preferences that are no secret (the report's format), kept for the tab.
export function preference(name, value) {
  if (value !== undefined) sessionStorage.setItem(`arbiter:pref:${name}`, value);
  return sessionStorage.getItem(`arbiter:pref:${name}`);
}

function authHeaders(bearer) {
  const tok = bearer === undefined ? token() : bearer;
  return tok ? { Authorization: `Bearer ${tok}` } : {};
}

// A /v1 call with the tab's token (``bearer``: another, or null for none), answering the parsed body or throwing the
// API's error (an ApiError).  GETs revalidate with the browser's cache: the API answers an unchanged read with a 304
// to the ETag the browser holds, so polling an idle game costs a few hundred bytes.
export class ApiError extends Error {
  constructor(status, error) {
    const details = error.details && Object.keys(error.details).length ? ` ${JSON.stringify(error.details)}` : "";
    super(`${status} ${error.code || ""}: ${error.message}${details}`);
    this.status = status;
    this.code = error.code;
    this.details = error.details || {};
  }
}

export async function api(path, { method = "GET", body, bearer, raw } = {}) {
  const headers = authHeaders(bearer);
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await send(`/v1${path}`, method, {
    method, headers, body: raw ? body : body === undefined ? undefined : JSON.stringify(body),
    cache: method === "GET" ? "no-cache" : "no-store",
  });
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = text; }
  if (!response.ok) throw new ApiError(response.status, (data && data.error) || { message: `HTTP ${response.status}` });
  return data;
}

// A read that gets no answer in READ_TIMEOUT_MS is given up, and says so: the page's polls go one at a time, so one
// answer that never came (a connection the server dropped unseen) would otherwise stop the page following the game.
// Writes are left to finish: an order given up on might still be recorded.
const READ_TIMEOUT_MS = 10000;

async function send(url, method, options) {
  if (method !== "GET") return fetch(url, options);
  try {
    return await fetch(url, { ...options, signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
  } catch (e) {
    if (e.name !== "TimeoutError") throw e;
    throw new Error(`The server did not answer within ${READ_TIMEOUT_MS / 1000} s; the page asks again.`);
  }
}

// A board picture of /v1 ``path``: a blob: URL for an <img> (the CSP allows no other way in with a token) and the
// picture's own words (its labels: the round, each player and where they stand) for the image's alt text; null
// where there is none to draw (before the start).  The SVG is parsed as XML only to read its text: never shown
// as markup.
export async function picture(path) {
  const response = await send(`/v1${path}`, "GET", { headers: authHeaders(), cache: "no-cache" });
  if (response.status === 409) return null;
  if (!response.ok) throw new Error(`${response.status}: the board picture could not be drawn`);
  const svg = await response.text();
  const labels = new DOMParser().parseFromString(svg, "image/svg+xml").querySelectorAll("text");
  // (a bare number is a disc's or a square's, which the legend's lines say in words)
  const words = Array.from(labels, (t) => t.textContent.trim()).filter((t) => t && !/^\d+$/.test(t)).join("; ");
  return { url: URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" })), words };
}

// Show ``shown`` (a picture(), or null) in the <img> ``img`` (hidden without one), its alt text ``what`` and the
// picture's words, letting the picture it showed before go.
export function showPicture(img, shown, what = "") {
  if (img.dataset.url) URL.revokeObjectURL(img.dataset.url);
  img.dataset.url = shown ? shown.url : "";
  img.hidden = !shown;
  img.alt = shown ? `${what}${shown.words ? `: ${shown.words}` : ""}` : "";
  if (shown) img.src = shown.url; else img.removeAttribute("src");
}

export function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// A <details> that opens to ``value`` as indented JSON.
export function jsonDetails(summary, value, attrs = {}) {
  const box = el("details", null, attrs);
  box.append(el("summary", summary), el("pre", pretty(value)));
  return box;
}

export function pretty(value) { return JSON.stringify(value, null, 2); }

// Errors show beside the control that caused them: ``where`` is the id of that form's error line (the page's own,
// at the top, for what no control caused: a game that does not exist).  The line is brought into view.
export function showError(e, where = "error") {
  const line = $(where) || $("error");
  line.textContent = e ? String(e.message || e) : "";
  line.hidden = !e;
  if (e && line.scrollIntoView) line.scrollIntoView({ block: "nearest" });
}
export function guard(fn, where = "error") {
  return (...args) => Promise.resolve(fn(...args)).catch((e) => showError(e, where));
}

// Copy ``text``: the clipboard API where the page is a secure context (HTTPS or localhost), else the older
// selection copy; answers what happened, for the button to say.
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return "Copied";
  }
  const area = el("textarea", null, { readonly: "", class: "offscreen" });
  area.value = text;
  document.body.append(area);
  area.select();
  let done = false;
  try { done = document.execCommand("copy"); } finally { area.remove(); }
  return done ? "Copied" : "Select the text and copy it (this browser lets only HTTPS pages use the clipboard)";
}
