/* Words: a game-log event as a sentence for the players (the feed, refusals, the camera's proposals). */
"use strict";
const Words = (() => {
  const cl = (cs) => (cs || []).map(Cards.label).join(" ");
  function describe(ev) {
    if (!ev || typeof ev !== "object") return "Something that is not an event";
    const p = ev.player || "?";
    switch (ev.type) {
      case "deal": return `${ev.dealer} dealt; the upcard is ${Cards.label(ev.upcard || "?")}`;
      case "draw": return ev.from === "discard"
        ? `${p} took ${ev.card ? Cards.label(ev.card) : "the top card"} from the discard pile`
        : `${p} drew from the stock${ev.card ? " (" + Cards.label(ev.card) + ")" : ""}`;
      case "meld": return `${p} melded ${cl(ev.cards)}`;
      case "lay_off": return `${p} laid off ${cl(ev.cards)}${ev.meld ? " on meld " + ev.meld : ""}`;
      case "discard": return `${p} discarded ${ev.face_down ? "face down " : ""}${Cards.label(ev.card || "?")}`;
      case "reveal": return `${p} showed ${ev.cards && ev.cards.length ? cl(ev.cards) : "an empty hand"}`;
      case "call_rummy": return `${p} called “Rummy!” on ${Cards.label(ev.card || "?")}`;
      case "end_hand": return `The hand was ended${ev.reason ? " (" + String(ev.reason).replace(/_/g, " ") + ")" : ""}`;
      case "hand_result": return ev.winner ? `Hand result: ${ev.winner} went out` : "Hand result: nobody went out";
      default: return `“${ev.type || "?"}” event`;
    }
  }

  return { cl, describe };
})();
