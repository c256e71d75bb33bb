/* The decks screen: the taught decks, the one the camera reads with, and teaching a new one (web_ui/decks.py). */
"use strict";
(() => {
  const el = RR.el, clear = RR.clear, T = RR.T;
  const $ = (id) => document.getElementById(id);
  let S = null;
  let polling = null;
  const shown = {};  // slot -> the result of its last photo
  // the photo slots' names (the server's words are English): a heading, and inside a sentence
  const SLOT_TITLES = { C: T("Clubs"), D: T("Diamonds"), H: T("Hearts"), S: T("Spades"), JK: T("Jokers") };
  const SLOT_WORDS = { C: T("clubs"), D: T("diamonds"), H: T("hearts"), S: T("spades"), JK: T("jokers") };

  function message(text, kind) {
    const m = $("teach-msg");
    m.textContent = text || "";
    m.className = "alert " + (kind || "");
    m.hidden = !text;
  }

  function renderDecks() {
    $("using").textContent = S.using ? (S.decks.find((d) => d.path === S.using) || { name: S.using }).name : T("the general model");
    const box = clear($("deck-list"));
    if (!S.decks.length) { box.append(el("p", { class: "muted" }, T("No deck taught yet."))); return; }
    const tbl = el("table", { class: "history" }, el("thead", {}, el("tr", {}, el("th", {}, T("Deck")), el("th", {}, T("Taught")), el("th", { class: "num" }, T("Cards")), el("th", {}, T("Checked")), el("th", {}))));
    const body = el("tbody");
    for (const d of S.decks) {
      const check = (d.learning && d.learning.check) || {};
      const inUse = d.path === S.using;
      body.append(el("tr", { "data-deck": d.folder },
        el("td", {}, el("strong", {}, d.name)),
        el("td", { class: "when" }, (d.created || "").replace("T", " ").slice(0, 16)),
        el("td", { class: "num" }, d.jokers ? T("{cards} + {jokers} jokers", { cards: d.cards, jokers: d.jokers }) : String(d.cards)),
        el("td", { class: "muted" }, check.precision !== undefined ? T("precision {precision}, recall {recall} on practice tables", { precision: check.precision.toFixed(2), recall: check.recall.toFixed(2) }) : "—"),
        el("td", { class: "right" }, inUse ? el("span", { class: "pill ok" }, T("in use"))
          : el("button", { type: "button", class: "btn", onclick: () => use(d.folder) }, T("Use this deck")))));
    }
    if (S.using) body.append(el("tr", {}, el("td", { colspan: 4, class: "muted" }, T("Or read with the model that knows many decks a little")), el("td", { class: "right" }, el("button", { type: "button", class: "btn ghost", onclick: () => use(null) }, T("Use the general model")))));
    tbl.append(body);
    box.append(tbl);
  }

  function renderSlots() {
    const box = clear($("slots"));
    for (const { slot, words } of S.slots) {
      const n = S.photos[slot];
      const r = shown[slot];
      const card = el("div", { class: "deck-slot" + (n ? " done" : ""), "data-slot": slot },
        el("h3", {}, slot === "JK" ? T("{suit} (optional)", { suit: SLOT_TITLES[slot] || words }) : (SLOT_TITLES[slot] || words)),
        n ? el("img", { src: `/api/decks/photos/${slot}.jpg?t=${Date.now()}`, alt: T("What was found on the {suit} photo", { suit: SLOT_WORDS[slot] || words }), class: "deck-photo" }) : el("p", { class: "muted" }, T("No photo yet.")),
        n ? el("p", { class: "ok-text" }, n > 1 ? T("{n} cards found", { n }) : T("1 card found")) : null,
        r && !r.ok ? el("p", { class: "alert bad" }, RR.refusal(r)) : null,
        el("div", { class: "row" },
          S.camera ? el("button", { type: "button", class: "btn primary", onclick: () => fromCamera(slot) }, n ? T("Take again") : T("Take with the camera")) : null,
          el("label", { class: "btn" }, n ? T("Upload another") : T("Upload a photo"),
            el("input", { type: "file", accept: "image/*", capture: "environment", hidden: true, onchange: (e) => upload(slot, e.target.files[0]) }))));
      box.append(card);
    }
    const ready = ["C", "D", "H", "S"].every((s) => S.photos[s]);
    $("teach-btn").disabled = !ready || (S.job && S.job.state === "running");
  }

  function renderJob() {
    const j = S.job || {};
    $("job").hidden = !j.state || j.state === "idle";
    $("job-bar").value = j.progress || 0;
    $("job-text").textContent = j.state === "failed" ? T("Learning failed: {error}", { error: j.error }) : j.state === "done" ? T("Learnt: {deck}. The camera now reads with it.", { deck: j.deck }) : `${Math.round(100 * (j.progress || 0))} % · ${j.text || ""}`;
    if (j.state === "running" && !polling) polling = setInterval(refresh, 1000);
    if (j.state !== "running" && polling) { clearInterval(polling); polling = null; }
  }

  async function refresh() {
    const r = await RR.get("/api/decks");
    if (!r.ok) { message(r.message || r.code ? RR.refusal(r) : T("The server cannot be reached."), "bad"); return; }
    S = r;
    renderDecks();
    renderSlots();
    renderJob();
  }

  // photos are sent downscaled (longest side 1600 px, JPEG): enough for the cards, small to send
  function shrink(file) {
    return new Promise((resolve, reject) => {
      const img = new Image();
      img.onload = () => {
        const k = Math.min(1, 1600 / Math.max(img.width, img.height));
        const c = document.createElement("canvas");
        c.width = Math.round(img.width * k); c.height = Math.round(img.height * k);
        c.getContext("2d").drawImage(img, 0, 0, c.width, c.height);
        URL.revokeObjectURL(img.src);
        c.toBlob((b) => (b ? resolve(b) : reject(new Error(T("The browser cannot read the photo.")))), "image/jpeg", 0.9);
      };
      img.onerror = () => reject(new Error(T("That file is not a photo the browser can read.")));
      img.src = URL.createObjectURL(file);
    });
  }

  async function send(slot, body, type) {
    message(T("Looking for the cards…"), "");
    const r = await RR.send("POST", `/api/decks/photos/${slot}`, body, type);
    shown[slot] = r;
    message(r.ok ? "" : RR.refusal(r), r.ok ? "" : "bad");
    await refresh();
  }
  async function upload(slot, file) {
    if (!file) return;
    try { await send(slot, await shrink(file), "image/jpeg"); } catch (e) { message(e.message, "bad"); }
  }
  function fromCamera(slot) { return send(slot, JSON.stringify({ from: "camera" }), "application/json"); }

  async function use(name) {
    const r = await RR.post("/api/decks/use", { name });
    message(r.ok ? "" : RR.refusal(r), r.ok ? "" : "bad");
    refresh();
  }

  $("teach-btn").addEventListener("click", async () => {
    const name = $("deck-name").value.trim();
    if (!name) { message(T("Give the deck a name first."), "bad"); $("deck-name").focus(); return; }
    const r = await RR.post("/api/decks/teach", { name });
    message(r.ok ? "" : RR.refusal(r), r.ok ? "" : "bad");
    refresh();
  });
  refresh();
})();
