package users

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"calq/internal/testclock"
)

func TestValidatePassword(t *testing.T) {
	tests := []struct{ name, pw, err string }{
		{"8 ascii", "abcdefgh", ""},
		{"8 runes, more bytes", "éééééééé", ""},
		{"spaces inside", "correct horse battery", ""},
		{"1024 bytes", strings.Repeat("x", 1024), ""},
		{"empty", "", "invalid password: the password is shorter than 8 characters"},
		{"7 chars", "abcdefg", "invalid password: the password is shorter than 8 characters"},
		{"7 runes in 14 bytes", "ééééééé", "invalid password: the password is shorter than 8 characters"},
		{"1025 bytes", strings.Repeat("x", 1025), "invalid password: the password is longer than 1024 bytes"},
		{"NUL", "abcd\x00efgh", "invalid password: the password contains a control character"},
		{"newline", "abcdefgh\n", "invalid password: the password contains a control character"},
		{"DEL", "abcdefgh\x7f", "invalid password: the password contains a control character"},
		{"C1 control", "abcdefgh\u0085", "invalid password: the password contains a control character"},
		{"latin-1", "abcdefgh\xe9", "invalid password: the password is not UTF-8 text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidatePassword(tt.pw)
			if errString(err) != tt.err || (err != nil && !errors.Is(err, ErrInvalidPassword)) {
				t.Errorf("ValidatePassword() = %v, want %q wrapping ErrInvalidPassword", err, tt.err)
			}
		})
	}
}

func TestHashPassword(t *testing.T) {
	h1, err := hashPassword("correct horse")
	must(t, err)
	h2, err := hashPassword("correct horse")
	must(t, err)
	if h1 == h2 {
		t.Errorf("two hashes of one password are equal (%s): the salt is not random", h1)
	}
	if want := "$argon2id$v=19$m=19456,t=1,p=1$"; !strings.HasPrefix(h1, want) || len(h1) != len(want)+22+1+43 {
		t.Errorf("hashPassword() = %q, want %s, 22 characters of salt, $ and 43 of hash", h1, want)
	}
	for _, tt := range []struct {
		pw   string
		want bool
	}{{"correct horse", true}, {"correct horsE", false}, {"correct horse ", false}, {"", false}} {
		if ok, err := verifyPassword(h1, tt.pw); ok != tt.want || err != nil {
			t.Errorf("verifyPassword(%q) = %v, %v, want %v", tt.pw, ok, err, tt.want)
		}
	}
	// A hash made with other parameters stays valid: they are in it.
	p := argonParams{memory: 64, time: 2, threads: 2}
	salt := []byte("0123456789abcdef")
	old := formatPHC(p, salt, argonHash("pw", p, salt, 16))
	if ok, err := verifyPassword(old, "pw"); !ok || err != nil {
		t.Errorf("verifyPassword(%s) = %v, %v, want true", old, ok, err)
	}
}

func TestParsePHCStrict(t *testing.T) {
	const salt, key = "MDEyMzQ1Njc4OWFiY2RlZg", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY"
	good := "$argon2id$v=19$m=19456,t=1,p=1$" + salt + "$" + key
	if _, _, _, err := parsePHC(good); err != nil {
		t.Fatalf("parsePHC(%s) = %v", good, err)
	}
	for name, phc := range map[string]string{
		"empty":             "",
		"argon2i":           "$argon2i$v=19$m=19456,t=1,p=1$" + salt + "$" + key,
		"version 16":        "$argon2id$v=16$m=19456,t=1,p=1$" + salt + "$" + key,
		"no version":        "$argon2id$m=19456,t=1,p=1$" + salt + "$" + key,
		"params reordered":  "$argon2id$v=19$t=1,m=19456,p=1$" + salt + "$" + key,
		"param missing":     "$argon2id$v=19$m=19456,t=1$" + salt + "$" + key,
		"param extra":       "$argon2id$v=19$m=19456,t=1,p=1,x=1$" + salt + "$" + key,
		"leading zero":      "$argon2id$v=19$m=019456,t=1,p=1$" + salt + "$" + key,
		"plus sign":         "$argon2id$v=19$m=+19456,t=1,p=1$" + salt + "$" + key,
		"no threads":        "$argon2id$v=19$m=19456,t=1,p=0$" + salt + "$" + key,
		"no passes":         "$argon2id$v=19$m=19456,t=0,p=1$" + salt + "$" + key,
		"many passes":       "$argon2id$v=19$m=19456,t=17,p=1$" + salt + "$" + key,
		"2 GiB":             "$argon2id$v=19$m=2097152,t=1,p=1$" + salt + "$" + key,
		"memory < 8 lanes":  "$argon2id$v=19$m=15,t=1,p=2$" + salt + "$" + key,
		"padded salt":       "$argon2id$v=19$m=19456,t=1,p=1$" + salt + "==$" + key,
		"url base64":        "$argon2id$v=19$m=19456,t=1,p=1$" + salt + "$" + strings.Replace(key, "M", "_", 1),
		"short salt":        "$argon2id$v=19$m=19456,t=1,p=1$MDEy$" + key,
		"short hash":        "$argon2id$v=19$m=19456,t=1,p=1$" + salt + "$MDEyMzQ1Njc4",
		"trailing field":    good + "$",
		"no leading dollar": good[1:],
		"space":             good + " ",
	} {
		if _, _, _, err := parsePHC(phc); !errors.Is(err, errPHC) {
			t.Errorf("parsePHC(%s: %q) error = %v, want errPHC", name, phc, err)
		}
	}
}

