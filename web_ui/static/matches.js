/* The matches list (/matches): rename a match in its row, archive it (a second tap confirms), restore it. */
"use strict";
(() => {
  const el = RR.el;
  const NOTE = "rr-matches-note";  // what was done, shown again after the page is drawn anew
  const CONFIRM_MS = 5000;         // how long "Tap again to archive" waits for the second tap

  function note(text, bad) {
    const n = document.getElementById("list-note");
    if (!n) return;
    n.textContent = text;
    n.className = "list-note " + (bad ? "bad-text" : "ok-text");
    n.hidden = !text;
  }
  function reloadWith(text) {
    try { sessionStorage.setItem(NOTE, text); } catch (e) { /* storage off */ }
    location.reload();
  }

  // ---------- rename, in the row ----------
  function startRename(row, btn) {
    if (row.querySelector(".rename-form")) return;
    const cell = row.querySelector(".mname");
    const box = cell.querySelector(".title-box");
    const old = cell.querySelector(".mtitle").textContent;
    const input = el("input", { type: "text", class: "big-input rename-input", maxlength: btn.dataset.max || 60, value: old,
      placeholder: RR.T("e.g. Friday at Ana's"), "aria-label": RR.T("New name of the match") });
    const msg = el("span", { class: "bad-text rename-error", role: "alert" });
    const done = () => { form.remove(); box.hidden = false; btn.disabled = false; };
    const form = el("form", { class: "rename-form", onsubmit: async (e) => {
      e.preventDefault();
      const v = input.value.trim();
      const r = await RR.post(`/api/matches/${row.dataset.mid}/title`, { title: v ? v : null });
      if (!r.ok) { msg.textContent = r.message || r.code ? RR.refusal(r) : RR.T("The name could not be saved."); input.focus(); return; }
      cell.querySelector(".mtitle").textContent = r.title || "";
      cell.querySelector(".title-box .sep").hidden = !r.title;
      done();
      note(r.title ? RR.T("Renamed: {name}", { name: r.title }) : RR.T("The match has no name now."));
    } },
    input,
    el("button", { type: "submit", class: "btn primary small" }, RR.T("Save")),
    el("button", { type: "button", class: "btn ghost small", onclick: done }, RR.T("Cancel")),
    msg);
    input.addEventListener("keydown", (e) => { if (e.key === "Escape") done(); });
    box.hidden = true;
    btn.disabled = true;
    cell.prepend(form);
    input.focus();
    input.select();
  }

  // ---------- archive (two taps) and restore ----------
  function archive(row, btn) {
    if (btn.dataset.armed !== "1") {
      btn.dataset.armed = "1";
      btn.dataset.label = btn.textContent;
      btn.textContent = RR.T("Tap again to archive");
      btn.classList.add("warn");
      btn.classList.remove("ghost");
      btn.timer = setTimeout(() => disarm(btn), CONFIRM_MS);
      return;
    }
    clearTimeout(btn.timer);
    btn.disabled = true;
    RR.post(`/api/matches/${row.dataset.mid}/archive`).then((r) => {
      if (r.ok) reloadWith(RR.T("Archived. It is kept under “Archived” below, where it can be restored."));
      else { disarm(btn); btn.disabled = false; note(r.message || r.code ? RR.refusal(r) : RR.T("The match could not be archived."), true); }
    });
  }
  function disarm(btn) {
    btn.dataset.armed = "";
    if (btn.dataset.label) btn.textContent = btn.dataset.label;
    btn.classList.remove("warn");
    btn.classList.add("ghost");
  }
  function restore(row, btn) {
    btn.disabled = true;
    RR.post(`/api/matches/${row.dataset.mid}/restore`).then((r) => {
      if (r.ok) reloadWith(RR.T("Restored: the match is back in the list."));
      else { btn.disabled = false; note(r.message || r.code ? RR.refusal(r) : RR.T("The match could not be restored."), true); }
    });
  }

  document.addEventListener("click", (e) => {
    const btn = e.target.closest("button");
    const row = btn && btn.closest(".match-row");
    if (!row) return;
    if (btn.classList.contains("rename-btn")) startRename(row, btn);
    else if (btn.classList.contains("archive-btn")) archive(row, btn);
    else if (btn.classList.contains("restore-btn")) restore(row, btn);
  });
  if (RR.pinLocked) {  // changes need the PIN: the buttons would only lead to the PIN page
    for (const b of document.querySelectorAll(".rename-btn, .archive-btn, .restore-btn")) b.hidden = true;
  }
  let told = null;
  try { told = sessionStorage.getItem(NOTE); sessionStorage.removeItem(NOTE); } catch (e) { /* storage off */ }
  if (told) note(told);
})();
