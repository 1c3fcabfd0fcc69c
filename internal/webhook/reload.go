package webhook

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// configFile is the policy file, read again when its bytes change: a
// config that does not load is refused and the last good one kept.
type configFile struct {
	path    string
	log     *slog.Logger
	reloads *prometheus.CounterVec
	last    []byte
}

// load reads the file (the catalog's defaults without one).
func (c *configFile) load() (*config.SidecarLifecycle, error) {
	if c.path == "" {
		return config.Load(nil)
	}
	b, err := os.ReadFile(c.path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	cfg, err := config.LoadBytes(b)
	if err != nil {
		return nil, fmt.Errorf("--config %s: %w", c.path, err)
	}
	c.last = b
	return cfg, nil
}

// watch polls the file every interval (2s when zero; a mounted ConfigMap
// changes by a symlink swap, which polling sees) and gives set each new
// config that loads.
func (c *configFile) watch(ctx context.Context, interval time.Duration, set func(*config.SidecarLifecycle)) {
	if c.path == "" {
		return
	}
	if interval <= 0 {
		interval = 2 * time.Second
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		b, err := os.ReadFile(c.path)
		if err != nil || bytes.Equal(b, c.last) {
			continue
		}
		c.last = b
		cfg, err := config.LoadBytes(b)
		if err != nil {
			c.reloads.WithLabelValues("refused").Inc()
			c.log.Error("config refused; the last good one stays", "file", c.path, "err", err)
			continue
		}
		set(cfg)
		c.reloads.WithLabelValues("applied").Inc()
		c.log.Info("config reloaded", "file", c.path)
	}
}
