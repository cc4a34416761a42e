// Gotenberg's npm clients, unchanged, against calq serve: the test in
// clients_test.go installs chromiumly and gotenberg-js-client into a
// temporary directory and runs this script there with
//   node clients.js URL KEY DOCX XLSX OUTDIR
// It writes what each client got into OUTDIR, where the Go test checks it,
// and prints one line per step. Any failure exits non-zero.
const fs = require("fs");
const path = require("path");
const { Chromiumly, LibreOffice, PDFEngines, System } = require("chromiumly");
const gjc = require("gotenberg-js-client");

const [url, key, docx, xlsx, out] = process.argv.slice(2);

function isPDF(buf, what) {
  if (!Buffer.isBuffer(buf) || buf.subarray(0, 5).toString() !== "%PDF-") {
    throw new Error(`${what}: not a PDF: ${String(buf).slice(0, 200)}`);
  }
}

async function chromiumly() {
  // Gotenberg's Basic auth: calq takes the key as the password.
  Chromiumly.configure({ endpoint: url, username: "calq", password: key });

  const one = await LibreOffice.convert({ files: [docx] });
  isPDF(one, "LibreOffice.convert");
  fs.writeFileSync(path.join(out, "chromiumly-convert.pdf"), one);
  console.log("chromiumly convert: ok");

  const merged = await LibreOffice.convert({ files: [docx, xlsx], merge: true });
  isPDF(merged, "LibreOffice.convert merge");
  fs.writeFileSync(path.join(out, "chromiumly-convert-merge.pdf"), merged);
  console.log("chromiumly convert merge: ok");

  const pdf1 = path.join(out, "chromiumly-convert.pdf");
  const twice = await PDFEngines.merge({ files: [pdf1, pdf1] });
  isPDF(twice, "PDFEngines.merge");
  fs.writeFileSync(path.join(out, "chromiumly-merge.pdf"), twice);
  console.log("chromiumly merge: ok");

  const meta = await PDFEngines.writeMetadata({
    files: [pdf1],
    metadata: { Author: "Chromiumly Author", Title: "Written by chromiumly" },
  });
  isPDF(meta, "PDFEngines.writeMetadata");
  const metaPath = path.join(out, "chromiumly-metadata.pdf");
  fs.writeFileSync(metaPath, meta);
  console.log("chromiumly metadata write: ok");

  const read = JSON.parse((await PDFEngines.readMetadata({ files: [metaPath] })).toString());
  fs.writeFileSync(path.join(out, "chromiumly-metadata.json"), JSON.stringify(read));
  console.log("chromiumly metadata read: ok");

  const health = JSON.parse((await System.getHealth()).toString());
  if (health.status !== "up") {
    throw new Error(`health: ${JSON.stringify(health)}`);
  }
  fs.writeFileSync(path.join(out, "chromiumly-health.json"), JSON.stringify(health));
  console.log("chromiumly health: ok");
}

async function gotenbergJsClient() {
  const toPDF = gjc.pipe(
    gjc.gotenberg(url),
    gjc.convert,
    gjc.office,
    gjc.to(gjc.landscape),
    // Gotenberg 7+'s route, as the client's README says.
    gjc.adjust({ url: url + "/forms/libreoffice/convert", headers: { Authorization: "Bearer " + key } }),
    gjc.please,
  );
  const stream = await toPDF({ "document.docx": fs.createReadStream(docx) });
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  const buf = Buffer.concat(chunks);
  isPDF(buf, "gotenberg-js-client office");
  fs.writeFileSync(path.join(out, "gjc-office-landscape.pdf"), buf);
  console.log("gotenberg-js-client office landscape: ok");
}

(async () => {
  await chromiumly();
  await gotenbergJsClient();
})().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e));
  process.exit(1);
});
