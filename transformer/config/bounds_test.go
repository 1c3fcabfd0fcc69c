package config_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestLoadDelayBounds: a delay longer than MaxDelay, alone or with the
// margin added into a grace period, is an error naming the field.
func TestLoadDelayBounds(t *testing.T) {
	spec := header + "spec:\n"
	for _, tc := range []struct {
		name, config string
		wantPaths    []string
		wantMsg      string
	}{
		{"waitBeforeExit over a day", spec + "  sidecars: [{preset: linkerd, waitBeforeExit: 25h}]\n",
			[]string{"spec.sidecars[0].waitBeforeExit"}, `"25h" is longer than the maximum 24h: use a delay of at most 24h`},
		{"seconds beyond int64 nanoseconds", spec + "  sidecars: [{preset: linkerd, waitBeforeExit: \"9223372036\"}]\n",
			[]string{"spec.sidecars[0].waitBeforeExit"}, `"9223372036" is longer than the maximum 24h: use a delay of at most 24h`},
		{"seconds beyond int64", spec + "  sidecars: [{preset: linkerd, waitBeforeExit: \"99999999999999999999\"}]\n",
			[]string{"spec.sidecars[0].waitBeforeExit"}, `"99999999999999999999" is longer than the maximum 24h: use a delay of at most 24h`},
		{"hours beyond int64 nanoseconds", spec + "  app: {drainDelay: 9999999999h}\n",
			[]string{"spec.app.drainDelay"}, `"9999999999h" is longer than the maximum 24h: use a delay of at most 24h`},
		{"drainDelay over a day", spec + "  app: {drainDelay: \"86401\"}\n",
			[]string{"spec.app.drainDelay"}, `"86401" is longer than the maximum`},
		{"margin over a day", spec + "  terminationGracePeriod: {margin: 1000h}\n  app: {drainDelay: 1h}\n",
			[]string{"spec.terminationGracePeriod.margin"}, `"1000h" is longer than the maximum`},
		{"waitBeforeExit plus margin", spec + "  terminationGracePeriod: {margin: 2h}\n  sidecars: [{preset: linkerd, waitBeforeExit: 23h}]\n",
			[]string{"spec.sidecars[0].waitBeforeExit"}, `"23h" plus spec.terminationGracePeriod.margin 2h is 25h, a longer grace period than the maximum 24h: shorten one of them`},
		{"drainDelay plus the default margin", spec + "  app: {drainDelay: 24h}\n",
			[]string{"spec.app.drainDelay"}, `"24h" plus spec.terminationGracePeriod.margin 10s`},
		{"ConfigMap names its key", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {preset: linkerd, waitBeforeExit: 48h, appDrainDelay: 30h}\n",
			[]string{"data.appDrainDelay", "data.waitBeforeExit"}, "longer than the maximum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFieldError(t, tc.config, tc.wantPaths, tc.wantMsg)
		})
	}
}

func TestLoadDelayAtTheMaximum(t *testing.T) {
	cfg, err := config.LoadBytes([]byte(header + "spec:\n  terminationGracePeriod: {margin: 1h}\n  app: {drainDelay: 23h}\n  sidecars: [{preset: linkerd, waitBeforeExit: \"82800\"}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Spec.Sidecars[0].WaitBeforeExit.Value + cfg.Spec.TerminationGracePeriod.Margin.Value; got != config.MaxDelay {
		t.Errorf("waitBeforeExit + margin = %s, want %s", got, config.MaxDelay)
	}
}

func TestParseDelay(t *testing.T) {
	for _, tc := range []struct {
		in      string
		margin  time.Duration
		want    time.Duration
		wantErr string
	}{
		{"24h", 0, 24 * time.Hour, ""},
		{"23h59m50s", 10 * time.Second, 23*time.Hour + 59*time.Minute + 50*time.Second, ""},
		{"23h59m51s", 10 * time.Second, 0, "a longer grace period than the maximum"},
		{"86401", 0, 0, "longer than the maximum"},
		{"soon", 0, 0, "is not a duration"},
		{"-1s", 0, 0, "negative"},
	} {
		got, err := config.ParseDelay(tc.in, tc.margin)
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("ParseDelay(%q, %s) = %s, %v; want %s", tc.in, tc.margin, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("ParseDelay(%q, %s) error %v, want one containing %q", tc.in, tc.margin, err, tc.wantErr)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		config.MaxDelay:               "24h",
		90 * time.Minute:              "1h30m",
		10 * time.Second:              "10s",
		2*time.Hour + 5*time.Second:   "2h0m5s",
		0:                             "0s",
		1500 * time.Millisecond:       "1.5s",
		24*time.Hour + 10*time.Second: "24h0m10s",
	} {
		if got := config.FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%s) = %q, want %q", d, got, want)
		}
	}
}

// checkFieldError loads the config and checks that it fails with errors at
// exactly wantPaths, one of them saying wantMsg.
func checkFieldError(t *testing.T, cfg string, wantPaths []string, wantMsg string) {
	t.Helper()
	_, err := config.LoadBytes([]byte(cfg))
	if err == nil {
		t.Fatal("want an error")
	}
	if got := paths(fieldErrors(t, err)); !reflect.DeepEqual(got, wantPaths) {
		t.Errorf("paths = %q, want %q\nerror: %v", got, wantPaths, err)
	}
	if !strings.Contains(err.Error(), wantMsg) {
		t.Errorf("error %q does not contain %q", err, wantMsg)
	}
}
