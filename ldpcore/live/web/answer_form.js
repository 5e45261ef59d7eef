// The student's answer form (a Streamlit custom component, v2). The options are drawn
// here, not with a Streamlit widget, because a widget would send the choice to the
// server; only the randomized report is sent (setTriggerValue), never the answer.
//
// data: { code, question, options, params, confirmed, refused, retry } where `confirmed`
// is the client identifier whose report the server has committed (it then says "sent"),
// `refused` why it turned the report away (said above the form), and `retry` whether
// the teacher can lift that refusal (the same report may then be sent again).
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

// A line that says how the send goes, read out by screen readers as it changes.
function ldpStatus(text) {
  const status = ldpText("p", text, "ldp-status");
  status.setAttribute("role", "status");
  status.setAttribute("aria-live", "polite");
  return status;
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

// Seconds before a send with no answer from the server is tried again, then doubled:
// while the server is away the page keeps trying, saying so, and needs no reload.
const LDP_RETRY_FIRST_S = 3;
const LDP_RETRY_MAX_S = 30;
// The pending resend of this page, cancelled whenever the server answers (a new render).
let ldpRetry = null;

// Send `message`, and again after a growing wait until the server answers (the page
// is then drawn anew, which cancels the wait). The same report each time: stored once.
// The next try is scheduled before this one is sent, so a send that fails (the page
// between two servers) cannot end the tries.
function ldpSendUntilAnswered(setTriggerValue, message, status, wait) {
  clearTimeout(ldpRetry);
  ldpRetry = setTimeout(() => {
    status.textContent = "Reconnecting to the server\u2026 your report is kept in this " +
      "browser and sent again (the same report, stored once).";
    ldpSendUntilAnswered(setTriggerValue, message, status, Math.min(2 * wait, LDP_RETRY_MAX_S));
  }, wait * 1000);
  try {
    setTriggerValue("report", message);
  } catch (error) {
    console.warn("ldpcore: sending the report failed; it is tried again", error);
  }
}

export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  clearTimeout(ldpRetry);
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
  if (pending && data.refused) {
    // The page says why above the form. A refusal the teacher can lift (a full poll
    // made larger, a closed one reopened) offers the same report again; no other does.
    if (!data.retry) {
      root.append(ldpText("p", "Nothing was stored for this browser, and there is " +
        "nothing to send again.", "ldp-done"));
      return;
    }
    const message = JSON.parse(pending);
    root.append(ldpText("p", "Nothing was stored yet. If your teacher makes room, send " +
      "the same report again (no new randomization is made).", "ldp-done"));
    const retry = ldpText("button", "Send the same report again");
    retry.type = "button";
    const status = ldpStatus("");
    retry.addEventListener("click", () => {
      retry.disabled = true;
      status.textContent = "Sending the report\u2026";
      ldpSendUntilAnswered(setTriggerValue, message, status, LDP_RETRY_FIRST_S);
    });
    root.append(retry, status);
    return;
  }
  if (pending) {
    // Sent before, never confirmed (the server was away, or restarted): sent again by
    // itself, the same report, with no new randomization and no click or reload.
    const message = JSON.parse(pending);
    root.append(ldpText("p",
      "Your answer was randomized in this browser; its report is being sent again " +
      "(the same report: it is stored once, and no new randomization is made).", "ldp-done"));
    if (message && message.report) {
      root.append(ldpText("p", ldpDescribe(data.params, message.report, data.options)));
    }
    const again = ldpText("button", "Send the same report again");
    again.type = "button";
    const status = ldpStatus("Sending the report\u2026");
    again.addEventListener("click", () => {
      clearTimeout(ldpRetry);
      status.textContent = "Sending the report\u2026";
      ldpSendUntilAnswered(setTriggerValue, message, status, LDP_RETRY_FIRST_S);
    });
    root.append(status, again);
    ldpSendUntilAnswered(setTriggerValue, message, status, LDP_RETRY_FIRST_S);
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
  const status = ldpStatus("");
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
    ldpSendUntilAnswered(setTriggerValue, message, status, LDP_RETRY_FIRST_S);
  });
  root.append(form);
}
