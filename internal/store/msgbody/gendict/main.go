// Command gendict trains msgbody's zstd dictionary (dict.zstd) on
// transcript JSON: the JSONL transcripts in its testdata (copied from the
// repository's OpenClaw fixtures, kept here so the dictionary does not
// change when those do) and a
// deterministic corpus of generated messages of every shape switchboard
// stores (user text, assistant replies with usage and cost, thinking and
// tool calls, tool results with details, inter-session provenance,
// errors), each encoded exactly as the stores encode a body
// (rowcodec.AppendMessageJSON).
//
// The dictionary's raw content is one example of each shape, the most
// frequent last (cheapest offsets); zstd.BuildDict then fits the entropy
// tables to the whole corpus at SpeedFastest, the level msgbody encodes
// with. The output is deterministic: rerunning it reproduces the checked-in
// file. Run from the repository root:
//
//	go run ./internal/store/msgbody/gendict -out internal/store/msgbody/dict.zstd
//
// Changing the dictionary means a new id (-id): rows compressed with the
// old one name it in their frame and can only be read while it is still
// registered, so the old file must then stay embedded beside the new one.
package main

import (
	"bufio"

	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
)

func main() {
	out := flag.String("out", "internal/store/msgbody/dict.zstd", "write the dictionary to `FILE`")
	id := flag.Uint("id", 1, "the dictionary `ID` (1..255 costs one byte per frame)")
	samples := flag.Int("samples", 20000, "how many generated messages to train on")
	testdata := flag.String("testdata", "internal/store/msgbody/gendict/testdata", "read *.jsonl transcripts under `DIR`")
	flag.Parse()
	if err := run(*out, uint32(*id), *samples, *testdata); err != nil {
		fmt.Fprintln(os.Stderr, "gendict:", err)
		os.Exit(1)
	}
}

