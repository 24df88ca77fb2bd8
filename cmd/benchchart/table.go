package main

import (
	"fmt"
	"io"
)

// writeTable prints, per size, each operation's p50 on both sides and
// their ratio, then memory and disk.
func writeTable(w io.Writer, sizes []size) error {
	for _, s := range sizes {
		fmt.Fprintf(w, "\n**%d sessions × 50 messages + one 100,000-message session** (OpenClaw %s; p50, ms)\n\n", s.N, s.OC.Version)
		fmt.Fprintln(w, "| operation | OpenClaw | switchboard | OpenClaw ÷ switchboard |")
		fmt.Fprintln(w, "| --- | ---: | ---: | ---: |")
		for _, op := range operations {
			oc, sb := s.OC.Ms[op.OC].P50, s.SB.stat(op.SB).P50
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", op.Name, num(oc), num(sb), ratio(oc, sb))
		}
		fmt.Fprintf(w, "| memory after listing, MiB (peak) | %.0f (%.0f) | %.0f (%.0f) | %s |\n",
			s.OC.MemMB.AfterList, s.OC.MemMB.Peak, s.SB.MemMB.RSS, s.SB.MemMB.Peak, ratio(s.OC.MemMB.AfterList, s.SB.MemMB.RSS))
		ocDisk := float64(s.OC.Disk.SessionsDir) / (1 << 20)
		sbDisk := float64(s.SB.Disk) / (1 << 20)
		fmt.Fprintf(w, "| disk, MiB (OpenClaw's sessions dir; switchboard's store without the JSONL mirror) | %.0f | %.0f | %s |\n", ocDisk, sbDisk, ratio(ocDisk, sbDisk))
		if msgs := float64(s.SB.Import.Messages); msgs > 0 {
			ocPer, sbPer := float64(s.OC.Disk.SessionsDir)/msgs, float64(s.SB.Disk)/msgs
			fmt.Fprintf(w, "| disk per message, bytes (switchboard: the store alone) | %.0f | %.0f | %s |\n", ocPer, sbPer, ratio(ocPer, sbPer))
			if s.SB.MirrorDisk > 0 {
				withMirror := float64(s.SB.Disk+s.SB.MirrorDisk) / msgs
				fmt.Fprintf(w, "| disk per message, bytes (switchboard: store + JSONL mirror, the default) | %.0f | %.0f | %s |\n", ocPer, withMirror, ratio(ocPer, withMirror))
			}
		}
		if s.SB.Import.Seconds > 0 {
			fmt.Fprintf(w, "\nswitchboard imported %d messages in %.1f s (%.0f messages/s).\n", s.SB.Import.Messages, s.SB.Import.Seconds,
				float64(s.SB.Import.Messages)/s.SB.Import.Seconds)
		}
	}
	return nil
}

func num(v float64) string {
	switch {
	case v == 0:
		return "—"
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "—"
	}
	r := a / b
	if r < 10 {
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.0f×", r)
}
