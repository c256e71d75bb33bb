/* This device's display choices, applied before the page is drawn (this file is loaded in <head>; the
   page's CSP allows no inline script): the theme (auto: like the device / light / dark) and big numbers.
   The Display menu in the top bar changes them; they are kept in this browser's localStorage only. */
"use strict";
(() => {
  const root = document.documentElement;
  const KEY_THEME = "rr-theme", KEY_BIG = "rr-big";
  const BAR = { dark: "#071510", light: "#dfe9e2" };  // the top bar's colour: the browser's own bar matches it
  const read = (k) => { try { return localStorage.getItem(k); } catch (e) { return null; } };
  const write = (k, v) => { try { if (v === null) localStorage.removeItem(k); else localStorage.setItem(k, v); } catch (e) { /* private mode */ } };
  const prefersLight = window.matchMedia ? window.matchMedia("(prefers-color-scheme: light)") : null;

  function theme() { const t = read(KEY_THEME); return t === "light" || t === "dark" ? t : "auto"; }
  function shown() { const t = theme(); return t !== "auto" ? t : (prefersLight && prefersLight.matches ? "light" : "dark"); }

  function apply() {
    const t = theme();
    if (t === "auto") delete root.dataset.theme; else root.dataset.theme = t;  // auto: the CSS follows the device
    if (read(KEY_BIG) === "1") root.dataset.big = "1"; else delete root.dataset.big;
    const meta = document.querySelector('meta[name="theme-color"]');
    if (meta) meta.content = BAR[shown()];
  }
  apply();
  window.addEventListener("storage", apply);  // another tab of this device changed it
  if (prefersLight && prefersLight.addEventListener) prefersLight.addEventListener("change", apply);

  document.addEventListener("DOMContentLoaded", () => {
    const btn = document.getElementById("display-btn"), menu = document.getElementById("display-menu");
    if (!btn || !menu) return;
    const sync = () => {
      for (const r of menu.querySelectorAll('input[name="rr-theme"]')) r.checked = r.value === theme();
      const big = document.getElementById("big-toggle");
      if (big) big.checked = read(KEY_BIG) === "1";
    };
    const place = () => {  // under its button, inside the screen
      const b = btn.getBoundingClientRect(), w = menu.offsetWidth, vw = document.documentElement.clientWidth;
      menu.style.top = `${Math.round(b.bottom + 6)}px`;
      menu.style.left = `${Math.round(Math.max(8, Math.min(b.right - w, vw - w - 8)))}px`;
    };
    const open = (on) => {
      menu.hidden = !on;
      btn.setAttribute("aria-expanded", on ? "true" : "false");
      if (on) { sync(); place(); }
    };
    btn.addEventListener("click", (e) => { e.stopPropagation(); open(menu.hidden); });
    document.addEventListener("click", (e) => { if (!menu.hidden && !menu.contains(e.target)) open(false); });
    document.addEventListener("keydown", (e) => { if (e.key === "Escape" && !menu.hidden) { open(false); btn.focus(); } });
    window.addEventListener("resize", () => { if (!menu.hidden) place(); });
    menu.addEventListener("change", (e) => {
      const t = e.target;
      if (t.name === "rr-theme") write(KEY_THEME, t.value === "auto" ? null : t.value);
      else if (t.id === "big-toggle") write(KEY_BIG, t.checked ? "1" : null);
      apply();
      document.dispatchEvent(new CustomEvent("rr-display"));  // e.g. the chart draws itself again
    });
  });
})();
