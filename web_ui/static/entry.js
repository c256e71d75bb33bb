/* The live screen's move-entry panel: the tabs of the moves that may come next, the form of one move and
   the quick result. It reads the match state through `ctx.state()` and sends through the API. */
"use strict";
RR.EntryPanel = (ctx) => {
  const el = RR.el, clear = RR.clear;
  const $ = (id) => document.getElementById(id);
  const api = ctx.api, showAlert = ctx.showAlert, playing = ctx.playing, awaiting = ctx.awaiting;
  let S = null;
  let action = null;       // current entry tab
  // the rule options decide what the panel offers, never the preset's name
  const callsRummy = () => !!(S.options && S.options.rummy_call);
  const scoresMelds = () => !!(S.options && S.options.scoring === "meld_minus_hand");  // melds count for their player
  const ACTIONS = [
    ["deal", RR.T("Deal")], ["draw_stock", RR.T("Draw stock")], ["draw_discard", RR.T("Take discard")], ["meld", RR.T("Meld")],
    ["lay_off", RR.T("Lay off")], ["discard", RR.T("Discard")], ["reveal", RR.T("Show hand")], ["call_rummy", RR.T("Call Rummy")],
    ["end_hand", RR.T("End hand")], ["hand_result", RR.T("Quick result")],
  ];
  function suggested() {
    if (!S || S.match_over) return [];
    const L = S.legal;
    if (L && Array.isArray(L.allowed)) {  // the engine says what may happen next
      const out = [];
      for (const t of L.allowed) {
        if (t === "draw") {
          const from = L.draw_from || ["stock", "discard"];
          if (from.includes("stock")) out.push("draw_stock");
          if (from.includes("discard")) out.push("draw_discard");
        } else if (t === "reveal") out.push("reveal");
        else out.push(t);
      }
      if (out.length) return out;
    }
    const cur = playing();
    if (!cur) return ["deal", "hand_result"];
    if (awaiting().length) return ["reveal"];
    const call = callsRummy() ? ["call_rummy"] : [];
    if (cur.phase === "draw") return ["draw_stock", "draw_discard"].concat(call, ["end_hand"]);
    if (cur.phase === "play") return ["meld", "lay_off", "discard"].concat(call);
    if (cur.phase === "reveal") return ["reveal"];
    return [];
  }
  function renderTabs() {
    const tabs = clear($("action-tabs"));
    const sug = suggested();
    for (const [key, name] of ACTIONS) {
      if (key === "call_rummy" && S && !callsRummy()) continue;
      tabs.append(el("button", { type: "button", role: "tab", "aria-selected": key === action ? "true" : "false", class: "tab" + (key === action ? " on" : "") + (sug.includes(key) ? " sug" : ""), "data-action": key, onclick: () => setAction(key) }, name));
    }
  }

  let form = null; // {player, cards, ...}
  let picker = null;
  function setAction(key) {
    action = key;
    form = { player: null, cards: [], extra: {} };
    renderTabs();
    renderEntry();
  }

  function defaultPlayer() {
    const cur = playing();
    if (action === "reveal" && awaiting().length) return awaiting()[0];
    if (cur && cur.current_player) return cur.current_player;
    return S.players[0];
  }

  function chips(options, value, onPick, attrs) {
    return el("div", Object.assign({ class: "chips", role: "group" }, attrs || {}), options.map(([v, text]) =>
      el("button", { type: "button", class: "chip" + (v === value ? " on" : ""), "aria-pressed": v === value ? "true" : "false", "data-value": v === null ? "" : v, onclick: () => onPick(v) }, text)));
  }

  function renderEntry() {
    const body = clear($("entry-body"));
    if (RR.pinLocked) {
      body.append(el("p", {}, el("a", { class: "btn warn big", href: "/unlock?next=" + encodeURIComponent(location.pathname) }, RR.T("Enter the PIN to make changes"))));
      return;
    }
    if (!S) return;
    $("action-tabs").hidden = !!S.match_over;
    if (S.match_over) {
      body.append(el("p", { class: "big-text" }, RR.T("The match is over.") + " ",
        el("a", { class: "btn primary big", href: "/new" }, RR.T("Start a new match"))),
        el("p", { class: "muted" }, RR.T("A mistake? Undo (top right) takes back the last move and the match goes on.")));
      return;
    }
    if (action === "hand_result") { renderQuick(body); return; }
    const needsPlayer = !["deal", "end_hand"].includes(action);
    if (needsPlayer) {
      if (!form.player) form.player = defaultPlayer();
      body.append(el("div", { class: "field" }, el("label", {}, RR.T("Player")),
        chips(S.players.map((p) => [p, p]), form.player, (v) => { form.player = v; renderEntry(); }, { id: "player-chips" })));
    }
    if (action === "deal") {
      if (!form.extra.dealer) form.extra.dealer = S.next_dealer || S.players[0];
      body.append(el("div", { class: "field" }, el("label", {}, RR.T("Dealer")),
        chips(S.players.map((p) => [p, p]), form.extra.dealer, (v) => { form.extra.dealer = v; renderEntry(); }, { id: "dealer-chips" })));
    }
    if (action === "lay_off") {
      const melds = (S.current && S.current.melds) || [];
      const fits = (S.legal && S.legal.layoff_targets) || {};
      const takes = (m) => { const t = fits[m.id] || fits[String(m.id)]; return t && t.length ? " " + RR.T("(takes {cards})", { cards: Words.cl(t.slice(0, 4)) + (t.length > 4 ? "…" : "") }) : ""; };
      body.append(el("div", { class: "field" }, el("label", {}, RR.T("On meld")),
        chips([[null, RR.T("The one that fits")]].concat(melds.map((m) => [m.id, `#${m.id} ${Words.cl(m.cards.slice(0, 4))}${m.cards.length > 4 ? "…" : ""}${takes(m)}`])), form.extra.meld || null, (v) => { form.extra.meld = v; renderEntry(); })));
    }
    if (action === "discard") {
      body.append(el("div", { class: "field" }, el("label", { class: "check" },
        el("input", { type: "checkbox", id: "face-down", checked: form.extra.face_down ? true : null, onchange: (e) => { form.extra.face_down = e.target.checked; } }), " " + RR.T("Face down (last card, going out)"))));
    }
    if (action === "end_hand") {
      body.append(el("div", { class: "field" }, el("label", {}, RR.T("Why")),
        chips([[null, RR.T("No reason given")], ["stalemate", RR.T("Stalemate")], ["stock_empty", RR.T("Stock is empty")]], form.extra.reason || null, (v) => { form.extra.reason = v; form.extra.sure = false; renderEntry(); })));
    }
    const cardSpec = {
      deal: [1, RR.T("Upcard (first card of the discard pile)")], draw_stock: [1, RR.T("Card drawn (if you know it)")],
      draw_discard: [1, RR.T("Card taken (the deepest, if several)")], meld: [0, RR.T("Cards of the new meld")], lay_off: [0, RR.T("Cards laid off")],
      discard: [1, RR.T("Card discarded")], reveal: [0, RR.T("Cards left in the hand")], call_rummy: [1, RR.T("Card called on")],
    }[action];
    if (cardSpec) {
      picker = new Cards.Picker({ max: cardSpec[0], onChange: (cs) => { form.cards = cs; updateSend(); } });
      picker.set(form.cards);
      body.append(el("div", { class: "field" }, el("label", {}, cardSpec[1]), picker.node));
    }
    body.append(el("div", { class: "send-row" },
      el("button", { type: "button", class: "btn primary big", id: "send-btn", onclick: send }, RR.T("Send")),
      alternatives().map(([key, text]) => el("button", { type: "button", class: "btn big alt-send", "data-send": key, onclick: () => sendAs(key) }, text)),
      el("span", { class: "preview", id: "send-preview" })));
    updateSend();
  }

  // One tap an event: the moves that may come instead of the tab's own are one button each beside Send
  // (draw from the stock or take the discard; meld, lay off or discard the cards picked), so a turn needs
  // no tab change. The tabs remain for a move's options (the meld a lay-off goes to, a face-down discard).
  const PLAY = ["meld", "lay_off", "discard"];
  function alternatives() {
    const sug = suggested();
    const top = S.current && S.current.discard && S.current.discard.length ? S.current.discard[S.current.discard.length - 1] : null;
    if (action === "draw_stock" && sug.includes("draw_discard") && top) return [["draw_discard", RR.T("Take {card}", { card: Cards.label(top) })]];
    if (action === "draw_discard" && sug.includes("draw_stock")) return [["draw_stock", RR.T("Draw from the stock")]];
    if (PLAY.includes(action)) {
      const names = { meld: RR.T("Meld"), lay_off: RR.T("Lay off"), discard: RR.T("Discard") };
      return PLAY.filter((k) => k !== action && sug.includes(k)).map((k) => [k, names[k]]);
    }
    return [];
  }
  async function sendAs(key) {
    const own = action;
    action = key;
    const keep = form.extra, keepCards = form.cards;
    // a tab's own options (the meld of a lay-off, face down) belong to that tab's move only, and so does
    // the card named on a draw tab (the card drawn from the stock is not the discard's top card)
    form.extra = key === own ? keep : {};
    if (key.startsWith("draw_") && key !== own) form.cards = [];
    const ev = buildEvent();
    action = own;
    form.extra = keep;
    form.cards = keepCards;
    if (!ev) return;
    if (await postEvent(ev)) {
      form.cards = [];
      if (picker) picker.set([]);
      updateSend();
    }
  }

  function buildEvent() {
    const f = form, c = f.cards;
    switch (action) {
      case "deal": return { type: "deal", dealer: f.extra.dealer, upcard: c[0] };
      case "draw_stock": return Object.assign({ type: "draw", player: f.player, from: "stock" }, c[0] ? { card: c[0] } : {});
      case "draw_discard": return Object.assign({ type: "draw", player: f.player, from: "discard" }, c[0] ? { card: c[0] } : {});
      case "meld": return { type: "meld", player: f.player, cards: c };
      case "lay_off": return Object.assign({ type: "lay_off", player: f.player, cards: c }, f.extra.meld ? { meld: f.extra.meld } : {});
      case "discard": return Object.assign({ type: "discard", player: f.player, card: c[0] }, f.extra.face_down ? { face_down: true } : {});
      case "reveal": return { type: "reveal", player: f.player, cards: c };
      case "call_rummy": return { type: "call_rummy", player: f.player, card: c[0] };
      case "end_hand": return Object.assign({ type: "end_hand" }, f.extra.reason ? { reason: f.extra.reason } : {});
      default: return null;
    }
  }
  function updateSend() {
    const p = $("send-preview");
    if (!p) return;
    const ev = buildEvent();
    p.textContent = ev ? Words.describe(ev).replace(/\?/g, "…") : "";
    // what each button can send now: a discard is one card, a meld or lay-off needs cards
    const n = (form.cards || []).length;
    for (const b of document.querySelectorAll("#entry-body .alt-send")) {
      const k = b.dataset.send;
      b.disabled = (k === "discard" && n !== 1) || ((k === "meld" || k === "lay_off") && n === 0);
    }
  }

  async function postEvent(ev) {
    const btn = $("send-btn");
    if (btn) btn.disabled = true;
    const r = await RR.post(`${api}/events`, ev);
    if (btn) btn.disabled = false;
    if (r.ok) {
      showAlert(Words.describe(ev), "ok");
      return true;
    }
    showAlert(RR.T("Not allowed: {reason}", { reason: RR.refusal(r) }), "bad");
    return false;
  }

  async function send() {
    const ev = buildEvent();
    if (!ev) return;
    if (action === "end_hand" && !form.extra.sure) {  // ending a hand cannot be taken back by playing on: ask once
      form.extra.sure = true;
      const b = $("send-btn");
      b.textContent = RR.T("Tap again to end the hand");
      b.classList.add("warn");
      return;
    }
    if (await postEvent(ev)) {
      form.cards = [];
      if (picker) picker.set([]);
      // (after a reveal the next hand to show is proposed by the new phase: the stream may have come first)
      updateSend();
    }
  }

  // quick mode: only who went out and what was left
  function renderQuick(body) {
    const q = form.extra;
    if (!q.init) {
      Object.assign(q, { init: true, dealer: S.next_dealer || S.players[0], winner: undefined, mode: "points", points: {}, hands: {}, melded: {}, active: null, rummy: false });
    }
    body.append(el("p", { class: "muted" }, RR.T("For tables that do not track every move: after the hand, enter who went out and what was left in each hand. Scored exactly like a played hand.")));
    body.append(el("div", { class: "field" }, el("label", {}, RR.T("Dealer")), chips(S.players.map((p) => [p, p]), q.dealer, (v) => { q.dealer = v; renderEntry(); }, { id: "quick-dealer" })));
    body.append(el("div", { class: "field" }, el("label", {}, RR.T("Went out")), chips(S.players.map((p) => [p, p]).concat([[null, RR.T("Nobody (stalemate)")]]), q.winner, (v) => { q.winner = v; renderEntry(); }, { id: "quick-winner" })));
    body.append(el("div", { class: "field" }, el("label", {}, RR.T("Enter")), chips([["points", RR.T("Points left")], ["cards", RR.T("Cards left")]], q.mode, (v) => { q.mode = v; renderEntry(); }, { id: "quick-mode" })));
    const r500 = scoresMelds();
    if (q.winner === null && !r500) {  // a stalemate: only going out scores here, so nothing to count
      body.append(el("p", { class: "big-text", id: "quick-nobody" }, RR.T("Nobody went out: nobody scores this hand.")));
      body.append(el("div", { class: "send-row" }, el("button", { type: "button", class: "btn primary big", id: "send-btn", onclick: sendQuick }, RR.T("Score the hand"))));
      return;
    }
    const grid = el("div", { class: "quick-grid" });
    for (const p of S.players) {
      const out = p === q.winner;
      const row = el("div", { class: "quick-row" + (q.active === p ? " on" : ""), "data-player": p }, el("div", { class: "qname" }, p));
      if (q.mode === "points") {
        row.append(el("input", { type: "number", inputmode: "numeric", min: 0, class: "big-input", "aria-label": RR.T("Points left in {player}'s hand", { player: p }), name: `left-${p}`, value: out ? 0 : (q.points[p] ?? ""), disabled: out ? true : null,
          oninput: (e) => { q.points[p] = e.target.value; } }));
      } else {
        row.append(el("div", { class: "qcards" }, out ? el("span", { class: "muted" }, RR.T("went out")) : ((q.hands[p] || []).length ? Cards.row(q.hands[p], "small") : el("span", { class: "muted" }, RR.T("no cards")))));
        if (!out) row.append(el("button", { type: "button", class: "btn" + (q.active === p ? " primary" : ""), onclick: () => { q.active = p; renderEntry(); } }, q.active === p ? RR.T("Picking…") : RR.T("Pick cards")));
      }
      if (r500) {
        row.append(el("label", { class: "small" }, RR.T("melded") + " ", el("input", { type: "number", class: "mid-input", name: `melded-${p}`, "aria-label": RR.T("Points {player} melded", { player: p }), value: q.melded[p] ?? "", oninput: (e) => { q.melded[p] = e.target.value; } })));
      }
      grid.append(row);
    }
    body.append(grid);
    if (q.mode === "cards" && q.active && q.active !== q.winner) {
      picker = new Cards.Picker({ onChange: (cs) => { q.hands[q.active] = cs; const r = document.querySelector(`.quick-row[data-player="${CSS.escape(q.active)}"] .qcards`); if (r) { clear(r); r.append(cs.length ? Cards.row(cs, "small") : el("span", { class: "muted" }, RR.T("no cards"))); } } });
      picker.set(q.hands[q.active] || []);
      body.append(el("div", { class: "field" }, el("label", {}, RR.T("Cards left in {player}'s hand", { player: q.active })), picker.node));
    }
    if (!r500 && S.options.going_rummy !== "none") body.append(el("div", { class: "field" }, el("label", { class: "check" }, el("input", { type: "checkbox", checked: q.rummy ? true : null, onchange: (e) => { q.rummy = e.target.checked; } }), " " + RR.T("Went out in one go (going rummy)"))));
    body.append(el("div", { class: "send-row" }, el("button", { type: "button", class: "btn primary big", id: "send-btn", onclick: sendQuick }, RR.T("Score the hand"))));
  }

  async function sendQuick() {
    const q = form.extra;
    if (q.winner === undefined) { showAlert(RR.T("Choose who went out (or “Nobody”)."), "bad"); return; }
    const ev = { type: "hand_result", dealer: q.dealer, winner: q.winner };
    if (q.winner === null && !scoresMelds()) {
      if (await postEvent(ev)) setAction("hand_result");
      return;
    }
    if (q.mode === "points") {
      ev.points = {};
      for (const p of S.players) {
        if (p === q.winner) { ev.points[p] = 0; continue; }
        const v = String(q.points[p] ?? "").trim();
        if (v === "" || !/^-?\d+$/.test(v)) { showAlert(RR.T("Enter the points left in {player}'s hand (a whole number).", { player: p }), "bad"); return; }
        ev.points[p] = Number(v);
      }
    } else {
      ev.hands = {};
      for (const p of S.players) ev.hands[p] = p === q.winner ? [] : (q.hands[p] || []);
    }
    if (scoresMelds()) {
      ev.melded = {};
      for (const p of S.players) ev.melded[p] = Number(String(q.melded[p] ?? "0").trim() || 0);
    } else if (q.rummy) ev.going_rummy = true;
    if (await postEvent(ev)) setAction("hand_result");
  }


  // a new phase of the hand: the suggested move's form, empty
  function reset() {
    const sug = suggested();
    if (!action || !sug.includes(action)) action = sug[0] || action || "deal";
    form = { player: null, cards: [], extra: {} };
  }
  // keep a half-entered move when another screen changes the match
  const midEntry = () => !!form && ((form.cards && form.cards.length) || (action === "hand_result" && form.extra.init));
  function update(state, phaseChanged) {
    S = state;
    if (phaseChanged || !form) reset();
    renderTabs();
    if (phaseChanged || !midEntry()) renderEntry();
  }
  return { update, setAction };
};
