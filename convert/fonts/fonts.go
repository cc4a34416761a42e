// Package fonts asks fontconfig, which LibreOffice and Chromium use to
// find fonts, whether the installed fonts cover the writing systems
// people write documents in. A script no font covers is not an error to
// LibreOffice: its characters come out as empty boxes, or not at all, in
// a PDF that otherwise looks fine.
//
// Entry points: Scripts (each writing system with a sample of its
// characters and the Debian package that brings a font for it) and
// Cover (one fc-list per script, a few milliseconds each). Both are safe
// for concurrent use.
package fonts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Script is a writing system and how to tell a font covers it.
type Script struct {
	Name string
	// Sample holds characters a document in this script uses; a font
	// covers the script when it has a glyph for each of them.
	Sample string
	// Package is the Debian package with a font that covers Sample.
	Package string
}

// Scripts are the writing systems calq doctor checks, with the packages
// Gotenberg's image installs for them (Noto for the world's scripts,
// Noto CJK, Noto Color Emoji) and Symbola for symbols.
var Scripts = []Script{
	{"Latin", "AaÉéßŒœŁłŠšŽžĞğ", "fonts-liberation2"},
	{"Greek", "ΑΒΓΔΩαβγδωάέ", "fonts-dejavu-core"},
	{"Cyrillic", "АБВЖЯабвжяЁёЇї", "fonts-dejavu-core"},
	{"Arabic", "ابتثجحخدذرزسشعغفقكلمنهوي", "fonts-noto-core"},
	{"Hebrew", "אבגדהוזחטיכלמנסעפצקרשת", "fonts-noto-core"},
	{"Devanagari", "अआइईउकखगघचजटडतदनपबमयरलवसह", "fonts-noto-core"},
	{"Thai", "กขคงจฉชซญดตถทนบปผพฟภมยรลวศสหอฮ", "fonts-noto-core"},
	{"Japanese", "あいうえおアイウエオ日本語漢字", "fonts-noto-cjk"},
	{"Chinese (simplified)", "简体中文汉语这个们说话", "fonts-noto-cjk"},
	{"Chinese (traditional)", "繁體中文漢語這個們說話", "fonts-noto-cjk"},
	{"Korean", "한국어가나다라마바사", "fonts-noto-cjk"},
	{"emoji", "😀😂👍🎉🚀❤", "fonts-noto-color-emoji"},
	{"symbols", "←→⇒✓✗★☎♠♣♥♦∑∞≤≥≠€₹⏳⭐⛔🗸🡆", "fonts-symbola"},
}

// Coverage is what fontconfig says of one script.
type Coverage struct {
	Script
	// Fonts are the families with a glyph for every character of the
	// script's sample, sorted; none when the script is not covered.
	Fonts []string
}

// Covered says whether some font covers the script.
func (c Coverage) Covered() bool { return len(c.Fonts) > 0 }

// Cover asks fontconfig (fc-list, run with the environment env: its
// FONTCONFIG_FILE and HOME decide which fonts it sees) which fonts cover
// each of scripts. The error says fc-list could not run or was refused
// a pattern; a script no font covers is not an error.
func Cover(ctx context.Context, env []string, scripts []Script) ([]Coverage, error) {
	out := make([]Coverage, 0, len(scripts))
	for _, s := range scripts {
		fonts, err := families(ctx, env, s.Sample)
		if err != nil {
			return nil, fmt.Errorf("fonts for %s: %w", s.Name, err)
		}
		out = append(out, Coverage{Script: s, Fonts: fonts})
	}
	return out, nil
}

// families runs fc-list for the fonts with a glyph for every character
// of sample and returns their families, sorted and without repeats.
func families(ctx context.Context, env []string, sample string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "fc-list", "--format", `%{family[0]}\n`, ":charset="+charset(sample))
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		if errors.Is(err, exec.ErrNotFound) {
			err = fmt.Errorf("%w (Debian's fontconfig package)", err)
		}
		return nil, err
	}
	var out []string
	for _, f := range strings.Split(string(b), "\n") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// charset is sample's characters as fontconfig's charset syntax: hex
// code points separated by spaces.
func charset(sample string) string {
	var b strings.Builder
	for i, r := range sample {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%x", r)
	}
	return b.String()
}
