package memory_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/events"
)

// BenchmarkRecallPathLinked: 20 keyed memories under /hub, each linked to
// 5 of 300 others, which link on in a ring; recall_path with 2 and 3 hops,
// limit 100.
func BenchmarkRecallPathLinked(b *testing.B) {
	ctx := context.Background()
	c := newClock()
	svc, db := newEventService(b, c, events.Options{})
	var hubs, others []string
	for i := range 20 {
		d := draft(fmt.Sprintf("hub memory number %d about topic %d", i, i))
		d.Key = fmt.Sprintf("/hub/%02d", i)
		m, err := svc.Remember(ctx, alice, d)
		if err != nil {
			b.Fatal(err)
		}
		hubs = append(hubs, m.ID)
	}
	for i := range 300 {
		m, err := svc.Remember(ctx, alice, draft(fmt.Sprintf("leaf memory %d on subject %d of %d", i, i*7, i*13)))
		if err != nil {
			b.Fatal(err)
		}
		others = append(others, m.ID)
	}
	var rels []mnemo.Relation
	for i, h := range hubs {
		for j := range 5 {
			rels = append(rels, mnemo.Relation{Source: h, Target: others[(i*15+j)%len(others)], Type: "related", Confidence: 0.8, CreatedAt: c.Now()})
		}
	}
	for i, o := range others {
		rels = append(rels, mnemo.Relation{Source: o, Target: others[(i+1)%len(others)], Type: "next", Confidence: 0.9, CreatedAt: c.Now()})
	}
	if err := db.AddRelations(ctx, alice, rels); err != nil {
		b.Fatal(err)
	}
	for _, hops := range []int{2, 3} {
		b.Run(fmt.Sprintf("hops=%d", hops), func(b *testing.B) {
			for b.Loop() {
				res, err := svc.RecallPathLinked(ctx, alice, "/hub", 100, hops)
				if err != nil || len(res.Linked) == 0 {
					b.Fatal(len(res.Linked), err)
				}
			}
		})
	}
}
