package config

import (
	"errors"
	"strings"
	"testing"
)

func TestValidationRules(t *testing.T) {
	tests := []struct {
		name string
		in   string
		path string
		msg  string
	}{
		// session
		{"scope enum", `{session: {scope: "per-peer"}}`, "session.scope", `"per-peer" is not one of per-sender, global`},
		{"scope empty", `{session: {scope: ""}}`, "session.scope", `"" is not one of`},
		{"mainKey empty", `{session: {mainKey: ""}}`, "session.mainKey", "must not be empty"},
		{"mainKey colon", `{session: {mainKey: "a:b"}}`, "session.mainKey", `"a:b" must not contain ':'`},
		{"mainKey space", `{session: {mainKey: "a b"}}`, "session.mainKey", "whitespace"},
		{"sendPolicy default", `{session: {sendPolicy: {default: "block"}}}`, "session.sendPolicy.default", `"block" is not one of allow, deny`},
		{"sendPolicy action", `{session: {sendPolicy: {rules: [{action: "allow"}, {action: "drop"}]}}}`, "session.sendPolicy.rules[1].action", `"drop" is not one of allow, deny`},
		{"sendPolicy chatType", `{session: {sendPolicy: {rules: [{match: {chatType: "thread"}}]}}}`, "session.sendPolicy.rules[0].match.chatType", `"thread" is not one of direct, group, channel`},
		{"maxPingPongTurns negative", `{session: {agentToAgent: {maxPingPongTurns: -1}}}`, "session.agentToAgent.maxPingPongTurns", "-1 is out of range (0..5)"},
		{"maxHops zero", `{session: {agentToAgent: {maxHops: 0}}}`, "session.agentToAgent.maxHops", "0 is out of range (1..50)"},
		{"maxHops high", `{session: {agentToAgent: {maxHops: 51}}}`, "session.agentToAgent.maxHops", "51 is out of range (1..50)"},
		{"owners empty entry", `{session: {owners: ["a", " "]}}`, "session.owners[1]", "must not be empty"},
		// tools
		{"visibility enum", `{tools: {sessions: {visibility: "everyone"}}}`, "tools.sessions.visibility", `"everyone" is not one of self, tree, agent, all`},
		{"a2a allow empty", `{tools: {agentToAgent: {allow: [""]}}}`, "tools.agentToAgent.allow[0]", "must not be empty"},
		{"subagent tools allow empty", `{tools: {subagents: {tools: {allow: [""]}}}}`, "tools.subagents.tools.allow[0]", "must not be empty"},
		{"subagent tools deny empty", `{tools: {subagents: {tools: {deny: ["x", ""]}}}}`, "tools.subagents.tools.deny[1]", "must not be empty"},
		{"maxFiles", `{tools: {sessions_spawn: {attachments: {maxFiles: 0}}}}`, "tools.sessions_spawn.attachments.maxFiles", "0 is out of range (1..50)"},
		{"maxFiles above the attachments a spawn may carry", `{tools: {sessions_spawn: {attachments: {maxFiles: 51}}}}`, "tools.sessions_spawn.attachments.maxFiles", "51 is out of range (1..50)"},
		{"maxFileBytes", `{tools: {sessions_spawn: {attachments: {maxFileBytes: -5}}}}`, "tools.sessions_spawn.attachments.maxFileBytes", "-5 is out of range (>= 1)"},
		{"maxTotalBytes", `{tools: {sessions_spawn: {attachments: {maxTotalBytes: 0}}}}`, "tools.sessions_spawn.attachments.maxTotalBytes", "0 is out of range (>= 1)"},
		// agents.defaults
		{"defaults model empty", `{agents: {defaults: {model: ""}}}`, "agents.defaults.model", "must not be empty"},
		{"defaults model no provider", `{agents: {defaults: {model: "/gpt"}}}`, "agents.defaults.model", "has no provider"},
		{"defaults model bare", `{agents: {defaults: {model: "gpt-4.1"}}}`, "agents.defaults.model", `unknown provider "gpt-4.1"`},
		{"defaults model no model", `{agents: {defaults: {model: "openai"}}}`, "agents.defaults.model", `"openai" has no model`},
		{"defaults model no model slash", `{agents: {defaults: {model: "anthropic/"}}}`, "agents.defaults.model", "has no model"},
		{"defaults model unknown provider", `{agents: {defaults: {model: "mistral/large"}}}`, "agents.defaults.model", `unknown provider "mistral"`},
		{"defaults model space", `{agents: {defaults: {model: "openai/gpt 4"}}}`, "agents.defaults.model", "whitespace"},
		{"subagents allowAgents", `{agents: {defaults: {subagents: {allowAgents: ["ok", "Not OK"]}}}}`, "agents.defaults.subagents.allowAgents[1]", `"not ok" is neither "*" nor an agent id`},
		{"runTimeoutSeconds", `{agents: {defaults: {subagents: {runTimeoutSeconds: -1}}}}`, "agents.defaults.subagents.runTimeoutSeconds", "-1 is out of range (0..604800)"},
		{"runTimeoutSeconds high", `{agents: {defaults: {subagents: {runTimeoutSeconds: 604801}}}}`, "agents.defaults.subagents.runTimeoutSeconds", "604801 is out of range (0..604800)"},
		{"runTimeoutSeconds overflowing a Duration", `{agents: {defaults: {subagents: {runTimeoutSeconds: 10000000000}}}}`, "agents.defaults.subagents.runTimeoutSeconds", "10000000000 is out of range (0..604800)"},
		{"archiveAfterMinutes", `{agents: {defaults: {subagents: {archiveAfterMinutes: -1}}}}`, "agents.defaults.subagents.archiveAfterMinutes", "-1 is out of range (0..525600)"},
		{"archiveAfterMinutes high", `{agents: {defaults: {subagents: {archiveAfterMinutes: 200000000000000}}}}`, "agents.defaults.subagents.archiveAfterMinutes", "200000000000000 is out of range (0..525600)"},
		{"maxSpawnDepth zero", `{agents: {defaults: {subagents: {maxSpawnDepth: 0}}}}`, "agents.defaults.subagents.maxSpawnDepth", "0 is out of range (1..5)"},
		{"maxSpawnDepth high", `{agents: {defaults: {subagents: {maxSpawnDepth: 6}}}}`, "agents.defaults.subagents.maxSpawnDepth", "6 is out of range (1..5)"},
		{"maxChildrenPerAgent", `{agents: {defaults: {subagents: {maxChildrenPerAgent: 101}}}}`, "agents.defaults.subagents.maxChildrenPerAgent", "101 is out of range (1..100)"},
		{"maxConcurrent", `{agents: {defaults: {subagents: {maxConcurrent: 0}}}}`, "agents.defaults.subagents.maxConcurrent", "0 is out of range (1..1000)"},
		{"maxConcurrent high", `{agents: {defaults: {subagents: {maxConcurrent: 1001}}}}`, "agents.defaults.subagents.maxConcurrent", "1001 is out of range (1..1000)"},
		{"subagents model", `{agents: {defaults: {subagents: {model: "nope/x"}}}}`, "agents.defaults.subagents.model", `unknown provider "nope"`},
		{"sessionToolsVisibility", `{agents: {defaults: {sandbox: {sessionToolsVisibility: "tree"}}}}`, "agents.defaults.sandbox.sessionToolsVisibility", `"tree" is not one of spawned, all`},
		{"defaults sandbox mode", `{agents: {defaults: {sandbox: {mode: "some"}}}}`, "agents.defaults.sandbox.mode", `"some" is not one of off, all`},
		// agents.list
		{"agent id empty", `{agents: {list: [{name: "x"}]}}`, "agents.list[0].id", "must not be empty"},
		{"agent id bad", `{agents: {list: [{id: "main"}, {id: "main"}, {id: "bad id!"}]}}`, "agents.list[1].id", `duplicate agent id "main" (also agents.list[0].id)`},
		{"agent id pattern", `{agents: {list: [{id: "-lead"}]}}`, "agents.list[0].id", `"-lead" must match ^[a-z0-9][a-z0-9_-]{0,63}$`},
		{"agent id too long", `{agents: {list: [{id: "` + strings.Repeat("a", 65) + `"}]}}`, "agents.list[0].id", "must match"},
		{"agent id duplicate by case", `{agents: {list: [{id: "ops"}, {id: "OPS"}]}}`, "agents.list[1].id", `duplicate agent id "ops"`},
		{"two defaults", `{agents: {list: [{id: "a", default: true}, {id: "b"}, {id: "c", default: true}]}}`, "agents.list[2].default", "only one agent may be the default (agents.list[0] is already)"},
		{"agent model", `{agents: {list: [{id: "a", model: "local/x"}]}}`, "agents.list[0].model", `unknown provider "local"`},
		{"agent workspace tilde", `{agents: {list: [{id: "a", workspace: "~/ws"}]}}`, "agents.list[0].workspace", "~ is not expanded"},
		{"agent allowAgents", `{agents: {list: [{id: "a", subagents: {allowAgents: ["*", "a.b"]}}]}}`, "agents.list[0].subagents.allowAgents[1]", `"a.b" is neither`},
		{"agent sandbox mode", `{agents: {list: [{id: "a", sandbox: {mode: "on"}}]}}`, "agents.list[0].sandbox.mode", `"on" is not one of off, all`},
		{"agent tools", `{agents: {list: [{id: "a", tools: {deny: [""]}}]}}`, "agents.list[0].tools.deny[0]", "must not be empty"},
		// models
		{"model not listed", `{models: {providers: {anthropic: {models: ["claude-sonnet-4-5"]}}}, agents: {defaults: {model: "anthropic/claude-opus"}}}`, "agents.defaults.model", `model "claude-opus" is not in models.providers.anthropic.models (claude-sonnet-4-5)`},
		{"provider name", `{models: {providers: {"a/b": {api: "openai", baseUrl: "http://x"}}}}`, `models.providers["a/b"]`, "provider name must match"},
		{"script api", `{models: {providers: {script: {api: "openai"}}}}`, "models.providers.script.api", "built in and has no api"},
		{"builtin api mismatch", `{models: {providers: {openai: {api: "anthropic"}}}}`, "models.providers.openai.api", `the built-in openai provider speaks "openai"`},
		{"custom api missing", `{models: {providers: {local: {baseUrl: "http://127.0.0.1:1"}}}}`, "models.providers.local.api", "required for a custom provider"},
		{"custom api enum", `{models: {providers: {local: {api: "gemini", baseUrl: "http://127.0.0.1:1"}}}}`, "models.providers.local.api", `"gemini" is not one of openai, anthropic`},
		{"custom baseUrl missing", `{models: {providers: {local: {api: "openai"}}}}`, "models.providers.local.baseUrl", "required for a custom provider"},
		{"baseUrl invalid", `{models: {providers: {local: {api: "openai", baseUrl: "127.0.0.1:11434"}}}}`, "models.providers.local.baseUrl", "is not an http(s) URL"},
		{"baseUrl scheme", `{models: {providers: {openai: {baseUrl: "ftp://x/"}}}}`, "models.providers.openai.baseUrl", "is not an http(s) URL"},
		{"models entry", `{models: {providers: {openai: {models: [""]}}}}`, "models.providers.openai.models[0]", "must not be empty"},
		{"maxRetries", `{models: {providers: {openai: {maxRetries: 11}}}}`, "models.providers.openai.maxRetries", "11 is out of range (0..10)"},
		{"timeoutSeconds", `{models: {providers: {openai: {timeoutSeconds: -1}}}}`, "models.providers.openai.timeoutSeconds", "-1 is out of range (>= 0)"},
		{"rules on other provider", `{models: {providers: {openai: {rules: [{reply: "x"}]}}}}`, "models.providers.openai.rules", "only the script provider has rules"},
		{"rule regexp message", `{models: {providers: {script: {rules: [{when: {message: "(unclosed"}, reply: "x"}]}}}}`, "models.providers.script.rules[0].when.message", "invalid regexp: error parsing regexp: missing closing )"},
		{"rule regexp agent", `{models: {providers: {script: {rules: [{reply: "x"}, {when: {agent: "[z-a]"}, reply: "x"}]}}}}`, "models.providers.script.rules[1].when.agent", "invalid regexp"},
		{"rule regexp session", `{models: {providers: {script: {rules: [{when: {session: "*"}, reply: "x"}]}}}}`, "models.providers.script.rules[0].when.session", "invalid regexp"},
		{"rule regexp role", `{models: {providers: {script: {rules: [{when: {role: "(?P<"}, reply: "x"}]}}}}`, "models.providers.script.rules[0].when.role", "invalid regexp"},
		{"rule regexp system", `{models: {providers: {script: {rules: [{when: {system: "a{2,1}"}, reply: "x"}]}}}}`, "models.providers.script.rules[0].when.system", "invalid regexp"},
		{"rule no action", `{models: {providers: {script: {rules: [{when: {message: "x"}}]}}}}`, "models.providers.script.rules[0]", "want exactly one of reply, toolCall or error (found none)"},
		{"rule two actions", `{models: {providers: {script: {rules: [{reply: "x", error: "y"}]}}}}`, "models.providers.script.rules[0]", "(found reply, error)"},
		{"rule empty reply counts", `{models: {providers: {script: {rules: [{reply: "", toolCall: {name: "x"}}]}}}}`, "models.providers.script.rules[0]", "(found reply, toolCall)"},
		{"rule toolCall name", `{models: {providers: {script: {rules: [{toolCall: {arguments: {}}}]}}}}`, "models.providers.script.rules[0].toolCall.name", "must not be empty"},
		{"rule delay", `{models: {providers: {script: {rules: [{reply: "x", delayMs: -1}]}}}}`, "models.providers.script.rules[0].delayMs", "-1 is out of range (0..600000)"},
		{"rule chunkChars", `{models: {providers: {script: {rules: [{reply: "x", chunkChars: -2}]}}}}`, "models.providers.script.rules[0].chunkChars", "-2 is out of range (0..1048576)"},
		{"rule chunkMs", `{models: {providers: {script: {rules: [{reply: "x", chunkMs: 60001}]}}}}`, "models.providers.script.rules[0].chunkMs", "60001 is out of range (0..60000)"},
		// gateway
		{"listen", `{gateway: {listen: "18789"}}`, "gateway.listen", `"18789" is not host:port`},
		{"listen port", `{gateway: {listen: "localhost:http"}}`, "gateway.listen", `port "http" is not a number in 0..65535`},
		{"listen port range", `{gateway: {listen: "127.0.0.1:70000"}}`, "gateway.listen", "is not a number in 0..65535"},
		{"token space", `{gateway: {auth: {token: "a b"}}}`, "gateway.auth.token", "whitespace"},
		{"allowedOrigins path", `{gateway: {allowedOrigins: ["https://ui.example.com/app"]}}`, "gateway.allowedOrigins[0]", "must be an origin"},
		{"controlUi basePath root", `{gateway: {controlUi: {root: "/srv/ui", basePath: "/"}}}`, "gateway.controlUi.basePath", "taken by switchboard's own web UI"},
		{"allowedOrigins scheme", `{gateway: {allowedOrigins: ["https://a.example", "ui.example.com"]}}`, "gateway.allowedOrigins[1]", "must start with http:// or https://"},
		{"allowedOrigins wildcard", `{gateway: {allowedOrigins: ["*"]}}`, "gateway.allowedOrigins[0]", "must start with http:// or https://"},
		{"trustedProxies not an address", `{gateway: {trustedProxies: ["10.0.0.1", "proxy.example"]}}`, "gateway.trustedProxies[1]", "is not an IP address or CIDR range"},
		{"a2a remote endpoint not http", `{a2a: {remotes: [{id: "p", url: "https://x.example/c", endpoint: "ftp://x.example/rpc"}]}}`, "a2a.remotes[0].endpoint", "is not an http(s) URL"},
		{"a2a expose unknown", `{a2a: {expose: ["ghost"]}}`, "a2a.expose[0]", `"ghost" is not a configured agent`},
		{"a2a expose repeat", `{a2a: {expose: ["main", "MAIN"]}}`, "a2a.expose[1]", "repeats a2a.expose[0]"},
		{"a2a publicUrl", `{a2a: {publicUrl: "ftp://x"}}`, "a2a.publicUrl", "is not an http(s) URL"},
		{"a2a publicCards unknown", `{a2a: {publicCards: ["ghost"]}}`, "a2a.publicCards[0]", `"ghost" is not an exposed agent`},
		{"skill id", `{agents: {list: [{id: "a", skills: [{name: "x"}]}]}}`, "agents.list[0].skills[0].id", "must not be empty"},
		{"skill id repeat", `{agents: {list: [{id: "a", skills: [{id: "x"}, {id: "x"}]}]}}`, "agents.list[0].skills[1].id", "repeats"},
		{"limits negative", `{gateway: {limits: {maxConnections: -1}}}`, "gateway.limits.maxConnections", "-1 is out of range (>= 0)"},
		{"limits per address", `{gateway: {limits: {maxConnectionsPerAddress: -2}}}`, "gateway.limits.maxConnectionsPerAddress", "-2 is out of range (>= 0)"},
		{"limits timeout", `{gateway: {limits: {idleTimeoutSeconds: 86401}}}`, "gateway.limits.idleTimeoutSeconds", "out of range (0..86400)"},
		{"limits buffered below payload", `{gateway: {limits: {maxPayload: 2000, maxBufferedBytes: 1000}}}`, "gateway.limits.maxBufferedBytes", "smaller than gateway.limits.maxPayload"},
		{"tokens token empty", `{gateway: {auth: {tokens: [{scopes: ["read"]}]}}}`, "gateway.auth.tokens[0].token", "must not be empty"},
		{"tokens repeat main", `{gateway: {auth: {token: "t1", tokens: [{token: "t1"}]}}}`, "gateway.auth.tokens[0].token", "repeats gateway.auth.token"},
		{"tokens duplicate", `{gateway: {auth: {tokens: [{token: "t2"}, {token: "t2"}]}}}`, "gateway.auth.tokens[1].token", "repeats gateway.auth.tokens[0].token"},
		{"tokens scope", `{gateway: {auth: {tokens: [{token: "t", scopes: ["read", "root"]}]}}}`, "gateway.auth.tokens[0].scopes[1]", `"root" is not one of read, write, admin`},
		{"tokens name blank", `{gateway: {auth: {tokens: [{token: "t", name: " "}]}}}`, "gateway.auth.tokens[0].name", "must not be blank"},
		{"tokens name duplicate", `{gateway: {auth: {tokens: [{token: "t1", name: "ci"}, {token: "t2", name: "ci"}]}}}`, "gateway.auth.tokens[1].name", "repeats gateway.auth.tokens[0].name"},
		{"tokens name operator", `{gateway: {auth: {tokens: [{token: "t1", name: "operator"}]}}}`, "gateway.auth.tokens[0].name", "reserved"},
		{"tokens session", `{gateway: {auth: {tokens: [{token: "t", session: "agent:main"}]}}}`, "gateway.auth.tokens[0].session", "want agent:<agentId>:<rest>"},
		// runtime
		{"maxSteps zero", `{runtime: {maxSteps: 0}}`, "runtime.maxSteps", "0 is out of range (1..1000)"},
		{"maxSteps high", `{runtime: {maxSteps: 1001}}`, "runtime.maxSteps", "1001 is out of range (1..1000)"},
		{"lane main", `{runtime: {lanes: {main: 0}}}`, "runtime.lanes.main", "0 is out of range (>= 1)"},
		{"lane nested", `{runtime: {lanes: {nested: -1}}}`, "runtime.lanes.nested", "-1 is out of range (>= 1)"},
		{"lane subagent", `{runtime: {lanes: {subagent: 0}}}`, "runtime.lanes.subagent", "0 is out of range (>= 1)"},
		// channels
		{"channel name", `{channels: {webhook: {"Dis cord": {url: "https://h.example.com"}}}}`, `channels.webhook["Dis cord"]`, "channel name must match"},
		{"channel webhook", `{channels: {webhook: {ops: {url: "hooks.example.com"}}}}`, "channels.webhook.ops.url", "is not an http(s) URL"},
		{"channel webhook, old form", `{channels: {ops: {webhookUrl: "https://hooks.example.com"}}}`, "channels.ops.webhookUrl", "moved: write it as channels.webhook.ops.url"},
		{"telegram key outside the schema", `{channels: {telegram: {botTokn: "x"}}}`, "channels.telegram.botTokn", "unknown key"},
		{"telegram dmPolicy", `{channels: {telegram: {dmPolicy: "everyone"}}}`, "channels.telegram.dmPolicy", "want one of"},
		{"telegram group key", `{channels: {telegram: {groups: {"-100": {requireMentoin: true}}}}}`, "channels.telegram.groups.-100.requireMentoin", "unknown key"},
		{"signal key outside the schema", `{channels: {signal: {acount: "+1555"}}}`, "channels.signal.acount", "unknown key"},
		{"signal httpUrl", `{channels: {signal: {httpUrl: "127.0.0.1:8080"}}}`, "channels.signal.httpUrl", "must match"},
		{"whatsapp phoneNumberId", `{channels: {whatsapp: {phoneNumberId: "12a"}}}`, "channels.whatsapp.phoneNumberId", "must match"},
		{"whatsapp dmPolicy", `{channels: {whatsapp: {dmPolicy: "everyone"}}}`, "channels.whatsapp.dmPolicy", "want one of"},
		{"bluebubbles group key", `{channels: {bluebubbles: {groups: {g: {requireMentoin: true}}}}}`, "channels.bluebubbles.groups.g.requireMentoin", "unknown key"},
		{"imessage", `{channels: {imessage: {cliPath: "imsg"}}}`, "channels.imessage", "channels.bluebubbles"},
		{"session dmScope", `{session: {dmScope: "per-room"}}`, "session.dmScope", "want"},
		{"binding agent", `{bindings: [{agentId: "nobody", match: {channel: "telegram"}}]}`, "bindings[0].agentId", "unknown agent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseProblems(t, tt.in, nil)
			if len(got) == 0 {
				t.Fatalf("Parse(%s) succeeded, want a problem at %s", tt.in, tt.path)
			}
			if got[0].Path != tt.path || !strings.Contains(got[0].Message, tt.msg) {
				t.Fatalf("Parse(%s) = %q, want %s: …%s…", tt.in, got, tt.path, tt.msg)
			}
			if len(got) > 1 && tt.name != "agent id bad" {
				t.Errorf("Parse(%s): extra problems %q", tt.in, got[1:])
			}
		})
	}
}

