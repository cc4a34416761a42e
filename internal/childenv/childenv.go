// Package childenv builds the environments of the processes calq starts,
// so that its secrets (the PDF passwords of convert --encrypt, the SMTP
// password, a SIM PIN) reach none of them: a child's /proc/PID/environ is
// readable by the user's other processes, and a child may pass its
// environment on further.
//
// Programs calq drives (LibreOffice) get [Allowed]: only what they need,
// from an allow-list. Commands the user runs on purpose (calq sched run's
// jobs, calq sms recv --exec) get the user's environment [Without] calq's
// secrets.
package childenv

import "strings"

// allowed are the variables a helper program may see: where programs
// and libraries are, who and where the user is, language and time zone,
// fonts, and LibreOffice's own settings (SAL_*, OOO_*). Left out on
// purpose: the display and session bus (LibreOffice runs headless),
// proxies (its profile sets its own), LD_PRELOAD, and everything else,
// which may hold some other program's secret.
var allowed = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
	"LANG": true, "LANGUAGE": true, "TZ": true, "TZDIR": true,
	"TMPDIR": true, "TMP": true, "TEMP": true,
	"FONTCONFIG_FILE": true, "FONTCONFIG_PATH": true,
	"LD_LIBRARY_PATH": true, "JAVA_HOME": true,
	// For the copy of calq that guards each child (internal/proc) when
	// calq is built with the race detector or for coverage.
	"GORACE": true, "GOCOVERDIR": true,
}

var allowedPrefixes = []string{"LC_", "SAL_", "OOO_", "XDG_DATA_DIRS", "XDG_CONFIG_DIRS"}

// Allowed is environ (KEY=VALUE entries) keeping only the variables on
// the allow-list, and never a secret.
func Allowed(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if (allowed[k] || hasPrefix(k, allowedPrefixes)) && !Secret(k) {
			out = append(out, kv)
		}
	}
	return out
}

// Without is environ without calq's secrets: the variables Secret names
// and the ones in names (those that a config file names as holding a
// password or PIN, e.g. smtp.password_env).
func Without(environ []string, names ...string) []string {
	var out []string
outer:
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if Secret(k) {
			continue
		}
		for _, n := range names {
			if n != "" && k == n {
				continue outer
			}
		}
		out = append(out, kv)
	}
	return out
}

// Secret says whether the variable k is one of calq's secrets: a CALQ_
// variable whose name says password, PIN or PUK (CALQ_OWNER_PASSWORD,
// CALQ_USER_PASSWORD, CALQ_SMS_PIN, CALQ_SMTP_PASSWORD).
func Secret(k string) bool {
	if !strings.HasPrefix(k, "CALQ_") {
		return false
	}
	for _, part := range strings.Split(k, "_")[1:] {
		switch part {
		case "PASSWORD", "PASSWD", "SECRET", "TOKEN", "PIN", "PUK":
			return true
		}
	}
	return false
}

func hasPrefix(k string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}
