/* The live screen's camera box: the camera's state, its picture, and the events it is unsure of. */
"use strict";
RR.CameraBox = (ctx) => {
  const el = RR.el, clear = RR.clear;
  const $ = (id) => document.getElementById(id);
  const showAlert = ctx.showAlert;
  async function pollCamera() {
    const r = await RR.get(`/api/camera?match=${encodeURIComponent(ctx.mid)}`);
    const pill = $("camera-pill");
    const st = r.ok ? r.state : "off";
    pill.textContent = { live: RR.T("camera live"), reconnecting: RR.T("camera reconnecting…"), lost: RR.T("camera lost"), off: RR.T("no camera") }[st]
      || RR.T("camera {state}", { state: st });
    if (r.ok && r.detector === "oracle") {
      // say plainly that the demo is not read by the model
      pill.textContent += " · " + RR.T("demo answer key");
      pill.title = RR.T("The demo recording is played with its own answer key: the shipped detector model reads too few of its cards");
    }
    pill.className = "pill " + ({ live: "ok", reconnecting: "warn", lost: "bad" }[st] || "");
    const img = $("camera-img");
    if (r.ok && r.available) {
      if (img.hidden) { img.src = "/camera.mjpg"; img.hidden = false; $("camera-off").hidden = true; }
    } else if (!img.hidden) { img.hidden = true; img.removeAttribute("src"); $("camera-off").hidden = false; }
    $("camera-box").dataset.state = st;
    renderProposals(r.ok ? r.pending || [] : []);
    if (!r.ok || !r.available) {
      $("camera-off").textContent = r.elsewhere ? RR.T("The camera watches another match: this one is scored by hand") : RR.T("No camera: manual scorekeeping");
    }
  }

  // events the camera is unsure of: shown large at the top with the camera's picture of the cards, until the
  // table answers: yes (one tap), no, or its own version (the card picker, then Send)
  let heard = new Set();
  let fixing = null;  // id of the proposal being corrected (its picker stays open across polls)
  function chime() {
    try {
      if (navigator.vibrate) navigator.vibrate(150);
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) return;
      const ac = chime.ac || (chime.ac = new Ctx());
      const o = ac.createOscillator(), g = ac.createGain();
      o.frequency.value = 660;
      g.gain.setValueAtTime(0.0001, ac.currentTime);
      g.gain.exponentialRampToValueAtTime(0.15, ac.currentTime + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, ac.currentTime + 0.35);
      o.connect(g).connect(ac.destination);
      o.start();
      o.stop(ac.currentTime + 0.4);
    } catch (e) { /* the browser allows no sound before a tap: the question is on screen all the same */ }
  }
  const cardsOf = (ev) => (Array.isArray(ev.cards) ? ev.cards : [ev.card || ev.upcard].filter(Boolean));
  function corrected(ev, cards) {
    const out = Object.assign({}, ev);
    if (Array.isArray(ev.cards)) out.cards = cards;
    else if (ev.upcard !== undefined) out.upcard = cards[0];
    else out.card = cards[0];
    return out;
  }
  function renderProposals(list) {
    const box = $("proposals");
    const fresh = list.some((p) => !heard.has(p.id));
    heard = new Set(list.map((p) => p.id));
    if (fresh) chime();
    if (fixing !== null && heard.has(fixing) && box.querySelector(`.proposal[data-id="${fixing}"] .pfix`)) return;
    fixing = null;
    clear(box);
    box.hidden = !list.length;
    for (const p of list) {
      const card = el("div", { class: "proposal", "data-id": p.id });
      const img = el("img", { class: "pcrop", alt: RR.T("The camera's picture of the cards in question"), src: `/api/camera/proposals/${p.id}/crop.jpg` });
      img.addEventListener("error", () => img.remove());
      const answer = async (verb, body) => {
        const r = await RR.post(`/api/camera/proposals/${p.id}/${verb}`, body);
        if (!r.ok) showAlert(RR.T("Not allowed: {reason}", { reason: RR.refusal(r) }), "bad");
        if (r.ok || verb !== "correct") { fixing = null; pollCamera(); }
      };
      const btns = el("div", { class: "pbtns" },
        el("button", { type: "button", class: "btn primary big", "data-answer": "confirm", onclick: () => answer("confirm") }, RR.T("Yes")),
        el("button", { type: "button", class: "btn big", "data-answer": "correct", onclick: () => openFix() }, RR.T("Correct it")),
        el("button", { type: "button", class: "btn big", "data-answer": "reject", onclick: () => answer("reject") }, RR.T("No")));
      const has = cardsOf(p.event).length > 0;
      if (!has) btns.querySelector('[data-answer="correct"]').remove();  // nothing to name (the end of a hand)
      if (p.missing) btns.querySelector('[data-answer="confirm"]').remove();  // a hand shown short: name it whole
      function openFix() {
        fixing = p.id;
        const one = !Array.isArray(p.event.cards);
        let picked = cardsOf(p.event).map((c) => String(c));
        const picker = new Cards.Picker({ max: one ? 1 : 0, onChange: (cs) => { picked = cs; } });
        picker.set(picked);
        const fix = el("div", { class: "pfix" }, el("div", { class: "muted" }, RR.T("Name the cards as they are on the table:")), picker.node,
          el("div", { class: "send-row" },
            el("button", { type: "button", class: "btn primary big", "data-answer": "send-fix", onclick: () => answer("correct", corrected(p.event, picked)) }, RR.T("Send")),
            el("button", { type: "button", class: "btn big", onclick: () => { fixing = null; pollCamera(); } }, RR.T("Cancel"))));
        const old = card.querySelector(".pfix");
        if (old) old.remove();
        card.append(fix);
      }
      card.append(img,
        el("div", { class: "ptext" }, el("div", {}, RR.T("The camera asks: {what}?", { what: Words.describe(p.event) })),
          p.reason ? el("div", { class: "muted" }, p.reason) : null),
        btns);
      box.append(card);
    }
  }

  // tap the camera picture to see it large, tap again to put it back
  $("camera-img").addEventListener("click", () => $("camera-box").classList.toggle("zoomed"));
  return { poll: pollCamera };
};
