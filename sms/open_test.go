package sms

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestStatePath(t *testing.T) {
	a := StatePath("/state", "postgres://calq:secret@db/calq")
	if got, want := filepath.Dir(a), "/state"; got != want {
		t.Errorf("got dir %s, want %s", got, want)
	}
	if b := StatePath("/state", "postgres://calq:other@db/calq"); b != a {
		t.Errorf("another password: got %s, want %s (the digest leaves it out)", b, a)
	}
	if b := StatePath("/state", "postgres://calq:secret@db/other"); b == a {
		t.Errorf("another database: got %s, the same as its", b)
	}
	if got := StatePath("", "postgres://db/calq"); got != "" {
		t.Errorf("no state dir: got %q, want \"\"", got)
	}
}

func TestForwardedString(t *testing.T) {
	for _, tc := range []struct {
		f    Forwarded
		want string
	}{
		{Forwarded{Path: "/s/sms-1.db", Addr: "postgres://db/calq", IDs: []int64{7}},
			"forwarded 1 message spooled in /s/sms-1.db to postgres://db/calq: ids 7"},
		{Forwarded{Path: "/s/sms-1.db", Addr: "postgres://db/calq", IDs: []int64{7, 8}},
			"forwarded 2 messages spooled in /s/sms-1.db to postgres://db/calq: ids 7, 8"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestOpenJournalFile: a journal file holds the engine's journal and the
// store; nothing is forwarded from it.
func TestOpenJournalFile(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "calq.db"), OpenOptions{
		Forwarded: func(f Forwarded) { t.Errorf("got forwarded %v, want nothing", f) }})
	if err != nil {
		t.Fatal(err)
	}
	if s.Journal == nil || s.Store == nil {
		t.Errorf("got journal %v and store %v, want both", s.Journal, s.Store)
	}
	if err := s.Feed(ctx); err != nil {
		t.Errorf("Feed: got %v, want nil", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestDaemonBesideStopsRun: a daemon that cannot start stops the work
// beside it; its error comes first, after Name.
func TestDaemonBesideStopsRun(t *testing.T) {
	ran := errors.New("run stopped")
	o := BesideOptions{DB: filepath.Join(t.TempDir(), "calq.db"), Name: "worker: sms"} // no modems
	err := DaemonBeside(context.Background(), o, func(ctx context.Context) error {
		<-ctx.Done()
		return ran
	})
	var ue *usageError
	if !errors.As(err, &ue) || !errors.Is(err, ran) {
		t.Fatalf("got %v, want the daemon's usage error and run's", err)
	}
	if got, want := err.Error(), "worker: sms: daemon: no journal or no modems\nrun stopped"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
