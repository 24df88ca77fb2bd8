package gateway

import (
	"fmt"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestRunAliases(t *testing.T) {
	a := newRunAliases()
	if !a.add("r1", "k1") || !a.add("r1", "k1") {
		t.Fatal("naming a run, and naming it again the same, must hold")
	}
	if a.add("r2", "k1") {
		t.Fatal("a key naming another run must not name a second one")
	}
	if a.add("r1", "k9") || a.public("r1") != "k1" {
		t.Fatal("a named run keeps its first name")
	}
	for _, c := range []struct{ in, run, name string }{{"k1", "r1", "k1"}, {"r1", "r1", "k1"}, {"r2", "r2", "r2"}, {"nope", "nope", "nope"}} {
		if got := a.run(c.in); got != c.run {
			t.Errorf("run(%s) = %s, want %s", c.in, got, c.run)
		}
		if got := a.name(a.run(c.in)); got != c.name {
			t.Errorf("name(run(%s)) = %s, want %s", c.in, got, c.name)
		}
	}
	// The oldest names go past the bound.
	for i := range maxRunAliases {
		a.add(fmt.Sprintf("run-%d", i), fmt.Sprintf("key-%d", i))
	}
	if a.public("r1") != "" || a.run("k1") != "k1" {
		t.Fatal("the oldest name was not let go")
	}
	if len(a.byRun) != maxRunAliases || len(a.byKey) != maxRunAliases || a.run("key-5") != "run-5" {
		t.Fatalf("%d runs, %d keys named, want %d each", len(a.byRun), len(a.byKey), maxRunAliases)
	}
}

func TestRenamedRunCopies(t *testing.T) {
	run := &domain.Run{ID: "r1"}
	delta := &domain.RunDelta{RunID: "r1"}
	msg := &domain.Message{RunID: "r1"}
	prog := &domain.Progress{RunID: "r1"}
	ev := renamedRun(domain.Event{Run: run, Delta: delta, Message: msg, Progress: prog}, "k1")
	if ev.Run.ID != "k1" || ev.Delta.RunID != "k1" || ev.Message.RunID != "k1" || ev.Progress.RunID != "k1" {
		t.Fatalf("renamed event = %+v", ev)
	}
	if run.ID != "r1" || delta.RunID != "r1" || msg.RunID != "r1" || prog.RunID != "r1" {
		t.Fatal("the shared event was changed")
	}
}

// TestRunAliasesExpected: a run that starts while the chat.send of its
// message is under way is named by that call's key before the call
// returns; once the call returned, a run of the same text is not.
func TestRunAliasesExpected(t *testing.T) {
	a := newRunAliases()
	done := a.expect(" hello ", "k1")
	a.started(chatRun("r0", "other text"))
	a.started(chatRun("r1", "hello"))
	if a.public("r0") != "" || a.public("r1") != "k1" {
		t.Fatalf("r0 named %q, r1 named %q", a.public("r0"), a.public("r1"))
	}
	if !a.add("r1", "k1") {
		t.Fatal("the call's own answer must find its run named by its key")
	}
	done()
	a.started(chatRun("r2", "hello"))
	if a.public("r2") != "" {
		t.Fatal("a run after the call returned was named")
	}
	// The same text from two calls at once: each expectation is taken once.
	d2, d3 := a.expect("x", "k2"), a.expect("x", "k3")
	a.started(chatRun("r3", "x"))
	a.started(chatRun("r4", "x"))
	d2()
	d3()
	if a.public("r3") != "k2" || a.public("r4") != "k3" || len(a.expected) != 0 {
		t.Fatalf("r3 %q, r4 %q, %d expectations left", a.public("r3"), a.public("r4"), len(a.expected))
	}
	// An agent call's run of the same text keeps its own id: that call
	// answered with it.
	d5 := a.expect("z", "k5")
	a.started(domain.Run{ID: "r5", Kind: domain.RunKindAgent, Message: "z"})
	if a.public("r5") != "" || len(a.expected) != 1 {
		t.Fatalf("the agent run was named %q", a.public("r5"))
	}
	d5()
	if a.expect("y", "")(); len(a.expected) != 0 {
		t.Fatal("a call without a key expects nothing")
	}
}

func chatRun(id, message string) domain.Run {
	return domain.Run{ID: id, Kind: domain.RunKindChat, Message: message}
}
