/* The chart of running totals after each hand, as SVG (no external code): `Chart.draw(box, state, colours)`,
   `colours` one per player in the state's order (else the palette).
   - Drawn at the box's own width, so its text keeps its size on a phone; drawn again when that width changes.
   - The hand numbers under it are thinned to a step (1, 2, 5, 10, 20, 50 … hands) that leaves room between
     them, however many hands were played.
   - Lines that meet (the same total, or a few pixels apart) are drawn a little apart, and each player has
     a marker shape and a dash of their own, so equal series stay visible.
   - The target's label sits at the left end of its line, the players' labels right of the last hand:
     they never cover each other. */
"use strict";
const Chart = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const DASHES = ["", "12 6", "4 5", "14 5 3 5"];
  const SHAPES = ["circle", "square", "diamond", "triangle", "down"];
  const MEET = 5;  // px: lines closer than this at a hand are drawn apart (the lines are 4 px wide)
  const drawn = new WeakMap();  // box → {S, colours, width}: drawn again when the box's width changes
  const observer = "ResizeObserver" in window ? new ResizeObserver((entries) => {
    for (const e of entries) {
      const last = drawn.get(e.target);
      if (last && Math.abs(e.target.clientWidth - last.width) > 8) draw(e.target, last.S, last.colours);
    }
  }) : null;

  function marker(mk, shape, cx, cy, r, attrs) {
    if (shape === "square") return mk("rect", { x: cx - r * 0.9, y: cy - r * 0.9, width: r * 1.8, height: r * 1.8, ...attrs });
    const pts = { diamond: [[0, -1.25], [1.25, 0], [0, 1.25], [-1.25, 0]], triangle: [[0, -1.3], [1.2, 0.9], [-1.2, 0.9]],
                  down: [[0, 1.3], [1.2, -0.9], [-1.2, -0.9]] }[shape];
    if (pts) return mk("polygon", { points: pts.map(([a, b]) => `${cx + a * r},${cy + b * r}`).join(" "), ...attrs });
    return mk("circle", { cx, cy, r, ...attrs });
  }

  // each hand's points moved apart where lines meet: clusters of players closer than MEET px, spread evenly
  function spread(ys) {
    const n = ys.length, off = new Array(n).fill(0);
    const order = ys.map((v, i) => i).sort((a, b) => ys[a] - ys[b] || a - b);
    for (let s = 0; s < n;) {
      let e = s + 1;
      while (e < n && ys[order[e]] - ys[order[e - 1]] < MEET) e++;
      const g = e - s;
      if (g > 1) {
        const gap = Math.min(MEET, 24 / (g - 1));
        const mid = order.slice(s, e).reduce((t, i) => t + ys[i], 0) / g;
        order.slice(s, e).sort((a, b) => a - b).forEach((i, r) => { off[i] = mid + (r - (g - 1) / 2) * gap - ys[i]; });
      }
      s = e;
    }
    return off;
  }

  function draw(box, S, COLORS) {
    const colours = Array.isArray(COLORS) && COLORS.length ? COLORS : (RR.COLORS || ["#ffd166", "#4cc9f0", "#f72585", "#90e0a0"]);
    const colour = (i) => colours[i % colours.length];
    RR.clear(box);
    const W = Math.round(Math.max(320, Math.min(1600, box.clientWidth || 900)));
    const H = Math.max(300, 120 + 22 * S.players.length), T = 16, B = 40;
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", RR.T("Running totals after each hand"));
    const mk = (tag, attrs, text) => { const e = document.createElementNS(NS, tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text !== undefined) e.textContent = text; svg.append(e); return e; };

    const series = S.players.map(() => [0]);
    S.hands.forEach((hd) => S.players.forEach((p, i) => series[i].push(series[i][series[i].length - 1] + ((hd.points && hd.points[p]) || 0))));
    const all = series.flat().concat(S.target ? [S.target] : []);
    const ymax = Math.max(10, ...all), ymin = Math.min(0, ...all);
    const n = Math.max(1, S.hands.length);
    const step = niceStep((ymax - ymin) / 5);
    const ticks = [];
    for (let v = Math.ceil(ymin / step) * step; v <= ymax; v += step) ticks.push(v);

    // margins from what they hold: the axis's numbers on the left, the players' end labels on the right
    const CH = 9.6, LABEL_CH = 10.6;  // px a character, about, at the axis's 16 px and the labels' bold 17 px
    const L = Math.round(14 + CH * Math.max(...ticks.map((v) => String(v).length), 2));
    const ends = series.map((pts, i) => `${S.players[i]} ${pts[pts.length - 1]}`);
    const R = Math.round(Math.min(W * 0.4, 18 + LABEL_CH * Math.max(...ends.map((t) => t.length))));
    const fit = Math.max(3, Math.floor((R - 18) / LABEL_CH));
    const x = (i) => L + (i * (W - L - R)) / n;
    const y = (v) => T + ((ymax - v) * (H - T - B)) / (ymax - ymin || 1);

    for (const v of ticks) {
      mk("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" });
      mk("text", { x: L - 8, y: y(v) + 5, class: "axis", "text-anchor": "end" }, String(v));
    }
    // hand numbers: a step that leaves a number's width and a gap between two of them
    const perHand = (W - L - R) / n, room = CH * String(n).length + 14;
    const every = handStep(perHand, room);
    for (let i = 0; i <= n; i += every) mk("text", { x: x(i), y: H - 12, class: "axis x-tick", "text-anchor": "middle" }, String(i));

    if (S.target) {
      const ty = y(S.target), above = ty - 7 - 14 >= 0;
      mk("line", { x1: L, x2: W - R, y1: ty, y2: ty, class: "target" });
      mk("text", { x: L + 6, y: above ? ty - 7 : ty + 19, class: "axis target-label", "text-anchor": "start" },
        RR.T("target {n}", { n: S.target }));
    }

    // where lines meet they are drawn apart; each player's own marker and dash
    const offs = series[0].map((_, j) => spread(series.map((pts) => y(pts[j]))));
    const r = Math.max(2.5, Math.min(5, perHand * 0.3));
    series.forEach((pts, i) => {
      const c = colour(i), name = S.players[i];
      const py = (j) => y(pts[j]) + offs[j][i];
      const dash = DASHES[i % DASHES.length];
      mk("polyline", { points: pts.map((v, j) => `${x(j)},${py(j)}`).join(" "), fill: "none", stroke: c, "stroke-width": 4,
                       "stroke-linejoin": "round", "stroke-dasharray": dash || "none", class: "series", "data-player": name });
      const shape = SHAPES[i % SHAPES.length];
      pts.forEach((v, j) => marker(mk, shape, x(j), py(j), r, { fill: c, class: "marker", "data-player": name, "data-shape": shape }));
    });

    // end labels, right of the last hand, pushed apart so equal totals stay readable
    const lastOf = (i) => series[i][series[i].length - 1];
    const labels = series.map((pts, i) => ({ i, y: y(lastOf(i)) + 6 })).sort((a, b) => a.y - b.y || a.i - b.i);
    for (let k = 1; k < labels.length; k++) if (labels[k].y - labels[k - 1].y < 20) labels[k].y = labels[k - 1].y + 20;
    const over = labels.length ? labels[labels.length - 1].y - (H - B + 4) : 0;  // above the hand numbers
    if (over > 0) for (const l of labels) l.y -= over;
    for (const l of labels) {
      const v = String(lastOf(l.i));  // a long name is cut to fit the margin; the total never is
      const text = ends[l.i].length > fit ? `${S.players[l.i].slice(0, Math.max(1, fit - v.length - 2))}… ${v}` : ends[l.i];
      mk("text", { x: x(n) + 10, y: l.y, fill: colour(l.i), class: "series-label", "data-player": S.players[l.i] }, text);
    }
    box.append(svg);
    drawn.set(box, { S, colours: COLORS, width: box.clientWidth });
    if (observer) observer.observe(box);
  }

  // the smallest of 1, 2, 5, 10, 20, 50 … hands whose labels are `room` px apart or more
  function handStep(perHand, room) {
    for (let p = 1; p <= 1e6; p *= 10) for (const m of [1, 2, 5]) if (m * p * perHand >= room) return m * p;
    return 1e6;
  }

  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }

  return { draw };
})();
