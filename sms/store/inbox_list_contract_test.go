package store

import (
	"context"
	"slices"
	"testing"
)

// TestInboxEntriesCursor: a cursor reads entries oldest first after it, a page
// newest first below its end, by kind, delivered or not.
func TestInboxEntriesCursor(t *testing.T) { eachStore(t, testInboxEntriesCursor) }

func testInboxEntriesCursor(t *testing.T, s contract, _ *clock) {
	ctx := context.Background()
	var ids []int64
	for i, kind := range []string{KindMessage, KindReport, KindMessage, KindMessage} {
		id, err := s.AddInboxEntry(ctx, InboxEntry{Kind: kind, Modem: "m0", Sender: "+4911", Text: string(rune('a' + i)), Received: t0}, nil)
		must(t, err)
		ids = append(ids, id)
	}
	must(t, s.MarkInboxDelivered(ctx, ids[0], t0))
	tests := []struct {
		name string
		f    InboxFilter
		want []int64
	}{
		{"all", InboxFilter{}, ids},
		{"messages after the first", InboxFilter{Kind: KindMessage, After: ids[0]}, []int64{ids[2], ids[3]}},
		{"one after the first", InboxFilter{After: ids[0], Limit: 1}, []int64{ids[1]}},
		{"page below the last", InboxFilter{Kind: KindMessage, Before: ids[3]}, []int64{ids[2], ids[0]}},
		{"page of one", InboxFilter{Before: ids[3] + 1, Limit: 1}, []int64{ids[3]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			es, err := s.InboxEntries(ctx, tt.f)
			var got []int64
			for _, e := range es {
				got = append(got, e.ID)
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("InboxEntries(%+v) = %v, %v, want %v", tt.f, got, err, tt.want)
			}
		})
	}
}
