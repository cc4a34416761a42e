package throttle

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"calq/internal/testclock"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestDelays(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		failures int
		want     time.Duration
	}{
		{"none", Options{}, 0, 0},
		{"1 of 3 free", Options{}, 1, 0},
		{"3 of 3 free", Options{}, 3, 0},
		{"first past free", Options{}, 4, time.Second},
		{"second past free", Options{}, 5, 2 * time.Second},
		{"tenth past free", Options{}, 13, 512 * time.Second},
		{"at the ceiling", Options{}, 14, 15 * time.Minute},
		{"long past the ceiling", Options{}, 200, 15 * time.Minute},
		{"no free failures", Options{Free: -1}, 1, time.Second},
		{"one free", Options{Free: 1}, 2, time.Second},
		{"own base and max", Options{Base: 10 * time.Millisecond, Max: time.Second}, 9, 320 * time.Millisecond},
		{"own max reached", Options{Base: 10 * time.Millisecond, Max: time.Second}, 11, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := testclock.New(t0)
			tt.opts.Now = c.Now
			l := New(tt.opts)
			for range tt.failures {
				l.Fail("user:bob")
			}
			if got := l.Wait("user:bob"); got != tt.want {
				t.Errorf("Wait() after %d failures = %v, want %v", tt.failures, got, tt.want)
			}
		})
	}
}

// TestTimeline follows two keys of one attempt through failures, time
// passing, a success and forgetting.
func TestTimeline(t *testing.T) {
	c := testclock.New(t0)
	l := New(Options{Now: c.Now, Forget: time.Hour})
	user, addr := UserKey("bob"), AddrKey("192.0.2.7:50000")
	steps := []struct {
		name   string
		at     time.Duration // since t0
		fail   []string
		ok     []string
		wait   []string
		want   time.Duration
		length int
	}{
		{"three free", 0, nil, nil, []string{user, addr}, 0, 0},
		{"fourth fails", 0, []string{user, addr}, nil, []string{user, addr}, time.Second, 2},
		{"counting down", 400 * time.Millisecond, nil, nil, []string{user, addr}, 600 * time.Millisecond, 2},
		{"waited", time.Second, nil, nil, []string{user, addr}, 0, 2},
		{"fifth doubles", time.Second, []string{user, addr}, nil, []string{user}, 2 * time.Second, 2},
		{"other user, same address", time.Second, nil, nil, []string{UserKey("carol"), addr}, 2 * time.Second, 2},
		{"same user, other address", time.Second, nil, nil, []string{user, AddrKey("198.51.100.1:1")}, 2 * time.Second, 2},
		{"success clears the user", 3 * time.Second, []string{addr}, []string{user}, []string{user}, 0, 1},
		{"not the address", 3 * time.Second, nil, nil, []string{UserKey("carol"), addr}, 4 * time.Second, 1},
		{"forgotten an hour later", 3*time.Second + time.Hour, nil, nil, []string{addr}, 0, 0},
		{"and starts over", 3*time.Second + time.Hour, []string{addr}, nil, []string{addr}, 0, 1},
	}
	for _, st := range steps {
		c.Set(t0.Add(st.at))
		if st.name == "three free" {
			for range 3 {
				l.Fail(user, addr)
			}
		}
		l.Fail(st.fail...)
		l.Succeed(st.ok...)
		if got := l.Wait(st.wait...); got != st.want {
			t.Errorf("%s: Wait(%q) = %v, want %v", st.name, st.wait, got, st.want)
		}
		if st.name != "three free" && l.Len() != st.length {
			t.Errorf("%s: Len() = %d, want %d", st.name, l.Len(), st.length)
		}
	}
}

// TestMaxKeys checks that memory stays bounded: the key whose last
// failure is oldest goes first.
func TestMaxKeys(t *testing.T) {
	c := testclock.New(t0)
	l := New(Options{Now: c.Now, Free: -1, MaxKeys: 3})
	for i, k := range []string{"a", "b", "c", "a", "d", "e"} {
		c.Set(t0.Add(time.Duration(i) * time.Millisecond))
		l.Fail(k)
	}
	// a failed again after b and c; d dropped b, e dropped c.
	got := map[string]bool{}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		got[k] = l.Wait(k) > 0
	}
	want := map[string]bool{"a": true, "b": false, "c": false, "d": true, "e": true}
	if fmt.Sprint(got) != fmt.Sprint(want) || l.Len() != 3 {
		t.Errorf("keys remembered = %v (Len %d), want %v (Len 3)", got, l.Len(), want)
	}
	if w := l.Wait("a"); w != 2*time.Second-2*time.Millisecond {
		t.Errorf("Wait(a) = %v, want its second failure's 2s counted from 2ms ago", w)
	}
}

func TestAddrKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"192.0.2.7:50000", "addr:192.0.2.7"},
		{"192.0.2.7", "addr:192.0.2.7"},
		{"[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:443", "addr:2001:db8:1:2::/64"},
		{"[2001:db8:1:2::1]:443", "addr:2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:443", "addr:2001:db8:1:3::/64"},
		{"2001:db8:1:2::1", "addr:2001:db8:1:2::/64"},
		{"[::ffff:192.0.2.7]:80", "addr:192.0.2.7"},
		{"[fe80::1%eth0]:80", "addr:fe80::/64"},
		{"[::1]:8080", "addr:::/64"},
		{"@", "addr:@"},
		{"", "addr:"},
	}
	for _, tt := range tests {
		if got := AddrKey(tt.in); got != tt.want {
			t.Errorf("AddrKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if UserKey("bob") != "user:bob" {
		t.Errorf("UserKey(bob) = %q, want user:bob", UserKey("bob"))
	}
}

// TestConcurrent runs the Limiter from goroutines, for the race detector,
// and checks that no failure was lost.
func TestConcurrent(t *testing.T) {
	c := testclock.New(t0)
	l := New(Options{Now: c.Now, Free: 32*4 - 1, MaxKeys: 8})
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			for range 4 {
				l.Fail("user:bob", fmt.Sprintf("addr:%d", i%4))
				l.Wait("user:bob")
			}
			l.Succeed(fmt.Sprintf("addr:%d", i%4))
		})
	}
	wg.Wait()
	if w := l.Wait("user:bob"); w != time.Second {
		t.Errorf("Wait(user:bob) after %d failures = %v, want 1s (all counted)", 32*4, w)
	}
	if l.Len() > 8 {
		t.Errorf("Len() = %d, want at most MaxKeys 8", l.Len())
	}
}

// TestReserveBurst: attempts that arrive at once each reserve before
// they are checked, so that exactly the free ones get through, whatever
// the order in which their checks end.
func TestReserveBurst(t *testing.T) {
	c := testclock.New(t0)
	l := New(Options{Now: c.Now})
	keys := []string{UserKey("bob"), AddrKey("192.0.2.7:50000")}
	var wg sync.WaitGroup
	var mu sync.Mutex
	let := 0
	start := make(chan struct{})
	for range 128 {
		wg.Go(func() {
			<-start
			if l.Reserve(keys...) == 0 {
				mu.Lock()
				let++
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	if let != 4 {
		t.Errorf("128 attempts at once: %d let through, want 4 (3 free failures and the one after)", let)
	}
	if w := l.Wait(keys...); w != time.Second {
		t.Errorf("Wait() after the burst = %v, want 1s: refused attempts are not charged", w)
	}
}

// TestRefund follows reservations taken back: an attempt that was not
// checked, and a right password's address.
func TestRefund(t *testing.T) {
	c := testclock.New(t0)
	l := New(Options{Now: c.Now})
	user, addr := UserKey("bob"), AddrKey("192.0.2.7:50000")
	steps := []struct {
		name    string
		reserve bool
		refund  []string
		succeed []string
		want    time.Duration // Wait(user, addr) after the step
		length  int
	}{
		{"first reserved", true, nil, nil, 0, 2},
		{"and taken back", false, []string{user, addr}, nil, 0, 0},
		{"taken back again: nothing", false, []string{user, addr}, nil, 0, 0},
		{"1", true, nil, nil, 0, 2},
		{"2", true, nil, nil, 0, 2},
		{"3", true, nil, nil, 0, 2},
		{"4 must wait", true, nil, nil, time.Second, 2},
		{"the fourth was right: its address is refunded", false, []string{addr}, []string{user}, 0, 1},
		{"the address has 3 again", true, nil, nil, time.Second, 2},
	}
	for _, st := range steps {
		if st.reserve {
			if w := l.Reserve(user, addr); w != 0 {
				t.Fatalf("%s: Reserve() = %v, want 0", st.name, w)
			}
		}
		l.Refund(st.refund...)
		l.Succeed(st.succeed...)
		if got := l.Wait(user, addr); got != st.want || l.Len() != st.length {
			t.Errorf("%s: Wait() = %v, Len() = %d; want %v, %d", st.name, got, l.Len(), st.want, st.length)
		}
	}
	if w := l.Reserve(user, addr); w != time.Second {
		t.Errorf("Reserve() while waiting = %v, want 1s", w)
	}
	if w := l.Wait(user, addr); w != time.Second {
		t.Errorf("Wait() after a refused Reserve = %v, want 1s: a refused attempt is not charged", w)
	}
}

func ExampleLimiter() {
	clock := testclock.New(t0)
	l := New(Options{Now: clock.Now}) // 3 free failures, then 1s, 2s, 4s... up to 15m
	keys := []string{UserKey("bob"), AddrKey("192.0.2.7:50000")}
	for range 5 {
		l.Fail(keys...) // a wrong password
	}
	fmt.Println(l.Wait(keys...))
	clock.Set(t0.Add(2 * time.Second))
	fmt.Println(l.Wait(keys...))
	l.Succeed(keys[0]) // the right password: the user key alone
	fmt.Println(l.Wait(keys[0]), l.Wait(keys[1]))
	// Output:
	// 2s
	// 0s
	// 0s 0s
}

func ExampleLimiter_Reserve() {
	l := New(Options{Now: testclock.New(t0).Now})
	keys := []string{UserKey("bob"), AddrKey("192.0.2.7:50000")}
	for range 5 {
		// Charged before the password is checked: a wrong one keeps the
		// charge, a right one is refunded.
		fmt.Println(l.Reserve(keys...))
	}
	// Output:
	// 0s
	// 0s
	// 0s
	// 0s
	// 1s
}
