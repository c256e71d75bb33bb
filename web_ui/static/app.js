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
        // "table 21 − hand (4 + 3 + 9 + 10 = 26) = −5": the hand's own sum in brackets, then the result
        const hv = d.hand_values && d.hand_values.length > 1 ? `(${sumText(d.hand_values)})` : String(d.hand_points ?? 0);
        const net = (d.table_points ?? 0) - (d.hand_points ?? 0);
        counted = `table ${d.table_points ?? 0} − hand ${hv} = ${net < 0 ? "−" + -net : net}`;
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
    box.append(el("div", { class: "scroll-x" }, tbl));
    box.append(el("p", { class: "totals-line" }, "Totals now: " + S.players.map((p) => `${p} ${S.totals[p]}`).join(" · ")));
    box.append(el("button", { type: "button", class: "btn primary big", id: "confirm-hand", onclick: () => {
      localStorage.setItem(confirmedKey(), String(n));
      box.hidden = true;
      if (!S.match_over) entry.setAction("deal");
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

  // the move-entry panel and the camera box are modules of their own (entry.js, camera.js)
  const ctx = { api, mid, showAlert: (t, k) => showAlert(t, k), playing: () => playing(), awaiting: () => awaiting() };
  const entry = RR.EntryPanel(ctx);
  const camera = RR.CameraBox(ctx);

  // ---------- render all ----------
  function render() {
    const cur = playing();
    const phaseKey = cur ? `${cur.number}:${cur.phase}:${cur.current_player}:${awaiting().join(",")}` : `between:${S.hands.length}:${S.match_over}`;
    const phaseChanged = phaseKey !== lastPhaseKey;
    if (phaseChanged) lastPhaseKey = phaseKey;
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
    es.addEventListener("proposed", () => camera.poll());
  }


  if (RR.pinLocked) $("undo-btn").hidden = true;  // changes need the PIN first: the entry panel says so
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
  if (params.get("duplicate")) showAlert("This game log was imported before: here is its match.", "ok");
  if (params.get("imported")) showAlert(`Imported ${params.get("imported")} events${Number(params.get("refused")) ? `, ${params.get("refused")} refused lines skipped` : ""}.`, "ok");
  connect();
  camera.poll();
  setInterval(camera.poll, 3000);
})();
