package config

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// validateProbe checks the ports of a startupProbe given in the config,
// which the function writes into pods as they are.
func validateProbe(add func(string, string), at string, p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.HTTPGet != nil {
		validatePort(add, at+".httpGet.port", p.HTTPGet.Port)
	}
	if p.TCPSocket != nil {
		validatePort(add, at+".tcpSocket.port", p.TCPSocket.Port)
	}
	if p.GRPC != nil {
		validatePortNumber(add, at+".grpc.port", p.GRPC.Port, "is required: a port number from 1 to 65535")
	}
}

// validatePort checks a port given as a number or an IANA service name.
func validatePort(add func(string, string), at string, port intstr.IntOrString) {
	if port.Type == intstr.Int {
		validatePortNumber(add, at, port.IntVal, "is required: a port number from 1 to 65535 or a port name")
		return
	}
	if len(validation.IsValidPortName(port.StrVal)) > 0 {
		add(at, fmt.Sprintf("%q is not a port name: use at most 15 lowercase letters, digits and hyphens, or a port number from 1 to 65535", port.StrVal))
	}
}

// validatePortNumber checks a port number; zero is an absent port.
func validatePortNumber(add func(string, string), at string, port int32, required string) {
	switch {
	case port == 0:
		add(at, required)
	case len(validation.IsValidPortNum(int(port))) > 0:
		add(at, fmt.Sprintf("%d is not a port number from 1 to 65535", port))
	}
}
