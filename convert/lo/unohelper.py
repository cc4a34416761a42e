# calq's UNO helper: converts documents to PDF on one running LibreOffice
# instance, one request at a time, for calq/convert/lo (see uno.go there).
#
# Usage: python3 unohelper.py UNO-URL DEADLINE-SECONDS
#
# It runs under umask 077 (its files are for calq's user alone), connects
# to the instance at UNO-URL (backing off until the deadline),
# prints {"ready": true}, then reads one JSON request per line on stdin,
#   {"in": PATH, "out": PATH, "infilter": NAME, "pdfa": 0..3, "lossless": BOOL,
#    "filter": [{"name": N, "type": "boolean"|"long"|"string", "value": TEXT}...],
#    "landscape": BOOL, "password": TEXT}
# (filter entries replace those pdfa and lossless set; all but in and out
# may be left out) and answers each with one JSON line on stdout,
#   {"ok": true} or
#   {"ok": false, "stage": "load"|"password"|"export"|"connection", "error": TEXT}
# It exits at end of input, or with status 3 when the connection to the
# instance is lost. Nothing else is printed on stdout.
import json
import os
import sys
import threading
import time

# Whatever the helper or the bridge creates is for calq's user alone.
os.umask(0o077)

import uno
import unohelper
from com.sun.star.awt import XCallback
from com.sun.star.beans import PropertyValue
from com.sun.star.task import XInteractionHandler


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def connect(url, deadline):
    """Returns the instance's component context and desktop."""
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local)
    # calq checked the pipe before starting the helper: a failure is
    # rare, so back off (20 ms doubling to 1 s) rather than hammer it.
    pause = 0.02
    while True:
        try:
            ctx = resolver.resolve(url)
            return ctx, ctx.ServiceManager.createInstanceWithContext(
                "com.sun.star.frame.Desktop", ctx)
        except Exception:
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 1.0)


class MainThreadJob(unohelper.Base, XCallback):
    """A function LibreOffice calls back on its main thread.

    A UNO call from this process runs on one of the bridge's threads in
    LibreOffice, which then hands work to its main thread and back, and
    lets the main loop run its idle jobs between calls: about 10 % more of
    LibreOffice's CPU per document than a conversion by soffice
    --convert-to, which runs on the main thread (measured on 20 documents
    of 15 pages). Called back through com.sun.star.awt.AsyncCallback, the
    function's own UNO calls carry the main thread's identity, so
    LibreOffice runs them there, as --convert-to does.
    """

    def __init__(self, fn):
        self.fn = fn
        self.result = None
        self.exc = None
        self.done = threading.Event()

    def notify(self, data):
        try:
            self.result = self.fn()
        except Exception as e:
            self.exc = e
        finally:
            self.done.set()


def on_main_thread(callback, fn):
    """Runs fn on LibreOffice's main thread when callback (an
    AsyncCallback) is there, else here."""
    if callback is None:
        return fn()
    job = MainThreadJob(fn)
    callback.addCallback(job, None)
    job.done.wait()
    if job.exc is not None:
        raise job.exc
    return job.result


# The PDF export filter of the module a document opened in, checked in
# this order (a presentation is also a drawing, a web page also text).
EXPORT = [
    ("com.sun.star.text.WebDocument", "writer_web_pdf_Export"),
    ("com.sun.star.text.GenericTextDocument", "writer_pdf_Export"),
    ("com.sun.star.sheet.SpreadsheetDocument", "calc_pdf_Export"),
    ("com.sun.star.presentation.PresentationDocument", "impress_pdf_Export"),
    ("com.sun.star.drawing.DrawingDocument", "draw_pdf_Export"),
    ("com.sun.star.formula.FormulaProperties", "math_pdf_Export"),
]


def export_filter(doc):
    for service, name in EXPORT:
        if doc.supportsService(service):
            return name
    return None


def is_disposed(e):
    # The instance died or dropped the connection: nothing more can be done
    # on it.
    return type(e).__name__ == "DisposedException" or "URP bridge" in str(e)


def filter_data(req):
    """The PDF export filter's FilterData for req: PDF/A, then req's
    filter entries, each replacing one of the same name."""
    data = []
    if req.get("pdfa"):
        data.append(prop("SelectPdfVersion", int(req["pdfa"])))
    if req.get("lossless"):
        data.append(prop("UseLosslessCompression", True))
        data.append(prop("ReduceImageResolution", False))
    for entry in req.get("filter") or []:
        value = entry["value"]
        if entry["type"] == "boolean":
            value = value == "true"
        elif entry["type"] == "long":
            value = int(value)
        data = [p for p in data if p.Name != entry["name"]]
        data.append(prop(entry["name"], value))
    return data


class PasswordProbe(unohelper.Base, XInteractionHandler):
    """An interaction handler that notes whether LibreOffice asked for a
    password, and answers every request by aborting it when it can (a
    request it cannot abort is left unanswered, as without a handler)."""

    def __init__(self):
        self.asked = False

    def handle(self, request):
        for c in request.getContinuations():
            names = [t.typeName for t in c.getTypes()]
            if any(n.startswith("com.sun.star.task.XInteractionPassword") for n in names):
                self.asked = True
        for c in request.getContinuations():
            if "com.sun.star.task.XInteractionAbort" in [t.typeName for t in c.getTypes()]:
                c.select()
                return


