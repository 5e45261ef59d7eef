// The student's answer form (a Streamlit custom component, v2). The options are drawn
// here, not with a Streamlit widget, because a widget would send the choice to the
// server; only the randomized report is sent (setTriggerValue), never the answer.
//
// data: { code, question, options, params, confirmed, refused } where `confirmed` is the
// client identifier whose report the server has committed (it then says "sent").
//
// Exactly once: the randomized report is kept in localStorage until the server confirms
// it. If the confirmation never arrives (the connection dropped, the server restarted),
// the page offers to send *the same report* again, never a new randomization: a second
// randomization of the same answer would tell the server more (2ε). The server stores
// a repeated report once and confirms it (PollStore.submit).

function ldpText(tag, text, className) {
  const element = document.createElement(tag);
  element.textContent = text; // textContent, never innerHTML: the teacher wrote the text
  if (className) element.className = className;
  return element;
}

function ldpClientId(code) {
  const name = "ldpcore-poll-client-" + code;
  let id = localStorage.getItem(name);
  if (!id) {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(name, id);
  }
  return id;
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  if (!data) return;
  const root = parentElement.querySelector(".ldp-answer");
  root.replaceChildren();
  const client = ldpClientId(data.code);
  const sentKey = "ldpcore-poll-sent-" + data.code;
  const pendingKey = "ldpcore-poll-pending-" + data.code;
  if (data.confirmed === client && !localStorage.getItem(sentKey)) {
    localStorage.setItem(sentKey, localStorage.getItem(pendingKey) || "{}");
    localStorage.removeItem(pendingKey);
  }
  const sent = localStorage.getItem(sentKey);
  if (sent) {
    const report = JSON.parse(sent);
    root.append(ldpText("p", "Your answer was randomized in this browser and its report was sent.", "ldp-done"));
    if (report && report.report) {
      root.append(ldpText("p", ldpDescribe(data.params, report.report, data.options)));
    }
    root.append(ldpText("p",
      "This browser has answered this poll. A second answer would spend your privacy " +
      "budget twice (2\u03b5), so the form is not shown again."));
    return;
  }
  const pending = localStorage.getItem(pendingKey);
  if (pending) {
    const message = JSON.parse(pending);
    root.append(ldpText("p",
      "Your answer was randomized in this browser, but the server has not confirmed " +
      "that it arrived. Send the same report again: it is stored once, and no new " +
      "randomization is made.", "ldp-done"));
    if (message && message.report) {
      root.append(ldpText("p", ldpDescribe(data.params, message.report, data.options)));
    }
    const again = ldpText("button", "Send the same report again");
    again.type = "button";
    const status = ldpText("p", "", "ldp-status");
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    again.addEventListener("click", () => {
      again.disabled = true;
      status.textContent = "Sending the report\u2026";
      setTriggerValue("report", message);
    });
    root.append(again, status);
    return;
  }
  const form = document.createElement("form");
  const fieldset = document.createElement("fieldset");
  fieldset.append(ldpText("legend", data.question));
  data.options.forEach((option, index) => {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "ldp-option";
    input.value = String(index);
    label.append(input, document.createTextNode(" " + option));
    fieldset.append(label);
  });
  form.append(fieldset);
  const button = ldpText("button", "Send my answer");
  button.type = "submit";
  form.append(button);
  const status = ldpText("p", "", "ldp-status");
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  form.append(status);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = form.querySelector("input[name=ldp-option]:checked");
    if (!chosen) {
      status.textContent = "Pick an option first.";
      return;
    }
    const report = ldpRandomize(data.params, Number(chosen.value));
    // Only the report leaves: the chosen option is dropped with the form.
    const message = { client: client, report: report };
    localStorage.setItem(pendingKey, JSON.stringify(message));
    form.querySelectorAll("input, button").forEach((element) => { element.disabled = true; });
    status.textContent = "Randomized in this browser; sending the report\u2026 " +
      ldpDescribe(data.params, report, data.options);
    setTriggerValue("report", message);
  });
  root.append(form);
}
