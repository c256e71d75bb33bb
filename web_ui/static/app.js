/* The live screen: drawn from the match state that the event stream sends on every change. */
"use strict";
(() => {
  const el = RR.el, clear = RR.clear;
  const $ = (id) => document.getElementById(id);
  const app = $("app");
  const mid = app.dataset.mid;
  const api = `/api/matches/${mid}`;
  const COLORS = ["#ffd166", "#4cc9f0", "#f72585", "#90e0a0", "#ff8c42", "#b39cff", "#f1f1f1", "#2ec4b6"];
  let S = null;            // latest state
  let lastVersion = -1;
  let action = null;       // current entry tab
  let lastPhaseKey = null;
  let alertTimer = null;

  // the hand being played, or null between hands (the engine keeps a finished hand as phase "over")
  function playing() {
    const c = S.current;
    if (!c) return null;
    if (c.phase === "over" && !(c.awaiting_reveal || []).length) return null;
    return c;
  }
  const awaiting = () => (S.current && S.current.awaiting_reveal) || [];

  // ---------- alert ----------
  function showAlert(text, kind) {
    const a = $("alert");
    clear(a);
    a.className = "alert-banner " + (kind || "bad");
    a.append(el("span", { class: "alert-icon" }, kind === "ok" ? "✓" : "⚠"), el("span", { class: "alert-text" }, text),
      el("button", { type: "button", class: "btn ghost", onclick: () => { a.hidden = true; } }, "OK"));
    a.hidden = false;
    clearTimeout(alertTimer);
    if (kind === "ok") alertTimer = setTimeout(() => { a.hidden = true; }, 2500);
  }

  // ---------- scoreboard ----------
  function renderScoreboard() {
    const sb = $("scoreboard");
    clear(sb);
    const cur = playing();
    const target = S.target;
    const lastHand = S.hands.length ? S.hands[S.hands.length - 1] : null;
    S.players.forEach((p, i) => {
      const total = S.totals[p] || 0;
      const pct = target ? Math.max(0, Math.min(100, (100 * total) / target)) : 0;
      const badges = [];
      if (cur && cur.dealer === p) badges.push(el("span", { class: "badge dealer" }, "Dealer"));
      if (!cur && S.next_dealer === p && !S.match_over) badges.push(el("span", { class: "badge dealer" }, "Deals next"));
      if (cur && cur.current_player === p) badges.push(el("span", { class: "badge turn" }, cur.phase === "draw" ? "To draw" : "To play"));
      if (awaiting().includes(p)) badges.push(el("span", { class: "badge reveal" }, "Show hand"));
      if (S.match_winner === p) badges.push(el("span", { class: "badge win" }, "Winner"));
      const held = cur && cur.hand_counts && cur.hand_counts[p] !== undefined ? cur.hand_counts[p] : null;
      const last = lastHand && lastHand.points ? lastHand.points[p] : null;
      sb.append(el("div", { class: "player" + (cur && cur.current_player === p ? " active" : "") + (S.match_winner === p ? " champion" : ""), "data-player": p },
        el("div", { class: "player-head" }, el("span", { class: "swatch", style: { background: COLORS[i % COLORS.length] } }), el("span", { class: "pname" }, p)),
        el("div", { class: "badges" }, badges),
        el("div", { class: "total", "data-total": total }, String(total)),
        el("div", { class: "progress", title: target ? `${total} of ${target}` : "" }, el("div", { class: "bar", style: { width: `${pct}%` } })),
        el("div", { class: "pmeta" },
          target ? el("span", {}, `${Math.max(0, target - total)} to go`) : el("span", {}, ""),
          held !== null ? el("span", { class: "held" }, `${held} card${held === 1 ? "" : "s"} held`) : null,
          last !== null && last !== undefined && !cur ? el("span", { class: "last" }, `last hand ${last >= 0 ? "+" : ""}${last}`) : null)));
    });
    $("hand-label").textContent = S.current && !(S.current.phase === "over" && !awaiting().length) ? `Hand ${S.current.number}` : (S.hands.length ? `${S.hands.length} hand${S.hands.length === 1 ? "" : "s"} played` : "No hand yet");
    $("target-label").textContent = S.target ? `to ${S.target}` : (S.options && S.options.match_hands ? `${S.options.match_hands} hands` : "");
  }

  // ---------- table ----------
  function renderTable() {
    const cur = S.current;
    const live = playing();
    $("stock-count").textContent = cur && cur.stock_count !== undefined && cur.stock_count !== null ? cur.stock_count : "–";
    const dt = clear($("discard-top"));
    const dd = $("discard-depth");
    if (cur && cur.discard && cur.discard.length) {
      dt.append(Cards.face(cur.discard[cur.discard.length - 1], "big"));
      dd.textContent = cur.discard.length > 1 ? `${cur.discard.length} cards in the pile` : "1 card in the pile";
    } else {
      dt.append(el("div", { class: "card empty big" }, "—"));
      dd.textContent = "";
    }
    const tb = clear($("turn-box"));
    if (S.match_over) tb.append(el("div", { class: "turn-big" }, "Match over"));
    else if (!live) tb.append(el("div", { class: "turn-small" }, cur ? `Hand ${cur.number} is over` : "Between hands"), el("div", { class: "turn-big" }, `${S.next_dealer || "?"} deals next`));
    else if (awaiting().length) tb.append(el("div", { class: "turn-small" }, `${cur.winner ? cur.winner + " went out: " : ""}show your cards`), el("div", { class: "turn-big" }, awaiting().join(", ")));
    else if (cur.current_player) tb.append(el("div", { class: "turn-small" }, cur.phase === "draw" ? "To draw" : "Playing"), el("div", { class: "turn-big" }, cur.current_player));
    const notes = cur && cur.notes ? cur.notes.slice() : [];
    const L = S.legal || {};
    if (live && L.must_use) notes.push(`${L.player} must use ${Cards.label(L.must_use)} this turn`);
    if (live && L.cannot_discard) notes.push(`${L.player} may not discard ${Cards.label(L.cannot_discard)} this turn`);
    if (notes.length) tb.append(el("ul", { class: "notes" }, notes.slice(-3).map((n) => el("li", {}, typeof n === "string" ? n : (n.message || JSON.stringify(n))))));
    const melds = clear($("melds"));
    if (!cur || !cur.melds || !cur.melds.length) {
      melds.append(el("p", { class: "muted" }, cur ? "No melds yet this hand." : "No hand in progress."));
    } else {
      for (const m of cur.melds) {
        melds.append(el("div", { class: "meld", "data-meld": m.id },
          el("div", { class: "meld-head" }, el("span", { class: "meld-no" }, `#${m.id}`), ` ${m.kind || ""}`, m.owner ? el("span", { class: "muted" }, ` · ${m.owner}`) : null),
          Cards.row(m.cards, "med")));
      }
    }
  }

  // ---------- feed ----------
  function renderFeed() {
    const f = clear($("feed"));
    const acts = (S.activity || []).slice(-8).reverse();
    if (!acts.length) f.append(el("li", { class: "muted" }, "Nothing yet."));
    for (const a of acts) {
      const cls = a.status === "accepted" ? "ok" : a.status === "refused" ? "bad" : "undo";
      const icon = a.status === "accepted" ? "✓" : a.status === "refused" ? "✗" : "↶";
      f.append(el("li", { class: "feed-item " + cls },
        el("span", { class: "ficon" }, icon),
        el("div", { class: "ftext" },
          el("div", {}, a.status === "undo" ? `Undone: ${Words.describe(a.event)}` : Words.describe(a.event)),
          a.status === "refused" ? el("div", { class: "reason" }, a.message || a.code || "Refused") : null),
        a.source && a.source !== "web" ? el("span", { class: "src" }, a.source) : null));
    }
  }

  // ---------- end of hand ----------
  function handDetail(n) { return (S.hand_details || []).find((d) => d.number === n) || null; }
  function confirmedKey() { return `rr-confirmed-${mid}`; }
  function sumText(values) { return values.length > 1 ? `${values.join(" + ")} = ${values.reduce((a, b) => a + b, 0)}` : String(values[0] ?? 0); }
  function renderHandOver() {
    const box = $("hand-over");
    const n = S.hands.length;
    const confirmed = Number(localStorage.getItem(confirmedKey()) || 0);
    if (playing() || !n || confirmed >= n) { box.hidden = true; return; }
    const h = S.hands[n - 1];
    const det = handDetail(h.number) || {};
    const D = h.details || {};
    const r500 = Object.values(D).some((d) => d && d.table_points !== undefined);
    clear(box);
    box.hidden = false;
    const title = h.result === "stalemate" ? `Hand ${h.number}: stalemate — no points`
      : h.result === "stock_empty" ? `Hand ${h.number}: the stock ran out`
        : `Hand ${h.number}: ${h.winner} went out${h.going_rummy ? " — going rummy!" : ""}`;
    box.append(el("h2", {}, title));
    const tbl = el("table", { class: "hand-table" });
    tbl.append(el("tr", {}, el("th", {}, "Player"), el("th", {}, "Cards left"), el("th", {}, "Counted"), el("th", { class: "num" }, "Points")));
    for (const p of S.players) {
      const d = D[p] || {};
      const shown = d.hand || (det.hands && det.hands[p]) || null;
      let counted = "";
      if (r500) {
        const hv = d.hand_values && d.hand_values.length ? `${sumText(d.hand_values)}` : String(d.hand_points ?? 0);
        counted = `table ${d.table_points ?? 0} − hand ${hv}`;
      } else if (p === h.winner) {
        const parts = S.players.filter((q) => q !== p && D[q]).map((q) => D[q].hand_points ?? 0);
        const sum = parts.reduce((a, b) => a + b, 0);
        const pts = h.points ? h.points[p] : sum;
        counted = `wins ${sumText(parts)}${pts !== sum ? ` → ${pts}${h.going_rummy ? " for going rummy" : ""}` : ""}`;
      } else if (d.hand_values && d.hand_values.length) counted = `${sumText(d.hand_values)} in hand`;
      else if (d.hand_points !== undefined && h.result === "out") counted = `${d.hand_points} in hand`;
      const pts = h.points ? h.points[p] : 0;
      tbl.append(el("tr", { class: p === h.winner ? "winner-row" : "", "data-player": p },
        el("td", { class: "pcell" }, p === h.winner ? `${p} ★` : p),
        el("td", {}, shown ? (shown.length ? Cards.row(shown, "small") : (p === h.winner ? el("span", { class: "muted" }, "went out") : "—")) : el("span", { class: "muted" }, p === h.winner ? "went out" : "—")),
        el("td", { class: "arith" }, counted),
        el("td", { class: "num big-num" }, `${pts > 0 ? "+" : ""}${pts}`)));
    }
    box.append(tbl);
    box.append(el("p", { class: "totals-line" }, "Totals now: " + S.players.map((p) => `${p} ${S.totals[p]}`).join(" · ")));
    box.append(el("button", { type: "button", class: "btn primary big", id: "confirm-hand", onclick: () => {
      localStorage.setItem(confirmedKey(), String(n));
      box.hidden = true;
      if (!S.match_over) setAction("deal");
    } }, S.match_over ? "Confirm" : "Confirm — next hand"));
  }

  // ---------- history + chart ----------
  function renderHistory() {
    const h = clear($("history"));
    if (!S.hands.length) { h.append(el("p", { class: "muted" }, "No hand finished yet.")); }
    else {
      const t = el("table", { class: "history" });
      t.append(el("thead", {}, el("tr", {}, el("th", {}, "Hand"), el("th", {}, "Dealer"), el("th", {}, "Out"),
        S.players.map((p) => el("th", { class: "num" }, p)))));
      const run = Object.fromEntries(S.players.map((p) => [p, 0]));
      const body = el("tbody");
      for (const hd of S.hands) {
        for (const p of S.players) run[p] += (hd.points && hd.points[p]) || 0;
        body.append(el("tr", {}, el("td", {}, String(hd.number)), el("td", {}, hd.dealer || ""),
          el("td", {}, hd.result === "out" ? (hd.winner || "") + (hd.going_rummy ? " (rummy)" : "") : hd.result),
          S.players.map((p) => el("td", { class: "num" }, el("span", { class: "pts" }, `${(hd.points && hd.points[p]) || 0}`), el("span", { class: "run" }, ` ${run[p]}`)))));
      }
      t.append(body);
      t.append(el("tfoot", {}, el("tr", {}, el("th", { colspan: 3 }, "Total"), S.players.map((p) => el("th", { class: "num" }, String(S.totals[p]))))));
      h.append(t);
    }
    Chart.draw($("chart"), S, COLORS);
  }

  function renderWinner() {
    const w = $("winner");
    if (S.match_over) {
      const who = S.match_winner ? `${Array.isArray(S.match_winner) ? S.match_winner.join(" & ") : S.match_winner} wins the match!` : "The match is over.";
      w.textContent = `★ ${who} ★`;
      w.hidden = false;
    } else w.hidden = true;
  }

  // ---------- entry ----------
  const ACTIONS = [
    ["deal", "Deal"], ["draw_stock", "Draw stock"], ["draw_discard", "Take discard"], ["meld", "Meld"],
    ["lay_off", "Lay off"], ["discard", "Discard"], ["reveal", "Show hand"], ["call_rummy", "Call Rummy"],
    ["end_hand", "End hand"], ["hand_result", "Quick result"],
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
    if (cur.phase === "draw") return S.rules === "rummy500" ? ["draw_stock", "draw_discard", "call_rummy", "end_hand"] : ["draw_stock", "draw_discard", "end_hand"];
    if (cur.phase === "play") return S.rules === "rummy500" ? ["meld", "lay_off", "discard", "call_rummy"] : ["meld", "lay_off", "discard"];
    if (cur.phase === "reveal") return ["reveal"];
    return [];
  }
  function renderTabs() {
    const tabs = clear($("action-tabs"));
    const sug = suggested();
    for (const [key, name] of ACTIONS) {
      if (key === "call_rummy" && S && S.rules !== "rummy500") continue;
      tabs.append(el("button", { type: "button", class: "tab" + (key === action ? " on" : "") + (sug.includes(key) ? " sug" : ""), "data-action": key, onclick: () => setAction(key) }, name));
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
    return el("div", Object.assign({ class: "chips" }, attrs || {}), options.map(([v, text]) =>
      el("button", { type: "button", class: "chip" + (v === value ? " on" : ""), "data-value": v === null ? "" : v, onclick: () => onPick(v) }, text)));
  }

  function renderEntry() {
    const body = clear($("entry-body"));
    if (RR.pinLocked) {
      body.append(el("p", {}, el("a", { class: "btn warn big", href: "/unlock?next=" + encodeURIComponent(location.pathname) }, "Enter the PIN to make changes")));
      return;
    }
    if (!S) return;
    $("action-tabs").hidden = !!S.match_over;
    if (S.match_over) {
      body.append(el("p", { class: "big-text" }, "The match is over. ",
        el("a", { class: "btn primary big", href: "/new" }, "Start a new match")),
        el("p", { class: "muted" }, "A mistake? Undo (top right) takes back the last move and the match goes on."));
      return;
    }
    if (action === "hand_result") { renderQuick(body); return; }
    const needsPlayer = !["deal", "end_hand"].includes(action);
    if (needsPlayer) {
      if (!form.player) form.player = defaultPlayer();
      body.append(el("div", { class: "field" }, el("label", {}, "Player"),
        chips(S.players.map((p) => [p, p]), form.player, (v) => { form.player = v; renderEntry(); }, { id: "player-chips" })));
    }
    if (action === "deal") {
      if (!form.extra.dealer) form.extra.dealer = S.next_dealer || S.players[0];
      body.append(el("div", { class: "field" }, el("label", {}, "Dealer"),
        chips(S.players.map((p) => [p, p]), form.extra.dealer, (v) => { form.extra.dealer = v; renderEntry(); }, { id: "dealer-chips" })));
    }
    if (action === "lay_off") {
      const melds = (S.current && S.current.melds) || [];
      const fits = (S.legal && S.legal.layoff_targets) || {};
      const takes = (m) => { const t = fits[m.id] || fits[String(m.id)]; return t && t.length ? ` (takes ${Words.cl(t.slice(0, 4))}${t.length > 4 ? "…" : ""})` : ""; };
      body.append(el("div", { class: "field" }, el("label", {}, "On meld"),
        chips([[null, "The one that fits"]].concat(melds.map((m) => [m.id, `#${m.id} ${Words.cl(m.cards.slice(0, 4))}${m.cards.length > 4 ? "…" : ""}${takes(m)}`])), form.extra.meld || null, (v) => { form.extra.meld = v; renderEntry(); })));
    }
    if (action === "discard") {
      body.append(el("div", { class: "field" }, el("label", { class: "check" },
        el("input", { type: "checkbox", id: "face-down", checked: form.extra.face_down ? true : null, onchange: (e) => { form.extra.face_down = e.target.checked; } }), " Face down (last card, going out)")));
    }
    if (action === "end_hand") {
      body.append(el("div", { class: "field" }, el("label", {}, "Why"),
        chips([[null, "No reason given"], ["stalemate", "Stalemate"], ["stock_empty", "Stock is empty"]], form.extra.reason || null, (v) => { form.extra.reason = v; renderEntry(); })));
    }
    const cardSpec = {
      deal: [1, "Upcard (first card of the discard pile)"], draw_stock: [1, "Card drawn (if you know it)"],
      draw_discard: [1, "Card taken (the deepest, if several)"], meld: [0, "Cards of the new meld"], lay_off: [0, "Cards laid off"],
      discard: [1, "Card discarded"], reveal: [0, "Cards left in the hand"], call_rummy: [1, "Card called on"],
    }[action];
    if (cardSpec) {
      picker = new Cards.Picker({ max: cardSpec[0], onChange: (cs) => { form.cards = cs; updateSend(); } });
      picker.set(form.cards);
      body.append(el("div", { class: "field" }, el("label", {}, cardSpec[1]), picker.node));
    }
    body.append(el("div", { class: "send-row" },
      el("button", { type: "button", class: "btn primary big", id: "send-btn", onclick: send }, "Send"),
      el("span", { class: "preview", id: "send-preview" })));
    updateSend();
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
    showAlert(`Not allowed: ${r.message || r.code || "refused"}`, "bad");
    return false;
  }

  async function send() {
    const ev = buildEvent();
    if (!ev) return;
    if (await postEvent(ev)) {
      form.cards = [];
      if (picker) picker.set([]);
      if (action === "reveal") form.player = null;
      updateSend();
    }
  }

  // quick mode: only who went out and what was left
  function renderQuick(body) {
    const q = form.extra;
    if (!q.init) {
      Object.assign(q, { init: true, dealer: S.next_dealer || S.players[0], winner: undefined, mode: "points", points: {}, hands: {}, melded: {}, active: null, rummy: false });
    }
    body.append(el("p", { class: "muted" }, "For tables that do not track every move: after the hand, enter who went out and what was left in each hand. Scored exactly like a played hand."));
    body.append(el("div", { class: "field" }, el("label", {}, "Dealer"), chips(S.players.map((p) => [p, p]), q.dealer, (v) => { q.dealer = v; renderEntry(); }, { id: "quick-dealer" })));
    body.append(el("div", { class: "field" }, el("label", {}, "Went out"), chips(S.players.map((p) => [p, p]).concat([[null, "Nobody (stalemate)"]]), q.winner, (v) => { q.winner = v; renderEntry(); }, { id: "quick-winner" })));
    body.append(el("div", { class: "field" }, el("label", {}, "Enter"), chips([["points", "Points left"], ["cards", "Cards left"]], q.mode, (v) => { q.mode = v; renderEntry(); }, { id: "quick-mode" })));
    const r500 = S.rules === "rummy500";
    const grid = el("div", { class: "quick-grid" });
    for (const p of S.players) {
      const out = p === q.winner;
      const row = el("div", { class: "quick-row" + (q.active === p ? " on" : ""), "data-player": p }, el("div", { class: "qname" }, p));
      if (q.mode === "points") {
        row.append(el("input", { type: "number", inputmode: "numeric", min: 0, class: "big-input", "aria-label": `Points left in ${p}'s hand`, name: `left-${p}`, value: out ? 0 : (q.points[p] ?? ""), disabled: out ? true : null,
          oninput: (e) => { q.points[p] = e.target.value; } }));
      } else {
        row.append(el("div", { class: "qcards" }, out ? el("span", { class: "muted" }, "went out") : ((q.hands[p] || []).length ? Cards.row(q.hands[p], "small") : el("span", { class: "muted" }, "no cards"))));
        if (!out) row.append(el("button", { type: "button", class: "btn" + (q.active === p ? " primary" : ""), onclick: () => { q.active = p; renderEntry(); } }, q.active === p ? "Picking…" : "Pick cards"));
      }
      if (r500) {
        row.append(el("label", { class: "small" }, "melded ", el("input", { type: "number", class: "mid-input", name: `melded-${p}`, "aria-label": `Points ${p} melded`, value: q.melded[p] ?? "", oninput: (e) => { q.melded[p] = e.target.value; } })));
      }
      grid.append(row);
    }
    body.append(grid);
    if (q.mode === "cards" && q.active && q.active !== q.winner) {
      picker = new Cards.Picker({ onChange: (cs) => { q.hands[q.active] = cs; const r = document.querySelector(`.quick-row[data-player="${CSS.escape(q.active)}"] .qcards`); if (r) { clear(r); r.append(cs.length ? Cards.row(cs, "small") : el("span", { class: "muted" }, "no cards")); } } });
      picker.set(q.hands[q.active] || []);
      body.append(el("div", { class: "field" }, el("label", {}, `Cards left in ${q.active}'s hand`), picker.node));
    }
    if (!r500) body.append(el("div", { class: "field" }, el("label", { class: "check" }, el("input", { type: "checkbox", checked: q.rummy ? true : null, onchange: (e) => { q.rummy = e.target.checked; } }), " Went out in one go (going rummy)")));
    body.append(el("div", { class: "send-row" }, el("button", { type: "button", class: "btn primary big", id: "send-btn", onclick: sendQuick }, "Score the hand")));
  }

  async function sendQuick() {
    const q = form.extra;
    if (q.winner === undefined) { showAlert("Choose who went out (or “Nobody”).", "bad"); return; }
    const ev = { type: "hand_result", dealer: q.dealer, winner: q.winner };
    if (q.mode === "points") {
      ev.points = {};
      for (const p of S.players) {
        if (p === q.winner) { ev.points[p] = 0; continue; }
        const v = String(q.points[p] ?? "").trim();
        if (v === "" || !/^-?\d+$/.test(v)) { showAlert(`Enter the points left in ${p}'s hand (a whole number).`, "bad"); return; }
        ev.points[p] = Number(v);
      }
    } else {
      ev.hands = {};
      for (const p of S.players) ev.hands[p] = p === q.winner ? [] : (q.hands[p] || []);
    }
    if (S.rules === "rummy500") {
      ev.melded = {};
      for (const p of S.players) ev.melded[p] = Number(String(q.melded[p] ?? "0").trim() || 0);
    } else if (q.rummy) ev.going_rummy = true;
    if (await postEvent(ev)) setAction("hand_result");
  }

  // ---------- render all ----------
  function render() {
    const cur = playing();
    const phaseKey = cur ? `${cur.number}:${cur.phase}:${cur.current_player}:${awaiting().join(",")}` : `between:${S.hands.length}:${S.match_over}`;
    const phaseChanged = phaseKey !== lastPhaseKey;
    if (phaseChanged) {
      lastPhaseKey = phaseKey;
      const sug = suggested();
      if (!action || !sug.includes(action)) action = sug[0] || action || "deal";
      form = { player: null, cards: [], extra: {} };
    }
    if (!form) form = { player: null, cards: [], extra: {} };
    renderScoreboard();
    renderTable();
    renderFeed();
    renderHandOver();
    renderHistory();
    renderWinner();
    renderTabs();
    // keep a half-entered move when another screen changes the match
    const midEntry = (form.cards && form.cards.length) || (action === "hand_result" && form.extra.init);
    if (phaseChanged || !midEntry) renderEntry();
  }

  function onState(msg) {
    if (msg.version < lastVersion) return;
    lastVersion = msg.version;
    S = msg.state;
    const ch = msg.change;
    if (ch && ch.status === "refused") showAlert(`Not allowed: ${ch.message || ch.code} — ${Words.describe(ch.event)}`, "bad");
    render();
    document.body.dataset.version = String(msg.version);
  }

  // ---------- connections ----------
  function connect() {
    const es = new EventSource(`${api}/stream`);
    const pill = $("conn-pill");
    es.addEventListener("open", () => { pill.textContent = "live"; pill.className = "pill ok"; });
    es.addEventListener("error", () => { pill.textContent = "reconnecting…"; pill.className = "pill warn"; });
    es.addEventListener("state", (e) => onState(JSON.parse(e.data)));
    es.addEventListener("proposed", () => pollCamera());
  }

  async function pollCamera() {
    const r = await RR.get("/api/camera");
    const pill = $("camera-pill");
    const st = r.ok ? r.state : "off";
    pill.textContent = { live: "camera live", reconnecting: "camera reconnecting…", lost: "camera lost", off: "no camera" }[st] || `camera ${st}`;
    if (r.ok && r.detector === "oracle") {
      // say plainly that the demo is not read by the model
      pill.textContent += " · demo answer key";
      pill.title = "The demo recording is played with its own answer key: the shipped detector model reads too few of its cards";
    }
    pill.className = "pill " + ({ live: "ok", reconnecting: "warn", lost: "bad" }[st] || "");
    const img = $("camera-img");
    if (r.ok && r.available) {
      if (img.hidden) { img.src = "/camera.mjpg"; img.hidden = false; $("camera-off").hidden = true; }
    } else if (!img.hidden) { img.hidden = true; img.removeAttribute("src"); $("camera-off").hidden = false; }
    $("camera-box").dataset.state = st;
    renderProposals(r.ok ? r.pending || [] : []);
    if (!r.ok || !r.available) { $("camera-off").textContent = "No camera: manual scorekeeping"; }
  }

  // events the camera is unsure of: the players accept or reject them
  function renderProposals(list) {
    const box = $("proposals");
    clear(box);
    box.hidden = !list.length;
    for (const p of list) {
      box.append(el("div", { class: "proposal", "data-id": p.id },
        el("div", { class: "ptext" }, el("strong", {}, "Camera proposes: "), Words.describe(p.event),
          p.reason ? el("div", { class: "muted" }, p.reason) : null),
        el("button", { type: "button", class: "btn primary", onclick: async () => {
          const r = await RR.post(`/api/camera/proposals/${p.id}/confirm`);
          if (!r.ok) showAlert(`Not allowed: ${r.message || r.code}`, "bad");
          pollCamera();
        } }, "Accept"),
        el("button", { type: "button", class: "btn", onclick: async () => { await RR.post(`/api/camera/proposals/${p.id}/reject`); pollCamera(); } }, "Reject")));
    }
  }

  // tap the camera picture to see it large, tap again to put it back
  $("camera-img").addEventListener("click", () => $("camera-box").classList.toggle("zoomed"));

  $("undo-btn").addEventListener("click", async () => {
    const r = await RR.post(`${api}/undo`);
    if (r.ok) showAlert(`Undone: ${Words.describe(r.undone)}`, "ok");
    else showAlert(r.message || "Nothing to undo", "bad");
  });

  // a scoreboard for the whole evening: full screen, and keep the screen on where the browser allows it
  let wakeLock = null;
  async function keepAwake() {
    try { if ("wakeLock" in navigator && !wakeLock) { wakeLock = await navigator.wakeLock.request("screen"); wakeLock.addEventListener("release", () => { wakeLock = null; }); } } catch (e) { /* not offered here */ }
  }
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") keepAwake(); });
  $("fullscreen-btn").addEventListener("click", async () => {
    try {
      if (document.fullscreenElement) await document.exitFullscreen();
      else await document.documentElement.requestFullscreen();
    } catch (e) { /* not offered here */ }
    keepAwake();
  });
  keepAwake();

  const params = new URLSearchParams(location.search);
  if (params.get("imported")) showAlert(`Imported ${params.get("imported")} events${Number(params.get("refused")) ? `, ${params.get("refused")} refused lines skipped` : ""}.`, "ok");
  connect();
  pollCamera();
  setInterval(pollCamera, 3000);
})();
