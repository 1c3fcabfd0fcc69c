package transformer_test

import (
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

func mustConfig(t *testing.T, text string) *config.SidecarLifecycle {
	t.Helper()
	cfg, err := config.LoadBytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
