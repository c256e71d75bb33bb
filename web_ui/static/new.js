/* New match form: presets and their defaults come from the engine via /api/presets. */
"use strict";
(() => {
  const el = RR.el, clear = RR.clear, T = RR.T;
  const $ = (id) => document.getElementById(id);
  let presets = null;
  let choices = {}, booleans = [];
  const MAIN = ["target", "match_hands", "ace_mode", "decks", "jokers_per_deck", "max_melds_per_turn"];
  const more = {};  // key -> input/select of the "all options" section
  let dealer = null;
  const list = $("players");

  function names() { return [...list.querySelectorAll("input")].map((i) => i.value.trim()); }
  function rules() { return document.querySelector('input[name="rules"]:checked').value; }

  function addPlayer(name, color) {
    const li = el("li", { class: "player-row" },
      el("input", { type: "text", class: "big-input", maxlength: 40, placeholder: T("Player {n}", { n: list.children.length + 1 }), value: name || "", "aria-label": T("Player {n} name", { n: list.children.length + 1 }), oninput: refresh }),
      el("button", { type: "button", class: "btn ghost", title: T("Move up"), "aria-label": T("Move up"), onclick: () => { if (li.previousElementSibling) list.insertBefore(li, li.previousElementSibling); refresh(); } }, "↑"),
      el("button", { type: "button", class: "btn ghost", title: T("Remove"), "aria-label": T("Remove"), onclick: () => { li.remove(); refresh(); } }, "✕"));
    list.append(li);
    setupRow(li, color);
    refresh();
    return li;
  }

  // ---------- players from before and their colours (issue 13) ----------
  // A swatch a row: tap it for the next colour of the palette that no other row has (RR.COLORS). Until
  // then a row's colour is proposed: the colour that name had last (GET /api/players), else the first
  // colour no other row has; a tapped colour (or one taken from the last match) stays with the row.
  let known = {};        // name in lower case -> {name, color} of the matches before (newest first)
  let knownOrder = [];   // those names, most recent first
  let lastSeating = null;
  function setupRow(li, color) {
    const inp = li.querySelector("input");
    inp.setAttribute("list", "known-players");
    const sw = el("button", { type: "button", class: "swatch-btn", onclick: () => cycleColor(li) });
    li.prepend(sw);
    if (RR.isColor(color)) { li.dataset.color = color.toLowerCase(); li.dataset.chosen = "1"; }
  }
  function rows() { return [...list.children]; }
  function rowName(li) { return li.querySelector("input").value.trim(); }
  function cycleColor(li) {
    const others = new Set(rows().filter((r) => r !== li).map((r) => r.dataset.color));
    const at = RR.COLORS.indexOf(li.dataset.color);
    for (let k = 1; k <= RR.COLORS.length; k++) {
      const c = RR.COLORS[(at + k + RR.COLORS.length) % RR.COLORS.length];
      if (!others.has(c) || k === RR.COLORS.length) { li.dataset.color = c; break; }
    }
    li.dataset.chosen = "1";
    refresh();
  }
  function assignColors() {
    const used = new Set(rows().filter((r) => r.dataset.chosen === "1").map((r) => r.dataset.color));
    for (const li of rows()) {
      if (li.dataset.chosen !== "1") {
        const k = known[rowName(li).toLowerCase()];
        const c = k && RR.isColor(k.color) && !used.has(k.color) ? k.color : (RR.COLORS.find((x) => !used.has(x)) || RR.COLORS[0]);
        li.dataset.color = c;
        used.add(c);
      }
      const sw = li.querySelector(".swatch-btn");
      const who = rowName(li) || li.querySelector("input").placeholder;
      sw.style.background = li.dataset.color;
      sw.title = T("Colour of {name}: tap for another", { name: who });
      sw.setAttribute("aria-label", sw.title);
    }
  }
  function colorsOf() {
    const out = {};
    for (const li of rows()) if (rowName(li)) out[rowName(li)] = li.dataset.color;
    return out;
  }
  // The chips are rebuilt only when what they show changes: every keystroke and every late answer (the
  // presets) calls refresh(), and a chip replaced under a finger would swallow the tap.
  let knownShown = null;
  function renderKnown() {
    const box = $("known-names");
    if (!box) return;
    const typed = new Set(names().filter(Boolean).map((n) => n.toLowerCase()));
    const shown = JSON.stringify(knownOrder.filter((k) => !typed.has(k)).map((k) => [known[k].name, known[k].color]));
    $("known-box").hidden = !knownOrder.length;
    $("same-players").hidden = !(lastSeating && lastSeating.players.length);
    if (shown === knownShown) return;
    knownShown = shown;
    clear(box);
    for (const k of knownOrder) {
      const p = known[k];
      if (typed.has(k)) continue;
      box.append(el("button", { type: "button", class: "chip known-chip", "data-name": p.name, onclick: () => addKnown(p.name) },
        el("span", { class: "swatch", style: { background: RR.isColor(p.color) ? p.color : "transparent" } }), p.name));
    }
  }
  function addKnown(name) {
    const empty = rows().find((li) => !rowName(li));
    if (empty) { empty.querySelector("input").value = name; refresh(); } else addPlayer(name);
  }
  function sameAsLast() {
    if (!lastSeating) return;
    clear(list);
    for (const p of lastSeating.players) addPlayer(p, (lastSeating.colors || {})[p]);
    refresh();
  }
  function loadKnown() {
    RR.get("/api/players").then((r) => {
      if (!r.ok) return;
      known = {};
      knownOrder = [];
      for (const p of r.players || []) {
        const k = String(p.name).toLowerCase();
        if (known[k]) continue;
        known[k] = { name: p.name, color: p.color };
        knownOrder.push(k);
      }
      lastSeating = r.last || null;
      const dl = clear($("known-players"));
      for (const k of knownOrder) dl.append(el("option", { value: known[k].name }));
      refresh();
    });
  }

  function describeDefault(key, v) {
    if (v === null || v === undefined) return key === "max_melds_per_turn" ? T("default: no limit") : T("default: none");
    if (key === "ace_mode") return v === "low" ? T("default: low only") : T("default: high or low");
    return T("default: {value}", { value: v });
  }

  // what was typed survives a trip to the PIN page and back (this tab only)
  const DRAFT = "rr-new-match-draft";
  function saveDraft() {
    // colours: the ones tapped (or taken from the last match) stay; the proposed ones are proposed again
    const colors = rows().map((li) => (li.dataset.chosen === "1" ? li.dataset.color : null));
    try { sessionStorage.setItem(DRAFT, JSON.stringify({ names: names(), rules: rules(), title: $("match-title") ? $("match-title").value : "", colors })); } catch (e) { /* storage off */ }
  }
  function loadDraft() {
    try { return JSON.parse(sessionStorage.getItem(DRAFT) || "null"); } catch (e) { return null; }
  }

  function refresh() {
    assignColors();
    renderKnown();
    saveDraft();
    const ns = names().filter(Boolean);
    const r = rules();
    // dealer chips
    const dc = clear($("dealer-choice"));
    if (!ns.includes(dealer)) dealer = ns[0] || null;
    for (const n of ns) dc.append(el("button", { type: "button", class: "chip" + (n === dealer ? " on" : ""), onclick: () => { dealer = n; refresh(); } }, n));
    if (!ns.length) dc.append(el("span", { class: "muted" }, T("Type the players' names first.")));
    for (const lab of document.querySelectorAll("[data-only]")) lab.hidden = lab.dataset.only !== r;
    if (!presets) return;
    const p = presets[r];
    for (const h of document.querySelectorAll(".players-hint")) {
      const pp = presets[h.dataset.rules];
      if (pp) h.textContent = pp.players.length > 1 ? T("{min}–{max} players", { min: pp.players[0], max: pp.players[pp.players.length - 1] }) : T("{n} players", { n: pp.players[0] });
    }
    const count = Math.max(ns.length, 0);
    const okCount = p.players.includes(count);
    const shownCount = okCount ? count : p.players[0];
    const d = p.defaults[String(shownCount)];
    for (const s of document.querySelectorAll(".def")) {
      const k = s.dataset.key;
      s.textContent = k === "target" && d.target ? T("default: {value} for {n} players", { value: d.target, n: shownCount }) : describeDefault(k, d[k]);
      const inp = $(`opt-${k}`);
      if (inp && inp.tagName === "INPUT") inp.placeholder = d[k] === null || d[k] === undefined ? (k === "max_melds_per_turn" ? T("no limit") : "") : String(d[k]);
    }
    renderMore(d);
    const tgt = $("opt-target").value.trim() || d.target;
    const hands = $("opt-match_hands").value.trim();
    const sum = $("preset-summary");
    // the preset's title as the form shows it (in the page's language)
    const label = document.querySelector(`input[name="rules"][value="${CSS.escape(r)}"] + span`);
    const title = label ? label.textContent : p.title;
    const jk = d.jokers_per_deck;
    const decks = d.decks > 1 ? (jk ? T("{n} decks with {jokers} jokers each", { n: d.decks, jokers: jk }) : T("{n} decks", { n: d.decks }))
      : (jk ? T("1 deck with {jokers} jokers each", { jokers: jk }) : T("1 deck"));
    const goal = tgt ? T("first to {target} wins", { target: tgt }) : T("{n} hands", { n: hands || d.match_hands });
    sum.textContent = okCount
      ? T("{title}, {count} players: {cards} cards each, {decks}, {goal}.", { title, count, cards: d.hand_size, decks, goal })
      : T("{title} is played by {counts} players (you have {count}).", { title, counts: p.players.join(", "), count });
    sum.classList.toggle("bad-text", !okCount && count > 0);
  }

  // the rule options' names and worded values (referee/options.py), in the players' language
  const OPTION_WORDS = {
    dealer_rotation: T("Dealer rotation"), deep_card_use: T("Deep card use"), discard_draw: T("Discard draw"),
    final_discard_face_down: T("Final discard face down"), final_discard_must_be_unplayable: T("Final discard must be unplayable"),
    floating: T("Floating"), go_out_without_discard: T("Go out without discard"), going_rummy: T("Going rummy"),
    hand_size: T("Hand size"), joker_meld_value: T("Joker meld value"), layoff_credit: T("Layoff credit"),
    layoff_requires_own_meld: T("Layoff requires own meld"), min_natural_cards_per_meld: T("Min natural cards per meld"),
    recycle_keeps_top: T("Recycle keeps top"), recycle_limit: T("Recycle limit"), recycle_shuffle: T("Recycle shuffle"),
    recycle_trigger: T("Recycle trigger"), rummy_call: T("Rummy call"), scoring: T("Scoring"),
    set_suits_distinct: T("Set suits distinct"), stalemate_detector: T("Stalemate detector"),
    stalemate_ends_match: T("Stalemate ends match"), stock_empty_after_limit: T("Stock empty after limit"),
    stock_empty_end: T("Stock empty end"), tie_rule: T("Tie rule"), top_discard_must_be_used: T("Top discard must be used"),
    values: T("Values"),
  };
  const VALUE_WORDS = {
    low: T("low"), high_or_low: T("high or low"), basic: T("basic"), basic_ace15: T("basic ace15"), r500: T("r500"),
    r500_5_10_15: T("r500 5 10 15"), fixed15: T("fixed15"), represented: T("represented"), none: T("none"),
    double: T("double"), plus10: T("plus10"), clockwise: T("clockwise"), winner_deals_2p: T("winner deals 2p"),
    meld_or_layoff: T("meld or layoff"), new_meld_only: T("new meld only"), extra_hand: T("extra hand"),
    went_out_wins: T("went out wins"), shared_win: T("shared win"), impossible: T("impossible"),
    placed_in_front: T("placed in front"), scores_for_layer: T("scores for layer"), top_only: T("top only"),
    top_or_deep: T("top or deep"), winner_takes_hands: T("winner takes hands"), meld_minus_hand: T("meld minus hand"),
    immediate: T("immediate"), on_demand: T("on demand"), stalemate: T("stalemate"), score_hand: T("score hand"),
  };
  function words(k) { return OPTION_WORDS[k] || (k.charAt(0).toUpperCase() + k.slice(1)).replace(/_/g, " "); }
  function valueWords(v) { return VALUE_WORDS[v] || String(v).replace(/_/g, " "); }
  function shown(v) { return v === null || v === undefined ? T("none") : v === true ? T("yes") : v === false ? T("no") : typeof v === "string" ? valueWords(v) : String(v); }
  function renderMore(d) {
    const box = $("more-options");
    const keep = {};
    for (const [k, inp] of Object.entries(more)) keep[k] = inp.value;
    clear(box);
    for (const k of Object.keys(d).sort()) {
      if (MAIN.includes(k)) continue;
      let inp;
      if (choices[k]) {
        inp = el("select", { name: k }, el("option", { value: "" }, T("default ({value})", { value: shown(d[k]) })),
          choices[k].map((c) => el("option", { value: c }, valueWords(c))));
      } else if (booleans.includes(k) || typeof d[k] === "boolean") {
        inp = el("select", { name: k }, el("option", { value: "" }, T("default ({value})", { value: shown(d[k]) })),
          el("option", { value: "true" }, T("yes")), el("option", { value: "false" }, T("no")));
      } else {
        inp = el("input", { type: "number", min: 0, name: k, placeholder: shown(d[k]) });
      }
      inp.dataset.kind = choices[k] ? "enum" : (booleans.includes(k) || typeof d[k] === "boolean") ? "bool" : "int";
      if (keep[k] !== undefined) inp.value = keep[k];
      more[k] = inp;
      box.append(el("label", {}, words(k), inp, el("small", { class: "def" }, T("default: {value}", { value: shown(d[k]) }))));
    }
    for (const k of Object.keys(more)) if (!(k in d)) delete more[k];
  }

  function options() {
    const o = {};
    for (const [k, inp] of Object.entries(more)) {
      const v = inp.value.trim();
      if (v === "") continue;
      o[k] = inp.dataset.kind === "bool" ? v === "true" : inp.dataset.kind === "int" ? Number(v) : v;
    }
    for (const k of ["target", "match_hands", "decks", "jokers_per_deck", "max_melds_per_turn"]) {
      const inp = $(`opt-${k}`);
      if (!inp || inp.closest("[hidden]")) continue;
      const v = inp.value.trim();
      if (v !== "") o[k] = Number(v);
    }
    const ace = $("opt-ace_mode").value;
    if (ace) o.ace_mode = ace;
    return o;
  }

  async function submit(e) {
    e.preventDefault();
    const err = $("form-error");
    err.hidden = true;
    const ns = names().filter(Boolean);
    if (new Set(ns.map((n) => n.toLowerCase())).size !== ns.length) { err.textContent = T("Two players have the same name."); err.hidden = false; return; }
    const body = { type: "match", rules: rules(), players: ns, options: options(), dealer };
    body.colors = colorsOf();
    const title = $("match-title").value.trim();
    if (title) body.title = title;
    const cam = $("camera").value, lay = $("layout").value;
    if (cam) body.camera = cam;
    if (lay) body.layout = lay;
    const r = await RR.post("/api/matches", body);
    if (r.status === 201 && r.id) { try { sessionStorage.removeItem(DRAFT); } catch (e) { /* storage off */ } location.href = `/m/${r.id}`; return; }
    err.textContent = r.message || r.code ? RR.refusal(r) : T("The match could not be created.");
    err.hidden = false;
  }

  $("add-player").addEventListener("click", () => addPlayer("").querySelector("input").focus());
  for (const r of document.querySelectorAll('input[name="rules"]')) r.addEventListener("change", refresh);
  $("new-match").addEventListener("submit", submit);
  for (const id of ["opt-target", "opt-match_hands"]) $(id).addEventListener("input", refresh);
  const draft = loadDraft();
  if (draft && Array.isArray(draft.names) && draft.names.some(Boolean)) {
    draft.names.forEach((n, i) => addPlayer(String(n), Array.isArray(draft.colors) ? draft.colors[i] : null));
    const r = document.querySelector(`input[name="rules"][value="${CSS.escape(String(draft.rules))}"]`);
    if (r) r.checked = true;
    if (draft.title && $("match-title")) $("match-title").value = String(draft.title);
    refresh();
  } else { addPlayer(""); addPlayer(""); addPlayer(""); }
  if ($("match-title")) $("match-title").addEventListener("input", saveDraft);
  if ($("same-players")) $("same-players").addEventListener("click", sameAsLast);
  loadKnown();
  RR.get("/api/presets").then((p) => {
    if (p.ok) { presets = p.presets; choices = p.choices || {}; booleans = p.booleans || []; refresh(); }
  });
})();
