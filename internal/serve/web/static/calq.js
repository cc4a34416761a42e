// calq's pages: drag-and-drop and a size check on the convert page, live
// progress on a job's page. Everything here is an addition: the pages
// work without it (the forms post, the job's page reloads itself).

const form = document.getElementById("convert-form");
if (form) {
  const input = document.getElementById("files");
  const drop = document.getElementById("drop");
  const picked = document.getElementById("picked");
  const warn = document.getElementById("too-large");
  const maxFile = Number(form.dataset.maxFile), maxBody = Number(form.dataset.maxBody);
  const maxFiles = Number(form.dataset.maxFiles);
  // A size's number and unit are joined by a no-break space, as the
  // server's pages do: never broken across lines.
  const size = (n) => n < 1024 ? n + "\u00a0B" : n < 1048576 ? (n / 1024).toFixed(1) + "\u00a0KiB" : (n / 1048576).toFixed(1) + "\u00a0MiB";

  // check lists the picked files and says what is over the limits.
  const check = () => {
    picked.replaceChildren();
    let total = 0;
    const problems = [];
    for (const f of input.files) {
      total += f.size;
      const li = document.createElement("li");
      li.textContent = f.name + " (" + size(f.size) + ")";
      if (f.size > maxFile) {
        li.className = "over";
        problems.push(f.name + " is " + size(f.size) + ", over the limit of " + size(maxFile) + " per file");
      }
      picked.append(li);
    }
    if (input.files.length > maxFiles) problems.push(input.files.length + " files: at most " + maxFiles + " at once");
    if (total > maxBody) problems.push("the files add up to " + size(total) + ", over the limit of " + size(maxBody));
    const sentences = [];
    if (problems.length) sentences.push("Too large: " + problems.join("; ") + ".");
    const clash = conflicts();
    if (clash) sentences.push(clash);
    warn.textContent = sentences.join(" ");
    warn.hidden = sentences.length === 0;
    return sentences.length === 0;
  };

  // conflicts says, before anything is sent, what the server refuses:
  // PDF/A (the form's, else the chosen profile's) with a watermark,
  // passwords or merging, which change the PDF after it is made.
  const conflicts = () => {
    const pdfa = document.getElementById("pdfa");
    const profile = document.getElementById("profile");
    const prof = profile.selectedOptions[0] ? profile.selectedOptions[0].dataset : {};
    if (!pdfa.value && !prof.pdfa) return "";
    const with_ = [];
    if (document.getElementById("watermark").value.trim() || prof.watermark) with_.push("a watermark");
    if (document.getElementById("user-password").value || document.getElementById("owner-password").value || prof.encrypt) {
      with_.push("passwords");
    }
    if (document.getElementById("merge").checked) with_.push("merging");
    if (!with_.length) return "";
    const list = with_.length > 1 ? with_.slice(0, -1).join(", ") + " or " + with_[with_.length - 1] : with_[0];
    return "PDF/A cannot go with " + list + ": any change to a PDF/A file after it is made breaks its conformance. " +
      "Choose a plain PDF, or leave those out.";
  };
  input.addEventListener("change", check);
  for (const id of ["pdfa", "profile", "watermark", "user-password", "owner-password", "merge"]) {
    document.getElementById(id).addEventListener("change", () => { if (!warn.hidden || conflicts()) check(); });
  }
  for (const ev of ["dragenter", "dragover"]) {
    drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add("over"); });
  }
  for (const ev of ["dragleave", "drop"]) {
    drop.addEventListener(ev, () => drop.classList.remove("over"));
  }
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    const dt = new DataTransfer();
    for (const f of input.files) dt.items.add(f);
    for (const f of e.dataTransfer.files) dt.items.add(f);
    input.files = dt.files;
    check();
  });
  form.addEventListener("submit", (e) => {
    if (!check()) e.preventDefault();
    else document.getElementById("convert-submit").disabled = true;
  });
}

const files = document.getElementById("files");
if (files && files.tagName === "TABLE" && files.dataset.final === "false" && window.EventSource) {
  const id = files.dataset.job;
  // Beside /static/, wherever calq serve's root path put them.
  const src = new EventSource(new URL("../job/" + encodeURIComponent(id) + "/events", import.meta.url));
  src.addEventListener("progress", (e) => {
    const v = JSON.parse(e.data);
    const state = document.getElementById("job-state");
    state.textContent = v.label;
    state.className = "state state-" + v.state;
    document.getElementById("job-count").textContent = v.done + " of " + v.total;
    document.getElementById("job-progress").value = v.done;
    const rows = files.tBodies[0].rows;
    v.files.forEach((f, i) => {
      const row = rows[i];
      if (!row) return;
      row.dataset.state = f.state;
      const cell = row.cells[2];
      const s = document.createElement("span");
      s.className = "state state-" + f.state;
      s.textContent = f.state;
      cell.replaceChildren(s);
      if (f.reason) {
        const r = document.createElement("span");
        r.className = "reason";
        r.textContent = " " + f.reason;
        cell.append(r);
      }
    });
    if (v.final) {
      src.close();
      location.reload(); // the links to the result
    }
  });
}

// A button with data-copy copies the text of the element it names (a
// key shown once); it stays hidden where the browser has no clipboard
// for the page (plain http off loopback), and the text is selected
// whole by a click anyway.
for (const b of document.querySelectorAll("button[data-copy]")) {
  const src = document.getElementById(b.dataset.copy);
  if (!src || !navigator.clipboard) continue;
  b.hidden = false;
  b.addEventListener("click", async () => {
    await navigator.clipboard.writeText(src.textContent);
    b.textContent = "Copied";
  });
}
