package config

import (
	"path/filepath"
	"testing"
)

func TestResolvePaths(t *testing.T) {
	home := filepath.FromSlash("/home/u")
	p := filepath.FromSlash
	tests := []struct {
		name                string
		flagState, flagConf string
		env                 map[string]string
		wantState, wantConf string
	}{
		{name: "defaults", wantState: p("/home/u/.switchboard"), wantConf: p("/home/u/.switchboard/switchboard.json5")},
		{name: "env state dir", env: map[string]string{"SWITCHBOARD_STATE_DIR": "/srv/sb"}, wantState: p("/srv/sb"), wantConf: p("/srv/sb/switchboard.json5")},
		{name: "flag beats env", flagState: "/opt/sb", env: map[string]string{"SWITCHBOARD_STATE_DIR": "/srv/sb"}, wantState: p("/opt/sb"), wantConf: p("/opt/sb/switchboard.json5")},
		{name: "env config", env: map[string]string{"SWITCHBOARD_CONFIG": "/etc/sb.json5"}, wantState: p("/home/u/.switchboard"), wantConf: p("/etc/sb.json5")},
		{name: "flag config beats env", flagConf: "./my.json5", env: map[string]string{"SWITCHBOARD_CONFIG": "/etc/sb.json5"}, wantState: p("/home/u/.switchboard"), wantConf: "my.json5"},
		{name: "tilde", flagState: "~/sb", flagConf: "~/cfg/x.json5", wantState: p("/home/u/sb"), wantConf: p("/home/u/cfg/x.json5")},
		{name: "bare tilde", flagState: "~", wantState: p("/home/u"), wantConf: p("/home/u/switchboard.json5")},
		{name: "blank values ignored", flagState: " ", env: map[string]string{"SWITCHBOARD_STATE_DIR": " "}, wantState: p("/home/u/.switchboard"), wantConf: p("/home/u/.switchboard/switchboard.json5")},
	}
	for _, tt := range tests {
		state, conf := ResolvePaths(tt.flagState, tt.flagConf, env(tt.env), home)
		if state != tt.wantState || conf != tt.wantConf {
			t.Errorf("%s: ResolvePaths = %q, %q; want %q, %q", tt.name, state, conf, tt.wantState, tt.wantConf)
		}
	}
	if state, _ := ResolvePaths("", "", nil, home); state != p("/home/u/.switchboard") {
		t.Errorf("nil getenv: state = %q", state)
	}
}
