package prestop_test

import (
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget/prestop"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

func TestCommand(t *testing.T) {
	tests := []struct {
		name    string
		cmd     []string
		seconds int64
		known   bool
		form    string
	}{
		{"sleep binary", []string{"/bin/sleep", "30"}, 30, true, prestop.FormExecSleep},
		{"sleep on PATH", []string{"sleep", "5"}, 5, true, prestop.FormExecSleep},
		{"other path", []string{"/usr/local/bin/sleep", "7"}, 7, true, prestop.FormExecSleep},
		{"seconds suffix", []string{"sleep", "20s"}, 20, true, prestop.FormExecSleep},
		{"minutes suffix", []string{"sleep", "2m"}, 120, true, prestop.FormExecSleep},
		{"hours and days", []string{"sleep", "1h", "1d"}, 90000, true, prestop.FormExecSleep},
		{"arguments add up", []string{"sleep", "1m", "30"}, 90, true, prestop.FormExecSleep},
		{"fraction rounds up", []string{"sleep", "0.5"}, 1, true, prestop.FormExecSleep},
		{"zero", []string{"sleep", "0"}, 0, true, prestop.FormExecSleep},
		{"fraction of a minute", []string{"sleep", ".5m"}, 30, true, prestop.FormExecSleep},
		{"near the int64 limit", []string{"sleep", "9223372036854775800"}, 9223372036854775800, true, prestop.FormExecSleep},
		{"past the int64 limit", []string{"sleep", "99999999999999999999", "1d"}, 9223372036854775807, true, prestop.FormExecSleep},
		{"only a dot", []string{"sleep", "."}, 0, false, ""},
		{"no argument", []string{"sleep"}, 0, false, ""},
		{"negative", []string{"sleep", "-5"}, 0, false, ""},
		{"infinity", []string{"sleep", "infinity"}, 0, false, ""},
		{"exponent", []string{"sleep", "1e3"}, 0, false, ""},
		{"unknown suffix", []string{"sleep", "5x"}, 0, false, ""},
		{"sh -c sleep", []string{"sh", "-c", "sleep 15"}, 15, true, prestop.FormShellSleep},
		{"issue's drain loop", []string{"/bin/bash", "-c", "sleep 130 && while pkill -QUIT -f myapp; do sleep 1; done"}, 130, true, prestop.FormShellSleep},
		{"semicolon", []string{"ash", "-c", "sleep 10; kill -TERM 1"}, 10, true, prestop.FormShellSleep},
		{"or", []string{"dash", "-c", "sleep 3 || true"}, 3, true, prestop.FormShellSleep},
		{"newline and indent", []string{"sh", "-c", "\n  /bin/sleep 2m\n  nginx -s quit\n"}, 120, true, prestop.FormShellSleep},
		{"clustered -ec", []string{"/bin/sh", "-ec", "sleep 8 && echo bye"}, 8, true, prestop.FormShellSleep},
		{"flags before -c", []string{"bash", "-e", "-o", "pipefail", "-c", "sleep 9; x"}, 9, true, prestop.FormShellSleep},
		{"long option", []string{"bash", "--noprofile", "-c", "sleep 4"}, 4, true, prestop.FormShellSleep},
		{"later sleep", []string{"sh", "-c", "echo stopping && sleep 150"}, 0, false, ""},
		{"background sleep", []string{"sh", "-c", "sleep 30 & wait"}, 0, false, ""},
		{"piped sleep", []string{"sh", "-c", "sleep 30 | cat"}, 0, false, ""},
		{"quoted argument", []string{"sh", "-c", "sleep \"30\""}, 0, false, ""},
		{"variable", []string{"sh", "-c", "sleep $DRAIN"}, 0, false, ""},
		{"script file", []string{"sh", "/drain.sh"}, 0, false, ""},
		{"no -c script", []string{"sh", "-c"}, 0, false, ""},
		{"other shell", []string{"zsh", "-c", "sleep 5"}, 0, false, ""},
		{"other program", []string{"/app/drain", "--wait=30"}, 0, false, ""},
		{"empty", nil, 0, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := prestop.Command(tc.cmd)
			if d.Known != tc.known || d.Seconds != tc.seconds {
				t.Fatalf("Command(%q) = %ds known %v, want %ds known %v", tc.cmd, d.Seconds, d.Known, tc.seconds, tc.known)
			}
			if tc.known && d.Form != tc.form {
				t.Errorf("form %q, want %q", d.Form, tc.form)
			}
			if !tc.known && d.Form == "" {
				t.Error("an unknown duration must say what the hook is")
			}
		})
	}
}

func TestRead(t *testing.T) {
	tests := []struct {
		name           string
		container      string
		present, known bool
		seconds        int64
		form           string
	}{
		{"no preStop", "name: app\n", false, true, 0, prestop.FormNone},
		{"sleep action", "name: app\nlifecycle: {preStop: {sleep: {seconds: 40}}}\n", true, true, 40, prestop.FormSleepAction},
		{"exec sleep", "name: app\nlifecycle: {preStop: {exec: {command: [/bin/sleep, \"25\"]}}}\n", true, true, 25, prestop.FormExecSleep},
		{"shell", "name: app\nlifecycle:\n  preStop:\n    exec:\n      command: [/bin/bash, -c, 'sleep 130 && while pkill -QUIT -f myapp; do sleep 1; done']\n", true, true, 130, prestop.FormShellSleep},
		{"httpGet", "name: app\nlifecycle: {preStop: {httpGet: {path: /drain, port: 8080}}}\n", true, false, 0, "httpGet"},
		{"tcpSocket", "name: app\nlifecycle: {preStop: {tcpSocket: {port: 8080}}}\n", true, false, 0, "tcpSocket"},
		{"other command", "name: app\nlifecycle: {preStop: {exec: {command: [/app/drain]}}}\n", true, false, 0, `exec "/app/drain"`},
		{"sleep seconds not a number", "name: app\nlifecycle: {preStop: {sleep: {seconds: soon}}}\n", true, false, 0, "sleep"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := prestop.Read(krmtest.Parse(t, tc.container))
			if d.Present != tc.present || d.Known != tc.known || d.Seconds != tc.seconds || d.Form != tc.form {
				t.Errorf("Read = %+v, want present %v known %v %ds form %q", d, tc.present, tc.known, tc.seconds, tc.form)
			}
		})
	}
}