func TestValidModelRefs(t *testing.T) {
	for _, ref := range []string{
		"script", "script/echo", "openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5",
		"local/llama3.1:8b", "vllm/meta-llama/Llama-3.1-8B-Instruct",
	} {
		in := `{
			models: {providers: {
				local: {api: "openai", baseUrl: "http://127.0.0.1:11434/v1"},
				vllm: {api: "openai", baseUrl: "http://10.0.0.2:8000/v1"},
			}},
			agents: {defaults: {model: "` + ref + `"}},
		}`
		if got := parseProblems(t, in, nil); got != nil {
			t.Errorf("model %q: %q", ref, got)
		}
	}
}

func TestValidationCollectsEveryProblem(t *testing.T) {
	in := `{
		session: {scope: "solo", agentToAgent: {maxPingPongTurns: -2}},
		tools: {sessions: {visiblity: "all"}},
		agents: {list: [{id: "main"}, {id: "main"}, {id: "x", modle: "script"}]},
		runtime: {maxSteps: 0},
	}`
	_, err := Parse([]byte(in), nil)
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Parse: want *ValidationError, got %v", err)
	}
	want := strings.Join([]string{
		`agents.list[2].modle: unknown key (did you mean "model"?)`,
		`tools.sessions.visiblity: unknown key (did you mean "visibility"?)`,
		`session.scope: "solo" is not one of per-sender, global`,
		`session.agentToAgent.maxPingPongTurns: -2 is out of range (0..5)`,
		`agents.list[1].id: duplicate agent id "main" (also agents.list[0].id)`,
		`runtime.maxSteps: 0 is out of range (1..1000)`,
	}, "\n")
	if got := err.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
}

