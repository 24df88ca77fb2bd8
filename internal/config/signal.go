package config

import _ "embed"

// signalSchemaDoc is OpenClaw 2026.9.6's schema of `channels.signal`
// (defaults folded out of `required`, as for Telegram), plus `httpUrl` at
// the top level and in `accounts.<id>`: the daemon URL key of earlier
// OpenClaw versions, which its doctor still migrates httpHost/httpPort to.
//
//go:embed schema/signal.json
var signalSchemaDoc []byte

var signalSchema schemaCache

// whatsappSchemaDoc is OpenClaw 2026.9.6's schema of `channels.whatsapp`
// (a WhatsApp Web channel there) plus the WhatsApp Cloud API keys
// switchboard speaks it through: accessToken, phoneNumberId, appSecret,
// verifyToken, apiRoot, and the webhook listener's webhookPath,
// webhookHost and webhookPort (docs/channels.md lists them as a
// difference).
//
//go:embed schema/whatsapp.json
var whatsappSchemaDoc []byte

var whatsappSchema schemaCache

// bluebubblesSchemaDoc is OpenClaw's former `channels.bluebubbles` block
// (the keys of its BlueBubbles plugin's config schema, which 2026.9.6 no
// longer ships), plus the webhook listener's webhookHost and webhookPort.
//
//go:embed schema/bluebubbles.json
var bluebubblesSchemaDoc []byte

var bluebubblesSchema schemaCache
