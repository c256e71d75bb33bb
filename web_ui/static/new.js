/* New match form: presets and their defaults come from the engine via /api/presets. */
"use strict";
(() => {
  const el = RR.el, clear = RR.clear;
  const $ = (id) => document.getElementById(id);
  let presets = null;
  let choices = {}, booleans = [];
  const MAIN = ["target", "match_hands", "ace_mode", "decks", "jokers_per_deck", "max_melds_per_turn"];
  const more = {};  // key -> input/select of the "all options" section
  let dealer = null;
  const list = $("players");

  function names() { return [...list.querySelectorAll("input")].map((i) => i.value.trim()); }
  function rules() { return document.querySelector('input[name="rules"]:checked').value; }

  function addPlayer(name) {
    const li = el("li", { class: "player-row" },
      el("input", { type: "text", class: "big-input", maxlength: 40, placeholder: `Player ${list.children.length + 1}`, value: name || "", "aria-label": `Player ${list.children.length + 1} name`, oninput: refresh }),
      el("button", { type: "button", class: "btn ghost", title: "Move up", "aria-label": "Move up", onclick: () => { if (li.previousElementSibling) list.insertBefore(li, li.previousElementSibling); refresh(); } }, "↑"),
      el("button", { type: "button", class: "btn ghost", title: "Remove", "aria-label": "Remove", onclick: () => { li.remove(); refresh(); } }, "✕"));
    list.append(li);
    refresh();
    return li;
  }

  function describeDefault(key, v) {
    if (v === null || v === undefined) return key === "max_melds_per_turn" ? "default: no limit" : "default: none";
    if (key === "ace_mode") return v === "low" ? "default: low only" : "default: high or low";
    return `default: ${v}`;
  }

  // what was typed survives a trip to the PIN page and back (this tab only)
  const DRAFT = "rr-new-match-draft";
  function saveDraft() {
    try { sessionStorage.setItem(DRAFT, JSON.stringify({ names: names(), rules: rules(), title: $("match-title") ? $("match-title").value : "" })); } catch (e) { /* storage off */ }
  }
  function loadDraft() {
    try { return JSON.parse(sessionStorage.getItem(DRAFT) || "null"); } catch (e) { return null; }
  }

  function refresh() {
    saveDraft();
    const ns = names().filter(Boolean);
    const r = rules();
    // dealer chips
    const dc = clear($("dealer-choice"));
    if (!ns.includes(dealer)) dealer = ns[0] || null;
    for (const n of ns) dc.append(el("button", { type: "button", class: "chip" + (n === dealer ? " on" : ""), onclick: () => { dealer = n; refresh(); } }, n));
    if (!ns.length) dc.append(el("span", { class: "muted" }, "Type the players' names first."));
    for (const lab of document.querySelectorAll("[data-only]")) lab.hidden = lab.dataset.only !== r;
    if (!presets) return;
    const p = presets[r];
    for (const h of document.querySelectorAll(".players-hint")) {
      const pp = presets[h.dataset.rules];
      if (pp) h.textContent = pp.players.length > 1 ? `${pp.players[0]}–${pp.players[pp.players.length - 1]} players` : `${pp.players[0]} players`;
    }
    const count = Math.max(ns.length, 0);
    const okCount = p.players.includes(count);
    const shownCount = okCount ? count : p.players[0];
    const d = p.defaults[String(shownCount)];
    for (const s of document.querySelectorAll(".def")) {
      const k = s.dataset.key;
      s.textContent = describeDefault(k, d[k]) + (k === "target" && d.target ? ` for ${shownCount} players` : "");
      const inp = $(`opt-${k}`);
      if (inp && inp.tagName === "INPUT") inp.placeholder = d[k] === null || d[k] === undefined ? (k === "max_melds_per_turn" ? "no limit" : "") : String(d[k]);
    }
    renderMore(d);
    const tgt = $("opt-target").value.trim() || d.target;
    const hands = $("opt-match_hands").value.trim();
    const sum = $("preset-summary");
    sum.textContent = okCount
      ? `${p.title}, ${count} players: ${d.hand_size} cards each, ${d.decks} deck${d.decks > 1 ? "s" : ""}${d.jokers_per_deck ? ` with ${d.jokers_per_deck} jokers each` : ""}, ${tgt ? "first to " + tgt + " wins" : (hands || d.match_hands) + " hands"}.`
      : `${p.title} is played by ${p.players.join(", ")} players (you have ${count}).`;
    sum.classList.toggle("bad-text", !okCount && count > 0);
  }

  function words(k) { return (k.charAt(0).toUpperCase() + k.slice(1)).replace(/_/g, " "); }
  function shown(v) { return v === null || v === undefined ? "none" : v === true ? "yes" : v === false ? "no" : String(v); }
  function renderMore(d) {
    const box = $("more-options");
    const keep = {};
    for (const [k, inp] of Object.entries(more)) keep[k] = inp.value;
    clear(box);
    for (const k of Object.keys(d).sort()) {
      if (MAIN.includes(k)) continue;
      let inp;
      if (choices[k]) {
        inp = el("select", { name: k }, el("option", { value: "" }, `default (${shown(d[k])})`),
          choices[k].map((c) => el("option", { value: c }, c.replace(/_/g, " "))));
      } else if (booleans.includes(k) || typeof d[k] === "boolean") {
        inp = el("select", { name: k }, el("option", { value: "" }, `default (${shown(d[k])})`),
          el("option", { value: "true" }, "yes"), el("option", { value: "false" }, "no"));
      } else {
        inp = el("input", { type: "number", min: 0, name: k, placeholder: shown(d[k]) });
      }
      inp.dataset.kind = choices[k] ? "enum" : (booleans.includes(k) || typeof d[k] === "boolean") ? "bool" : "int";
      if (keep[k] !== undefined) inp.value = keep[k];
      more[k] = inp;
      box.append(el("label", {}, words(k), inp, el("small", { class: "def" }, `default: ${shown(d[k])}`)));
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
    if (new Set(ns.map((n) => n.toLowerCase())).size !== ns.length) { err.textContent = "Two players have the same name."; err.hidden = false; return; }
    const body = { type: "match", rules: rules(), players: ns, options: options(), dealer };
    const title = $("match-title").value.trim();
    if (title) body.title = title;
    const cam = $("camera").value, lay = $("layout").value;
    if (cam) body.camera = cam;
    if (lay) body.layout = lay;
    const r = await RR.post("/api/matches", body);
    if (r.status === 201 && r.id) { try { sessionStorage.removeItem(DRAFT); } catch (e) { /* storage off */ } location.href = `/m/${r.id}`; return; }
    err.textContent = r.message || "The match could not be created.";
    err.hidden = false;
  }

  $("add-player").addEventListener("click", () => addPlayer("").querySelector("input").focus());
  for (const r of document.querySelectorAll('input[name="rules"]')) r.addEventListener("change", refresh);
  $("new-match").addEventListener("submit", submit);
  for (const id of ["opt-target", "opt-match_hands"]) $(id).addEventListener("input", refresh);
  const draft = loadDraft();
  if (draft && Array.isArray(draft.names) && draft.names.some(Boolean)) {
    for (const n of draft.names) addPlayer(String(n));
    const r = document.querySelector(`input[name="rules"][value="${CSS.escape(String(draft.rules))}"]`);
    if (r) r.checked = true;
    if (draft.title && $("match-title")) $("match-title").value = String(draft.title);
    refresh();
  } else { addPlayer(""); addPlayer(""); addPlayer(""); }
  if ($("match-title")) $("match-title").addEventListener("input", saveDraft);
  RR.get("/api/presets").then((p) => {
    if (p.ok) { presets = p.presets; choices = p.choices || {}; booleans = p.booleans || []; refresh(); }
  });
})();