func TestValidateProgrammaticConfig(t *testing.T) {
	cfg := Default()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("Default: %v", err)
	}
	cfg.Session.AgentToAgent.MaxPingPongTurns = 9 // Validate checks, it does not clamp
	cfg.Agents.List = append(cfg.Agents.List, AgentConfig{ID: "Main"})
	err := cfg.Validate()
	want := "session.agentToAgent.maxPingPongTurns: 9 is out of range (0..5)\n" +
		`agents.list[1].id: duplicate agent id "main" (also agents.list[0].id)`
	if err == nil || err.Error() != want {
		t.Errorf("Validate() = %v, want\n%s", err, want)
	}
	var nilCfg *Config
	if nilCfg.Validate() == nil {
		t.Error("nil config validated")
	}
}

func TestLoadReportsFileAndProblems(t *testing.T) {
	path := writeFile(t, `{runtime: {maxSteps: 0, lanes: {main: 0}}}`)
	_, err := Load(path, nil)
	want := "invalid config " + path + ":\nruntime.maxSteps: 0 is out of range (1..1000)\nruntime.lanes.main: 0 is out of range (>= 1)"
	if err == nil || err.Error() != want {
		t.Errorf("Load error =\n%v\nwant\n%s", err, want)
	}
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Problems) != 2 {
		t.Errorf("Load error does not wrap the *ValidationError: %#v", err)
	}
	path = writeFile(t, "{\n  a: 1,\n  b: ]\n}")
	if _, err := Load(path, nil); err == nil || !strings.Contains(err.Error(), "config "+path+": line 3, column 6") {
		t.Errorf("Load syntax error = %v", err)
	}
}
