// The forum report (GET /report), at the top of a game's page.  What shows, and what Copy takes, is the public
// report (asked for with no token), whoever is looking: a GM who copies it for the forum copies nothing secret.  The
// GM's own version (the rest of a turn order, sealed ballots) shows only when asked for, apart and marked.  The
// chosen format is remembered for the tab; the latest round follows the game as it moves.
import { $, api, copyText, gamePath, guard, preference, pretty, session, showError } from "./common.js";

const FORMATS = ["text", "markdown", "bbcode", "json"];
let shownFor = null;  // the seq, format and round the report was fetched for: fetched again when one changes

function query() {
  const round = $("report-round").value;
  return `format=${encodeURIComponent($("report-format").value)}${round ? `&round=${encodeURIComponent(round)}` : ""}`;
}

const asText = (body) => (typeof body.report === "string" ? body.report : pretty(body.report));

async function show(force) {
  const { game } = session;
  const key = `${game.seq}:${query()}:${$("report-gm").checked}`;
  if (!force && key === shownFor) return;
  shownFor = key;
  // A report needs a resolved phase (asking sooner would only be refused).
  if (game.status === "signup" || (game.status !== "finished" && game.phase && game.phase.number <= 1)) {
    $("report-text").textContent = "Nothing to report yet: the first phase has not been resolved.";
    $("report-gm-text").hidden = true;
    return;
  }
  try {
    $("report-text").textContent = asText(await api(`${gamePath()}/report?${query()}`, { bearer: null }));
  } catch (e) {
    // Nothing played yet (or a game with no report): say so in place of the report.
    if (e.status === 404 || e.status === 409) { $("report-text").textContent = e.message; return; }
    throw e;
  }
  const gm = session.me.role === "gm" && $("report-gm").checked;
  $("report-gm-text").hidden = !gm;
  if (gm) $("report-gm-text").textContent = asText(await api(`${gamePath()}/report?${query()}`));
  showError(null, "report-error");
}

export function reportForm() {
  const remembered = preference("report-format");
  if (FORMATS.includes(remembered)) $("report-format").value = remembered;
  $("report-format").addEventListener("change", guard(async () => {
    preference("report-format", $("report-format").value);
    await show(true);
  }, "report-error"));
  $("report-form").addEventListener("submit", guard(async (ev) => { ev.preventDefault(); await show(true); },
    "report-error"));
  $("report-gm").addEventListener("change", guard(() => show(true), "report-error"));
  $("report-copy").addEventListener("click", guard(async () => {
    $("report-copied").textContent = await copyText($("report-text").textContent);
    setTimeout(() => { $("report-copied").textContent = ""; }, 4000);
  }, "report-error"));
}

// The page moved (or opened): the report follows it.
export async function reportMoved() {
  $("report-gm-box").hidden = session.me.role !== "gm";
  await show(false);
}
