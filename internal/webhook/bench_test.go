package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// BenchmarkWebhookMutate is one /mutate review of the benchmark's meshed
// Pod (bench/webhook/pod.json, about 12 KB), in process: decode, engine,
// patch, encode.
func BenchmarkWebhookMutate(b *testing.B) {
	raw, err := os.ReadFile("../../bench/webhook/pod.json")
	if err != nil {
		b.Fatal(err)
	}
	var pod bytes.Buffer
	if err := json.Compact(&pod, raw); err != nil {
		b.Fatal(err)
	}
	body := reviewBody(b, "u", pod.Bytes())
	h := newHandler(b, nil).Mutate()
	if _, resp := post(b, h, body); resp == nil || len(resp.Patch) == 0 {
		b.Fatal("no patch")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
