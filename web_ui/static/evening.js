/* The host's evening on the live screen (issue 13): Edit and Delete of a finished hand in the "Hands played"
   table, Redo beside Undo, "Players & target" between hands, Rematch once the match is over. What it sends is
   the engine's events (correct_hand, set_target, seat_players: referee/evening.py) or the API's redo and
   rematch routes; the screen is then drawn again from the state the event stream sends, like any change. */
"use strict";
RR.Evening = (ctx) => {
  const el = RR.el, clear = RR.clear, T = RR.T;
  const $ = (id) => document.getElementById(id);
  const api = ctx.api, showAlert = ctx.showAlert;
  let S = null;
  let armed = null;         // the hand whose Delete was tapped once (a second tap deletes it)
  let armTimer = null;
  let counts = null;        // the player counts the rules allow (GET /api/presets), once asked
  const locked = () => !!RR.pinLocked;
  const scoresMelds = () => !!(S.options && S.options.scoring === "meld_minus_hand");
  const betweenHands = () => !!(S && !S.match_over && S.legal && S.legal.phase === "between_hands");
  const say = (r) => RR.refusal(r);

  // a dialog of our own (one at a time): title, body, a message line that never covers a control, buttons
  function dialog(id, title, body, buttons) {
    let d = $(id);
    if (d) d.remove();
    d = el("dialog", { id, class: "rr-dialog", "aria-labelledby": `${id}-title` },
      el("h2", { id: `${id}-title` }, title), body,
      el("p", { class: "dialog-msg", role: "alert", id: `${id}-msg` }),
      el("div", { class: "dialog-buttons" }, buttons));
    d.addEventListener("close", () => d.remove());
    document.body.append(d);
    d.showModal();
    return d;
  }
  const cancel = (d) => el("button", { type: "button", class: "btn ghost", onclick: () => d().close() }, T("Cancel"));
  function fail(id, r) { const m = $(`${id}-msg`); if (m) m.textContent = typeof r === "string" ? r : say(r); }

  async function send(ev) { return RR.post(`${api}/events`, ev); }

  // ---------- the history table: each hand's mark and actions ----------
  function rowClass(hd) { return hd.void ? "void" : hd.corrected ? "corrected" : ""; }
  function mark(hd) {
    if (hd.void) return el("span", { class: "hand-mark void" }, T("deleted"));
    if (hd.corrected) {
      const was = hd.original && hd.original.points ? Object.entries(hd.original.points).map(([p, v]) => `${p} ${v}`).join(", ") : "";
      return el("span", { class: "hand-mark corrected", title: T("As played: {points}", { points: was }) }, T("corrected"));
    }
    return null;
  }
  function actions(hd) {
    if (locked()) return null;
    const box = el("div", { class: "hand-actions" });
    if (hd.void) {
      box.append(el("button", { type: "button", class: "btn small", "data-restore": hd.number, onclick: () => restore(hd) }, T("Restore")));
      return box;
    }
    box.append(el("button", { type: "button", class: "btn small", "data-edit": hd.number, onclick: () => editHand(hd) }, T("Edit")));
    const on = armed === hd.number;
    box.append(el("button", { type: "button", class: "btn small" + (on ? " warn" : ""), "data-delete": hd.number,
      "aria-label": on ? T("Tap again to delete hand {n}", { n: hd.number }) : T("Delete hand {n}", { n: hd.number }), onclick: () => deleteHand(hd) }, on ? T("Tap again to delete") : T("Delete")));
    return box;
  }

  async function deleteHand(hd) {
    if (armed !== hd.number) {  // the first tap asks: a second tap within a few seconds deletes
      armed = hd.number;
      clearTimeout(armTimer);
      armTimer = setTimeout(() => { armed = null; ctx.redraw(); }, 5000);
      ctx.redraw();
      return;
    }
    armed = null;
    clearTimeout(armTimer);
    const r = await send({ type: "correct_hand", hand: hd.number, void: true });
    if (r.ok) showAlert(T("Hand {n} deleted: it counts as zero. Undo brings it back.", { n: hd.number }), "ok");
    else { showAlert(say(r), "bad"); ctx.redraw(); }
  }

  async function restore(hd) {
    const r = await send({ type: "correct_hand", hand: hd.number, restore: true });
    showAlert(r.ok ? T("Hand {n} is back as played.", { n: hd.number }) : say(r), r.ok ? "ok" : "bad");
  }

  function editHand(hd) {
    const who = Object.keys(hd.points || {});
    const neg = scoresMelds();  // Rummy 500 hands may score below zero
    let winner = hd.winner || null;
    const inputs = {};
    const rows = who.map((p, i) => {
      inputs[p] = el("input", { type: "number", step: "1", min: neg ? null : "0", inputmode: neg ? null : "numeric",
        class: "mid-input", id: `edit-pts-${i}`, "data-player": p, value: String(hd.points[p] ?? 0),
        "aria-label": T("Points of {player}", { player: p }) });
      return el("label", { class: "edit-row" }, el("span", { class: "edit-name" }, p), inputs[p]);
    });
    const body = el("div", { class: "edit-body" },
      el("p", { class: "muted" }, neg ? T("Each player's points for this hand (below zero when the hand cost more than the table).")
        : T("The points of the player who went out (the others score nothing in these rules).")),
      rows);
    if (neg) {  // who went out: only Rummy 500 asks (elsewhere the one player who scores went out)
      const chipsBox = el("div", { class: "chips", role: "group", id: "edit-winner" });
      const drawChips = () => {
        clear(chipsBox);
        for (const [v, text] of [[null, T("Nobody")]].concat(who.map((p) => [p, p]))) {
          chipsBox.append(el("button", { type: "button", class: "chip" + (v === winner ? " on" : ""), "aria-pressed": v === winner ? "true" : "false",
            onclick: () => { winner = v; drawChips(); } }, text));
        }
      };
      drawChips();
      body.append(el("div", { class: "field" }, el("label", {}, T("Went out")), chipsBox));
    }
    const d = dialog("edit-hand", T("Correct hand {n}", { n: hd.number }), body, [
      el("button", { type: "button", class: "btn primary", id: "edit-save", onclick: save }, T("Save")), cancel(() => d)]);
    async function save() {
      const points = {};
      let changed = false;
      for (const p of who) {
        const text = String(inputs[p].value).trim();
        const v = text === "" ? 0 : Number(text);
        if (!Number.isInteger(v) || (!neg && v < 0)) { fail("edit-hand", neg ? T("Points are whole numbers.") : T("Points are whole numbers, 0 or more.")); return; }
        points[p] = v;
        if (v !== (hd.points[p] ?? 0)) changed = true;
      }
      if (!changed && winner === (hd.winner || null)) { d.close(); return; }
      const ev = { type: "correct_hand", hand: hd.number, points };
      if (neg) ev.winner = winner;
      const r = await send(ev);
      if (!r.ok) { fail("edit-hand", r); return; }
      d.close();
      showAlert(T("Hand {n} corrected.", { n: hd.number }), "ok");
    }
    const first = inputs[hd.winner] || inputs[who[0]];
    if (first) { first.focus(); first.select(); }
  }

  // ---------- players & target ----------
  async function allowedCounts() {
    if (counts) return counts;
    const r = await RR.get("/api/presets");
    const p = r.ok && r.presets && r.presets[S.rules];
    counts = p && Array.isArray(p.players) ? p.players : [];
    return counts;
  }

  async function seating() {
    const allowed = await allowedCounts();
    const overNow = !!S.match_over;
    const seats = S.players.slice();
    const body = el("div", { class: "seating-body" });
    // the target (also once the match is over: a higher one plays on)
    if (S.target) {
      const best = Math.max(...S.players.map((p) => S.totals[p] || 0));
      const t = el("input", { type: "number", step: "1", min: String(best + 1), inputmode: "numeric", class: "mid-input", id: "target-input",
        value: String(S.target), "aria-label": T("Target") });
      body.append(el("h3", {}, T("Target")),
        el("div", { class: "row seat-line" }, t,
          el("button", { type: "button", class: "btn", id: "target-save", onclick: async () => {
            const v = Number(String(t.value).trim());
            if (!Number.isInteger(v) || v < 1) { fail("seating", T("The target is a whole number.")); return; }
            const r = await send({ type: "set_target", target: v });
            if (!r.ok) { fail("seating", r); return; }
            d.close();
            showAlert(T("The target is now {target}.", { target: v }), "ok");
          } }, T("Set the target"))),
        el("p", { class: "muted small" }, T("Above the highest total now ({best}).", { best })));
    }
    if (!overNow) {
      const list = el("ol", { class: "seat-list", id: "seat-list" });
      const name = el("input", { type: "text", maxlength: "40", class: "seat-name", id: "seat-new", placeholder: T("New player's name"), "aria-label": T("New player's name") });
      const note = el("p", { class: "muted small" }, allowed.length ? T("These rules are played by {counts} players. A new player starts at 0; a player who leaves keeps their hands in the history.", { counts: allowed.join(", ") })
        : T("A new player starts at 0; a player who leaves keeps their hands in the history."));
      const draw = () => {
        clear(list);
        seats.forEach((p, i) => list.append(el("li", { class: "seat", "data-seat": p },
          el("span", { class: "seat-who" }, p, S.players.includes(p) ? null : el("span", { class: "hand-mark corrected" }, T("new"))),
          el("button", { type: "button", class: "btn small", disabled: i === 0 ? true : null, "aria-label": T("Move {player} up", { player: p }),
            onclick: () => { [seats[i - 1], seats[i]] = [seats[i], seats[i - 1]]; draw(); } }, "↑"),
          el("button", { type: "button", class: "btn small", "data-remove": p, disabled: allowed.length && seats.length <= Math.min(...allowed) ? true : null,
            "aria-label": T("{player} leaves", { player: p }), onclick: () => { seats.splice(i, 1); draw(); } }, "✕"))));
      };
      const add = () => {
        const n = String(name.value).trim();
        if (!n) return;
        if (seats.includes(n)) { fail("seating", T("{player} is already at the table.", { player: n })); return; }
        if (allowed.length && seats.length >= Math.max(...allowed)) { fail("seating", T("These rules are played by {counts} players.", { counts: allowed.join(", ") })); return; }
        seats.push(n);
        name.value = "";
        fail("seating", "");
        draw();
      };
      name.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); add(); } });
      draw();
      body.append(el("h3", {}, T("Players, clockwise")), list,
        el("div", { class: "row seat-line" }, name, el("button", { type: "button", class: "btn", id: "seat-add", onclick: add }, T("Add"))),
        note,
        el("button", { type: "button", class: "btn primary", id: "seat-save", onclick: async () => {
          if (seats.join("\n") === S.players.join("\n")) { d.close(); return; }
          const r = await send({ type: "seat_players", players: seats });
          if (!r.ok) { fail("seating", r); return; }
          d.close();
          showAlert(T("Players now: {players}", { players: seats.join(", ") }), "ok");
        } }, T("Save the seating")));
    }
    const d = dialog("seating", overNow ? T("Target") : T("Players & target"), body, [cancel(() => d)]);
  }

  // ---------- redo, rematch ----------
  async function redo() {
    const r = await RR.post(`${api}/redo`);
    if (r.ok) showAlert(T("Redone: {event}", { event: Words.describe(r.redone) }), "ok");
    else showAlert(say(r), "bad");
  }
  async function rematch() {
    const b = $("rematch-btn");
    b.disabled = true;
    const r = await RR.post(`${api}/rematch`);
    if (r.ok && r.id) { location.href = `/m/${encodeURIComponent(r.id)}`; return; }
    b.disabled = false;
    showAlert(say(r), "bad");
  }

  function update(state) {
    S = state;
    const rb = $("redo-btn");
    rb.hidden = locked() || !S.can_redo;
    rb.title = S.redo_next ? T("Redo: {event}", { event: Words.describe(S.redo_next) }) : "";
    const sb = $("seating-btn");
    sb.hidden = locked() || !(betweenHands() || (S.match_over && S.target));
    const over = $("match-over-actions");
    over.hidden = !S.match_over;
    $("rematch-btn").hidden = locked();
    // a dialog opened for a moment that has passed (a hand was dealt meanwhile) closes
    const open = $("seating");
    if (open && !(betweenHands() || S.match_over)) open.close();
  }

  $("redo-btn").addEventListener("click", redo);
  $("seating-btn").addEventListener("click", seating);
  $("rematch-btn").addEventListener("click", rematch);
  return { update, actions, mark, rowClass };
};
