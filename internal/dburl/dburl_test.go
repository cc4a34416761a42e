package dburl

import "testing"

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://calq:secret@db:5432/calq":   "postgres://calq:xxxxx@db:5432/calq",
		"postgres://calq:p@ss@db/calq":          "postgres://calq:xxxxx@db/calq",
		"postgres://calq@db/calq":               "postgres://calq@db/calq",
		"postgres://db/calq":                    "postgres://db/calq",
		"/home/me/.local/state/calq/calq.db":    "/home/me/.local/state/calq/calq.db",
		"postgresql://u:pw@h/d?sslmode=disable": "postgresql://u:xxxxx@h/d?sslmode=disable",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsURL(t *testing.T) {
	for in, want := range map[string]bool{
		"postgres://h/d":        true,
		"sqlite://x":            true,
		"calq.db":               false,
		"/tmp/a://b":            false,
		"./postgres:/calq@h/db": false,
		"":                      false,
	} {
		if got := IsURL(in); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", in, got, want)
		}
	}
	if !IsPostgres("postgresql://h/d") || IsPostgres("mysql://h/d") {
		t.Error("IsPostgres")
	}
}
