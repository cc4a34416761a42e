package homedir

import (
	"calq/internal/tooltest"
	"os/user"
	"path/filepath"
	"testing"
)

func TestDir(t *testing.T) {
	u, err := user.Current()
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		tooltest.Unavailable(t, "the user has no home in /etc/passwd (%v)", err)
	}
	tests := []struct {
		name, home, xdgCache string
		want, wantCache      string
	}{
		{"HOME set", "/home/h", "", "/home/h", "/home/h/.cache"},
		{"HOME unset: passwd", "", "", u.HomeDir, filepath.Join(u.HomeDir, ".cache")},
		{"HOME relative: passwd, not the current directory", "rel", "", u.HomeDir, filepath.Join(u.HomeDir, ".cache")},
		{"XDG_CACHE_HOME absolute", "", "/c", u.HomeDir, "/c"},
		{"XDG_CACHE_HOME relative: ignored", "/home/h", "c", "/home/h", "/home/h/.cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HOME", tt.home)
			t.Setenv("XDG_CACHE_HOME", tt.xdgCache)
			if got, err := Dir(); got != tt.want || err != nil {
				t.Errorf("Dir() = %q, %v; want %q", got, err, tt.want)
			}
			if got, err := CacheDir(); got != tt.wantCache || err != nil {
				t.Errorf("CacheDir() = %q, %v; want %q", got, err, tt.wantCache)
			}
		})
	}
}
