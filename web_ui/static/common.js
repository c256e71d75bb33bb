/* Shared helpers: API calls with the page's CSRF token, small DOM builder. No external code. */
"use strict";
const RR = (() => {
  const meta = (n) => { const m = document.querySelector(`meta[name="${n}"]`); return m ? m.content : ""; };
  const token = meta("csrf-token");

  // `body`: a value sent as JSON, or with `type` a ready body (a Blob, a string) of that content type
  async function call(method, url, body, type) {
    const opts = { method, credentials: "same-origin", headers: { "X-CSRF-Token": token, "X-Rummy-Source": "web" } };
    if (body !== undefined) {
      opts.headers["Content-Type"] = type || "application/json";
      opts.body = type ? body : JSON.stringify(body);
    }
    let r;
    try {
      r = await fetch(url, opts);
    } catch (e) {
      return { ok: false, status: 0, code: "offline", message: T("The dashboard server cannot be reached.") };
    }
    let data;
    try { data = await r.json(); } catch (e) { data = { ok: r.ok, message: T("The server answered {status}.", { status: r.status }) }; }
    if (typeof data !== "object" || data === null) data = { ok: r.ok };
    data.status = r.status;
    if (data.ok === undefined) data.ok = r.ok;
    if (r.status === 401 && data.code === "pin_required") {
      location.href = "/unlock?next=" + encodeURIComponent(location.pathname);
    }
    return data;
  }

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") e.className = v;
        else if (k === "text") e.textContent = v;
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else if (k === "dataset") Object.assign(e.dataset, v);
        else if (k === "style") Object.assign(e.style, v);  // CSSOM, allowed by the page's CSP
        else e.setAttribute(k, v === true ? "" : v);
      }
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  // the page's language (web_ui/i18n.py): T("English text with {name}", {name: v}) → the translation
  const CAT = window.RR_CATALOG || {};
  const lang = window.RR_LANG || "en";
  function T(text, params) {
    const s = Object.prototype.hasOwnProperty.call(CAT, text) && CAT[text] ? CAT[text] : text;
    return params ? s.replace(/\{(\w+)\}/g, (m, k) => (params[k] === undefined ? m : String(params[k]))) : s;
  }

  // a refusal ({code, message, rule?, message_local?}) in this device's language (web_ui/refusals.py): in
  // English the engine's own detailed message; else the player-facing text of its code (window.RR_REFUSALS,
  // sent with the catalogue) with the rule numbers the engine's message names, e.g. "(regula C-3.1)"
  const REFUSALS = window.RR_REFUSALS || {};
  function ruleRefs(message, rule) {
    const refs = [];
    for (const m of String(message || "").matchAll(/\(rules? ([^()]+)\)/g)) refs.push(m[1]);
    if (rule && !refs.some((r) => r.includes(rule))) refs.push(rule);
    return refs.join("; ");
  }
  function refusal(r) {
    if (!r) return "";
    if (r.message_local) return r.message_local;
    const text = lang !== "en" && r.code && Object.prototype.hasOwnProperty.call(REFUSALS, r.code) ? REFUSALS[r.code] : null;
    if (!text) return r.message || r.code || T("Refused");
    const rules = ruleRefs(r.message, r.rule);
    return rules ? T("{text} (rule {rule})", { text, rule: rules }) : text;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  function when(ts) {
    const d = new Date(ts * 1000);
    return d.toLocaleString(lang === "sr" ? "sr-Latn" : lang === "en" ? undefined : lang, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  }

  document.addEventListener("DOMContentLoaded", () => {
    // ☰ on a narrow screen: the other screens' links and the display settings, one tap away
    const menu = document.getElementById("menu-btn");
    if (menu) menu.addEventListener("click", () => {
      const bar = document.querySelector(".topbar");
      const open = !bar.classList.contains("menu-open");
      bar.classList.toggle("menu-open", open);
      menu.setAttribute("aria-expanded", open ? "true" : "false");
    });
    // the language is this device's: a cookie the server sets (/lang/<code> in web_ui/i18n.py), then this page
    // again (the fragment rides along the redirect)
    const pick = document.getElementById("lang-select");
    if (pick) pick.addEventListener("change", () => {
      const here = location.pathname + location.search;
      location.assign(`/lang/${encodeURIComponent(pick.value)}?next=${encodeURIComponent(here)}${location.hash}`);
    });
    for (const c of document.querySelectorAll(".when[data-ts]")) c.textContent = when(Number(c.dataset.ts));
    // the top bar's height, for what sticks below it (the live screen's entry column)
    const bar = document.querySelector(".topbar");
    if (bar && "ResizeObserver" in window) {
      new ResizeObserver(() => document.documentElement.style.setProperty("--topbar-h", `${bar.offsetHeight}px`)).observe(bar);
    }
  });

  return { token, call, send: call, post: (u, b) => call("POST", u, b === undefined ? {} : b), get: (u) => call("GET", u),
           el, clear, when, T, refusal, lang, pinLocked: meta("pin-required") === "yes" };
})();

/* The players' colours (issue 13): the palette (the same list as PALETTE in web_ui/summaries.py), each
   player's colour in a match (the one chosen on the new-match form, else the first of the palette that no
   player before has: as summaries.player_colors), and the swatches the server draws (CSS from the page's
   own script: the CSP allows no inline style). Names are always shown beside a colour. */
RR.COLORS = ["#ffd166", "#4cc9f0", "#f72585", "#90e0a0", "#ff8c42", "#b39cff", "#f1f1f1", "#2ec4b6"];
RR.isColor = (c) => typeof c === "string" && /^#[0-9a-fA-F]{6}$/.test(c);
RR.playerColors = (players, chosen) => {
  const pick = chosen && typeof chosen === "object" ? chosen : {};
  const used = new Set(players.filter((p) => RR.isColor(pick[p])).map((p) => pick[p]));
  const out = {};
  players.forEach((p, i) => {
    let c = pick[p];
    if (!RR.isColor(c)) {
      c = RR.COLORS.find((x) => !used.has(x)) || RR.COLORS[i % RR.COLORS.length];
      used.add(c);
    }
    out[p] = c;
  });
  return out;
};
document.addEventListener("DOMContentLoaded", () => {
  for (const s of document.querySelectorAll("[data-swatch]")) if (RR.isColor(s.dataset.swatch)) s.style.background = s.dataset.swatch;
});
