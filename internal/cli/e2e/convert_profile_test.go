package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"calq/convert/pdf"
)

// TestConvertProfile: a profile's watermark and encryption reach the PDF,
// a flag overrides the profile's title, and the owner password comes from
// the file the profile names, relative to the config file.
func TestConvertProfile(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.Mkdir(in, 0o755)
	png, err := os.ReadFile(filepath.Join(repoTestdata, "convert", "testPNG.png"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in, "scan.png"), png, 0o644)
	os.WriteFile(filepath.Join(dir, "owner.txt"), []byte("s3cret\n"), 0o600)
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(`[profiles.legal]
watermark = "PROFILED"
title = "From the profile"
author = "Legal"
encrypt = true
owner_password_file = "owner.txt"
permissions = "print"
`), 0o644)
	out := filepath.Join(dir, "out")
	cmd := calqCmd(t, "convert", "--config", cfg, "--profile", "legal", "--title", "From the flag",
		"--db", filepath.Join(dir, "j.db"), "-q", "-o", out, in)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("calq convert: %v\n%s", err, b)
	}
	p := filepath.Join(out, "scan.pdf")
	info, err := pdf.Inspect(p, "s3cret")
	if err != nil || !info.AES256 || info.Title != "From the flag" || info.Author != "Legal" || !info.Permissions.Print || info.Permissions.Copy {
		t.Errorf("Inspect: %+v, %v; want AES-256, the flag's title, the profile's author, print only", info, err)
	}
	if text, err := pdf.Text(p, "s3cret"); err != nil || !strings.Contains(text, "PROFILED") {
		t.Errorf("Text: %q, %v; want the profile's watermark", text, err)
	}
}
