package runs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func cacheMsgs(n int) []domain.Message { return make([]domain.Message, n) }

// unit is what an empty message costs the cache.
var unit = messageCost(&domain.Message{})

// TestContextCacheBasics: take hands over and forgets, a reset misses,
// stale refuses one put, and the total never passes the bound.
func TestContextCacheBasics(t *testing.T) {
	c := newContextCache(10 * unit)
	c.put("a", "s1", cacheMsgs(4), 400)
	if _, ok := c.take("a", "s2"); ok {
		t.Fatal("a reset session (new sessionId) hit the cache")
	}
	if _, ok := c.take("a", "s1"); ok {
		t.Fatal("the mismatched take did not forget the entry")
	}
	c.put("a", "s1", cacheMsgs(4), 400)
	if m, ok := c.take("a", "s1"); !ok || len(m) != 4 {
		t.Fatalf("take = %d messages, %v", len(m), ok)
	}
	if _, ok := c.take("a", "s1"); ok {
		t.Fatal("a taken entry is still cached")
	}
	c.put("a", "s1", cacheMsgs(30), 3)
	if m, ok := c.take("a", "s1"); !ok || len(m) != 3 {
		t.Fatalf("put kept %d messages, want the newest 3", len(m))
	}
	c.put("big", "s", cacheMsgs(11), 400)
	if _, ok := c.take("big", "s"); ok {
		t.Fatal("an entry over the whole bound was cached")
	}
	c.put("a", "s1", cacheMsgs(2), 400)
	c.markStale("a")
	c.put("a", "s1", cacheMsgs(2), 400)
	if _, ok := c.take("a", "s1"); ok {
		t.Fatal("the put after markStale was kept")
	}
	c.put("a", "s1", cacheMsgs(2), 400)
	if _, ok := c.take("a", "s1"); !ok {
		t.Fatal("stale refused more than one put")
	}
	for i := range 50 {
		c.put(fmt.Sprint("k", i), "s", cacheMsgs(3), 400)
		if c.total > c.max {
			t.Fatalf("total %d over max %d", c.total, c.max)
		}
		if _, ok := c.byKey[fmt.Sprint("k", i)]; !ok {
			t.Fatalf("the entry just put (k%d) was evicted", i)
		}
		sum := 0
		for j, e := range c.entries {
			sum += e.cost
			if c.byKey[e.key] != j {
				t.Fatalf("index of %s is %d, want %d", e.key, c.byKey[e.key], j)
			}
		}
		if sum != c.total || len(c.byKey) != len(c.entries) {
			t.Fatalf("total %d, entries sum %d; %d keys, %d entries", c.total, sum, len(c.byKey), len(c.entries))
		}
	}
}

// TestMessageCost: a message costs more with more text and blocks.
func TestMessageCost(t *testing.T) {
	short := domain.Message{Role: "user", Content: domain.TextContent("hi")}
	long := domain.Message{Role: "user", Content: domain.TextContent(string(make([]byte, 10_000)))}
	two := domain.Message{Role: "assistant", Content: domain.BlockContent(domain.TextBlock("hi"), domain.TextBlock("hi"))}
	if a, b := messageCost(&short), messageCost(&long); b-a != 10_000-2 {
		t.Errorf("10,000 bytes more text cost %d more", b-a)
	}
	if a, b := messageCost(&short), messageCost(&two); b <= a {
		t.Errorf("two blocks cost %d, one %d", b, a)
	}
}

// TestContextCacheCycle: sessions taking turns in a cycle longer than the
// cache holds still hit about the share that fits (LRU hit none: it
// evicted exactly the session that ran next).
func TestContextCacheCycle(t *testing.T) {
	const sessions, per = 100, 10
	c := newContextCache(sessions * per / 2 * unit)
	hits, turns := 0, 0
	for round := range 20 {
		for i := range sessions {
			key := fmt.Sprint("s", i)
			m, ok := c.take(key, "id")
			if ok && round > 0 {
				hits++
			}
			if !ok {
				m = cacheMsgs(per)
			}
			turns++
			c.put(key, "id", m, 400)
		}
	}
	if hits < turns/5 {
		t.Fatalf("%d hits in %d turns with half the sessions fitting", hits, turns)
	}
}

// TestContextCacheSizesOnlyNewMessages: a context handed back grown by a
// run's messages keeps the sizes measured when it was put, and one that
// does not start with what was lent is measured again.
func TestContextCacheSizesOnlyNewMessages(t *testing.T) {
	withIDs := func(ids ...string) []domain.Message {
		msgs := make([]domain.Message, len(ids))
		for i, id := range ids {
			msgs[i] = domain.Message{ID: id, Content: domain.TextContent("x")}
		}
		return msgs
	}
	one := messageCost(&withIDs("m")[0])
	c := newContextCache(1000 * unit)
	c.put("a", "s1", withIDs("m1", "m2", "m3"), 400)
	prior, ok := c.take("a", "s1")
	if !ok {
		t.Fatal("miss")
	}
	// A probe: a message grown behind the cache's back is not measured
	// again, which shows the lent sizes were reused.
	prior[0].Content = domain.TextContent(strings.Repeat("x", 5000))
	c.put("a", "s1", append(prior, withIDs("m4", "m5")...), 4)
	e := c.entries[c.byKey["a"]]
	if len(e.msgs) != 4 || len(e.costs) != 4 || e.cost != 4*one || c.total != 4*one {
		t.Fatalf("entry: %d msgs, costs %v, cost %d (total %d); want 4 of %d each", len(e.msgs), e.costs, e.cost, c.total, one)
	}
	if len(c.lent) != 0 {
		t.Fatalf("lent sizes left behind: %v", c.lent)
	}
	// A context that no longer starts where the lent one did is measured.
	prior, _ = c.take("a", "s1")
	prior[0] = domain.Message{ID: "other", Content: domain.TextContent(strings.Repeat("x", 5000))}
	big := messageCost(&prior[0])
	c.put("a", "s1", prior, 400)
	if e := c.entries[c.byKey["a"]]; e.cost != big+3*one {
		t.Fatalf("a changed context cost %d, want it measured again (%d)", e.cost, big+3*one)
	}
	// A drop forgets what was lent.
	c.take("a", "s1")
	c.drop("a")
	if len(c.lent) != 0 {
		t.Fatal("drop left the lent sizes")
	}
}
