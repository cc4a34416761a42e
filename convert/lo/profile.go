package lo

import (
	"crypto/md5"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"calq/internal/childenv"
)

// setting is one configuration value written into a profile.
type setting struct{ path, prop, typ, value string }

// hardening are the settings every profile gets, rewritten at each start
// so that nothing a document or LibreOffice did can loosen them.
var hardening = []setting{
	// No macros: level 3 ("very high") runs only macros from trusted
	// locations, and there are none; execution is off altogether as well.
	{"/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "xs:int", "3"},
	{"/org.openoffice.Office.Common/Security/Scripting", "DisableMacrosExecution", "xs:boolean", "true"},
	{"/org.openoffice.Office.Common/Security/Scripting", "SecureURL", "oor:string-list", ""},
	// No fetching of linked content: a document outside the (empty) list
	// of trusted locations may not pull linked images, sections or
	// fields, whether file: or http(s): (measured: the only setting that
	// also stops local file links).
	{"/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", "xs:boolean", "true"},
	// Never update links when loading: Writer 0 = never, Calc 1 = never.
	{"/org.openoffice.Office.Writer/Content/Update", "Link", "xs:int", "0"},
	{"/org.openoffice.Office.Calc/Content/Update", "Link", "xs:int", "1"},
	// A second line for http(s): every request goes to a proxy on the
	// discard port of loopback, where nothing listens, with no exceptions.
	{"/org.openoffice.Inet/Settings", "ooInetProxyType", "xs:int", "2"},
	{"/org.openoffice.Inet/Settings", "ooInetHTTPProxyName", "xs:string", "127.0.0.1"},
	{"/org.openoffice.Inet/Settings", "ooInetHTTPProxyPort", "xs:int", "9"},
	{"/org.openoffice.Inet/Settings", "ooInetHTTPSProxyName", "xs:string", "127.0.0.1"},
	{"/org.openoffice.Inet/Settings", "ooInetHTTPSProxyPort", "xs:int", "9"},
	{"/org.openoffice.Inet/Settings", "ooInetFTPProxyName", "xs:string", "127.0.0.1"},
	{"/org.openoffice.Inet/Settings", "ooInetFTPProxyPort", "xs:int", "9"},
	{"/org.openoffice.Inet/Settings", "ooInetNoProxy", "xs:string", ""},
	// Quiet and lean: no first-run work, autosave or recovery data.
	{"/org.openoffice.Office.Common/Misc", "FirstRun", "xs:boolean", "false"},
	{"/org.openoffice.Office.Common/Misc", "ShowTipOfTheDay", "xs:boolean", "false"},
	{"/org.openoffice.Office.Recovery/AutoSave", "Enabled", "xs:boolean", "false"},
	{"/org.openoffice.Office.Recovery/RecoveryInfo", "Enabled", "xs:boolean", "false"},
	{"/org.openoffice.Office.Common/Save/Document", "CreateBackup", "xs:boolean", "false"},
}

// registry renders settings as a registrymodifications.xcu.
func registry(settings []setting) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` + "\n")
	for _, s := range settings {
		value := "<value>" + xmlEscape(s.value) + "</value>"
		if s.typ == "oor:string-list" && s.value == "" {
			value = "<value/>"
		}
		fmt.Fprintf(&b, `<item oor:path="%s"><prop oor:name="%s" oor:op="fuse" oor:type="%s">%s</prop></item>`+"\n",
			xmlEscape(s.path), s.prop, s.typ, value)
	}
	b.WriteString("</oor:items>\n")
	return []byte(b.String())
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}

// keepDoc is the flat ODF text document an instance holds open: without
// one, an instance exits after the first conversion handed to it.
const keepDoc = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text><text:p>calq keeps this LibreOffice instance warm.</text:p></office:text></office:body></office:document>
`

// layout names the parts of an instance's state directory.
type layout struct{ dir string }

func (l layout) profile() string  { return filepath.Join(l.dir, "profile") }
func (l layout) home() string     { return filepath.Join(l.dir, "home") }
func (l layout) tmp() string      { return filepath.Join(l.dir, "tmp") }
func (l layout) keep() string     { return filepath.Join(l.dir, "keep", "keep.fodt") }
func (l layout) keepLock() string { return filepath.Join(l.dir, "keep", ".~lock.keep.fodt#") }
func (l layout) work() string     { return filepath.Join(l.dir, "work") }
func (l layout) pipeName() string { return filepath.Join(l.dir, "uno-pipe") }
func (l layout) registry() string {
	return filepath.Join(l.profile(), "user", "registrymodifications.xcu")
}

// profileURL is the -env:UserInstallation value.
func (l layout) profileURL() string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(l.profile())}).String()
}

// prepare creates the directories and writes the hardened settings and
// the keep-alive document, removing the stale lock files a killed
// instance leaves (with a lock on the keep-alive document the new
// instance cannot open it and exits at once).
func (l layout) prepare(settings []setting) error {
	// A profile kept between runs keeps nothing of a run's documents.
	if err := os.RemoveAll(l.tmp()); err != nil {
		return err
	}
	for _, d := range []string{filepath.Dir(l.registry()), l.home(), l.tmp(), filepath.Dir(l.keep())} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	for _, stale := range []string{l.keepLock(), filepath.Join(l.profile(), "user", ".lock")} {
		if err := os.Remove(stale); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if err := os.RemoveAll(l.work()); err != nil {
		return err
	}
	if err := os.WriteFile(l.registry(), registry(settings), 0o600); err != nil {
		return err
	}
	return os.WriteFile(l.keep(), []byte(keepDoc), 0o600)
}

// pipePath is the socket through which clients reach the instance of
// profile URL u: /tmp/OSL_PIPE_<uid>_SingleOfficeIPC_<hash>, where hash is
// the MD5 of the URL in UTF-16LE, each byte in hex without padding (as
// LibreOffice's desktop module computes it). A SIGKILLed instance leaves
// it behind.
func pipePath(u string) string {
	var utf16le []byte
	for _, c := range utf16.Encode([]rune(u)) {
		utf16le = append(utf16le, byte(c), byte(c>>8))
	}
	var hash strings.Builder
	for _, b := range md5.Sum(utf16le) {
		hash.WriteString(strconv.FormatUint(uint64(b), 16))
	}
	return fmt.Sprintf("/tmp/OSL_PIPE_%d_SingleOfficeIPC_%s", os.Getuid(), hash.String())
}

// instanceEnv is calq's environment for an instance: the variables on
// internal/childenv's allow-list (no password reaches LibreOffice), its
// own HOME and TMPDIR, a UTF-8 locale for non-ASCII names, no display, no proxy
// variables (the profile sets the proxy), XDG directories under HOME.
func instanceEnv(environ []string, home, tmp string) []string {
	drop := func(k string) bool {
		switch k {
		case "HOME", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE", "DISPLAY", "WAYLAND_DISPLAY",
			"SAL_USE_VCLPLUGIN", "SESSION_MANAGER", "DBUS_SESSION_BUS_ADDRESS":
			return true
		}
		lk := strings.ToLower(k)
		return strings.HasPrefix(k, "LC_") || strings.HasPrefix(k, "XDG_") || strings.HasSuffix(lk, "_proxy")
	}
	env := make([]string, 0, len(environ)+4)
	for _, kv := range childenv.Allowed(environ) {
		k, _, _ := strings.Cut(kv, "=")
		if !drop(k) {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "TMPDIR="+tmp, "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
}
