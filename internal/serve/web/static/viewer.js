// calq serve's PDF viewer: renders the PDF named by data-src of #viewer,
// every page in order, each as a canvas with PDF.js's text layer above
// it, so that the browser's find sees the text. The contract with the
// pages (the data-* attributes, #viewer-error) is in internal/serve/web's
// package documentation. An ES module with no inline script and no eval,
// for a Content-Security-Policy of script-src 'self'.
import * as pdfjs from "./pdfjs/pdf.min.mjs";

pdfjs.GlobalWorkerOptions.workerSrc = new URL("./pdfjs/pdf.worker.min.mjs", import.meta.url).href;

// MAX_SCALE caps the zoom on wide screens: 150 % of the page's size.
const MAX_SCALE = 1.5;

// MAX_PAGES is how many pages the viewer draws unless #viewer's
// data-max-pages says otherwise: each page is a canvas in memory, and a
// PDF of thousands of pages would exhaust the tab. The rest is in the
// download, and the viewer says so.
const MAX_PAGES = 300;

// open loads the document and renders its pages, one after the other, so
// that the first pages show while the others are drawn.
async function open(viewer) {
  const task = pdfjs.getDocument({ url: viewer.dataset.src, enableXfa: false });
  try {
    const doc = await task.promise;
    viewer.dataset.pages = String(doc.numPages);
    if (doc.numPages === 0) {
      showMessage(viewer, "empty", "This PDF is empty: it has no pages to show.");
      return;
    }
    const max = Number(viewer.dataset.maxPages) || MAX_PAGES;
    const shown = Math.min(doc.numPages, max);
    if (shown < doc.numPages) {
      showMessage(viewer, "too-large",
        `This PDF has ${doc.numPages} pages: only the first ${shown} are shown here. Download it to read them all.`);
    }
    const pages = [];
    for (let n = 1; n <= shown; n++) {
      pages.push(await doc.getPage(n));
    }
    const boxes = pages.map((page) => placePage(viewer, page));
    for (let i = 0; i < pages.length; i++) {
      await drawPage(pages[i], boxes[i]);
      pages[i].cleanup();
    }
    viewer.dataset.rendered = String(shown);
  } catch (err) {
    showError(viewer, err);
    await task.destroy();
  }
}

// placePage appends the page's box at its final size, so that the layout
// does not jump while the pages are drawn; it returns the box and the
// viewport to draw with.
function placePage(viewer, page) {
  const unscaled = page.getViewport({ scale: 1 });
  const width = viewer.clientWidth || unscaled.width;
  const scale = Math.min(MAX_SCALE, width / unscaled.width);
  const viewport = page.getViewport({ scale });

  const box = document.createElement("div");
  box.className = "page";
  box.dataset.page = String(page.pageNumber);
  box.style.width = `${Math.floor(viewport.width)}px`;
  box.style.height = `${Math.floor(viewport.height)}px`;
  box.style.setProperty("--total-scale-factor", String(viewport.scale));

  const canvas = document.createElement("canvas");
  canvas.setAttribute("aria-label", `Page ${page.pageNumber}`);
  const text = document.createElement("div");
  text.className = "textLayer";
  box.append(canvas, text);
  viewer.append(box);
  return { box, canvas, text, viewport };
}

// drawPage paints the page on its canvas at the screen's pixel density,
// then lays its text out above it.
async function drawPage(page, { canvas, text, viewport }) {
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${Math.floor(viewport.width)}px`;
  canvas.style.height = `${Math.floor(viewport.height)}px`;
  await page.render({
    canvas,
    viewport,
    transform: ratio === 1 ? null : [ratio, 0, 0, ratio, 0, 0],
  }).promise;

  const layer = new pdfjs.TextLayer({
    textContentSource: page.streamTextContent(),
    container: text,
    viewport,
  });
  await layer.render();
}

// showError says in words why the document cannot be shown.
function showError(viewer, err) {
  switch (err && err.name) {
    case "PasswordException":
      return showMessage(viewer, "encrypted",
        "This PDF is encrypted: it needs a password to be opened, so it cannot be shown here. Download it and open it with its password.");
    case "InvalidPDFException":
      if (/empty/i.test(err.message)) {
        return showMessage(viewer, "empty", "This PDF is empty (0 bytes): there is nothing to show.");
      }
      return showMessage(viewer, "invalid", "This file is not a valid PDF (it is damaged or of another kind), so it cannot be shown.");
    case "ResponseException":
      if (err.status === 404 || err.status === 410) {
        return showMessage(viewer, "http", "The PDF is no longer on the server: it was deleted or has expired.");
      }
      return showMessage(viewer, "http", `The PDF could not be loaded from the server (HTTP status ${err.status}). Try again later.`);
  }
  return showMessage(viewer, "failed", `This PDF could not be shown: ${err && err.message ? err.message : err}. Download it to open it.`);
}

// showMessage shows message above #viewer, in #viewer-error (made if the
// page has none, shown if it is hidden), and marks #viewer with
// data-error=kind for scripts and tests.
function showMessage(viewer, kind, message) {
  let p = document.getElementById("viewer-error");
  if (!p) {
    p = document.createElement("p");
    p.id = "viewer-error";
    viewer.before(p);
  }
  p.setAttribute("role", "alert");
  p.textContent = message; // text, never HTML: the message may quote the file
  p.hidden = false;
  viewer.dataset.error = kind;
}

const viewer = document.getElementById("viewer");
if (viewer && viewer.dataset.src) {
  open(viewer);
}
