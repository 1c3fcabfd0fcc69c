package config

import (
	"time"
)

// DefaultMargin is added to the longest preStop for the grace period.
const DefaultMargin = 10 * time.Second

// Default fills every unset field with its default. An empty sidecar list
// becomes every preset, applied where its container is present.
func (c *SidecarLifecycle) Default() {
	s := &c.Spec
	if s.KubernetesVersion == "" {
		s.KubernetesVersion = DefaultKubernetesVersion
	}
	if s.Mode == "" {
		s.Mode = ModeOrdered
	}
	if s.Action == "" {
		s.Action = ActionMutate
	}
	if s.TerminationGracePeriod.Policy == "" {
		s.TerminationGracePeriod.Policy = GraceRaise
	}
	if !s.TerminationGracePeriod.Margin.IsSet() {
		s.TerminationGracePeriod.Margin = NewDuration(DefaultMargin)
	}
	if s.ExistingHooks == "" {
		s.ExistingHooks = HooksKeep
	}
	if len(s.Sidecars) == 0 {
		recognise := s.Catalog.Recognising()
		for _, p := range startOrder(s.Catalog.Entries) {
			s.Sidecars = append(s.Sidecars, Sidecar{Name: p.container(), Preset: p.Name, IfAbsent: IfAbsentSkip,
				Recognise: recognise, FromCatalog: recognise})
		}
	}
	for i := range s.Sidecars {
		s.defaultSidecar(&s.Sidecars[i])
	}
}

func (s *Spec) defaultSidecar(sc *Sidecar) {
	if sc.Preset == "" {
		sc.Preset = presetNone
	}
	p, ok := s.preset(sc.Preset)
	if !ok {
		return // Validate reports the unknown preset.
	}
	if sc.Name == "" && (p.container() != "" || len(p.Images) > 0) {
		sc.Name, sc.Recognise = p.container(), true
	}
	if sc.IfAbsent == "" {
		sc.IfAbsent = IfAbsentSkip
		if p.annotates() {
			sc.IfAbsent = IfAbsentAnnotate
		}
	}
	// Validate takes cloudSQLProxy.healthCheck, once checked, as healthCheck.
	if p.switchesEndpoint() && sc.HealthCheck == "" && sc.CloudSQLProxy == nil {
		sc.HealthCheck = HealthCheckEnable
	}
	if sleep := p.sleepCommand(); sc.SleepCommand == nil && len(sleep) > 0 {
		sc.SleepCommand = sleep
	}
}
