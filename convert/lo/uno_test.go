package lo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"calq/internal/tooltest"
)

// helperOf returns inst's running UNO helper, failing the test (or
// skipping it where python3-uno is missing) when it has none.
func helperOf(t *testing.T, inst *Instance) *helper {
	t.Helper()
	if inst.p.python == "" || inst.p.unoFailed.Load() {
		tooltest.Unavailable(t, "no python3 with the uno module (apt-get install python3-uno)")
	}
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if inst.run == nil || inst.run.uno == nil {
		t.Fatalf("%s runs without a UNO helper although python3-uno is installed", inst.Name())
	}
	return inst.run.uno
}

// TestHelperDiedIdle: a UNO helper killed between documents costs no
// document: the next conversion starts the instance and a helper again.
func TestHelperDiedIdle(t *testing.T) {
	inst := sharedPool.get(t).Instances()[0]
	dir := t.TempDir()
	if err := inst.Convert(t.Context(), testdata(t, "sample_3.docx"), filepath.Join(dir, "a.pdf"), ConvertOptions{}); err != nil {
		t.Fatal(err)
	}
	h := helperOf(t, inst)
	syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL) // its guard and python3
	<-h.gone
	starts := inst.Starts()
	if err := inst.Convert(t.Context(), testdata(t, "simple.odt"), filepath.Join(dir, "b.pdf"), ConvertOptions{}); err != nil {
		t.Fatalf("Convert after the helper died = %v, want nil", err)
	}
	checkPDF(t, filepath.Join(dir, "b.pdf"), 1)
	if got := inst.Starts() - starts; got != 1 {
		t.Errorf("instance started %d times, want 1", got)
	}
	if helperOf(t, inst) == h {
		t.Error("the dead helper is still the instance's")
	}
}

// TestClientRoute: without a UNO helper (no python3-uno), documents go
// through a client soffice, with the same verdicts.
func TestClientRoute(t *testing.T) {
	sharedPool.get(t)
	dir := t.TempDir()
	p, err := New(context.Background(), Options{Instances: 1, StateDir: filepath.Join(dir, "state"), noUNO: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	inst := p.Instances()[0]
	if err := inst.Convert(t.Context(), testdata(t, "sample.pptx"), filepath.Join(dir, "a.pdf"), ConvertOptions{}); err != nil {
		t.Fatal(err)
	}
	checkPDF(t, filepath.Join(dir, "a.pdf"), 2)
	err = inst.Convert(t.Context(), testdata(t, "truncated-half.docx"), filepath.Join(dir, "b.pdf"), ConvertOptions{})
	var ce *ConvertError
	if !errors.As(err, &ce) || ce.Reason != ReasonLoadFailed {
		t.Errorf("Convert(truncated) = %v, want %q", err, ReasonLoadFailed)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.pdf")); err == nil {
		t.Error("a failed conversion left an output")
	}
	checkClientExport(t, inst, dir)
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if inst.run.uno != nil {
		t.Error("noUNO pool runs a UNO helper")
	}
}

// TestNoUNOModule: a python3 without the uno module (python3-uno not
// installed) makes the pool fall back to client soffice, not fail.
func TestNoUNOModule(t *testing.T) {
	sharedPool.get(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "python3")
	script := "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'uno'\" >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), Options{Instances: 1, StateDir: filepath.Join(dir, "state"), python: fake})
	if err != nil {
		t.Fatalf("New with a python3 lacking uno = %v, want the client route", err)
	}
	defer p.Close()
	if !p.unoFailed.Load() {
		t.Error("the pool did not notice the missing uno module")
	}
	out := filepath.Join(dir, "a.pdf")
	if err := p.Instances()[0].Convert(t.Context(), testdata(t, "sample_3.docx"), out, ConvertOptions{}); err != nil {
		t.Fatal(err)
	}
	checkPDF(t, out, 1)
}
