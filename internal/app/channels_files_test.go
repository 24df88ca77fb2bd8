package app

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/channels/bluebubbles"
	"github.com/switchboard-go/switchboard/internal/channels/discord"
	"github.com/switchboard-go/switchboard/internal/channels/signal"
	"github.com/switchboard-go/switchboard/internal/channels/telegram"
	"github.com/switchboard-go/switchboard/internal/channels/whatsapp"
	"github.com/switchboard-go/switchboard/internal/delivery"
)

// The channels a send with files is accepted for are exactly those whose
// adapters send files.
func TestFileChannelsAgree(t *testing.T) {
	for name, a := range map[string]channels.Adapter{
		telegram.Channel: (*telegram.Adapter)(nil), discord.ChannelName: (*discord.Adapter)(nil),
		signal.Channel: (*signal.Adapter)(nil), whatsapp.Channel: (*whatsapp.Adapter)(nil),
		bluebubbles.Channel: (*bluebubbles.Adapter)(nil),
	} {
		if _, ok := a.(channels.FileSender); ok != delivery.SendsFiles(name) {
			t.Errorf("%s: the adapter sends files: %v; delivery accepts files for it: %v", name, ok, delivery.SendsFiles(name))
		}
	}
}