def wants_password(desktop, url, load):
    """Whether the document at url asks for a password when loaded with
    load (no Password): LibreOffice fails a wrong password as it fails a
    broken file, without asking, so a failed load with a password is
    tried again this way to tell them apart."""
    probe = PasswordProbe()
    try:
        doc = desktop.loadComponentFromURL(url, "_blank", 0, tuple(load + [prop("InteractionHandler", probe)]))
    except Exception as e:
        if is_disposed(e):
            raise
        doc = None
    if doc is not None:
        close(doc)
    return probe.asked


def landscape(doc):
    """Turns doc's portrait pages to landscape: the page styles of a text
    document or spreadsheet (flagged landscape, width and height
    swapped), the pages of a presentation or drawing (size swapped; the
    content stays where it is)."""
    if doc.supportsService("com.sun.star.text.GenericTextDocument") or \
            doc.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
        styles = doc.getStyleFamilies().getByName("PageStyles")
        for name in styles.getElementNames():
            style = styles.getByName(name)
            width, height = style.Width, style.Height
            if width < height:
                style.IsLandscape = True
                style.Width, style.Height = height, width
        return
    if doc.supportsService("com.sun.star.drawing.GenericDrawingDocument"):
        pages = doc.getDrawPages()
        for i in range(pages.getCount()):
            page = pages.getByIndex(i)
            width, height = page.Width, page.Height
            if width < height:
                page.Width, page.Height = height, width


def update_indexes(doc):
    """Refreshes a text document's indexes (tables of contents...): their
    entries and page numbers as LibreOffice lays the document out."""
    if not doc.supportsService("com.sun.star.text.GenericTextDocument"):
        return
    indexes = doc.getDocumentIndexes()
    for i in range(indexes.getCount()):
        indexes.getByIndex(i).update()


def close(doc):
    try:
        doc.close(True)
    except Exception:
        try:
            doc.dispose()
        except Exception:
            pass


def convert(desktop, req):
    load = [
        prop("Hidden", True),
        prop("ReadOnly", True),
        # Never run a macro, never update a link, never ask: the profile
        # says the same, this holds whatever the profile says.
        prop("MacroExecutionMode", 0),   # NEVER_EXECUTE
        prop("UpdateDocMode", 0),        # NO_UPDATE
    ]
    if req.get("infilter"):
        load.append(prop("FilterName", req["infilter"]))
    url = uno.systemPathToFileUrl(req["in"])
    password = req.get("password")
    try:
        doc = desktop.loadComponentFromURL(url, "_blank", 0, tuple(load + ([prop("Password", password)] if password else [])))
    except Exception as e:
        if is_disposed(e):
            raise
        doc, failure = None, "source file could not be loaded: %s" % (e,)
    else:
        failure = "source file could not be loaded"
    if doc is None:
        if password and wants_password(desktop, url, load):
            return {"ok": False, "stage": "password", "error": "the password does not open the document"}
        return {"ok": False, "stage": "load", "error": failure}
    try:
        name = export_filter(doc)
        if name is None:
            return {"ok": False, "stage": "export", "error": "no PDF export for this kind of document"}
        data = filter_data(req)
        store = [prop("FilterName", name), prop("Overwrite", True)]
        if data:
            store.append(prop("FilterData", uno.Any("[]com.sun.star.beans.PropertyValue", tuple(data))))
        try:
            if req.get("landscape"):
                landscape(doc)
            if req.get("updateIndexes"):
                update_indexes(doc)
            doc.storeToURL(uno.systemPathToFileUrl(req["out"]), tuple(store))
        except Exception as e:
            if is_disposed(e):
                raise
            ranges = [f["value"] for f in req.get("filter") or [] if f["name"] == "PageRange"]
            if ranges:
                # LibreOffice 7.4 fails a range past the last page so.
                return {"ok": False, "stage": "export",
                        "error": "export failed; does the page range %s name a page of the document? %s" % (ranges[0], e)}
            return {"ok": False, "stage": "export", "error": "export failed: %s" % (e,)}
        return {"ok": True}
    finally:
        close(doc)


def main():
    url, deadline = sys.argv[1], time.monotonic() + float(sys.argv[2])
    out = sys.stdout
    try:
        ctx, desktop = connect(url, deadline)
    except Exception as e:
        print(json.dumps({"ready": False, "error": str(e)}), file=out, flush=True)
        return 3
    try:
        callback = ctx.ServiceManager.createInstanceWithContext("com.sun.star.awt.AsyncCallback", ctx)
    except Exception:
        callback = None
    print(json.dumps({"ready": True}), file=out, flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as e:
            print(json.dumps({"ok": False, "stage": "request", "error": str(e)}), file=out, flush=True)
            continue
        try:
            reply = on_main_thread(callback, lambda: convert(desktop, req))
        except Exception as e:
            print(json.dumps({"ok": False, "stage": "connection", "error": str(e)}), file=out, flush=True)
            return 3
        print(json.dumps(reply), file=out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
