// The audit (GET /audit) and the verification of an exported file (POST /v1/replays/verify): "checks out", or the
// first divergence with, for a recomputed event, its recorded and recomputed values side by side (``differences``:
// JSON pointers into the event's data).
import { $, api, el, gamePath, guard, jsonDetails } from "./common.js";

function cell(value, absent) {
  const td = el("td");
  td.append(absent ? el("em", "(absent)", { class: "absent" }) : el("code", JSON.stringify(value)));
  return td;
}

function differencesTable(first) {
  const table = el("table", null, { class: "diff" });
  table.append(el("caption", `Event #${first.seq}: where its recorded data and a fresh computation differ`));
  const head = el("tr");
  for (const title of ["Where (in the event's data)", "Recorded", "Recomputed"]) head.append(el("th", title,
    { scope: "col" }));
  const thead = el("thead");
  thead.append(head);
  table.append(thead);
  const body = el("tbody");
  for (const d of first.differences) {
    const row = el("tr");
    const where = el("th", null, { scope: "row" });
    where.append(el("code", d.path || "(the whole value)"));
    row.append(where, cell(d.recorded, d.missing === "recorded"), cell(d.recomputed, d.missing === "recomputed"));
    body.append(row);
  }
  table.append(body);
  const nodes = [table];
  const more = first.differences_total - first.differences.length;
  if (more > 0) nodes.push(el("p", `… and ${more} more difference${more === 1 ? "" : "s"}.`, { class: "note" }));
  return nodes;
}

// The recorded event beside the audit's words, where it gives no values to compare (a broken link, a fold).
function besideTheProblem(first, recorded) {
  const side = el("div", null, { class: "side" });
  const left = el("div"); left.append(el("h3", "Recorded"), el("pre", JSON.stringify(recorded, null, 2)));
  const right = el("div"); right.append(el("h3", "What the audit found"), el("pre", first.problem));
  side.append(left, right);
  return side;
}

export function verdict(target, result, recorded) {
  if (result.ok) {
    target.replaceChildren(el("p", `Checks out: ${result.events} events, ${result.outcomes.checked} outcomes ` +
      `recomputed (seed ${result.outcomes.seed}).`, { class: "ok" }));
    return;
  }
  const first = result.divergences[0];
  const nodes = [el("p", `Does not check out: first divergence at seq ${first.seq} (${first.check}): ` +
    `${first.problem}`, { class: "bad" })];
  if (first.differences && first.differences.length) nodes.push(...differencesTable(first));
  else if (recorded) nodes.push(besideTheProblem(first, recorded));
  if (recorded) nodes.push(jsonDetails(`The recorded event #${first.seq} (JSON)`, recorded));
  const others = result.divergences.length - 1;
  if (others > 0) nodes.push(jsonDetails(`${others} more divergence${others === 1 ? "" : "s"} after it`,
    result.divergences.slice(1)));
  target.replaceChildren(...nodes);
}

export function auditButton() {
  $("audit-run").addEventListener("click", guard(async () => {
    $("audit-result").replaceChildren(el("p", "Auditing…", { class: "note" }));
    const result = await api(`${gamePath()}/audit`);
    let recorded = null;
    if (!result.ok) {
      const seq = result.divergences[0].seq;
      const one = await api(`${gamePath()}/events?after=${seq - 1}&limit=1`).catch(() => null);
      recorded = one && one.events[0] ? one.events[0] : null;
    }
    verdict($("audit-result"), result, recorded);
  }, "audit-error"));
}

export function verifyForm() {
  $("verify-form").addEventListener("submit", guard(async (ev) => {
    ev.preventDefault();
    const file = $("verify-file").files[0];
    const out = $("verify-verdict");
    if (!file) throw new Error("Choose an exported file first.");
    let text = await file.text();
    let events = [];
    try { events = JSON.parse(text).events || []; } catch (e) { events = []; }
    const notes = pastedNotes($("verify-notes") ? $("verify-notes").value : "");
    if (notes.length) text = JSON.stringify({ ...JSON.parse(text), notes });  // checked beside it (issue 29)
    const result = await api("/replays/verify", { method: "POST", body: text, raw: true, bearer: null })
      .catch((e) => { out.replaceChildren(el("p", `Not checked: ${e.message}`, { class: "bad" })); return null; });
    if (!result) return;
    const first = result.divergences && result.divergences[0];
    const recorded = first && Array.isArray(events) ? events.find((e) => e && e.seq === first.seq) : null;
    verdict(out, result, recorded || null);
    if (result.signed && result.signed.notes.length) out.append(signedSummary(result.signed));
  }, "verify-error"));
}

// Receipts or checkpoints pasted beside an export: a note's text, or JSON holding one (a 202's body, a receipt,
// GET …/checkpoint's answer) or a list of them.
function pastedNotes(text) {
  const trimmed = text.trim();
  if (!trimmed) return [];
  try {
    const value = JSON.parse(trimmed);
    return Array.isArray(value) ? value : [value];
  } catch (e) {
    return [trimmed.replace(/\r\n/g, "\n") + "\n"];
  }
}

// What the signed notes prove: each one's seq and verdict, in the verify report's words.
function signedSummary(signed) {
  const list = el("ul", null, { class: "signed" });
  for (const n of signed.notes) {
    const what = n.kind ? `${n.source === "given" ? "Your" : "The export's"} ${n.kind} of seq ${n.seq}` : "A note";
    list.append(el("li", `${what}: ${n.ok ? "signed by the service, and the log holds it" : n.problem}`,
      { class: n.ok ? "ok" : "bad" }));
  }
  const box = el("div");
  box.append(el("h3", `Signed receipts and checkpoints (keys: ${signed.keys_from})`), list);
  return box;
}
