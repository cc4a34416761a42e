# Rebuilds the files in this folder: one small document for each ODF
# sub-type, flat XML format, OOXML template, macro-enabled and show variant
# and legacy template that LibreOffice writes, plus an HTML table saved as
# .xls. Each is made from scratch (no third-party content) and holds the line
# "calq sub-type NAME", so a test can find that text in its PDF. Needs
# Debian's python3-uno.
#
#   soffice -env:UserInstallation=file:///tmp/calq-sub --headless --norestore \
#       --accept="pipe,name=calqsub;urp;" &
#   /usr/bin/python3 testdata/convert/subtypes/make-subtypes.py calqsub testdata/convert/subtypes
#
# LibreOffice 7.4 cannot write .xlsb, nor macro-enabled templates (.dotm,
# .xltm, .potm: its "template" filters write a non-macro content type under
# those names), so there are none here.
import os
import sys
import time

import uno
from com.sun.star.awt import Point, Size
from com.sun.star.beans import PropertyValue

# (factory, [(file name, filter name)])
JOBS = [
    ("swriter", [
        ("text-template.ott", "writer8_template"),
        ("text-flat.fodt", "OpenDocument Text Flat XML"),
        ("word-macro.docm", "MS Word 2007 XML VBA"),
        ("word-template.dotx", "MS Word 2007 XML Template"),
        ("word97-template.dot", "MS Word 97 Vorlage"),
    ]),
    ("swriter/GlobalDocument", [("text-master.odm", "writerglobal8")]),
    ("swriter/web", [("text-web.oth", "writerweb8_writer_template")]),
    ("scalc", [
        ("spreadsheet-template.ots", "calc8_template"),
        ("spreadsheet-flat.fods", "OpenDocument Spreadsheet Flat XML"),
        ("excel-macro.xlsm", "Calc MS Excel 2007 VBA XML"),
        ("excel-template.xltx", "Calc MS Excel 2007 XML Template"),
        ("excel97-template.xlt", "MS Excel 97 Vorlage/Template"),
        # Calc's HTML export under .xls: what web applications' "Excel" exports are
        ("html-export.xls", "HTML (StarCalc)"),
    ]),
    ("simpress", [
        ("presentation-template.otp", "impress8_template"),
        ("presentation-flat.fodp", "OpenDocument Presentation Flat XML"),
        ("powerpoint-macro.pptm", "Impress MS PowerPoint 2007 XML VBA"),
        ("powerpoint-template.potx", "Impress MS PowerPoint 2007 XML Template"),
        ("powerpoint-show.ppsx", "Impress Office Open XML AutoPlay"),
        ("powerpoint97-template.pot", "MS PowerPoint 97 Vorlage"),
        ("powerpoint97-show.pps", "MS PowerPoint 97 AutoPlay"),
        # Impress's own ODF under a Draw name (what "--convert-to odg" of a presentation writes)
        ("presentation-named.odg", "impress8"),
    ]),
    ("sdraw", [
        ("drawing.odg", "draw8"),
        ("drawing-template.otg", "draw8_template"),
        ("drawing-flat.fodg", "OpenDocument Drawing Flat XML"),
    ]),
]


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def connect(pipe):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(60):
        try:
            ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            return ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        except Exception:
            time.sleep(0.5)
    sys.exit("no LibreOffice listening on pipe " + pipe)


def fill(doc, factory, text):
    if factory.startswith("swriter"):
        doc.Text.insertString(doc.Text.End, text, False)
    elif factory == "scalc":
        sheet = doc.Sheets.getByIndex(0)
        sheet.getCellByPosition(0, 0).String = text
        sheet.getCellByPosition(0, 1).Value = 42
    else:
        page = doc.DrawPages.getByIndex(0)
        shape = doc.createInstance("com.sun.star.drawing.TextShape")
        page.add(shape)
        shape.Size = Size(15000, 3000)
        shape.Position = Point(2000, 2000)
        shape.String = text


def main():
    pipe, outdir = sys.argv[1], sys.argv[2]
    desktop = connect(pipe)
    for factory, outputs in JOBS:
        for name, filt in outputs:
            doc = desktop.loadComponentFromURL("private:factory/" + factory, "_blank", 0, (prop("Hidden", True),))
            fill(doc, factory, "calq sub-type " + name)
            path = os.path.abspath(os.path.join(outdir, name))
            doc.storeToURL(uno.systemPathToFileUrl(path), (prop("FilterName", filt),))
            doc.close(True)
            print("wrote", path)


main()
