"use strict";
// The rater page: every score is sent the moment it is typed; Submit closes the page.
const state = { token: null, study: null, page: null };

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function say(text) { document.getElementById("message").textContent = text || ""; }

async function call(method, url, body) {
  const headers = { "Content-Type": "application/json" };
  if (state.token) headers["X-Rater-Token"] = state.token;
  const r = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
  let data = {};
  try { data = await r.json(); } catch (e) { /* empty body */ }
  return { ok: r.ok, status: r.status, data };
}

function parseScore(text) {
  if (!/^\s*-?\d+\s*$/.test(text)) return null;
  return parseInt(text, 10);
}

async function saveScore(input, index) {
  const page = state.page;
  const err = document.getElementById(`error-${index}`);
  const value = parseScore(input.value);
  if (input.value.trim() === "") { err.textContent = ""; input.removeAttribute("aria-invalid"); return; }
  if (value === null) {
    err.textContent = "Enter a whole number from 1 to 50.";
    input.setAttribute("aria-invalid", "true");
    return;
  }
  const r = await call("PUT", `/api/page/${page}/score`, { study: state.study, set: index, score: value });
  if (state.page !== page) return;  // an answer for a page already submitted
  if (r.ok) {
    err.textContent = "";
    input.removeAttribute("aria-invalid");
  } else {
    err.textContent = r.data.detail || `Not saved (HTTP ${r.status}).`;
    input.setAttribute("aria-invalid", "true");
  }
}

function render(data) {
  const sets = document.getElementById("sets");
  sets.replaceChildren();
  data.sets.forEach((s, i) => {
    const n = i + 1;
    const box = el("section", { class: "set", "aria-labelledby": `title-${n}` });
    box.append(el("h3", { id: `title-${n}` }, s.label));
    const list = el("ol");
    s.responses.forEach((text) => list.append(el("li", {}, text)));
    box.append(list);
    box.append(el("label", { for: `score-${n}` }, `Score for ${s.label} (1-50)`));
    const input = el("input", {
      type: "number", id: `score-${n}`, name: `score-${n}`, min: "1", max: "50", step: "1",
      inputmode: "numeric", required: "", "aria-describedby": `error-${n}`,
    });
    if (s.score !== null && s.score !== undefined) input.value = String(s.score);
    input.addEventListener("input", () => saveScore(input, n));
    box.append(input);
    box.append(el("div", { class: "error", id: `error-${n}`, "aria-live": "polite" }));
    sets.append(box);
  });
  document.getElementById("progress").textContent =
    `Rater ${data.rater}: page ${data.done + 1} of ${data.total}`;
}

async function loadPage() {
  const r = await call("GET", "/api/page");
  if (!r.ok) { say(r.data.detail || `Error (HTTP ${r.status}).`); return; }
  state.study = r.data.study;
  if (r.data.finished) {
    state.page = null;
    document.getElementById("page").hidden = true;
    document.getElementById("finished").hidden = false;
    document.getElementById("progress").textContent = `Rater ${r.data.rater}: done`;
    return;
  }
  state.page = r.data.page;
  render(r.data);
  document.getElementById("page").hidden = false;
}

async function submit(event) {
  event.preventDefault();
  const inputs = Array.from(document.querySelectorAll("#sets input"));
  const scores = [];
  for (const [i, input] of inputs.entries()) {
    const v = parseScore(input.value);
    if (v === null || v < 1 || v > 50) {
      say(`Set ${i + 1} needs a whole number from 1 to 50 before you submit.`);
      input.focus();
      return;
    }
    scores.push(v);
  }
  const r = await call("POST", `/api/page/${state.page}/submit`, { study: state.study, scores });
  if (!r.ok) { say(r.data.detail || `Not submitted (HTTP ${r.status}).`); return; }
  say("");
  await loadPage();
  window.scrollTo(0, 0);
}

async function start() {
  document.getElementById("page").addEventListener("submit", submit);
  const params = new URLSearchParams(window.location.search);
  state.token = params.get("token");
  const name = params.get("rater");
  if (!state.token && name) {
    const r = await call("POST", "/api/raters", { name });
    if (!r.ok) { say(r.data.detail || `Error (HTTP ${r.status}).`); return; }
    state.token = r.data.token;
    // the token link resumes this rater's work after a reload or in a new tab
    window.history.replaceState(null, "", `/?token=${encodeURIComponent(state.token)}`);
  }
  if (!state.token) { say("Open the link the study's organiser gave you, or /?rater=YOUR_NAME."); return; }
  await loadPage();
}

start();
