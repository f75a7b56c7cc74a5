// Forms built from the schemas the API publishes (an order's schema in /v1/openapi.json, a game type's options and
// sign-up schemas in /v1/game-types): a select for an enum or a list of legal values, a number input for a number
// (sent as a number), a yes/no select for a boolean, a list of rows for an array, a fieldset for an object, and JSON
// only where nothing simpler fits.  An example is a placeholder, never a value: a field left empty is left out.
import { el } from "./common.js";

// ``legal``: what the hint allows for each field, by path ("rebound.player_id"): {choices: [...]} (a select of
// those values), {min, max} (a number's bounds), {count} (a list of exactly that many rows), {max} for a list's
// longest, {hide: true} (a field this variant does not have); and between two fields of the order, {when: {field,
// is: [...]}} (shown only while that field holds one of those values: Strategic Aspect's "to" with "give") and
// {by: {field, choices: {value: [...]}}} (its choices follow that field's value: Elemental Tag's vote names an
// applicant to admit, a team-mate to eject) and {from: {field, choices(values)}} (its choices made from the
// values typed into that field).  ``order``: the fields the rules name first.
export function buildFields(box, schema, { example = {}, legal = {}, order = [], skip = [], prefix = "f" } = {}) {
  box.replaceChildren();
  const props = schema.properties || {};
  const names = [...order.filter((n) => n in props), ...Object.keys(props).filter((n) => !order.includes(n))]
    .filter((n) => !skip.includes(n) && !(legal[n] && legal[n].hide));
  const readers = {};
  const wraps = {};
  const draw = (name, bounds) => {
    const required = (schema.required || []).includes(name);
    wraps[name].replaceChildren();
    readers[name] = field(wraps[name], name, props[name], { example: example[name], legal: { ...legal, [name]: bounds },
      path: name, required, prefix });
  };
  for (const name of names) {
    wraps[name] = el("div", null, { class: "field" });
    box.append(wraps[name]);
    draw(name, legal[name]);
  }
  for (const name of names) {
    const { from } = legal[name] || {};
    if (!from || !wraps[from.field]) continue;
    // Its choices are made from another field's values as typed (Golden Strider's first card, one of the five
    // starting cards typed above it); what was chosen stays chosen while it is still offered.
    const follow = () => {
      let values = [];
      try { values = readers[from.field]() || []; } catch (e) { values = []; }
      const choices = [...new Set(from.choices(values.filter((v) => v !== null && v !== undefined)))];
      const select = wraps[name].querySelector("select");
      const kept = select ? select.value : "";
      draw(name, { choices });
      const again = wraps[name].querySelector("select");
      if (again && choices.includes(kept)) again.value = kept;
    };
    wraps[from.field].addEventListener("input", follow);
    follow();
  }
  for (const name of names) {
    const { when, by } = legal[name] || {};
    const other = (when || by) && wraps[(when || by).field] && wraps[(when || by).field].querySelector("select");
    if (!other) continue;
    const follow = () => {
      const value = readers[(when || by).field]();
      if (when) wraps[name].hidden = !when.is.includes(value);
      if (by) draw(name, { choices: by.choices[value] || [] });
    };
    other.addEventListener("change", follow);
    follow();
  }
  // The body: each field's value, those left empty (or hidden) left out; a required one left empty is refused.
  return () => {
    const body = {};
    for (const [name, read] of Object.entries(readers)) {
      const value = wraps[name].hidden ? undefined : read();
      if (value !== undefined) body[name] = value;
      else if ((schema.required || []).includes(name)) throw new FieldError(name, "is required");
    }
    return body;
  };
}

export class FieldError extends Error {
  constructor(name, problem) { super(`${name}: ${problem}`); this.field = name; }
}

function plain(prop) {
  // ``anyOf: [{enum}]`` with nullable (marshmallow's OneOf on a nullable field) reads as the enum, nullable.
  if (prop.anyOf && prop.anyOf.length === 1) return { ...prop.anyOf[0], nullable: prop.nullable, default: prop.default };
  return prop;
}

function label(box, text, id, prop, example) {
  const hint = [prop.description, example !== undefined ? `e.g. ${JSON.stringify(example)}` : ""].filter(Boolean);
  box.append(el("label", `${text}${hint.length ? ` — ${hint.join("; ")}` : ""}`, { for: id }));
}

function field(box, name, rawProp, { example, legal, path, required, prefix }) {
  const prop = plain(rawProp);
  const id = `${prefix}-${path.replace(/\[\]/g, "").replace(/\./g, "-")}`;
  const bound = legal[path] || {};
  if (!bound.choices && prop.type === "array") {
    return listField(box, name, prop, { example, legal, path, id, bound, required });
  }
  if (!bound.choices && prop.type === "object" && prop.properties) return objectField(box, name, prop, { example, legal, path, prefix });
  label(box, name, id, prop, example);
  const choices = bound.choices || prop.enum || (prop.type === "boolean" ? [true, false] : null);
  let input;
  let read;
  if (choices) {
    const values = new Map();
    input = choiceSelect(id, choices, prop, required, values);
    read = () => (input.value === "" ? undefined : values.get(input.value));
  } else if (prop.type === "integer" || prop.type === "number") {
    input = el("input", null, { id, type: "number", inputmode: "numeric" });
    const min = bound.min !== undefined ? bound.min : prop.minimum;
    const max = bound.max !== undefined ? bound.max : prop.maximum;
    if (min !== undefined) input.min = String(min);
    if (max !== undefined) input.max = String(max);
    if (example !== undefined && example !== null) input.placeholder = String(example);
    read = () => {
      if (input.value.trim() === "") return undefined;
      const value = Number(input.value);
      if (!Number.isFinite(value)) throw new FieldError(name, "is not a number");
      return value;
    };
  } else if (prop.type === "string") {
    input = el("input", null, { id, autocomplete: "off" });
    if (example !== undefined && example !== null) input.placeholder = String(example);
    read = () => (input.value === "" ? undefined : input.value);
  } else {
    input = el("textarea", null, { id, rows: "3" });
    if (example !== undefined) input.placeholder = JSON.stringify(example);
    read = () => {
      if (input.value.trim() === "") return undefined;
      try { return JSON.parse(input.value); } catch (e) { throw new FieldError(name, "is not valid JSON"); }
    };
  }
  input.dataset.field = path;
  if (required) input.setAttribute("aria-required", "true");
  box.append(input);
  return read;
}

