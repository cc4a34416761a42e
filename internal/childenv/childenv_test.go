package childenv

import (
	"slices"
	"testing"
)

var environ = []string{
	"PATH=/usr/bin", "HOME=/home/a", "LANG=de_DE.UTF-8", "LC_ALL=C", "TZ=UTC", "SAL_LOG=-INFO",
	"CALQ_OWNER_PASSWORD=o", "CALQ_USER_PASSWORD=u", "CALQ_SMS_PIN=1234", "CALQ_SMTP_PASSWORD=s",
	"CALQ_DB=/tmp/j.db", "MY_SMTP_PASS=x", "AWS_SECRET_ACCESS_KEY=k", "DISPLAY=:0", "CALQ_PINNED=1",
	"LD_PRELOAD=/tmp/x.so", "http_proxy=http://u:p@proxy:3128", "LC_TIME=de_DE.UTF-8", "PATHX=/nope",
}

func TestAllowed(t *testing.T) {
	got := Allowed(environ)
	want := []string{"PATH=/usr/bin", "HOME=/home/a", "LANG=de_DE.UTF-8", "LC_ALL=C", "TZ=UTC", "SAL_LOG=-INFO", "LC_TIME=de_DE.UTF-8"}
	if !slices.Equal(got, want) {
		t.Errorf("Allowed = %q, want %q", got, want)
	}
}

func TestWithout(t *testing.T) {
	got := Without(environ, "MY_SMTP_PASS", "")
	for _, kv := range got {
		switch kv {
		case "CALQ_OWNER_PASSWORD=o", "CALQ_USER_PASSWORD=u", "CALQ_SMS_PIN=1234", "CALQ_SMTP_PASSWORD=s", "MY_SMTP_PASS=x":
			t.Errorf("Without kept the secret %s", kv)
		}
	}
	for _, kv := range []string{"PATH=/usr/bin", "CALQ_DB=/tmp/j.db", "AWS_SECRET_ACCESS_KEY=k", "DISPLAY=:0", "CALQ_PINNED=1"} {
		if !slices.Contains(got, kv) {
			t.Errorf("Without dropped %s, which is the user's, not calq's", kv)
		}
	}
}

func TestSecret(t *testing.T) {
	for k, want := range map[string]bool{
		"CALQ_OWNER_PASSWORD": true, "CALQ_USER_PASSWORD": true, "CALQ_SMS_PIN": true, "CALQ_SIM_PUK": true,
		"CALQ_SMTP_PASSWORD": true, "CALQ_API_TOKEN": true, "CALQ_DB": false, "CALQ_PINNED": false,
		"PASSWORD": false, "CALQ_CONFIG": false,
	} {
		if got := Secret(k); got != want {
			t.Errorf("Secret(%s) = %v, want %v", k, got, want)
		}
	}
}
