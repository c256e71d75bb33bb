/* Words: a game-log event as a sentence for the players (the feed, refusals, the camera's proposals). */
"use strict";
const Words = (() => {
  const cl = (cs) => (cs || []).map(Cards.label).join(" ");
  const T = RR.T;
  // the reasons an end_hand may give (the contract's words), in the players' language
  const REASONS = { stalemate: T("stalemate"), stock_empty: T("stock empty") };
  function describe(ev) {
    if (!ev || typeof ev !== "object") return T("Something that is not an event");
    const p = ev.player || "?";
    const card = (c) => Cards.label(c || "?");
    switch (ev.type) {
      case "deal": return T("{dealer} dealt; the upcard is {card}", { dealer: ev.dealer, card: card(ev.upcard) });
      case "draw": return ev.from === "discard"
        ? (ev.card ? T("{player} took {card} from the discard pile", { player: p, card: card(ev.card) })
          : T("{player} took the top card from the discard pile", { player: p }))
        : (ev.card ? T("{player} drew from the stock ({card})", { player: p, card: card(ev.card) })
          : T("{player} drew from the stock", { player: p }));
      case "meld": return T("{player} melded {cards}", { player: p, cards: cl(ev.cards) });
      case "lay_off": return ev.meld ? T("{player} laid off {cards} on meld {meld}", { player: p, cards: cl(ev.cards), meld: ev.meld })
        : T("{player} laid off {cards}", { player: p, cards: cl(ev.cards) });
      case "discard": return ev.face_down ? T("{player} discarded face down {card}", { player: p, card: card(ev.card) })
        : T("{player} discarded {card}", { player: p, card: card(ev.card) });
      case "reveal": return ev.cards && ev.cards.length ? T("{player} showed {cards}", { player: p, cards: cl(ev.cards) })
        : T("{player} showed an empty hand", { player: p });
      case "call_rummy": return T("{player} called “Rummy!” on {card}", { player: p, card: card(ev.card) });
      case "end_hand": return ev.reason
        ? T("The hand was ended ({reason})", { reason: REASONS[ev.reason] || String(ev.reason).replace(/_/g, " ") })
        : T("The hand was ended");
      case "hand_result": return ev.winner ? T("Hand result: {player} went out", { player: ev.winner }) : T("Hand result: nobody went out");
      // the host's changes (referee/evening.py)
      case "correct_hand": return ev.void ? T("Hand {n} was deleted", { n: ev.hand })
        : ev.restore ? T("Hand {n} is back as played", { n: ev.hand })
          : T("Hand {n} corrected: {points}", { n: ev.hand, points: Object.entries(ev.points || {}).map(([q, v]) => `${q} ${v}`).join(", ") });
      case "set_target": return T("The target is now {target}", { target: ev.target });
      case "seat_players": return T("Players now: {players}", { players: (ev.players || []).join(", ") });
      default: return T("“{type}” event", { type: ev.type || "?" });
    }
  }

  // the engine's notes on a hand (referee/: plain English sentences) in the players' language: each known
  // sentence is matched whole and its values carried over; one not known here stays as the engine wrote it
  const NOTES = [
    [/^the stock ran out: the discard pile was shuffled into a new stock of (\d+) cards, keeping the top card$/,
      (m) => T("the stock ran out: the discard pile was shuffled into a new stock of {n} cards, keeping the top card", { n: m[1] })],
    [/^the stock ran out: the discard pile was shuffled into a new stock of (\d+) cards$/,
      (m) => T("the stock ran out: the discard pile was shuffled into a new stock of {n} cards", { n: m[1] })],
    [/^the stock ran out: the discard pile was turned over into a new stock of (\d+) cards, keeping the top card$/,
      (m) => T("the stock ran out: the discard pile was turned over into a new stock of {n} cards, keeping the top card", { n: m[1] })],
    [/^the stock ran out: the discard pile was turned over into a new stock of (\d+) cards$/,
      (m) => T("the stock ran out: the discard pile was turned over into a new stock of {n} cards", { n: m[1] })],
    [/^(.+) floats with no cards until their next turn$/, (m) => T("{player} floats with no cards until their next turn", { player: m[1] })],
    [/^the stock ran out a second time: the hand is a stalemate$/, () => T("the stock ran out a second time: the hand is a stalemate")],
    [/^the stock ran out and there is nothing to recycle: stalemate$/, () => T("the stock ran out and there is nothing to recycle: stalemate")],
    [/^a full round passed with no meld or lay-off: the players may end the hand$/,
      () => T("a full round passed with no meld or lay-off: the players may end the hand")],
    [/^every player holds one card and nothing can be laid off: stalemate$/, () => T("every player holds one card and nothing can be laid off: stalemate")],
    [/^the top discard (.+) should have stayed as the discard pile when the stock was recycled \(BAS-8\); it went into the stock$/,
      (m) => T("the top discard {card} should have stayed as the discard pile when the stock was recycled (BAS-8); it went into the stock", { card: m[1] })],
  ];
  function note(text) {
    const s = String(text);
    for (const [re, f] of NOTES) { const m = s.match(re); if (m) return f(m); }
    return s;
  }

  return { cl, describe, note };
})();
