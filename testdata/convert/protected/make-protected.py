# Rebuilds the password-protected files in this folder (password "calq") from
# corpus files, with LibreOffice over UNO. Needs Debian's python3-uno.
#
#   soffice -env:UserInstallation=file:///tmp/calq-prot --headless --norestore \
#       --accept="pipe,name=calqprot;urp;" &
#   cd testdata/convert && /usr/bin/python3 protected/make-protected.py calqprot calq protected
#
# OOXML is encrypted with ECMA-376 "Standard" encryption (an OLE2 file holding
# EncryptionInfo and EncryptedPackage streams); LibreOffice 7.4 fails to write
# "Agile". The binary formats get their own schemes (Word RC4 CryptoAPI, Excel
# FILEPASS), ODF the manifest's encryption-data. LibreOffice 7.4 cannot write
# an encrypted .ppt (it silently writes an unencrypted one), so there is none.
import os
import sys
import time

import uno
from com.sun.star.beans import NamedValue, PropertyValue

JOBS = [
    ("testWORD_various.doc", "protected.doc", "MS Word 97"),
    ("SampleSS.xls", "protected.xls", "MS Excel 97"),
    ("simple.odt", "protected.odt", "writer8"),
    ("SampleSS.xlsx", "protected.ods", "calc8"),
    ("cols.odp", "protected.odp", "impress8"),
    ("sample_3.docx", "protected.docx", "MS Word 2007 XML"),
    ("SampleSS.xlsx", "protected.xlsx", "Calc MS Excel 2007 XML"),
    ("sample.pptx", "protected.pptx", "Impress MS PowerPoint 2007 XML"),
]


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def named(name, value):
    p = NamedValue()
    p.Name, p.Value = name, value
    return p


def main():
    pipe, password, outdir = sys.argv[1:4]
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local)
    for _ in range(60):
        try:
            ctx = resolver.resolve(
                "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            break
        except Exception:
            time.sleep(1)
    desktop = ctx.ServiceManager.createInstanceWithContext(
        "com.sun.star.frame.Desktop", ctx)
    for src, name, filt in JOBS:
        doc = desktop.loadComponentFromURL(
            uno.systemPathToFileUrl(os.path.abspath(src)), "_blank", 0,
            (prop("Hidden", True),))
        if "2007" in filt:
            data = (named("OOXPassword", password), named("CryptoType", "Standard"))
            secret = prop("EncryptionData",
                          uno.Any("[]com.sun.star.beans.NamedValue", data))
        else:
            secret = prop("Password", password)
        out = uno.systemPathToFileUrl(os.path.join(os.path.abspath(outdir), name))
        uno.invoke(doc, "storeToURL", (out, (prop("FilterName", filt), secret)))
        doc.close(True)
        print("wrote", name)
    desktop.terminate()


if __name__ == "__main__":
    main()
