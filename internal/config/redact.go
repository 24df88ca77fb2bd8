package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
)

// Redacted returns a deep copy of c with secrets masked: provider API keys
// and gateway tokens become "***" (followed by their last four characters
// when they are long enough that this gives nothing away), and passwords in
// URLs are masked.
func (c *Config) Redacted() *Config {
	out := c.clone()
	for name, p := range out.Models.Providers {
		p.APIKey = mask(p.APIKey)
		p.BaseURL = redactURL(p.BaseURL)
		out.Models.Providers[name] = p
	}
	out.Gateway.Auth.Token = mask(out.Gateway.Auth.Token)
	for i := range out.Gateway.Auth.Tokens {
		out.Gateway.Auth.Tokens[i].Token = mask(out.Gateway.Auth.Tokens[i].Token)
	}
	out.Store.URL = redactURL(out.Store.URL)
	for i := range out.A2A.Remotes {
		out.A2A.Remotes[i].Token = mask(out.A2A.Remotes[i].Token)
		out.A2A.Remotes[i].URL = redactURL(out.A2A.Remotes[i].URL)
	}
	for name, ch := range out.Channels.Webhook {
		ch.URL = redactURL(ch.URL)
		out.Channels.Webhook[name] = ch
	}
	for k, h := range out.Tracing.Headers {
		out.Tracing.Headers[k] = mask(h)
	}
	out.Tracing.Endpoint = redactURL(out.Tracing.Endpoint)
	maskSecrets(out.Channels.Telegram)
	maskSecrets(out.Channels.Discord)
	maskSecrets(out.Channels.Signal)
	maskSecrets(out.Channels.WhatsApp)
	maskSecrets(out.Channels.BlueBubbles)
	return out
}

// clone deep-copies c, so the copy shares no pointers, slices or maps.
func (c *Config) clone() *Config {
	out := deepCopy(reflect.ValueOf(*c)).Interface().(Config)
	return &out
}

// deepCopy copies v and everything it points to.
func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(deepCopy(v.Elem()))
		return p
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(deepCopy(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), deepCopy(it.Value()))
		}
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(deepCopy(v.Elem()))
		return out
	}
	return v
}

// mask hides a secret, keeping the last four characters of long ones.
func mask(s string) string {
	const keep, minLen = 4, 16
	switch {
	case s == "":
		return ""
	case len(s) < minLen:
		return "***"
	}
	return "***" + s[len(s)-keep:]
}

// redactURL masks the password of a URL's user info.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "***")
	}
	return u.String()
}

// MarshalIndent returns c as indented JSON (valid JSON5), ending in a
// newline, for `switchboard config show`. Call Redacted first to hide
// secrets.
func (c *Config) MarshalIndent() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("config: marshal: %w", err)
	}
	return append(b, '\n'), nil
}

// secretKeys are the provider config keys that hold credentials.
var secretKeys = map[string]bool{"botToken": true, "token": true, "webhookSecret": true, "signingSecret": true,
	"appToken": true, "userToken": true, "password": true, "apiKey": true, "accessToken": true, "appSecret": true,
	"verifyToken": true}

// maskSecrets masks every credential of a provider block in place (a
// secret reference {source, provider, id} names no secret and stays).
func maskSecrets(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && secretKeys[k] {
				x[k] = mask(s)
				continue
			}
			maskSecrets(e)
		}
	case []any:
		for _, e := range x {
			maskSecrets(e)
		}
	}
}
