package faults

import (
	"os"
	"testing"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
