// The console's own script (no inline scripts: the pages' Content-Security-Policy allows none).
// Signing in sends the key as a bearer header on a request with no body; the server answers by
// setting an HttpOnly cookie, so the key is not kept where scripts can read it.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("login");
  if (form) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const key = document.getElementById("key").value.trim();
      const response = await fetch(form.action || window.location.pathname, {
        method: "POST",
        headers: { Authorization: "Bearer " + key },
        credentials: "same-origin",
      });
      if (response.ok) {
        window.location.assign(form.dataset.next || "/console/");
      } else {
        document.getElementById("login-error").hidden = false;
      }
    });
  }
  // A search box with data-filter="SELECTOR" hides the elements matching SELECTOR whose text lacks it.
  for (const input of document.querySelectorAll("input[data-filter]")) {
    input.addEventListener("input", () => {
      const wanted = input.value.trim().toLowerCase();
      for (const item of document.querySelectorAll(input.dataset.filter)) {
        item.hidden = wanted !== "" && !item.textContent.toLowerCase().includes(wanted);
      }
    });
  }
  for (const select of document.querySelectorAll("select[data-autosubmit]")) {
    select.addEventListener("change", () => select.form.submit());
  }
});
