// The console's only script (served as a static asset; the pages work without it): the copy
// button of a new consumer key, and the live progress bar of a feed compile.
"use strict";

document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const input = document.getElementById(button.dataset.copy);
  const status = document.getElementById(`${button.dataset.copy}-copied`);
  try {
    await navigator.clipboard.writeText(input.value);
    if (status) status.textContent = "Copied to the clipboard.";
  } catch {
    input.focus();
    input.select();
    if (status) status.textContent = "Selected: press Ctrl+C (or Cmd+C) to copy.";
  }
});

document.addEventListener("submit", async (event) => {
  const form = event.target;
  const progressUrl = form.dataset.compile;
  if (!progressUrl) return;
  event.preventDefault();
  const bar = document.getElementById("compile-progress");
  const text = document.getElementById("compile-percent");
  const error = document.getElementById("compile-error");
  const button = form.querySelector("button[type=submit]");
  const show = (percent) => {
    bar.value = percent;
    bar.textContent = `${percent} %`;
    text.textContent = `${percent} %`;
  };
  error.hidden = true;
  button.disabled = true;
  show(0);
  let finished = false;
  const poll = async () => {
    while (!finished) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      try {
        const answer = await (await fetch(progressUrl, { headers: { accept: "application/json" } })).json();
        if (answer.ok && !finished && answer.percent < 100) show(Math.max(Number(bar.value), answer.percent));
      } catch {
        // The next poll, or the compile's own answer, says more.
      }
    }
  };
  poll();
  try {
    const response = await fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { "x-requested-with": "fetch", accept: "application/json" },
    });
    const answer = await response.json();
    if (!answer.ok) throw new Error(answer.message);
    // A large catalog compiles on after the answer: follow it to the end.
    for (;;) {
      const state = await (await fetch(progressUrl, { headers: { accept: "application/json" } })).json();
      if (!state.ok) throw new Error(state.message);
      if (state.percent >= 100) {
        finished = true;
        show(100);
        if (state.status === "Failed") throw new Error(`The compile failed: ${state.message}`);
        break;
      }
      show(Math.max(Number(bar.value), state.percent));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // The counts, Score and file link are the server's: show the page as it now is.
    setTimeout(() => location.replace(location.pathname), 600);
  } catch (e) {
    finished = true;
    error.textContent = e instanceof Error ? e.message : String(e);
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
});
