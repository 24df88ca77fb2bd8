package config

import (
	"fmt"
	"strings"
)

// expandEnv replaces ${NAME} in s with getenv(NAME). "$${" is a literal
// "${"; any other '$' is kept as is (script replies use $1). An unset or
// empty variable is an error: getenv cannot tell them apart, and an empty
// API key or token is never what was meant.
func expandEnv(s string, getenv func(string) string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "$${"):
			b.WriteString("${")
			i += 3
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("unterminated ${ (write $${ for a literal ${)")
			}
			name := s[i+2 : i+2+end]
			if !validEnvName(name) {
				return "", fmt.Errorf("invalid environment variable name %q in ${…} (write $${ for a literal ${)", clip(name))
			}
			val := ""
			if getenv != nil {
				val = getenv(name)
			}
			if val == "" {
				return "", fmt.Errorf("environment variable %s is not set", name)
			}
			b.WriteString(val)
			i += 2 + end + 1
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String(), nil
}

// validEnvName reports whether name is [A-Za-z_][A-Za-z0-9_]*.
func validEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_', 'A' <= r && r <= 'Z', 'a' <= r && r <= 'z':
		case i > 0 && '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return true
}

// clip shortens s for an error message.
func clip(s string) string {
	const max = 60
	if len(s) <= max {
		return s
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}
