package crabline

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
)

func discordDirect(a, b string) string {
	if a > b {
		a, b = b, a
	}
	sum := sha256.Sum256([]byte(a + ":" + b))
	n, _ := new(big.Int).SetString(hex.EncodeToString(sum[:8]), 16)
	n.Mod(n, big.NewInt(900000000000000000))
	return n.Add(n, big.NewInt(100000000000000000)).String()
}
