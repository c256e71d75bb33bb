/* The chart of running totals after each hand, as SVG (no external code): `Chart.draw(box, state, colours)`. */
"use strict";
const Chart = (() => {
  function draw(box, S, COLORS) {
    RR.clear(box);
    const NS = "http://www.w3.org/2000/svg";
    const W = 900, H = Math.max(320, 120 + 22 * S.players.length), L = 56, R = 130, T = 16, B = 40;
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", RR.T("Running totals after each hand"));
    const mk = (tag, attrs, text) => { const e = document.createElementNS(NS, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text !== undefined) e.textContent = text; svg.append(e); return e; };
    const series = S.players.map(() => [0]);
    S.hands.forEach((hd) => S.players.forEach((p, i) => series[i].push(series[i][series[i].length - 1] + ((hd.points && hd.points[p]) || 0))));
    const all = series.flat().concat(S.target ? [S.target] : []);
    let ymax = Math.max(10, ...all), ymin = Math.min(0, ...all);
    const n = Math.max(1, S.hands.length);
    const x = (i) => L + (i * (W - L - R)) / n;
    const y = (v) => T + ((ymax - v) * (H - T - B)) / (ymax - ymin || 1);
    const step = niceStep((ymax - ymin) / 5);
    for (let v = Math.ceil(ymin / step) * step; v <= ymax; v += step) {
      mk("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" });
      mk("text", { x: L - 8, y: y(v) + 5, class: "axis", "text-anchor": "end" }, String(v));
    }
    for (let i = 0; i <= n; i++) mk("text", { x: x(i), y: H - 12, class: "axis", "text-anchor": "middle" }, String(i));
    if (S.target) {
      mk("line", { x1: L, x2: W - R, y1: y(S.target), y2: y(S.target), class: "target" });
      mk("text", { x: W - R + 6, y: y(S.target) + 5, class: "axis target-label" }, RR.T("target {n}", { n: S.target }));
    }
    series.forEach((pts, i) => {
      const c = COLORS[i % COLORS.length];
      mk("polyline", { points: pts.map((v, j) => `${x(j)},${y(v)}`).join(" "), fill: "none", stroke: c, "stroke-width": 4, "stroke-linejoin": "round", class: "series", "data-player": S.players[i] });
      pts.forEach((v, j) => mk("circle", { cx: x(j), cy: y(v), r: 5, fill: c }));
    });
    // end labels, pushed apart so equal totals stay readable
    const labels = series.map((pts, i) => ({ i, v: pts[pts.length - 1], y: y(pts[pts.length - 1]) + 6 })).sort((a, b) => a.y - b.y);
    for (let k = 1; k < labels.length; k++) if (labels[k].y - labels[k - 1].y < 20) labels[k].y = labels[k - 1].y + 20;
    const over = labels.length ? labels[labels.length - 1].y - (H - 6) : 0;
    if (over > 0) for (const l of labels) l.y -= over;
    for (const l of labels) mk("text", { x: x(n) + 10, y: l.y, fill: COLORS[l.i % COLORS.length], class: "series-label" }, `${S.players[l.i]} ${l.v}`);
    box.append(svg);
  }
  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }

  return { draw };
})();
