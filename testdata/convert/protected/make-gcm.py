# Writes an ODF package encrypted as LibreOffice 7.5 and later can (each
# entry deflated, then AES-256-GCM; PBKDF2 with HMAC-SHA1 over the
# password's SHA-256), password "calq": an encryption LibreOffice 7.4 does
# not know. Needs Python's cryptography (Debian's python3-cryptography).
#
#   python3 make-gcm.py ../simple.odt gcm.odt
import base64, hashlib, os, sys, zipfile, zlib
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

src, out, password = sys.argv[1], sys.argv[2], "calq"
start = hashlib.sha256(password.encode()).digest()
zin = zipfile.ZipFile(src)
entries, manifest = [], []
for info in zin.infolist():
    name = info.filename
    data = zin.read(name)
    if name in ("mimetype", "META-INF/manifest.xml") or name.endswith("/"):
        continue
    salt, iv = os.urandom(16), os.urandom(12)
    key = hashlib.pbkdf2_hmac("sha1", start, salt, 100000, 32)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = c.compress(data) + c.flush()
    entries.append((name, AESGCM(key).encrypt(iv, packed, None)))
    media = "text/xml" if name.endswith(".xml") else ""
    manifest.append(
        f' <manifest:file-entry manifest:full-path="{name}" manifest:media-type="{media}" manifest:size="{len(data)}">\n'
        f'  <manifest:encryption-data>\n'
        f'   <manifest:algorithm manifest:algorithm-name="http://www.w3.org/2009/xmlenc11#aes256-gcm" manifest:initialisation-vector="{base64.b64encode(iv).decode()}"/>\n'
        f'   <manifest:start-key-generation manifest:start-key-generation-name="http://www.w3.org/2000/09/xmldsig#sha256" manifest:key-size="32"/>\n'
        f'   <manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32" manifest:iteration-count="100000" manifest:salt="{base64.b64encode(salt).decode()}"/>\n'
        f'  </manifest:encryption-data>\n'
        f' </manifest:file-entry>\n')
mf = ('<?xml version="1.0" encoding="UTF-8"?>\n'
      '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">\n'
      ' <manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="application/vnd.oasis.opendocument.text"/>\n'
      + "".join(manifest) + '</manifest:manifest>\n')
with zipfile.ZipFile(out, "w") as z:
    z.writestr(zipfile.ZipInfo("mimetype"), zin.read("mimetype"), compress_type=zipfile.ZIP_STORED)
    for name, blob in entries:
        z.writestr(zipfile.ZipInfo(name), blob, compress_type=zipfile.ZIP_STORED)
    z.writestr(zipfile.ZipInfo("META-INF/manifest.xml"), mf, compress_type=zipfile.ZIP_DEFLATED)
