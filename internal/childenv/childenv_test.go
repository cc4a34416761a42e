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
		"CALQ_SMTP_PASSWORD": true, "CALQ_API_TOKEN": true, "CALQ_SERVER_KEY": true, "CALQ_KEYWORDS": false, "CALQ_DB": false, "CALQ_PINNED": false,
		"PASSWORD": false, "CALQ_CONFIG": false,
	} {
		if got := Secret(k); got != want {
			t.Errorf("Secret(%s) = %v, want %v", k, got, want)
		}
	}
}

// TestHide: the names of the run's config (pin_env, password_env) and
// libpq's password variable reach neither kind of child once hidden, and
// a later Hide replaces them.
func TestHide(t *testing.T) {
	env := []string{"PATH=/usr/bin", "GSM1_PIN=4711", "MAIL_PW=smtp", "PGPASSWORD=pg", "TZ=UTC", "KEEP=1"}
	t.Cleanup(func() { Hide() })
	Hide("GSM1_PIN", "MAIL_PW", "PGPASSWORD", "TZ", "")
	for name, got := range map[string][]string{"Without": Without(env), "Allowed": Allowed(env)} {
		for _, kv := range got {
			switch kv {
			case "GSM1_PIN=4711", "MAIL_PW=smtp", "PGPASSWORD=pg", "TZ=UTC":
				t.Errorf("%s kept the hidden %s", name, kv)
			}
		}
		if !slices.Contains(got, "PATH=/usr/bin") {
			t.Errorf("%s = %q, want PATH kept", name, got)
		}
	}
	if got := Without(env); !slices.Contains(got, "KEEP=1") {
		t.Errorf("Without = %q, want KEEP=1 kept", got)
	}
	Hide("KEEP")
	got := Without(env)
	if slices.Contains(got, "KEEP=1") || !slices.Contains(got, "GSM1_PIN=4711") {
		t.Errorf("after Hide(KEEP): Without = %q, want KEEP dropped and GSM1_PIN no longer hidden", got)
	}
}

// TestWithoutDBPassword: CALQ_DB reaches a job without the password of
// the PostgreSQL address it holds, in either of libpq's forms.
func TestWithoutDBPassword(t *testing.T) {
	for in, want := range map[string]string{
		"CALQ_DB=postgres://calq:s3cret@db/calq":                "CALQ_DB=postgres://calq@db/calq",
		"CALQ_DB=host=db user=calq password='s3 cret' dbname=q": "CALQ_DB=host=db user=calq dbname=q",
		"CALQ_DB=/tmp/j.db":                                     "CALQ_DB=/tmp/j.db",
		"CALQ_DB=host=db password='s3cret":                      "CALQ_DB=host=db",
	} {
		if got := Without([]string{"PATH=/bin", in}); !slices.Equal(got, []string{"PATH=/bin", want}) {
			t.Errorf("Without(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Allowed([]string{"CALQ_DB=postgres://calq:s3cret@db/calq"}); len(got) != 0 {
		t.Errorf("Allowed kept %q", got)
	}
}
