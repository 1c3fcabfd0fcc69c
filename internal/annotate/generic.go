package annotate

import (
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// exitKey is the exit delay annotation's key; empty when there is none.
func exitKey(a *preset.Annotations) string {
	if a.ExitDelay == nil {
		return ""
	}
	return a.ExitDelay.Key
}
