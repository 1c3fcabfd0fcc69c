package config_test

import (
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// TestNoSleepMessage: an exit delay that cannot be written says why (the
// image's missing sleep; an empty sleepCommand is an error of its own) and offers only fixes
// that work: mode native from 1.29, and the sidecar's own flag only for
// the sidecar that has one.
func TestNoSleepMessage(t *testing.T) {
	spec := header + "spec:\n"
	for _, tc := range []struct {
		name, config string
		want         string
		wantNot      []string
	}{
		{"cloud-sql-proxy at 1.29", spec + "  kubernetesVersion: \"1.29\"\n  sidecars: [{preset: cloud-sql-proxy, waitBeforeExit: 10s}]\n",
			"spec.sidecars[0].waitBeforeExit: the cloud-sql-proxy image has no sleep binary and kubernetesVersion 1.29 has no sleep action: " +
				"set kubernetesVersion to 1.30 or newer (the lifecycle sleep action), use mode native (kubelet stops native sidecars after the application), " +
				"give sleepCommand (a sleep binary the image has), or drop waitBeforeExit and give the proxy its own --min-sigterm-delay flag",
			nil},
		{"cloud-sql-proxy at 1.28: native needs 1.29", spec + "  kubernetesVersion: \"1.28\"\n  sidecars: [{preset: cloud-sql-proxy, waitBeforeExit: 10s}]\n",
			"set kubernetesVersion to 1.30 or newer (the lifecycle sleep action), give sleepCommand (a sleep binary the image has), or drop waitBeforeExit and give the proxy",
			[]string{"mode native"}},
		{"an empty sleepCommand is an error of its own", spec + "  kubernetesVersion: \"1.28\"\n  sidecars: [{preset: linkerd, waitBeforeExit: 10s, sleepCommand: []}]\n",
			"spec.sidecars[0].sleepCommand: must not be empty", []string{"sigterm", "no sleep binary"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.LoadBytes([]byte(tc.config))
			if err == nil {
				t.Fatal("want an error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			for _, not := range tc.wantNot {
				if strings.Contains(err.Error(), not) {
					t.Errorf("error %q contains %q", err, not)
				}
			}
		})
	}
}

// TestProbeBounds: a startupProbe's numbers out of range say so and what
// to give instead, and its grace period is one kubelet can count.
func TestProbeBounds(t *testing.T) {
	spec := header + "spec:\n  sidecars:\n  - name: a\n    startupProbe:\n      httpGet: {port: 8080}\n"
	for _, tc := range []struct {
		name, probe, path, want string
	}{
		{"negative period", "      periodSeconds: -1\n", "spec.sidecars[0].startupProbe.periodSeconds", "-1 is negative: use 0 or more"},
		{"a number past 64 bits is an integer out of range", "      periodSeconds: 99999999999999999999\n", "spec.sidecars[0].startupProbe.periodSeconds",
			"found the integer 99999999999999999999, past the int64 maximum 9223372036854775807"},
		{"grace period kubelet wraps", "      terminationGracePeriodSeconds: 9223372037\n", "spec.sidecars[0].startupProbe.terminationGracePeriodSeconds",
			"9223372037 is longer than kubelet can count (it multiplies the seconds by time.Second in an int64, which wraps around): give at most 9223372036"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFieldError(t, spec+tc.probe, []string{tc.path}, tc.want)
		})
	}
	if _, err := config.LoadBytes([]byte(spec + "      terminationGracePeriodSeconds: 9223372036\n")); err != nil {
		t.Errorf("the kubelet limit itself: %v", err)
	}
}
