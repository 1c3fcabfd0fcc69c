package webhook

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the webhook's Prometheus metrics: reviews by path and
// outcome, their latency, and config reloads by result.
type Metrics struct {
	Reviews *prometheus.CounterVec
	Latency *prometheus.HistogramVec
	Reloads *prometheus.CounterVec
}

// NewMetrics registers the metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Reviews: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sidecar_lifecycle_webhook_reviews_total",
			Help: "AdmissionReviews answered, by path and outcome.",
		}, []string{"path", "outcome"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "sidecar_lifecycle_webhook_review_duration_seconds",
			Help:    "Time to answer an AdmissionReview, by path.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"path"}),
		Reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "sidecar_lifecycle_webhook_config_reloads_total",
			Help: "Config file reloads, by result (applied or refused).",
		}, []string{"result"}),
	}
	reg.MustRegister(m.Reviews, m.Latency, m.Reloads)
	return m
}

func (m *Metrics) observe(path, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.Reviews.WithLabelValues(path, outcome).Inc()
	m.Latency.WithLabelValues(path).Observe(d.Seconds())
}
