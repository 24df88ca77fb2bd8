package model

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/internal/fakeapi"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func str(s string) *string { return &s }
func intp(i int) *int      { return &i }

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

const openaiReply = `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"pong"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`

const anthropicReply = `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"pong"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`

var ping = domain.ModelRequest{Messages: []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("ping")}}}

// providersConfig names one provider of each API the registry resolves.
func providersConfig() *config.Config {
	return &config.Config{Models: config.ModelsConfig{Providers: map[string]config.ProviderConfig{
		"script": {Rules: []config.ScriptRule{{When: config.ScriptWhen{Message: "^ping$"}, Reply: str("pong")}}},
		"ollama": {API: "openai", BaseURL: "http://127.0.0.1:11434/v1", Models: []string{"llama3.2", "qwen3:8b"}},
		"vllm":   {API: "openai", BaseURL: "http://127.0.0.1:8000/v1"},
		"proxy":  {API: "anthropic", BaseURL: "http://127.0.0.1:9000", Models: []string{"claude-sonnet-4-5"}},
	}}}
}

func newTestRegistry(t *testing.T) *Registry {
	t.Helper()
	r, err := NewRegistry(providersConfig(), env(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolve(t *testing.T) {
	r := newTestRegistry(t)
	tests := []struct {
		ref          string
		wantProvider string
		wantModel    string
		wantErr      string
	}{
		{"script", "script", "script", ""},
		{"script/fast", "script", "fast", ""},
		{"script/a/b", "script", "a/b", ""},
		{"openai/gpt-4.1-mini", "openai", "gpt-4.1-mini", ""},
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", ""},
		{"ollama/llama3.2", "ollama", "llama3.2", ""},
		{"ollama/qwen3:8b", "ollama", "qwen3:8b", ""},
		{"vllm/meta-llama/Llama-3.1-8B-Instruct", "vllm", "meta-llama/Llama-3.1-8B-Instruct", ""},
		{"proxy/claude-sonnet-4-5", "proxy", "claude-sonnet-4-5", ""},
		{" openai/o3 ", "openai", "o3", ""},
		{"ollama/llama9", "", "", `unknown model "ollama/llama9"; valid: script, openai/<model>, anthropic/<model>, ollama/llama3.2, ollama/qwen3:8b, proxy/claude-sonnet-4-5, vllm/<model>`},
		{"mistral/large", "", "", `unknown model "mistral/large"; valid: script, openai/<model>`},
		{"gpt-4.1", "", "", `unknown model "gpt-4.1"; valid: script,`},
		{"openai", "", "", `unknown model "openai"; valid:`},
		{"openai/", "", "", `model reference "openai/" has no model id after "openai/"`},
		{"", "", "", "model reference is empty; valid: script, openai/<model>"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			p, model, err := r.Resolve(tt.ref)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || domain.ErrorCode(err) != domain.CodeInvalid {
					t.Fatalf("err = %v, want invalid starting %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Name() != tt.wantProvider || model != tt.wantModel {
				t.Errorf("Resolve = %s, %q; want %s, %q", p.Name(), model, tt.wantProvider, tt.wantModel)
			}
		})
	}
}

func TestKnown(t *testing.T) {
	want := []string{"script", "openai/<model>", "anthropic/<model>", "ollama/llama3.2", "ollama/qwen3:8b", "proxy/claude-sonnet-4-5", "vllm/<model>"}
	if d := cmp.Diff(want, newTestRegistry(t).Known()); d != "" {
		t.Errorf("Known (-want +got):\n%s", d)
	}
	r, err := NewRegistry(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"script", "openai/<model>", "anthropic/<model>"}, r.Known()); d != "" {
		t.Errorf("Known of an empty config (-want +got):\n%s", d)
	}
}

func TestValidateThinking(t *testing.T) {
	r := newTestRegistry(t)
	tests := []struct {
		ref, level, wantErr string
	}{
		{"script", "high", ""},
		{"script", "minimal", ""},
		{"openai/gpt-4.1-mini", "off", ""},
		{"openai/gpt-4.1-mini", "", ""},
		{"openai/gpt-4.1-mini", "high", `model "openai/gpt-4.1-mini" does not support thinking level "high" (supported: off)`},
		{"openai/o3", "high", ""},
		{"openai/gpt-5-mini", "minimal", ""},
		{"ollama/qwen3:8b", "medium", ""}, // custom endpoint: passed through
		{"anthropic/claude-sonnet-4-5", "low", ""},
		{"anthropic/claude-3-5-haiku-latest", "low", `model "anthropic/claude-3-5-haiku-latest" does not support thinking level "low" (supported: off)`},
		{"script", "max", `invalid thinking level "max" (use off|minimal|low|medium|high)`},
		{"nope/x", "off", `unknown model "nope/x"`},
	}
	for _, tt := range tests {
		t.Run(tt.ref+"/"+tt.level, func(t *testing.T) {
			err := r.ValidateThinking(tt.ref, tt.level)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || domain.ErrorCode(err) != domain.CodeInvalid {
				t.Errorf("err = %v, want invalid starting %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewRegistryErrors(t *testing.T) {
	tests := []struct {
		name string
		pcs  map[string]config.ProviderConfig
		want string
	}{
		{"bad script regexp", map[string]config.ProviderConfig{"script": {Rules: []config.ScriptRule{{Reply: str("a")}, {When: config.ScriptWhen{System: "(?"}, Reply: str("b")}}}},
			"models.providers.script.rules[1].when.system: error parsing regexp"},
		{"script rule without action", map[string]config.ProviderConfig{"script": {Rules: []config.ScriptRule{{}}}},
			"models.providers.script.rules[0]: needs exactly one of reply, toolCall, error"},
		{"named provider without api", map[string]config.ProviderConfig{"ollama": {BaseURL: "http://127.0.0.1:11434/v1"}},
			`models.providers.ollama.api: must be "openai" or "anthropic" (got "")`},
		{"named provider with unknown api", map[string]config.ProviderConfig{"x": {API: "gemini", BaseURL: "http://h"}},
			`models.providers.x.api: must be "openai" or "anthropic" (got "gemini")`},
		{"named provider without baseUrl", map[string]config.ProviderConfig{"ollama": {API: "openai"}},
			"models.providers.ollama.baseUrl: required for a provider that is not built in"},
		{"bad baseUrl", map[string]config.ProviderConfig{"ollama": {API: "openai", BaseURL: "127.0.0.1:11434"}},
			`models.providers.ollama.baseUrl: "127.0.0.1:11434" is not an http or https URL`},
		{"name with slash", map[string]config.ProviderConfig{"a/b": {API: "openai", BaseURL: "http://h"}},
			`models.providers: provider name "a/b" must be non-empty without '/' or spaces`},
		{"built-in with another api", map[string]config.ProviderConfig{"openai": {API: "anthropic"}},
			`models.providers.openai.api: must be "openai" for the built-in openai provider (got "anthropic")`},
		{"negative retries", map[string]config.ProviderConfig{"anthropic": {MaxRetries: intp(-1)}},
			"models.providers.anthropic.maxRetries: -1 is out of range (0..10)"},
		{"too many retries", map[string]config.ProviderConfig{"openai": {MaxRetries: intp(50)}},
			"models.providers.openai.maxRetries: 50 is out of range (0..10)"},
		{"negative timeout", map[string]config.ProviderConfig{"openai": {TimeoutSeconds: -5}},
			"models.providers.openai.timeoutSeconds: -5 is negative"},
		{"empty model id", map[string]config.ProviderConfig{"vllm": {API: "openai", BaseURL: "http://h", Models: []string{"a", " "}}},
			"models.providers.vllm.models[1]: empty model id"},
		{"rules on another provider", map[string]config.ProviderConfig{"vllm": {API: "openai", BaseURL: "http://h", Rules: []config.ScriptRule{{Reply: str("x")}}}},
			"models.providers.vllm.rules: only the script provider takes rules"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{Models: config.ModelsConfig{Providers: tt.pcs}}
			_, err := NewRegistry(cfg, nil, nil)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to start with %q", err, tt.want)
			}
		})
	}
}

func TestScriptFromConfig(t *testing.T) {
	p, model, err := newTestRegistry(t).Resolve("script")
	if err != nil {
		t.Fatal(err)
	}
	req := ping
	req.Model = model
	resp, err := p.Complete(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Message.Content.Text(); got != "pong" {
		t.Errorf("reply = %q, want the configured rule's pong", got)
	}
}

// TestCredentialsAndURLs checks where each provider sends its requests and
// with which key, against fake servers standing in for the APIs.
func TestCredentialsAndURLs(t *testing.T) {
	type pcs = map[string]config.ProviderConfig
	tests := []struct {
		name       string
		pcs        func(url string) pcs
		env        func(url string) map[string]string
		ref        string
		reply      string
		wantPath   string
		wantHeader string // header carrying the key
		wantKey    string // "" = no credentials at all
	}{
		{
			name: "openai key and URL from the environment",
			env: func(u string) map[string]string {
				return map[string]string{"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": u + "/v1"}
			},
			ref: "openai/gpt-4.1-mini", reply: openaiReply,
			wantPath: "/v1/chat/completions", wantHeader: "Authorization", wantKey: "Bearer sk-env",
		},
		{
			name: "openai config wins over the environment",
			pcs:  func(u string) pcs { return pcs{"openai": {APIKey: "sk-config", BaseURL: u + "/v1"}} },
			env: func(string) map[string]string {
				return map[string]string{"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}
			},
			ref: "openai/gpt-4.1-mini", reply: openaiReply,
			wantPath: "/v1/chat/completions", wantHeader: "Authorization", wantKey: "Bearer sk-config",
		},
		{
			name: "anthropic key and URL from the environment",
			env: func(u string) map[string]string {
				return map[string]string{"ANTHROPIC_API_KEY": "sk-ant-env", "ANTHROPIC_BASE_URL": u}
			},
			ref: "anthropic/claude-sonnet-4-5", reply: anthropicReply,
			wantPath: "/v1/messages", wantHeader: "X-Api-Key", wantKey: "sk-ant-env",
		},
		{
			name: "named provider without a key sends none, even with OPENAI_API_KEY set",
			pcs:  func(u string) pcs { return pcs{"ollama": {API: "openai", BaseURL: u + "/v1"}} },
			env:  func(string) map[string]string { return map[string]string{"OPENAI_API_KEY": "sk-env"} },
			ref:  "ollama/llama3.2", reply: openaiReply,
			wantPath: "/v1/chat/completions", wantHeader: "Authorization", wantKey: "",
		},
		{
			name: "named provider with its own key",
			pcs:  func(u string) pcs { return pcs{"openrouter": {API: "openai", BaseURL: u + "/api/v1", APIKey: "sk-or"}} },
			ref:  "openrouter/anthropic/claude-sonnet-4.5", reply: openaiReply,
			wantPath: "/api/v1/chat/completions", wantHeader: "Authorization", wantKey: "Bearer sk-or",
		},
		{
			name: "named anthropic-protocol provider",
			pcs:  func(u string) pcs { return pcs{"proxy": {API: "anthropic", BaseURL: u, APIKey: "sk-proxy"}} },
			ref:  "proxy/claude-haiku-4-5", reply: anthropicReply,
			wantPath: "/v1/messages", wantHeader: "X-Api-Key", wantKey: "sk-proxy",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakeapi.New(t, fakeapi.Reply{Body: tt.reply})
			cfg := &config.Config{}
			if tt.pcs != nil {
				cfg.Models.Providers = tt.pcs(f.URL)
			}
			getenv := env(nil)
			if tt.env != nil {
				getenv = env(tt.env(f.URL))
			}
			r, err := NewRegistry(cfg, getenv, f.Client())
			if err != nil {
				t.Fatal(err)
			}
			p, model, err := r.Resolve(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			req := ping
			req.Model = model
			resp, err := p.Complete(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content.Text() != "pong" || resp.Message.Provider != p.Name() {
				t.Errorf("answer %+v", resp.Message)
			}
			reqs := f.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			if reqs[0].Path != tt.wantPath {
				t.Errorf("path = %q, want %q", reqs[0].Path, tt.wantPath)
			}
			if got := reqs[0].Header.Get(tt.wantHeader); got != tt.wantKey {
				t.Errorf("%s = %q, want %q", tt.wantHeader, got, tt.wantKey)
			}
			if reqs[0].Body["model"] != model {
				t.Errorf("model sent = %v, want %q", reqs[0].Body["model"], model)
			}
		})
	}
}

// TestRetriesFromConfig checks that maxRetries reaches the provider.
func TestRetriesFromConfig(t *testing.T) {
	for _, tt := range []struct {
		retries  *int
		wantReqs int
	}{{nil, 3}, {intp(0), 1}, {intp(1), 2}} {
		f := fakeapi.New(t, fakeapi.Reply{Status: 429, Header: map[string]string{"Retry-After": "0"}, Body: `{"error":{"message":"slow down"}}`})
		cfg := &config.Config{Models: config.ModelsConfig{Providers: map[string]config.ProviderConfig{
			"local": {API: "openai", BaseURL: f.URL + "/v1", MaxRetries: tt.retries},
		}}}
		r, err := NewRegistry(cfg, nil, f.Client())
		if err != nil {
			t.Fatal(err)
		}
		p, model, _ := r.Resolve("local/m")
		req := ping
		req.Model = model
		_, err = p.Complete(t.Context(), req)
		if err == nil || domain.ErrorMessage(err) != "local: 429 Too Many Requests: slow down" {
			t.Errorf("err = %v", err)
		}
		if got := len(f.Requests()); got != tt.wantReqs {
			t.Errorf("maxRetries %v: %d requests, want %d", tt.retries, got, tt.wantReqs)
		}
	}
}

type fakeProvider struct{ name string }

func (f fakeProvider) Name() string { return f.name }
func (f fakeProvider) Complete(context.Context, domain.ModelRequest) (domain.ModelResponse, error) {
	return domain.ModelResponse{}, errors.New("fake")
}
func (f fakeProvider) ThinkingLevels(string) []string { return []string{"off"} }

func TestRegister(t *testing.T) {
	r := newTestRegistry(t)
	r.Register(fakeProvider{"fake"}, "m1")
	if p, model, err := r.Resolve("fake/m1"); err != nil || p.Name() != "fake" || model != "m1" {
		t.Errorf("Resolve(fake/m1) = %v, %q, %v", p, model, err)
	}
	if _, _, err := r.Resolve("fake/m2"); err == nil {
		t.Error("fake/m2 resolved though only m1 is listed")
	}
	if err := r.ValidateThinking("fake/m1", "low"); err == nil || !strings.Contains(err.Error(), "(supported: off)") {
		t.Errorf("ValidateThinking = %v", err)
	}
	// Replacing a built-in, as a test of the runtime would.
	r.Register(fakeProvider{"openai"})
	if p, _, _ := r.Resolve("openai/anything"); p.Name() != "openai" {
		t.Fatal("openai missing")
	} else if _, err := p.Complete(t.Context(), ping); err == nil || err.Error() != "fake" {
		t.Errorf("Register did not replace openai: %v", err)
	}
}

// TestMissingKey: a built-in provider on its public URL without a key fails
// at once, naming the variable and the config key, and sends nothing; with
// a baseUrl (a local server) it still calls without credentials.
func TestMissingKey(t *testing.T) {
	tests := []struct {
		name    string
		env     func(url string) map[string]string
		ref     string
		reply   string
		wantErr string // "" = the call succeeds
	}{
		{name: "openai", ref: "openai/gpt-4.1-mini", reply: openaiReply,
			wantErr: "openai: no API key (set OPENAI_API_KEY or models.providers.openai.apiKey)"},
		{name: "anthropic", ref: "anthropic/claude-sonnet-4-5", reply: anthropicReply,
			wantErr: "anthropic: no API key (set ANTHROPIC_API_KEY or models.providers.anthropic.apiKey)"},
		{name: "openai on a local base URL needs no key", ref: "openai/llama3.2", reply: openaiReply,
			env: func(u string) map[string]string { return map[string]string{"OPENAI_BASE_URL": u + "/v1"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakeapi.New(t, fakeapi.Reply{Body: tt.reply})
			getenv := env(nil)
			if tt.env != nil {
				getenv = env(tt.env(f.URL))
			}
			r, err := NewRegistry(&config.Config{}, getenv, f.Client())
			if err != nil {
				t.Fatal(err)
			}
			p, model, err := r.Resolve(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			req := ping
			req.Model = model
			_, err = p.Complete(t.Context(), req)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr || domain.ErrorCode(err) != domain.CodeInvalid {
				t.Fatalf("Complete = %v (code %s), want %q (invalid)", err, domain.ErrorCode(err), tt.wantErr)
			}
			if n := len(f.Requests()); n != 0 {
				t.Errorf("%d requests went out without a key", n)
			}
		})
	}
}
