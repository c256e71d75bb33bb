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

  // events the camera is unsure of: the players accept or reject them
  function renderProposals(list) {
    const box = $("proposals");
    clear(box);
    box.hidden = !list.length;
    for (const p of list) {
      box.append(el("div", { class: "proposal", "data-id": p.id },
        el("div", { class: "ptext" }, el("strong", {}, RR.T("Camera proposes:") + " "), Words.describe(p.event),
          p.reason ? el("div", { class: "muted" }, p.reason) : null),
        el("button", { type: "button", class: "btn primary", onclick: async () => {
          const r = await RR.post(`/api/camera/proposals/${p.id}/confirm`);
          if (!r.ok) showAlert(RR.T("Not allowed: {reason}", { reason: RR.refusal(r) }), "bad");
          pollCamera();
        } }, RR.T("Accept")),
        el("button", { type: "button", class: "btn", onclick: async () => { await RR.post(`/api/camera/proposals/${p.id}/reject`); pollCamera(); } }, RR.T("Reject"))));
    }
  }

  // tap the camera picture to see it large, tap again to put it back
  $("camera-img").addEventListener("click", () => $("camera-box").classList.toggle("zoomed"));
  return { poll: pollCamera };
};
