package webbench

import (
	"os"
	"testing"

	"calq/internal/proc"
)

func TestMain(m *testing.M) {
	proc.MaybeRunGuard() // the load helper and the guards of chromium and Gotenberg run here
	os.Exit(m.Run())
}