func TestPasswords(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
	for _, name := range []string{"alice", "bob"} {
		_, err := s.Add(ctx, User{Name: name})
		must(t, err)
	}
	key, err := s.NewKey(ctx, "alice")
	must(t, err)
	must(t, s.SetPassword(ctx, "alice", "correct horse"))
	if u, err := s.Get(ctx, "alice"); err != nil || !u.Password || u.Disabled {
		t.Errorf("Get(alice) = %+v, %v, want a password, enabled", u, err)
	}

	steps := []struct {
		name     string
		op       func() error
		user, pw string
		is       error // of CheckPassword(user, pw) after op
		msg      string
	}{
		{"right", nil, "alice", "correct horse", nil, ""},
		{"wrong", nil, "alice", "correct hors", ErrBadPassword, `check password of user "alice": wrong user name or password`},
		{"unknown user", nil, "carol", "correct horse", ErrBadPassword, `check password: wrong user name or password: no such user`},
		{"no password", nil, "bob", "", ErrBadPassword, `check password of user "bob": wrong user name or password`},
		{"too short", func() error { return s.SetPassword(ctx, "alice", "short") }, "alice", "correct horse", nil, ""},
		{"new password", func() error { return s.SetPassword(ctx, "alice", "battery staple") }, "alice", "correct horse", ErrBadPassword, `check password of user "alice": wrong user name or password`},
		{"new one works", nil, "alice", "battery staple", nil, ""},
		{"disabled, right", func() error { return s.SetDisabled(ctx, "alice", true) }, "alice", "battery staple", ErrDisabled, `check password of user "alice": user is disabled`},
		{"disabled, wrong", nil, "alice", "correct horse", ErrBadPassword, `check password of user "alice": wrong user name or password`},
		{"enabled again", func() error { return s.SetDisabled(ctx, "alice", false) }, "alice", "battery staple", nil, ""},
	}
	for _, st := range steps {
		if st.op != nil {
			err := st.op()
			if st.name == "too short" {
				if !errors.Is(err, ErrInvalidPassword) || err.Error() != `set password of user "alice": invalid password: the password is shorter than 8 characters` {
					t.Errorf("%s: SetPassword error = %v, want ErrInvalidPassword", st.name, err)
				}
			} else if err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
		u, err := s.CheckPassword(ctx, st.user, st.pw)
		switch {
		case st.is == nil && (err != nil || u.Name != st.user || !u.Password):
			t.Errorf("%s: CheckPassword(%s) = %+v, %v, want the user", st.name, st.user, u, err)
		case st.is != nil && (!errors.Is(err, st.is) || err.Error() != st.msg || u != User{}):
			t.Errorf("%s: CheckPassword(%s) = %+v, %v, want %q", st.name, st.user, u, err, st.msg)
		}
	}

	// A disabled user's keys stop working, and work again once enabled.
	must(t, s.SetDisabled(ctx, "alice", true))
	if u, err := s.Authenticate(ctx, key); !errors.Is(err, ErrDisabled) || u != (User{}) {
		t.Errorf("Authenticate(disabled alice's key) = %+v, %v, want ErrDisabled", u, err)
	}
	if us, err := s.List(ctx); err != nil || len(us) != 2 || !us[0].Disabled || !us[0].Password || us[1].Disabled || us[1].Password {
		t.Errorf("List() = %+v, %v, want alice disabled with a password, bob neither", us, err)
	}
	must(t, s.SetDisabled(ctx, "alice", false))
	checkAuth(t, s, map[string]string{key: "alice"})

	for name, err := range map[string]error{
		"password": s.SetPassword(ctx, "carol", "long enough"),
		"disabled": s.SetDisabled(ctx, "carol", true),
	} {
		if !errors.Is(err, ErrNoUser) || !strings.HasPrefix(err.Error(), "set "+name+` of user "carol": `) {
			t.Errorf("set %s of a missing user: error = %v, want ErrNoUser", name, err)
		}
	}
}

// TestCheckPasswordCost checks that every failure costs one argon2id hash
// (19 MiB of memory), as the right password does, so that the time taken
// does not tell an unknown user from a wrong password. Memory allocated is
// counted rather than time measured, which a loaded machine would blur.
func TestCheckPasswordCost(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, openJournal(t, filepath.Join(t.TempDir(), "calq.db"), testclock.New(t0)))
	for _, name := range []string{"alice", "bob"} {
		_, err := s.Add(ctx, User{Name: name})
		must(t, err)
	}
	must(t, s.SetPassword(ctx, "alice", "correct horse"))
	dummyHash()
	for _, tt := range []struct{ name, user, pw string }{
		{"right", "alice", "correct horse"},
		{"wrong", "alice", "wrong horse"},
		{"unknown user", "carol", "correct horse"},
		{"no password", "bob", "correct horse"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s.CheckPassword(ctx, tt.user, tt.pw)
		runtime.ReadMemStats(&after)
		if got, min := after.TotalAlloc-before.TotalAlloc, uint64(argonMemory*1024); got < min || got > 2*min {
			t.Errorf("%s: CheckPassword allocated %d bytes, want one hash's %d", tt.name, got, min)
		}
	}
}