// A select of ``choices`` (any JSON values; an object shows as its values joined by an arrow), led by an empty
// "choose" option, so nothing is sent that the user did not pick; a nullable field offers "none" too.
// An option's value is the choice itself where it is a string, else its JSON; ``values`` maps it back.
function choiceSelect(id, choices, prop, required, values) {
  const select = el("select", null, { id });
  const hasDefault = prop.default !== undefined && prop.default !== null;
  select.append(el("option", required ? "— choose —" : hasDefault ? `— default (${show(prop.default)}) —` : "— leave out —",
    { value: "" }));
  const all = prop.nullable && !choices.includes(null) ? [...choices, null] : choices;
  for (const value of all) {
    const key = typeof value === "string" ? value : JSON.stringify(value);
    values.set(key, value);
    select.append(el("option", show(value), { value: key }));
  }
  return select;
}

function show(value) {
  if (value === null) return "none";
  if (value === true) return "yes";
  if (value === false) return "no";
  if (typeof value === "object") return Object.values(value).join(" → ");
  return String(value);
}

// A list edited as a list: one row per item (each built from the item schema), with add and remove buttons; with
// ``count`` exactly that many rows, with ``max`` (or the schema's maxItems) at most that many.
function listField(box, name, prop, { example, legal, path, id, bound, required }) {
  const set = el("fieldset", null, { id, class: "list" });
  set.dataset.field = path;
  if (required) set.setAttribute("aria-required", "true");
  set.append(el("legend", `${name}${prop.description ? ` — ${prop.description}` : ""}` +
    `${example !== undefined && example !== null ? ` (e.g. ${JSON.stringify(example)})` : ""}`));
  const rows = el("ol");
  set.append(rows);
  const itemProp = plain(prop.items || {});
  // ``items``: the bounds of every row; ``first``: of the first row only (SXYZM Cyclone's hint knows the legal
  // first move; the rows after it are checked by the rules against the position the moves before them leave).
  const itemLegal = (n) => (n === 1 && bound.first ? { [`${path}[]`]: bound.first }
    : bound.items ? { [`${path}[]`]: bound.items } : {});
  const readers = [];
  const most = bound.count || bound.max || prop.maxItems || 50;
  const add = el("button", `Add ${name === "moves" ? "a move" : "a row"}`, { type: "button", class: "add" });
  const addRow = () => {
    const row = el("li");
    const n = readers.length + 1;
    const read = field(row, `${name} #${n}`, itemProp, { example: undefined, legal: itemLegal(n),
      path: `${path}[]`, required: true, prefix: `${id}-${n}` });
    const input = row.querySelector("[data-field]");
    if (input && row.querySelector("label")) { input.id = `${id}-${n}`; row.querySelector("label").htmlFor = input.id; }
    const entry = { row, read };
    if (!bound.count) {
      const remove = el("button", "Remove", { type: "button", class: "remove" });
      remove.addEventListener("click", () => {
        readers.splice(readers.indexOf(entry), 1); row.remove(); add.disabled = readers.length >= most;
      });
      row.append(remove);
    }
    readers.push(entry);
    rows.append(row);
    add.disabled = readers.length >= most;
  };
  if (bound.count) for (let i = 0; i < bound.count; i++) addRow();
  else { add.addEventListener("click", addRow); set.append(add); }
  box.append(set);
  return () => {
    const values = readers.map(({ read }) => read());
    if (!values.length) return prop.nullable ? undefined : [];
    values.forEach((v, i) => { if (v === undefined && !itemProp.nullable) throw new FieldError(name, `row ${i + 1} is empty`); });
    return values.map((v) => (v === undefined ? null : v));
  };
}

// An object: its fields in a fieldset; left wholly empty, the object is left out.
function objectField(box, name, prop, { example, legal, path, prefix }) {
  const set = el("fieldset", null, { class: "object" });
  set.append(el("legend", `${name}${prop.description ? ` — ${prop.description}` : ""}`));
  const read = buildNested(set, prop, { example: example || {}, legal, path, prefix });
  box.append(set);
  return read;
}

function buildNested(set, prop, { example, legal, path, prefix }) {
  const readers = {};
  for (const [name, sub] of Object.entries(prop.properties)) {
    const subPath = `${path}.${name}`;
    if (legal[subPath] && legal[subPath].hide) continue;
    readers[name] = field(set, name, sub, { example: example[name], legal, path: subPath,
      required: (prop.required || []).includes(name), prefix });
  }
  return () => {
    const body = {};
    for (const [name, read] of Object.entries(readers)) {
      const value = read();
      if (value !== undefined) body[name] = value;
    }
    if (!Object.keys(body).length) return undefined;
    for (const name of prop.required || []) if (!(name in body)) throw new FieldError(`${path}.${name}`, "is required");
    return body;
  };
}