func run(out string, id uint32, n int, testdata string) error {
	if id == 0 {
		return errors.New("-id must be > 0 (zstd reserves 0 for no dictionary)")
	}
	g := gen{r: rand.New(rand.NewPCG(1, 2))}
	var contents [][]byte
	for range n {
		b, err := g.body(g.message())
		if err != nil {
			return err
		}
		contents = append(contents, b)
	}
	real, err := transcripts(testdata)
	if err != nil {
		return err
	}
	contents = append(contents, real...)

	// History: one message of each shape, rarest first.
	var hist []byte
	for _, m := range g.shapes() {
		b, err := g.body(m)
		if err != nil {
			return err
		}
		hist = append(hist, b...)
	}
	d, err := zstd.BuildDict(zstd.BuildDictOptions{
		ID:       id,
		Contents: contents,
		History:  hist,
		Offsets:  [3]int{1, 4, 8},
		Level:    zstd.SpeedFastest,
	})
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if err := os.WriteFile(out, d, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d bytes (history %d), trained on %d generated and %d testdata messages\n", out, len(d), len(hist), n, len(real))
	return nil
}

// transcripts returns the message bodies of every *.jsonl under dir,
// re-encoded as the stores encode them. Lines that are not messages, or
// do not parse, are skipped: some testdata is garbled on purpose.
func transcripts(dir string) ([][]byte, error) {
	var out [][]byte
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var line struct {
				Type    string          `json:"type"`
				Message *domain.Message `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Type != "message" || line.Message == nil {
				continue
			}
			b, err := rowcodec.AppendMessageJSON(nil, line.Message)
			if err != nil {
				continue
			}
			out = append(out, b)
		}
		return sc.Err()
	})
	return out, err
}

// gen makes messages of the shapes the stores hold, with text drawn from
// a list of common English words and values of realistic size.
type gen struct {
	r  *rand.Rand
	ts int64
}

func (g *gen) body(m domain.Message) ([]byte, error) { return rowcodec.AppendMessageJSON(nil, &m) }

var words = strings.Fields(`the be to of and a in that have I it for not on with he as you do at
this but his by from they we say her she or an will my one all would there their what so up out
if about who get which go me when make can like time no just him know take people into year your
good some could them see other than then now look only come its over think also back after use
two how our work first well way even new want because any these give day most us is are was were
been has had did done file line error test build run change fix code function value list table
session agent message reply user tool result check please thanks here answer question summary
update status task next step read write send wait done ok yes note issue plan start stop open
close found missing failed passed small large short long detail more less same different again`)

var models = []struct{ api, provider, model string }{
	{"anthropic-messages", "anthropic", "claude-sonnet-4-5"},
	{"anthropic-messages", "anthropic", "claude-opus-4-1"},
	{"anthropic-messages", "anthropic", "claude-haiku-4-5"},
	{"openai-responses", "openai", "gpt-5"},
	{"openai-responses", "openai", "gpt-4.1-mini"},
	{"openai-completions", "openai", "gpt-4o"},
	{"openai-completions", "openrouter", "google/gemini-2.5-pro"},
	{"script", "script", "script"},
}

var toolNames = []string{"exec", "read", "write", "edit", "web_search", "web_fetch", "browser",
	"sessions_send", "sessions_spawn", "sessions_list", "sessions_history", "session_status"}

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *gen) text(minWords, maxWords int) string {
	n := minWords + g.r.IntN(maxWords-minWords+1)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		w := g.pick(words)
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		if g.r.IntN(9) == 0 {
			b.WriteString(fmt.Sprint(g.r.IntN(1000)))
		}
		if g.r.IntN(12) == 0 || i == n-1 {
			b.WriteByte([]byte(".,:?.")[g.r.IntN(5)])
		}
	}
	return b.String()
}

func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	return string(b)
}

func (g *gen) uuid() string {
	h := g.hex(32)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (g *gen) now() int64 {
	if g.ts == 0 {
		g.ts = 1_760_000_000_000 + g.r.Int64N(60_000_000_000)
	}
	g.ts += 500 + g.r.Int64N(30_000)
	return g.ts
}

func (g *gen) usage(withCost bool) *domain.Usage {
	u := &domain.Usage{Input: g.r.Int64N(20_000), Output: g.r.Int64N(2_000)}
	if g.r.IntN(3) == 0 {
		u.CacheRead = g.r.Int64N(50_000)
	}
	u.TotalTokens = u.Input + u.Output + u.CacheRead
	if withCost {
		c := &domain.Cost{}
		if g.r.IntN(2) == 0 {
			c.Input = float64(u.Input) * 3e-6
			c.Output = float64(u.Output) * 15e-6
			c.CacheRead = float64(u.CacheRead) * 3e-7
			c.Total = c.Input + c.Output + c.CacheRead
		}
		u.Cost = c
	}
	return u
}

func (g *gen) assistant(content domain.Content, stop string) domain.Message {
	mo := models[g.r.IntN(len(models))]
	return domain.Message{Role: domain.RoleAssistant, Content: content, Timestamp: g.now(),
		API: mo.api, Provider: mo.provider, Model: mo.model, Usage: g.usage(g.r.IntN(4) != 0), StopReason: stop}
}

func (g *gen) toolCall() domain.Block {
	name := g.pick(toolNames)
	args, _ := json.Marshal(map[string]any{"command": g.text(1, 6), "timeoutSeconds": 30})
	if strings.HasPrefix(name, "sessions_") {
		args, _ = json.Marshal(map[string]any{"sessionKey": "agent:main:" + g.pick([]string{"main", "subagent:" + g.uuid(), "telegram:group:g" + fmt.Sprint(g.r.IntN(100))}), "message": g.text(3, 20)})
	}
	return domain.Block{Type: domain.BlockToolCall, ID: g.pick([]string{"toolu_01", "call_", "fc_"}) + g.hex(20), Name: name, Arguments: args}
}

// shapes returns one message of each shape, rarest first: the order of
// the dictionary's history.
func (g *gen) shapes() []domain.Message {
	isErr := false
	details, _ := json.Marshal(map[string]any{"status": "completed", "exitCode": 0, "durationMs": 42, "cwd": "/home/user/workspace"})
	return []domain.Message{
		{Role: domain.RoleUser, Content: domain.TextContent(g.text(4, 8)), Timestamp: g.now(),
			Provenance: &domain.Provenance{Kind: domain.ProvenanceA2AStep, SourceSessionKey: "agent:main:main", SourceTool: "sessions_send", Step: domain.A2AStepReply}},
		func() domain.Message {
			m := g.assistant(domain.BlockContent(), domain.StopReasonError)
			m.ErrorMessage = "provider error: 429 rate limited"
			return m
		}(),
		{Role: domain.RoleUser, Content: domain.TextContent(g.text(4, 8)), Timestamp: g.now(),
			Provenance: &domain.Provenance{Kind: domain.ProvenanceInterSession, SourceSessionKey: "agent:main:main", SourceChannel: "webchat", SourceTool: "sessions_send", SourceRunID: g.uuid()}},
		{Role: domain.RoleToolResult, Content: domain.BlockContent(domain.TextBlock(g.text(4, 12))), Timestamp: g.now(),
			ToolCallID: "toolu_01" + g.hex(20), ToolName: "exec", IsError: &isErr, Details: details},
		g.assistant(domain.BlockContent(domain.Block{Type: domain.BlockThinking, Thinking: g.text(4, 10), ThinkingSignature: g.hex(24)},
			domain.TextBlock(g.text(3, 8)), g.toolCall()), domain.StopReasonToolUse),
		{Role: domain.RoleUser, Content: domain.TextContent(g.text(3, 8)), Timestamp: g.now()},
		g.assistant(domain.BlockContent(domain.TextBlock(g.text(3, 8))), domain.StopReasonStop),
		{Role: domain.RoleUser, Content: domain.BlockContent(domain.TextBlock(g.text(3, 8))), Timestamp: g.now()},
		func() domain.Message {
			m := g.assistant(domain.BlockContent(domain.TextBlock(g.text(3, 8))), domain.StopReasonStop)
			m.API, m.Provider, m.Model = models[0].api, models[0].provider, models[0].model
			m.Usage.Cost = &domain.Cost{}
			return m
		}(),
	}
}

// message returns one generated message, shapes drawn with the weights
// of a typical transcript: user and assistant turns, tool calls and their
// results, now and then an inter-session message or an error.
func (g *gen) message() domain.Message {
	switch k := g.r.IntN(100); {
	case k < 30:
		if g.r.IntN(2) == 0 {
			return domain.Message{Role: domain.RoleUser, Content: domain.TextContent(g.text(2, 40)), Timestamp: g.now()}
		}
		return domain.Message{Role: domain.RoleUser, Content: domain.BlockContent(domain.TextBlock(g.text(2, 40))), Timestamp: g.now()}
	case k < 60:
		return g.assistant(domain.BlockContent(domain.TextBlock(g.text(3, 80))), domain.StopReasonStop)
	case k < 75:
		blocks := []domain.Block{}
		if g.r.IntN(2) == 0 {
			blocks = append(blocks, domain.Block{Type: domain.BlockThinking, Thinking: g.text(5, 60), ThinkingSignature: g.hex(64)})
		}
		if g.r.IntN(2) == 0 {
			blocks = append(blocks, domain.TextBlock(g.text(2, 20)))
		}
		for range 1 + g.r.IntN(2) {
			blocks = append(blocks, g.toolCall())
		}
		return g.assistant(domain.BlockContent(blocks...), domain.StopReasonToolUse)
	case k < 92:
		isErr := g.r.IntN(10) == 0
		m := domain.Message{Role: domain.RoleToolResult, Content: domain.BlockContent(domain.TextBlock(g.text(1, 120))), Timestamp: g.now(),
			ToolCallID: g.pick([]string{"toolu_01", "call_", "fc_"}) + g.hex(20), ToolName: g.pick(toolNames), IsError: &isErr}
		if g.r.IntN(2) == 0 {
			m.Details, _ = json.Marshal(map[string]any{"status": g.pick([]string{"completed", "ok", "error", "accepted"}), "exitCode": g.r.IntN(3), "durationMs": g.r.IntN(5000)})
		}
		return m
	case k < 97:
		return domain.Message{Role: domain.RoleUser, Content: domain.TextContent(g.text(3, 40)), Timestamp: g.now(),
			Provenance: &domain.Provenance{Kind: g.pick([]string{domain.ProvenanceInterSession, domain.ProvenanceA2AStep, domain.ProvenanceExternalUser}),
				SourceSessionKey: "agent:main:" + g.pick([]string{"main", "subagent:" + g.uuid()}), SourceTool: g.pick([]string{"sessions_send", "sessions_spawn"}), SourceRunID: g.uuid()}}
	default:
		m := g.assistant(domain.BlockContent(), domain.StopReasonError)
		m.ErrorMessage = g.text(3, 12)
		return m
	}
}
