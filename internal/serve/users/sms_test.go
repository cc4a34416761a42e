package users

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestSMSRights(t *testing.T) {
	ctx := context.Background()
	s, _, _ := aliceAndBob(t)
	if r, err := s.SMSRights(ctx, "alice"); err != nil || !reflect.DeepEqual(r, SMSRights{}) {
		t.Errorf("SMSRights(alice) before any = %+v, %v, want none", r, err)
	}
	want := SMSRights{Allowed: true, Rate: 5, Quota: 100, Numbers: []string{"gsm0", "+491701234567"}, InboundURL: "https://example.com/in"}
	if err := s.SetSMSRights(ctx, "alice", want); err != nil {
		t.Fatal(err)
	}
	if r, err := s.SMSRights(ctx, "alice"); err != nil || !reflect.DeepEqual(r, want) {
		t.Errorf("SMSRights(alice) = %+v, %v, want %+v", r, err, want)
	}
	if r, err := s.SMSRights(ctx, "bob"); err != nil || r.Allowed {
		t.Errorf("SMSRights(bob) = %+v, %v, want none: rights are per user", r, err)
	}
	u, err := s.Get(ctx, "alice")
	if err != nil || !u.SMS {
		t.Errorf("Get(alice).SMS = %v, %v, want true", u.SMS, err)
	}
	us, err := s.List(ctx)
	if err != nil || len(us) != 2 || !us[0].SMS || us[1].SMS {
		t.Errorf("List() = %+v, %v, want alice with SMS and bob without", us, err)
	}
	for _, tc := range []struct {
		name string
		user string
		r    SMSRights
		want error
	}{
		{"no user", "carol", SMSRights{Allowed: true}, ErrNoUser},
		{"negative rate", "alice", SMSRights{Rate: -1}, ErrSMSRights},
		{"negative quota", "alice", SMSRights{Quota: -2}, ErrSMSRights},
		{"empty number", "alice", SMSRights{Numbers: []string{""}}, ErrSMSRights},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.SetSMSRights(ctx, tc.user, tc.r); !errors.Is(err, tc.want) {
				t.Errorf("SetSMSRights(%s, %+v) = %v, want %v", tc.user, tc.r, err, tc.want)
			}
		})
	}
	if _, err := s.SMSRights(ctx, "carol"); !errors.Is(err, ErrNoUser) {
		t.Errorf("SMSRights(carol) = %v, want ErrNoUser", err)
	}
	if r, _ := s.SMSRights(ctx, "alice"); !reflect.DeepEqual(r, want) {
		t.Errorf("SMSRights(alice) after refused sets = %+v, want %+v unchanged", r, want)
	}
}
