// The SMS page: a live count of characters and parts as the text is
// typed, and the lists of sent and received messages kept up to date.
// Everything here is an addition: the form posts and the page shows the
// lists without it.

const text = document.getElementById("sms-text");
if (text) {
  const d = text.dataset;
  const basic = new Set(JSON.parse(d.gsm)), ext = new Set(JSON.parse(d.gsmExt));
  const count = document.getElementById("sms-count");

  // parts counts as package pdu splits: GSM 7-bit when every character
  // is in the alphabet (an extension character takes two septets), else
  // UCS-2 (a character beyond the BMP takes two code units); a part is
  // never cut inside a character.
  const parts = (s) => {
    const chars = [...s];
    const gsm = chars.every((c) => basic.has(c.codePointAt(0)) || ext.has(c.codePointAt(0)));
    const units = chars.map((c) => gsm ? (ext.has(c.codePointAt(0)) ? 2 : 1) : (c.codePointAt(0) > 0xffff ? 2 : 1));
    const single = Number(gsm ? d.gsmSingle : d.ucs2Single), per = Number(gsm ? d.gsmPart : d.ucs2Part);
    const total = units.reduce((a, b) => a + b, 0);
    let n = total === 0 ? 0 : 1, size = 0;
    if (total > single) {
      for (const u of units) {
        if (size + u > per) { n++; size = 0; }
        size += u;
      }
    }
    const limit = n > 1 ? per : single;
    const used = n > 1 ? size : total;
    return { encoding: gsm ? "gsm7" : "ucs2", chars: chars.length, units: total, parts: n, left: limit - used };
  };

  const show = () => {
    const p = parts(text.value.replace(/\r\n/g, "\n"));
    count.dataset.encoding = p.encoding;
    count.dataset.parts = p.parts;
    count.dataset.units = p.units;
    const enc = p.encoding === "gsm7" ? "GSM 7-bit" : "UCS-2 (a character outside the GSM alphabet)";
    const chars = p.chars === 1 ? "1 character" : p.chars + " characters";
    let msg = chars + " · " + enc + " · " + (p.parts === 1 ? "1 message" : p.parts + " parts");
    if (p.parts > Number(d.maxParts)) {
      msg += ": too long, a message takes at most " + d.maxParts + " parts.";
      count.className = "error";
    } else {
      if (p.parts > 0) msg += " · " + p.left + " left in " + (p.parts === 1 ? "it" : "the last part");
      count.className = "hint";
    }
    count.textContent = msg;
  };
  text.addEventListener("input", show);
  show();
}

// Live lists: while a sent message may still change, the server streams
// both lists as the page draws them.
const outbox = document.getElementById("outbox");
if (outbox && outbox.dataset.live === "true" && window.EventSource) {
  const src = new EventSource(new URL("../messages/events", import.meta.url));
  src.addEventListener("lists", (e) => {
    const v = JSON.parse(e.data);
    // The server drew both with html/template: the same escaping as the page.
    outbox.innerHTML = v.outbox;
    document.getElementById("inbox").innerHTML = v.inbox;
    outbox.dataset.live = String(v.live);
    if (!v.live) src.close();
  });
}
