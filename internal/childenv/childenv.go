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
//
// calq's secrets are the variables [Secret] names (CALQ_*PASSWORD*, ...),
// the ones [Hide] adds for the run (those its config file names, libpq's
// with a PostgreSQL --db), and the password of the database address in
// CALQ_DB, which a child gets without it. calq calls Hide once, before it
// starts any child; internal/proc applies Without to every child it
// starts, so no caller has to pass the names on. All functions are safe
// for concurrent use and cost one pass over the environment.
package childenv

import (
	"strings"
	"sync/atomic"

	"calq/internal/dburl"
)

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
		if (allowed[k] || hasPrefix(k, allowedPrefixes)) && !Secret(k) && !hidden(k) {
			out = append(out, kv)
		}
	}
	return out
}

// Without is environ without calq's secrets: the variables Secret names,
// those Hide named, and the ones in names; CALQ_DB, when it is a
// database address with a password, is kept without the password.
func Without(environ []string, names ...string) []string {
	var out []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case Secret(k) || hidden(k) || k != "" && contains(names, k):
			continue
		case k == "CALQ_DB" && dburl.HasPassword(v):
			kv = k + "=" + dburl.WithoutPassword(v)
		}
		out = append(out, kv)
	}
	return out
}

// hiddenNames are the names of Hide's latest call.
var hiddenNames atomic.Pointer[[]string]

// Hide makes the variables names secret for this process from now on,
// beside those Secret names: the ones a config file names as holding a
// password or PIN (smtp.password_env, a modem's pin_env), libpq's
// PGPASSWORD when calq uses PostgreSQL. Each call replaces the names of
// the one before: calq calls it once, before it starts a child.
func Hide(names ...string) {
	var ns []string
	for _, n := range names {
		if n != "" {
			ns = append(ns, n)
		}
	}
	hiddenNames.Store(&ns)
}

func hidden(k string) bool {
	p := hiddenNames.Load()
	return p != nil && contains(*p, k)
}

func contains(names []string, k string) bool {
	for _, n := range names {
		if n == k {
			return true
		}
	}
	return false
}

// Secret says whether the variable k is one of calq's secrets: a CALQ_
// variable whose name says password, PIN, PUK or key (CALQ_OWNER_PASSWORD,
// CALQ_USER_PASSWORD, CALQ_SMS_PIN, CALQ_SMTP_PASSWORD, CALQ_SERVER_KEY).
func Secret(k string) bool {
	if !strings.HasPrefix(k, "CALQ_") {
		return false
	}
	for _, part := range strings.Split(k, "_")[1:] {
		switch part {
		case "PASSWORD", "PASSWD", "SECRET", "TOKEN", "PIN", "PUK", "KEY":
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
