package servebench

import (
	"slices"
	"testing"
	"time"
)

// TestParseStat: the fields are counted after the command name's last
// ')', which may hold spaces and parentheses.
func TestParseStat(t *testing.T) {
	tail := " S 41 42 42 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 1 0 100 1000 10"
	for _, tc := range []struct {
		name, stat string
		want       proc
		wantErr    bool
	}{
		{name: "plain", stat: "43 (soffice.bin)" + tail,
			want: proc{pid: 43, ppid: 41, own: 300 * ticks, children: 10 * ticks}},
		{name: "spaces and parentheses", stat: "43 (a) S (b c)" + tail,
			want: proc{pid: 43, ppid: 41, own: 300 * ticks, children: 10 * ticks}},
		{name: "no name", stat: "43 soffice S 41", wantErr: true},
		{name: "short", stat: "43 (x) S 41 42", wantErr: true},
		{name: "not a number", stat: "43 (x) S 41 42 42 0 -1 4194560 100 0 0 0 x 50 7 3", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat(43, []byte(tc.stat))
			if (err != nil) != tc.wantErr || err == nil && got != tc.want {
				t.Errorf("got %+v, %v; want %+v (error: %v)", got, err, tc.want, tc.wantErr)
			}
		})
	}
}

// TestDescendants: every process below the root, at any depth, and
// none beside it.
func TestDescendants(t *testing.T) {
	procs := []proc{{pid: 1}, {pid: 10, ppid: 1}, {pid: 11, ppid: 10}, {pid: 12, ppid: 11}, {pid: 13, ppid: 10}, {pid: 20, ppid: 1}}
	var got []int
	for _, p := range descendants(procs, 10) {
		got = append(got, p.pid)
	}
	slices.Sort(got)
	if want := []int{11, 12, 13}; !slices.Equal(got, want) {
		t.Errorf("got descendants %v of 10, want %v", got, want)
	}
}

// TestSampleUsage: this process's time is read and does not go
// backwards.
func TestSampleUsage(t *testing.T) {
	a, err := sampleUsage()
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end); {
	}
	b, err := sampleUsage()
	if err != nil {
		t.Fatal(err)
	}
	if d := b.sub(a); d.Self <= 0 || a.Self <= 0 {
		t.Errorf("self time %v then %v, want positive and growing", a.Self, b.Self)
	}
}
