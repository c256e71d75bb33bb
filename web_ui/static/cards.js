/* Cards: drawing them, and the picker (rank, then suit; big touch targets). */
"use strict";
const Cards = (() => {
  const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const T = RR.T;
  const SUIT_NAMES = { S: T("spades"), H: T("hearts"), D: T("diamonds"), C: T("clubs") };
  // "Q of spades": one sentence a suit, so each language puts the rank where it goes
  const rankOf = (rank, suit) => ({ S: T("{rank} of spades", { rank }), H: T("{rank} of hearts", { rank }),
    D: T("{rank} of diamonds", { rank }), C: T("{rank} of clubs", { rank }) }[suit] || `${rank} ${suit}`);
  const el = RR.el;

  function split(card) {
    card = String(card);
    if (card.startsWith("JK")) return { joker: true, stands: card.includes("=") ? card.split("=")[1] : null };
    return { rank: card.slice(0, -1), suit: card.slice(-1) };
  }

  function label(card) {
    const c = split(card);
    if (c.joker) return c.stands ? T("Joker as {card}", { card: label(c.stands) }) : T("Joker");
    return `${c.rank}${SUITS[c.suit] || c.suit}`;
  }

  function face(card, size) {
    const c = split(card);
    const cls = ["card", size || ""];
    if (c.joker) {
      cls.push("joker");
      const s = c.stands ? split(c.stands) : null;
      return el("span", { class: cls.join(" "), title: label(card), "data-card": card },
        el("span", { class: "rank" }, "★"),
        s ? el("span", { class: "stands " + (s.suit === "H" || s.suit === "D" ? "red" : "black") }, s.rank + SUITS[s.suit]) : el("span", { class: "suit" }, "JK"));
    }
    if (c.suit === "H" || c.suit === "D") cls.push("red"); else cls.push("black");
    return el("span", { class: cls.join(" "), title: rankOf(c.rank, c.suit), "data-card": card },
      el("span", { class: "rank" }, c.rank), el("span", { class: "suit" }, SUITS[c.suit] || c.suit));
  }

  function row(cards, size) { return el("span", { class: "card-row" }, (cards || []).map((c) => face(c, size))); }

  /* A picker: onChange(list) after each change; opts.max = 1 makes a single-card picker. */
  class Picker {
    constructor(opts) {
      this.max = opts.max || 0;
      this.onChange = opts.onChange || (() => {});
      this.cards = [];
      this.rank = null;
      this.jokerFor = false;
      this.node = el("div", { class: "picker" });
      this.sel = el("div", { class: "picked", "aria-live": "polite" });
      this.rankRow = el("div", { class: "pick-row ranks" });
      this.suitRow = el("div", { class: "pick-row suits" });
      for (const r of RANKS) {
        this.rankRow.append(el("button", { type: "button", class: "pick rank-btn", "data-rank": r, onclick: () => this.pickRank(r) }, r));
      }
      this.rankRow.append(el("button", { type: "button", class: "pick rank-btn joker-btn", "data-rank": "JK", title: T("Joker"), onclick: () => this.pickJoker() }, "★"));
      for (const [s, sym] of Object.entries(SUITS)) {
        this.suitRow.append(el("button", { type: "button", class: `pick suit-btn ${s === "H" || s === "D" ? "red" : "black"}`, "data-suit": s, "aria-label": SUIT_NAMES[s], onclick: () => this.pickSuit(s) }, sym));
      }
      this.hint = el("div", { class: "pick-hint muted" });
      this.node.append(this.sel, this.rankRow, this.suitRow, this.hint);
      this.render();
    }
    pickRank(r) { this.rank = r; this.render(); }
    pickJoker() {
      if (this.jokerFor) { this.add("JK"); this.jokerFor = false; this.render(); return; }
      this.jokerFor = true; this.rank = null; this.render();
    }
    pickSuit(s) {
      if (!this.rank) { this.hint.textContent = T("Pick the rank first, then the suit."); return; }
      const card = this.rank + s;
      this.add(this.jokerFor ? `JK=${card}` : card);
      this.rank = null; this.jokerFor = false; this.render();
    }
    add(card) {
      if (this.max === 1) this.cards = [card];
      else if (!this.max || this.cards.length < this.max) this.cards.push(card);
      this.onChange(this.cards.slice());
    }
    remove(i) { this.cards.splice(i, 1); this.render(); this.onChange(this.cards.slice()); }
    set(cards) { this.cards = (cards || []).slice(); this.rank = null; this.jokerFor = false; this.render(); }
    clear() { this.set([]); this.onChange([]); }
    render() {
      RR.clear(this.sel);
      if (!this.cards.length) this.sel.append(el("span", { class: "muted" }, this.max === 1 ? T("No card chosen") : T("No cards chosen")));
      this.cards.forEach((c, i) => this.sel.append(
        el("button", { type: "button", class: "picked-card", title: T("Remove {card}", { card: label(c) }), onclick: () => this.remove(i) }, face(c, "small"), el("span", { class: "x" }, "×"))));
      if (this.cards.length > 1) this.sel.append(el("button", { type: "button", class: "btn ghost small", onclick: () => this.clear() }, T("Clear")));
      for (const b of this.rankRow.children) b.classList.toggle("on", b.dataset.rank === this.rank || (b.dataset.rank === "JK" && this.jokerFor));
      this.suitRow.classList.toggle("ready", !!this.rank);
      this.hint.textContent = this.jokerFor
        ? (this.rank ? T("Joker: now the suit of the card it stands for") : T("Joker: pick the card it stands for (rank, then suit), or ★ again for a plain joker"))
        : (this.rank ? T("{rank}: now the suit", { rank: this.rank }) : T("Tap the rank, then the suit"));
    }
  }

  return { face, row, label, Picker, RANKS, SUITS };
})();
