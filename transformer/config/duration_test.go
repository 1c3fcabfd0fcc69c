package config_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{in: "30s", want: 30 * time.Second},
		{in: "2m", want: 2 * time.Minute},
		{in: "1h30m", want: 90 * time.Minute},
		{in: "1.5s", want: 1500 * time.Millisecond},
		{in: "45", want: 45 * time.Second},
		{in: "0", want: 0},
		{in: "0s", want: 0},
		{in: " 10s ", want: 10 * time.Second},
		{in: "", wantErr: "empty duration"},
		{in: "   ", wantErr: "empty duration"},
		{in: "-1s", wantErr: `"-1s" is negative`},
		{in: "-5", wantErr: `"-5" is negative`},
		{in: "soon", wantErr: `"soon" is not a duration such as 30s, 2m or a whole number of seconds`},
		{in: "30x", wantErr: "is not a duration"},
		{in: "5 minutes", wantErr: "is not a duration"},
		{in: "1e3", wantErr: "is not a duration"},
		{in: "9223372036", wantErr: `"9223372036" is out of range: the longest duration the function takes is 4611686018s`},
		{in: "99999999999999999999", wantErr: `"99999999999999999999" is out of range`},
		{in: "9999999999h", wantErr: `"9999999999h" is out of range`},
		{in: "1h9999999999h", wantErr: "is out of range"},
		{in: "-99999999999999999999", wantErr: `"-99999999999999999999" is negative`},
		{in: "-9999999999h", wantErr: "is negative"},
		{in: "-0", want: 0},
		{in: "-0s", want: 0},
		{in: "+5", want: 5 * time.Second},
		{in: "4611686018", want: 4611686018 * time.Second},
		{in: "4611686019", wantErr: "is out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := config.ParseDuration(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseDuration(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestSecondsRoundsUp(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want int64
	}{
		{0, 0},
		{time.Millisecond, 1},
		{time.Second, 1},
		{1500 * time.Millisecond, 2},
		{30 * time.Second, 30},
		{2 * time.Minute, 120},
	}
	for _, tc := range tests {
		if got := config.Seconds(tc.in); got != tc.want {
			t.Errorf("Seconds(%v) = %d, want %d", tc.in, got, tc.want)
		}
		if got := (config.Duration{Value: tc.in}).Seconds(); got != tc.want {
			t.Errorf("Duration{%v}.Seconds() = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestDurationJSON(t *testing.T) {
	tests := []struct {
		json    string
		wantRaw string
		wantSet bool
	}{
		{`"30s"`, "30s", true},
		{`45`, "45", true},
		{`0`, "0", true},
		{`null`, "", false},
		{`"garbage"`, "garbage", true}, // kept raw; Validate reports it with its path
	}
	for _, tc := range tests {
		t.Run(tc.json, func(t *testing.T) {
			var d config.Duration
			if err := json.Unmarshal([]byte(tc.json), &d); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			if d.Raw != tc.wantRaw || d.IsSet() != tc.wantSet {
				t.Errorf("got Raw %q IsSet %v, want %q %v", d.Raw, d.IsSet(), tc.wantRaw, tc.wantSet)
			}
		})
	}

	marshal := []struct {
		d    config.Duration
		want string
	}{
		{config.Duration{Raw: "45"}, `"45"`},
		{config.Duration{Value: 90 * time.Second}, `"1m30s"`},
		{config.NewDuration(10 * time.Second), `"10s"`},
	}
	for _, tc := range marshal {
		b, err := json.Marshal(tc.d)
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.d, b, err, tc.want)
		}
	}
	if d := config.NewDuration(10 * time.Second); !d.IsSet() || d.Value != 10*time.Second {
		t.Errorf("NewDuration(10s) = %+v, want set to 10s", d)
	}
}

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in      string
		want    config.Version
		wantErr string
	}{
		{in: "1.30", want: config.Version{Major: 1, Minor: 30}},
		{in: "v1.29.3", want: config.Version{Major: 1, Minor: 29}},
		{in: "1.28.0", want: config.Version{Major: 1, Minor: 28}},
		{in: "v1.33", want: config.Version{Major: 1, Minor: 33}},
		{in: "1.100", want: config.Version{Major: 1, Minor: 100}},
		{in: " 1.33 ", wantErr: `" 1.33 " is not a Kubernetes version such as "1.30"`},
		{in: "1.+5", wantErr: "is not a Kubernetes version"},
		{in: "1.30-eks", wantErr: "is not a Kubernetes version"},
		{in: "v2.1", wantErr: `"v2.1" is not a Kubernetes 1.x version`},
		{in: "2.0", wantErr: `"2.0" is not a Kubernetes 1.x version`},
		{in: "1", wantErr: `"1" is not a Kubernetes version such as "1.30"`},
		{in: "", wantErr: "is not a Kubernetes version"},
		{in: "1.30.1.2", wantErr: "is not a Kubernetes version"},
		{in: "1.x", wantErr: "is not a Kubernetes version"},
		{in: "1.-1", wantErr: "is not a Kubernetes version"},
		{in: "1.99999999999999999999", wantErr: `"1.99999999999999999999" is out of range: no Kubernetes version has a number that large; write one such as "1.30"`},
		{in: "latest", wantErr: "is not a Kubernetes version"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := config.ParseVersion(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseVersion(%q) = %v, %v; want error containing %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseVersion(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestVersionAtLeast(t *testing.T) {
	tests := []struct {
		v     config.Version
		minor int
		want  bool
	}{
		{config.Version{Major: 1, Minor: 30}, config.SleepActionMinor, true},
		{config.Version{Major: 1, Minor: 29}, config.SleepActionMinor, false},
		{config.Version{Major: 1, Minor: 29}, config.NativeSidecarMinor, true},
		{config.Version{Major: 1, Minor: 28}, config.NativeSidecarMinor, false},
		{config.Version{Major: 2, Minor: 0}, config.SleepActionMinor, true},
	}
	for _, tc := range tests {
		if got := tc.v.AtLeast(tc.minor); got != tc.want {
			t.Errorf("%v.AtLeast(%d) = %v, want %v", tc.v, tc.minor, got, tc.want)
		}
	}
	if got := (config.Version{Major: 1, Minor: 9}).String(); got != "1.9" {
		t.Errorf("String() = %q, want 1.9", got)
	}
}

// TestWaitBeforeExitAuto: auto is a waitBeforeExit, in the config, its
// ConfigMap form and the schema, and nowhere else.
func TestWaitBeforeExitAuto(t *testing.T) {
	cfg, err := config.LoadBytes([]byte(`apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
kind: SidecarLifecycle
spec:
  sidecars: [{preset: linkerd, waitBeforeExit: auto}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if sc := cfg.Spec.Sidecars[0]; !sc.WaitBeforeExit.IsAuto() || sc.WaitBeforeExit.Value != 0 {
		t.Errorf("waitBeforeExit auto loaded as %+v", sc.WaitBeforeExit)
	}
	cm, err := config.LoadBytes([]byte("apiVersion: v1\nkind: ConfigMap\ndata: {preset: linkerd, waitBeforeExit: auto}\n"))
	if err != nil || !cm.Spec.Sidecars[0].WaitBeforeExit.IsAuto() {
		t.Errorf("ConfigMap waitBeforeExit auto: %v", err)
	}
	for _, field := range []string{"terminationGracePeriod: {margin: auto}", "app: {drainDelay: auto}"} {
		_, err := config.LoadBytes([]byte("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  " + field + "\n"))
		if err == nil || !strings.Contains(err.Error(), `"auto" is not a duration`) {
			t.Errorf("%s: want an error, got %v", field, err)
		}
	}
	schema := config.CompiledSchema(t)
	head := "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec:\n  "
	if err := config.SchemaVerdict(t, schema, head+"sidecars: [{preset: linkerd, waitBeforeExit: auto}]\n"); err != nil {
		t.Errorf("schema rejects waitBeforeExit auto: %v", err)
	}
	if err := config.SchemaVerdict(t, schema, head+"terminationGracePeriod: {margin: auto}\n"); err == nil {
		t.Error("schema accepts margin auto")
	}
}
