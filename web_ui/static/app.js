/* The live screen: drawn from the match state that the event stream sends on every change. */
"use strict";
(() => {
  const el = RR.el, clear = RR.clear, T = RR.T;
  const $ = (id) => document.getElementById(id);
  const app = $("app");
  // words of the state (the engine's values) in the players' language; an unknown value is shown as it is
  const KINDS = { set: T("set"), run: T("run") };
  const RESULTS = { stalemate: T("stalemate"), stock_empty: T("stock empty"), out: T("out") };
  const SOURCES = { camera: T("camera"), import: T("import"), api: T("api") };
  const word = (table, v) => table[v] || String(v || "").replace(/_/g, " ");
  const mid = app.dataset.mid;
  const api = `/api/matches/${mid}`;
  // each player's colour: the one chosen on the new-match form (extra.colors), else the palette's (common.js)
  const colorOf = () => RR.playerColors(S.players, (S.extra || {}).colors);
  let S = null;            // latest state
  let lastVersion = -1;
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
      el("button", { type: "button", class: "btn ghost", onclick: () => { a.hidden = true; } }, T("OK")));
    a.hidden = false;
    clearTimeout(alertTimer);
    // it goes by itself (a refusal stays longer, and is in the feed for good)
    alertTimer = setTimeout(() => { a.hidden = true; }, kind === "ok" ? 2500 : 8000);
  }

  // ---------- scoreboard ----------
  function renderScoreboard() {
    const sb = $("scoreboard");
    clear(sb);
    const cur = playing();
    const target = S.target;
    const lastHand = S.hands.length ? S.hands[S.hands.length - 1] : null;
    const colors = colorOf();
    S.players.forEach((p) => {
      const total = S.totals[p] || 0;
      const pct = target ? Math.max(0, Math.min(100, (100 * total) / target)) : 0;
      const badges = [];
      if (cur && cur.dealer === p) badges.push(el("span", { class: "badge dealer" }, T("Dealer")));
      if (!cur && S.next_dealer === p && !S.match_over) badges.push(el("span", { class: "badge dealer" }, T("Deals next")));
      if (cur && cur.current_player === p) badges.push(el("span", { class: "badge turn" }, cur.phase === "draw" ? T("To draw") : T("To play")));
      if (awaiting().includes(p)) badges.push(el("span", { class: "badge reveal" }, T("Show hand")));
      if (S.match_winner === p) badges.push(el("span", { class: "badge win" }, T("Winner")));
      const held = cur && cur.hand_counts && cur.hand_counts[p] !== undefined ? cur.hand_counts[p] : null;
      const last = lastHand && lastHand.points ? lastHand.points[p] : null;
      sb.append(el("div", { class: "player" + (cur && cur.current_player === p ? " active" : "") + (S.match_winner === p ? " champion" : ""), "data-player": p },
        el("div", { class: "player-head" }, el("span", { class: "swatch", style: { background: colors[p] } }), el("span", { class: "pname" }, p)),
        el("div", { class: "badges" }, badges),
        el("div", { class: "total", "data-total": total }, String(total)),
        el("div", { class: "progress", title: target ? T("{total} of {target}", { total, target }) : "" }, el("div", { class: "bar", style: { width: `${pct}%` } })),
        el("div", { class: "pmeta" },
          target ? el("span", {}, T("{n} to go", { n: Math.max(0, target - total) })) : el("span", {}, ""),
          held !== null ? el("span", { class: "held" }, held === 1 ? T("1 card held") : T("{n} cards held", { n: held })) : null,
          last !== null && last !== undefined && !cur ? el("span", { class: "last" }, T("last hand {points}", { points: `${last >= 0 ? "+" : ""}${last}` })) : null)));
    });
    $("hand-label").textContent = S.current && !(S.current.phase === "over" && !awaiting().length) ? T("Hand {n}", { n: S.current.number }) : (S.hands.length ? (S.hands.length === 1 ? T("1 hand played") : T("{n} hands played", { n: S.hands.length })) : T("No hand yet"));
    $("target-label").textContent = S.target ? T("to {target}", { target: S.target }) : (S.options && S.options.match_hands ? T("{n} hands", { n: S.options.match_hands }) : "");
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
      dd.textContent = cur.discard.length > 1 ? T("{n} cards in the pile", { n: cur.discard.length }) : T("1 card in the pile");
    } else {
      dt.append(el("div", { class: "card empty big" }, "—"));
      dd.textContent = "";
    }
    const tb = clear($("turn-box"));
    if (S.match_over) tb.append(el("div", { class: "turn-big" }, T("Match over")));
    else if (!live) tb.append(el("div", { class: "turn-small" }, cur ? T("Hand {n} is over", { n: cur.number }) : T("Between hands")), el("div", { class: "turn-big" }, T("{player} deals next", { player: S.next_dealer || "?" })));
    else if (awaiting().length) tb.append(el("div", { class: "turn-small" }, cur.winner ? T("{player} went out: show your cards", { player: cur.winner }) : T("show your cards")), el("div", { class: "turn-big" }, awaiting().join(", ")));
    else if (cur.current_player) tb.append(el("div", { class: "turn-small" }, cur.phase === "draw" ? T("To draw") : T("Playing")), el("div", { class: "turn-big" }, cur.current_player));
    const notes = cur && cur.notes ? cur.notes.slice() : [];
    const L = S.legal || {};
    const mine = [];  // the dashboard's own notes (already in the players' language)
    if (live && L.must_use) mine.push(T("{player} must use {card} this turn", { player: L.player, card: Cards.label(L.must_use) }));
    if (live && L.cannot_discard) mine.push(T("{player} may not discard {card} this turn", { player: L.player, card: Cards.label(L.cannot_discard) }));
    const said = notes.map((n) => (typeof n === "string" ? Words.note(n) : (n.message ? Words.note(n.message) : JSON.stringify(n)))).concat(mine);
    if (said.length) tb.append(el("ul", { class: "notes" }, said.slice(-3).map((n) => el("li", {}, n))));
    const melds = clear($("melds"));
    if (!cur || !cur.melds || !cur.melds.length) {
      melds.append(el("p", { class: "muted" }, cur ? T("No melds yet this hand.") : T("No hand in progress.")));
    } else {
      for (const m of cur.melds) {
        melds.append(el("div", { class: "meld", "data-meld": m.id },
          el("div", { class: "meld-head" }, el("span", { class: "meld-no" }, `#${m.id}`), m.kind ? ` ${word(KINDS, m.kind)}` : " ", m.owner ? el("span", { class: "muted" }, ` · ${m.owner}`) : null),
          Cards.row(m.cards, "med")));
      }
    }
  }

  // ---------- feed ----------
  function renderFeed() {
    const f = clear($("feed"));
    const acts = (S.activity || []).slice(-8).reverse();
    if (!acts.length) f.append(el("li", { class: "muted" }, T("Nothing yet.")));
    for (const a of acts) {
      const cls = a.status === "accepted" ? "ok" : a.status === "refused" ? "bad" : "undo";
      const icon = a.status === "accepted" ? "✓" : a.status === "refused" ? "✗" : "↶";
      f.append(el("li", { class: "feed-item " + cls },
        el("span", { class: "ficon" }, icon),
        el("div", { class: "ftext" },
          el("div", {}, a.status === "undo" ? T("Undone: {event}", { event: Words.describe(a.event) })
            : a.code === "redo" ? T("Redone: {event}", { event: Words.describe(a.event) }) : Words.describe(a.event)),
          a.status === "refused" ? el("div", { class: "reason" }, RR.refusal(a)) : null),
        a.source && a.source !== "web" ? el("span", { class: "src" }, word(SOURCES, a.source)) : null));
    }
  }

  // ---------- end of hand ----------
  function handDetail(n) { return (S.hand_details || []).find((d) => d.number === n) || null; }
  function confirmedKey() { return `rr-confirmed-${mid}`; }
  function sumText(values) { return values.length > 1 ? `${values.join(" + ")} = ${values.reduce((a, b) => a + b, 0)}` : String(values[0] ?? 0); }
  function renderHandOver() {
    const box = $("hand-over");
    const n = S.hands.length;
    let confirmed = Number(localStorage.getItem(confirmedKey()) || 0);
    if (confirmed > n) {  // hands were taken back (undo): a hand entered again is shown again
      confirmed = n;
      localStorage.setItem(confirmedKey(), String(n));
    }
    if (playing() || !n || confirmed >= n) { box.hidden = true; return; }
    const fresh = box.hidden;  // it appears now: bring it into view (the last move may be far below)
    const h = S.hands[n - 1];
    const det = handDetail(h.number) || {};
    const D = h.details || {};
    const r500 = Object.values(D).some((d) => d && d.table_points !== undefined);
    clear(box);
    box.hidden = false;
    const title = h.result === "stalemate" ? T("Hand {n}: stalemate — no points", { n: h.number })
      : h.result === "stock_empty" ? T("Hand {n}: the stock ran out", { n: h.number })
        : h.going_rummy ? T("Hand {n}: {player} went out — going rummy!", { n: h.number, player: h.winner })
          : T("Hand {n}: {player} went out", { n: h.number, player: h.winner });
    box.append(el("h2", {}, title));
    if (h.void) box.append(el("p", { class: "hand-mark-line" }, T("This hand was deleted: it counts as zero.")));
    else if (h.corrected) box.append(el("p", { class: "hand-mark-line" }, T("The points of this hand were corrected.")));
    const tbl = el("table", { class: "hand-table" });
    tbl.append(el("tr", {}, el("th", {}, T("Player")), el("th", {}, T("Cards left")), el("th", {}, T("Counted")), el("th", { class: "num" }, T("Points"))));
    for (const p of S.players) {
      const d = D[p] || {};
      const shown = d.hand || (det.hands && det.hands[p]) || null;
      let counted = "";
      if (r500) {
        // "table 21 − hand (4 + 3 + 9 + 10 = 26) = −5": the hand's own sum in brackets, then the result
        const hv = d.hand_values && d.hand_values.length > 1 ? `(${sumText(d.hand_values)})` : String(d.hand_points ?? 0);
        const net = (d.table_points ?? 0) - (d.hand_points ?? 0);
        counted = T("table {table} − hand {hand} = {net}", { table: d.table_points ?? 0, hand: hv, net: net < 0 ? "−" + -net : net });
      } else if (p === h.winner) {
        const parts = S.players.filter((q) => q !== p && D[q]).map((q) => D[q].hand_points ?? 0);
        const sum = parts.reduce((a, b) => a + b, 0);
        const pts = h.points ? h.points[p] : sum;
        counted = pts === sum ? T("wins {sum}", { sum: sumText(parts) })
          : h.going_rummy ? T("wins {sum} → {points} for going rummy", { sum: sumText(parts), points: pts })
            : T("wins {sum} → {points}", { sum: sumText(parts), points: pts });
      } else if (d.hand_values && d.hand_values.length) counted = T("{sum} in hand", { sum: sumText(d.hand_values) });
      else if (d.hand_points !== undefined && h.result === "out") counted = T("{sum} in hand", { sum: d.hand_points });
      const pts = h.points ? h.points[p] : 0;
      tbl.append(el("tr", { class: p === h.winner ? "winner-row" : "", "data-player": p },
        el("td", { class: "pcell" }, p === h.winner ? `${p} ★` : p),
        el("td", {}, shown ? (shown.length ? Cards.row(shown, "small") : (p === h.winner ? el("span", { class: "muted" }, T("went out")) : "—")) : el("span", { class: "muted" }, p === h.winner ? T("went out") : "—")),
        el("td", { class: "arith" }, counted),
        el("td", { class: "num big-num" }, `${pts > 0 ? "+" : ""}${pts}`)));
    }
    box.append(el("div", { class: "scroll-x" }, tbl));
    box.append(el("p", { class: "totals-line" }, T("Totals now: {totals}", { totals: S.players.map((p) => `${p} ${S.totals[p]}`).join(" · ") })));
    box.append(el("button", { type: "button", class: "btn primary big", id: "confirm-hand", onclick: () => {
      localStorage.setItem(confirmedKey(), String(n));
      box.hidden = true;
      if (!S.match_over) entry.setAction("deal");
    } }, S.match_over ? T("Confirm") : T("Confirm — next hand")));
    if (fresh && !S.match_over) {  // only when it would not be seen; at the match's end the winner and Rematch lead
      const top = box.getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight - 120) box.scrollIntoView({ block: "start" });
    }
  }

  // ---------- history + chart ----------
  function renderHistory() {
    const h = clear($("history"));
    if (!S.hands.length) { h.append(el("p", { class: "muted" }, T("No hand finished yet."))); }
    else {
      // the players seated now, then those who left (their hands stay: evening.js, referee/evening.py)
      const gone = S.left_players || [];
      const cols = S.players.concat(gone);
      const t = el("table", { class: "history" });
      t.append(el("thead", {}, el("tr", {}, el("th", {}, T("Hand")), el("th", {}, T("Dealer")), el("th", {}, T("Out")),
        cols.map((p) => el("th", { class: "num" + (gone.includes(p) ? " left" : "") }, p)))));
      const run = Object.fromEntries(cols.map((p) => [p, 0]));
      const body = el("tbody");
      for (const hd of S.hands) {
        for (const p of cols) run[p] += (hd.points && hd.points[p]) || 0;
        const played = (p) => hd.points && hd.points[p] !== undefined;
        // the hand's Edit / Delete sit by its number: at hand on a phone, where the table scrolls inside its box
        body.append(el("tr", { class: evening.rowClass(hd), "data-hand": hd.number }, el("td", { class: "hand-cell" }, String(hd.number), evening.mark(hd), evening.actions(hd)),
          el("td", {}, hd.dealer || ""),
          el("td", {}, hd.result === "out" ? (hd.going_rummy ? T("{player} (rummy)", { player: hd.winner || "" }) : hd.winner || "") : word(RESULTS, hd.result)),
          cols.map((p) => el("td", { class: "num" }, played(p) ? [el("span", { class: "pts" }, `${hd.points[p]}`), el("span", { class: "run" }, ` ${run[p]}`)] : el("span", { class: "muted" }, "–")))));
      }
      t.append(body);
      const totalOf = (p) => (gone.includes(p) ? (S.left_totals || {})[p] : S.totals[p]);
      t.append(el("tfoot", {}, el("tr", {}, el("th", { colspan: 3 }, T("Total")), cols.map((p) => el("th", { class: "num" }, String(totalOf(p) ?? 0))))));
      h.append(t);
    }
    const colors = colorOf();
    Chart.draw($("chart"), S, S.players.map((p) => colors[p]));
  }

  function renderWinner() {
    const w = $("winner");
    if (S.match_over) {
      const who = S.match_winner ? T("{player} wins the match!", { player: Array.isArray(S.match_winner) ? S.match_winner.join(" & ") : S.match_winner }) : T("The match is over.");
      w.textContent = `★ ${who} ★`;
      w.hidden = false;
    } else w.hidden = true;
  }

  // the move-entry panel and the camera box are modules of their own (entry.js, camera.js)
  const ctx = { api, mid, showAlert: (t, k) => showAlert(t, k), playing: () => playing(), awaiting: () => awaiting() };
  const entry = RR.EntryPanel(ctx);
  const camera = RR.CameraBox(ctx);
  // the host's changes: edit/delete a hand, redo, players & target, rematch (evening.js)
  const evening = RR.Evening(Object.assign({}, ctx, { redraw: () => { if (S) render(); } }));

  // ---------- render all ----------
  function render() {
    const cur = playing();
    const phaseKey = cur ? `${cur.number}:${cur.phase}:${cur.current_player}:${awaiting().join(",")}` : `between:${S.hands.length}:${S.match_over}`;
    const phaseChanged = phaseKey !== lastPhaseKey;
    if (phaseChanged) lastPhaseKey = phaseKey;
    evening.update(S);
    renderScoreboard();
    renderTable();
    renderFeed();
    renderHandOver();
    renderHistory();
    renderWinner();
    entry.update(S, phaseChanged);
  }

  function onState(msg) {
    if (msg.version < lastVersion) return;
    lastVersion = msg.version;
    S = msg.state;
    const ch = msg.change;
    if (ch && ch.status === "refused") showAlert(T("Not allowed: {reason} — {event}", { reason: RR.refusal(ch), event: Words.describe(ch.event) }), "bad");
    render();
    document.body.dataset.version = String(msg.version);
  }

  // ---------- connections ----------
  function connect() {
    const es = new EventSource(`${api}/stream`);
    const pill = $("conn-pill");
    es.addEventListener("open", () => { pill.textContent = T("live"); pill.className = "pill ok"; });
    es.addEventListener("error", () => { pill.textContent = T("reconnecting…"); pill.className = "pill warn"; });
    es.addEventListener("state", (e) => onState(JSON.parse(e.data)));
    es.addEventListener("proposed", () => camera.poll());
  }


  if (RR.pinLocked) $("undo-btn").hidden = true;  // changes need the PIN first: the entry panel says so
  $("undo-btn").addEventListener("click", async () => {
    const r = await RR.post(`${api}/undo`);
    if (r.ok) showAlert(T("Undone: {event}", { event: Words.describe(r.undone) }), "ok");
    else showAlert(r.message || r.code ? RR.refusal(r) : T("Nothing to undo"), "bad");
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
  if (params.get("duplicate")) showAlert(T("This game log was imported before: here is its match."), "ok");
  if (params.get("imported")) {
    showAlert(Number(params.get("refused")) ? T("Imported {n} events, {refused} refused lines skipped.", { n: params.get("imported"), refused: params.get("refused") })
      : T("Imported {n} events.", { n: params.get("imported") }), "ok");
  }
  connect();
  camera.poll();
  setInterval(camera.poll, 3000);
})();
