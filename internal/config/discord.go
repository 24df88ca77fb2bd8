package config

import _ "embed"

// discordSchemaDoc is OpenClaw 2026.9.6's schema of `channels.discord`
// (its bundled channel metadata, with defaults folded out of `required`:
// OpenClaw fills them before it validates), plus switchboard's two
// additions, `apiRoot` and `gatewayUrl`, at the top level and in
// `accounts.<id>` (docs/channels.md lists them as a difference).
//
//go:embed schema/discord.json
var discordSchemaDoc []byte

var discordSchema schemaCache
