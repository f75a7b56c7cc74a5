// What each game's hint (the typed ``…Hint`` of /v1/openapi.json, inside a player's view) allows now, as bounds on
// the order form's fields.  The hints differ in shape from game to game, so each game has a reader here; each answers
// for an order type ``{legal, order}`` (legal: bounds by field path, as forms.js takes them; order: the fields in
// the order the rules name them) when that order is open to the player now, or null when it is not.

const range = (lo, hi) => ({ min: lo, max: hi });
const hide = { hide: true };

function byOrder(view) { return (view && view.you && view.you.legal_actions) || {}; }

const READERS = {
  "extreme-ways": (view, type) => {
    const h = byOrder(view)[type];
    if (!h) return null;
    if (type === "bid") return { legal: { amount: range(h.min, h.max) } };
    if (type === "buy_gold") return { legal: { garnets: range(1, h.max_garnets) } };
    if (type === "ec_vote") return { legal: { player_id: { choices: h.candidates } } };
    if (type === "move") {
      const legal = { options: { count: h.rounds, items: { choices: h.options } } };
      if (h.rebound_players) {
        legal["rebound.player_id"] = { choices: h.rebound_players };
        legal["rebound.round"] = range(1, h.rounds);
      } else legal.rebound = hide;
      return { legal };
    }
    return { legal: {} };
  },

  "elemental-tag": (view, type) => {
    const h = byOrder(view)[type];
    if (!h) return null;
    if (type === "bid") return { legal: { amount: range(h.min, h.max) } };
    if (type === "place") return { legal: { replace: { choices: h.replace } } };
    if (type === "move") {
      return { legal: { direction: { choices: h.directions },
        tags: h.tags.length ? { max: h.tags.length, items: { choices: h.tags } } : hide } };
    }
    if (type === "apply") return h.elements.length ? { legal: { element: { choices: h.elements } } } : null;
    if (type === "form") return { legal: { partner: { choices: h.partners }, element: { choices: h.elements } },
      order: ["partner", "element"] };
    if (type === "vote") {
      const motions = ["admit", "eject"].filter((m) => h[m].length);
      return { legal: { motion: { choices: motions }, player_id: { by: { field: "motion", choices: h } } },
        order: ["motion", "player_id", "yes"] };
    }
    return { legal: {} };
  },

  "golden-strider": (view, type) => {
    const tarnished = view.variant === "tarnished";
    if (type === "play") {
      const hint = view.you && view.you.hint;
      if (view.stage !== "round" || !hint || !hint.length) return null;
      const starting = hint.some((r) => r.starting_cards);
      const playable = [...new Set(hint.flatMap((r) => r.playable || []))];
      // The card: one the runner may play (by runner, for a manager of two); in round 1 one of the five starting
      // cards typed above it (rule 2), written value/0 as the rulebook does.
      const card = starting ? { from: { field: "cards", choices: (values) => values.map((v) => `${v}/0`) } }
        : hint.length > 1 ? { by: { field: "runner", choices: Object.fromEntries(hint.map((r) => [r.runner,
          r.playable || []])) } } : { choices: playable };
      const legal = {
        runner: hint.length > 1 ? { choices: hint.map((r) => r.runner) } : hide,
        card,
        cards: starting ? { count: 5 } : hide,
        drug: tarnished && starting ? {} : hide,
        energiza: tarnished ? {} : hide,
        boost: tarnished ? {} : hide,
      };
      return { legal, order: ["runner", "cards", "drug", "card", "move", "bank", "deduct", "energiza", "boost"] };
    }
    if (type === "accuse") {
      if (view.stage !== "accusation") return null;
      return { legal: { runner: { choices: view.runners.map((r) => r.name) } } };
    }
    if (type === "submit_robot") return view.stage === "robots" ? { legal: {} } : null;
    return null;
  },

  "sxyzm-cyclone": (view, type) => {
    const h = view.legal_moves;
    if (type !== "turn" || !h) return null;
    const single = h.moves.map((m) => ({ cube: m.cube, toward: m.toward }));
    return { legal: { moves: { max: h.roll, first: { choices: single } } } };
  },

  // Strategic Aspect's hint names the fields themselves: a list of the values each may take (amount: its lowest
  // and highest).  An order is open when its hint names every field it needs.
  "strategic-aspect": (view, type, schema) => {
    const h = view.you && view.you.legal;
    if (!h) return null;
    const needed = (schema.required || []).filter((n) => n !== "type");
    const offered = Object.keys(schema.properties || {}).filter((n) => n in h);
    if (!offered.length || needed.some((n) => !(n in h))) return null;
    const legal = {};
    for (const name of offered) legal[name] = name === "amount" ? range(h.amount[0], h.amount[1]) : { choices: h[name] };
    if (type === "safety" && legal.to) legal.to.when = { field: "choice", is: ["give"] };  // a gift names its receiver
    return { legal, order: ["choice", "to"] };
  },
};

// ``view``: the player's view (a GM entering an order reads the player's view through the replay's ``as``).
export function openOrder(gameType, view, type, schema) {
  const reader = READERS[gameType];
  if (!reader || !view) return null;
  return reader(view, type, schema);
}

export function knows(gameType) { return gameType in READERS; }
