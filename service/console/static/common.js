// What every page of the console shares: the tab's token, calls to the public /v1 API, and building nodes.  Tokens
// live in sessionStorage only and go out in the Authorization header; everything shown is set with textContent
// (never parsed as HTML), so names are text.

export const page = document.body.dataset.page;
export const gameId = document.body.dataset.game;
export const streamBase = document.body.dataset.stream || "";  // the stream process's /v1, where the server has one
export const $ = (id) => document.getElementById(id);
export const gamePath = () => `/games/${encodeURIComponent(gameId)}`;
const key = (what) => `arbiter:${gameId || "-"}:${what}`;

// Who the tab's token is and the game as it sees it, kept up to date by the page's refresh.
export const session = { me: { role: "public" }, game: null };

export function token() { return sessionStorage.getItem(key("token")); }
export function keepToken(value) { sessionStorage.setItem(key("token"), value); }
export function forgetToken() { sessionStorage.removeItem(key("token")); }

function authHeaders(bearer) {
  const tok = bearer === undefined ? token() : bearer;
  return tok ? { Authorization: `Bearer ${tok}` } : {};
}

// A /v1 call with the tab's token (``bearer``: another, or null for none), answering the parsed body or throwing the
// API's error message.
export async function api(path, { method = "GET", body, bearer, raw } = {}) {
  const headers = authHeaders(bearer);
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

// A board picture of /v1 ``path`` as a blob: URL for an <img> (the CSP allows no other way in with a token), or
// null where there is none to draw (before the start).
export async function pictureUrl(path) {
  const response = await fetch(`/v1${path}`, { headers: authHeaders(), cache: "no-store" });
  if (response.status === 409) return null;
  if (!response.ok) throw new Error(`${response.status}: the board picture could not be drawn`);
  return URL.createObjectURL(new Blob([await response.blob()], { type: "image/svg+xml" }));
}

// Show ``url`` in the <img> ``img`` (hidden without one), letting the picture it showed before go.
export function showPicture(img, url) {
  if (img.dataset.url) URL.revokeObjectURL(img.dataset.url);
  img.dataset.url = url || "";
  img.hidden = !url;
  if (url) img.src = url; else img.removeAttribute("src");
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
export function showError(e) { $("error").textContent = e ? String(e.message || e) : ""; }
export function guard(fn) { return (...args) => Promise.resolve(fn(...args)).catch(showError); }
